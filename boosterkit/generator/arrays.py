"""A ``CompiledProduct``'s tables as numpy arrays (``arrays``, made once per product and held by
it), and how a batch of packs takes them: the ``Plan`` of a batch's numpy calls, one per sheet
the variants share, and the ``Fused`` tables that pick every column of every variant at once.
``generator.engine`` draws from these (``draw_rows``); numpy is imported on first use.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from boosterkit.generator import rng
from boosterkit.generator.compiled import (
    BLOCK,
    EXTRA_BASE,
    CompiledProduct,
    ExtraTable,
    Floats,
    Ints,
    SheetTable,
)

if TYPE_CHECKING:
    from boosterkit.generator._np import np


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
class ExtraArrays:
    """An ``ExtraTable`` as numpy arrays: its options' cards one after the other."""

    cum: np.ndarray
    starts: np.ndarray  # where each option's cards start in ``protos``
    sizes: np.ndarray  # how many cards each option has (float64: what a uniform scales)
    last: np.ndarray  # the last card of each option (``sizes`` - 1, int64)
    protos: np.ndarray
    gold: np.ndarray  # each card's gold-stamped twin (itself where it has none)
    gold_p: np.ndarray  # each option's chance of the twin (0: none)


def _extra_arrays(e: ExtraTable) -> ExtraArrays:
    from boosterkit.generator._np import np

    sizes = [len(o.protos) for o in e.options]
    return ExtraArrays(
        np.array(e.cum, dtype=np.float64),
        np.cumsum([0, *sizes[:-1]], dtype=np.int64),
        np.array(sizes, dtype=np.float64),
        np.array(sizes, dtype=np.int64) - 1,
        np.array([p for o in e.options for p in o.protos], dtype=np.int64),
        np.array([p for o in e.options for p in (o.gold or o.protos)], dtype=np.int64),
        np.array([0.0 if o.gold is None else o.gold_p for o in e.options], dtype=np.float64),
    )


@dataclass(frozen=True, slots=True)
class Call:
    """One numpy call of a batch's draw (``Plan``): ``count`` draws from sheet ``number``
    from draw position ``first_draw`` on (``kind`` "sheet"), extra slot ``number`` ("extra"),
    or fixed sheet ``number``'s cards ("fixed"); its uniforms from column ``u`` of the
    batch's, its cards to columns ``out`` .. ``out + count`` of the batch's rows. Made once
    for the packs of every variant in ``variants`` (None: all of them)."""

    variants: tuple[int, ...] | None
    kind: str
    number: int
    count: int
    first_draw: int
    u: int
    out: int


@dataclass(frozen=True, slots=True)
class Plan:
    """How ``draw_rows`` draws a batch of a product: the steps (``rng.steps_np``) of the
    uniforms it takes (the first counter of each draw position, counter 0, then the first
    three counters of each extra slot: a column each) and its calls, one per sheet, extra or
    fixed sheet at the same place in every variant that has it (the variants' shared sheets
    are drawn in one pass for all their packs)."""

    steps: np.ndarray
    calls: tuple[Call, ...]
    widths: tuple[int, ...]  # cards of a pack, per variant
    index: np.ndarray  # ``VariantTable.index`` of each variant
    draws: int  # draw positions: the uniforms' first columns (then counter 0, then extras)
    calls_of: tuple[tuple[Call, ...], ...]  # each variant's calls, in pack order
    members: dict[tuple[int, ...], np.ndarray] = field(default_factory=dict)

    def member(self, variants: tuple[int, ...]) -> np.ndarray:
        """Per variant, whether it is one of ``variants`` (booleans, to index by variant)."""
        found = self.members.get(variants)
        if found is None:
            found = self.members[variants] = self.index < 0
            found[list(variants)] = True
        return found


@dataclass(frozen=True, slots=True)
class Arrays:
    """A ``CompiledProduct``'s tables as numpy arrays: built once per product (``arrays``)."""

    variant_cum: np.ndarray
    sheets: tuple[SheetArrays, ...]
    extras: tuple[ExtraArrays, ...]
    plan: Plan
    #: ``_lookup`` of each cumulative-weights array above that has one, by its ``id()``
    lookups: dict[int, Lookup] = field(default_factory=dict)
    fused: Fused | None = None  # when every sheet of the product has exact tables


def _plan(cp: CompiledProduct) -> Plan:
    """``cp``'s ``Plan``: each variant's calls in pack order, a call the variants share
    (same kind, table, draws and columns) made once."""
    from boosterkit.generator._np import np

    draws = max((sum(c for s, c in v.slots if cp.sheets[s].fixed_protos is None)
                 for v in cp.variants), default=0)  # fmt: skip
    calls: dict[tuple[str, int, int, int, int, int], list[int]] = {}
    widths = []
    for n, v in enumerate(cp.variants):
        out, draw = 0, 0
        for e in v.first:
            calls.setdefault(("extra", e, 1, 0, draws + 1 + 3 * e, out), []).append(n)
            out += 1
        for sheet_no, count in v.slots:
            fixed = cp.sheets[sheet_no].fixed_protos
            if fixed is not None:
                calls.setdefault(("fixed", sheet_no, len(fixed), 0, 0, out), []).append(n)
                out += len(fixed)
            elif count:
                calls.setdefault(("sheet", sheet_no, count, draw, draw, out), []).append(n)
                out, draw = out + count, draw + count
        for e in v.last:
            calls.setdefault(("extra", e, 1, 0, draws + 1 + 3 * e, out), []).append(n)
            out += 1
        widths.append(out)
    counters = [
        *(1 + BLOCK * d for d in range(draws)),
        0,
        *(1 + BLOCK * (EXTRA_BASE + e.number) + k for e in cp.extras for k in range(3)),
    ]
    everyone = list(range(len(cp.variants)))
    made = tuple(Call(None if vs == everyone else tuple(vs), *key) for key, vs in calls.items())
    return Plan(
        rng.steps_np(counters),
        made,
        tuple(widths),
        np.array([v.index for v in cp.variants], dtype=np.int64),
        draws,
        tuple(tuple(sorted((c for c in made if c.variants is None or n in c.variants),
                           key=lambda c: c.out)) for n in everyone),
    )  # fmt: skip


#: Entries of a product's ``Fused`` table at most (8 MiB).
FUSED_MAX = 1 << 20

#: A sheet drawn without repeats, as ``_redraw_row`` takes it: (first column, count, first
#: draw, colour seeds, weights, cumulative weights).
Repeats = tuple[int, int, int, int, Floats, Floats]


@dataclass(frozen=True, slots=True)
class Fused:
    """A product's every pack column drawn at once (``_draw_fused``). Per variant and column
    (up to the longest pack): the column of its uniform (``ucols``), its weights' total,
    its scale and where its table starts in ``table`` (bucket ``floor(u * total * scale)``
    -> card of the sheet; scales are powers of two, so a bucket is exactly the range of
    ``u * total`` it stands for), where its sheet starts in ``protos``, and its tag (its
    call's for a sheet drawn without repeats, else its own: equal tagged cards in a pack
    are a repeat). Whole-number weights up to ``LOOKUP_MAX`` have a bucket a number, every
    one sure; other weights a bucket per ``1 / scale``, and a bucket that holds a card's
    end (``unsure``) is searched in plain Python in the column's weights (``cums``). A fixed
    card, an extra slot (drawn after, ``extras``) and a column past a variant's pack read
    the table of one entry (total 1)."""

    ucols: np.ndarray
    shared: np.ndarray | None  # ``ucols`` of every variant, when they are the same
    view: bool  # ``shared`` is the first columns in order
    totals: np.ndarray
    starts: np.ndarray
    table: np.ndarray
    pstarts: np.ndarray
    protos: np.ndarray
    tags: np.ndarray
    repeats: tuple[tuple[Repeats, ...], ...]  # per variant
    extras: tuple[Call, ...]
    scales: np.ndarray | None  # per variant and column: what ``u * total`` is scaled by
    unsure: np.ndarray  # per entry of ``table``: its bucket holds a card's end (searched)
    cums: tuple[tuple[tuple[Floats, Ints | None] | None, ...], ...]


class _FusedTables:
    """What ``Fused`` is built from, a call at a time."""

    def __init__(self, arr: Arrays, nv: int, width: int) -> None:
        from boosterkit.generator._np import np

        self.arr, self.nv, self.np = arr, nv, np
        shape = (nv, width)
        self.ucols = np.full(shape, -1, dtype=np.int64)
        self.starts, self.pstarts = np.zeros(shape, dtype=np.int64), np.zeros(shape, np.int64)
        self.totals, self.scales = np.ones(shape), np.ones(shape)
        unique = (len(arr.plan.calls) + 1 + np.arange(width, dtype=np.int64)) << 32
        self.tags = np.broadcast_to(unique, shape).copy()
        self.tables: list[Any] = [np.zeros(1, dtype=np.int64)]  # 0: the table of one entry
        self.protos: list[Any] = [np.full(1, -1, dtype=np.int64)]  # 0: no card
        self.at: dict[tuple[int, ...], int] = {}
        self.scale_of: dict[tuple[int, ...], float] = {}
        self.size, self.psize = 1, 1
        self.repeats: list[list[Repeats]] = [[] for _ in range(nv)]
        self.sure: list[Any] = [np.ones(1, dtype=bool)]
        #: per variant and column, the weights a bucket that holds a card's end searches
        self.cums: list[list[tuple[Floats, Ints | None] | None]] = [
            [None] * width for _ in range(nv)
        ]

    def _put(
        self, call: Call, j: int, ucol: int, start: int, total: float, pstart: int,
        scale: float = 1.0,
    ) -> None:  # fmt: skip
        rows = list(call.variants or range(self.nv))
        c = call.out + j
        self.ucols[rows, c], self.starts[rows, c] = ucol, start
        self.totals[rows, c], self.pstarts[rows, c] = total, pstart
        self.scales[rows, c] = scale

    def _table(self, cum: Any, local: Any) -> tuple[int, float]:
        """Where the table of ``cum`` (its cards through ``local``) starts, and its scale."""
        key = (id(cum), id(local))
        if key not in self.at:
            found = self.arr.lookups.get(id(cum))
            if found is not None and found.sure is None:  # whole numbers: every bucket sure
                table, sure, scale = found.table, None, 1.0
            else:
                table, sure, scale = _buckets(cum)
            self.at[key] = self.size
            self.scale_of[key] = scale
            self.tables.append(table if local is None else local[table])
            self.sure.append(self.np.ones(len(table), dtype=bool) if sure is None else sure)
            self.size += len(table)
        return self.at[key], self.scale_of[key]

    def fixed(self, call: Call) -> None:
        self.protos.append(self.np.array(self.arr.sheets[call.number].fixed_protos))
        for j in range(call.count):
            self._put(call, j, -1, 0, 1.0, self.psize + j)
        self.psize += call.count

    def sheet(self, ci: int, call: Call) -> None:
        sa = self.arr.sheets[call.number]
        if (id(sa),) not in self.at:
            self.at[id(sa),] = self.psize
            self.protos.append(sa.protos)
            self.psize += len(sa.protos)
        pstart = self.at[id(sa),]
        seeds = len(sa.balance) if sa.balance and call.count >= len(sa.balance) else 0
        rest = sa.corrected[call.count][1] if seeds else sa.cum
        table = sa.table  # the same weights in plain Python: what a search and a redraw read
        py = table.after_seeds(call.count) if seeds else (table.weights, table.cum)
        for j in range(call.count):
            cum, local = sa.balance[j] if j < seeds else (rest, None)
            start, scale = self._table(cum, local)
            self._put(call, j, call.u + j, start, float(cum[-1]), pstart, scale)
            weights: tuple[Floats, Ints | None] = table.balance[j] if j < seeds else (py[1], None)
            for v in call.variants or range(self.nv):
                self.cums[v][call.out + j] = weights
        if not sa.allow_duplicates and call.count > 1:
            for v in call.variants or range(self.nv):
                self.repeats[v].append((call.out, call.count, call.first_draw, seeds, *py))
            rows = list(call.variants or range(self.nv))
            self.tags[rows, call.out : call.out + call.count] = (ci + 1) << 32

    def done(self) -> Fused:
        np, ucols, size = self.np, self.ucols, len(self.arr.plan.steps)
        for c in range(ucols.shape[1]):  # a column drawing nothing takes the uniform of one
            real = ucols[:, c][ucols[:, c] >= 0]  # that does, else its own column's
            ucols[ucols[:, c] < 0, c] = real[0] if len(real) else c if c < size else 0
        shared = ucols[0] if (ucols == ucols[:1]).all() else None
        view = shared is not None and shared.tolist() == list(range(len(shared)))
        return Fused(
            ucols, shared, view, self.totals,
            self.starts, np.concatenate(self.tables).astype(np.int64), self.pstarts,
            np.concatenate(self.protos), self.tags, tuple(tuple(r) for r in self.repeats),
            tuple(c for c in self.arr.plan.calls if c.kind == "extra"),
            None if (self.scales == 1).all() else self.scales, ~np.concatenate(self.sure),
            tuple(tuple(c) for c in self.cums),
        )  # fmt: skip


def _buckets(cum: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``cum``'s cards by bucket of ``x * scale`` (``x`` = ``u * total``; ``scale`` a power
    of two putting at most ``LOOKUP_MAX`` buckets under the total), and which buckets are
    sure: no card's range ends strictly inside (its card is ``_pick_np``'s for every ``x``
    of the bucket); the others are searched."""
    from boosterkit.generator._np import np

    total, scale = float(cum[-1]), 1.0
    while total * scale * 2 <= LOOKUP_MAX and scale < 2.0**64:  # (a positive total: cum's)
        scale *= 2
    while total * scale > LOOKUP_MAX:
        scale /= 2
    buckets = np.arange(int(total * scale) + 1, dtype=np.float64)
    lows, highs = buckets / scale, (buckets + 1) / scale
    table = np.minimum(cum.searchsorted(lows, "right"), len(cum) - 1)
    inside = cum.searchsorted(highs, "left") - cum.searchsorted(lows, "right")
    return table, inside == 0, scale


def _fused(cp: CompiledProduct, arr: Arrays) -> Fused | None:
    """``cp``'s ``Fused`` tables (None past ``FUSED_MAX`` entries)."""
    plan = arr.plan
    made = _FusedTables(arr, len(cp.variants), max(plan.widths, default=0))
    for ci, call in enumerate(plan.calls):
        if call.kind == "sheet":
            made.sheet(ci, call)
        elif call.kind == "fixed":
            made.fixed(call)
        if made.size > FUSED_MAX:
            return None
    return made.done()


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
    extras = tuple(_extra_arrays(e) for e in cp.extras)
    arr = Arrays(f(cp.variant_cum), sheets, extras, _plan(cp))
    cums = [arr.variant_cum, *(e.cum for e in extras)]
    for sa in sheets:
        cums += [sa.cum, *(c for c, _ in sa.balance), *(c for _, c in sa.corrected.values())]
    for cum in cums:
        if (table := _lookup(cum)) is not None:
            arr.lookups[id(cum)] = table
    sheets = tuple(replace(sa, seeds=_seed_tables(sa.balance, arr.lookups)) for sa in sheets)
    arr = replace(arr, sheets=sheets)
    return replace(arr, fused=_fused(cp, arr))


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
