"""The pack engine: a ``ProductDef`` compiled once into a ``CompiledProduct`` (plain immutable
tables: tuples of weights and prototype ids, which the cache keeps as JSON), and packs drawn
from it. How a pack is drawn is defined here and nowhere else.

Every random number comes from ``generator.rng`` keyed by (seed, pack index, counter), so
pack *i* depends only on (seed, i) and never on the batch it was drawn in. Per pack: counter
0 picks the variant by weight. Draw *d* of the pack (its sheets' draws in variant order)
uses counters ``1 + 64*d + r``: round *r* < ``REDRAWS`` redraws a card already drawn from the
same sheet in this pack (sequential rejection, i.e. weighted sampling without replacement);
the last counter of the block draws exactly from the weights left. The extra slot *e* (no
Magic back) uses the block of draw ``EXTRA_BASE + e``: option, card, stamp.

The draw runs two ways over the same tables: per pack in plain Python (``draw_pack``: up to
``FEW_PACKS`` packs, without importing numpy, which costs more than the draw) and per batch
in numpy (``engine_np.draw_rows``, loaded with numpy for the first batch). Both pick with the
same float arithmetic, so they give the same packs (``tests/test_engine_paths.py`` draws
every product of the test world every way): a change to the draw is made to both.

The tables are built by ``generator.compiled`` (``compile_product``).
"""

from __future__ import annotations

import gc
from bisect import bisect_right
from itertools import accumulate
from typing import Any

from boosterkit.errors import InputError
from boosterkit.generator.arrays import arrays
from boosterkit.generator.compiled import (
    BLOCK,
    EXTRA_BASE,
    CompiledProduct,
    ExtraTable,
    Floats,
    SheetTable,
    compile_product,
)
from boosterkit.generator.lazy import LazyPack, new_pack
from boosterkit.generator.model import (
    PROTO_FIELDS,
    Pack,
    ProductDef,
)
from boosterkit.generator.rng import check_seed, pack_key, uniform

__all__ = [
    "FEW_PACKS",
    "PROTO_FIELDS",
    "CompiledProduct",
    "LazyPack",
    "check_seed",
    "compile_product",
    "draw_batch",
    "draw_pack",
    "open_batch",
    "open_compiled",
    "open_pack",
]

REDRAWS = 16  # rejection rounds before the exact draw from the remaining weights
FEW_PACKS = 32  # packs per call up to which plain Python beats a numpy batch


# --- drawing, per pack (plain Python) --------------------------------------------------------


def _pick(cum: Floats, u: float) -> int:
    return min(bisect_right(cum, u * cum[-1]), len(cum) - 1)


def _exact(key: int, counter: int, weights: Floats, taken: list[int]) -> int:
    """Draw by ``weights`` without the cards ``taken``; by all weights if none is left."""
    w = list(weights)
    for t in taken:
        w[t] = 0.0
    if not any(x > 0 for x in w):
        w = list(weights)
    cum = list(accumulate(w))
    target = uniform(key, counter) * cum[-1]
    return min(sum(1 for c in cum if c <= target), len(w) - 1)


def _redraw(key: int, base: int, col: int, cum: Floats, weights: Floats, earlier: list[int]) -> int:
    """The draw whose first pick is ``col``, redrawn while it repeats a card in ``earlier``."""
    for r in range(1, REDRAWS):
        if col not in earlier:
            return col
        col = _pick(cum, uniform(key, base + r))
    if col in earlier:
        col = _exact(key, base + BLOCK - 1, weights, earlier)
    return col


def _sheet(key: int, sheet: SheetTable, count: int, first_draw: int) -> list[int]:
    """``count`` prototype ids drawn from ``sheet``."""
    out: list[int] = []
    if sheet.balance and count >= len(sheet.balance):
        for j, (cum, local) in enumerate(sheet.balance):
            out.append(local[_pick(cum, uniform(key, 1 + BLOCK * (first_draw + j)))])
        weights, cum = sheet.after_seeds(count)
    else:
        weights, cum = sheet.weights, sheet.cum
    total, last, repeats = cum[-1], len(cum) - 1, not sheet.allow_duplicates
    for j in range(len(out), count):  # _pick of each draw, redrawn while it repeats a card
        base = 1 + BLOCK * (first_draw + j)
        col = min(bisect_right(cum, uniform(key, base) * total), last)
        if repeats and col in out:
            col = _redraw(key, base, col, cum, weights, out)
        out.append(col)
    return [sheet.protos[i] for i in out]


def _extra(key: int, extra: ExtraTable) -> int:
    base = 1 + BLOCK * (EXTRA_BASE + extra.number)
    opt = extra.options[_pick(extra.cum, uniform(key, base))]
    card = min(int(uniform(key, base + 1) * len(opt.protos)), len(opt.protos) - 1)
    if opt.gold is not None and uniform(key, base + 2) < opt.gold_p:
        return opt.gold[card]
    return opt.protos[card]


def draw_pack(cp: CompiledProduct, seed: int, index: int) -> tuple[int, list[int]]:
    """(variant index, prototype ids) of pack ``index`` of the run with ``seed`` (checked)."""
    key = pack_key(seed, index)
    v = cp.variants[_pick(cp.variant_cum, uniform(key, 0))]
    out = [_extra(key, cp.extras[e]) for e in v.first]
    draw = 0
    for sheet_no, count in v.slots:
        sheet = cp.sheets[sheet_no]
        if sheet.fixed_protos is not None:
            out += sheet.fixed_protos
        elif count == 1 and not sheet.balance:  # _sheet of one card, written out (most slots)
            cum = sheet.cum
            col = bisect_right(cum, uniform(key, 1 + BLOCK * draw) * cum[-1])
            out.append(sheet.protos[min(col, len(cum) - 1)])
            draw += 1
        elif count:
            out += _sheet(key, sheet, count, draw)
            draw += count
    out += [_extra(key, cp.extras[e]) for e in v.last]
    return v.index, out


# --- packs -----------------------------------------------------------------------------------


def draw_batch(
    cp: CompiledProduct, seed: int, start: int, count: int
) -> tuple[list[int], list[list[int]]]:
    """Variant indices and prototype ids of packs ``start .. start+count-1`` (1-based): per
    pack in plain Python up to ``FEW_PACKS`` packs, else in numpy batches (the same packs)."""
    check_seed(seed)
    if start < 1 or count < 0:
        raise InputError(f"pack indices start at 1 (got start {start}, count {count})")
    if count <= FEW_PACKS:
        drawn = [draw_pack(cp, seed, i) for i in range(start, start + count)]
        return [v for v, _ in drawn], [protos for _, protos in drawn]
    return _batch(cp, seed, start, count)


def _batch(
    cp: CompiledProduct, seed: int, start: int, count: int
) -> tuple[list[int], list[list[int]]]:
    from boosterkit.generator.engine_np import draw_rows

    chosen, rows = draw_rows(cp, seed, start, count)
    plan = arrays(cp).plan
    variants = plan.index[chosen].tolist()
    if min(plan.widths, default=0) == max(plan.widths, default=0):
        return variants, rows.tolist()
    widths = [plan.widths[n] for n in chosen.tolist()]
    return variants, [row[:w] for row, w in zip(rows.tolist(), widths)]


def open_batch(
    product: ProductDef | CompiledProduct, seed: int, start: int = 1, count: int = 1
) -> list[Pack]:
    """Packs ``start .. start+count-1`` (1-based) of the run of ``product`` with ``seed``.

    A ``ProductDef`` is compiled on every call: callers opening the same product again and
    again pass ``compile_product(product)`` (or take it from the database's cache:
    ``generator.cache.compiled``)."""
    cp = product if isinstance(product, CompiledProduct) else compile_product(product)
    return open_compiled(cp, check_seed(seed), start, count)


def open_compiled(cp: CompiledProduct, seed: int, start: int, count: int) -> list[Pack]:
    """``open_batch`` for a caller that has checked ``seed`` already (``check_seed``)."""
    if count <= FEW_PACKS:
        packs: list[Pack] = []
        for index in range(start, start + count):
            variant, protos = draw_pack(cp, seed, index)
            packs.append(new_pack(cp, seed, index, variant, protos))
        return packs
    # A batch is tens of thousands of new containers and no reference cycle: the cyclic
    # collector would rescan the growing batch dozens of times (a third of the time), so it
    # waits until the batch is built.
    collecting = gc.isenabled()
    gc.disable()
    try:
        variants, rows = _batch(cp, seed, start, count)
        return [new_pack(cp, seed, start + n, variants[n], rows[n]) for n in range(count)]
    finally:
        if collecting:
            gc.enable()


def open_pack(product: ProductDef | CompiledProduct, seed: int, index: int) -> Pack:
    """Pack ``index`` (1-based) of the run of ``product`` with ``seed``: a pure function."""
    return open_batch(product, seed, index, 1)[0]


#: What ``engine_np`` draws, reachable here too (``engine.draw_rows``): loaded on first use.
_NUMPY = ("draw_arrays", "draw_rows")


def __getattr__(name: str) -> Any:
    if name in _NUMPY:
        from boosterkit.generator import engine_np

        return getattr(engine_np, name)
    raise AttributeError(f"module 'boosterkit.generator.engine' has no attribute {name!r}")
