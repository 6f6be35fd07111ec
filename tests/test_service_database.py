"""The service's read-only database access against a writer in another process (a sync)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from boosterkit.pipeline import db as pdb
from boosterkit.service.database import DatabaseBusy, DatabaseUnavailable, ReadOnlyDatabase


@pytest.fixture
def schema_db(db_file: Path) -> Path:
    con = pdb.connect(db_file)
    con.execute(
        "INSERT INTO sets (code, name) VALUES ('afr', 'Adventures in the Forgotten Realms')"
    )
    con.close()
    return db_file


def _hold_write_lock(path: Path, seconds: float | None) -> subprocess.Popen:
    """Another process that opens ``path`` read-write, as a sync does, and holds it
    ``seconds`` (None: until a line arrives on its stdin)."""
    code = textwrap.dedent(
        f"""
        import sys, time
        from boosterkit.pipeline import db
        con = db.connect({str(path)!r})
        con.execute("BEGIN TRANSACTION")
        con.execute("INSERT INTO sets (code, name) VALUES ('khm', 'Kaldheim')")
        print("locked", flush=True)
        time.sleep({seconds}) if {seconds!r} is not None else sys.stdin.readline()
        con.execute("COMMIT")
        con.close()
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "locked"
    return proc


class _Clock:
    """Stands in for the ``time`` module of ``service.database``: sleeps advance a fake clock."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_reads_and_releases_the_file(schema_db: Path) -> None:
    database = ReadOnlyDatabase(schema_db, linger=0)
    with database.cursor() as cur:
        assert cur.execute("SELECT name FROM sets").fetchall() == [
            ("Adventures in the Forgotten Realms",)
        ]
    # Closed after the request: a writer (a sync) can open the file now.
    con = pdb.connect(schema_db)
    con.close()


def test_the_file_is_held_for_the_linger_then_released(schema_db: Path, monkeypatch) -> None:
    from boosterkit.service import database as service_database

    clock = _Clock()
    monkeypatch.setattr(service_database, "time", clock)
    database = ReadOnlyDatabase(schema_db, linger=60)
    with database.cursor() as cur:
        cur.execute("SELECT 1").fetchall()
    closer = database._closer
    assert closer is not None and closer.interval == 60  # the close is scheduled for the linger
    closer.cancel()  # run by hand below, on the fake clock, not by the wall clock
    with pytest.raises(pdb.DatabaseError, match="the database is in use by another process"):
        _open_in_another_process(schema_db)  # still held within the linger
    clock.now += 59
    database._close_if_idle()  # early (idle 59 s): kept, and the rest scheduled
    assert database._con is not None and database._closer is not None
    database._closer.cancel()
    clock.now += 1
    database._close_if_idle()  # idle for the whole linger: closed
    assert database._con is None
    _open_in_another_process(schema_db)  # released: a writer can open it


def _open_in_another_process(path: Path) -> None:
    """Open ``path`` read-write from another process, as a sync would (waiting 0.2 s, not
    the 30 s a sync waits, for a holder to let go)."""
    code = f"from boosterkit.pipeline import db; db.connect({str(path)!r}).close()"
    env = {**os.environ, "BOOSTERKIT_LOCK_WAIT": "0.2"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if done.returncode:
        raise pdb.DatabaseError(done.stderr.strip().splitlines()[-1])


def test_a_writer_in_another_process_gives_busy_then_recovers(
    schema_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from boosterkit.service import database as service_database

    clock = _Clock()
    monkeypatch.setattr(service_database, "time", clock)
    attempts: list[int] = []
    real_connect = service_database.pdb.connect

    def counting_connect(*args, **kwargs):
        attempts.append(1)
        return real_connect(*args, **kwargs)

    monkeypatch.setattr(service_database.pdb, "connect", counting_connect)
    proc = _hold_write_lock(schema_db, seconds=None)
    try:
        database = ReadOnlyDatabase(schema_db, busy_timeout=0.3, poll=0.05)
        with pytest.raises(DatabaseBusy, match="busy: another process"):
            with database.cursor():
                pass
        # The schedule, not the wall clock: it polled every 0.05 s until the 0.3 s were up,
        # then gave up (one open attempt per poll, and one at the deadline).
        assert clock.sleeps and set(clock.sleeps) == {0.05}
        assert sum(clock.sleeps) == pytest.approx(0.3, abs=0.051)
        assert len(attempts) == len(clock.sleeps) + 1
    finally:
        proc.communicate("commit\n", timeout=10)
    monkeypatch.undo()
    with ReadOnlyDatabase(schema_db).cursor() as cur:
        assert cur.execute("SELECT count(*) FROM sets").fetchone()[0] == 2  # the sync's row


def test_a_request_waits_out_a_short_write(schema_db: Path) -> None:
    proc = _hold_write_lock(schema_db, seconds=0.4)
    try:
        with ReadOnlyDatabase(schema_db, busy_timeout=5).cursor() as cur:
            assert cur.execute("SELECT count(*) FROM sets").fetchone()[0] == 2
    finally:
        proc.wait(timeout=10)


def test_concurrent_cursors_share_one_connection(schema_db: Path) -> None:
    database = ReadOnlyDatabase(schema_db, linger=0)
    barrier = threading.Barrier(8)
    results: list[int] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            with database.cursor() as cur:
                barrier.wait(timeout=10)  # all eight hold a cursor at the same time
                results.append(cur.execute("SELECT count(*) FROM sets").fetchone()[0])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    assert not errors and results == [1] * 8
    assert database._con is None and database._users == 0


def test_missing_database_is_unavailable_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "none.duckdb"
    with pytest.raises(DatabaseUnavailable, match="no database here yet"):
        ReadOnlyDatabase(missing).check()
    assert not missing.exists()
