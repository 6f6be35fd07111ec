"""A booster product as a Draftmancer custom card list (``products SET --export draftmancer``).

Draftmancer drafts a custom card list with boosterkit's collation: ``[Settings]`` holds one
layout per pack variant of the product, weighted as the product weighs them, each slot drawing
its count from one ``[Sheet]``; a sheet lists its cards ``N Name (SET) CN`` (`` +F`` on a foil
sheet, whose slot is ``"foil": true``), ``N`` the card's weight on the sheet divided by the
sheet's common divisor. Set codes and numbers are Scryfall's (The List as ``PLST``
``AFR-123``). ``withReplacement`` is on: a drawn card stays on its sheet, as boosterkit draws
every pack from the whole sheet.

What Draftmancer cannot hold is left out and counted in one note: the slots without a Magic
back (tokens, art cards, ads, minigame cards: ``data/boosters/nonmagic.yaml``) and the sheet
cards that are not in the database; a slot whose sheet is left empty goes with them.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from boosterkit.generator.cache import compiled
from boosterkit.generator.decks import deck_name, scryfall_printing
from boosterkit.generator.model import CardInfo, ProductDef, SheetDef

if TYPE_CHECKING:
    from boosterkit.database import Database

#: Section names Draftmancer reads as its own, never as a sheet.
_RESERVED = ("settings", "customcards", "layouts")


def _card(c: CardInfo) -> dict[str, Any]:
    return {"set": c.set, "collector_number": c.collector_number, "card_id": c.card_id}


def _number_key(number: str | None) -> tuple[int, str]:
    m = re.match(r"\d+", number or "")
    return (int(m.group()) if m else 1 << 30, number or "")


def sheet_lines(sheet: SheetDef) -> tuple[list[str], int]:
    """A sheet's ``N Name (SET) CN [+F]`` lines (by set and number), and how many of its
    cards were left out (not Magic cards, or not in the database)."""
    weights: Counter[str] = Counter()
    left = 0
    order: dict[str, tuple[Any, ...]] = {}
    for c, w in zip(sheet.cards, sheet.weights):
        if c.kind != "card" or not c.resolved or not c.name:
            left += 1
            continue
        code, number = scryfall_printing(_card(c))
        where = f" ({code.upper()})" + (f" {number}" if number else "")
        line = f"{deck_name(c.name, c.layout)}{where}{' +F' if sheet.foil else ''}"
        weights[line] += w
        order.setdefault(line, (code, *_number_key(number), line))
    divisor = math.gcd(*weights.values()) if weights else 1
    lines = sorted(weights, key=order.__getitem__)
    return [f"{weights[line] // divisor} {line}" for line in lines], left


def _sheet_name(name: str) -> str:
    clean = re.sub(r'[\s"()\[\]{}]+', "_", name).strip("_") or "sheet"
    return f"{clean}-sheet" if clean.lower() in _RESERVED else clean


def _layouts(
    product: ProductDef, sheets: dict[str, list[str]]
) -> tuple[dict[str, Any], Counter[str]]:
    """Draftmancer's ``layouts``: a layout a variant with a slot per (sheet, count) whose sheet
    kept a card; and the sheets of the slots left out, counted."""
    layouts: dict[str, Any] = {}
    dropped: Counter[str] = Counter()
    for v in product.variants:
        slots = []
        for name, count in v.slots:
            if not sheets.get(name):
                dropped[name] += 1
                continue
            sheet = _sheet_name(name)
            foil = product.sheets[name].foil
            slots.append({"name": sheet, "count": count, "foil": foil, "sheets": [sheet]})
        if slots:
            layouts[f"variant-{v.index}"] = {"weight": v.weight, "slots": slots}
    return layouts, dropped


def card_list(product: ProductDef) -> tuple[str, str | None]:
    """(the custom card list of ``product``, one line saying what was left out or None)."""
    sheets: dict[str, list[str]] = {}
    left = 0
    for name, sheet in product.sheets.items():
        lines, n = sheet_lines(sheet)
        sheets[name], left = lines, left + n
    layouts, dropped = _layouts(product, sheets)
    slots = {name for v in product.variants for name, _ in v.slots}
    used = [n for n in product.sheets if n in slots and sheets[n]]
    body = [f"[Settings]\n{_settings(product, layouts)}\n"]
    body += [f"[{_sheet_name(n)}]\n" + "".join(f"{line}\n" for line in sheets[n]) for n in used]
    return "\n".join(body), _note(product, left, dropped)


def _settings(product: ProductDef, layouts: dict[str, Any]) -> str:
    """The ``[Settings]`` JSON: a line a slot (Draftmancer reads it from ``{`` to its ``}``)."""
    dump = functools.partial(json.dumps, ensure_ascii=False)
    lines = ["{", f'  "name": {dump(product.name + " (boosterkit)")},', '  "withReplacement": true,',
             '  "layouts": {']  # fmt: skip
    for i, (name, layout) in enumerate(layouts.items()):
        lines.append(f'    {dump(name)}: {{"weight": {layout["weight"]}, "slots": [')
        lines += [f"      {dump(slot)}," for slot in layout["slots"]]
        lines[-1] = lines[-1].rstrip(",")
        lines.append("    ]}" + ("," if i < len(layouts) - 1 else ""))
    return "\n".join([*lines, "  }", "}"])


def _note(product: ProductDef, left: int, dropped: Counter[str]) -> str | None:
    parts = []
    if product.extras:
        names = ", ".join(e.name for e in product.extras)
        parts.append(f"{len(product.extras)} slots without a Magic back ({names})")
    if left:
        parts.append(f"{left} sheet entries that are not Magic cards in the database")
    if dropped:
        parts.append(
            f"the slots of {len(dropped)} sheets left empty ({', '.join(sorted(dropped))})"
        )
    return f"draftmancer: left out {'; '.join(parts)}" if parts else None


def draftmancer_list(
    database: Database, set_code: str, product: str | None = None
) -> tuple[str, str | None]:
    """``card_list`` of ``set_code``'s ``product`` (as ``open`` picks it), from ``database``."""
    return card_list(compiled(database, set_code, product).product)
