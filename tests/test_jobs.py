"""``--jobs N`` of ``odds --simulate`` and ``simulate --games`` (``boosterkit/jobs.py``):
parts computed in worker processes and merged in order give byte for byte what one process
gives; an error raised in a worker is the same one line and exit code."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli
from test_engine import extras_product

from boosterkit import jobs
from boosterkit.errors import BoosterkitError, InputError
from boosterkit.generator import engine, simulation
from boosterkit.minigames.referee import runner

# --- the split and the workers -------------------------------------------------------------


def test_split_covers_the_range_in_aligned_parts() -> None:
    got = jobs.split(36 * 7, 3, align=36)
    assert [len(r) % 36 for r in got] == [0, 0, 0]
    assert [i for r in got for i in r] == list(range(1, 36 * 7 + 1))
    assert max(map(len, got)) - min(map(len, got)) <= 36
    assert jobs.split(5, 8) == [range(k, k + 1) for k in range(1, 6)]  # no empty part
    assert jobs.split(10, 1, first=3) == [range(3, 13)]
    with pytest.raises(ValueError):
        jobs.split(10, 2, align=3)


def test_workers_for_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jobs, "default_jobs", lambda: 8)
    assert jobs.workers_for(2, 1000, 400) == 2
    assert jobs.workers_for(2, 799, 400) == 1  # not two workers' worth: this process alone
    assert jobs.workers_for(8, 1200, 400) == 3
    assert jobs.workers_for(0, 10**6, 1) == jobs.default_jobs()
    for bad in (-1, True, 1.5):
        with pytest.raises(InputError, match="jobs: .* is not a number of processes") as exc:
            jobs.workers_for(bad, 10, 1)  # type: ignore[arg-type]
        assert exc.value.field == "jobs"


def _square(context: tuple[int, Path, bool], part: int) -> int:
    """``part`` squared; this process (``context[0]``) first waits until a worker has done a
    part (``context[1]`` exists), so every run crosses the process boundary; a worker raises
    when ``context[2]``."""
    parent, marker, fail = context
    if not _after_a_worker(parent, marker) and fail:
        raise InputError(f"part {part}: refused in a worker", field="games")
    return part * part


def _after_a_worker(parent: int, marker: Path) -> bool:
    """In this process (``parent``): wait until a worker has done a part (True); in a worker:
    say it has (False)."""
    if os.getpid() != parent:
        marker.touch()
        return False
    deadline = time.monotonic() + 120
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return True


def _die(context: int, part: int) -> int:
    if os.getpid() != context:
        os._exit(3)
    time.sleep(0.5)
    return part


def test_map_parts_gives_the_results_in_order(tmp_path: Path) -> None:
    got = jobs.map_parts(_square, (os.getpid(), tmp_path / "m", False), list(range(9)), 2)
    assert got == [k * k for k in range(9)]
    assert (tmp_path / "m").exists()  # a worker did at least one part


def test_an_error_in_a_worker_is_raised_as_it_was(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"^part \d: refused in a worker$") as exc:
        jobs.map_parts(_square, (os.getpid(), tmp_path / "m", True), list(range(6)), 2)
    assert exc.value.field == "games" and exc.value.exit_code == 2


def test_the_first_error_in_order_is_the_one_raised() -> None:
    def work(_: None, part: int) -> int:
        if part in (2, 4):
            raise InputError(f"part {part}")
        return part

    with pytest.raises(InputError, match="^part 2$"):
        jobs.map_parts(work, None, range(6), 1)


def test_a_process_of_one_thread_forks_its_workers() -> None:
    """A fresh process runs one thread: its workers are forked, so they take ``work`` as it
    is (a lambda, which no spawned worker could receive) and the parts still come in order."""
    import subprocess
    import sys

    code = (
        "import os, time\n"
        "from boosterkit import jobs\n"
        "assert jobs.start_method() == 'fork'\n"
        "def work(parent, k):\n"
        "    time.sleep(0.05)\n"
        "    return k, os.getpid() != parent\n"
        "got = jobs.map_parts(lambda c, k: work(c, k), os.getpid(), list(range(12)), 2)\n"
        "print([k for k, _ in got] == list(range(12)), any(w for _, w in got))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]  # in order, and a worker did some


def test_a_worker_that_dies_is_one_line() -> None:
    with pytest.raises(BoosterkitError, match="a worker process stopped without a word"):
        jobs.map_parts(_die, os.getpid(), list(range(40)), 2)


# --- the library ---------------------------------------------------------------------------


def test_simulated_counts_are_the_same_in_parts() -> None:
    cp = engine.compile_product(extras_product())

    def rows(sim: simulation.Simulated) -> tuple[Any, ...]:
        return (list(sim.cards.rows()), list(sim.groups.rows()), sim.units, sim.keys,
                sim.groups_index)  # fmt: skip

    for unit in (1, 7):
        one = simulation.simulate(cp, 500, 9, unit)
        assert rows(simulation.simulate(cp, 500, 9, unit, jobs=2, least=100)) == rows(one)
    assert rows(simulation.simulate(cp, 500, 9)) != rows(simulation.simulate(cp, 500, 8))


def _count_after_a_worker(context: tuple[int, Path, Any], packs: range) -> Any:
    """``simulation._count_part``, with this process waiting until a worker has counted a part
    (as ``_square``): the compiled product and the counts really cross processes."""
    parent, marker, inner = context
    _after_a_worker(parent, marker)
    return simulation._count_part(inner, packs)


def test_counts_made_in_a_worker_are_the_counts_made_here(tmp_path: Path) -> None:
    cp = engine.compile_product(extras_product())
    ranges = jobs.split(600, 6, 3)
    context = (cp, 9, 3)
    here = [simulation._count_part(context, r) for r in ranges]
    crossed = jobs.map_parts(
        _count_after_a_worker, (os.getpid(), tmp_path / "m", context), ranges, 2
    )
    assert (tmp_path / "m").exists()  # a worker counted at least one part

    def rows(counted: Any) -> list[Any]:
        return [list(counts.rows()) for counts in counted]

    assert [rows(c) for c in crossed] == [rows(c) for c in here]
    assert rows(here[0]) != rows(here[1])  # the parts' counts differ: the check can fail


def test_tallies_merge_as_one_tally() -> None:
    def tally(setup: dict[str, str], ended: dict[str, int], failures: list[str]) -> Any:
        return runner._Tally([3] * sum(ended.values()), {"player-1": sum(ended.values())},
                             dict(ended), list(failures), dict(setup))  # fmt: skip

    refused = tally({"set": "a", "product": "refused"}, {}, ["no"])
    played = tally({"set": "a", "product": "dealt"}, {"x": 2}, [])
    merged = runner._Tally()
    for t in (refused, played, refused, played):
        merged.merge(t)
    # the first game dealt says what was dealt, as ``add`` has it
    assert merged.setup == {"set": "a", "product": "dealt"}
    assert (merged.ended, merged.wins, merged.failures) == ({"x": 4}, {"player-1": 4}, ["no"] * 2)
    only_refused = runner._Tally()
    only_refused.merge(refused)
    only_refused.merge(tally({"set": "b", "product": "other"}, {}, ["no"]))
    assert only_refused.setup == {"set": "a", "product": "refused"}


# --- the commands --------------------------------------------------------------------------


@pytest.fixture
def workers_seen(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ``workers`` of every ``map_parts`` call, with short runs made parallel."""
    seen: list[int] = []
    real = jobs.map_parts

    def spy(work: Any, context: Any, ps: Any, workers: int, *prepare: Any) -> Any:
        seen.append(workers)
        return real(work, context, ps, workers, *prepare)

    monkeypatch.setattr(simulation, "map_parts", spy)  # where it is called from
    monkeypatch.setattr(runner, "map_parts", spy)
    monkeypatch.setattr(simulation, "SIMULATE_LEAST", 100)
    monkeypatch.setattr(runner, "SIMULATE_LEAST", 5)
    return seen


@pytest.mark.parametrize(
    "args",
    [
        ("odds", "afr", "--simulate", "900", "--seed", "4"),
        ("odds", "afr", "-p", "set", "--per", "box", "--simulate", "900", "-f", "json"),
        (
            "simulate",
            "mimic-match",
            "-n",
            "2",
            "--set",
            "afr",
            "-p",
            "draft",
            "--seed",
            "5",
            "--games",
            "24",
        ),  # fmt: skip
        (
            "simulate",
            "base-race",
            "-n",
            "2",
            "--set",
            "afr",
            "--seed",
            "1",
            "--games",
            "24",
            "--json",
        ),  # fmt: skip
    ],
)
def test_the_commands_with_jobs_are_byte_identical(
    capsys: pytest.CaptureFixture[str], built_db: Path, workers_seen: list[int], args: tuple
) -> None:
    one = run_cli(capsys, "--db", str(built_db), *args, "--jobs", "1")
    two = run_cli(capsys, "--db", str(built_db), *args, "--jobs", "2")
    assert one[0] == two[0] == 0, two[2]
    assert one == two and len(one[1].splitlines()) >= 5
    assert workers_seen == [1, 2]


def test_simulate_logs_are_byte_identical_with_jobs(
    capsys: pytest.CaptureFixture[str], built_db: Path, workers_seen: list[int], tmp_path: Path
) -> None:
    base = ("--db", str(built_db), "simulate", "mimic-match", "-n", "2", "--set", "afr",
            "-p", "draft", "--seed", "8", "--games", "20")  # fmt: skip
    for n in ("1", "2"):
        code, _, err = run_cli(capsys, *base, "--jobs", n, "--log", str(tmp_path / n))
        assert code == 0, err
    names = sorted(p.name for p in (tmp_path / "1").iterdir())
    assert len(names) == 41 and names == sorted(p.name for p in (tmp_path / "2").iterdir())
    for name in names:
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "2" / name).read_bytes()
    assert workers_seen == [1, 2]


@pytest.mark.parametrize(
    "args",
    [
        ("simulate", "mimic-match", "-n", "2", "--set", "zzz", "--seed", "5", "--games", "24"),
        ("simulate", "mimic-match", "-n", "1", "--set", "afr", "--seed", "5", "--games", "24"),
    ],
)
def test_an_error_with_jobs_is_the_same_line(
    capsys: pytest.CaptureFixture[str], built_db: Path, workers_seen: list[int], args: tuple
) -> None:
    one = run_cli(capsys, "--db", str(built_db), *args, "--jobs", "1")
    two = run_cli(capsys, "--db", str(built_db), *args, "--jobs", "2")
    assert one == two and one[0] == 2 and one[1] == ""
    assert one[2].startswith("boosterkit: error: ") and one[2].count("\n") == 1


@pytest.mark.parametrize("command", [("odds", "afr", "--simulate", "10"),
                                     ("simulate", "mimic-match", "-n", "2", "--games", "3",
                                      "--seed", "1")])  # fmt: skip
def test_a_negative_jobs_is_one_usage_line(
    capsys: pytest.CaptureFixture[str], built_db: Path, command: tuple
) -> None:
    code, out, err = run_cli(capsys, "--db", str(built_db), *command, "--jobs", "-1")
    assert code == 2 and out == ""
    assert err == (
        "boosterkit: error: Invalid value for '--jobs': Input should be greater than or equal "
        f"to 0 (`boosterkit {command[0]} --help` says more)\n"
    )


# --- at most the cores (issue 33 §8) ---------------------------------------------------------


def test_workers_are_capped_at_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    """``odds afr --simulate 10000000 --jobs 64`` on two cores started 64 processes."""
    monkeypatch.setattr(jobs, "default_jobs", lambda: 2)
    assert jobs.workers_for(64, 10**7, 1) == 2
    assert jobs.cap_jobs(64) == (2, jobs.jobs_note(64, 2))
    assert jobs.cap_jobs(2) == (2, None) and jobs.cap_jobs(0) == (0, None)


def test_the_cores_are_those_this_process_may_run_on() -> None:
    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("no CPU affinity on this system")
    assert jobs.default_jobs() == len(os.sched_getaffinity(0))


@pytest.mark.parametrize("command", [("odds", "afr", "--simulate", "900", "--seed", "4"),
                                     ("simulate", "mimic-match", "-n", "2", "--set", "afr",
                                      "-p", "draft", "--seed", "5", "--games", "24"),
                                     ("open", "afr", "-n", "3", "--seed", "1")])  # fmt: skip
def test_jobs_past_the_cores_are_capped_in_one_line(
    capsys: pytest.CaptureFixture[str],
    built_db: Path,
    workers_seen: list[int],
    monkeypatch: pytest.MonkeyPatch,
    command: tuple,
) -> None:
    monkeypatch.setattr(jobs, "default_jobs", lambda: 2)
    code, out, err = run_cli(capsys, "--db", str(built_db), *command, "--jobs", "64")
    assert code == 0, err
    note = "--jobs 64: boosterkit may use 2 cores here; using 2"
    assert err.splitlines()[0] == note and err.count(note) == 1
    assert all(w <= 2 for w in workers_seen)
    assert (code, out) == run_cli(capsys, "--db", str(built_db), *command, "--jobs", "1")[:2]


def test_a_batch_process_keeps_its_freed_memory_on_glibc() -> None:
    """``jobs.keep_freed`` sets glibc's M_TOP_PAD (issue 36: the page faults of batches that
    free and take again megabytes); elsewhere it says it could not."""
    import platform

    from boosterkit.jobs import keep_freed

    assert keep_freed() is (platform.libc_ver()[0] == "glibc")


def test_freeze_loaded_keeps_what_a_process_holds_out_of_the_collectors_scans() -> None:
    """``jobs.freeze_loaded`` (run in a process of its own: it freezes for good) frees what
    is garbage already, then freezes the rest: a full collection scans none of it."""
    import subprocess
    import sys

    code = (
        "import gc, weakref\n"
        "from boosterkit.jobs import freeze_loaded\n"
        "class Cycle: pass\n"
        "c = Cycle(); c.me = c; gone = weakref.ref(c); del c\n"
        "freeze_loaded()\n"
        "print(gc.get_freeze_count(), len(gc.get_objects()), int(gone() is None))\n"
    )
    out = subprocess.check_output([sys.executable, "-c", code], text=True)
    frozen, scanned, freed = map(int, out.split())
    assert frozen > 1000 and scanned < 100 and freed == 1
