"""``Item`` record speed: building, reading and pickling items against plain tuples.

Builds a database from the shared MTGJSON AFR files and the magic-sealed-data export in a
temporary folder, compiles the AFR Set Booster, draws ``--packs`` packs' prototype ids, then
times, best of ``--tries`` (taken in turn), each against a plain-tuple baseline in the same run:

1. build: ``build_items`` (what ``Pack.items`` runs: ``(uid,) + prototype`` as an ``Item``) vs
   the same tuples built as plain ``tuple`` objects;
2. read: five fields of every item by name (``item.name``, ``.rarity``, ``.foil``, ``.kind``,
   ``.colors``) vs the same five by position on the plain tuples;
3. pickle: ``pickle.dumps``/``loads`` of every pack's items vs the plain tuples (and that the
   items come back equal, as ``Item`` objects).

No target: the figures compare two ``Item`` implementations run one after the other.

    .venv/bin/python bench/items.py [--packs 20000] [--tries 5]
"""

from __future__ import annotations

import argparse
import gc
import pickle
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import build_db  # bench/common.py: the script folder is on sys.path


def best_pair(a: Callable[[], Any], b: Callable[[], Any], tries: int) -> tuple[float, float]:
    """Fastest of ``tries`` runs of ``a`` and of ``b``, in seconds, run in turn so that both see
    the same load (the machine is shared)."""
    times: tuple[list[float], list[float]] = ([], [])
    gc.collect()
    gc.disable()  # the cyclic collector rescanning the kept items would dominate the figures
    try:
        for _ in range(tries):
            for fn, out in ((a, times[0]), (b, times[1])):
                t = time.perf_counter()
                fn()
                out.append(time.perf_counter() - t)
    finally:
        gc.enable()
    return min(times[0]), min(times[1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--packs", type=int, default=20_000)
    ap.add_argument("--tries", type=int, default=5)
    args = ap.parse_args()

    from boosterkit.generator.cache import load_product
    from boosterkit.generator.engine import compile_product, draw_batch
    from boosterkit.generator.lazy import build_items
    from boosterkit.generator.model import Item
    from boosterkit.pipeline import db as pdb

    with tempfile.TemporaryDirectory() as tmp:
        con = pdb.connect(build_db(Path(tmp)), read_only=True)
        cp = compile_product(load_product("afr", "set", con))
        con.close()
    _, rows = draw_batch(cp, 1, 1, args.packs)
    fields = cp.item_fields
    n = sum(len(r) for r in rows)

    def build_items_all() -> list[list[Item]]:
        return [build_items(fields, i, r) for i, r in enumerate(rows, 1)]

    def build_tuples() -> list[list[tuple[Any, ...]]]:
        return [
            [(f"p{i}-{k}",) + fields[p] for k, p in enumerate(r, 1)] for i, r in enumerate(rows, 1)
        ]

    items, plain = build_items_all(), build_tuples()
    flat_items = [it for pack in items for it in pack]
    flat_plain = [t for pack in plain for t in pack]

    def read_items() -> None:
        for it in flat_items:
            it.name, it.rarity, it.foil, it.kind, it.colors  # noqa: B018

    def read_tuples() -> None:
        for t in flat_plain:
            t[2], t[5], t[6], t[8], t[12]  # noqa: B018

    back = pickle.loads(pickle.dumps(items))
    assert back == items and type(back[0][0]) is Item, "items do not pickle"
    figures = [
        ("build", *best_pair(build_items_all, build_tuples, args.tries)),
        ("read x5", *best_pair(read_items, read_tuples, args.tries)),
        (
            "pickle",
            *best_pair(
                lambda: pickle.loads(pickle.dumps(items)),
                lambda: pickle.loads(pickle.dumps(plain)),
                args.tries,
            ),
        ),
    ]
    print(f"{args.packs:,} AFR Set Boosters, {n:,} items")
    print(f"{'':10} {'Item ns/item':>13} {'tuple ns/item':>14} {'ratio':>6}")
    for what, t_item, t_plain in figures:
        print(
            f"{what:10} {t_item / n * 1e9:13.1f} {t_plain / n * 1e9:14.1f} {t_item / t_plain:6.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
