"""``--jobs 2`` against ``--jobs 1``: wall time of the same run, interleaved A/B, for the
three commands that take ``--jobs``.

Builds a database from the shared MTGJSON AFR files and the magic-sealed-data export in a
temporary folder, then runs, for J = 1 and 2 in turn, ``--rounds`` times each:

- ``boosterkit open afr -p draft -n N --seed 1 -f FORMAT --jobs J > /dev/null`` (N = ``--packs``);
- ``boosterkit odds afr -p draft --simulate N --seed 1 --jobs J > /dev/null``
  (N = ``--simulate``: 2,000,000 by default, a long run: 400,000 packs now take 2.4 s, a
  second of which is the start and the exact odds, which one process does);
- ``boosterkit simulate mimic-match -n 2 --set afr -p draft --seed 1 --games N --jobs J
  > /dev/null`` (N = ``--games``);

and prints the wall and CPU seconds of each, the ratio of the median walls (target: ``--jobs
2`` <= 0.65x ``--jobs 1``; issue 22 sets it for 400,000 packs of ``open``, and "the same" for
the other two), how many cores the whole machine was busy on meanwhile (from ``/proc/stat``;
other engineers' work on the shared cores leaves less for the second job) and the load
average before and after. The tests (``tests/test_parallel.py``, ``tests/test_jobs.py``)
check that the bytes are the same.

    .venv/bin/python bench/parallel.py [--packs 400000] [--simulate 2000000] [--games 4000]
        [--rounds 3] [--format jsonl] [--only open,odds,simulate]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import build_db  # bench/common.py: the script folder is on sys.path

BIN = Path(sys.executable).with_name("boosterkit")


def busy_ticks() -> tuple[int, int]:
    """(busy, all) jiffies of every core so far (``/proc/stat``; (0, 0) elsewhere)."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    except OSError:
        return 0, 0
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def timed(cmd: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds of ``cmd`` (its children included), and the cores the
    machine was busy on meanwhile."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    b0, a0 = busy_ticks()
    t = time.perf_counter()
    with open(os.devnull, "wb") as null:
        subprocess.run(cmd, stdout=null, check=True)
    wall = time.perf_counter() - t
    b1, a1 = busy_ticks()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    cores = (os.cpu_count() or 1) * (b1 - b0) / (a1 - a0) if a1 > a0 else float("nan")
    return wall, cpu, cores


def load() -> str:
    """The load averages over 1, 5 and 15 minutes."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def ab(label: str, cmd: list[str], rounds: int) -> float:
    """Run ``cmd --jobs J`` for J = 1, 2 (2, 1 on odd rounds); print the figures; the ratio."""
    runs: dict[int, list[tuple[float, float, float]]] = {1: [], 2: []}
    before = load()
    for r in range(rounds):
        for jobs in (1, 2) if r % 2 == 0 else (2, 1):
            runs[jobs].append(timed([*cmd, "--jobs", str(jobs)]))
    print(f"{label} > /dev/null, {rounds} rounds A/B, {os.cpu_count()} cores; "
          f"load average {before} before, {load()} after")  # fmt: skip
    for jobs, got in runs.items():
        walls = ", ".join(f"{w:.2f}" for w, _, _ in got)
        print(f"  --jobs {jobs}: wall {walls} s (median {statistics.median(w for w, _, _ in got):.2f}); "
              f"CPU median {statistics.median(c for _, c, _ in got):.2f} s; machine busy on "
              f"{statistics.median(b for _, _, b in got):.2f} cores")  # fmt: skip
    ratio = statistics.median(w for w, _, _ in runs[2]) / statistics.median(
        w for w, _, _ in runs[1]
    )
    print(f"  wall --jobs 2 / --jobs 1: {ratio:.3f}x (target <= 0.65x)", flush=True)
    return ratio


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--packs", type=int, default=400_000, help="packs of open")
    ap.add_argument("--simulate", type=int, default=2_000_000, help="packs of odds --simulate")
    ap.add_argument("--games", type=int, default=4000, help="games of simulate")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--format", default="jsonl")
    ap.add_argument("--only", default="open,odds,simulate")
    args = ap.parse_args()
    only = set(args.only.split(","))
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        db = build_db(Path(tmp))
        bk = [str(BIN), "--db", str(db)]
        keep = ["open", "afr", "-p", "draft", "-n", "1", "--seed", "1"]  # compile it once
        subprocess.run([*bk, *keep], stdout=subprocess.DEVNULL, check=True)
        cases = {
            "open": (f"open afr -p draft -n {args.packs:,} -f {args.format}",
                     ["open", "afr", "-p", "draft", "--seed", "1", "-f", args.format, "-n",
                      str(args.packs)]),
            "odds": (f"odds afr -p draft --simulate {args.simulate:,}",
                     ["odds", "afr", "-p", "draft", "--seed", "1", "--simulate",
                      str(args.simulate)]),
            "simulate": (f"simulate mimic-match -n 2 --set afr -p draft --games {args.games:,}",
                         ["simulate", "mimic-match", "-n", "2", "--set", "afr", "-p", "draft",
                          "--seed", "1", "--games", str(args.games)]),
        }  # fmt: skip
        for name, (label, cmd) in cases.items():
            if name in only:
                ratios.append(ab(label, [*bk, *cmd], args.rounds))
    return 0 if all(r <= 0.65 for r in ratios) else 1


if __name__ == "__main__":
    sys.exit(main())
