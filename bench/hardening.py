"""What the hardening costs: ``serve``'s full read of the database at start, and the cleaning
of card text at ingest, each against a baseline measured in the same run.

Builds a bulk-scale file (``--cards`` real card objects with fresh ids, as ``bench/ingest.py``
does), syncs it into a fresh database, then times

- ``db.verify`` (every row of every table read and hashed: what ``serve`` runs at start)
  against the baseline of opening the file and counting the cards;
- the check every ingest runs for text to clean (``load.staged_dirty_sql``; Scryfall files
  run it in the parse's own pass, MTGJSON after staging), and the cleaning copy
  ingest uses when that scan finds some (``load._cleaned``), against the plain copy of the
  same text columns (``CREATE TEMP TABLE … AS SELECT``).

    .venv/bin/python bench/hardening.py [--cards 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest import build_file  # noqa: E402

from boosterkit.config import cache_dir  # noqa: E402
from boosterkit.pipeline import db, load  # noqa: E402
from boosterkit.pipeline.sync import sync_file  # noqa: E402


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cards", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="boosterkit-bench-") as tmp:
        src, path = Path(tmp) / "cards.json", Path(tmp) / "bench.duckdb"
        build_file(src, args.cards)
        con = db.connect(path)
        sync_file(con, src, cache=cache_dir(path))
        con.close()
        mb = path.stat().st_size / 1e6

        def opened(fn: Callable[[db.Connection], object]) -> Callable[[], None]:
            def run() -> None:
                c = db.connect(path, read_only=True)
                try:
                    fn(c)
                finally:
                    c.close()

            return run

        base = best(
            opened(lambda c: c.execute("SELECT count(*) FROM cards").fetchone()), args.repeat
        )
        full = best(opened(lambda c: db.verify(c, path)), args.repeat)
        print(f"database: {args.cards:,} cards, {mb:,.0f} MB")
        print(f"open + count(*)        : {base * 1000:8.1f} ms  (baseline)")
        print(
            f"open + verify (serve)  : {full * 1000:8.1f} ms  ({full / base:.1f}x; "
            f"{full / args.cards * 1e5:.3f} s per 100,000 cards)"
        )

        text = [(c, t) for c, t in load.RAW_COLUMNS.items() if t in ("VARCHAR", "VARCHAR[]")]
        plain = ", ".join(f"s.{c}" for c, _ in text)
        cleaned = ", ".join(f"{load._cleaned(c, t)} AS {c}" for c, t in text)
        con = db.connect(path, read_only=True)
        try:
            flagged = f"(SELECT *, {load.staged_dirty_sql('d')} AS _dirty FROM cards d)"

            def copy(cols: str) -> Callable[[], None]:
                return lambda: con.execute(
                    f"CREATE OR REPLACE TEMP TABLE t AS SELECT {cols} FROM {flagged} s"
                )

            raw_t, clean_t = best(copy(plain), args.repeat), best(copy(cleaned), args.repeat)
            dirty = load.staged_dirty_sql("d")
            scan_t = best(lambda: load._any_dirty(con, "cards", dirty), args.repeat)
        finally:
            con.close()
        print(f"copy {len(text)} text columns  : {raw_t * 1000:8.1f} ms  (baseline)")
        print(
            f"scan for text to clean : {scan_t * 1000:8.1f} ms  ({scan_t / raw_t:.1f}x; every "
            "ingest, in the parse's pass for Scryfall files)"
        )
        print(
            f"cleaning copy          : {clean_t * 1000:8.1f} ms  ({clean_t / raw_t:.1f}x; only "
            f"when the scan finds something)"
        )


if __name__ == "__main__":
    main()
