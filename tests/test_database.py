"""The database handle (``boosterkit.database.Database``, issue 21 §3): one object owns the file,
its connection policy and its cache; ``Database.of`` is the one place a path or a
connection becomes a handle; a session reads the content stamp once and opens at most one
connection, on its first query; a deal makes one cache look-up."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_cli

from boosterkit import cache as cachemod
from boosterkit.cache import DEFAULT, Cache
from boosterkit.database import Database
from boosterkit.pipeline import db as pdb


class _Counted(Database):
    """A file handle that counts the read connections it opens."""

    opened = 0

    def _reading(self):
        type(self).opened += 1
        return super()._reading()


@pytest.fixture
def made(tmp_path: Path) -> Path:
    """A migrated, empty database file."""
    path = tmp_path / "made.duckdb"
    with Database(path).write() as con:
        con.execute("INSERT INTO sets (code, name) VALUES ('tst', 'Test')")
    return path


def test_of_makes_one_handle_from_a_path_a_connection_or_a_handle(made: Path) -> None:
    handle = Database.of(made)
    assert handle.path == made and handle.cache is DEFAULT
    assert Database.of(handle) is handle  # a handle is passed down as it is
    own = Cache()
    assert Database.of(str(made), cache=own).cache is own
    assert Database.of(handle, cache=own).cache is DEFAULT  # a handle keeps its own
    con = pdb.connect(made, read_only=True)
    try:
        borrowed = Database.of(con)
        assert borrowed.path == made  # asked of the connection
        with borrowed.read() as got:
            assert got is con
        with borrowed.write() as got:
            assert got is con
        assert con.execute("SELECT name FROM sets").fetchone() == ("Test",)  # never closed
        # a handle that names its file: the connection is not asked
        named = Database.borrowing(con, path="/elsewhere/x.duckdb")
        assert named.path == Path("/elsewhere/x.duckdb")
    finally:
        con.close()


def test_none_is_the_configured_database_resolved_on_first_use(
    made: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handle = Database(None)
    monkeypatch.setenv("BOOSTERKIT_DB", str(made))
    assert handle.path == made and handle.cache_dir == made.parent / "made.cache"
    with handle.read() as con:
        assert con.execute("SELECT code FROM sets").fetchall() == [("tst",)]


def test_a_file_is_opened_per_block_read_only_or_read_write(made: Path) -> None:
    handle = Database(made)
    with handle.read() as con:
        with pytest.raises(Exception, match="read-only"):
            con.execute("INSERT INTO sets (code) VALUES ('x')")
    with handle.write() as con:
        con.execute("INSERT INTO sets (code) VALUES ('x')")
    with handle.read() as con:
        assert sorted(r[0] for r in con.execute("SELECT code FROM sets").fetchall()) == ["tst", "x"]


def test_a_missing_file_is_the_one_line_error_a_read_gives(tmp_path: Path) -> None:
    missing = Database(tmp_path / "none.duckdb")
    with pytest.raises(pdb.DatabaseError, match="no database here yet"):
        missing.require()
    with pytest.raises(pdb.DatabaseError, match="no database here yet"):
        with missing.read():
            pass
    assert not (tmp_path / "none.duckdb").exists()
    Database.memory().require()  # nothing to require of a database without a file


def test_memory_keeps_one_connection_and_what_it_derives_by_name() -> None:
    handle = Database.memory()
    assert handle.path is None and handle.cache is not DEFAULT and handle.cache.pathless
    with handle.write() as con:
        con.execute("INSERT INTO sets (code, name) VALUES ('mem', 'Memory')")
    with handle.read() as con:
        assert con.execute("SELECT name FROM sets").fetchone() == ("Memory",)
    kept = handle.cached()
    assert kept.keeps and kept.key is None
    calls: list[int] = []

    def count(con) -> int:
        calls.append(1)
        return int(con.execute("SELECT count(*) FROM sets").fetchone()[0])

    assert kept.value("sets", int, count) == 1 and handle.cached().value("sets", int, count) == 1
    assert len(calls) == 1  # kept in memory until the owner clears it
    handle.cache.clear()
    assert handle.cached().value("sets", int, count) == 1 and len(calls) == 2
    handle.close()
    with pytest.raises(ValueError, match="closed"):
        with handle.read():
            pass


def test_a_value_that_reads_nothing_opens_no_connection(
    made: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``reads=False`` (e.g. the exact odds of a kept product): built without opening the
    database, and kept beside it like any value."""
    opened: list[object] = []
    real = pdb.connect
    monkeypatch.setattr(pdb, "connect", lambda *a, **k: opened.append(a) or real(*a, **k))
    got = []
    build = lambda con: got.append(con) or 42  # noqa: E731
    first = Database(made, cache=Cache()).cached().value("answer", int, build, reads=False)
    again = Database(made, cache=Cache()).cached().value("answer", int, build, reads=False)
    assert (first, again, got, opened) == (42, 42, [None], [])  # built once, from the file then
    assert Database(made, cache=Cache()).cached().value("read", int, lambda con: 1) == 1
    assert opened  # a value that reads the database opens it, as before


def test_a_session_opens_one_connection_on_its_first_query_and_reads_the_stamp_once(
    made: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stamps: list[object] = []
    real = cachemod.file_stamp
    monkeypatch.setattr(cachemod, "file_stamp", lambda p: stamps.append(p) or real(p))
    _Counted.opened = 0
    handle = _Counted(made)
    with handle.session() as con:
        assert _Counted.opened == 0  # nothing asked yet: nothing opened
        first = handle.located()
        assert con.execute("SELECT count(*) FROM sets").fetchone() == (1,)
        with handle.read() as again, handle.session() as nested:
            assert again.execute("SELECT 1").fetchone() == (1,)
            assert nested.execute("SELECT 2").fetchone() == (2,)
        assert handle.located() == first and _Counted.opened == 1
    assert len(stamps) == 1  # the content key was computed once, at the session's start
    with handle.session():
        pass
    assert _Counted.opened == 1  # a session that asks nothing opens nothing
    with handle.read(), handle.read():
        pass
    assert _Counted.opened == 3  # outside a session: a connection per block


def test_the_content_key_follows_every_committed_write(made: Path) -> None:
    handle = Database(made)
    before = handle.located()[1]
    assert before is not None and Database.of(str(made)).located()[1] == before
    with handle.write() as con:
        con.execute("UPDATE sets SET name = 'Changed'")
    assert handle.located()[1] not in (None, before)
    assert Database.memory().located() == (None, None)


def test_the_cli_makes_one_handle_from_db_before_or_after_the_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    first, second = tmp_path / "first.duckdb", tmp_path / "second.duckdb"
    code, out, err = run_cli(capsys, "--db", str(first), "sets", "--db", str(second))
    assert code == 1 and out == "" and str(second) in err and str(first) not in err
    code, _, err = run_cli(capsys, "--db", str(first), "db", "info")
    assert code == 1 and str(first) in err and "no database here yet" in err


def test_the_catalogue_resolves_no_database_path() -> None:
    """``boosterkit minigames`` makes the handle but never asks for its file (the user data
    dir is found with platformdirs, which the catalogue does not need)."""
    code = (
        "import sys\nfrom boosterkit.cli.app import app\n"
        "try:\n    app(['minigames', '--json'], prog_name='boosterkit')\n"
        "except SystemExit as exc:\n    assert not exc.code\n"
        "print('platformdirs' in sys.modules, file=sys.stderr)"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != "BOOSTERKIT_DB"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert proc.stderr.strip().splitlines()[-1] == "False"


def test_a_deal_makes_one_cache_look_up_and_computes_its_key_once(
    any_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from boosterkit.minigames import SetupError, deal

    path = tmp_path / "own.duckdb"
    shutil.copy(any_db, path)
    handle = Database(path, cache=Cache())
    entries, keys = [], []
    entry, content_key = Cache.entry, cachemod.content_key
    monkeypatch.setattr(Cache, "entry", lambda self, d: entries.append(1) or entry(self, d))
    monkeypatch.setattr(cachemod, "content_key", lambda *a: keys.append(1) or content_key(*a))
    dealt: list[int] = []
    for seed in range(1, 30):
        entries.clear()
        keys.clear()
        try:
            setup = deal(handle, "base-race", 2, "afr", seed=seed)
        except SetupError:  # a List card the data lacks: refused by design
            continue
        assert (len(entries), len(keys)) == (1, 1), seed
        assert setup.facts and setup.rules_text["text"]
        dealt.append(seed)
        if len(dealt) == 3:
            break
    assert len(dealt) == 3
    built = handle.cache.misses + handle.cache.loads
    for seed in dealt:  # dealt again: everything from the one look-up, nothing built
        entries.clear()
        deal(handle, "base-race", 2, "afr", seed=seed)
        assert len(entries) == 1
    assert handle.cache.misses + handle.cache.loads == built
