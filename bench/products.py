"""Import and product-compilation speed (issue 3), each against a naive baseline in the same run.

1. Bulk writing of the product tables: ``collation.insert_rows`` (one NDJSON scan by DuckDB)
   vs ``executemany`` of the same rows, on the sealed-data export's sheet cards (baseline on a
   sample, reported per row so the two compare).
2. ``import_collation`` of the whole export (329 products) and ``import_mtgjson`` of the ten
   shared MTGJSON files, wall time.
3. Compiling every AFR product with ``resolve_product`` (two SQL queries for the sheets) vs a
   naive compile that looks each sheet card up with its own query.
4. ``sync afr`` with and without MTGJSON's booster data, against the tests' fake Scryfall and
   fake MTGJSON on 127.0.0.1 serving the shared files (AFR.json, MAFR.json; the other child
   sets answer 404): the extra time MTGJSON costs, with the clients' real pacing (what a
   user waits) and with pacing off (fetch + import work alone). Best of ``--repeat`` runs.

Target: compiling all of AFR's products well under a second (< 1 s) and faster than the naive
compile; bulk insert faster per row than executemany. Exit status 1 when a target is missed.

    .venv/bin/python bench/products.py [--sample 20000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "scryfall"
MTGJSON = ("AFR", "KHM", "ZNR", "STX", "MH2", "MAFR", "MKHM", "MZNR", "MSTX", "MMH2")


def _sheet_card_rows() -> list[dict]:
    from boosterkit.pipeline.collation import read_sealed

    products = read_sealed(SHARED / "boosters" / "sealed_basic_data.json")
    return [
        {"product_code": p["code"], "sheet_name": s["name"], **c}
        for p in products
        for s in p["sheets"]
        for c in s["cards"]
    ]


def bench_insert(sample: int) -> tuple[float, float]:
    """Seconds per 100k rows: NDJSON scan, executemany."""
    from boosterkit.pipeline import db
    from boosterkit.pipeline.collation import _TABLES, insert_rows

    rows = _sheet_card_rows()
    cols = _TABLES["sheet_cards"]
    con = db.connect(":memory:")
    t = time.perf_counter()
    insert_rows(con, "sheet_cards", cols, rows)
    bulk = (time.perf_counter() - t) / len(rows) * 1e5
    con.execute("DELETE FROM sheet_cards")
    part = rows[:sample]
    t = time.perf_counter()
    con.executemany(
        f"INSERT INTO sheet_cards ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
        [[r[c] for c in cols] for r in part],
    )
    naive = (time.perf_counter() - t) / len(part) * 1e5
    print(
        f"sheet_cards bulk insert: {len(rows)} rows; NDJSON scan {bulk:.3f} s/100k rows, "
        f"executemany {naive:.3f} s/100k rows (sample {len(part)}) -> {naive / bulk:.1f}x"
    )
    return bulk, naive


def build(folder: Path) -> Path:
    from boosterkit.pipeline import db
    from boosterkit.pipeline.collation import import_collation
    from boosterkit.pipeline.mtgjson import import_mtgjson

    path = folder / "bench.duckdb"
    con = db.connect(path)
    t = time.perf_counter()
    s = import_mtgjson(con, [SHARED / "mtgjson" / f"{c}.json" for c in MTGJSON])
    t1 = time.perf_counter() - t
    t = time.perf_counter()
    c = import_collation(con, SHARED / "boosters" / "sealed_basic_data.json")
    t2 = time.perf_counter() - t
    print(
        f"import mtgjson: {len(MTGJSON)} files, {s['cards']} printings, {len(s['products'])} products "
        f"in {t1:.2f} s"
    )
    print(
        f"import collation: {c['products']} products, {c['sheet_cards']} sheet cards in {t2:.2f} s"
    )
    con.close()
    return path


def naive_compile(con, code: str) -> int:
    """Baseline: every sheet card looked up with its own query (what we avoid)."""
    refs = con.execute(
        "SELECT set_code, collector_number, ref FROM sheet_cards WHERE product_code = ?", [code]
    ).fetchall()
    found = 0
    for set_code, number, ref in refs:
        row = con.execute(
            "SELECT id, name, rarity, kind, magic_back, type_line, colors, mana_value, layout FROM cards "
            "WHERE id = (SELECT card_id FROM mtgjson_uuids WHERE uuid = ?) "
            "OR (set_code = ? AND collector_number = ?) LIMIT 1",
            [ref, set_code, number],
        ).fetchone()
        found += row is not None
    return found


def bench_compile(path: Path) -> tuple[float, float]:
    from boosterkit.generator.products import list_products, resolve_product
    from boosterkit.pipeline import db

    con = db.connect(path, read_only=True)
    codes = [p["code"] for p in list_products(con, "afr")]
    resolve_product(con, "afr", codes[0])  # warm-up (YAML, query plans)
    t = time.perf_counter()
    for code in codes:
        resolve_product(con, "afr", code)
    ours = time.perf_counter() - t
    t = time.perf_counter()
    for code in codes:
        naive_compile(con, code)
    naive = time.perf_counter() - t
    t = time.perf_counter()
    listing = list_products(con, "afr")
    lst = time.perf_counter() - t
    print(
        f"compile all {len(codes)} AFR products: {ours:.3f} s "
        f"({ours / len(codes) * 1000:.1f} ms each); naive per-card lookups {naive:.3f} s "
        f"-> {naive / ours:.1f}x; list_products(afr) {lst:.3f} s, "
        f"{len(json.dumps(listing, default=str)) // 1024} KiB JSON"
    )
    con.close()
    return ours, naive


def _sync_once(
    code: str, api_url: str, mj_url: str, use_mtgjson: bool, pace: bool
) -> tuple[float, dict]:
    from boosterkit.pipeline import db, sync
    from boosterkit.pipeline.mtgjson_client import MtgjsonClient
    from boosterkit.pipeline.scryfall.client import ScryfallClient

    kw = {} if pace else {"sleep": lambda s: None}
    with tempfile.TemporaryDirectory() as tmp:
        con = db.connect(Path(tmp) / "s.duckdb")
        t = time.perf_counter()
        s = sync.sync_sets(
            con,
            [code],
            cache=Path(tmp) / "s.cache",
            client=ScryfallClient(api_url, **kw),
            mtgjson=MtgjsonClient(mj_url, **kw),
            use_mtgjson=use_mtgjson,
        )
        took = time.perf_counter() - t
        con.close()
    return took, s


def bench_sync_mtgjson(repeat: int, code: str = "afr") -> tuple[float, float]:
    """Seconds of ``sync CODE`` without and with MTGJSON (paced); prints both modes."""
    sys.path.insert(0, str(ROOT / "tests"))
    from mtgjson_server import FakeMtgjson
    from scryfall_server import FakeScryfall

    result = (0.0, 0.0)
    with FakeScryfall(root=SHARED) as api, FakeMtgjson(roots=(SHARED / "mtgjson",)) as mj:
        for pace in (True, False):
            best = {}
            for use in (False, True):
                runs = [_sync_once(code, api.url, mj.url, use, pace) for _ in range(repeat)]
                best[use] = min(r[0] for r in runs)
                summary = runs[0][1]
            m = summary["mtgjson"]
            extra = best[True] - best[False]
            print(
                f"sync {code} ({'paced' if pace else 'pacing off'}): without MTGJSON {best[False]:.2f} s, "
                f"with {best[True]:.2f} s -> +{extra:.2f} s ({best[True] / best[False]:.2f}x); "
                f"MTGJSON: {len(summary['set_codes'])} files asked, {len(m['sets'])} sets loaded "
                f"({', '.join(m['sets'])}), {m['cards']} printings, {len(m['products'])} products, "
                f"{len(m['missing'])} x 404"
            )
            if pace:
                result = (best[False], best[True])
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=20000, help="rows for the executemany baseline")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each sync (best is printed)")
    args = ap.parse_args()
    bulk, naive_ins = bench_insert(args.sample)
    with tempfile.TemporaryDirectory() as tmp:
        path = build(Path(tmp))
        ours, naive = bench_compile(path)
    bench_sync_mtgjson(args.repeat)
    ok = ours < 1.0 and ours < naive and bulk < naive_ins
    print("targets:", "met" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
