"""Opened packs for the draft tools (``formats.PACKS``): Draftmancer and CubeCobra.

- ``draftmancer``: Draftmancer's "Upload boosters" text: a card a line, ``1 Name (SET) CN``
  with `` +F`` for a foil, a blank line between packs; Scryfall's set codes (The List as
  ``PLST`` numbered ``AFR-123``, or by name in the set where that number is not known). Only
  Magic cards: an object without a Magic back (token, art card, ad, minigame card) or a card
  not in the database has no line.
- ``cubecobra``: CubeCobra's CSV (its export's columns: ``Name,CMC,Type,Color,Set,Collector
  Number,Rarity,Color Category,Status,Finish,Maybeboard,Image URL,Image Back URL,Tags,Notes,
  MTGO ID``), a row an object with a name, art cards and tokens included, ``Finish`` ``Foil``
  or ``Non-foil``, the pack in ``Tags`` (``pack-3``) and the slot in ``Notes``.

``PackTally`` counts what a format leaves out, for the one line the CLI prints on stderr.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TextIO

from boosterkit.generator.decks import deck_name, scryfall_printing
from boosterkit.generator.model import Pack
from boosterkit.serialize import CsvWriter

CUBECOBRA_COLUMNS = ("Name", "CMC", "Type", "Color", "Set", "Collector Number", "Rarity",
                     "Color Category", "Status", "Finish", "Maybeboard", "Image URL",
                     "Image Back URL", "Tags", "Notes", "MTGO ID")  # fmt: skip
_COLOR_NAMES = {"W": "White", "U": "Blue", "B": "Black", "R": "Red", "G": "Green"}


def draftmancer_reason(item: Mapping[str, Any]) -> str | None:
    """Why Draftmancer cannot take ``item`` (None: it can)."""
    if item["kind"] != "card":
        return "objects without a Magic back (tokens, art cards, ads, minigame cards)"
    if not item["name"] or not item["resolved"]:
        return "cards not in the database"
    return None


def cubecobra_reason(item: Mapping[str, Any]) -> str | None:
    """Why CubeCobra cannot take ``item``: it has no name (an ad card, a card not loaded)."""
    return (
        None
        if item["name"] and item["resolved"]
        else "objects with no name (ads, cards not in the database)"
    )


def draftmancer_line(card: Mapping[str, Any]) -> str:
    """``Name (SET) CN`` (`` +F`` for a foil) with Scryfall's set and number."""
    code, number = scryfall_printing(card)
    where = f" ({code.upper()})" + (f" {number}" if number else "")
    return f"{deck_name(card['name'], card.get('layout'))}{where}{' +F' if card['foil'] else ''}"


def write_draftmancer(packs: Iterable[Pack], out: TextIO, *, csv_raw: bool = False) -> int:
    """Draftmancer's upload-boosters text: ``1 Name (SET) CN [+F]`` a card, a blank line
    between packs."""
    n = 0
    for n, pack in enumerate(packs, 1):
        items = pack.to_dict()["items"]
        lines = [f"1 {draftmancer_line(it)}\n" for it in items if draftmancer_reason(it) is None]
        out.write(("" if n == 1 else "\n") + "".join(lines))
    return n


def _color_category(item: Mapping[str, Any]) -> str:
    if "Land" in (item.get("type_line") or "").split("//")[0]:
        return "Lands"
    colors = item.get("colors") or []
    if len(colors) > 1:
        return "Multicolored"
    return _COLOR_NAMES.get(colors[0], "Colorless") if colors else "Colorless"


def cubecobra_row(item: Mapping[str, Any], pack_index: int) -> list[Any]:
    """One CubeCobra CSV row (``CUBECOBRA_COLUMNS``)."""
    code, number = scryfall_printing(item)
    mv = item.get("mana_value")
    return [
        item["name"], "" if mv is None else f"{mv:g}", item.get("type_line") or "",
        "".join(item.get("colors") or []), code, number or "", item.get("rarity") or "",
        _color_category(item), "Not Owned", "Foil" if item["foil"] else "Non-foil", "false",
        "", "", f"pack-{pack_index}", item["slot"], "",
    ]  # fmt: skip


def write_cubecobra(packs: Iterable[Pack], out: TextIO, *, csv_raw: bool = False) -> int:
    """CubeCobra's CSV: a row per object with a name, the pack in ``Tags``."""
    w = CsvWriter(out, CUBECOBRA_COLUMNS, raw=csv_raw)
    n = 0
    for pack in packs:
        n += 1
        for item in pack.to_dict()["items"]:
            if cubecobra_reason(item) is None:
                w.row(cubecobra_row(item, pack.index))
    return n


_REASONS = {"draftmancer": draftmancer_reason, "cubecobra": cubecobra_reason}


class PackTally:
    """Counts, while packs stream by, the objects format ``fmt`` leaves out."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.reason = _REASONS[fmt]
        self.counts: Counter[str] = Counter()

    def watch(self, packs: Iterable[Pack]) -> Iterator[Pack]:
        """``packs``, unchanged, counted on the way."""
        for pack in packs:
            for item in pack.to_dict()["items"]:
                if (why := self.reason(item)) is not None:
                    self.counts[why] += 1
            yield pack

    def note(self) -> str | None:
        """One line: how many objects were left out and why (None: none were)."""
        if not self.counts:
            return None
        parts = "; ".join(
            f"{n} {why}" for why, n in sorted(self.counts.items(), key=lambda kv: -kv[1])
        )
        return f"{self.fmt}: left out {sum(self.counts.values())} objects of the packs: {parts}"


def tally(fmt: str) -> PackTally | None:
    """A ``PackTally`` for a pack format that leaves objects out, else None."""
    return PackTally(fmt) if fmt in _REASONS else None
