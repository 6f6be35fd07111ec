"""The numpy batch draw of ``generator.engine``: the same packs as ``engine.draw_pack``, many
at once (``draw_rows``). Up to ``FUSED_PACKS`` packs every column of every variant is picked
in one table read (``arrays.Fused``: a batch of 36 packs pays numpy's fixed cost a call more
than its work); past it a ``Call`` at a time. Both ways pick with ``draw_pack``'s float
arithmetic (``bisect_right`` is ``searchsorted(side="right")``, a running sum is
``cumsum``): a change to the draw is made here and in ``engine`` alike
(``tests/test_engine_paths.py`` draws every product of the test world every way).

numpy is imported with this module, which ``engine`` loads for its first batch: a few packs
never import it.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from boosterkit.errors import InputError
from boosterkit.generator import rng
from boosterkit.generator._np import np
from boosterkit.generator.arrays import (
    LOOKUP_RANGED,
    Arrays,
    Call,
    Fused,
    Lookup,
    SheetArrays,
    arrays,
)
from boosterkit.generator.compiled import BLOCK, CompiledProduct, Floats
from boosterkit.generator.engine import FEW_PACKS, REDRAWS, _redraw

#: Packs a batch holds at most to be drawn by ``Fused`` tables (numpy's fixed cost a call
#: is what a small batch pays; a larger one is drawn a ``Call`` at a time).
FUSED_PACKS = 256


def _draw_fused(
    fz: Fused, arr: Arrays, keys: np.ndarray, u: np.ndarray, chosen: np.ndarray
) -> np.ndarray:
    """``draw_rows``' rows by ``fz``: every first pick at once, the packs that repeat a
    card redrawn in plain Python (``_redraw_row``), then the extra slots."""
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
