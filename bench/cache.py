"""What reading a cached product costs (issues 20, 35): loading a compiled product from
``<db>.cache/values`` — read, SHA-256 check, JSON parse, typed decode (``boosterkit.cache``)
— against parsing the same JSON body alone (the least any JSON cache pays), in the same run.

Prints the fastest of each, taken in turn (warm: the files exist), and the median cold
load (nothing cached: resolved, compiled and written on the way) for AFR's draft and set
boosters. Target: a warm load at most 2x the bare parse.

    .venv/bin/python bench/cache.py [--runs 31]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import build_db  # bench/common.py: the script folder is on sys.path

from boosterkit.cache import Cache, CacheFiles
from boosterkit.database import Database
from boosterkit.generator import open_packs
from boosterkit.generator.engine import CompiledProduct


def median_ms(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def paired_ms(a, b, runs: int) -> tuple[float, float]:
    """The fastest of ``runs`` calls of ``a`` and of ``b``, taken in turn (a busy machine
    slows both alike)."""
    ta, tb = [], []
    for _ in range(runs):
        for fn, out in ((a, ta), (b, tb)):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return min(ta) * 1000, min(tb) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=31)
    args = ap.parse_args()
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        db = build_db(Path(tmp))
        folder = db.parent / f"{db.stem}.cache" / "values"
        for product in ("draft", "set"):

            def cold(product: str = product) -> None:
                shutil.rmtree(folder, ignore_errors=True)
                open_packs("afr", product, 1, 1, db=Database(db, cache=Cache()))

            cold_ms = median_ms(cold, max(3, args.runs // 10))
            (path,) = folder.glob(f"product.afr.{product}.*.json")
            key = path.name.split(".")[3]
            files = CacheFiles(folder)

            def bare(path: Path = path) -> None:
                json.loads(path.read_bytes().partition(b"\n")[2])

            def load(key: str = key, product: str = product, files: CacheFiles = files) -> None:
                found = files.load("product", ("afr", product), key, CompiledProduct)
                assert found is not None

            base, ours = paired_ms(bare, load, args.runs)
            worst = max(worst, ours / base)
            print(
                f"afr {product:5}: {path.stat().st_size / 1e6:5.2f} MB  json.loads {base:6.2f} ms  "
                f"load {ours:6.2f} ms ({ours / base:.2f}x)   cold (resolve + compile + write) "
                f"{cold_ms:6.0f} ms"
            )
    print(f"worst warm ratio {worst:.2f}x (target <= 2)")
    return 0 if worst <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
