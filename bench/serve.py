"""Benchmark the HTTP service: concurrent ``POST /packs`` and ``POST /deal`` against a real server.

Starts ``boosterkit serve`` on 127.0.0.1 (a free port) in a child process, sends a bounded
number of requests from this process with a pool of client threads, and prints throughput,
p50/p99 latency and the error count. The baseline, measured in the same run, is the same
library calls made in-process without HTTP, so the figures show what the service adds.

    .venv/bin/python bench/serve.py                  # builds a database from ../shared
    .venv/bin/python bench/serve.py --db my.duckdb --set neo --requests 400 --concurrency 16

    .venv/bin/python bench/serve.py --compare-workers  # /deal: --workers 2 against 1, A/B

Bounded: at most ``--requests`` requests per route and ``--max-seconds`` in all; it stops
the server itself. Exit status 1 when any request failed.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
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


def start_server(
    db: Path, port: int, log: Path, timeout: float = 30.0, workers: int = 1
) -> subprocess.Popen:
    """``boosterkit serve --workers N`` in a child process, its stderr to ``log``; waits for
    /health. The console script, not ``python -m``, which would put the working folder
    first on the path: run from a checkout, that checkout would be served whatever
    ``PYTHONPATH`` names (an A/B against another version's tree would measure one)."""
    cmd = [str(Path(sys.executable).with_name("boosterkit")), "--db", str(db), "serve",
           "--port", str(port), "--workers", str(workers)]  # fmt: skip
    return _spawn_until_healthy(cmd, port, log, timeout)


def _spawn_until_healthy(cmd: list[str], port: int, log: Path, timeout: float) -> subprocess.Popen:
    """``cmd`` in a child process, its stderr to ``log``, once it answers ``GET /health`` on
    ``port``; SystemExit if it exits or does not answer within ``timeout`` seconds."""
    with open(log, "w") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{cmd[1]} exited: {log.read_text().strip()}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    proc.terminate()
    raise SystemExit(
        f"{cmd[1]} did not answer /health within {timeout} s: {log.read_text().strip()}"
    )


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


class RawClient:
    """One keep-alive HTTP/1.1 connection written and read by hand: a client that costs
    a small fraction of the server's CPU per request (httpx costs about half of it), so on
    shared cores the load measures the server rather than the client."""

    def __init__(self, host: str, port: int) -> None:
        self.address = (host, port)
        self.sock: socket.socket | None = None
        self.buffer = b""

    def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        """POST ``body`` (JSON) to ``path``: the status and the answer's body."""
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.address[0]}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        if self.sock is None:
            self.sock = socket.create_connection(self.address, timeout=60)
        self.sock.sendall(head.encode() + body)
        while b"\r\n\r\n" not in self.buffer:
            self._read()
        header, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = header.split(b"\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in lines
            if line.lower().startswith(b"content-length:")
        )
        while len(self.buffer) < length:
            self._read()
        answer, self.buffer = self.buffer[:length], self.buffer[length:]
        return int(lines[0].split()[1]), answer

    def _read(self) -> None:
        assert self.sock is not None
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self.buffer += chunk

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()


def run_raw_load(
    url: str, bodies: list[dict[str, Any]], concurrency: int, stop_at: float
) -> dict[str, Any]:
    """``run_load`` with ``concurrency`` ``RawClient`` connections (new ones each call)."""
    parsed = httpx.URL(url)
    latencies: list[float] = []
    errors: list[str] = []
    queue = [json.dumps(b).encode() for b in bodies]
    lock = threading.Lock()

    def worker() -> None:
        client = RawClient(parsed.host, parsed.port or 80)
        try:
            while time.monotonic() < stop_at:
                with lock:
                    if not queue:
                        return
                    body = queue.pop()
                t0 = time.perf_counter()
                status, answer = client.post(parsed.path, body)
                if status == 200:
                    latencies.append((time.perf_counter() - t0) * 1000)
                else:
                    errors.append(f"{status}: {answer[:120]!r}")
        except OSError as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            client.close()

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    return {"requests": len(bodies), "seconds": elapsed, "latencies": latencies, "errors": errors}


def baseline(
    db: Path, packs: list[dict[str, Any]], deals: list[dict[str, Any]]
) -> dict[str, float]:
    """The same library calls in-process, one at a time: ms per call (median).

    Like the service, they keep compiled products in a handle's cache (the first call of
    each kind fills it; the median is the steady state)."""
    from boosterkit.cache import Cache
    from boosterkit.database import Database
    from boosterkit.generator import open_packs
    from boosterkit.minigames import deal
    from boosterkit.pipeline import db as pdb

    con = pdb.connect(db, read_only=True)
    cache = Database.of(con, cache=Cache())
    try:
        pack_ms, deal_ms = [], []
        for b in packs:
            t0 = time.perf_counter()
            open_packs(b["set"], product=b.get("product"), count=b["count"], seed=b["seed"],
                       db=cache)  # fmt: skip
            pack_ms.append((time.perf_counter() - t0) * 1000)
        for b in deals:
            t0 = time.perf_counter()
            deal(cache, b["minigame"], b["players"], set_code=b["set"], seed=b["seed"])
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


def server_cpu(pid: int) -> tuple[float, float]:
    """CPU seconds run, and seconds spent waiting for a core, by process ``pid`` and its
    children (every thread; Linux ``/proc/*/task/*/schedstat``)."""
    pids = [pid]
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdigit()
                and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid
            ):
                pids.append(int(entry.name))
        except OSError:
            continue
    run = wait = 0
    for p in pids:
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                fields = (task / "schedstat").read_text().split()
            except OSError:
                continue
            run, wait = run + int(fields[0]), wait + int(fields[1])
    return run / 1e9, wait / 1e9


def compare_workers(
    db: Path, tmp: Path, deals: list[dict[str, Any]], args: argparse.Namespace
) -> int:
    """``/deal`` throughput of ``serve --workers 2`` over ``--workers 1``: both servers up,
    loads interleaved A/B for ``--rounds`` rounds; the ratio of the median throughputs. With
    ``--floor``, the framework's floor (``floor_app.py``) with 1 and 2 uvicorn workers is
    loaded in the same rounds, for its own gain."""
    names = [("boosterkit", 1), ("boosterkit", 2)]
    if args.floor:
        names += [("floor", 1), ("floor", 2)]
    servers: dict[tuple[str, int], tuple[subprocess.Popen, str]] = {}
    rps: dict[tuple[str, int], list[float]] = {n: [] for n in names}
    cpu: dict[tuple[str, int], list[float]] = {n: [] for n in names}  # cores used, on average
    waited: dict[tuple[str, int], list[float]] = {n: [] for n in names}  # waiting for a core
    errors = 0
    folder: Path | None = None  # the floor's answers, from the first server
    try:
        for name, n in names:
            port = free_port()
            if name == "boosterkit":
                proc = start_server(db, port, tmp / f"serve{n}.log", workers=n)
            else:
                if folder is None:
                    first = servers[("boosterkit", 1)][1].removesuffix("/deal")
                    packs = {"set": args.set, "count": args.floor_count, "seed": 0}
                    folder = floor_answers(first, tmp / "floor", packs, deals[0])
                proc = start_floor(folder, port, tmp / f"floor{n}.log", n)
            servers[(name, n)] = (proc, f"http://127.0.0.1:{port}/deal")
        stop_at = time.monotonic() + args.max_seconds
        for key in names:  # warm every worker's kept product
            run_raw_load(servers[key][1], deals[:40], args.concurrency, stop_at)
        for r in range(args.rounds):
            for key in names if r % 2 == 0 else names[::-1]:
                before = server_cpu(servers[key][0].pid)
                result = run_raw_load(servers[key][1], deals, args.concurrency, stop_at)
                after = server_cpu(servers[key][0].pid)
                errors += len(result["errors"])
                rps[key].append(len(result["latencies"]) / result["seconds"])
                cpu[key].append((after[0] - before[0]) / result["seconds"])
                waited[key].append((after[1] - before[1]) / result["seconds"])
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            proc.wait(timeout=10)
    print(
        f"/deal at {args.concurrency} clients, {args.requests} requests a round, "
        f"{args.rounds} rounds A/B, {os.cpu_count()} cores"
    )
    for key in names:
        print(
            f"  {key[0]} --workers {key[1]}: {', '.join(f'{x:.0f}' for x in rps[key])} req/s "
            f"(median {statistics.median(rps[key]):.0f}); server on "
            f"{statistics.median(cpu[key]):.2f} cores, its threads waiting for one "
            f"{statistics.median(waited[key]):.2f}"
        )
    gains = {}
    for name in dict.fromkeys(k[0] for k in names):
        one, two = statistics.median(rps[(name, 1)]), statistics.median(rps[(name, 2)])
        ratios = [b / a for a, b in zip(rps[(name, 1)], rps[(name, 2)], strict=True)]
        gains[name] = two / one
        print(f"  {name} workers 2 / 1: {two / one:.2f}x (rounds {min(ratios):.2f}-"
              f"{max(ratios):.2f})")  # fmt: skip
    print(f"  target >= 1.6x (quiet machine)  errors {errors}")
    return 1 if errors or gains["boosterkit"] < 1.6 else 0


def floor_answers(url: str, folder: Path, packs: dict[str, Any], dealt: dict[str, Any]) -> Path:
    """boosterkit's answers to one request of each route, kept in ``folder`` for the floor."""
    folder.mkdir(exist_ok=True)
    for name, body in (("packs", packs), ("deal", dealt)):
        r = httpx.post(f"{url}/{name}", json=body, timeout=60)
        r.raise_for_status()
        (folder / f"{name}.json").write_bytes(r.content)
    (folder / "minigames.json").write_bytes(httpx.get(f"{url}/minigames", timeout=60).content)
    return folder


def start_floor(folder: Path, port: int, log: Path, workers: int = 1) -> subprocess.Popen:
    """``bench/floor_app.py`` (FastAPI + uvicorn, constant answers) in a child process."""
    cmd = [sys.executable, str(Path(__file__).with_name("floor_app.py")), str(folder), str(port),
           str(workers)]  # fmt: skip
    return _spawn_until_healthy(cmd, port, log, 30.0)


def compare_floor(db: Path, tmp: Path, args: argparse.Namespace) -> int:
    """``POST /packs`` (``--floor-count`` packs) and ``POST /deal`` of ``serve --workers 1``
    against the framework's floor (``floor_app.py``), A/B interleaved per route for
    ``--rounds`` rounds: throughput ratios (medians of the rounds' ratios) and server CPU a
    request."""
    bodies = {
        "packs": [{"set": args.set, "count": args.floor_count, "seed": s}
                  for s in range(args.requests)],
        "deal": [{"minigame": args.minigame, "players": args.floor_players, "set": args.set,
                  "seed": s} for s in range(args.requests)],
    }  # fmt: skip
    servers: dict[str, tuple[subprocess.Popen, str]] = {}
    rps: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], list[float]] = {}
    errors = 0
    try:
        port = free_port()
        servers["boosterkit"] = (start_server(db, port, tmp / "serve.log"),
                                 f"http://127.0.0.1:{port}")  # fmt: skip
        folder = floor_answers(servers["boosterkit"][1], tmp / "floor",
                               bodies["packs"][0], bodies["deal"][0])  # fmt: skip
        port = free_port()
        servers["floor"] = (start_floor(folder, port, tmp / "floor.log"),
                            f"http://127.0.0.1:{port}")  # fmt: skip
        stop_at = time.monotonic() + args.max_seconds
        for route in bodies:
            for name in servers:  # warm-up
                run_raw_load(f"{servers[name][1]}/{route}", bodies[route][:40],
                             args.concurrency, stop_at)  # fmt: skip
        for r in range(args.rounds):
            for route in bodies:
                for name in ("boosterkit", "floor") if r % 2 == 0 else ("floor", "boosterkit"):
                    proc, url = servers[name]
                    before = server_cpu(proc.pid)[0]
                    result = run_raw_load(f"{url}/{route}", bodies[route], args.concurrency,
                                          stop_at)  # fmt: skip
                    used = server_cpu(proc.pid)[0] - before
                    errors += len(result["errors"])
                    done = max(1, len(result["latencies"]))
                    rps.setdefault((name, route), []).append(done / result["seconds"])
                    cpu.setdefault((name, route), []).append(used / done * 1000)
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            proc.wait(timeout=10)
    print(
        f"boosterkit serve (1 worker) against FastAPI + uvicorn answering constant bytes, "
        f"{args.concurrency} clients, {args.requests} requests a round, {args.rounds} rounds "
        f"A/B, {os.cpu_count()} cores; /packs = {args.floor_count} {args.set} packs, /deal = "
        f"{args.minigame} for {args.floor_players}"
    )
    failed = bool(errors)
    for route in bodies:
        ours, floor = rps[("boosterkit", route)], rps[("floor", route)]
        ratios = [a / b for a, b in zip(ours, floor, strict=True)]
        ratio = statistics.median(ratios)
        failed |= ratio < 0.5
        print(
            f"  /{route:<6} {statistics.median(ours):7.0f} req/s against the floor's "
            f"{statistics.median(floor):7.0f}: {ratio:.2f}x (rounds {min(ratios):.2f}-"
            f"{max(ratios):.2f}; target >= 0.5x); server CPU a request "
            f"{statistics.median(cpu[('boosterkit', route)]):.2f} ms against "
            f"{statistics.median(cpu[('floor', route)]):.2f} ms"
        )
    print(f"  errors {errors}")
    return 1 if failed else 0


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
    ap.add_argument("--workers", type=int, default=1, help="serve --workers N (default 1)")
    ap.add_argument(
        "--compare-workers",
        action="store_true",
        help="only /deal: --workers 2 against --workers 1, interleaved (target >= 1.6x; with "
        "--floor, the floor's own gain in the same rounds)",
    )
    ap.add_argument("--rounds", type=int, default=4, help="A/B rounds of the comparisons")
    ap.add_argument(
        "--floor",
        action="store_true",
        help="/packs and /deal against a FastAPI app answering constant bytes (target >= 0.5x)",
    )
    ap.add_argument("--floor-count", type=int, default=36, help="packs a /packs of --floor")
    ap.add_argument("--floor-players", type=int, default=5, help="players a /deal of --floor")
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
        if args.compare_workers:
            return compare_workers(db, Path(tmp), deals, args)
        if args.floor:
            return compare_floor(db, Path(tmp), args)
        base = baseline(db, packs[:30], deals[:30])
        port = free_port()
        log = Path(tmp) / "serve.log"
        server = start_server(db, port, log, workers=args.workers)
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
