"""``open --jobs N`` (``generator/parallel.py``): worker processes writing their blocks in
order give byte for byte the output of one process, in every format written in parts,
whether they are forked or spawned (``jobs.start_method``)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_engine import extras_product

from boosterkit import jobs
from boosterkit.generator import engine, parallel
from boosterkit.generator.output import PARTED, write_packs


def _serial(cp, seed: int, count: int, fmt: str, path: Path) -> bytes:
    with path.open("w", encoding="utf-8", newline="") as out:
        write_packs(engine.open_compiled(cp, seed, 1, count), fmt, out)
    return path.read_bytes()


@pytest.fixture(params=["fork", "spawn"])
def started(request, monkeypatch) -> str:
    """How the workers start, forced: ``jobs.start_method`` would spawn them here, as the
    test process runs another thread (a fixture's server, which a forked worker never
    touches)."""
    monkeypatch.setattr(jobs, "start_method", lambda: request.param)
    if request.param == "fork":  # a forked worker has it too: blocks of several slices
        monkeypatch.setattr(parallel, "SLICE", 3)
    return str(request.param)


@pytest.mark.parametrize("fmt", PARTED)
def test_workers_write_what_one_process_writes(fmt: str, started: str, tmp_path: Path) -> None:
    cp = engine.compile_product(extras_product())
    want = _serial(cp, 11, 237, fmt, tmp_path / "one")
    for workers, block in ((2, 50), (3, 40), (2, 237), (2, 7), (3, 1000)):  # 5, 6, 1, 34, 1 blocks
        path = tmp_path / f"{workers}-{block}"
        with path.open("w", encoding="utf-8", newline="") as out:
            out.write("before\n")  # what the stream holds already stays first
            run = parallel.Run(cp, 11, 237, fmt, False, workers, block=block)
            assert parallel.write_parallel(run, out) == 237
        assert path.read_bytes() == b"before\n" + want, (fmt, workers, block)


def test_an_in_memory_stream_is_written_by_this_process() -> None:
    import io

    cp = engine.compile_product(extras_product())
    out = io.StringIO()
    parallel.write_parallel(parallel.Run(cp, 1, 30, "jsonl", False, 2, block=10), out)
    assert out.getvalue().count("\n") == 30


def test_jobs_for_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from boosterkit import jobs

    monkeypatch.setattr(jobs, "default_jobs", lambda: 8)
    block = parallel.BLOCK
    assert parallel.jobs_for(2, 10 * block, "jsonl") == 2
    assert parallel.jobs_for(8, 3 * block, "csv") == 3  # no more workers than blocks
    assert parallel.jobs_for(2, block, "json") == 1  # one block: no worker
    assert parallel.jobs_for(2, 10 * block, "parquet") == 1  # a frame is written whole
    assert parallel.jobs_for(0, 10 * block, "text") == 8
    assert parallel.jobs_for(64, 100 * block, "jsonl") == 8  # no more than the cores


def test_a_process_of_one_thread_forks_its_workers() -> None:
    """Forked only where nothing another thread holds can be copied half-done."""
    code = (
        "import threading, time\n"
        "from boosterkit import jobs\n"
        "alone = jobs.start_method()\n"
        "threading.Thread(target=time.sleep, args=(2,), daemon=True).start()\n"
        "print(alone, jobs.start_method())\n"
    )
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert got.stdout.split() == ["fork", "spawn"]


#: ``boosterkit`` with its workers spawned whatever ``jobs.start_method`` would choose.
SPAWNED = (
    "import sys; from boosterkit import jobs; jobs.start_method = lambda: 'spawn'; "
    "from boosterkit.cli.app import main; sys.exit(main())"
)


def _open(
    db: Path, *args: str, stdout=subprocess.PIPE, spawned: bool = False
) -> subprocess.CompletedProcess:
    run = ["-c", SPAWNED] if spawned else ["-m", "boosterkit.cli"]
    cmd = [sys.executable, *run, "--db", str(db), "open", "afr", *args]
    return subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE, timeout=300)


def test_the_command_with_jobs_is_byte_identical(built_db: Path, tmp_path: Path) -> None:
    n = str(2 * parallel.BLOCK + 7)
    one = _open(built_db, "-n", n, "--seed", "3", "-f", "jsonl")
    for spawned in (False, True):  # a kept product: one thread, forked workers; or spawned
        two = _open(built_db, "-n", n, "--seed", "3", "-f", "jsonl", "--jobs", "2",
                    spawned=spawned)  # fmt: skip
        assert one.returncode == two.returncode == 0, two.stderr
        assert one.stdout == two.stdout and one.stdout.count(b"\n") == int(n)
    out = tmp_path / "packs.csv"
    done = _open(built_db, "-p", "set", "-n", n, "--seed", "4", "-f", "csv", "--jobs", "0",
                 "-o", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        out.read_bytes() == _open(built_db, "-p", "set", "-n", n, "--seed", "4", "-f", "csv").stdout
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_failed_write_in_a_worker_is_one_line(built_db: Path) -> None:
    with open("/dev/full", "w") as full:
        done = _open(built_db, "-n", str(3 * parallel.BLOCK), "--seed", "1", "-f", "jsonl",
                     "--jobs", "2", stdout=full)  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "boosterkit: error: standard output: cannot write: No space left on device\n"
    )


def _workers(pid: int) -> list[tuple[int, bool]]:
    """The multiprocessing workers ``pid`` started (not its resource tracker), each with
    whether it was spawned. A child forked but not yet past its ``exec`` still shows
    ``pid``'s command line: a spawned worker or the resource tracker caught so (a race the
    test could lose under load, taking it for a forked worker) is left out until it shows
    its own; a forked worker never does, so one counts once it kept ``pid``'s half a second."""
    own = Path(f"/proc/{pid}/cmdline").read_bytes()
    found = []
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        with contextlib.suppress(FileNotFoundError):  # ended meanwhile
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            if cmdline == own:
                time.sleep(0.5)
                if Path(f"/proc/{child}/cmdline").read_bytes() != own:
                    continue  # it was starting another program: seen at the next look
                found.append((int(child), False))
            elif b"spawn_main" in cmdline:
                found.append((int(child), True))
    return found


def _ended(pid: int) -> bool:
    """``pid`` has exited: gone, or a zombie that nobody has reaped yet (its parent was
    killed; the reaper it was handed to may be slow under load)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


WRITEV = {"x86_64": "20", "aarch64": "66"}.get(os.uname().machine)


def _a_long_run(db: Path, spawned: bool, stderr: int) -> tuple[subprocess.Popen[bytes], int]:
    """``open`` of 40 blocks with ``--jobs 2``, its output a pipe nobody reads yet, once a
    worker has started (forked, the product being kept, or spawned): the process and the
    worker's pid."""
    assert _open(db, "-n", "1").returncode == 0  # the product kept: one thread, forks
    run = ["-c", SPAWNED] if spawned else ["-m", "boosterkit.cli"]
    cmd = [sys.executable, *run, "--db", str(db), "open", "afr",
           "-n", str(40 * parallel.BLOCK), "--seed", "1", "-f", "jsonl", "--jobs", "2"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=stderr)
    deadline = time.monotonic() + 120
    while not (workers := _workers(proc.pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    if not workers:
        proc.kill()
    assert workers, "no worker process started"
    (worker, was_spawned), *_ = workers
    assert was_spawned == spawned
    return proc, worker


@pytest.mark.skipif(
    WRITEV is None or not Path("/proc/self/syscall").exists(), reason="needs Linux /proc"
)
@pytest.mark.parametrize("spawned", [False, True], ids=["forked", "spawned"])
def test_a_worker_killed_while_it_writes_ends_the_run_in_one_line(
    built_db: Path, spawned: bool
) -> None:
    # The reader reads only until a worker is blocked writing its block to the full pipe,
    # then kills it there: the other processes must not wait for ever for that block.
    proc, worker = _a_long_run(built_db, spawned, subprocess.PIPE)
    deadline = time.monotonic() + 120
    try:
        while Path(f"/proc/{worker}/syscall").read_text().split()[0] != WRITEV:
            assert time.monotonic() < deadline, "the worker never wrote"
            os.read(proc.stdout.fileno(), 1 << 16)  # let whoever writes go on
            time.sleep(0.002)  # a pipe's 64 KiB at a time: 0.02 s took 7 s to reach the worker
        os.kill(worker, signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 1, err
    assert err.decode().count("\n") == 1 and "worker process stopped" in err.decode(), err


@pytest.mark.parametrize("spawned", [False, True], ids=["forked", "spawned"])
def test_a_worker_whose_parent_is_killed_stops(built_db: Path, spawned: bool) -> None:
    # The parent is killed mid-run: a worker waiting for the parent's block to be written
    # must see it gone and end, not poll for ever.
    proc, worker = _a_long_run(built_db, spawned, subprocess.DEVNULL)
    try:
        os.read(proc.stdout.fileno(), 1 << 16)  # the run has started writing
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        os.set_blocking(proc.stdout.fileno(), False)
        deadline = time.monotonic() + 60  # from the kill: a worker ends at its next block
        while not _ended(worker) and time.monotonic() < deadline:
            with contextlib.suppress(BlockingIOError):
                os.read(proc.stdout.fileno(), 1 << 16)  # let it write what it holds
            time.sleep(0.01)
        assert _ended(worker), "the worker outlived its parent"
    finally:
        proc.kill()
        with contextlib.suppress(ProcessLookupError):
            os.kill(worker, signal.SIGKILL)


def test_a_worker_asks_whether_the_run_goes_on_before_each_block(tmp_path: Path) -> None:
    """A worker whose parent was killed between two blocks asked only while it waited for a
    missing block: with none missing it drew the rest of the run alone. It asks first."""
    import errno
    import multiprocessing

    def gone() -> None:
        raise OSError(errno.EPIPE, "the process that started this worker stopped")

    cp = engine.compile_product(extras_product())
    order = parallel._order(multiprocessing.get_context("fork"))
    with (tmp_path / "out").open("wb") as out:
        with pytest.raises(OSError, match="stopped"):
            parallel._blocks(parallel.Run(cp, 1, 30, "jsonl", False, 2, block=10), order,
                             out.fileno(), stop=gone)  # fmt: skip
    assert order.taken.value == 0 and (tmp_path / "out").read_bytes() == b""


def test_a_worker_that_cannot_start_is_one_failure(monkeypatch, tmp_path: Path) -> None:
    cp = engine.compile_product(extras_product())

    def refused(self) -> None:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(jobs, "start_method", lambda: "spawn")
    monkeypatch.setattr("multiprocessing.context.SpawnProcess.start", refused)
    with (tmp_path / "out").open("w", encoding="utf-8", newline="") as out:
        run = parallel.Run(cp, 1, 300, "jsonl", False, 2, block=10)
        with pytest.raises(OSError, match="a worker process could not start: .*temporarily"):
            parallel.write_parallel(run, out)
