"""Bulk ingest speed: ``boosterkit sync --file`` vs DuckDB's own ``read_json`` on the same file.

Builds a default_cards-scale file (100,000 card objects, ≈450 MB) by repeating the real
card objects of ``../shared/scryfall/cards/`` with fresh ids, in a temporary folder. Then,
in the same run, it times

- ``boosterkit sync --file FILE`` into a fresh database (the whole command: detect, cache
  copy, staging, derivation, upsert, commit), and
- the baseline: DuckDB ``CREATE TABLE AS SELECT * FROM read_json(FILE, columns={…})`` with
  the same explicit column list, into a fresh database file,

each in its own process, and prints both times, their ratio and each one's peak RSS, and
their CPU time (user + system, all threads): on a shared machine other processes stretch wall
times unevenly, CPU time shows what each one costs.
Targets: ratio ≤ 1.6, peak RSS ≤ 1 GB (issue 13: at 25k, 100k and 400k cards). Exit status 1
when a target is missed.

    .venv/bin/python bench/ingest.py [--cards 25000,100000,400000] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CARDS = ROOT.parent / "shared" / "scryfall" / "cards"
BIN = Path(sys.executable).with_name("boosterkit")
RATIO_TARGET, RSS_TARGET_MB = 1.6, 1024  # issue 13: at 25k, 100k and 400k cards
#: Children cache bytecode as an installed package does (even where the shell says not to).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

BASELINE = """
import sys, duckdb
from boosterkit.pipeline.scryfall.transform import CARD_JSON_COLUMNS, json_columns_sql
con = duckdb.connect(sys.argv[2])
con.execute("SET enable_progress_bar = false")
con.execute(f"CREATE TABLE t AS SELECT * FROM read_json('{sys.argv[1]}', format='array', "
            f"columns={json_columns_sql(CARD_JSON_COLUMNS)})")
print(con.execute("SELECT count(*) FROM t").fetchone()[0])
"""


def build_file(dest: Path, n: int) -> int:
    """Write ``n`` real card objects with fresh ids as one JSON array; return its size."""
    source: list[str] = []
    for f in sorted(CARDS.glob("*.unique-cards.json")):
        source += [
            json.dumps(c, ensure_ascii=False) for c in json.loads(f.read_text(encoding="utf-8"))
        ]
    if not source:
        sys.exit(f"no card files in {CARDS}")
    with open(dest, "w", encoding="utf-8") as out:
        out.write("[\n")
        for i in range(n):
            text = source[i % len(source)]
            # every object starts with {"object":"card","id":"<uuid>" in Scryfall's dumps
            start = text.index('"id": "') + 7
            fresh = f"{i:08x}-b00c-4e1d-8000-{i:012x}"
            out.write(("," if i else "") + text[:start] + fresh + text[start + 36 :] + "\n")
        out.write("]\n")
    return dest.stat().st_size


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str, float]:
    """Run ``cmd``; return (seconds, peak RSS in MB, stdout+stderr, CPU seconds)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=ROOT
    )
    out = proc.stdout.read().decode() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out}")
    return seconds, usage.ru_maxrss / 1024, out.strip(), usage.ru_utime + usage.ru_stime


def measure(tmpdir: Path, cards: int, repeat: int) -> bool:
    """Build a file of ``cards`` cards, time both ``repeat`` times; True when on target."""
    path = tmpdir / f"default-cards-{cards}.json"
    t0 = time.perf_counter()
    size = build_file(path, cards)
    print(
        f"file: {cards:,} cards, {size / 1e6:,.0f} MB (built in {time.perf_counter() - t0:.1f} s)"
    )
    sync_runs, base_runs = [], []
    for i in range(repeat):
        env = dict(ENV, BOOSTERKIT_DB=str(tmpdir / f"sync-{cards}-{i}.duckdb"))
        sync_runs.append(timed([str(BIN), "sync", "--file", str(path)], env))
        base_runs.append(
            timed(
                [
                    sys.executable,
                    "-c",
                    BASELINE,
                    str(path),
                    str(tmpdir / f"base-{cards}-{i}.duckdb"),
                ],
                ENV,
            )
        )
    (s_t, s_rss, s_out, s_cpu), (b_t, b_rss, b_out, b_cpu) = min(sync_runs), min(base_runs)
    print(
        f"boosterkit sync --file : {s_t:7.2f} s   CPU {s_cpu:6.2f} s   peak RSS {s_rss:6.0f} MB   "
        f"({s_out.splitlines()[-1]})"
    )
    print(
        f"duckdb read_json       : {b_t:7.2f} s   CPU {b_cpu:6.2f} s   peak RSS {b_rss:6.0f} MB   ({b_out} rows)"
    )
    ratio = s_t / b_t
    ok = ratio <= RATIO_TARGET and max(s_rss, b_rss) <= RSS_TARGET_MB
    print(
        f"ratio {ratio:.2f} (target ≤ {RATIO_TARGET}; CPU ratio {s_cpu / b_cpu:.2f}); peak RSS {s_rss:.0f} MB "
        f"(target ≤ {RSS_TARGET_MB} MB): {'OK' if ok else 'MISSED'}"
    )
    path.unlink()
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--cards",
        default="100000",
        help="cards per file, comma-separated for several sizes (e.g. 25000,100000,400000)",
    )
    ap.add_argument("--repeat", type=int, default=1, help="runs of each; the best time is kept")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="boosterkit-bench-") as tmp:
        results = [measure(Path(tmp), int(n), args.repeat) for n in args.cards.split(",")]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
