"""Bulk ingest speed: ``boosterkit sync --file`` vs DuckDB's own ``read_json`` on the same file.

Builds a default_cards-scale file (100,000 card objects, ≈450 MB) by repeating the real
card objects of ``../shared/scryfall/cards/`` with fresh ids, in a temporary folder. Then,
in the same run, it times

- ``boosterkit sync --file FILE`` into a fresh database (the whole command: detect, cache
  copy, staging, derivation, upsert, commit),
- the baseline: DuckDB ``CREATE TABLE AS SELECT * FROM read_json(FILE, columns={…})`` with
  the same explicit column list, into a fresh database file, and
- the same baseline given the two halves ``sync`` cuts the file into (``pipeline.halves``:
  two arrays, parsed on two threads), where the sync cuts it,

each in its own process, and prints their wall times, their CPU times (user + system, all
threads) and each one's peak RSS, and the sync's ratios to each baseline. On a shared
machine other processes stretch wall times unevenly; CPU time shows what each one costs.
Targets: CPU ratio to ``read_json`` of the file ≤ 1.6 (issue 22), wall ratio ≤ 1.6 and peak
RSS ≤ 1 GB (issue 13: at 25k, 100k and 400k cards). Exit status 1 when a target is missed.
With ``--repeat N``, the commands run in N rounds, each round in another order; each figure
printed is the best of the runs (wall and CPU taken separately), and the CPU and wall ratios
judged are the medians of the N per-round ratios (the sync against the baseline of its own
round): the machine's speed drifts by a quarter over minutes, which a ratio of two bests
taken minutes apart does not cancel.

    .venv/bin/python bench/ingest.py [--cards 25000,100000,400000] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from boosterkit.pipeline import halves

ROOT = Path(__file__).resolve().parents[1]
CARDS = ROOT.parent / "shared" / "scryfall" / "cards"
BIN = Path(sys.executable).with_name("boosterkit")
CPU_TARGET = 1.6  # issue 22: CPU of sync / CPU of read_json of the file
RATIO_TARGET, RSS_TARGET_MB = 1.6, 1024  # issue 13: at 25k, 100k and 400k cards
#: Children cache bytecode as an installed package does (even where the shell says not to).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

BASELINE = """
import sys, duckdb
from boosterkit.pipeline.scryfall.transform import CARD_JSON_COLUMNS, json_columns_sql
con = duckdb.connect(sys.argv[2])
con.execute("SET enable_progress_bar = false")
files = sys.argv[1].split(",")  # a file, or its two halves
con.execute(f"CREATE TABLE t AS SELECT * FROM read_json({files!r}, format='array', "
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


def _best(runs: list[tuple[float, float, str, float]]) -> tuple[float, float, str, float]:
    """The best wall time, peak RSS and CPU time of several runs (each taken on its own)."""
    return (
        min(r[0] for r in runs),
        min(r[1] for r in runs),
        runs[0][2],
        min(r[3] for r in runs),
    )


def _line(label: str, run: tuple[float, float, str, float], note: str) -> None:
    t, rss, _, cpu = run
    print(f"{label:27s}: {t:7.2f} s   CPU {cpu:6.2f} s   peak RSS {rss:6.0f} MB   ({note})")


def _run_one(
    tmpdir: Path, name: str, path: Path, parts: list[str] | None, tag: str
) -> tuple[float, float, str, float]:
    """One timed run: ``sync`` (into a fresh database; its cache copy removed after) or a
    baseline."""
    if name == "sync":
        db = tmpdir / f"sync-{tag}.duckdb"
        run = timed([str(BIN), "sync", "--file", str(path)], dict(ENV, BOOSTERKIT_DB=str(db)))
        shutil.rmtree(db.with_suffix(".cache"), ignore_errors=True)  # 475 MB per 100k cards
        return run
    src = [str(path)] if name == "file" else (parts or [])
    return timed(
        [sys.executable, "-c", BASELINE, ",".join(src), str(tmpdir / f"base-{name}-{tag}.duckdb")],
        ENV,
    )


def _paired(runs: dict[str, list[tuple[float, float, str, float]]], what: str, i: int) -> float:
    """Print the per-round ratios of field ``i`` (the sync's against the file baseline of
    its own round) and the ratio of the bests; return the rounds' median."""
    sync = [float(r[i]) for r in runs["sync"]]
    base = [float(r[i]) for r in runs["file"]]
    ratios = [a / b for a, b in zip(sync, base)]
    median = statistics.median(ratios)
    print(
        f"{what} ratio of the bests {min(sync) / min(base):.2f}; per round (paired, "
        f"{len(ratios)} rounds): median {median:.2f}, {min(ratios):.2f}–{max(ratios):.2f}"
    )
    return median


def measure(tmpdir: Path, cards: int, repeat: int) -> bool:
    """Build a file of ``cards`` cards, time the sync and both baselines ``repeat`` times;
    True when on target."""
    path = tmpdir / f"default-cards-{cards}.json"
    t0 = time.perf_counter()
    size = build_file(path, cards)
    print(
        f"file: {cards:,} cards, {size / 1e6:,.0f} MB (built in {time.perf_counter() - t0:.1f} s)"
    )
    runs: dict[str, list[tuple[float, float, str, float]]] = {"sync": [], "file": [], "halves": []}
    with halves.halves(path, tmpdir / "halves") as parts:
        for i in range(repeat):
            # each round in another order: a drift of the machine's speed does not favour one
            names = ["sync", "file", "halves"]
            order = names[i % 3 :] + names[: i % 3]
            for name in order:
                if name != "halves" or parts:
                    runs[name].append(_run_one(tmpdir, name, path, parts, f"{cards}-{i}"))
    sync_run, file_run = _best(runs["sync"]), _best(runs["file"])
    _line("boosterkit sync --file", sync_run, sync_run[2].splitlines()[-1])
    _line("duckdb read_json", file_run, f"{file_run[2]} rows")
    ratio, cpu_ratio = sync_run[0] / file_run[0], sync_run[3] / file_run[3]
    if runs["halves"]:
        halves_run = _best(runs["halves"])
        _line("duckdb read_json, 2 halves", halves_run, f"{halves_run[2]} rows")
        print(
            f"vs the halves: wall ratio {sync_run[0] / halves_run[0]:.2f}, "
            f"CPU ratio {sync_run[3] / halves_run[3]:.2f}"
        )
    else:
        print(f"vs the halves: none ({size / 2**20:,.0f} MiB is read whole)")
    if repeat > 1:
        cpu_ratio, ratio = _paired(runs, "CPU", 3), _paired(runs, "wall", 0)
    rss = max(sync_run[1], file_run[1])
    ok = cpu_ratio <= CPU_TARGET and ratio <= RATIO_TARGET and rss <= RSS_TARGET_MB
    print(
        f"CPU ratio {cpu_ratio:.2f} (target ≤ {CPU_TARGET}); wall ratio {ratio:.2f} "
        f"(target ≤ {RATIO_TARGET}); peak RSS {sync_run[1]:.0f} MB (target ≤ {RSS_TARGET_MB} MB): "
        f"{'OK' if ok else 'MISSED'}"
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
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds of the three commands; a ratio judged is the median of the rounds' ratios",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="boosterkit-bench-") as tmp:
        results = [measure(Path(tmp), int(n), args.repeat) for n in args.cards.split(",")]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
