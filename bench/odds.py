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

Prints seconds and ratios (baseline / ours). No targets: figures for docs/speed.md.

    .venv/bin/python bench/odds.py [--packs 100000]
"""

from __future__ import annotations

import argparse
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packs", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = build_db(Path(tmp))
        for kind in ("draft", "set"):
            print(measure(path, kind, args.packs))


if __name__ == "__main__":
    main()
