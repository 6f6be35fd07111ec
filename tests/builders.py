"""Small in-repo builders of the real formats: cards (MTGJSON entries and Scryfall objects),
MTGJSON v5 set files, taw/magic-sealed-data products.

mtgjson's ``for_testing()`` builders are the model: every builder takes keyword overrides and
writes the real format, so the data goes through the real pipeline (``import_mtgjson``,
``import_collation``, ``sync_file``). Names and texts are made up; ids are uuid5 of set and
number. ``tests/world.py`` builds a whole world of sets from these.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

NS = uuid.UUID("0b8f4c52-7a1e-4d9c-9f0e-2b6d1c3a5e77")
COLOURS = ("W", "U", "B", "R", "G")
BASIC_TYPES = {"W": "Plains", "U": "Island", "B": "Swamp", "R": "Mountain", "G": "Forest"}
RANK = {"common": 0, "uncommon": 1, "rare": 2, "mythic": 3}
#: Layouts whose faces are two sides of the card (Scryfall keeps their colours on the faces).
DOUBLE_FACED = ("transform", "modal_dfc", "double_faced_token", "reversible_card")


def sid(set_code: str, number: str) -> str:
    """The (made-up) Scryfall id of printing ``set_code`` #``number``."""
    return str(uuid.uuid5(NS, f"scryfall:{set_code.lower()}:{number}"))


def mid(set_code: str, number: str, side: str = "") -> str:
    """The (made-up) MTGJSON uuid of a face of printing ``set_code`` #``number``."""
    return str(uuid.uuid5(NS, f"mtgjson:{set_code.lower()}:{number}:{side}"))


# --- cards ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Face:
    """One face of a multi-face card."""

    name: str
    type_line: str
    colors: tuple[str, ...] = ()
    mana_cost: str | None = None
    text: str | None = None
    power: str | None = None
    toughness: str | None = None
    loyalty: str | None = None


@dataclass(frozen=True)
class Card:
    """One printing, written as an MTGJSON entry per face (``mtgjson``) or a Scryfall card
    object (``scryfall``). ``faces`` makes it multi-face (``layout`` says how)."""

    set_code: str
    number: str
    name: str
    rarity: str = "common"
    type_line: str = "Creature — Fixture"
    colors: tuple[str, ...] = ()
    mana_cost: str | None = "{1}"
    mana_value: float = 1.0
    text: str | None = None
    power: str | None = None
    toughness: str | None = None
    loyalty: str | None = None
    layout: str = "normal"
    faces: tuple[Face, ...] = ()
    finishes: tuple[str, ...] = ("nonfoil", "foil")
    frame_effects: tuple[str, ...] = ()
    promo_types: tuple[str, ...] = ()
    full_art: bool = False
    booster: bool = True
    released: str = "2021-01-01"
    artist: str = "Fixture Artist"
    lang: str = "en"
    token: bool = False
    image: bool = True  # Scryfall objects carry image_uris

    @property
    def id(self) -> str:
        return sid(self.set_code, self.number)

    @property
    def oracle_id(self) -> str:
        return str(uuid.uuid5(NS, f"oracle:{self.name}"))

    def ref(self, foil: bool = False) -> str:
        """The magic-sealed-data reference: ``set:number`` (``:foil``); a card of two faces is
        numbered by its first part, ``set:numbera``, as mtg.wtf numbers it."""
        part = "a" if self.faces else ""
        return f"{self.set_code.lower()}:{self.number}{part}" + (":foil" if foil else "")

    def uuid(self) -> str:
        return mid(self.set_code, self.number, "a" if self.faces else "")

    def mtgjson(self) -> list[dict[str, Any]]:
        """The MTGJSON v5 entries: one per face, sharing ``identifiers.scryfallId``."""
        faces = self.faces or (None,)
        out = []
        for k, face in enumerate(faces):
            side = "abcdef"[k] if self.faces else ""
            type_line = face.type_line if face else self.type_line
            supertypes, _, subtypes = type_line.partition(" — ")
            entry: dict[str, Any] = {
                "artist": self.artist,
                "availability": ["paper"],
                "borderColor": "black",
                "colorIdentity": sorted(
                    set(self.colors) | {c for f in self.faces for c in f.colors}
                ),
                "colors": list(face.colors if face else self.colors),
                "finishes": list(self.finishes),
                "frameEffects": list(self.frame_effects),
                "frameVersion": "2015",
                "identifiers": {"scryfallId": self.id, "scryfallOracleId": self.oracle_id},
                "isFullArt": self.full_art,
                "language": "English",
                "layout": self.layout,
                "name": self.name,
                "number": self.number,
                "promoTypes": list(self.promo_types),
                "setCode": self.set_code.upper(),
                "subtypes": subtypes.split(),
                "supertypes": [w for w in ("Basic", "Legendary", "Snow") if w in supertypes],
                "type": type_line,
                "types": [w for w in supertypes.split() if w not in ("Basic", "Legendary")],
                "uuid": mid(self.set_code, self.number, side),
            }
            text = face.text if face else self.text
            if text is not None:
                entry["text"] = text
            for key in ("power", "toughness", "loyalty"):
                value = getattr(face, key) if face else getattr(self, key)
                if value is not None:
                    entry[key] = value
            cost = face.mana_cost if face else self.mana_cost
            if cost:
                entry["manaCost"] = cost
            if face:
                entry["faceName"] = face.name
                entry["side"] = side
                entry["otherFaceIds"] = [
                    mid(self.set_code, self.number, s) for s in "abcdef"[: len(faces)] if s != side
                ]
            if not self.token:
                entry |= {
                    "rarity": self.rarity,
                    "manaValue": self.mana_value,
                    "convertedManaCost": self.mana_value,
                    "boosterTypes": ["default", "set"] if self.booster else [],
                }
            out.append(entry)
        return out

    def scryfall(
        self, set_name: str = "Fixture Set", set_type: str = "expansion", set_id: str = ""
    ) -> dict[str, Any]:
        """The Scryfall card object (the fields boosterkit reads, named and typed as Scryfall's).
        A double-faced card keeps its colours, costs, texts and images on its faces only."""
        two_sided = self.layout in DOUBLE_FACED
        obj: dict[str, Any] = {
            "object": "card",
            "id": self.id,
            "oracle_id": self.oracle_id,
            "name": " // ".join(f.name for f in self.faces) if self.faces else self.name,
            "lang": self.lang,
            "released_at": self.released,
            "layout": self.layout,
            "cmc": self.mana_value,
            "type_line": self.type_line,
            "color_identity": sorted(set(self.colors) | {c for f in self.faces for c in f.colors}),
            "finishes": list(self.finishes),
            "set_id": set_id or str(uuid.uuid5(NS, f"set:{self.set_code.lower()}")),
            "set": self.set_code.lower(),
            "set_name": set_name,
            "set_type": set_type,
            "collector_number": self.number,
            "rarity": self.rarity,
            "artist": self.artist,
            "booster": self.booster,
            "promo_types": list(self.promo_types),
            "frame_effects": list(self.frame_effects),
            "full_art": self.full_art,
        }
        if not two_sided:
            obj["colors"] = list(self.colors)
            if self.mana_cost is not None:
                obj["mana_cost"] = self.mana_cost
            for key in ("text", "power", "toughness", "loyalty"):
                value = getattr(self, key)
                if value is not None:
                    obj["oracle_text" if key == "text" else key] = value
            if self.image:
                obj["image_uris"] = self.image_uris("front")
        if self.faces:
            obj["card_faces"] = [
                self._scryfall_face(f, side) for f, side in zip(self.faces, ("front", "back"))
            ]
        return obj

    def image_uris(self, side: str) -> dict[str, str]:
        path = f"{side}/{self.id[0]}/{self.id[1]}/{self.id}.jpg"
        return {f: f"https://cards.scryfall.io/{f}/{path}" for f in ("small", "normal")}

    def _scryfall_face(self, f: Face, side: str) -> dict[str, Any]:
        face: dict[str, Any] = {
            "object": "card_face",
            "name": f.name,
            "type_line": f.type_line,
            "mana_cost": f.mana_cost or "",
            "oracle_text": f.text or "",
        }
        if self.layout != "adventure":
            face["colors"] = list(f.colors)
        face |= {k: getattr(f, k) for k in ("power", "toughness", "loyalty") if getattr(f, k)}
        if self.layout in DOUBLE_FACED:
            face["artist"] = self.artist
            if self.image:
                face["image_uris"] = self.image_uris(side)
        return face


def card(set_code: str, number: int | str, **kw: Any) -> Card:
    """A printing with defaults for everything but its set and number."""
    kw.setdefault("name", f"{set_code.upper()} Card {number}")
    return Card(set_code=set_code, number=str(number), **kw)


def printing(
    set_code: str,
    number: int | str,
    name: str,
    rarity: str,
    colours: str,
    mv: int,
    type_line: str,
    text: str | None = None,
    **kw: Any,
) -> Card:
    """A card as a set lists it: ``colours`` such as ``"RG"`` (``""``: colourless), mana value
    ``mv``; its mana cost follows. Creatures get power and toughness ``mv``, planeswalkers
    loyalty ``mv + 1``, lands no cost; ``kw`` overrides any field."""
    front = type_line.split(" // ")[0]
    cost = "".join("{" + c + "}" for c in colours)
    if mv > len(colours):
        cost = "{" + str(mv - len(colours)) + "}" + cost
    fields: dict[str, Any] = {"colors": tuple(colours), "mana_cost": cost or None}
    if "Creature" in front:
        fields |= {"power": str(mv), "toughness": str(mv)}
    if "Planeswalker" in front:
        fields["loyalty"] = str(mv + 1)
    if "Land" in front:
        fields |= {"mana_cost": None, "colors": ()}
        text = text if text is not None or "Basic" in front else "{T}: Add {C}."
    return Card(
        set_code=set_code,
        number=str(number),
        name=name,
        rarity=rarity,
        type_line=type_line,
        mana_value=float(mv),
        text=text,
        **(fields | kw),
    )


def basic_land(set_code: str, number: int | str, colour: str, **kw: Any) -> Card:
    """A basic land of ``colour``'s type, named after it."""
    name = BASIC_TYPES[colour]
    return printing(set_code, number, name, "common", "", 0, f"Basic Land — {name}", **kw)


def modal(set_code: str, number: int | str, front: Face, back: Face, mv: int, **kw: Any) -> Card:
    """A card of two faces: modal double-faced unless ``layout`` says otherwise (``transform``,
    ``split``, ``adventure`` …)."""
    fields: dict[str, Any] = {"layout": "modal_dfc", "colors": front.colors}
    return Card(
        set_code=set_code,
        number=str(number),
        name=f"{front.name} // {back.name}",
        type_line=f"{front.type_line} // {back.type_line}",
        mana_cost=front.mana_cost,
        mana_value=float(mv),
        faces=(front, back),
        **(fields | kw),
    )


def token(set_code: str, number: int | str, name: str, type_line: str, **kw: Any) -> Card:
    kw.setdefault("colors", ())
    return Card(
        set_code=set_code,
        number=str(number),
        name=name,
        type_line=type_line,
        mana_cost=None,
        mana_value=0.0,
        layout=kw.pop("layout", "token"),
        token=True,
        booster=False,
        **kw,
    )


# --- set files and products --------------------------------------------------------------------


def mtgjson_file(
    code: str,
    name: str,
    released: str,
    cards: Iterable[Card] = (),
    tokens: Iterable[Card] = (),
    *,
    set_type: str = "expansion",
    parent: str | None = None,
    booster: dict[str, Any] | None = None,
    base_size: int | None = None,
) -> dict[str, Any]:
    """An MTGJSON v5 set file: ``{"meta", "data"}``."""
    cards, tokens = list(cards), list(tokens)
    data: dict[str, Any] = {
        "baseSetSize": base_size if base_size is not None else len(cards),
        "cards": [e for c in cards for e in c.mtgjson()],
        "code": code.upper(),
        "isFoilOnly": False,
        "isOnlineOnly": False,
        "keyruneCode": code.upper(),
        "name": name,
        "releaseDate": released,
        "tokens": [e for t in tokens for e in t.mtgjson()],
        "totalSetSize": len(cards),
        "translations": {},
        "type": set_type,
    }
    if parent:
        data["parentCode"] = parent.upper()
    if booster:
        data["booster"] = booster
    return {"meta": {"date": "2024-01-01", "version": "5.2.2+fixture"}, "data": data}


def weighted(cards: Iterable[Card], weight: Any = 1, foil: bool = False) -> dict[str, int]:
    """Sheet cards ``{ref: weight}``; ``weight`` is a number or a function of the card."""
    return {c.ref(foil): int(weight(c) if callable(weight) else weight) for c in cards}


def sheet(cards: dict[str, int], **flags: Any) -> dict[str, Any]:
    """A magic-sealed-data sheet (``total_weight`` computed)."""
    return {**flags, "total_weight": sum(cards.values()), "cards": cards}


def sealed_product(
    code: str,
    set_code: str,
    name: str,
    boosters: Sequence[tuple[dict[str, int], int]],
    sheets: dict[str, dict[str, Any]],
    set_name: str | None = None,
) -> dict[str, Any]:
    """A product of the taw/magic-sealed-data export: weighted variants and sheets."""
    return {
        "name": name,
        "code": code,
        "set_code": set_code,
        "set_name": set_name or name,
        "boosters": [{"sheets": dict(s), "weight": w} for s, w in boosters],
        "sheets": sheets,
    }


#: Set Booster variants 2020–2023: (commons, uncommons) with their weights out of 80 000
#: packs before the foil basic (15 %) and The List (25 %) split them (the export's figures).
SET_SPLITS = ((5, 1, 35), (4, 2, 40), (3, 3, 12.5), (2, 4, 7), (1, 5, 3.5), (0, 6, 0.2))


def set_booster_variants(
    middle: dict[str, int], list_sheet: str | None = "the_list"
) -> list[tuple[dict[str, int], int]]:
    """The variants of a 2020–2023 Set Booster, in the export's order: for a basic (85 %) or
    a foil basic (15 %), each common/uncommon split, without and with a List card (3 : 1)."""
    out = []
    for basic, share in (("basic", 0.85), ("foil_basic", 0.15)):
        for commons, uncommons, percent in SET_SPLITS:
            slots = {basic: 1, **({"common": commons} if commons else {}), "uncommon": uncommons}
            slots |= middle
            plain = round(800 * percent * share * 0.75)
            if list_sheet is None:
                out.append((slots, round(800 * percent * share)))
                continue
            out.append((slots, plain))
            out.append(({**slots, list_sheet: 1}, round(800 * percent * share * 0.25)))
    return out
