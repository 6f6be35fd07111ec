"""``db rebuild`` over every source: Scryfall files, MTGJSON and collation imports replay alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_path
from test_ingest import snapshot

from boosterkit.errors import BoosterkitError
from boosterkit.pipeline import db, rebuild, sync
from boosterkit.pipeline.collation import import_collation
from boosterkit.pipeline.mtgjson import import_mtgjson


def _all(con) -> dict[str, list]:
    out = snapshot(con)
    for table in rebuild.data_tables(con):
        if table not in out:
            out[table] = sorted(con.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
    return out


def test_rebuild_replays_every_source_identically(tmp_path: Path) -> None:
    con = db.connect(tmp_path / "t.duckdb")
    cache = tmp_path / "t.cache"
    sync.sync_file(con, shared_path("sets", "sets.json"), cache=cache)
    import_mtgjson(con, [shared_path("mtgjson", "MAFR.json")], cache=cache)
    sync.sync_file(con, shared_path("cards", "one.unique-cards.json"), cache=cache)
    import_collation(con, shared_path("boosters", "sealed_basic_data.json"), cache=cache)
    before = _all(con)
    assert before["products"] and before["sheet_cards"] and before["mtgjson_uuids"]
    # a schema change is simulated by clobbering derived values: rebuild restores them
    con.execute("UPDATE cards SET kind = 'other', magic_back = NULL")
    con.execute("DELETE FROM products")
    result = rebuild.rebuild(con, cache)
    assert result["runs"] == 4
    assert _all(con) == before
    kinds = dict(con.execute("SELECT kind, count(*) FROM cards GROUP BY kind").fetchall())
    assert kinds["minigame"] > 0 and kinds["card"] == 271


def test_rebuild_with_a_missing_cache_file_changes_nothing(tmp_path: Path) -> None:
    con = db.connect(tmp_path / "t.duckdb")
    cache = tmp_path / "t.cache"
    sync.sync_file(con, shared_path("cards", "bro.unique-cards.json"), cache=cache)
    sync.sync_file(con, shared_path("cards", "ltr.unique-cards.json"), cache=cache)
    before = _all(con)
    (victim,) = [p for p in cache.rglob("*.gz") if "ltr" in p.name]
    victim.unlink()
    with pytest.raises(BoosterkitError, match=r"sync run 2 \(file .*ltr.*\): cached file missing"):
        rebuild.rebuild(con, cache)
    assert _all(con) == before
