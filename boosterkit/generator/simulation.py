"""Simulated odds (``odds --simulate N``): open N packs and count, per card key and per group,
how many copies there were, over units of packs (a pack, or a box).

Counted with numpy from the drawn prototype ids (``engine_np.draw_rows``), never building a
pack: per batch of whole units, each (unit, id) pair's copies come from sorting each unit's
row of ids (its runs), and per id the sums of copies, of squared copies and of units holding
one are ``np.bincount``s. Parts of the run are counted apart, in worker processes or not
(``jobs.map_parts``), and summed: the figures are the same for any number of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from boosterkit.errors import InputError
from boosterkit.generator._np import np
from boosterkit.generator.engine_np import draw_rows
from boosterkit.generator.rng import check_seed
from boosterkit.jobs import PARTS_PER_WORKER, map_parts, split, workers_for

if TYPE_CHECKING:
    from collections.abc import Iterator

    from boosterkit.generator.engine import CompiledProduct

__all__ = ["SIMULATE_LEAST", "Counts", "Simulated", "simulate"]

#: Simulated packs that repay a worker process's start (``simulate``'s ``jobs``): fewer stay
#: in this process (a spawned worker starts in about 0.5 s; 150,000 packs take about 0.5 s).
SIMULATE_LEAST = 150_000
#: Packs counted at a time (rounded down to whole units).
BATCH = 20_000


@dataclass(frozen=True)
class Counts:
    """Per id (a card key's or a group's index): ``copies`` in all, ``copies_sq`` the sum
    over units of the squared copies in each, and ``units`` the units holding one or more
    (int64 arrays, one entry an id)."""

    copies: Any
    copies_sq: Any
    units: Any

    @classmethod
    def zero(cls, ids: int) -> Counts:
        return cls(*(np.zeros(ids, dtype=np.int64) for _ in range(3)))

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.copies + other.copies, self.copies_sq + other.copies_sq,
                      self.units + other.units)  # fmt: skip

    def first(self, ids: int) -> Counts:
        """The counts of ids below ``ids``."""
        return Counts(self.copies[:ids], self.copies_sq[:ids], self.units[:ids])

    def rows(self) -> Iterator[tuple[int, int, int, int]]:
        """(id, copies, copies_sq, units) of each id seen at least once, by id."""
        for i in np.flatnonzero(self.units).tolist():
            yield i, int(self.copies[i]), int(self.copies_sq[i]), int(self.units[i])


@dataclass(frozen=True)
class Simulated:
    """``simulate``'s counts: per card key (``keys``, in the order of the product's
    prototypes) and per group (``groups_index``), over ``units`` whole units."""

    cards: Counts
    groups: Counts
    units: int
    keys: list[tuple[Any, ...]]
    groups_index: list[tuple[Any, ...]]


def simulate(
    cp: CompiledProduct,
    packs: int,
    seed: int,
    unit: int = 1,
    *,
    jobs: int = 1,
    least: int | None = None,
) -> Simulated:
    """Open packs 1..``packs`` of ``seed`` and count per card key and per group over units
    of ``unit`` consecutive packs (1 = per pack, a box size = per box); a last part unit is
    left out. ``jobs``: processes (0: one per core), each counting whole units of a part of
    the packs; a worker only for each ``least`` packs (default ``SIMULATE_LEAST``)."""

    seed = check_seed(seed)
    units = packs // unit
    if units < 1:
        raise InputError(
            f"simulate: {packs} packs make no whole box of {unit} packs", field="simulate"
        )
    workers = workers_for(jobs, units * unit, SIMULATE_LEAST if least is None else least)
    parts = split(units * unit, workers * PARTS_PER_WORKER if workers > 1 else 1, unit)
    counted = map_parts(_count_part, (cp, seed, unit), parts, workers)
    keys, groups, _, _ = _ids(cp)
    cards, grouped = Counts.zero(len(keys)), Counts.zero(len(groups))
    for c, g in counted:
        cards, grouped = cards + c, grouped + g
    return Simulated(cards, grouped, units, list(keys), list(groups))


def _ids(
    cp: CompiledProduct,
) -> tuple[dict[tuple[Any, ...], int], dict[tuple[Any, ...], int], Any, Any]:
    """Each card key's and each group's index, in the order of the prototypes, and per
    prototype the index of its key and of its group (int64 arrays)."""
    from boosterkit.generator.odds import proto_group, proto_key  # odds imports this module

    keys: dict[tuple[Any, ...], int] = {}
    groups: dict[tuple[Any, ...], int] = {}
    key_of, group_of = [], []
    for p in cp.protos:
        key_of.append(keys.setdefault(proto_key(p), len(keys)))
        group_of.append(groups.setdefault(proto_group(p), len(groups)))
    return keys, groups, np.array(key_of, dtype=np.int64), np.array(group_of, dtype=np.int64)


def _count_part(context: tuple[CompiledProduct, int, int], packs: range) -> tuple[Counts, Counts]:
    """``simulate``'s counts over ``packs`` (whole units): per card key, then per group."""

    cp, seed, unit = context
    keys, groups, key_of, group_of = _ids(cp)
    # a pack shorter than the batch's rows ends in -1: the last id, counted apart and dropped
    key_of, group_of = np.append(key_of, len(keys)), np.append(group_of, len(groups))
    cards, grouped = Counts.zero(len(keys) + 1), Counts.zero(len(groups) + 1)
    step = max(1, BATCH // unit) * unit
    for start in range(packs.start, packs.stop, step):
        _, rows = draw_rows(cp, seed, start, min(step, packs.stop - start))
        units = rows.reshape(-1, unit * rows.shape[1])  # a row of prototype ids a unit
        cards += _counted_rows(key_of[units], len(keys) + 1)
        grouped += _counted_rows(group_of[units], len(groups) + 1)
    return cards.first(len(keys)), grouped.first(len(groups))


def _counted_rows(ids: Any, n: int) -> Counts:
    """``_counted`` of ``n`` ids given a row a unit: each row sorted, its runs of one id
    are that id's copies in the unit (no sort of the whole batch)."""
    ordered = np.sort(ids, axis=1)
    first = np.ones(ordered.shape, dtype=bool)  # where a run of one id starts
    first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    starts = np.flatnonzero(first)
    copies = np.diff(starts, append=ordered.size)  # runs never cross rows: each starts one
    which = ordered.ravel()[starts]
    return Counts(
        np.bincount(which, weights=copies, minlength=n).astype(np.int64),
        np.bincount(which, weights=copies * copies, minlength=n).astype(np.int64),
        np.bincount(which, minlength=n).astype(np.int64),
    )
