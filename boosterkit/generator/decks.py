"""A pool as the deck files of the tools players import into (``formats.POOLS``).

Each format writes one player's pool as the sideboard of an empty deck, as Arena and MTGO hand
out a sealed pool before deck building, and names every card the way its target does:

- ``arena``: Arena's import text (``Deck`` / ``Sideboard``, ``N Name (SET) CN``), Arena's own
  set codes where they differ from Scryfall's (``DAR``, ``CONF``); cards of sets Arena does
  not have (The List, Special Guests) by name alone; foils merge with their printing.
- ``moxfield``: the same lines with Scryfall's set codes, The List as ``PLST`` numbered like
  ``AFR-123``, foils marked ``*F*``.
- ``mtgo``: MTGO's ``.txt``: ``N Name`` lines, a blank line, the sideboard; split cards ``A/B``.
- ``dek``: MTGO's ``.dek`` XML, each card by its catalogue id (``CatID``).
- ``cockatrice``: Cockatrice's ``.cod`` XML (zone ``side``, set and collector number).
- ``xmage``: XMage's ``.dck`` (``SB: 1 [STX:30] Name``).
- ``forge``: Forge's ``.dck`` (``[metadata]``, ``[Main]``, ``[Sideboard]``, ``1 Name|SET|[CN]``,
  a foil ``Name+``).
- ``mtgjson``: an MTGJSON deck (``{"data": {…, "sideBoard": [cards with count, isFoil]}}``),
  each card by MTGJSON's own set and number (The List of PLIST.json: ``PLIST`` 341).

A card a format cannot express is left out: objects without a Magic back (tokens, art cards,
ads, minigame cards), cards not in the database, in ``dek`` a card with no MTGO id, in
``xmage`` a List card whose Scryfall number is not known (``data/boosters/plst_numbers.csv``).
``left_out`` says how many and why, in one line (the CLI prints it on stderr).
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import quoteattr

from boosterkit.data import DATA_DIR
from boosterkit.errors import InputError

if TYPE_CHECKING:
    from boosterkit.pipeline.queries import CardArt

PLST_FILE = DATA_DIR / "boosters" / "plst_numbers.csv"
#: Layouts whose name is both halves (``Fire // Ice``); other two-part cards (double-faced,
#: adventure, flip) go by their front name, as every one of these tools imports them.
BOTH_HALVES = ("split", "aftermath", "fuse")
#: Arena's set codes where they are not Scryfall's (Draftmancer's parser maps them back).
ARENA_CODES = {"dom": "DAR", "con": "CONF"}
#: Sets Arena has no cards of: a card of these is imported by its name alone.
NOT_ON_ARENA = ("plst", "plist", "spg")

#: Why a card is left out, as the note says it.
NOT_A_CARD = "objects without a Magic back (tokens, art cards, ads, minigame cards)"
UNRESOLVED = "cards not in the database (no name to import)"
NO_CATID = "cards without an MTGO catalogue id (a .dek names each card by its CatID)"
NO_NUMBER = "List cards whose Scryfall number is unknown (XMage finds a card by set and number)"


@functools.lru_cache(maxsize=1)
def plst_numbers() -> dict[str, str]:
    """Scryfall id → number in Scryfall's ``plst`` of the cards of MTGJSON's PLIST.json
    (``data/boosters/make_plst_numbers.py``: those the shared exports pin down)."""
    out: dict[str, str] = {}
    for line in PLST_FILE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#") and line != "scryfall_id,plst_number":
            sid, _, number = line.partition(",")
            out[sid] = number
    return out


def scryfall_printing(card: Mapping[str, Any]) -> tuple[str, str | None]:
    """(set, collector number) of a card as Scryfall names it: The List loaded from
    PLIST.json (``plist`` 341) is ``plst`` with the number of its original printing
    (``AFR-123``), or no number where it is not known."""
    if card["set"] == "plist":
        return "plst", plst_numbers().get(card.get("card_id") or "")
    return card["set"], card.get("collector_number")


def deck_name(name: str, layout: str | None, split: str = " // ") -> str:
    """A card's name in a deck list: both halves of a split card joined by ``split``, the
    front of any other two-part card."""
    if " // " not in name:
        return name
    if layout in BOTH_HALVES:
        return name.replace(" // ", split)
    return name.split(" // ")[0]


@dataclass(frozen=True)
class DeckCard:
    """One line of a deck: a printing (and finish) with its count."""

    count: int
    name: str
    set: str | None  # Scryfall's code, lowercase; None: the target names the card alone
    number: str | None
    foil: bool
    scryfall_id: str | None
    catid: int | None


@dataclass(frozen=True)
class Target:
    """How a tool names a card: ``split`` joins split halves, ``foils`` keeps foils apart,
    ``sets`` maps a Scryfall set code (None: the card goes by name), ``needs``: a reason a
    card is left out when it lacks that (``catid``, ``number``)."""

    split: str = " // "
    foils: bool = True
    sets: Callable[[str], str | None] = str
    needs: str = ""
    printing: Callable[[Mapping[str, Any]], tuple[str, str | None]] = scryfall_printing


def _arena_set(code: str) -> str | None:
    return None if code in NOT_ON_ARENA else ARENA_CODES.get(code, code)


ARENA = Target(foils=False, sets=_arena_set)
SCRYFALL = Target()
MTGO = Target(split="/", foils=False, sets=lambda _: None)
MTGO_DEK = Target(split="/", needs="catid")
XMAGE = Target(foils=False, needs="number")
COCKATRICE = Target(foils=False)
#: MTGJSON names a card as its own files do: The List of PLIST.json is ``PLIST`` 341.
MTGJSON = Target(printing=lambda c: (c["set"], c.get("collector_number")))


def _catid(card: Mapping[str, Any]) -> int | None:
    if card["foil"] and card.get("mtgo_foil_id"):
        return int(card["mtgo_foil_id"])
    return int(card["mtgo_id"]) if card.get("mtgo_id") else None


def _line(card: Mapping[str, Any], target: Target) -> DeckCard | str:
    """The deck line of one pool row, or why the target cannot hold it."""
    if not card.get("name"):
        return UNRESOLVED
    code, number = target.printing(card)
    named = target.sets(code)
    catid = _catid(card)
    if target.needs == "catid" and catid is None:
        return NO_CATID
    if target.needs == "number" and not number:
        return NO_NUMBER
    return DeckCard(
        count=card["count"],
        name=deck_name(card["name"], card.get("layout"), target.split),
        set=None if named is None else code,
        number=None if named is None else number,
        foil=bool(card["foil"]) and target.foils,
        scryfall_id=card.get("card_id"),
        catid=catid,
    )


def deck_cards(pool: Mapping[str, Any], target: Target) -> tuple[list[DeckCard], Counter[str]]:
    """The pool's cards as ``target`` names them, merged where they read alike, in the pool's
    order; and how many objects were left out, by reason."""
    merged: dict[tuple[Any, ...], DeckCard] = {}
    skipped: Counter[str] = Counter()
    for card in pool["cards"]:
        line = _line(card, target)
        if isinstance(line, str):
            skipped[line] += card["count"]
            continue
        key = (line.name, line.set, line.number, line.foil)
        if key in merged:
            line = DeckCard(**{**merged[key].__dict__, "count": merged[key].count + line.count})
        merged[key] = line
    skipped[NOT_A_CARD] += sum(o["count"] for o in pool.get("others", ()))
    return list(merged.values()), +skipped


#: Each deck format's target (``left_out`` counts by it).
TARGETS = {
    "decklist": ARENA,
    "arena": ARENA,
    "moxfield": SCRYFALL,
    "mtgo": MTGO,
    "dek": MTGO_DEK,
    "cockatrice": COCKATRICE,
    "xmage": XMAGE,
    "forge": SCRYFALL,
    "mtgjson": MTGJSON,
}


def left_out(data: Mapping[str, Any], fmt: str) -> str | None:
    """One line saying how many objects of the event's pools deck format ``fmt`` left out and
    why; None when it left none out or is no deck format."""
    target = TARGETS.get(fmt)
    if target is None:
        return None
    total: Counter[str] = Counter()
    for pool in data["pools"]:
        total += deck_cards(pool, target)[1]
    if not total:
        return None
    parts = "; ".join(f"{n} {why}" for why, n in sorted(total.items(), key=lambda kv: -kv[1]))
    return f"{fmt}: left out {sum(total.values())} objects of the pools: {parts}"


# --- the formats ---------------------------------------------------------------------------


def _arena_line(c: DeckCard) -> str:
    if c.set is None:
        return f"{c.count} {c.name}"
    number = f" {c.number}" if c.number else ""
    return f"{c.count} {c.name} ({ARENA_CODES.get(c.set, c.set.upper())}){number}"


def arena_deck(pool: Mapping[str, Any]) -> str:
    """Arena's import text: an empty deck, the pool as its sideboard."""
    cards, _ = deck_cards(pool, ARENA)
    return "Deck\n\nSideboard\n" + "".join(_arena_line(c) + "\n" for c in cards)


def moxfield_deck(pool: Mapping[str, Any]) -> str:
    """Moxfield's import text: Scryfall's codes, ``PLST`` numbered ``AFR-123``, ``*F*``."""
    cards, _ = deck_cards(pool, SCRYFALL)
    lines = []
    for c in cards:
        where = f" ({(c.set or '').upper()})" + (f" {c.number}" if c.number else "")
        lines.append(f"{c.count} {c.name}{where}{' *F*' if c.foil else ''}\n")
    return "Deck\n\nSideboard\n" + "".join(lines)


def mtgo_deck(pool: Mapping[str, Any]) -> str:
    """MTGO's ``.txt``: the (empty) deck, a blank line, the sideboard's ``N Name`` lines."""
    cards, _ = deck_cards(pool, MTGO)
    return "\n" + "".join(f"{c.count} {c.name}\n" for c in cards)


def mtgo_dek(pool: Mapping[str, Any]) -> str:
    """MTGO's ``.dek`` XML: one ``Cards`` element a printing, by its ``CatID``."""
    cards, _ = deck_cards(pool, MTGO_DEK)
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<Deck xmlns:xsd="http://www.w3.org/2001/XMLSchema" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
        "  <NetDeckID>0</NetDeckID>",
        "  <PreconstructedDeckID>0</PreconstructedDeckID>",
    ]
    lines += [
        f'  <Cards CatID="{c.catid}" Quantity="{c.count}" Sideboard="true" '
        f'Name={quoteattr(c.name)} Annotation="0" />'
        for c in cards
    ]
    return "\n".join([*lines, "</Deck>"]) + "\n"


def _title(data: Mapping[str, Any], pool: Mapping[str, Any]) -> str:
    return f"{data['product']} pool {pool['player']} (event seed {data['seed']})"


def cockatrice_deck(data: Mapping[str, Any], pool: Mapping[str, Any]) -> str:
    """Cockatrice's ``.cod``: the pool in zone ``side``, each card with its set and number."""
    cards, _ = deck_cards(pool, COCKATRICE)
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<cockatrice_deck version="1">',
        f"    <deckname>{_xml_text(_title(data, pool))}</deckname>",
        "    <comments></comments>",
        '    <zone name="main"/>',
        '    <zone name="side">',
    ]
    for c in cards:
        number = f" collectorNumber={quoteattr(c.number)}" if c.number else ""
        lines.append(
            f'        <card number="{c.count}" name={quoteattr(c.name)} '
            f"setShortName={quoteattr((c.set or '').upper())}{number}/>"
        )
    return "\n".join([*lines, "    </zone>", "</cockatrice_deck>"]) + "\n"


def _xml_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def xmage_deck(data: Mapping[str, Any], pool: Mapping[str, Any]) -> str:
    """XMage's ``.dck``: ``SB: N [SET:CN] Name`` lines, after a ``NAME:`` line."""
    cards, _ = deck_cards(pool, XMAGE)
    body = "".join(f"SB: {c.count} [{(c.set or '').upper()}:{c.number}] {c.name}\n" for c in cards)
    return f"NAME:{_title(data, pool)}\n" + body


def forge_deck(data: Mapping[str, Any], pool: Mapping[str, Any]) -> str:
    """Forge's ``.dck``: ``[metadata]``, an empty ``[Main]``, the pool in ``[Sideboard]``."""
    cards, _ = deck_cards(pool, SCRYFALL)
    lines = ["[metadata]", f"Name={_title(data, pool)}", "[Main]", "[Sideboard]"]
    for c in cards:
        number = f"|[{c.number}]" if c.number else ""
        lines.append(f"{c.count} {c.name}{'+' if c.foil else ''}|{(c.set or '').upper()}{number}")
    return "\n".join(lines) + "\n"


def mtgjson_deck(data: Mapping[str, Any], pool: Mapping[str, Any]) -> str:
    """An MTGJSON deck: ``data`` with empty ``mainBoard`` and ``commander``, the pool as
    ``sideBoard`` cards (``count``, ``isFoil``, ``name``, ``setCode``, ``number``, Scryfall
    id)."""
    cards, _ = deck_cards(pool, MTGJSON)
    side = []
    for c in cards:
        card = {"count": c.count, "isFoil": c.foil, "name": c.name,
                "setCode": (c.set or "").upper(), "number": c.number or ""}  # fmt: skip
        card["identifiers"] = {"scryfallId": c.scryfall_id} if c.scryfall_id else {}
        side.append(json.dumps(card, ensure_ascii=False))
    head: dict[str, Any] = {"name": _title(data, pool), "code": str(data["set"]).upper(), "type": "Sealed Pool",
            "releaseDate": None, "commander": [], "mainBoard": []}  # fmt: skip
    fields = [
        f"    {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},\n" for k, v in head.items()
    ]
    cards_text = ",\n".join(f"      {line}" for line in side)
    return (
        '{\n  "data": {\n'
        + "".join(fields)
        + f'    "sideBoard": [\n{cards_text}\n    ]\n  }}\n}}\n'
    )


# The functions of ``formats.POOLS``: (the event, images, one player's pool or None for all).


def _one_pool(data: Mapping[str, Any], pool: Any, fmt: str) -> Mapping[str, Any]:
    """The pool a deck file holds: ``pool``, or the event's only one."""
    if pool is not None:
        given: Mapping[str, Any] = pool
        return given
    if len(data["pools"]) != 1:
        raise InputError(
            f"format {fmt}: a deck file holds one player's pool, and this event has "
            f"{len(data['pools'])}: write one file per player with -o DIR (or take --players 1)",
            field="format",
        )
    first: Mapping[str, Any] = data["pools"][0]
    return first


def arena_pools(data: Any, images: Mapping[str, CardArt] | None = None, pool: Any = None) -> str:
    """Arena's import text of one pool."""
    return arena_deck(_one_pool(data, pool, "arena"))


def moxfield_pools(data: Any, images: Mapping[str, CardArt] | None = None, pool: Any = None) -> str:
    """Moxfield's import text of one pool."""
    return moxfield_deck(_one_pool(data, pool, "moxfield"))


def mtgo_pools(data: Any, images: Mapping[str, CardArt] | None = None, pool: Any = None) -> str:
    """MTGO's ``.txt`` of one pool."""
    return mtgo_deck(_one_pool(data, pool, "mtgo"))


def mtgo_dek_pools(data: Any, images: Mapping[str, CardArt] | None = None, pool: Any = None) -> str:
    """MTGO's ``.dek`` of one pool."""
    return mtgo_dek(_one_pool(data, pool, "dek"))


def cockatrice_pools(
    data: Any, images: Mapping[str, CardArt] | None = None, pool: Any = None
) -> str:
    """Cockatrice's ``.cod`` of one pool."""
    return cockatrice_deck(data, _one_pool(data, pool, "cockatrice"))


def xmage_pools(data: Any, images: Mapping[str, CardArt] | None = None, pool: Any = None) -> str:
    """XMage's ``.dck`` of one pool."""
    return xmage_deck(data, _one_pool(data, pool, "xmage"))


def forge_pools(data: Any, images: Mapping[str, CardArt] | None = None, pool: Any = None) -> str:
    """Forge's ``.dck`` of one pool."""
    return forge_deck(data, _one_pool(data, pool, "forge"))


def mtgjson_pools(data: Any, images: Mapping[str, CardArt] | None = None, pool: Any = None) -> str:
    """An MTGJSON deck of one pool."""
    return mtgjson_deck(data, _one_pool(data, pool, "mtgjson"))
