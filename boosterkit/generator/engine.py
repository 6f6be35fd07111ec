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
in numpy (``draw_rows``: many packs at once; up to ``FUSED_PACKS`` packs every column of
every variant is picked in one table read, ``Fused``, as a batch of 36 packs pays numpy's
fixed cost a call more than its work; past it a ``Call`` at a time). Both pick with the same
float arithmetic (``bisect_right`` is ``searchsorted(side="right")``, a running sum is
``cumsum``), so they give the same packs (``tests/test_engine_paths.py`` draws every product
of the test world every way): a change to the draw is made to both, side by side below.

The tables are built by ``generator.compiled`` (``compile_product``).
"""

from __future__ import annotations

import gc
from bisect import bisect_right
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from boosterkit.errors import InputError
from boosterkit.generator import rng
from boosterkit.generator.arrays import (
    LOOKUP_RANGED,
    Arrays,
    Call,
    Fused,
    Lookup,
    SheetArrays,
    arrays,
)
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

if TYPE_CHECKING:
    from boosterkit.generator._np import np

__all__ = [
    "FEW_PACKS",
    "PROTO_FIELDS",
    "CompiledProduct",
    "LazyPack",
    "check_seed",
    "compile_product",
    "draw_arrays",
    "draw_batch",
    "draw_rows",
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


# --- drawing, per batch (numpy) --------------------------------------------------------------

#: Packs a batch holds at most to be drawn by ``Fused`` tables (numpy's fixed cost a call
#: is what a small batch pays; a larger one is drawn a ``Call`` at a time).
FUSED_PACKS = 256


def _draw_fused(
    fz: Fused, arr: Arrays, keys: np.ndarray, u: np.ndarray, chosen: np.ndarray
) -> np.ndarray:
    """``draw_rows``' rows by ``fz``: every first pick at once, the packs that repeat a
    card redrawn in plain Python (``_redraw_row``), then the extra slots."""
    from boosterkit.generator._np import np

    one = len(fz.ucols) == 1
    if fz.view:
        picked = u[:, : fz.ucols.shape[1]]
    elif fz.shared is not None:
        picked = u[:, fz.shared]
    else:
        picked = np.take_along_axis(u, fz.ucols[chosen], axis=1)
    totals = fz.totals[0] if one else fz.totals[chosen]
    x = picked * totals  # u * total: _pick's x
    index = x if fz.scales is None else x * (fz.scales[0] if one else fz.scales[chosen])
    index = index.astype(np.int64)
    index += fz.starts[0] if one else fz.starts[chosen]
    cards = fz.table[index]
    unsure = fz.unsure[index]
    if np.logical_or.reduce(unsure, axis=None):  # a bucket that holds a card's end: _pick
        for r, c in zip(*(a.tolist() for a in unsure.nonzero())):
            cum, local = fz.cums[0 if one else int(chosen[r])][c] or ((), None)
            card = min(bisect_right(cum, float(x[r, c])), len(cum) - 1)
            cards[r, c] = card if local is None else local[card]
    if any(fz.repeats):
        tagged = cards + (fz.tags[0] if one else fz.tags[chosen])
        tagged.sort(axis=1)
        again = np.logical_or.reduce(tagged[:, 1:] == tagged[:, :-1], axis=1).nonzero()[0]
        if len(again):
            cards[again] = [_redraw_pack(key, row, fz.repeats[v]) for key, row, v in zip(
                keys[again].tolist(), cards[again].tolist(), chosen[again].tolist())]  # fmt: skip
    cards += fz.pstarts[0] if one else fz.pstarts[chosen]
    rows: np.ndarray = fz.protos[cards]
    for call in fz.extras:
        if call.variants is None:
            rows[:, call.out] = _extra_np(call.number, arr, u[:, call.u : call.u + 3])
            continue
        where = arr.plan.member(call.variants)[chosen].nonzero()[0]
        rows[where, call.out] = _extra_np(call.number, arr, u[where, call.u : call.u + 3])
    return rows


def _redraw_pack(
    key: int, row: list[int], repeats: tuple[tuple[int, int, int, int, Floats, Floats], ...]
) -> list[int]:
    """A pack's cards (of their sheets) with each sheet's repeats redrawn (``_sheet``)."""
    for out, count, first_draw, seeds, weights, cum in repeats:
        cards = row[out : out + count]
        if len(set(cards)) < count:  # this sheet's cards repeat (not only another's)
            row[out : out + count] = _redraw_row(key, cards, first_draw, seeds, weights, cum)
    return row


def _pick_np(cum: np.ndarray, u: np.ndarray, lookups: dict[int, Lookup]) -> np.ndarray:
    """Indices drawn by weight: ``cum`` cumulative weights, ``u`` uniforms in [0, 1);
    through ``cum``'s ``Lookup`` in ``lookups`` when it has one (a ranged one for
    ``LOOKUP_RANGED`` picks or more)."""
    from boosterkit.generator._np import np

    x = u * cum[-1]
    found = lookups.get(id(cum))
    if found is not None and found.sure is None:
        picked: np.ndarray = found.table[x.astype(np.int64)]
        return picked
    sure = None if found is None else found.sure
    if found is not None and sure is not None and x.size >= LOOKUP_RANGED:
        ranges = x.astype(np.int64) >> found.shift
        picked = found.table[ranges].astype(np.int64)
        unsure = np.flatnonzero(~sure[ranges])
        if len(unsure):  # a range that holds a card's end: searched
            flat = picked.reshape(-1)
            flat[unsure] = np.minimum(cum.searchsorted(x.reshape(-1)[unsure], "right"),
                                      len(cum) - 1)  # fmt: skip
        return picked
    idx: np.ndarray = cum.searchsorted(x, "right")
    picked = np.minimum(idx, len(cum) - 1, out=idx)
    return picked


def _exact_np(keys: np.ndarray, counter: int, weights: np.ndarray, taken: np.ndarray) -> np.ndarray:
    """``_exact`` per row (``taken``: rows of cards drawn already)."""
    from boosterkit.generator._np import np

    w = np.broadcast_to(weights, (len(keys), len(weights))).copy()
    np.put_along_axis(w, taken, 0.0, axis=1)
    empty = w.sum(axis=1) <= 0
    w[empty] = weights
    cum = np.cumsum(w, axis=1)
    target = rng.uniform_np(keys, counter) * cum[:, -1]
    idx = (cum <= target[:, None]).sum(axis=1)
    picked: np.ndarray = np.minimum(idx, len(weights) - 1)
    return picked


def _redraws_np(
    keys: np.ndarray, base: int, cum: np.ndarray, weights: np.ndarray,
    earlier: np.ndarray, col: np.ndarray, lookups: dict[int, Lookup],
) -> np.ndarray:  # fmt: skip
    """``_column`` per row after its first pick ``col`` (``earlier``: rows × previous draws)."""
    from boosterkit.generator._np import np

    bad = np.nonzero((earlier == col[:, None]).any(axis=1))[0]
    for r in range(1, REDRAWS):
        if not len(bad):
            return col
        new = _pick_np(cum, rng.uniform_np(keys[bad], base + r), lookups)
        col[bad] = new
        bad = bad[(earlier[bad] == new[:, None]).any(axis=1)]
    if len(bad):
        col[bad] = _exact_np(keys[bad], base + BLOCK - 1, weights, earlier[bad])
    return col


def _sheet_np(
    keys: np.ndarray, sheet: SheetArrays, count: int, first_draw: int, u: np.ndarray,
    lookups: dict[int, Lookup],
) -> np.ndarray:  # fmt: skip
    """``_sheet`` per row: ``count`` prototype ids a row; ``u`` holds each draw's first
    uniform (rows × ``count``). Every first pick is made at once; only the rows where two
    picks repeat a card (``_redraw_rows``) are drawn again, column by column."""
    from boosterkit.generator._np import np

    out = np.empty((len(keys), count), dtype=np.int64)
    start = 0
    if sheet.balance and count >= len(sheet.balance):
        start = len(sheet.balance)
        if sheet.seeds is not None:  # every colour at once: _pick_np's table reads
            tops, at, tables, first, local = sheet.seeds
            picks = tables[(u[:, :start] * tops).astype(np.int64) + at]
            out[:, :start] = local[picks + first]
        else:
            for j, (cum, local) in enumerate(sheet.balance):
                out[:, j] = local[_pick_np(cum, u[:, j], lookups)]
        weights, cum = sheet.corrected[count]
    else:
        weights, cum = sheet.weights, sheet.cum
    if start < count:
        out[:, start:] = _pick_np(cum, u[:, start:], lookups)
    if not sheet.allow_duplicates and count > 1:
        ordered = np.sort(out, axis=1)
        rows = np.nonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))[0]
        if len(rows) > FEW_PACKS:
            out[rows] = _redraw_rows(keys[rows], out[rows], first_draw, start, (cum, weights),
                                     lookups)  # fmt: skip
        elif len(rows):
            table = sheet.table
            py = table.after_seeds(count) if start else (table.weights, table.cum)
            out[rows] = [_redraw_row(key, row, first_draw, start, *py)
                         for key, row in zip(keys[rows].tolist(), out[rows].tolist())]  # fmt: skip
    found: np.ndarray = sheet.protos[out]
    return found


def _redraw_row(
    key: int, row: list[int], first_draw: int, start: int, weights: Floats, cum: Floats
) -> list[int]:
    """``_redraw_rows`` for one row, in plain Python (a few rows cost less so)."""
    for j in range(max(start, 1), len(row)):
        if row[j] in row[:j]:
            row[j] = _redraw(key, 1 + BLOCK * (first_draw + j), row[j], cum, weights, row[:j])
    return row


def _redraw_rows(
    keys: np.ndarray, out: np.ndarray, first_draw: int, start: int,
    sheet: tuple[np.ndarray, np.ndarray], lookups: dict[int, Lookup],
) -> np.ndarray:  # fmt: skip
    """The rows of ``out`` (first picks) drawn as ``_sheet`` does: each column from
    ``start`` on redrawn while it repeats a card of the columns before it."""
    for j in range(max(start, 1), out.shape[1]):
        base = 1 + BLOCK * (first_draw + j)
        out[:, j] = _redraws_np(keys, base, *sheet, out[:, :j], out[:, j].copy(), lookups)
    return out


def _extra_np(number: int, arr: Arrays, u: np.ndarray) -> np.ndarray:
    """``_extra`` per row (``u``: its three uniforms a row)."""
    from boosterkit.generator._np import np

    e = arr.extras[number]
    which = _pick_np(e.cum, u[:, 0], arr.lookups)
    card = (u[:, 1] * e.sizes[which]).astype(np.int64)
    card = np.minimum(card, e.last[which], out=card)
    card += e.starts[which]
    out: np.ndarray = e.protos[card]
    stamped = u[:, 2] < e.gold_p[which]
    if np.logical_or.reduce(stamped):
        out[stamped] = e.gold[card[stamped]]
    return out


def _call_np(call: Call, arr: Arrays, keys: np.ndarray, u: np.ndarray) -> Any:
    """The cards of ``call`` for the packs of ``keys`` (``u``: their uniforms, every column)."""
    if call.kind == "sheet":
        first = u[:, call.u : call.u + call.count]
        return _sheet_np(keys, arr.sheets[call.number], call.count, call.first_draw, first,
                         arr.lookups)  # fmt: skip
    if call.kind == "extra":
        return _extra_np(call.number, arr, u[:, call.u : call.u + 3])[:, None]
    return arr.sheets[call.number].fixed_protos


def draw_rows(cp: CompiledProduct, seed: int, start: int, count: int) -> tuple[Any, Any]:
    """Packs ``start .. start+count-1`` (1-based, seed checked by the caller) as arrays:
    each pack's variant (its position in ``cp.variants``) and its prototype ids (a row a
    pack, in pack order; a pack shorter than the longest variant's ends in -1s).

    ``draw_pack`` per row: up to ``FUSED_PACKS`` packs, the uniforms of every pack's draws
    at once (``rng.uniforms_np``), then every column picked at once (``_draw_fused``); a
    larger batch, a variant's packs at a time, a ``Call`` at a time."""
    from boosterkit.generator._np import np

    if start < 1 or count < 0:
        raise InputError(f"pack indices start at 1 (got start {start}, count {count})")
    arr = arrays(cp)
    plan = arr.plan
    keys = rng.pack_keys_np(seed, np.arange(start, start + count, dtype=np.uint64))
    if arr.fused is not None and count <= FUSED_PACKS:
        u = rng.uniforms_np(keys, plan.steps)
        chosen = _pick_np(arr.variant_cum, u[:, plan.draws], arr.lookups)
        return chosen, _draw_fused(arr.fused, arr, keys, u, chosen)
    chosen = _pick_np(arr.variant_cum, rng.uniform_np(keys, 0), arr.lookups)
    if len(cp.variants) == 1:
        return chosen, _variant_np(keys, arr, 0)
    width = max(plan.widths, default=0)
    rows = np.empty((count, width), dtype=np.int64)
    if min(plan.widths, default=0) < width:
        rows.fill(-1)
    for v, w in enumerate(plan.widths):
        where = np.flatnonzero(chosen == v)
        if len(where):
            rows[where, :w] = _variant_np(keys[where], arr, v)
    return chosen, rows


def _variant_np(keys: np.ndarray, arr: Arrays, v: int) -> np.ndarray:
    """``draw_pack`` per row, for packs of variant ``v`` (its position): prototype ids in
    pack order, its calls' columns side by side."""
    from boosterkit.generator._np import np

    u = rng.uniforms_np(keys, arr.plan.steps)
    cols = [_call_np(call, arr, keys, u) for call in arr.plan.calls_of[v]]
    if not cols:
        return np.empty((len(keys), 0), dtype=np.int64)
    return np.concatenate([np.broadcast_to(c, (len(keys), len(c))) if isinstance(c, tuple)
                           else c for c in cols], axis=1)  # fmt: skip


def draw_arrays(
    cp: CompiledProduct, seed: int, start: int, count: int
) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """``draw_rows`` by variant: per variant drawn, its index, where its packs are in the
    batch (0-based offsets, ascending) and their prototype ids (a row a pack)."""
    from boosterkit.generator._np import np

    chosen, rows = draw_rows(cp, seed, start, count)
    plan = arrays(cp).plan
    if len(cp.variants) == 1:
        return [(cp.variants[0].index, np.arange(count), rows)]
    drawn = []
    for n, v in enumerate(cp.variants):
        where = np.flatnonzero(chosen == n)
        if len(where):
            drawn.append((v.index, where, rows[where, : plan.widths[n]]))
    return drawn


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
