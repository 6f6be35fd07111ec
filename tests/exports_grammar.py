"""The grammars the exports are read back with (issue 31): each target's own parsing rules.

Where a parser package exists it is used (``mtg_parser`` for Arena/Moxfield lines,
``mtgdeck`` for MTGO text and Cockatrice XML); elsewhere the target project's rules are
reimplemented here from its source, cited per function. Every reader returns the cards as
``(count, name, set, number, foil)`` tuples (``set`` lowercase, None where the line names
none; ``number`` None where it has none).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from typing import Any

from mtg_parser.grammar import parse_line
from mtgdeck.decoder import CockatriceDecoder, MagicOnlineDecoder

Card = tuple[int, str, "str | None", "str | None", bool]


def _sections(text: str, headers: tuple[str, ...]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {h: [] for h in headers}
    current = headers[0]
    for line in text.splitlines():
        if line.strip() in headers:
            current = line.strip()
        elif line.strip():
            out[current].append(line)
    return out


def arena(text: str, foil_mark: str | None = None) -> list[Card]:
    """Arena / Moxfield import text, each line by ``mtg_parser``'s grammar (which also
    accepts Moxfield's `` *F*``): the cards of the ``Sideboard`` section (``Deck`` must be
    empty)."""
    parts = _sections(text, ("Deck", "Sideboard"))
    assert parts["Deck"] == [], parts["Deck"]
    cards = []
    for line in parts["Sideboard"]:
        d = parse_line(line)
        assert "card_name" in d, f"not a card line: {line!r}"
        foil = bool(foil_mark) and line.endswith(foil_mark)
        ext = d.get("extension")
        cards.append((int(d["quantity"]), d["card_name"], ext.lower() if ext else None,
                      d.get("collector_number"), foil))  # fmt: skip
    return cards


def mtgo_txt(text: str) -> list[Card]:
    """MTGO's .txt: the lines before the first blank line are the deck, the rest the sideboard
    (as MTGO writes and reads it); each part decoded by ``mtgdeck``'s MTGO decoder."""
    main, _, side = text.partition("\n\n") if not text.startswith("\n") else ("", "", text[1:])
    assert main.strip() == "", main
    decoded = MagicOnlineDecoder().loads(side)
    assert all("section" not in attrs for _, attrs in decoded)  # no header: MTGO writes none
    return [(attrs["count"], name, None, None, False) for name, attrs in decoded]


def mtgo_dek(text: str) -> list[tuple[int, str, int, bool]]:
    """MTGO's .dek: XML (``Deck``/``Cards``), read also line by line as XMage's
    ``DekDeckImporter`` does (a ``<Cards CatID`` line, its ``Quantity``/``Name``/``Sideboard``
    attributes): ``(count, name, CatID, sideboard)``."""
    root = ET.fromstring(text)
    assert root.tag == "Deck"
    cards = [(int(c.get("Quantity")), c.get("Name"), int(c.get("CatID")),
              c.get("Sideboard") == "true") for c in root.iter("Cards")]  # fmt: skip
    lines = [line for line in text.splitlines() if "<Cards CatID" in line]
    assert len(lines) == len(cards)
    for line, card in zip(lines, cards):
        assert re.search(rf'Quantity="{card[0]}"', line) and 'Sideboard="true"' in line
    return cards


def cockatrice(text: str) -> list[Card]:
    """Cockatrice's .cod, decoded by ``mtgdeck`` (zone, count, name), with the set and number
    attributes Cockatrice writes on a card (``setShortName``, ``collectorNumber``)."""
    decoded = CockatriceDecoder().loads(text)
    assert all(attrs["section"] == "side" for _, attrs in decoded)
    root = ET.fromstring(text)
    elements = [c for z in root.iter("zone") if z.get("name") == "side" for c in z.iter("card")]
    assert [e.get("name") for e in elements] == [name for name, _ in decoded]
    return [(attrs["count"], name, e.get("setShortName").lower(), e.get("collectorNumber"), False)
            for (name, attrs), e in zip(decoded, elements)]  # fmt: skip


#: magefree/mage, Mage/src/main/java/mage/cards/decks/importer/DckDeckImporter.java
XMAGE_LINE = re.compile(r"(SB:)?\s*(\d*)\s*\[([^]:]+):([^]:]+)\]\s*(.*)\s*$")


def xmage(text: str) -> list[Card]:
    """XMage's .dck, by its importer's pattern: ``SB:`` lines are the sideboard; ``NAME:``
    and ``#`` lines are no cards."""
    cards = []
    for line in text.splitlines():
        if not line or line.startswith("#") or line.startswith("NAME:"):
            continue
        m = XMAGE_LINE.fullmatch(line)
        assert m and m.group(1) == "SB:", line
        cards.append((int(m.group(2)), m.group(5), m.group(3).lower(), m.group(4), False))
    return cards


def forge_request(text: str) -> tuple[str, str | None, str | None, bool]:
    """Card-Forge/forge ``CardDb.CardRequest.fromString``: ``Name[+]|SET|artIndex|[CN]``, each
    part after the name optional; ``+`` after the name marks a foil."""
    info = text.split("|")
    name, foil = info[0], info[0].endswith("+")
    name = name[:-1] if foil else name
    i, code, number = 1, None, None
    if len(info) > i and not info[i].isdigit():
        code, i = info[i], i + 1
    if len(info) > i and info[i].isdigit() and len(info[i]) <= 2:
        i += 1  # the art index
    if len(info) > i and info[i].startswith("[") and info[i].endswith("]"):
        number = info[i][1:-1]
    return name, code, number, foil


def forge(text: str) -> list[Card]:
    """Forge's .dck: ``[metadata]`` (``Name=``), ``[Main]`` (empty here), ``[Sideboard]``
    lines ``N request``."""
    section, cards, meta = None, [], {}
    for line in text.splitlines():
        if re.fullmatch(r"\[.+\]", line):
            section = line[1:-1].lower()
        elif section == "metadata":
            key, _, value = line.partition("=")
            meta[key] = value
        elif line.strip():
            assert section == "sideboard", line
            m = re.fullmatch(r"(\d+)\s+(.+)", line)
            assert m, line
            name, code, number, foil = forge_request(m.group(2))
            cards.append((int(m.group(1)), name, code.lower() if code else None, number, foil))
    assert meta.get("Name")
    return cards


#: MTGJSON's CardDeck fields as its docs type them (the ones written here).
MTGJSON_CARD = {"count": int, "isFoil": bool, "name": str, "setCode": str, "number": str,
                "identifiers": dict}  # fmt: skip


def mtgjson(text: str) -> list[Card]:
    """An MTGJSON deck file: ``data`` with ``mainBoard``/``sideBoard``/``commander`` lists of
    cards typed as MTGJSON's ``CardDeck``."""
    deck = json.loads(text)["data"]
    assert deck["mainBoard"] == [] and deck["commander"] == [] and isinstance(deck["name"], str)
    for card in deck["sideBoard"]:
        for key, kind in MTGJSON_CARD.items():
            assert isinstance(card[key], kind), (key, card)
    return [(c["count"], c["name"], c["setCode"].lower(), c["number"], c["isFoil"])
            for c in deck["sideBoard"]]  # fmt: skip


#: Senryoku/Draftmancer src/parseCardList.ts ``ArenaLineRegex``.
DRAFTMANCER_LINE = re.compile(
    r"^(?:(?P<count>\d+)\s+)?(?P<name>[^\v\n]+?)(?:\s+\((?P<set>\w+)\)(?:\s+(?P<number>[^+\s()]+))?)?"
    r"(?:\s+\+?(?P<foil>F))?$"
)


def draftmancer_line(line: str) -> Card:
    """One card line as Draftmancer's ``parseLine`` reads it (count 1 when absent)."""
    m = DRAFTMANCER_LINE.match(line.strip())
    assert m, f"Draftmancer: the line {line!r} doesn't match the card syntax"
    code = m.group("set")
    return (int(m.group("count") or 1), m.group("name"), code.lower() if code else None,
            m.group("number"), bool(m.group("foil")))  # fmt: skip


def draftmancer_boosters(text: str) -> list[list[Card]]:
    """Draftmancer's "Upload boosters" (``Session.setPredeterminedBoosters``): a card line a
    card, blank lines between boosters."""
    boosters: list[list[Card]] = [[]]
    for line in text.split("\n"):
        if not line.strip():
            if boosters[-1]:
                boosters.append([])
        else:
            boosters[-1].append(draftmancer_line(line))
    return [b for b in boosters if b]


def _settings(lines: list[str], i: int) -> tuple[dict[str, Any], int]:
    """The JSON after ``[Settings]``: from its ``{`` to the matching ``}``."""
    depth, j = 0, i
    while True:
        depth += lines[j].count("{") - lines[j].count("}")
        j += 1
        if depth == 0:
            return json.loads("\n".join(lines[i:j])), j


SHEET_HEADER = re.compile(
    r"^(?P<name>[^\"()\[\]{}]+?)\s*(?P<count>\(\d+\))?\s*(?P<settings>\{.*\})?$"
)


def draftmancer_list(text: str) -> tuple[dict[str, Any], dict[str, list[Card]]]:
    """A Draftmancer custom card list (``parseCardList``): sections ``[Name]``, ``[Settings]``
    JSON whose layouts have integer weights and slots of positive integer counts naming
    declared sheets; each sheet's card lines. Returns (settings, sheets)."""
    lines = [line.strip() for line in text.split("\n")]
    settings: dict[str, Any] = {}
    sheets: dict[str, list[Card]] = {}
    i, current = 0, None
    while i < len(lines):
        line = lines[i]
        if line.startswith("[") and line.endswith("]"):
            header = line[1:-1].strip()
            if header.lower() == "settings":
                settings, i = _settings(lines, i + 1)
                continue
            m = SHEET_HEADER.match(header)
            assert m, header
            current = m.group("name")
            assert current not in sheets, f"sheet {current} twice"
            sheets[current] = []
        elif line and not line.startswith("#"):
            assert current is not None, f"a card line before any sheet: {line!r}"
            sheets[current].append(draftmancer_line(line))
        i += 1
    for name, layout in settings["layouts"].items():
        assert isinstance(layout["weight"], int), name
        for slot in layout["slots"]:
            assert isinstance(slot["count"], int) and slot["count"] > 0, slot
            assert isinstance(slot.get("foil", False), bool)
            for sheet in slot["sheets"]:
                assert (sheet if isinstance(sheet, str) else sheet["name"]) in sheets, sheet
    return settings, sheets


def counted(cards: list[Any]) -> Counter[Any]:
    """Cards as a multiset, counts added up by what the rest of the tuple says."""
    out: Counter[Any] = Counter()
    for card in cards:
        out[tuple(card[1:])] += card[0]
    return out
