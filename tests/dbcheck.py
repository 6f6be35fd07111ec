"""Row counts and a checksum of every table: equal fingerprints mean the database did not change."""

from __future__ import annotations

from boosterkit.pipeline import rebuild


def fingerprint(con, *, with_runs: bool = False) -> dict[str, tuple[int, str]]:
    """``{table: (rows, md5 of the sorted row md5s)}`` for the data tables (and ``sync_runs``)."""
    tables = rebuild.data_tables(con) + (["sync_runs"] if with_runs else [])
    out = {}
    for t in tables:
        out[t] = tuple(
            con.execute(
                f"SELECT count(*), md5(coalesce(string_agg(md5(CAST(r AS VARCHAR)), ',' "
                f"ORDER BY md5(CAST(r AS VARCHAR))), '')) FROM {t} r"
            ).fetchone()
        )
    return out
