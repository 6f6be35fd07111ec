"""Kept packs against streamed ones (issue 36): ``open_packs`` of ``--packs`` AFR draft
boosters with every pack kept and every item read, against ``iter_packs`` of the same packs
(each pack's items read, then dropped), with Python's cyclic garbage collector on, as users
run it.

Each measurement runs in a fresh process (the database built once from ../shared and its
product compiled first, so neither counts), rounds alternating the order; printed: the CPU of
the work in each (user + system), their ratio per round and its median, and the peak RSS of
the kept run. Draftmancer's figures for the same work, as issue 36 recorded them: 1,375 MB at
100,000 packs, and boosterkit's kept run then cost 0.80x its CPU.

    .venv/bin/python bench/kept.py [--packs 100000] [--rounds 3] [--no-gc]

Targets: kept / streamed CPU <= 1.2x, kept peak RSS <= 250 MB. Exit 1 when one is missed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import build_db  # bench/common.py: the script folder is on sys.path

CHILD = """
import gc, json, resource, sys, time
from boosterkit.generator import iter_packs, open_packs
mode, db, n, collect = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
open_packs("afr", "draft", 1, seed=1, db=db)  # the product compiled and kept, numpy loaded
if not collect:
    gc.disable()
t = time.process_time()
names = 0
if mode == "kept":
    packs = open_packs("afr", "draft", n, seed=7, db=db)
    for pack in packs:
        for item in pack.items:
            names += item.name is not None
else:
    for pack in iter_packs("afr", "draft", n, seed=7, db=db):
        for item in pack.items:
            names += item.name is not None
cpu = time.process_time() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"cpu": cpu, "peak": peak, "names": names}))
"""


def run(mode: str, db: Path, packs: int, collect: bool) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(db), str(packs), "1" if collect else "0"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    figures: dict[str, float] = json.loads(out.stdout)
    return figures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--packs", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-gc", action="store_true", help="both runs with the collector off")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = build_db(Path(tmp))
        run("kept", db, 10, True)  # compile and keep the product beside the database
        kept: list[dict[str, float]] = []
        streamed: list[dict[str, float]] = []
        for r in range(args.rounds):
            for mode in ("kept", "streamed") if r % 2 == 0 else ("streamed", "kept"):
                figures = run(mode, db, args.packs, not args.no_gc)
                (kept if mode == "kept" else streamed).append(figures)
    ratios = [k["cpu"] / s["cpu"] for k, s in zip(kept, streamed, strict=True)]
    ratio = statistics.median(ratios)
    peak = max(k["peak"] for k in kept) / 1e6
    kept_cpu = ", ".join(f"{k['cpu']:.2f}" for k in kept)
    streamed_cpu = ", ".join(f"{s['cpu']:.2f}" for s in streamed)
    print(
        f"{args.packs:,} AFR draft packs, every item read, collector "
        f"{'off' if args.no_gc else 'on'}, {args.rounds} rounds A/B:\n"
        f"  kept (open_packs)     CPU {kept_cpu} s, "
        f"peak RSS {peak:.0f} MB (target <= 250 MB; Draftmancer 1,375 MB)\n"
        f"  streamed (iter_packs) CPU {streamed_cpu} s, "
        f"peak RSS {max(s['peak'] for s in streamed) / 1e6:.0f} MB\n"
        f"  kept / streamed: {ratio:.2f}x (rounds {min(ratios):.2f}-{max(ratios):.2f}; "
        f"target <= 1.2x)"
    )
    return 0 if ratio <= 1.2 and peak <= 250 else 1


if __name__ == "__main__":
    sys.exit(main())
