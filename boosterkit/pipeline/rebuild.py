"""``boosterkit db rebuild``: re-derive every table from the cached files, without the network.

Every successful load is a ``sync_runs`` row whose ``cache_files`` (relative to the cache
folder) were kept there: gzip-compressed, or as given to ``sync --file`` (``pipeline.cache``). A rebuild empties the data tables and replays those runs,
oldest first, through ``REPLAYERS[source]`` — all in ONE transaction, so a failed rebuild
leaves the database as it was.

A replayer is ``fn(con, files, target) -> None``: it loads ``files`` (absolute paths, in the
order recorded) into the already open transaction. It must not BEGIN/COMMIT itself (DuckDB
has no nested transactions) and must not write ``sync_runs``. A source registers one line.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from boosterkit.errors import BoosterkitError
from boosterkit.pipeline import collation, ingest, mtgjson, sealed_contents, sync
from boosterkit.pipeline.db import Connection, fingerprint, one_row, scalar
from boosterkit.pipeline.runs import recorded

Replayer = Callable[[Connection, list[Path], "str | None"], None]

#: sync_runs.source → replayer. One line per source.
REPLAYERS: dict[str, Replayer] = {
    "scryfall-set": sync.replay_sets,
    "scryfall-sets": ingest.replay,
    "scryfall-bulk": ingest.replay,
    "file": ingest.replay,
    "mtgjson": mtgjson.replay,
    "collation": collation.replay,
    "sealed-contents": sealed_contents.replay,
}

#: Tables a rebuild keeps; every other table is derived from the cache and refilled.
KEPT_TABLES = ("meta", "sync_runs")


def data_tables(con: Connection) -> list[str]:
    """The tables a rebuild empties: all but ``KEPT_TABLES`` (new migrations included)."""
    rows = con.execute(
        "SELECT table_name FROM information_schema.tables "
        "WHERE table_schema = 'main' AND table_type = 'BASE TABLE' AND table_catalog = current_database() "
        "ORDER BY table_name"
    ).fetchall()
    return [r[0] for r in rows if r[0] not in KEPT_TABLES]


def _empty(con: Connection, table: str) -> None:
    """Empty ``table``: dropped and made again from its own DDL, its indexes too (DuckDB
    applies a primary key's deletions at commit, slowly: a DELETE of 138,000 sheet cards
    took 2 s). In the rebuild's transaction, like the DELETE it replaces."""
    where = "database_name = current_database() AND schema_name = 'main' AND table_name = ?"
    (ddl,) = one_row(con, f"SELECT sql FROM duckdb_tables() WHERE {where}", [table])
    indexes = con.execute(f"SELECT sql FROM duckdb_indexes() WHERE {where}", [table]).fetchall()
    con.execute(f'DROP TABLE "{table}"')
    con.execute(ddl)
    for (sql,) in indexes:
        con.execute(sql)


def rebuild(con: Connection, cache_dir: Path) -> dict[str, Any]:
    """Empty the data tables and replay every ``ok`` run's cached files in order.

    Returns ``{"runs": n, "files": n, "cards": n, "sets": n, "seconds": s}``. A missing
    cache file or a source without a replayer is an error before anything changes.
    """
    t0 = time.perf_counter()
    runs = con.execute(
        "SELECT id, source, target, coalesce(cache_files, []) FROM sync_runs "
        "WHERE status = 'ok' AND source <> 'rebuild' ORDER BY id"
    ).fetchall()
    plan: list[tuple[Replayer, list[Path], str | None]] = []
    for run_id, source, target, files in runs:
        fn = REPLAYERS.get(source)
        if fn is None:
            known = ", ".join(sorted(REPLAYERS))
            raise BoosterkitError(
                f"sync run {run_id}: no replayer for source {source!r} (known: {known})"
            )
        paths = [cache_dir / rel for rel in files]
        for p in paths:
            if not p.exists():
                raise BoosterkitError(
                    f"sync run {run_id} ({source} {target}): cached file missing: {p}"
                )
        plan.append((fn, paths, target))
    with recorded(con, "rebuild", str(cache_dir)) as run:
        fingerprint(con)  # every block read, as the DELETEs did: a damaged file changes nothing
        for table in data_tables(con):
            _empty(con, table)
        for fn, paths, target in plan:
            fn(con, paths, target)
        run.cards = scalar(con, "SELECT count(*) FROM cards")
        run.sets = scalar(con, "SELECT count(*) FROM sets")
    return {
        "runs": len(plan),
        "files": sum(len(p) for _, p, _ in plan),
        "cards": run.cards,
        "sets": run.sets,
        "seconds": round(time.perf_counter() - t0, 3),
    }
