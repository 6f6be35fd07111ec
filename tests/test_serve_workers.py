"""``boosterkit serve --workers N``: worker processes on one port, each a whole service with
its share of the budgets (``service/workers.py``)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from boosterkit.cli.app import app as cli_app
from boosterkit.service import workers
from boosterkit.service.limits import MAX_BODY_BYTES_IN_FLIGHT, MAX_PACKS_IN_FLIGHT
from boosterkit.service.models import MAX_BODY_BYTES, MAX_PACKS

DEAL = {"minigame": "roll-for-initiative", "players": 4, "set": "afr", "seed": 2}


def test_the_budgets_divide_among_the_workers_but_hold_one_largest_request() -> None:
    assert workers.pack_budget(1) == MAX_PACKS_IN_FLIGHT == 720
    assert workers.pack_budget(2) == 360
    assert workers.pack_budget(8) == MAX_PACKS  # never less than one largest /packs
    assert workers.body_budget(1) == MAX_BODY_BYTES_IN_FLIGHT
    assert workers.body_budget(4) == MAX_BODY_BYTES_IN_FLIGHT // 4
    assert workers.body_budget(64) == MAX_BODY_BYTES


def test_a_worker_app_holds_its_share(built_db: Path) -> None:
    app = workers.worker_app(workers.WorkerSettings(str(built_db), ["127.0.0.1"], 2))
    assert app.state.budget.capacity == 360


def test_one_worker_freezes_what_it_loaded_before_it_serves(built_db: Path, monkeypatch) -> None:
    """``serve`` keeps its modules and app out of the collector's scans (``gc.freeze``) once
    the app is built, before the first request (issue 36: a full collection of the service
    scanned 80,000 objects it never frees, 49 ms each)."""
    import uvicorn

    calls: list[str] = []
    monkeypatch.setattr(workers, "keep_freed", lambda: calls.append("keep freed"))
    monkeypatch.setattr(workers, "freeze_loaded", lambda: calls.append("freeze"))
    monkeypatch.setattr(
        uvicorn, "run", lambda app, **kw: calls.append(f"serve {type(app).__name__}")
    )
    workers.run(workers.WorkerSettings(str(built_db), ["127.0.0.1"], 1), "127.0.0.1", 0)
    assert calls == ["keep freed", "freeze", "serve FastAPI"]


def test_with_as_many_workers_as_cpus_each_keeps_to_its_own(monkeypatch) -> None:
    """One CPU each, in order, when the workers are as many as the CPUs this process may run
    on; none kept to one otherwise (a CPU left to move to, or more workers than CPUs)."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3, 1})
    assert [workers.worker_cpu(i, 2) for i in range(2)] == [1, 3]
    assert workers.worker_cpu(0, 1) is None and workers.worker_cpu(2, 3) is None
    assert workers.worker_cpu(5, 2) is None


def test_listen_refuses_a_port_another_server_holds() -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        with pytest.raises(workers.ListenError, match=f"cannot listen on 127.0.0.1:{port}"):
            workers.listen("127.0.0.1", port, 2)


def test_listen_gives_each_worker_its_own_socket_on_the_port() -> None:
    sockets = workers.listen("127.0.0.1", 0, 1)  # port 0: any; one socket, then its port
    port = sockets[0].getsockname()[1]
    sockets[0].close()
    sockets = workers.listen("127.0.0.1", port, 3)
    try:
        assert {s.getsockname() for s in sockets} == {("127.0.0.1", port)}
        assert all(s.proto == socket.IPPROTO_TCP for s in sockets)  # asyncio's TCP_NODELAY
    finally:
        for s in sockets:
            s.close()


def test_workers_below_one_are_a_usage_error(built_db: Path) -> None:
    result = CliRunner().invoke(cli_app, ["--db", str(built_db), "serve", "--workers", "0"])
    assert result.exit_code == 2
    assert "--workers" in result.output


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit():
                continue
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[1]) == pid and b"spawn_main" in cmdline:
            found.append(int(entry.name))
    return sorted(found)


@pytest.fixture
def two_workers(built_db: Path, tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    """``boosterkit serve --workers 2`` on a free port of 127.0.0.1, answering /health."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("reads worker processes from /proc (Linux)")
    port = _free_port()
    log = (tmp_path / "serve.log").open("w")
    cmd = [sys.executable, "-m", "boosterkit.cli", "--db", str(built_db), "serve",
           "--port", str(port), "--workers", "2"]  # fmt: skip
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and server.poll() is None:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        assert server.poll() is None, (tmp_path / "serve.log").read_text()
        yield url, server
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        log.close()


def _wait_for(predicate, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_two_workers_answer_as_the_cli_check_hosts_and_survive_a_killed_worker(
    two_workers: tuple[str, subprocess.Popen], built_db: Path
) -> None:
    url, server = two_workers
    assert _wait_for(lambda: len(_children(server.pid)) == 2), _children(server.pid)
    expected = CliRunner().invoke(
        cli_app,
        [
            "--db",
            str(built_db),
            "deal",
            "roll-for-initiative",
            "--players",
            "4",
            "--set",
            "afr",
            "--seed",
            "2",
            "--format",
            "json",
        ],  # fmt: skip
    )
    assert expected.exit_code == 0, expected.output
    # a new connection each: the kernel spreads them over both workers' sockets
    answers = [httpx.post(f"{url}/deal", json=DEAL, timeout=30) for _ in range(12)]
    assert {(a.status_code, a.text) for a in answers} == {(200, expected.stdout)}
    refused = [
        httpx.get(f"{url}/health", headers={"Host": "evil.example"}, timeout=30) for _ in range(12)
    ]
    assert {r.status_code for r in refused} == {400}
    assert all("evil.example" in r.json()["error"] for r in refused)

    first = _children(server.pid)
    os.kill(first[0], signal.SIGKILL)  # a worker dies: the supervisor starts another
    assert _wait_for(lambda: len(set(_children(server.pid)) - {first[0]}) == 2)
    again = [httpx.post(f"{url}/deal", json=DEAL, timeout=30) for _ in range(6)]
    assert {(a.status_code, a.text) for a in again} == {(200, expected.stdout)}
    cpus = sorted(os.sched_getaffinity(0))
    kept = sorted(min(os.sched_getaffinity(pid)) for pid in _children(server.pid))
    if len(cpus) == 2:  # as many workers as CPUs: one each, the new worker on the dead one's
        assert kept == cpus and all(
            len(os.sched_getaffinity(p)) == 1 for p in _children(server.pid)
        )


def test_sigterm_stops_the_workers_with_the_server(
    two_workers: tuple[str, subprocess.Popen],
) -> None:
    url, server = two_workers
    assert _wait_for(lambda: len(_children(server.pid)) == 2)
    children = _children(server.pid)
    server.send_signal(signal.SIGTERM)
    assert server.wait(timeout=30) == 0
    assert _wait_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in children), 10)
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{url}/health", timeout=2)


def test_serve_on_a_held_port_is_one_line_and_exit_1(built_db: Path) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "boosterkit.cli",
                "--db",
                str(built_db),
                "serve",
                "--port",
                str(port),
                "--workers",
                "2",
            ],  # fmt: skip
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert (
        done.stderr
        == f"boosterkit: error: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    )
