"""Benchmark the HTTP service: concurrent ``POST /packs`` and ``POST /deal`` against a real server.

Starts ``boosterkit serve`` on 127.0.0.1 (a free port) in a child process, sends a bounded
number of requests from this process with a pool of client threads, and prints throughput,
p50/p99 latency and the error count. The baseline, measured in the same run, is the same
library calls made in-process without HTTP, so the figures show what the service adds.

    .venv/bin/python bench/serve.py                  # builds a database from ../shared
    .venv/bin/python bench/serve.py --db my.duckdb --set neo --requests 400 --concurrency 16

Bounded: at most ``--requests`` requests per route and ``--max-seconds`` in all; it stops
the server itself. Exit status 1 when any request failed.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "scryfall"


def build_db(folder: Path) -> Path:
    """A database with AFR, its minigames, The List and the sealed-data products, from
    ../shared (as the README's first command builds it: without The List, some seeds' Set
    Boosters hold a List card the database lacks and the deal is refused)."""
    from boosterkit.pipeline import db
    from boosterkit.pipeline.collation import import_collation
    from boosterkit.pipeline.mtgjson import import_mtgjson

    path = folder / "bench.duckdb"
    con = db.connect(path)
    try:
        import_mtgjson(
            con, [SHARED / "mtgjson" / f"{code}.json" for code in ("AFR", "MAFR", "PLIST")]
        )
        import_collation(con, SHARED / "boosters" / "sealed_basic_data.json")
    finally:
        con.close()
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: Path, port: int, log: Path, timeout: float = 30.0) -> subprocess.Popen:
    """``boosterkit serve`` in a child process, its stderr to ``log``; waits for /health."""
    cmd = [sys.executable, "-m", "boosterkit.cli", "--db", str(db), "serve", "--port", str(port)]
    with open(log, "w") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {log.read_text().strip()}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    proc.terminate()
    raise SystemExit(f"server did not answer /health within {timeout} s")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def run_load(
    url: str, bodies: list[dict[str, Any]], concurrency: int, stop_at: float
) -> dict[str, Any]:
    """POST each body once with ``concurrency`` threads; latencies in ms, errors counted."""
    latencies: list[float] = []
    errors: list[str] = []

    def one(client: httpx.Client, body: dict[str, Any]) -> None:
        if time.monotonic() > stop_at:
            errors.append("skipped: time limit")
            return
        t0 = time.perf_counter()
        try:
            r = client.post(url, json=body, timeout=60)
            ok = r.status_code == 200
            if not ok:
                errors.append(f"{r.status_code}: {r.text[:120]}")
        except httpx.HTTPError as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
            return
        if ok:
            latencies.append((time.perf_counter() - t0) * 1000)

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    with httpx.Client(limits=limits) as client, ThreadPoolExecutor(concurrency) as pool:
        t0 = time.perf_counter()
        list(pool.map(lambda b: one(client, b), bodies))
        elapsed = time.perf_counter() - t0
    return {"requests": len(bodies), "seconds": elapsed, "latencies": latencies, "errors": errors}


def baseline(
    db: Path, packs: list[dict[str, Any]], deals: list[dict[str, Any]]
) -> dict[str, float]:
    """The same library calls in-process, one at a time: ms per call (median).

    Like the service, they keep compiled products in a ``ProductCache`` (the first call of
    each kind fills it; the median is the steady state)."""
    from boosterkit.generator import open_packs
    from boosterkit.generator.cache import ProductCache
    from boosterkit.minigames import deal
    from boosterkit.pipeline import db as pdb

    con = pdb.connect(db, read_only=True)
    cache = ProductCache()
    try:
        pack_ms, deal_ms = [], []
        for b in packs:
            t0 = time.perf_counter()
            open_packs(b["set"], product=b.get("product"), count=b["count"], seed=b["seed"], db=con,
                       products=cache)  # fmt: skip
            pack_ms.append((time.perf_counter() - t0) * 1000)
        for b in deals:
            t0 = time.perf_counter()
            deal(con, b["minigame"], b["players"], set_code=b["set"], seed=b["seed"],
                 products=cache)  # fmt: skip
            deal_ms.append((time.perf_counter() - t0) * 1000)
    finally:
        con.close()
    return {"packs": statistics.median(pack_ms), "deal": statistics.median(deal_ms)}


def report(name: str, result: dict[str, Any], concurrency: int, base_ms: float) -> None:
    lat = result["latencies"]
    rps = len(lat) / result["seconds"] if result["seconds"] else 0.0
    print(
        f"{name:<7} {result['requests']:>5} requests  concurrency {concurrency:>3}  "
        f"{rps:8.1f} req/s  p50 {percentile(lat, 0.50):7.1f} ms  p99 {percentile(lat, 0.99):7.1f} ms  "
        f"errors {len(result['errors'])}   | in-process baseline {base_ms:6.1f} ms/call "
        f"({1000 / base_ms:6.1f} calls/s on one thread)"
    )
    for e in sorted(set(result["errors"]))[:5]:
        print(f"        error: {e}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, help="database to serve (default: built from ../shared)")
    ap.add_argument("--set", default="afr")
    ap.add_argument("--product", default=None)
    ap.add_argument("--count", type=int, default=3, help="packs per /packs request")
    ap.add_argument("--minigame", default="roll-for-initiative")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--requests", type=int, default=200, help="requests per route (bounded)")
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--max-seconds", type=float, default=240.0, help="hard stop for the whole load")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or build_db(Path(tmp))
        packs = [
            {"set": args.set, "product": args.product, "count": args.count, "seed": s}
            for s in range(args.requests)
        ]
        deals = [
            {"minigame": args.minigame, "players": args.players, "set": args.set, "seed": s}
            for s in range(args.requests)
        ]
        base = baseline(db, packs[:30], deals[:30])
        port = free_port()
        log = Path(tmp) / "serve.log"
        server = start_server(db, port, log)
        try:
            stop_at = time.monotonic() + args.max_seconds
            url = f"http://127.0.0.1:{port}"
            run_load(f"{url}/packs", packs[:10], args.concurrency, stop_at)  # warm-up
            run_load(f"{url}/deal", deals[:10], args.concurrency, stop_at)
            packs_result = run_load(f"{url}/packs", packs, args.concurrency, stop_at)
            deal_result = run_load(f"{url}/deal", deals, args.concurrency, stop_at)
        finally:
            server.terminate()
            server.wait(timeout=10)
            server_errors = [
                line for line in log.read_text().splitlines() if line.startswith("ERROR")
            ]
    print(
        f"boosterkit serve on 127.0.0.1, {os.cpu_count()} cores; /packs = {args.count} "
        f"{args.set} packs per request; /deal = {args.minigame} for {args.players} players"
    )
    report("/packs", packs_result, args.concurrency, base["packs"])
    report("/deal", deal_result, args.concurrency, base["deal"])
    print(f"server log: {len(server_errors)} ERROR lines")
    errors = len(packs_result["errors"]) + len(deal_result["errors"]) + len(server_errors)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
