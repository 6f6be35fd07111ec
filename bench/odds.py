"""Speed of ``boosterkit odds`` and of the polars pack frames, against plain baselines.

Builds a database from the shared AFR files (bench/common.py), then, for AFR draft and set
boosters, in the same run:

- exact odds: ``generator.odds.product_odds`` on the compiled product (the dynamic
  programme per sheet, the race integral for the balanced commons);
- ``--simulate``: ``simulation.simulate`` counting 100,000 packs per card and group (numpy),
  against the baseline of opening the same packs with ``open_packs`` and counting every
  item's card key in a ``collections.Counter``;
- frames: ``frames.packs_frame`` of 20,000 opened packs (gathered from item prototypes),
  against building the same rows item by item from ``Pack.to_dict()``.

Prints seconds and ratios (baseline / ours). Then (issue 36) the command: the CPU of
``boosterkit odds afr -p set --simulate N`` (its process tree, default ``--jobs``) per
simulated pack, whole (CPU / N) and beyond the same command with ``--simulate 1000``
(start-up, exact odds and output), rounds alternated; target <= 1.5 us a pack, whole.

    .venv/bin/python bench/odds.py [--packs 100000] [--command-packs 1000000] [--rounds 3]
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
from collections import Counter
from pathlib import Path

from common import build_db  # bench/common.py: the script folder is on sys.path


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def measure(path: Path, kind: str, n: int) -> str:
    """One product's figures as a line."""
    from boosterkit.generator import load_product, open_packs
    from boosterkit.generator.engine import compile_product
    from boosterkit.generator.frames import packs_frame
    from boosterkit.generator.odds import product_odds
    from boosterkit.generator.output import ITEM_COLUMNS
    from boosterkit.generator.simulation import simulate

    cp = compile_product(load_product("afr", kind, path))
    exact = best(lambda: product_odds(cp))
    sim = best(lambda: simulate(cp, n, 1), 1)

    def counted() -> Counter:
        keys: Counter = Counter()
        for p in open_packs("afr", kind, n, 1, db=path):
            keys.update((i.card_id, i.name, i.set, i.foil) for i in p.items)
        return keys

    base = best(counted, 1)
    packs = open_packs("afr", kind, 20_000, 3, db=path)
    frame = best(lambda: packs_frame(packs))

    def rows() -> list:
        return [
            [d["index"], *(it.get(c) for c in ITEM_COLUMNS)]
            for d in (p.to_dict() for p in packs)
            for it in d["items"]
        ]

    plain = best(rows)
    return (
        f"afr {kind:5}  exact odds {exact:6.3f} s | simulate {n} packs {sim:6.2f} s vs "
        f"Counter baseline {base:6.2f} s ({base / sim:4.1f}x) | frame of 20,000 packs "
        f"{frame:5.2f} s vs dict rows {plain:5.2f} s ({plain / frame:4.1f}x)"
    )


def command_cpu(path: Path, simulate: int) -> float:
    """CPU seconds (user + system, the command and its workers) of ``odds afr -p set
    --simulate N``, its output to /dev/null."""
    cmd = [str(Path(sys.executable).with_name("boosterkit")), "--db", str(path), "odds", "afr",
           "-p", "set", "--simulate", str(simulate), "--seed", "3"]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.devnull, "wb") as null:
        subprocess.run(cmd, stdout=null, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def bench_command(path: Path, n: int, rounds: int) -> float:
    """The command's CPU a simulated pack (median of ``rounds``), printed with the figure
    beyond the start (the same command simulating 1,000 packs)."""
    command_cpu(path, 1000)  # the product and its exact odds kept beside the database
    whole, small = [], []
    for r in range(rounds):
        for which in (n, 1000) if r % 2 == 0 else (1000, n):
            (whole if which == n else small).append(command_cpu(path, which))
    per = statistics.median(whole) / n * 1e6
    beyond = (statistics.median(whole) - statistics.median(small)) / (n - 1000) * 1e6
    print(
        f"odds afr -p set --simulate {n:,}: CPU {statistics.median(whole):.2f} s (runs "
        f"{min(whole):.2f}-{max(whole):.2f}), {per:.2f} us a simulated pack (target <= 1.5); "
        f"{beyond:.2f} us beyond --simulate 1000 ({statistics.median(small):.2f} s)"
    )
    return per


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packs", type=int, default=100_000)
    parser.add_argument("--command-packs", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only-command", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = build_db(Path(tmp))
        per = bench_command(path, args.command_packs, args.rounds)
        if not args.only_command:
            for kind in ("draft", "set"):
                print(measure(path, kind, args.packs))
    return 0 if per <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
