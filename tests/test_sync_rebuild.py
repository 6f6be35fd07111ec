"""``db rebuild`` over every source: Scryfall files, MTGJSON and collation imports replay alike
(the real files where ``../shared`` is, else the built ones: ``any_sources``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
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


def test_rebuild_replays_every_source_identically(any_sources, tmp_path: Path) -> None:
    src = any_sources
    one = src.scryfall / "cards" / "one.unique-cards.json"
    con = db.connect(tmp_path / "t.duckdb")
    cache = tmp_path / "t.cache"
    sync.sync_file(con, src.scryfall / "sets" / "sets.json", cache=cache)
    import_mtgjson(con, [src.mtgjson / "MAFR.json"], cache=cache)
    sync.sync_file(con, one, cache=cache)
    import_collation(con, src.sealed, cache=cache)
    before = _all(con)
    assert before["products"] and before["sheet_cards"] and before["mtgjson_uuids"]
    schema = "SELECT sql FROM duckdb_tables() UNION ALL SELECT sql FROM duckdb_indexes() ORDER BY 1"
    ddl = con.execute(schema).fetchall()
    # a schema change is simulated by clobbering derived values: rebuild restores them
    con.execute("UPDATE cards SET kind = 'other', magic_back = NULL")
    con.execute("DELETE FROM products")
    result = rebuild.rebuild(con, cache)
    assert result["runs"] == 4
    assert _all(con) == before
    assert con.execute(schema).fetchall() == ddl  # the emptied tables made again as they were
    kinds = dict(con.execute("SELECT kind, count(*) FROM cards GROUP BY kind").fetchall())
    assert kinds["minigame"] > 0 and kinds["card"] == len(json.loads(one.read_text()))


def test_rebuild_with_a_missing_cache_file_changes_nothing(any_sources, tmp_path: Path) -> None:
    con = db.connect(tmp_path / "t.duckdb")
    cache = tmp_path / "t.cache"
    for name in ("bro", "ltr"):
        sync.sync_file(
            con, any_sources.scryfall / "cards" / f"{name}.unique-cards.json", cache=cache
        )
    before = _all(con)
    (victim,) = [p for p in (cache / "files").iterdir() if "ltr" in p.name]
    victim.unlink()
    with pytest.raises(BoosterkitError, match=r"sync run 2 \(file .*ltr.*\): cached file missing"):
        rebuild.rebuild(con, cache)
    assert _all(con) == before


def test_a_replay_failing_after_the_tables_were_emptied_changes_nothing(
    built_sources, tmp_path: Path, monkeypatch
) -> None:
    """The emptied tables are dropped and made again in the rebuild's transaction: a replay
    that fails after them leaves every row, table and index as it was."""
    con = db.connect(tmp_path / "t.duckdb")
    cache = tmp_path / "t.cache"
    import_mtgjson(con, [built_sources.mtgjson / "AFR.json"], cache=cache)
    import_collation(con, built_sources.sealed, cache=cache)
    before = _all(con)
    schema = "SELECT sql FROM duckdb_tables() UNION ALL SELECT sql FROM duckdb_indexes() ORDER BY 1"
    ddl = con.execute(schema).fetchall()
    replay = rebuild.REPLAYERS["collation"]

    def failing(con, paths, target) -> None:
        replay(con, paths, target)
        raise BoosterkitError("the disk went away")

    monkeypatch.setitem(rebuild.REPLAYERS, "collation", failing)
    with pytest.raises(BoosterkitError, match="the disk went away"):
        rebuild.rebuild(con, cache)
    assert _all(con) == before
    assert con.execute(schema).fetchall() == ddl
