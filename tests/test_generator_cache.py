"""``ProductCache``: the same packs as without it, one resolve per product, thread-safe."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from boosterkit.errors import NotFoundError
from boosterkit.generator import open_packs
from boosterkit.generator.cache import ProductCache
from boosterkit.pipeline import db as pdb


@pytest.fixture(scope="module")
def con(real_db: Path):
    c = pdb.connect(real_db, read_only=True)
    yield c
    c.close()


def test_cached_packs_equal_uncached_ones(con) -> None:
    cache = ProductCache()
    for seed in (1, 2):
        for product in ("draft", "set", "AFR-SET"):
            got = open_packs("AFR", product, 5, seed, db=con, products=cache)
            assert [p.to_dict() for p in got] == [
                p.to_dict() for p in open_packs("afr", product, 5, seed, db=con)
            ]
    assert (cache.misses, cache.hits) == (3, 3)  # the set code is case-insensitive


def test_concurrent_misses_resolve_once(real_db: Path) -> None:
    cache = ProductCache()

    def work(seed: int) -> dict:
        c = pdb.connect(real_db, read_only=True)
        try:
            return open_packs("afr", "set", 1, seed, db=c, products=cache)[0].to_dict()
        finally:
            c.close()

    with ThreadPoolExecutor(8) as pool:
        packs = list(pool.map(work, range(16)))
    assert cache.misses == 1 and cache.hits == 15
    assert packs[3] == open_packs("afr", "set", 4, 3, db=real_db)[0].to_dict()


def test_clear_and_errors_are_not_cached(con) -> None:
    cache = ProductCache(maxsize=2)
    for _ in range(2):
        with pytest.raises(NotFoundError, match="zzz"):
            open_packs("zzz", None, 1, 1, db=con, products=cache)
    assert cache.misses == 0 and len(cache) == 0
    for product in ("draft", "set", "collector"):
        open_packs("afr", product, 1, 1, db=con, products=cache)
    assert len(cache) == 2  # least recently used out
    cache.clear()
    assert len(cache) == 0
    open_packs("afr", "draft", 1, 1, db=con, products=cache)
    assert cache.misses == 4
