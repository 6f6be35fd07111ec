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
in numpy (``draw_arrays``: many packs at once). Both pick with the same float arithmetic
(``bisect_right`` is ``searchsorted(side="right")``, a running sum is ``cumsum``), so they give
the same packs (``tests/test_engine_paths.py`` draws every product of the test world both
ways): a change to the draw is made to both, side by side below.

The tables are built by ``generator.compiled`` (``compile_product``).
"""

from __future__ import annotations

import gc
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from boosterkit.errors import InputError
from boosterkit.generator import rng
from boosterkit.generator.compiled import (
    CompiledProduct,
    ExtraTable,
    Floats,
    Ints,
    SheetTable,
    VariantTable,
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
    "draw_pack",
    "open_batch",
    "open_compiled",
    "open_pack",
]

REDRAWS = 16  # rejection rounds before the exact draw from the remaining weights
BLOCK = 64  # counters reserved per draw position
EXTRA_BASE = 1 << 20  # draw positions of the extra slots (independent of the variant)
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


def _column(key: int, draw: int, cum: Floats, weights: Floats, earlier: list[int] | None) -> int:
    """One draw, redrawn while it repeats a card in ``earlier``."""
    base = 1 + BLOCK * draw
    col = _pick(cum, uniform(key, base))
    if not earlier:
        return col
    return _redraw(key, base, col, cum, weights, earlier)


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
    for j in range(len(out), count):
        earlier = None if sheet.allow_duplicates else out
        out.append(_column(key, first_draw + j, cum, weights, earlier))
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
        elif count:
            out += _sheet(key, sheet, count, draw)
            draw += count
    out += [_extra(key, cp.extras[e]) for e in v.last]
    return v.index, out


# --- drawing, per batch (numpy) --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SheetArrays:
    """A ``SheetTable`` as numpy arrays (``corrected`` by number of draws)."""

    name: str
    cum: np.ndarray
    weights: np.ndarray
    protos: np.ndarray
    allow_duplicates: bool
    fixed_protos: Ints | None
    balance: tuple[tuple[np.ndarray, np.ndarray], ...]
    corrected: dict[int, tuple[np.ndarray, np.ndarray]]
    table: SheetTable  # the same sheet in plain Python (``_redraw_rows`` of a few packs)
    #: ``balance`` as one table (``_seed_tables``), when every colour's weights have one
    seeds: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None


@dataclass(frozen=True, slots=True)
class Arrays:
    """A ``CompiledProduct``'s tables as numpy arrays: built once per product (``arrays``)."""

    variant_cum: np.ndarray
    sheets: tuple[SheetArrays, ...]
    extras: tuple[tuple[np.ndarray, tuple[tuple[np.ndarray, np.ndarray | None, float], ...]], ...]
    steps: dict[int, np.ndarray] = field(default_factory=dict)  # ``counters``, by variant
    #: ``_lookup`` of each cumulative-weights array above that has one, by its ``id()``
    lookups: dict[int, Lookup] = field(default_factory=dict)

    def counters(self, v: VariantTable) -> np.ndarray:
        """The steps (``rng.steps_np``) of the first uniform of each draw of a pack of
        variant ``v``, in pack order: three per extra slot, one per draw from a sheet."""
        found = self.steps.get(v.index)
        if found is None:
            from boosterkit.generator import rng_np

            draws = sum(c for s, c in v.slots if self.sheets[s].fixed_protos is None)
            found = self.steps[v.index] = rng_np.steps_np(
                [1 + BLOCK * (EXTRA_BASE + e) + k for e in v.first for k in range(3)]
                + [1 + BLOCK * d for d in range(draws)]
                + [1 + BLOCK * (EXTRA_BASE + e) + k for e in v.last for k in range(3)]
            )
        return found


def arrays(cp: CompiledProduct) -> Arrays:
    """``cp``'s tables as numpy arrays (made on first use, then held by ``cp``)."""
    found: Arrays | None = cp.memo.get("arrays")
    if found is None:
        found = cp.memo["arrays"] = _arrays(cp)
    return found


def _arrays(cp: CompiledProduct) -> Arrays:
    from boosterkit.generator._np import np  # numpy on the first batch: startup stays light

    def f(values: Floats) -> np.ndarray:
        return np.array(values, dtype=np.float64)

    def i(values: Ints) -> np.ndarray:
        return np.array(values, dtype=np.int64)

    sheets = tuple(SheetArrays(
        s.name, f(s.cum), f(s.weights), i(s.protos), s.allow_duplicates, s.fixed_protos,
        tuple((f(c), i(local)) for c, local in s.balance),
        {n: (f(w), f(c)) for n, w, c in s.corrected}, s,
    ) for s in cp.sheets)  # fmt: skip
    extras = tuple(
        (f(e.cum), tuple((i(o.protos), None if o.gold is None else i(o.gold), o.gold_p)
                         for o in e.options))
        for e in cp.extras
    )  # fmt: skip
    arr = Arrays(f(cp.variant_cum), sheets, extras)
    cums = [arr.variant_cum, *(e[0] for e in extras)]
    for sa in sheets:
        cums += [sa.cum, *(c for c, _ in sa.balance), *(c for _, c in sa.corrected.values())]
    for cum in cums:
        if (table := _lookup(cum)) is not None:
            arr.lookups[id(cum)] = table
    sheets = tuple(replace(sa, seeds=_seed_tables(sa.balance, arr.lookups)) for sa in sheets)
    return replace(arr, sheets=sheets)


def _seed_tables(
    balance: tuple[tuple[np.ndarray, np.ndarray], ...], lookups: dict[int, Lookup]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The colour seeds' tables (``_lookup``) and local indices, each colour's after the one
    before: (totals, table starts, tables, local starts, locals), so that every seed of a
    batch is two array reads (``_sheet_np``); None unless every colour has a table."""
    from boosterkit.generator._np import np

    found = [lookups.get(id(cum)) for cum, _ in balance]
    tables = [f.table for f in found if f is not None and f.sure is None]
    if not balance or len(tables) < len(balance):
        return None
    return (
        np.array([cum[-1] for cum, _ in balance], dtype=np.float64),
        np.cumsum([0, *(len(t) for t in tables[:-1])]),
        np.concatenate(tables),
        np.cumsum([0, *(len(local) for _, local in balance[:-1])]),
        np.concatenate([local for _, local in balance]),
    )


#: Entries of a ``_lookup`` table at most (256 KiB of int32): a larger total is read by
#: ranges of whole numbers (``Lookup.shift``).
LOOKUP_MAX = 1 << 16
#: Picks a call makes at least to read a ranged table (below, a binary search costs less).
LOOKUP_RANGED = 256


@dataclass(frozen=True, slots=True)
class Lookup:
    """``_pick_np`` of whole-number cumulative weights as a table: entry ``b`` is the card
    of every ``floor(x) >> shift`` = ``b``, when ``sure`` (None: all are) says that range
    holds one card; elsewhere the card is searched."""

    table: np.ndarray
    shift: int
    sure: np.ndarray | None


def _lookup(cum: np.ndarray) -> Lookup | None:
    """The ``Lookup`` of whole-number cumulative weights (a card's range ends on a whole
    number, so the cards up to ``x`` are those up to ``floor(x)``): one array read instead
    of a binary search; None for other weights."""
    from boosterkit.generator._np import np

    if not len(cum) or not 0 < cum[-1] < 2**52 or (cum != np.floor(cum)).any():
        return None
    shift = max(0, int(cum[-1]).bit_length() - LOOKUP_MAX.bit_length() + 1)
    lows = np.arange((int(cum[-1]) >> shift) + 1, dtype=np.float64) * (1 << shift)
    table = np.minimum(cum.searchsorted(lows, "right"), len(cum) - 1)  # x up to total: rounded
    if not shift:
        return Lookup(table.astype(np.int32), 0, None)
    highs = np.minimum(cum.searchsorted(lows + ((1 << shift) - 1), "right"), len(cum) - 1)
    return Lookup(table.astype(np.int32), shift, highs == table)


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
            for row in rows.tolist():
                out[row] = _redraw_row(int(keys[row]), out[row].tolist(), first_draw, start, *py)
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

    cum, options = arr.extras[number]
    which = _pick_np(cum, u[:, 0], arr.lookups)
    u_card = u[:, 1]
    u_gold = u[:, 2]
    out = np.empty(len(u), dtype=np.int64)
    for o, (protos, gold, gold_p) in enumerate(options):
        rows = np.nonzero(which == o)[0]
        if not len(rows):
            continue
        card = np.minimum((u_card[rows] * len(protos)).astype(np.int64), len(protos) - 1)
        out[rows] = protos[card]
        if gold is not None:
            stamped = u_gold[rows] < gold_p
            out[rows[stamped]] = gold[card[stamped]]
    return out


def _variant_np(keys: np.ndarray, arr: Arrays, v: VariantTable) -> np.ndarray:
    """``draw_pack`` per row, for packs of variant ``v``: prototype ids in pack order. The
    first uniform of every draw is computed at once (``rng.uniforms_np``)."""
    from boosterkit.generator._np import np

    u = rng.uniforms_np(keys, arr.counters(v))  # a column a draw
    at = 3 * len(v.first)
    cols: list[np.ndarray] = [
        _extra_np(e, arr, u[:, 3 * k : 3 * k + 3])[:, None] for k, e in enumerate(v.first)
    ]
    draw = 0
    for sheet_no, count in v.slots:
        sheet = arr.sheets[sheet_no]
        if sheet.fixed_protos is not None:
            fixed = np.array(sheet.fixed_protos, dtype=np.int64)
            cols.append(np.broadcast_to(fixed, (len(keys), len(fixed))))
        elif count:
            first = u[:, at + draw : at + draw + count]
            cols.append(_sheet_np(keys, sheet, count, draw, first, arr.lookups))
            draw += count
    at += draw
    cols += [
        _extra_np(e, arr, u[:, at + 3 * k : at + 3 * k + 3])[:, None] for k, e in enumerate(v.last)
    ]
    if not cols:
        return np.empty((len(keys), 0), dtype=np.int64)
    return np.concatenate(cols, axis=1)


def draw_arrays(
    cp: CompiledProduct, seed: int, start: int, count: int
) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """Packs ``start .. start+count-1`` (1-based, seed checked by the caller) as arrays, per
    variant drawn: its index, where its packs are in the batch (0-based offsets, ascending)
    and their prototype ids (a row a pack). ``draw_batch`` is these, as lists in pack order."""
    from boosterkit.generator._np import np

    if start < 1 or count < 0:
        raise InputError(f"pack indices start at 1 (got start {start}, count {count})")
    arr = arrays(cp)
    keys = rng.pack_keys_np(seed, np.arange(start, start + count, dtype=np.uint64))
    if len(cp.variants) == 1:
        v = cp.variants[0]
        return [(v.index, np.arange(count), _variant_np(keys, arr, v))]
    chosen = _pick_np(arr.variant_cum, rng.uniform_np(keys, 0), arr.lookups)
    drawn = []
    for n, v in enumerate(cp.variants):
        where = np.nonzero(chosen == n)[0]
        if len(where):
            drawn.append((v.index, where, _variant_np(keys[where], arr, v)))
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
    drawn = draw_arrays(cp, seed, start, count)
    if len(drawn) == 1 and len(drawn[0][1]) == count:  # one variant: every pack in order
        index, _, mat = drawn[0]
        return [index] * count, mat.tolist()
    rows: list[Any] = [None] * count
    variants = [0] * count
    for index, where, mat in drawn:
        at = where.tolist()
        for i, row in zip(at, mat.tolist()):
            rows[i] = row
        for i in at:
            variants[i] = index
    return variants, rows


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
