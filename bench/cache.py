"""What sealing the kept-product cache costs (issue 20): loading a kept product from
``<db>.cache/products`` — read, HMAC-SHA256 check, unpickle — against reading and
unpickling the same bytes unsealed (what the cache did before), in the same run.

Prints the fastest of each, taken in turn (warm: the files exist), and the median cold
load (nothing kept: compiled and sealed on the way) for the lite and the full form of AFR's draft and set boosters.
Target: a warm load at most 1.2x the unsealed one (the check is about 0.7 ms per MB).

    .venv/bin/python bench/cache.py [--runs 31]
"""

from __future__ import annotations

import argparse
import pickle
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import build_db  # bench/common.py: the script folder is on sys.path

from boosterkit.generator import open_packs
from boosterkit.generator.cache import ProductCache, ProductStore


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
        folder = db.parent / f"{db.stem}.cache" / "products"
        for product in ("draft", "set"):

            def cold(product: str = product) -> None:
                shutil.rmtree(folder, ignore_errors=True)
                open_packs("afr", product, 1, 1, db=db, products=ProductCache())

            cold_ms = median_ms(cold, max(3, args.runs // 10))
            open_packs("afr", product, 100, 1, db=db, products=ProductCache())  # both forms
            store = ProductStore(folder)
            for lite in (True, False):
                (path,) = [
                    p
                    for p in folder.glob(f"afr.{product}.*.pickle")
                    if p.name.endswith(".lite.pickle") == lite
                ]
                key = path.name.split(".")[2]
                plain = path.read_bytes()[36:]  # the pickle the seal covers

                def unsealed(path=path, size=len(plain)) -> None:
                    with open(path, "rb") as f:
                        pickle.loads(f.read()[36 : 36 + size])

                def sealed(key=key, lite=lite, store=store, product=product) -> None:
                    assert store.load("afr", product, key, lite=lite) is not None

                base, ours = paired_ms(unsealed, sealed, args.runs)
                seal = median_ms(lambda s=store, p=path: s.sealer.open(p.read_bytes()), args.runs)
                worst = max(worst, ours / base)
                form = "lite" if lite else "full"
                print(
                    f"afr {product:5} {form}: {len(plain) / 1e6:5.2f} MB  unsealed {base:6.2f} ms  "
                    f"sealed {ours:6.2f} ms  ({ours / base:.2f}x; read + check alone {seal:4.2f} ms)   cold (compile + seal) "
                    f"{cold_ms:6.0f} ms"
                )
    print(f"worst warm ratio {worst:.2f}x (target <= 1.2)")
    return 0 if worst <= 1.2 else 1


if __name__ == "__main__":
    sys.exit(main())
