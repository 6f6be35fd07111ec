"""Checking a registered deck against the seeded pool it was built from (``pool check``).

The deck file is read in the formats ``pool`` writes (``generator/decks.py``) and those the
tools players build in export: Arena and Moxfield text (``Deck`` / ``Sideboard`` sections,
``N Name (SET) CN``, ``*F*``), MTGO ``.txt`` (the main deck, a blank line, the sideboard) and
``.dek`` XML, Cockatrice ``.cod``, XMage and Forge ``.dck``, MTGJSON deck JSON. Cards are
matched by name (the front face of a two-part card, as every one of those formats writes it),
whatever the printing or finish: a player registers cards, not printings.

The pool is made again from its event and seed (``events``): every card the deck lists, main
deck and sideboard together, must be in the pool as many times, but the five basic lands,
which a sealed player adds from outside the pool; a main deck has at least 40 cards. The
pool can be named in the deck file by a first comment line, ``// boosterkit pool check DECK
--packs afr:3,stx:3 --seed 7 --player 3`` (what a registration sheet prints); options given
on the command line win.
"""

from __future__ import annotations

import json
import re
import shlex
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree

from boosterkit.errors import InputError

#: What a sealed player may add from outside the pool (Magic Tournament Rules, limited).
FREE = ("plains", "island", "swamp", "mountain", "forest")
MIN_MAIN = 40
MAX_DECK_BYTES = 1 << 20
#: Section headings of the text formats → main or side (None: not counted).
SECTIONS = {
    "deck": "main", "main": "main", "mainboard": "main", "main deck": "main",
    "sideboard": "side", "side": "side", "commander": "main", "companion": "side",
    "maybeboard": None, "about": None, "metadata": None, "considering": None,
}  # fmt: skip
_LINE = re.compile(r"^(?:(SB:)\s*)?(\d+)\s*x?\s+(.+?)\s*$", re.I)


@dataclass
class Deck:
    """A deck as read: main deck and sideboard counts by card name, and the pool arguments
    its first comment line gives (``pool check``'s, after ``DECK``)."""

    main: Counter[str] = field(default_factory=Counter)
    side: Counter[str] = field(default_factory=Counter)
    names: dict[str, str] = field(default_factory=dict)  # key → the name as written
    pool_args: list[str] = field(default_factory=list)

    def add(self, zone: str, count: int, name: str) -> None:
        key = card_key(name)
        if key:
            self.names.setdefault(key, name.strip())
            (self.main if zone == "main" else self.side)[key] += count


def card_key(name: str) -> str:
    """A card name as matched: its front face (``Fire // Ice``, MTGO's ``Fire/Ice``), folded."""
    return " ".join(name.split("//")[0].split("/")[0].split()).casefold()


def _plain_name(text: str) -> str:
    """The card name of a line's text: set and number marks of each format taken off."""
    text = re.sub(r"^\[[^\]]*\]\s*", "", text)  # XMage: [STX:30] Name
    text = text.split("|")[0]  # Forge: Name|SET|[CN]
    text = re.sub(r"\s+\*[A-Z]+\*\s*$", "", text)  # Moxfield: *F*, *E*
    text = re.sub(r"\s+\([A-Za-z0-9]+\)(\s+\S+)?\s*$", "", text)  # Arena: (SET) CN
    return text.rstrip("+").strip()  # Forge: a foil's +


def _header(deck: Deck, line: str) -> None:
    """``// boosterkit pool check DECK ARGS`` (or ``# …``): the pool's arguments."""
    words = shlex.split(line.lstrip("/#").strip(), posix=True)
    if words[:3] == ["boosterkit", "pool", "check"]:
        deck.pool_args = words[4:] if len(words) > 3 else []


def _text(deck: Deck, text: str) -> None:
    zone, headed, seen_cards = "main", False, False
    for index, raw in enumerate(text.splitlines()):
        line = raw.strip()
        if line.startswith(("//", "#")):
            if not deck.pool_args and "boosterkit pool check" in line:
                _header(deck, line)
            continue
        heading = line.strip("[]:").strip().casefold()
        if heading in SECTIONS or line.upper().startswith("NAME:") or re.match(r"^\w+=", line):
            zone = SECTIONS.get(heading) or ("skip" if heading in SECTIONS else zone)
            headed = headed or heading in SECTIONS
            continue
        if not line:
            if (seen_cards or index == 0) and not headed:  # MTGO .txt: main, blank, sideboard
                zone = "side"
            continue
        if zone == "skip":
            continue
        m = _LINE.match(line)
        if m is None:
            raise InputError(f"line {index + 1}: {raw.strip()!r} is not a deck line (N Name)")
        deck.add("side" if m.group(1) else zone, int(m.group(2)), _plain_name(m.group(3)))
        seen_cards = True


def _xml(deck: Deck, text: str, where: str) -> None:
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as exc:
        raise InputError(f"{where}: not valid XML ({exc})") from None
    if root.tag == "cockatrice_deck":
        for zone in root.iter("zone"):
            kind = zone.get("name", "")
            if kind not in ("main", "side"):
                continue
            for card in zone.iter("card"):
                deck.add(kind, int(card.get("number", "1")), card.get("name") or "")
        return
    for card in root.iter("Cards"):  # MTGO .dek
        side = card.get("Sideboard", "false").lower() == "true"
        deck.add("side" if side else "main", int(card.get("Quantity", "1")), card.get("Name") or "")


def _json(deck: Deck, text: str, where: str) -> None:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON (line {exc.lineno})") from None
    body = data.get("data", data) if isinstance(data, dict) else None
    if not isinstance(body, dict):
        raise InputError(f"{where}: not an MTGJSON deck (expected data.mainBoard)")
    for key, zone in (("commander", "main"), ("mainBoard", "main"), ("sideBoard", "side")):
        for card in body.get(key) or []:
            if isinstance(card, dict) and isinstance(card.get("name"), str):
                deck.add(zone, int(card.get("count", 1)), card["name"])


def read_deck(text: str, where: str = "the deck") -> Deck:
    """The deck a deck file holds (format told by its first character: ``<`` XML, ``{``
    JSON, else text). Bad input: ``InputError`` naming ``where`` and the line."""
    deck = Deck()
    start = text.lstrip("\ufeff \t\r\n")[:1]
    try:
        if start == "<":
            _xml(deck, text, where)
        elif start == "{":
            _json(deck, text, where)
        else:
            _text(deck, text)
    except InputError as exc:
        if str(exc).startswith(where):
            raise
        raise InputError(f"{where}: {exc}") from None
    except ValueError as exc:  # a count that is not a number in XML or JSON
        raise InputError(f"{where}: {exc}") from None
    return deck


def _pool_counts(pool: dict[str, Any]) -> tuple[Counter[str], dict[str, str]]:
    counts: Counter[str] = Counter()
    names: dict[str, str] = {}
    for c in pool["cards"]:
        if c.get("name"):
            key = card_key(c["name"])
            counts[key] += c["count"]
            names.setdefault(key, c["name"])
    return counts, names


def compare(deck: Deck, pool: dict[str, Any]) -> dict[str, Any]:
    """The deck against the pool: every card it lists more often than the pool holds
    (basic lands aside), and whether the main deck has ``MIN_MAIN`` cards."""
    have, names = _pool_counts(pool)
    listed = deck.main + deck.side
    missing = [
        {"name": deck.names.get(key, names.get(key, key)), "deck": n, "pool": have[key]}
        for key, n in sorted(listed.items())
        if key not in FREE and n > have[key]
    ]
    main = sum(deck.main.values())
    problems = (
        [] if main >= MIN_MAIN else [f"the main deck has {main} cards, fewer than {MIN_MAIN}"]
    )
    return {
        "valid": not missing and not problems,
        "main": main,
        "sideboard": sum(deck.side.values()),
        "basic_lands": sum(n for k, n in deck.main.items() if k in FREE),
        "missing": missing,
        "problems": problems,
    }


def check_deck(text: str, where: str, pool_of: Any) -> dict[str, Any]:
    """Read the deck ``text`` (from ``where``) and compare it with the pool that
    ``pool_of(deck.pool_args)`` makes (the event and the player's pool)."""
    deck = read_deck(text, where)
    data, pool = pool_of(deck.pool_args)
    from boosterkit.generator.events import pool_args

    return {
        "deck": where,
        "player": pool["player"],
        "event_seed": data["seed"],
        "pool_seed": pool["seed"],
        "pool": pool.get("contents") or f"{data['packs_per_player']} × {data['product']}",
        "arguments": pool_args(data, pool["player"]),
        **compare(deck, pool),
    }
