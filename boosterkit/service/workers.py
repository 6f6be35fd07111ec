"""``boosterkit serve --workers N``: N worker processes answering on one port.

Each worker is a whole service (``create_app``) over the same database file, opened
read-only (DuckDB lets several processes read a file at once): its own open, its own kept
products (in memory; the files beside the database are shared and written atomically), its
own ``Host`` check and its own budgets. The budgets of one process are divided among the
workers, so N workers hold about what one did: each takes ``MAX_PACKS_IN_FLIGHT / N`` packs
and ``MAX_BODY_BYTES_IN_FLIGHT / N`` body bytes, but never less than one largest request
(``MAX_PACKS`` packs, ``MAX_BODY_BYTES`` bytes), so any valid request still fits a worker.

Each worker listens on its own socket bound to the same address with ``SO_REUSEPORT``, so
the kernel spreads new connections over the workers. (One shared socket, as uvicorn's own
``--workers`` has, lets the first worker to wake accept a whole burst of connections: 8
keep-alive clients then all land on one worker and the other idles.) The parent process only
supervises: it starts the workers (``spawn``), starts again one that dies, and stops them all
on Ctrl-C or SIGTERM. Every worker holds its connections to ``connections.ConnectionGuard``'s
bounds (a deadline on request headers, connections per client). With as many workers as
CPUs, each keeps to its own CPU (``worker_cpu``).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from pathlib import Path

from fastapi import FastAPI

from boosterkit.errors import BoosterkitError
from boosterkit.jobs import default_jobs, freeze_loaded, keep_freed
from boosterkit.service.database import ReadOnlyDatabase
from boosterkit.service.limits import (
    MAX_BODY_BYTES_IN_FLIGHT,
    MAX_PACKS_IN_FLIGHT,
    WorkBudget,
    allowed_hosts,
)
from boosterkit.service.models import MAX_BODY_BYTES, MAX_PACKS


@dataclass(frozen=True)
class WorkerSettings:
    """What a worker needs to build its service: the database, its Host names, the count."""

    db_path: str
    allowed_hosts: list[str]
    workers: int


def pack_budget(workers: int) -> int:
    """Packs in flight one worker of ``workers`` allows."""
    return max(MAX_PACKS, MAX_PACKS_IN_FLIGHT // workers)


def body_budget(workers: int) -> int:
    """Request-body bytes in flight one worker of ``workers`` allows."""
    return max(MAX_BODY_BYTES, MAX_BODY_BYTES_IN_FLIGHT // workers)


def worker_app(settings: WorkerSettings) -> FastAPI:
    """One worker's service, with its share of the budgets."""
    from boosterkit.service.app import create_app

    return create_app(
        settings.db_path,
        allowed_hosts=settings.allowed_hosts,
        budget=WorkBudget(pack_budget(settings.workers)),
        body_budget=body_budget(settings.workers),
    )


def checked_settings(
    db_path: str | Path, host: str, extra_hosts: Iterable[str], workers: int | None
) -> WorkerSettings:
    """The settings ``serve`` runs with, once the database is found servable (read through
    once, now: a bad file is one line before anything listens). ``workers``: None for the
    number of cores."""
    ReadOnlyDatabase(db_path).check()
    return WorkerSettings(str(db_path), allowed_hosts(host, extra_hosts), workers or default_jobs())


class ListenError(BoosterkitError):
    """The address to serve on cannot be listened on (in use, not this machine's)."""


def listen(host: str, port: int, count: int) -> list[socket.socket]:
    """``count`` sockets listening on ``host:port`` with ``SO_REUSEPORT``.

    The address is first bound alone (without the option), so a port another server holds
    is refused rather than shared. The sockets say ``IPPROTO_TCP``: asyncio turns Nagle's
    algorithm off (``TCP_NODELAY``) only on connections of such a socket, and with it on, an
    answer written in two parts waits for the client's delayed ACK (40 ms a request)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    address = (host.strip("[]"), port)
    sockets: list[socket.socket] = []
    try:
        with socket.socket(family) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
        for _ in range(count):
            sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind(address)
            sock.listen(2048)
    except OSError as exc:
        for sock in sockets:
            sock.close()
        raise ListenError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    return sockets


def worker_cpu(index: int, workers: int) -> int | None:
    """The CPU worker ``index`` of ``workers`` keeps to, or None (not kept to one): with as
    many workers as CPUs this process may run on, one each, so each worker's code and data
    stay in its own core's caches (issue 36: two workers answered 1.63× one, 1.58× when
    the kernel moved them); with fewer workers (a CPU left to move to when another process
    loads one), more, or no ``sched_setaffinity`` (not Linux), none."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return None
    return cpus[index] if workers == len(cpus) and 0 <= index < workers else None


def _serve_one(
    settings: WorkerSettings, sock: socket.socket, index: int
) -> None:  # pragma: no cover
    """Worker ``index``: the service on ``sock`` until SIGTERM (run in the child)."""
    import uvicorn

    cpu = worker_cpu(index, settings.workers)
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})

    keep_freed()  # answers of hundreds of KB a request: their memory reused, not faulted in
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent, which stops us
    from boosterkit.service.connections import uvicorn_options

    config = uvicorn.Config(worker_app(settings), log_level="warning", **uvicorn_options())
    freeze_loaded()
    uvicorn.Server(config).run(sockets=[sock])


class Supervisor:
    """The parent of ``serve --workers N``: starts N workers, restarts one that exits."""

    def __init__(self, settings: WorkerSettings, sockets: list[socket.socket]) -> None:
        self.settings = settings
        self.sockets = sockets
        self.context = multiprocessing.get_context("spawn")
        self.processes: list[BaseProcess] = []
        self.stopping = threading.Event()

    def _start(self, sock: socket.socket) -> BaseProcess:
        index = self.sockets.index(sock)  # a worker started again takes its place's CPU
        process = self.context.Process(target=_serve_one, args=(self.settings, sock, index))
        process.start()
        return process

    def run(self) -> None:
        """Serve until a signal stops us, then stop the workers and wait for them."""
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: self.stopping.set())
        self.processes = [self._start(sock) for sock in self.sockets]
        try:
            while not self.stopping.wait(0.5):
                for i, process in enumerate(self.processes):
                    if not process.is_alive() and not self.stopping.is_set():
                        self.processes[i] = self._start(self.sockets[i])
        finally:
            for process in self.processes:
                process.terminate()  # SIGTERM: uvicorn finishes the requests in flight
            for process in self.processes:
                process.join(timeout=10)
                if process.is_alive():
                    process.kill()
            for sock in self.sockets:
                sock.close()


def run(
    settings: WorkerSettings, host: str, port: int, listening: Callable[[], None] = lambda: None
) -> None:
    """Serve with ``settings.workers`` processes until Ctrl-C or SIGTERM (1: in this one);
    ``listening`` is called once the port is taken (before the workers have started)."""
    if settings.workers == 1:
        import uvicorn

        keep_freed()  # this process serves: as each worker process does
        from boosterkit.service.connections import uvicorn_options

        app = worker_app(settings)
        freeze_loaded()
        listening()
        uvicorn.run(app, host=host, port=port, log_level="warning", **uvicorn_options())
        return
    sockets = listen(host, port, settings.workers)
    listening()
    Supervisor(settings, sockets).run()
