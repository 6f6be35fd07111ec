"""The one draw, two ways (issue 35): every product of the test world drawn per pack in plain
Python (``engine.draw_pack``, what a few packs use) and in numpy batches (``engine_np.draw_arrays``,
what many packs use), for many seeds, gives the same packs; and a compiled product read back
from its cache file (JSON, ``boosterkit.cache``) is the product compiled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boosterkit import typedjson
from boosterkit.generator import arrays as tables
from boosterkit.generator import engine, engine_np
from boosterkit.generator.cache import load_product
from boosterkit.pipeline import db as pdb

#: Seeds: small, large, the extremes of the range; 8 more from a fixed stride.
SEEDS = (0, 1, 2, 7, 2**32 + 5, 2**63, 2**64 - 1, *(977 * k + 13 for k in range(8)))
PACKS = 40


@pytest.fixture(scope="module")
def products(built_db: Path, built_products: list[tuple[str, str]]) -> list[engine.CompiledProduct]:
    con = pdb.connect(built_db, read_only=True)
    try:
        return [engine.compile_product(load_product(s, code, con)) for s, code in built_products]
    finally:
        con.close()


def test_the_world_has_products_of_every_shape(products: list[engine.CompiledProduct]) -> None:
    assert len(products) >= 20
    assert any(s.balance for cp in products for s in cp.sheets)  # colour-balanced sheets
    assert any(len(cp.variants) > 1 for cp in products) and any(cp.extras for cp in products)


def test_every_product_draws_the_same_packs_both_ways(
    products: list[engine.CompiledProduct],
) -> None:
    for cp in products:
        for seed in SEEDS:
            batch = engine_np.draw_arrays(cp, seed, 1, PACKS)
            numpy = {int(at) + 1: (v, row) for v, where, mat in batch
                     for at, row in zip(where.tolist(), mat.tolist())}  # fmt: skip
            for index in range(1, PACKS + 1):
                assert engine.draw_pack(cp, seed, index) == numpy[index], (cp.product.code, seed)


def test_a_large_batch_draws_the_same_packs_as_one_by_one(
    products: list[engine.CompiledProduct],
) -> None:
    """A batch past ``FEW_PACKS`` packs whose picks repeat a card redraws them column by
    column in numpy (a small one, row by row in Python): the same packs either way."""
    for cp in products:
        for seed in (3, 2**64 - 1):
            count = 12 * engine.FEW_PACKS
            for v, where, mat in engine_np.draw_arrays(cp, seed, 5, count):
                for at, row in zip(where.tolist(), mat.tolist()):
                    assert engine.draw_pack(cp, seed, at + 5) == (v, row), cp.product.code


def test_a_product_read_back_from_json_is_the_product(
    products: list[engine.CompiledProduct],
) -> None:
    for cp in products:
        text = json.dumps(typedjson.encode(cp, engine.CompiledProduct))
        back = typedjson.decode(json.loads(text), engine.CompiledProduct)
        assert back == cp and back.items == cp.items
        assert all(type(i) is type(cp.items[0]) for i in back.items)
        assert engine.open_compiled(back, 3, 1, 50)[-1].to_json_line() == (
            engine.open_compiled(cp, 3, 1, 50)[-1].to_json_line()
        )


def test_a_lookup_table_picks_as_the_binary_search() -> None:
    """``tables._lookup`` (whole-number weights) picks, for any uniform, the card
    ``searchsorted`` picks: near the ends of cards' ranges and of [0, 1) too, for small
    totals (a table of every whole number) and large ones (of ranges: the few that hold a
    card's end are searched), in batches of many picks and of few."""
    import numpy as np

    rnd = np.random.default_rng(36)
    for cards, most in ((1, 40), (2, 40), (5, 40), (118, 40), (358, 40), (300, 30_000),
                        (118, 2**36), (5, 2**40)):  # fmt: skip
        cum = np.cumsum(rnd.integers(1, most, cards).astype(np.float64))
        found = tables._lookup(cum)
        assert found is not None and (found.sure is None) == (cum[-1] <= tables.LOOKUP_MAX)
        edges = np.concatenate([cum / cum[-1], np.nextafter(cum / cum[-1], 0)])
        u = np.concatenate([rnd.random(20_000), edges[edges < 1], [0.0, 1 - 2**-53]])
        for batch in (u, u[:40], u.reshape(-1, 2) if len(u) % 2 == 0 else u[1:].reshape(-1, 2)):
            searched = engine_np._pick_np(cum, batch, {})
            assert (engine_np._pick_np(cum, batch, {id(cum): found}) == searched).all()
    assert tables._lookup(np.array([0.5, 1.5])) is None  # not whole numbers: searched


def test_a_small_batch_is_drawn_at_once_as_a_large_one_is_a_call_at_a_time(
    products: list[engine.CompiledProduct], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Up to ``FUSED_PACKS`` packs, every column of every variant is picked in one table
    read (``Fused``); past it, a ``Call`` at a time: the same rows either way, for products
    whose columns read a table of whole numbers or of buckets (a bucket holding a card's end
    searched), read a uniform in place or through a gather, and repeat a card (redrawn)."""
    fused = [tables.arrays(cp).fused for cp in products]
    assert all(f is not None for f in fused)
    assert any(f.unsure.any() for f in fused) and any(f.view for f in fused)
    assert any(any(f.repeats) for f in fused) and any(f.extras for f in fused)
    at_once = {}
    for cp in products:
        for seed in SEEDS[:6]:
            at_once[cp.product.code, seed] = engine_np.draw_rows(cp, seed, 3, PACKS)
    monkeypatch.setattr(engine_np, "FUSED_PACKS", 0)
    for cp in products:
        for seed in SEEDS[:6]:
            chosen, rows = engine_np.draw_rows(cp, seed, 3, PACKS)
            fused_chosen, fused_rows = at_once[cp.product.code, seed]
            assert (chosen == fused_chosen).all() and (rows == fused_rows).all(), cp.product.code
