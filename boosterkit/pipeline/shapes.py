"""The shapes of imported data, checked once where a file enters, and what a product may ask.

The readers (``whole``, ``mapping``, ``listing``, ``text``, ``flag``) take a value from a
parsed file and return it typed, or raise one ``InputError`` line naming where it is and
what it should be; the importers (``pipeline.collation``, ``pipeline.mtgjson_transform``)
read every value through them, so nothing past them meets a wrong type. ``check_product``
bounds a product as both importers build it (``collation.write_products``' shape): the
cards a pack may hold, the cards of a sheet, the weights (docs/limits.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from boosterkit.errors import InputError, escape_controls

#: The largest weight (and sum of weights) of a sheet or of a product's variants: integers
#: up to 2^53 are exact in the engine's float64 cumulative sums.
MAX_WEIGHT = 2**53
#: The most cards one pack of an imported product may hold (its slots' counts, a fixed
#: sheet counted by its weights): the largest real pack, a 75-card tournament pack, 13 times.
MAX_PACK_CARDS = 1_000
#: The most cards one sheet of an imported product may list (real sheets: 1,195 at most).
MAX_SHEET_CARDS = 20_000


def _missing(value: Any, where: str, expected: str) -> None:
    if value is None:
        raise InputError(f"{where} is missing: expected {expected}")


def shown(value: Any) -> str:
    """A value as an error line quotes it: its JSON-ish repr, escaped, at most 40 characters."""
    if isinstance(value, Mapping):
        text = "an object"
    elif isinstance(value, list):
        text = "a list"
    else:
        text = repr(value)
    text = escape_controls(text)
    return text if len(text) <= 40 else text[:37] + "..."


def whole(value: Any, where: str, *, low: int = 1, high: int = MAX_WEIGHT) -> int:
    """``value`` as a whole number from ``low`` to ``high``; a float, text, bool or any other
    value is an ``InputError`` naming ``where``."""
    _missing(value, where, "a whole number")
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where} is {shown(value)}, not a whole number")
    if not low <= value <= high:
        shown_value = (
            f"{value:,}" if abs(value) < 10**30 else f"a {len(str(abs(value)))}-digit number"
        )
        raise InputError(f"{where} is {shown_value}, not from {low:,} to {high:,}")
    return value


def number(value: Any, where: str) -> float | int | None:
    """A finite number, or None (absent); NaN, an infinity or anything else is refused."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where} is {shown(value)}, not a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{where} is {shown(value)}, not a finite number")
    return value


def mapping(value: Any, where: str, *, optional: bool = False) -> Mapping[str, Any]:
    """``value`` as a JSON object (``{}`` for None when ``optional``)."""
    if value is None and optional:
        return {}
    _missing(value, where, "an object")
    if not isinstance(value, Mapping):
        raise InputError(f"{where} is {shown(value)}, not an object")
    return value


def listing(value: Any, where: str, *, optional: bool = False) -> list[Any]:
    """``value`` as a JSON list (``[]`` for None when ``optional``)."""
    if value is None and optional:
        return []
    _missing(value, where, "a list")
    if not isinstance(value, list):
        raise InputError(f"{where} is {shown(value)}, not a list")
    return value


def text(value: Any, where: str, *, optional: bool = False) -> str | None:
    """``value`` as a string (None for None when ``optional``)."""
    if value is None and optional:
        return None
    _missing(value, where, "a string")
    if not isinstance(value, str):
        raise InputError(f"{where} is {shown(value)}, not a string")
    return value


def texts(value: Any, where: str) -> list[str]:
    """A list of strings (``[]`` for None)."""
    items = listing(value, where, optional=True)
    for i, item in enumerate(items):
        text(item, f"{where}[{i}]")
    return items


def flag(value: Any, where: str) -> bool:
    """``true``/``false`` (None: false); ``"no"`` or 1 is refused, not read as true."""
    if value is None:
        return False
    if not isinstance(value, bool):
        raise InputError(f"{where} is {shown(value)}, not true or false")
    return value


def check_product(product: Mapping[str, Any], where: str) -> None:
    """What an imported product may ask for: at most ``MAX_SHEET_CARDS`` cards a sheet,
    weights summing to at most ``MAX_WEIGHT`` (a sheet's, the variants'), at most
    ``MAX_PACK_CARDS`` cards a pack (a fixed sheet's cards all go in its pack)."""
    fixed: dict[str, int] = {}
    for s in product["sheets"]:
        at = f"{where}: sheet {s['name']!r}"
        if len(s["cards"]) > MAX_SHEET_CARDS:
            raise InputError(
                f"{at} lists {len(s['cards']):,} cards, more than the {MAX_SHEET_CARDS:,} "
                "a sheet may hold"
            )
        total = sum(c["weight"] for c in s["cards"])
        if total > MAX_WEIGHT:
            raise InputError(f"{at}: its weights add up to {total:,}, more than {MAX_WEIGHT:,}")
        if s["fixed"]:
            fixed[s["name"]] = total
            _pack_cards(total, f"{at} (a fixed sheet: every card, once per weight)")
    if sum(v["weight"] for v in product["variants"]) > MAX_WEIGHT:
        raise InputError(f"{where}: its variants' weights add up to more than {MAX_WEIGHT:,}")
    for i, v in enumerate(product["variants"], start=1):
        cards = sum(fixed.get(name, count) for name, count in v["slots"])
        _pack_cards(cards, f"{where}: booster variant {i}")


def _pack_cards(cards: int, where: str) -> None:
    if cards > MAX_PACK_CARDS:
        raise InputError(
            f"{where} puts {cards:,} cards in a pack, more than the {MAX_PACK_CARDS:,} "
            "a pack may hold"
        )
