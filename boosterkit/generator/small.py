"""A few packs without numpy: the engine's draw (``generator.engine``) in plain Python.

Opening one pack from the command line spends more time importing numpy than drawing. A
``LiteProduct`` holds a compiled product's tables as tuples (``lite()``; kept beside the
database with the full product, and loaded without numpy) and ``open_lite`` draws packs
from it with the same random numbers, in the same order, with the same float arithmetic
(``bisect_right`` is ``searchsorted(side="right")``, a running sum is ``cumsum``), so the packs
are identical to the engine's (``tests/test_small.py`` compares them draw for draw). Up to
``SMALL`` packs this is also faster in-process than a numpy batch.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from boosterkit.generator.lazy import build_items, new_pack
from boosterkit.generator.model import PROTO_INDEX, Item, Pack, ProductDef
from boosterkit.generator.rng import pack_key, uniform

SMALL = 32  # packs per call up to which plain Python beats a numpy batch
# The engine's counter layout (generator.engine): kept equal by tests/test_small.py.
REDRAWS, BLOCK, EXTRA_BASE = 16, 64, 1 << 20

Floats = tuple[float, ...]
Ints = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class LiteSheet:
    cum: Floats
    weights: Floats
    protos: Ints
    allow_duplicates: bool
    fixed_protos: Ints | None
    balance: tuple[tuple[Floats, Ints], ...]
    corrected: dict[int, tuple[Floats, Floats]]


@dataclass(frozen=True, slots=True)
class LiteOption:
    protos: Ints
    gold: Ints | None
    gold_p: float


@dataclass(frozen=True, slots=True)
class LiteExtra:
    number: int
    cum: Floats
    options: tuple[LiteOption, ...]


@dataclass(frozen=True, slots=True)
class LiteVariant:
    index: int
    slots: tuple[tuple[int, int], ...]
    first: tuple[LiteExtra, ...]
    last: tuple[LiteExtra, ...]


@dataclass(frozen=True, slots=True)
class LiteProduct:
    """A ``CompiledProduct`` without numpy: what ``open_lite`` and ``LazyPack`` need."""

    product: ProductDef
    variant_cum: Floats
    variants: tuple[LiteVariant, ...]
    sheets: tuple[LiteSheet, ...]
    item_fields: tuple[tuple[Any, ...], ...]
    templates: tuple[dict[str, Any], ...]
    fragments: tuple[str, ...]
    by_card: dict[str, int]  # card id -> its first prototype (resolved cards only)
    pretty: dict[int, str] = field(default_factory=dict, compare=False)  # as CompiledProduct's

    def items(self, index: int, protos: Sequence[int]) -> list[Item]:
        return build_items(self.item_fields, index, protos)


def _t(array: Any) -> tuple[Any, ...]:
    return tuple(array.tolist())


def lite(cp: Any) -> LiteProduct:
    """The ``LiteProduct`` of a ``generator.engine.CompiledProduct``."""
    extras: dict[int, LiteExtra] = {}

    def extra(e: Any) -> LiteExtra:
        if e.number not in extras:
            extras[e.number] = LiteExtra(
                e.number,
                _t(e.cum),
                tuple(
                    LiteOption(_t(o.protos), None if o.gold is None else _t(o.gold), o.gold_p)
                    for o in e.options
                ),
            )
        return extras[e.number]

    sheets = tuple(LiteSheet(
        cum=_t(s.cum), weights=_t(s.weights), protos=_t(s.protos),
        allow_duplicates=s.allow_duplicates, fixed_protos=s.fixed_protos,
        balance=tuple((_t(c), _t(local)) for c, local in s.balance),
        corrected={n: (_t(w), _t(c)) for n, (w, c) in s.corrected.items()},
    ) for s in cp.sheets)  # fmt: skip
    variants = tuple(
        LiteVariant(
            v.index, v.slots, tuple(extra(e) for e in v.first), tuple(extra(e) for e in v.last)
        )
        for v in cp.variants
    )
    by_card: dict[str, int] = {}
    card_id, resolved = PROTO_INDEX["card_id"], PROTO_INDEX["resolved"]
    for i, fields in enumerate(cp.item_fields):
        if fields[card_id] and fields[resolved]:
            by_card.setdefault(fields[card_id], i)
    return LiteProduct(
        cp.product,
        _t(cp.variant_cum),
        variants,
        sheets,
        cp.item_fields,
        cp.templates,
        cp.fragments,
        by_card,
    )


def _pick(cum: Floats, u: float) -> int:
    return min(bisect_right(cum, u * cum[-1]), len(cum) - 1)


def _exact(key: int, counter: int, weights: Floats, taken: list[int]) -> int:
    w = list(weights)
    for t in taken:
        w[t] = 0.0
    if not any(x > 0 for x in w):
        w = list(weights)
    cum = list(accumulate(w))
    target = uniform(key, counter) * cum[-1]
    return min(sum(1 for c in cum if c <= target), len(w) - 1)


def _column(key: int, draw: int, cum: Floats, weights: Floats, earlier: list[int] | None) -> int:
    base = 1 + BLOCK * draw
    col = _pick(cum, uniform(key, base))
    if not earlier:
        return col
    for r in range(1, REDRAWS):
        if col not in earlier:
            return col
        col = _pick(cum, uniform(key, base + r))
    if col in earlier:
        col = _exact(key, base + BLOCK - 1, weights, earlier)
    return col


def _sheet(key: int, sheet: LiteSheet, count: int, first_draw: int) -> list[int]:
    out: list[int] = []
    if sheet.balance and count >= len(sheet.balance):
        for j, (cum, local) in enumerate(sheet.balance):
            out.append(local[_pick(cum, uniform(key, 1 + BLOCK * (first_draw + j)))])
        weights, cum = sheet.corrected[count]
    else:
        weights, cum = sheet.weights, sheet.cum
    for j in range(len(out), count):
        earlier = None if sheet.allow_duplicates else out
        out.append(_column(key, first_draw + j, cum, weights, earlier))
    return [sheet.protos[i] for i in out]


def _extra(key: int, extra: LiteExtra) -> int:
    base = 1 + BLOCK * (EXTRA_BASE + extra.number)
    opt = extra.options[_pick(extra.cum, uniform(key, base))]
    card = min(int(uniform(key, base + 1) * len(opt.protos)), len(opt.protos) - 1)
    if opt.gold is not None and uniform(key, base + 2) < opt.gold_p:
        return opt.gold[card]
    return opt.protos[card]


def draw_pack(lp: LiteProduct, seed: int, index: int) -> tuple[int, list[int]]:
    """(variant index, prototype ids) of pack ``index`` of the run with ``seed``."""
    key = pack_key(seed, index)
    v = lp.variants[_pick(lp.variant_cum, uniform(key, 0))]
    out = [_extra(key, e) for e in v.first]
    draw = 0
    for sheet_no, count in v.slots:
        sheet = lp.sheets[sheet_no]
        if sheet.fixed_protos is not None:
            out += sheet.fixed_protos
        elif count:
            out += _sheet(key, sheet, count, draw)
            draw += count
    out += [_extra(key, e) for e in v.last]
    return v.index, out


def open_lite(lp: LiteProduct, seed: int, start: int, count: int) -> list[Pack]:
    """Packs ``start .. start+count-1`` (seed already checked), as ``engine.open_compiled``."""
    packs: list[Pack] = []
    for index in range(start, start + count):
        variant, protos = draw_pack(lp, seed, index)
        packs.append(new_pack(lp, seed, index, variant, protos))
    return packs
