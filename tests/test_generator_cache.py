"""Compiled products in the database's cache (``generator.cache``, ``boosterkit.cache``): the
same packs as without it, one compile per product and database content, kept beside the
database as JSON, rebuilt when the data changes."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from boosterkit.cache import Cache, CacheFiles
from boosterkit.database import Database
from boosterkit.errors import NotFoundError
from boosterkit.generator import open_packs
from boosterkit.generator.engine import CompiledProduct
from boosterkit.pipeline import db as pdb


def _in(db, cache: Cache | None) -> Database:
    """``db`` as a handle keeping what it derives in ``cache`` (None: the process's)."""
    return Database.of(db, cache=cache)


def _built(cache: Cache) -> int:
    """Products compiled or loaded from the files beside the database (not memory hits)."""
    return cache.misses + cache.loads


def test_cached_packs_equal_uncached_ones(con) -> None:
    cache = Cache()
    for seed in (1, 2):
        for product in ("draft", "set", "AFR-SET"):
            got = open_packs("AFR", product, 5, seed, db=_in(con, cache))
            assert [p.to_dict() for p in got] == [
                p.to_dict() for p in open_packs("afr", product, 5, seed, db=con)
            ]
    # case-insensitive set code; "set" is kept under its code afr-set too
    assert (_built(cache), cache.hits) == (2, 4)


def test_concurrent_misses_resolve_once(built_db: Path) -> None:
    cache = Cache()

    def work(seed: int) -> dict:
        c = pdb.connect(built_db, read_only=True)
        try:
            return open_packs("afr", "set", 1, seed, db=_in(c, cache))[0].to_dict()
        finally:
            c.close()

    with ThreadPoolExecutor(8) as pool:
        packs = list(pool.map(work, range(16)))
    assert _built(cache) == 1 and cache.hits == 15
    assert packs[3] == open_packs("afr", "set", 4, 3, db=built_db)[0].to_dict()


def test_clear_and_errors_are_not_cached(con) -> None:
    cache = Cache(maxsize=2)
    for _ in range(2):
        with pytest.raises(NotFoundError, match="zzz"):
            open_packs("zzz", None, 1, 1, db=_in(con, cache))
    assert _built(cache) == 0 and len(cache) == 0
    for product in ("draft", "set", "collector"):
        open_packs("afr", product, 1, 1, db=_in(con, cache))
    assert len(cache) == 2  # least recently used out
    cache.clear()
    assert len(cache) == 0
    open_packs("afr", "draft", 1, 1, db=_in(con, cache))
    assert _built(cache) == 4


def test_kept_beside_the_database_and_loaded_by_the_next_process(own_db: Path) -> None:
    first = open_packs("afr", "set", 3, 5, db=_in(own_db, Cache()))
    many = open_packs("afr", "set", 100, 5, db=_in(own_db, Cache()))  # numpy batch
    assert [p.to_json_line() for p in many[:3]] == [p.to_json_line() for p in first]
    kept = list((own_db.parent / "own.cache" / "values").glob("product.afr.set.*"))
    assert len(kept) == 1 and kept[0].suffix == ".json"  # one form, for one pack or many
    assert kept[0].read_bytes().startswith(b"BKC1 ")
    later = Cache()  # a new process: nothing in memory
    again = open_packs("afr", "set", 3, 5, db=_in(own_db, later))
    assert (later.loads, later.misses) == (1, 0)
    assert [p.to_json_line() for p in again] == [p.to_json_line() for p in first]


def test_a_changed_card_is_in_the_next_pack(own_db: Path) -> None:
    cache = Cache()
    pack = open_packs("afr", "draft", 1, 9, db=_in(own_db, cache))[0]
    card = next(i for i in pack.items if i.card_id and i.slot != "basic")
    con = pdb.connect(own_db)
    con.execute("UPDATE cards SET name = 'Renamed Card' WHERE id = ?", [card.card_id])
    con.close()
    again = open_packs("afr", "draft", 1, 9, db=_in(own_db, cache))[0]
    changed = [i for i in again.items if i.card_id == card.card_id]
    assert changed and all(i.name == "Renamed Card" for i in changed)
    assert cache.misses == 2  # compiled again from the changed data, not loaded
    assert len(list((own_db.parent / "own.cache" / "values").glob("product.afr.draft.*"))) == 1


def test_the_process_cache_follows_the_file_through_an_open_connection(own_db: Path) -> None:
    con = pdb.connect(own_db, read_only=True)
    before = open_packs("afr", "draft", 2, 3, db=con)
    con.close()
    rw = pdb.connect(own_db)
    rw.execute("UPDATE cards SET name = name || ' (x)' WHERE set_code = 'afr'")
    rw.close()
    con = pdb.connect(own_db, read_only=True)
    after = open_packs("afr", "draft", 2, 3, db=con)
    con.close()
    names = [
        (a.name, b.name)
        for a, b in zip(before[0].items, after[0].items)
        if a.card_id and a.set == "afr"
    ]
    assert names and all(b == f"{a} (x)" for a, b in names)


def test_unreadable_store_file_is_a_miss(own_db: Path) -> None:
    open_packs("afr", "draft", 1, 1, db=_in(own_db, Cache()))
    (kept,) = (own_db.parent / "own.cache" / "values").glob("product.afr.draft.*.json")
    kept.write_bytes(b"not a cache file")
    cache = Cache()
    open_packs("afr", "draft", 1, 1, db=_in(own_db, cache))
    assert (cache.loads, cache.misses) == (0, 1)
    key = kept.name.split(".")[3]
    found = CacheFiles(kept.parent).load("product", ("afr", "draft"), key, CompiledProduct)
    assert isinstance(found, CompiledProduct)  # made again


def _dealt_creature(setup) -> str:
    """The card id of a dealt creature whose sheet line prints its toughness."""
    return next(
        c.card_id
        for z in setup.zones
        if z.kind not in ("removed", "set_aside")
        for c in z.cards
        if c.card_id
        and "Creature" in (c.type_line or "")
        and (setup.facts.get(c.card_id) or {}).get("toughness")
    )


@pytest.mark.parametrize("shared", [False, True], ids=["process", "service"])
def test_a_changed_toughness_is_on_the_next_sheet(own_db: Path, shared: bool) -> None:
    """Card facts and rules texts are kept with the product and follow the data exactly."""
    from boosterkit.minigames import SetupError, deal, render_sheet

    cache = Cache() if shared else None  # None: the process's own
    for seed in range(1, 40):
        try:
            setup = deal(_in(own_db, cache), "base-race", 2, "afr", seed=seed)
            break
        except SetupError:  # a List card the shared data lacks: refused by design
            continue
    card = _dealt_creature(setup)
    assert deal(_in(own_db, cache), "base-race", 2, "afr", seed=seed).facts == setup.facts
    kept = own_db.parent / "own.cache" / "values"
    assert len(list(kept.glob("cards.afr.afr-set.*.json"))) == 1
    rw = pdb.connect(own_db)
    rw.execute("UPDATE cards SET toughness = '77' WHERE id = ?", [card])
    rw.execute(
        "UPDATE cards SET oracle_text = 'Roll a d20. Changed rules.' WHERE kind = "
        "'minigame' AND name LIKE 'Roll for Initiative%'"
    )
    rw.execute(
        "DELETE FROM card_faces WHERE card_id IN (SELECT id FROM cards WHERE kind = "
        "'minigame' AND name LIKE 'Roll for Initiative%')"
    )
    rw.close()
    again = deal(_in(own_db, cache), "base-race", 2, "afr", seed=seed)
    assert again.facts[card]["toughness"] == "77"
    assert "toughness 77" in render_sheet(again, "text")
    assert {i: f for i, f in again.facts.items() if i != card} == {
        i: f for i, f in setup.facts.items() if i != card
    }
    rfi = deal(_in(own_db, cache), "roll-for-initiative", 4, "afr", seed=seed)
    assert rfi.rules_text["text"] == "Roll a d20. Changed rules."
    assert len(list(kept.glob("cards.afr.afr-set.*.json"))) == 1  # the stale one is dropped


def test_kept_values_in_memory_follow_clear_and_unreadable_files_are_a_miss(own_db: Path) -> None:
    calls: list[int] = []

    def count(con) -> int:
        calls.append(1)
        return con.execute("SELECT count(*) FROM cards WHERE set_code = 'afr'").fetchone()[0]

    def kept(cache: Cache) -> int:
        return _in(own_db, cache).cached().value("afr-count", int, count)

    cache = Cache()
    n = kept(cache)
    assert kept(cache) == n and len(calls) == 1  # memory
    cache.clear()
    assert kept(Cache()) == n and len(calls) == 1  # the file
    (file,) = (own_db.parent / "own.cache" / "values").glob("afr-count.*.json")
    file.write_bytes(file.read_bytes()[:-1])  # cut short
    assert kept(Cache()) == n and len(calls) == 2
    key = file.name.split(".")[1]
    assert CacheFiles(file.parent).load("afr-count", (), key, int) == n
