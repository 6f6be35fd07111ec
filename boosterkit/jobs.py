"""Work cut into parts, run in worker processes and merged in order (``--jobs N``).

``odds --simulate`` and ``simulate --games`` cut their packs or games into consecutive
ranges (``split``), each computed alone (pack or game *i* depends only on (seed, *i*)), and
merge the parts' results in order (``map_parts``), so any number of workers gives the
result of one process. ``open --jobs`` writes its blocks from the workers themselves
(``generator.parallel``) and shares ``workers_for``.

This process works too, and every process takes the next part left when it is done with one,
so a process slowed by others' work on its core does fewer. A run too short to repay a
worker's start (``least``) stays in this process.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from boosterkit.errors import BoosterkitError, InputError

if TYPE_CHECKING:
    from multiprocessing.context import ForkContext, SpawnContext

C = TypeVar("C")
P = TypeVar("P")
R = TypeVar("R")

#: Parts per worker: more than one, so that one slowed by others' work does fewer.
PARTS_PER_WORKER = 4
#: Freed memory a process doing batch work keeps at the top of its heap (``keep_freed``).
KEEP_FREED = 64 << 20
_M_TOP_PAD = -2  # glibc's mallopt parameter (malloc.h)


def keep_freed(size: int = KEEP_FREED) -> bool:
    """Let this process keep ``size`` bytes of freed memory at the top of its heap (glibc's
    ``mallopt(M_TOP_PAD)``) instead of handing it back at each free: batch work that frees
    and takes again megabytes a batch then does not fault its pages in each time (0.4 of
    the 1.6 CPU-seconds of ``odds afr -p set --simulate 1000000``, 278,000 page faults).
    Set by the commands that work in batches (``open``, ``odds --simulate``, ``simulate``),
    by ``serve`` (an answer of 36 packs is 290 KB: 0.24 -> 0.11 ms to write it) and by every
    worker process boosterkit starts; never by the library in a process it does not own.
    False where there is no glibc."""
    try:
        import ctypes

        return bool(ctypes.CDLL(None).mallopt(_M_TOP_PAD, size))
    except (OSError, AttributeError):  # not glibc (macOS, Windows): its allocator as it is
        return False


def freeze_loaded() -> None:
    """Keep what this process holds now (its modules, its app) out of the cyclic garbage
    collector's scans for good (``gc.freeze``): a serving process's full collections then
    scan only what it made since (about 80,000 objects fewer; a full collection of the
    service took 49 ms before, twice in 8,000 requests). Called by ``serve`` once its app
    is built, never by the library in a process it does not own."""
    gc.collect()  # what is garbage already is freed, not frozen
    gc.freeze()


def default_jobs() -> int:
    """The number of cores this process may run on (``--jobs 0``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def start_method() -> Literal["fork", "spawn"]:
    """How worker processes start: ``fork`` when this process runs a single thread on Linux
    (a worker then has the modules and the work's data already, and starts in milliseconds
    instead of about 0.4 s of imports), else ``spawn`` (a thread, e.g. DuckDB's, may hold a
    lock that a forked copy would never see released)."""
    import multiprocessing

    try:
        threads = len(os.listdir("/proc/self/task"))
    except OSError:  # not Linux: macOS's frameworks, say, are not safe to fork
        return "spawn"
    forks = "fork" in multiprocessing.get_all_start_methods()
    return "fork" if threads == 1 and forks else "spawn"


def start_context() -> ForkContext | SpawnContext:
    """The ``multiprocessing`` context of ``start_method``."""
    import multiprocessing

    if start_method() == "fork":
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def check_jobs(jobs: int) -> int:
    """``jobs`` if it is a number of processes (0: one per core), else ``InputError``."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise InputError(
            f"jobs: {jobs!r} is not a number of processes (0: one per core)", field="jobs"
        )
    return jobs


def jobs_note(asked: int, cores: int) -> str:
    """The line that says ``--jobs asked`` was capped at ``cores``."""
    return (
        f"--jobs {asked}: boosterkit may use {cores} core{'s' * (cores != 1)} here; using {cores}"
    )


def cap_jobs(jobs: int) -> tuple[int, str | None]:
    """``jobs`` at most the cores this process may run on (``default_jobs``; 0 stays 0: one
    per core), and the line saying so when it was more (``jobs_note``)."""
    cores = default_jobs()
    if check_jobs(jobs) > cores:
        return cores, jobs_note(jobs, cores)
    return jobs, None


def workers_for(jobs: int, units: int, least: int = 1) -> int:
    """Processes ``jobs`` (0: one per core) gives ``units`` of work: no more than the cores
    this process may run on (more only share them, each with its own memory), no more than
    one per ``least`` units (a worker's start costs about that much), and at least 1."""
    cores = default_jobs()
    wanted = cores if check_jobs(jobs) == 0 else min(jobs, cores)
    return max(1, min(wanted, units // max(1, least)))


def split(count: int, parts: int, align: int = 1, first: int = 1) -> list[range]:
    """``range(first, first + count)`` cut into at most ``parts`` consecutive ranges of about
    the same length, each a multiple of ``align`` long (as ``count`` must be)."""
    if count % align:
        raise ValueError(f"{count} is not a multiple of {align}")
    blocks = count // align
    parts = max(1, min(parts, blocks))
    cuts = [first + align * (blocks * k // parts) for k in range(parts + 1)]
    return [range(a, b) for a, b in zip(cuts, cuts[1:])]


def map_parts(
    work: Callable[[C, P], R],
    context: C,
    parts: Sequence[P],
    workers: int,
    prepare: Callable[[C], C] | None = None,
) -> list[R]:
    """``[work(context, part) for part in parts]``, with ``workers`` processes: this one and
    ``workers`` - 1 started ones (``start_context``), which receive ``work``, ``context`` and
    ``prepare`` once (spawned, they must pickle). Each process runs ``prepare(context)`` once
    and works with what it gives (e.g. a database handle opened from a path), taking the
    next part not taken yet until none is left. The first error ``work`` raised, in the
    parts' order, is raised here as it was raised (so the one a single process would have
    met); a worker that dies is a ``BoosterkitError``."""
    if workers <= 1 or len(parts) <= 1:
        return [work(context, part) for part in parts]
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    start = start_context()
    taken = start.Value("i", 0)  # parts taken so far, by every process
    helpers = min(workers, len(parts)) - 1
    pool = ProcessPoolExecutor(
        helpers,
        mp_context=start,
        initializer=_receive,
        initargs=(work, context, parts, taken, prepare),
    )
    done: dict[int, tuple[bool, Any]] = {}
    try:
        futures = [pool.submit(_drain) for _ in range(helpers)]

        def broken() -> bool:  # a worker died: stop, what it took is lost
            return any(f.done() and f.exception() is not None for f in futures)

        here = context if prepare is None else prepare(context)  # as each worker does
        done.update(_take(work, here, parts, taken, broken))
        for future in futures:
            done.update(future.result())
    except BrokenProcessPool as exc:
        raise BoosterkitError(
            "a worker process stopped without a word (killed?): run again, or with --jobs 1"
        ) from exc
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    results = []
    for k in range(len(parts)):  # parts after the first failure may not have been taken
        ok, value = done[k]
        if not ok:
            raise value
        results.append(value)
    return results


def _take(work: Callable[[Any, Any], Any], context: Any, parts: Sequence[Any], taken: Any,
          broken: Callable[[], bool] = lambda: False) -> dict[int, tuple[bool, Any]]:  # fmt: skip
    """The parts this process takes, until none is left, one fails or ``broken()`` (a worker
    died: the results are lost anyway): by number, (True, result) or (False, error)."""
    got: dict[int, tuple[bool, Any]] = {}
    while not broken():
        with taken.get_lock():
            k = taken.value
            taken.value = k + 1
        if k >= len(parts):
            break
        try:
            got[k] = (True, work(context, parts[k]))
        except Exception as exc:  # raised by map_parts if no earlier part failed
            got[k] = (False, exc)
            break
    return got


#: A worker process's one piece of state: what its initializer received.
_RECEIVED: dict[str, Any] = {}


def _receive(work: Callable[[Any, Any], Any], context: Any, parts: Any, taken: Any,
             prepare: Callable[[Any], Any] | None) -> None:  # fmt: skip
    keep_freed()
    context = context if prepare is None else prepare(context)
    _RECEIVED.update(work=work, context=context, parts=parts, taken=taken)


def _drain() -> dict[int, tuple[bool, Any]]:
    r = _RECEIVED
    return _take(r["work"], r["context"], r["parts"], r["taken"])
