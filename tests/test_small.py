"""The engine's two ways of drawing: per pack in plain Python (``engine.draw_pack``, a few
packs) and per batch in numpy (``engine_np.draw_arrays``) give the same packs,
draw for draw. ``test_engine_paths.py`` draws every product of the test world both ways."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_engine import balance_product, card, extras_product, product, sheet

from boosterkit.generator import engine
from boosterkit.generator.cache import load_product
from boosterkit.pipeline import db as pdb

SEEDS = (0, 1, 7, 2**64 - 1)


def same_packs(cp: engine.CompiledProduct, count: int, seeds=SEEDS) -> None:
    """Packs 1..count of each seed: per pack in plain Python, and in one numpy batch."""
    assert count > engine.FEW_PACKS  # ``open_compiled`` draws them in numpy
    for seed in seeds:
        want = engine.open_compiled(cp, seed, 1, count)
        got = [engine.draw_pack(cp, seed, i) for i in range(1, count + 1)]
        assert [v for v, _ in got] == [p.variant for p in want], seed
        assert [protos for _, protos in got] == [p._protos for p in want], seed
        few = engine.open_compiled(cp, seed, count - 2, 3)  # three packs: plain Python
        assert [p.to_json_line() for p in few] == [p.to_json_line() for p in want[-3:]]
        assert few[-1].items == want[-1].items


def test_extras_gold_stamps_and_unless_sheets() -> None:
    same_packs(engine.compile_product(extras_product()), 300)


@pytest.mark.parametrize("balanced", [True, False])
def test_colour_balance(balanced: bool) -> None:
    same_packs(engine.compile_product(balance_product(balanced)), 300)


def test_redraws_running_out_exact_draws_duplicates_and_fixed_sheets() -> None:
    heavy = [card(i) for i in range(4)]
    p = product(
        [(5, [("heavy", 4), ("dup", 3)]), (1, [("fixed", 2), ("heavy", 2)])],
        [sheet("heavy", heavy, [10**6, 1, 1, 1]),  # the 2nd..4th draws exhaust the redraws
         sheet("dup", heavy[:2], allow_duplicates=True),
         sheet("fixed", heavy[:2], [2, 1], fixed=True)],
    )  # fmt: skip
    same_packs(engine.compile_product(p), 400)


@pytest.mark.slow
@pytest.mark.parametrize("set_code", ["afr", "stx", "mh2"])
def test_every_real_product_of_a_set(real_db: Path, set_code: str) -> None:
    from boosterkit.generator.products import list_products

    con = pdb.connect(real_db, read_only=True)
    try:
        codes = [p["code"] for p in list_products(con, set_code)]
        assert len(codes) >= 2
        for code in codes:
            same_packs(engine.compile_product(load_product(set_code, code, con)), 40, (3, 2**63))
    finally:
        con.close()
