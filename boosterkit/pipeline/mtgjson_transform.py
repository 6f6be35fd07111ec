"""Pure mappings from one MTGJSON v5 set object to staging rows (no I/O, no database).

MTGJSON lists each face of a multi-face printing as its own entry (``side`` a/b/…), all
sharing ``identifiers.scryfallId``; ``set_rows``/``card_rows`` merge them back into one
printing with faces, the shape ``pipeline.load`` expects (``RAW_COLUMNS``/``FACE_COLUMNS``).
Booster configs become product rows in the shape of ``pipeline.collation.ProductRows``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from boosterkit.errors import InputError
from boosterkit.pipeline.load import DOUBLE_FACED_LAYOUTS
from boosterkit.pipeline.shapes import (
    check_product,
    flag,
    listing,
    mapping,
    number,
    text,
    texts,
    whole,
)

_COLOR_ORDER = "WUBRG"

#: MTGJSON booster names → product kinds; any other name is its own kind.
BOOSTER_KINDS = {
    "default": "draft",
    "draft": "draft",
    "set": "set",
    "collector": "collector",
    "play": "play",
    "arena": "arena",
    "jumpstart": "jumpstart",
}

_LANGS = {
    "English": "en",
    "Japanese": "ja",
    "German": "de",
    "French": "fr",
    "Italian": "it",
    "Spanish": "es",
    "Portuguese (Brazil)": "pt",
    "Russian": "ru",
    "Korean": "ko",
    "Chinese Simplified": "zhs",
    "Chinese Traditional": "zht",
    "Phyrexian": "ph",
}


#: The languages whose card names are kept (``card_names``): the sheets' languages but
#: English (``minigames.labels.LANGS``; a test checks they agree).
NAME_LANGS = ("fr", "es")


def foreign_names(card_id: str, entries: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The ``card_names`` rows of one printing: the first face's ``foreignData`` in each of
    ``NAME_LANGS`` (its ``name`` is the whole card's, "A // B" for two faces)."""
    out: dict[str, dict[str, Any]] = {}
    for e in entries:
        for f in e.get("foreignData") or ():
            lang = _LANGS.get(str(f.get("language")))
            if lang in NAME_LANGS and lang not in out and f.get("name"):
                out[lang] = {"card_id": card_id, "lang": lang, "name": f["name"],
                             "type_line": f.get("type")}  # fmt: skip
    return list(out.values())


#: The keys of a set object and of a card entry the import reads, by the JSON type each
#: must have where present (``strs``: a list of strings); ``check_set`` holds a file to them.
SET_KEYS = {"code": "str", "name": "str", "type": "str", "releaseDate": "str",
            "baseSetSize": "int", "parentCode": "str", "isOnlineOnly": "bool",
            "cards": "list", "tokens": "list", "booster": "map"}  # fmt: skip
CARD_KEYS = {
    "uuid": "str", "name": "str", "number": "str", "setCode": "str", "identifiers": "map",
    "side": "str", "faceName": "str", "layout": "str", "type": "str", "manaCost": "str",
    "manaValue": "num", "convertedManaCost": "num", "colors": "strs", "colorIdentity": "strs",
    "power": "str", "toughness": "str", "loyalty": "str", "text": "str", "rarity": "str",
    "language": "str", "finishes": "strs", "promoTypes": "strs", "frameEffects": "strs",
    "isFullArt": "bool", "borderColor": "str", "originalReleaseDate": "str", "artist": "str",
    "boosterTypes": "strs", "isPromo": "bool", "foreignData": "list", "watermark": "str",
}  # fmt: skip
_REQUIRED = ("uuid", "name", "number", "setCode")
_CHECKS: dict[str, Callable[[Any, str], object]] = {
    "str": lambda v, at: text(v, at),
    "int": lambda v, at: whole(v, at, low=0),
    "num": number,
    "bool": flag,
    "strs": texts,
    "list": listing,
    "map": mapping,
}


def _check_keys(obj: Mapping[str, Any], keys: Mapping[str, str], where: str) -> None:
    for key, kind in keys.items():
        value = obj.get(key)
        if value is not None:
            _CHECKS[kind](value, f"{where}: {key!r}")


def check_set(data: Any, where: str) -> None:
    """Hold a set object and its card entries to ``SET_KEYS`` and ``CARD_KEYS`` (and a
    card's ``identifiers`` and ``foreignData`` to theirs): one ``InputError`` line naming the
    entry and key of the first value of another type."""
    if not isinstance(data, Mapping) or "code" not in data:
        raise InputError(f"{where}: not an MTGJSON set object (no 'code')")
    _check_keys(data, SET_KEYS, where)
    for key in ("cards", "tokens"):
        for i, e in enumerate(data.get(key) or []):
            at = f"{where}: {key}[{i}]"
            if not isinstance(e, Mapping) or not set(_REQUIRED) <= e.keys():
                raise InputError(f"{at} lacks uuid/name/number/setCode (not an MTGJSON card)")
            _check_keys(e, CARD_KEYS, at)
            ids = e.get("identifiers") or {}
            _check_keys(ids, {"scryfallId": "str", "scryfallOracleId": "str"}, at)
            for j, f in enumerate(e.get("foreignData") or []):
                _check_keys(mapping(f, f"{at}: foreignData[{j}]"),
                            {"language": "str", "name": "str", "type": "str"}, at)  # fmt: skip


@dataclass
class SetRows:
    """Everything one MTGJSON set object contributes to the database."""

    sets: list[dict[str, Any]] = field(default_factory=list)
    cards: list[dict[str, Any]] = field(default_factory=list)
    faces: list[dict[str, Any]] = field(default_factory=list)
    uuids: list[dict[str, Any]] = field(default_factory=list)
    #: card id, lang, name, type line: the printing's names in ``NAME_LANGS`` (``foreignData``)
    names: list[dict[str, Any]] = field(default_factory=list)
    #: uuid → (set code, collector number), for the booster sheets
    numbers: dict[str, tuple[str, str]] = field(default_factory=dict)
    skipped: int = 0  # entries without a Scryfall id


def is_minigame_shape(data: Mapping[str, Any]) -> bool:
    """MTGJSON types minigame sets ``funny``: a child set of tokens only, some double-faced."""
    tokens = data.get("tokens") or []
    return (
        data.get("type") == "funny"
        and bool(data.get("parentCode"))
        and not data.get("cards")
        and any(t.get("layout") == "double_faced_token" for t in tokens)
    )


def set_row(data: Mapping[str, Any], known_types: Mapping[str, str]) -> dict[str, Any]:
    """The ``sets`` row of an MTGJSON set object (Scryfall's set type wins when known)."""
    code = str(data["code"]).lower()
    set_type = known_types.get(code) or data.get("type")
    if code not in known_types and is_minigame_shape(data):
        set_type = "minigame"
    parent = data.get("parentCode")
    return {
        "code": code,
        "name": data.get("name"),
        "set_type": set_type,
        "released_at": data.get("releaseDate"),
        "card_count": _printings(data.get("cards")) or _printings(data.get("tokens")),
        "printed_size": data.get("baseSetSize"),
        "parent_set_code": parent.lower() if parent else None,
        "digital": bool(data.get("isOnlineOnly", False)),
        "source": "mtgjson",
    }


def _printings(entries: Any) -> int:
    return len({(e.get("identifiers") or {}).get("scryfallId") for e in entries or []})


def token_set_row(data: Mapping[str, Any], token_code: str, count: int) -> dict[str, Any]:
    """The ``t<set>`` row for a set's ``tokens`` array when they carry their own set code."""
    return {
        "code": token_code.lower(),
        "name": f"{data.get('name')} Tokens",
        "set_type": "token",
        "released_at": data.get("releaseDate"),
        "card_count": count,
        "printed_size": None,
        "parent_set_code": str(data["code"]).lower(),
        "digital": bool(data.get("isOnlineOnly", False)),
        "source": "mtgjson",
    }


def _colors(values: Iterable[str]) -> list[str]:
    got = set(values)
    return [c for c in _COLOR_ORDER if c in got] + sorted(got - set(_COLOR_ORDER))


def _join(values: Iterable[str | None], sep: str) -> str | None:
    parts = [v for v in values if v]
    return sep.join(parts) if parts else None


def _side_key(entry: Mapping[str, Any]) -> str:
    return entry.get("side") or ""


def merge_printing(
    entries: list[Mapping[str, Any]], *, in_booster: bool | None, released_at: str | None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One printing (a ``stage_cards`` row) and its faces from the entries of one Scryfall id."""
    entries = sorted(entries, key=_side_key)
    front = entries[0]
    multi = len(entries) > 1
    layout = front.get("layout")
    card = {
        "id": front["identifiers"]["scryfallId"],
        "oracle_id": front["identifiers"].get("scryfallOracleId"),
        "name": front["name"],
        "set_code": str(front["setCode"]).lower(),
        "collector_number": str(front["number"]),
        "lang": _LANGS.get(front.get("language", "English")),
        "rarity": front.get("rarity"),
        "layout": layout,
        "type_line": _join((e.get("type") for e in entries), " // "),
        "mana_cost": _join((e.get("manaCost") for e in entries), " // "),
        "mana_value": front.get("manaValue", front.get("convertedManaCost")),
        "colors": _printing_colors(entries, layout),
        "color_identity": _colors(front.get("colorIdentity") or []),
        "power": front.get("power"),
        "toughness": front.get("toughness"),
        "loyalty": front.get("loyalty"),
        "oracle_text": _join((e.get("text") for e in entries), "\n//\n")
        if multi
        else front.get("text"),
        "in_booster": in_booster,
        "finishes": list(front.get("finishes") or []),
        "promo_types": list(front.get("promoTypes") or []),
        "frame_effects": list(front.get("frameEffects") or []),
        "full_art": bool(front.get("isFullArt", False)),
        "border_color": front.get("borderColor"),
        "released_at": front.get("originalReleaseDate") or released_at,
        "source": "mtgjson",
        "artist": front.get("artist"),  # MTGJSON has no image URLs: no ``image_uris``
        "watermark": front.get("watermark"),
        "mtgo_id": _int_id(front["identifiers"].get("mtgoId")),
        "mtgo_foil_id": _int_id(front["identifiers"].get("mtgoFoilId")),
    }
    return card, _face_rows(card["id"], entries) if multi else []


def _int_id(value: Any) -> int | None:
    """A catalogue id MTGJSON writes as text (``"91353"``); None when absent or not a number."""
    text = str(value) if value is not None else ""
    return int(text) if text.isdigit() and len(text) < 10 else None


def _printing_colors(entries: list[Mapping[str, Any]], layout: Any) -> list[str]:
    """A printing's colours: its front's, or every side's for a multi-side card with one
    physical side (split, aftermath, flip, adventure)."""
    if len(entries) > 1 and layout not in DOUBLE_FACED_LAYOUTS:
        return _colors(c for e in entries for c in e.get("colors") or [])
    return _colors(entries[0].get("colors") or [])


def _face_rows(card_id: str, entries: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The ``stage_faces`` rows of a multi-face printing: one per entry, in side order."""
    return [
        {
            "card_id": card_id,
            "face_index": i,
            "name": e.get("faceName") or e.get("name"),
            "type_line": e.get("type"),
            "mana_cost": e.get("manaCost"),
            "colors": _colors(e.get("colors") or []),
            "power": e.get("power"),
            "toughness": e.get("toughness"),
            "loyalty": e.get("loyalty"),
            "oracle_text": e.get("text"),
        }
        for i, e in enumerate(entries)
    ]


def _booster_flags(data: Mapping[str, Any]) -> Any:
    """A function entry → ``in_booster``: ``boosterTypes`` where the file has it, else by number."""
    cards = data.get("cards") or []
    if any("boosterTypes" in c for c in cards):
        return lambda e: bool(e.get("boosterTypes"))
    base = data.get("baseSetSize")

    def by_number(e: Mapping[str, Any]) -> bool | None:
        if base is None:
            return None
        num = str(e.get("number", ""))
        return num.isdigit() and int(num) <= int(base) and not e.get("isPromo", False)

    return by_number


def set_rows(data: Mapping[str, Any], known_types: Mapping[str, str]) -> SetRows:
    """Map one MTGJSON set object (``data`` of a set file, or one set of AllPrintings)."""
    out = SetRows()
    out.sets.append(set_row(data, known_types))
    released = data.get("releaseDate")
    flag = _booster_flags(data)
    own = str(data["code"]).upper()
    tokens = data.get("tokens") or []
    token_codes = {str(t.get("setCode", own)).upper() for t in tokens} - {own}
    for tc in sorted(token_codes):
        n = len(
            {
                t["identifiers"].get("scryfallId")
                for t in tokens
                if str(t.get("setCode")).upper() == tc
            }
        )
        out.sets.append(token_set_row(data, tc, n))
    for group, is_token in ((data.get("cards") or [], False), (tokens, True)):
        by_id: dict[str, list[Mapping[str, Any]]] = {}
        for e in group:
            sid = (e.get("identifiers") or {}).get("scryfallId")
            if not sid:
                out.skipped += 1
                continue
            by_id.setdefault(sid, []).append(e)
            out.uuids.append({"uuid": e["uuid"], "card_id": sid, "side": e.get("side")})
            out.numbers[e["uuid"]] = (str(e["setCode"]).lower(), str(e["number"]))
        for sid, entries in by_id.items():
            out.names += foreign_names(sid, entries)
            card, faces = merge_printing(
                entries, in_booster=False if is_token else flag(entries[0]), released_at=released
            )
            out.cards.append(card)
            out.faces.extend(faces)
    return out


def product_code(set_code: str, booster_name: str) -> str:
    """``default`` → ``<set>-draft-mtgjson``; any other booster name → ``<set>-<name>-mtgjson``."""
    name = "draft" if booster_name == "default" else booster_name
    return f"{set_code}-{name}-mtgjson"


def booster_products(
    data: Mapping[str, Any], numbers: Mapping[str, tuple[str, str]], where: str = "booster"
) -> list[dict[str, Any]]:
    """The ``booster`` key → product dicts (see ``pipeline.collation.write_products``).

    Sheet cards keep the MTGJSON uuid as ``ref``; set and number come from ``numbers`` when the
    uuid is a printing of this file, else stay unknown until ``mtgjson_uuids`` resolves them
    (the set is filled in when ``sourceSetCodes`` names exactly one other set). Each product
    lists its ``source_sets`` (lower-case ``sourceSetCodes``), kept in ``products.source_sets``.
    A value of the wrong shape is an ``InputError`` naming ``where`` (the file) and the key.
    """
    set_code = str(data["code"]).lower()
    own = {set_code} | {sc for sc, _ in numbers.values()}
    configs = mapping(data.get("booster"), f"{where}: 'booster'", optional=True)
    return [
        _booster_product(
            data,
            bname,
            mapping(cfg, f"{where}: booster {bname!r}"),
            numbers,
            own,
            f"{where}: booster {bname!r}",
        )  # fmt: skip
        for bname, cfg in sorted(configs.items())
    ]


def _variant(b: Any, where: str) -> dict[str, Any]:
    """One weighted pack variant of a booster config: ``{"contents": {sheet: n}, "weight"}``."""
    b = mapping(b, where)
    contents = mapping(b.get("contents"), f"{where}: 'contents'")
    return {
        "weight": whole(b.get("weight"), f"{where}: 'weight'", low=0),
        "slots": [
            (k, whole(v, f"{where}: the count of sheet {k!r}", low=0)) for k, v in contents.items()
        ],  # fmt: skip
    }


def _booster_product(
    data: Mapping[str, Any],
    bname: str,
    cfg: Mapping[str, Any],
    numbers: Mapping[str, tuple[str, str]],
    own: set[str],
    where: str,
) -> dict[str, Any]:
    """The product dict of the booster config ``bname`` of set file ``data``; ``own`` are
    the set codes of the file's printings."""
    set_code = str(data["code"]).lower()
    kind = BOOSTER_KINDS.get(bname, bname)
    sources = [c.lower() for c in texts(cfg.get("sourceSetCodes"), f"{where}: 'sourceSetCodes'")]
    foreign = [c for c in dict.fromkeys(sources) if c not in own]
    # a card printed in another set: its set is known when only one other set is a source
    elsewhere = (foreign[0] if len(foreign) == 1 else None, None)
    sheets = [
        _sheet(
            sname,
            mapping(sheet, f"{where}: sheet {sname!r}"),
            numbers,
            elsewhere,
            f"{where}: sheet {sname!r}",
        )  # fmt: skip
        for sname, sheet in mapping(cfg.get("sheets"), f"{where}: 'sheets'", optional=True).items()
    ]
    boosters = listing(cfg.get("boosters"), f"{where}: 'boosters'", optional=True)
    variants = [_variant(b, f"{where}: variant {i}") for i, b in enumerate(boosters, start=1)]
    undefined = sorted({k for v in variants for k, _ in v["slots"]} - {s["name"] for s in sheets})
    if undefined:
        raise InputError(f"{where}: its variants draw undefined sheet(s) {', '.join(undefined)}")
    name = text(cfg.get("name"), f"{where}: 'name'", optional=True)
    product = {
        "code": product_code(set_code, bname),
        "set_code": set_code,
        "name": name or f"{data.get('name')} {kind.title()} Booster",
        "kind": kind,
        "source": "mtgjson",
        "variants": variants,
        "sheets": sheets,
        "source_sets": sources or [set_code],
    }
    check_product(product, where)
    return product


def _sheet(
    name: str,
    sheet: Mapping[str, Any],
    numbers: Mapping[str, tuple[str, str]],
    elsewhere: tuple[str | None, None],
    where: str,
) -> dict[str, Any]:
    """The sheet dict of one MTGJSON booster sheet; a card's set and number come from
    ``numbers``, else are ``elsewhere``."""
    foil = flag(sheet.get("foil"), f"{where}: 'foil'")
    cards = []
    for uuid, weight in mapping(sheet.get("cards"), f"{where}: 'cards'", optional=True).items():
        sc, num = numbers.get(uuid, elsewhere)
        cards.append(
            {
                "ref": uuid,
                "set_code": sc,
                "collector_number": num,
                "foil": foil,
                "weight": whole(weight, f"{where}: the weight of {uuid}", low=0),
            }
        )
    total = sheet.get("totalWeight")
    return {
        "name": name,
        "foil": foil,
        "balance_colors": flag(sheet.get("balanceColors"), f"{where}: 'balanceColors'"),
        "allow_duplicates": flag(sheet.get("allowDuplicates"), f"{where}: 'allowDuplicates'"),
        "fixed": flag(sheet.get("fixed"), f"{where}: 'fixed'"),
        "total_weight": sum(c["weight"] for c in cards)
        if total is None
        else whole(total, f"{where}: 'totalWeight'", low=0),
        "cards": cards,
    }
