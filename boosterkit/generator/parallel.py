"""Opening packs in worker processes that write straight to the output, in order
(``boosterkit open --jobs N``).

Pack *i* depends only on (seed, *i*), so the run splits into blocks of ``BLOCK`` packs
without changing a byte. Every process, this one included, takes the next block nobody has
taken (one shared counter), draws it, and writes it as its part of the whole output
(``output.write_part``) to the output's file descriptor, which every worker holds (the same
open file: the parts land one after the other) once the block before it is written (a
second counter). A process whose block is built before its turn takes the next one
meanwhile (``HELD``), and writes a held block as soon as its turn comes, between two slices
of the one it builds (``SLICE``): no process idles while another writes. Taking blocks in
turn rather than by a fixed stripe lets a process slowed by other work do fewer. (Piping
the bytes back to the parent would cost about what the workers save.)

The parent resolves the product once and hands it to the workers compiled: they never open
the database. A worker is forked when this process runs one thread (``jobs.start_method``):
it has the product and the modules already. Else it is spawned, from a thread: it imports
for about 0.4 s before it reads the run, and meanwhile this process draws.
"""

from __future__ import annotations

import contextlib
import errno
import multiprocessing
import os
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing import reduction
from multiprocessing.connection import Connection, wait
from typing import Any, TextIO

from boosterkit.generator.engine import CompiledProduct, open_compiled
from boosterkit.generator.lazy import JsonLines
from boosterkit.generator.output import PARTED, utf8_buffer, write_packs, write_part
from boosterkit.jobs import default_jobs, keep_freed, start_context, workers_for

__all__ = ["BLOCK", "Run", "default_jobs", "jobs_for", "write_parallel"]

#: Packs a worker draws and writes at a time.
BLOCK = 4096


def jobs_for(jobs: int, count: int, fmt: str) -> int:
    """Worker processes ``--jobs`` gives a run of ``count`` packs in ``fmt`` (0: the cores):
    1 (no worker: this process writes) for a run of one block or a format written whole."""
    return 1 if fmt not in PARTED else workers_for(jobs, -(-count // BLOCK))


@dataclass(frozen=True)
class Run:
    """What every worker knows of the run."""

    compiled: CompiledProduct
    seed: int
    count: int
    fmt: str
    csv_raw: bool
    jobs: int
    block: int = BLOCK  # packs a worker draws and writes at a time


class _Fd:
    """A file descriptor a spawned worker receives a duplicate of (by number)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __reduce__(self) -> tuple[Any, ...]:
        return (_received, (reduction.DupFd(self.fd),))


def _received(dup: Any) -> int:
    fd: int = dup.detach()
    return fd


def _write_all(fd: int, pieces: list[bytes]) -> None:
    """Write ``pieces`` to ``fd``, up to 512 in each system call (``writev``)."""
    for k in range(0, len(pieces), 512):
        group: list[bytes | memoryview] = list(pieces[k : k + 512])
        done = 0  # pieces of the group written whole
        while done < len(group):
            written = os.writev(fd, group[done:])
            while done < len(group) and written >= len(group[done]):
                written -= len(group[done])
                done += 1
            if written:  # a piece written in part: the rest of it next
                group[done] = memoryview(group[done])[written:]


@dataclass(frozen=True)
class _Order:
    """The counters the processes share: the next block to take, the blocks written. No
    lock is held across a write or a wait, so a worker killed at any point leaves nothing
    the others block on: they see its report pipe close (``stop``)."""

    taken: Any  # multiprocessing.Value("q"): its lock is taken with a timeout
    written: Any  # multiprocessing.Value("q", lock=False): set only by the block's writer


def _order(context: Any) -> _Order:
    return _Order(context.Value("q", 0), context.Value("q", 0, lock=False))


def _waiting(stop: Any) -> Iterator[None]:
    """Yields while a caller waits (1 ms apart), calling ``stop`` every 0.2 s."""
    checked = time.monotonic()
    while True:
        yield
        time.sleep(0.001)
        if stop is not None and time.monotonic() - checked >= 0.2:
            stop()
            checked = time.monotonic()


def _take(order: _Order, blocks: int, stop: Any) -> int | None:
    """The next block to draw, or None when none is left. ``stop`` is called first: a worker
    whose parent was killed between two blocks draws no more (it could draw the rest of
    the run alone: it waits, and so checks, only when a block before its own is missing)."""
    if stop is not None:
        stop()
    lock = order.taken.get_lock()
    for _ in _waiting(stop):
        if lock.acquire(timeout=0.2):
            break
    try:
        b: int = order.taken.value
        if b >= blocks:
            return None
        order.taken.value = b + 1
        return b
    finally:
        lock.release()


#: Blocks a process holds built, waiting for their turn to be written, before it waits.
HELD = 2
#: Packs of a block written as one part: between two, the blocks whose turn has come are
#: written (``_Held.write_ready``), so no process waits on one still being built.
SLICE = 512


class _Held:
    """The blocks a process has built and not yet written, oldest first."""

    def __init__(self, order: _Order, fd: int) -> None:
        self.order, self.fd = order, fd
        self.blocks: deque[tuple[int, list[bytes]]] = deque()

    def write_ready(self) -> None:
        """Write the held blocks whose turn has come (the block before each is written)."""
        written = self.order.written
        while self.blocks and written.value == self.blocks[0][0]:
            b, data = self.blocks.popleft()
            _write_all(self.fd, data)
            written.value = b + 1

    def write_oldest(self, stop: Any) -> None:
        """Wait for the oldest held block's turn, then write it (and any ready after it)."""
        for _ in _waiting(stop):
            if self.order.written.value == self.blocks[0][0]:
                break
        self.write_ready()


def _blocks(run: Run, order: _Order, fd: int, stop: Any = None) -> None:
    """Blocks taken in turn until none is left, each written after the one before it: a
    process that has built a block before its turn takes the next one meanwhile (up to
    ``HELD`` built). ``stop``: called while waiting (every 0.2 s); it raises when the run has
    failed elsewhere."""
    blocks = -(-run.count // run.block)
    lines = JsonLines()
    held = _Held(order, fd)
    while (b := _take(order, blocks, stop)) is not None:
        start = 1 + b * run.block
        packs = open_compiled(run.compiled, run.seed, start, min(run.block, run.count + 1 - start))
        data: list[bytes] = []
        for k in range(0, len(packs), SLICE):
            data += write_part(packs[k : k + SLICE], run.fmt, first=b == 0 and k == 0,
                               last=b == blocks - 1 and k + SLICE >= len(packs),
                               csv_raw=run.csv_raw, lines=lines)  # fmt: skip
            held.write_ready()
        del packs
        held.blocks.append((b, data))
        held.write_ready()
        if len(held.blocks) >= HELD:
            held.write_oldest(stop)
    while held.blocks:
        held.write_oldest(stop)


def _work(run: Run, order: _Order, fd: int | _Fd, report: Connection) -> None:
    """A worker process: the blocks it takes; reports None or the failure. ``fd``: the
    output's descriptor (a forked worker has it as a ``_Fd``, a spawned one as a number)."""
    keep_freed()
    try:
        _blocks(run, order, fd.fd if isinstance(fd, _Fd) else fd, stop=_orphaned)
    except OSError as exc:
        _report(report, (exc.errno, exc.strerror or str(exc)))
    except BaseException as exc:  # a bug: said, not swallowed
        _report(report, (None, f"{type(exc).__name__}: {exc}"))
        raise
    else:
        _report(report, None)


def _report(report: Connection, what: tuple[int | None, str] | None) -> None:
    with contextlib.suppress(OSError):  # the process that started this one is gone
        report.send(what)


def write_parallel(run: Run, out: TextIO) -> int:
    """Write the run's packs to ``out`` (flushed first) with ``run.jobs`` workers, this
    process the first of them (it has the product and the modules already); the number of
    packs. A worker's failed write is raised here as that ``OSError`` (a full disk, a
    closed pipe), and stops the others. One job, or an ``out`` that does not take UTF-8
    bytes as they are (``output.utf8_buffer``): written here, the same bytes."""
    fd = _fd(out) if run.jobs > 1 else None
    if fd is None:
        packs = (p for s in range(1, run.count + 1, run.block)
                 for p in open_compiled(run.compiled, run.seed, s, min(run.block, run.count + 1 - s)))  # fmt: skip
        return write_packs(packs, run.fmt, out, csv_raw=run.csv_raw)
    context = start_context()
    order = _order(context)
    workers = _Workers(context)
    failure: tuple[int | None, str] | None = (None, "interrupted")
    try:
        for _ in range(1, run.jobs):
            workers.start(_work, (run, order, _Fd(fd)))
        _blocks(run, order, fd, stop=lambda: _raise(_wait(workers.reports, block=False)))
        failure = _wait(workers.reports)
    except OSError as exc:
        failure = (exc.errno, exc.strerror or str(exc))
    finally:
        workers.stop(failed=failure is not None)
    _raise(failure)
    return run.count


class _Workers:
    """The worker processes of a run, each with the pipe it reports on."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self.reports: list[Connection] = []
        self.processes: list[Any] = []
        self.starting: list[threading.Thread] = []

    def start(self, target: Any, args: tuple[Any, ...]) -> None:
        """Start one: forked here (in milliseconds, and only from this thread), or spawned
        from a thread (the run is sent to it once it has imported: meanwhile this process
        draws)."""
        receive, send = self.context.Pipe(duplex=False)
        process = self.context.Process(target=target, args=(*args, send))
        self.reports.append(receive)
        self.processes.append(process)
        if self.context.get_start_method() == "fork":
            _start(process, send)
        else:
            self.starting.append(threading.Thread(target=_start, args=(process, send)))
            self.starting[-1].start()

    def stop(self, *, failed: bool) -> None:
        """Wait for every one; after a failure, stop those still running first (one may
        wait for a block that will not be written)."""
        for thread in self.starting:
            thread.join()
        for process in self.processes:
            if failed and process.is_alive():
                process.terminate()
            if process.pid is not None:  # not if it could not start
                process.join()


def _start(process: Any, send: Connection) -> None:
    """Start ``process``, then close this process's end of its report pipe. One that
    cannot start reports so on that pipe itself (as a failure of the run)."""
    try:
        process.start()
    except Exception as exc:  # noqa: BLE001 - said as the run's failure, one line
        send.send((getattr(exc, "errno", None), f"a worker process could not start: {exc}"))
    finally:
        send.close()


def _orphaned() -> None:
    """In a worker: raise once the process that started it is gone (killed)."""
    parent = multiprocessing.parent_process()
    if parent is not None and not parent.is_alive():
        raise OSError(errno.EPIPE, "the process that started this worker stopped")


def _raise(failure: tuple[int | None, str] | None) -> None:
    if failure is not None:
        code, message = failure
        raise OSError(code or errno.EIO, message)


def _fd(out: TextIO) -> int | None:
    """The file descriptor the workers write ``out``'s bytes to (``out`` flushed), or None
    when ``out`` has none or does not take UTF-8 bytes as they are."""
    if utf8_buffer(out) is None:
        return None
    try:
        return out.fileno()
    except (OSError, ValueError):  # io.UnsupportedOperation: an in-memory stream
        return None


def _wait(reports: list[Connection], block: bool = True) -> tuple[int | None, str] | None:
    """Every worker's report, or the first failure (then the others are stopped); with
    ``block`` False, only the reports already sent (and each is taken from ``reports``)."""
    left = reports if not block else list(reports)
    while left:
        ready_now = wait(left, timeout=None if block else 0)
        if not ready_now:
            return None
        for ready in ready_now:
            assert isinstance(ready, Connection)
            left.remove(ready)
            try:
                got = ready.recv()
            except EOFError:  # died without a word (killed)
                return (None, "a worker process stopped")
            if got is not None:
                return (got[0], got[1])
    return None
