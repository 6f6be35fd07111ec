"""``odds --simulate``'s counting (``generator/simulation.py``) against a count made the plain
way: open the packs, and per unit tally each card key's and group's copies."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from test_engine import card, extras_product, product, sheet

from boosterkit.errors import InputError
from boosterkit.generator import engine, simulation
from boosterkit.generator.odds import proto_group, proto_key


def _plain(cp: Any, packs: int, seed: int, unit: int, of: Any) -> dict[Any, tuple[int, int, int]]:
    """Per id ``of(proto)``: copies, the sum over units of squared copies, units holding one."""
    _, rows = engine.draw_batch(cp, seed, 1, packs // unit * unit)
    per_unit: Counter[tuple[int, Any]] = Counter()
    for n, row in enumerate(rows):
        for p in row:
            per_unit[n // unit, of(cp.protos[p])] += 1
    out: dict[Any, list[int]] = {}
    for (_, ident), copies in per_unit.items():
        c = out.setdefault(ident, [0, 0, 0])
        c[0], c[1], c[2] = c[0] + copies, c[1] + copies * copies, c[2] + 1
    return {k: (c, s, u) for k, (c, s, u) in out.items()}


def _same_length() -> Any:
    """Two variants of 6 cards each."""
    commons = sheet("common", [card(i, "WUBRG"[i % 5]) for i in range(12)])
    rares = sheet("rare", [card(100 + i, rarity="rare") for i in range(3)])
    return product([(1, [("common", 5), ("rare", 1)]), (2, [("common", 6)])], [commons, rares])


@pytest.mark.parametrize("unit, same", [(1, False), (7, False), (1, True), (7, True)])
def test_simulated_counts_are_the_plain_counts(unit: int, same: bool, monkeypatch) -> None:
    monkeypatch.setattr(simulation, "BATCH", 50)  # several batches, not a multiple of 7
    # two variants of different lengths (the shorter rows end in -1s), or of one
    cp = engine.compile_product(_same_length() if same else extras_product())
    sim = simulation.simulate(cp, 403, 5, unit)
    assert sim.units == 403 // unit
    cards = {sim.keys[k]: (c, s, u) for k, c, s, u in sim.cards.rows()}
    groups = {sim.groups_index[g]: (c, s, u) for g, c, s, u in sim.groups.rows()}
    assert cards == _plain(cp, 403, 5, unit, proto_key)
    assert groups == _plain(cp, 403, 5, unit, proto_group)
    # the per-unit squares count: a unit of 7 packs holds a common more than once
    assert unit == 1 or any(s > c for c, s, _ in cards.values())


def test_a_run_of_no_whole_unit_is_an_input_error() -> None:
    cp = engine.compile_product(extras_product())
    with pytest.raises(InputError, match="make no whole box of 7 packs"):
        simulation.simulate(cp, 6, 1, 7)


@pytest.mark.parametrize("width, unit", [(1, 1), (14, 1), (15, 3), (6, 24)])
def test_copies_from_sorted_rows_are_the_batch_sort(width: int, unit: int) -> None:
    """``_counted_rows`` (each unit's row of ids sorted; issue 36) counts as a tally of each
    unit does: copies, squared copies, units holding one."""
    import numpy as np

    rnd = np.random.default_rng(width * 100 + unit)
    n = 40  # few ids: many repeats within a unit
    rows = rnd.integers(0, n, (60, unit * width))
    want = [[0, 0, 0] for _ in range(n)]
    for row in rows.tolist():
        for ident, copies in Counter(row).items():
            want[ident] = [want[ident][0] + copies, want[ident][1] + copies**2, want[ident][2] + 1]
    got = simulation._counted_rows(rows, n)
    assert [list(x) for x in zip(got.copies.tolist(), got.copies_sq.tolist(),
                                 got.units.tolist())] == want  # fmt: skip
