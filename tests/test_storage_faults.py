"""Damaged database files and disks that refuse writes: one line naming the file, exit 1,
no traceback, and the data (and the damaged file's bytes) unchanged.

A full disk is simulated with a file-size limit (``ulimit -f``: ``RLIMIT_FSIZE``, with
SIGXFSZ ignored so writes fail with EFBIG instead of killing the process), set in a child
process only, so nothing else on the machine is affected.
"""

from __future__ import annotations

import gzip
import hashlib
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from boosterkit.pipeline import db as pdb

BLOCK = 262144  # DuckDB's block size; the file starts with three 4 KiB headers
HEADERS = 3 * 4096
CLI = [sys.executable, "-m", "boosterkit.cli"]


def run(db: Path, *args: str, fsize: int | None = None) -> subprocess.CompletedProcess[str]:
    """``boosterkit --db DB ARGS`` in a child process (with a file-size limit if given)."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run(
        [*CLI, "--db", str(db), *args],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit if fsize else None,
    )


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assert_one_line(done: subprocess.CompletedProcess[str], *words: str) -> str:
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stderr.startswith("boosterkit: error: ") and done.stderr.count("\n") == 1, (
        done.stderr
    )
    for word in words:
        assert word in done.stderr, (word, done.stderr)
    return done.stderr


@pytest.fixture(scope="module")
def synced(built_scryfall: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database holding the built ONE card file, synced with ``sync --file``."""
    folder = tmp_path_factory.mktemp("storage")
    path = folder / "good.duckdb"
    done = run(path, "sync", "--file", str(built_scryfall / "cards" / "one.unique-cards.json"))
    assert done.returncode == 0, done.stderr
    con = pdb.connect(path)
    con.execute("CHECKPOINT")  # everything in the file itself, no WAL
    con.close()
    return path


def damaged(src: Path, dest: Path, how: str, block: int = 1, offset: int = 4096) -> Path:
    """A copy of ``src`` truncated, with its header overwritten, or with 4 KiB of ``block``
    (from ``offset``) scrambled."""
    data = bytearray(src.read_bytes())
    if how == "truncated":
        data = data[: len(data) // 2]
    elif how == "overwritten":
        data[:8192] = b"\x00not a database\x00" * 512
    else:  # 4 KiB of noise in one block: its checksum fails when it is read
        at = HEADERS + block * BLOCK + offset
        assert at + 4096 <= len(data), "the database is smaller than expected"
        data[at : at + 4096] = bytes((i * 151 + 7) % 256 for i in range(4096))
    dest.write_bytes(bytes(data))
    if not dest.with_suffix(".cache").exists():  # `db rebuild` needs the cached files
        shutil.copytree(src.with_suffix(".cache"), dest.with_suffix(".cache"))
    return dest


def block_failing_on_read(good: Path, folder: Path) -> Path:
    """A damaged copy that opens fine and fails only when a table is read."""
    blocks = (good.stat().st_size - HEADERS) // BLOCK
    for block in range(blocks):
        path = damaged(good, folder / f"block{block}.duckdb", "block", block, 4096)
        try:
            con = pdb.connect(path, read_only=True)
        except pdb.DatabaseError:
            continue
        try:
            pdb.verify(con, path)
        except pdb.DatabaseError:
            return path
        finally:
            con.close()
    pytest.fail("no block of the test database fails only on reading")


COMMANDS = [
    ("db", "info"),
    ("sets",),
    ("db", "rebuild"),
    ("open", "one", "-n", "2", "--seed", "1"),
    ("deal", "roll-for-initiative", "--players", "2", "--set", "one", "--seed", "1"),
    ("sync", "--file", "CARDS"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("how", ["truncated", "overwritten", "block"])
def test_a_damaged_database_is_one_line_and_stays_as_it_was(
    synced: Path, built_scryfall: Path, tmp_path: Path, how: str, command: tuple
) -> None:
    cards = str(built_scryfall / "cards" / "mom.unique-cards.json")
    path = (
        block_failing_on_read(synced, tmp_path)
        if how == "block"
        else damaged(synced, tmp_path / f"{how}.duckdb", how)
    )
    before = digest(path)
    args = [cards if a == "CARDS" else a for a in command]
    err = assert_one_line(run(path, *args), path.name, "damaged")
    assert "restore it from a backup" in err
    assert digest(path) == before, f"{command} changed the damaged file"
    assert not Path(f"{path}.wal").exists()


def test_serve_refuses_a_database_that_only_fails_when_read(synced: Path, tmp_path: Path) -> None:
    path = block_failing_on_read(synced, tmp_path)
    done = run(path, "serve", "--port", "1")  # refused before it would bind the port
    assert_one_line(done, path.name, "damaged")


def test_the_service_answers_503_for_a_block_it_cannot_read(synced: Path, tmp_path: Path) -> None:
    from boosterkit.service.app import create_app

    path = block_failing_on_read(synced, tmp_path)
    with TestClient(create_app(path), base_url="http://127.0.0.1") as client:
        answers = [
            client.get("/sets"),
            client.post("/packs", json={"set": "one", "seed": 1}),
            client.get("/sets/one/products"),
        ]
    bad = [a for a in answers if a.status_code != 200]
    assert bad, "no request read the damaged block"
    for answer in bad:
        assert answer.status_code == 503, answer.text
        assert "damaged" in answer.json()["error"] and str(tmp_path) not in answer.text


@pytest.mark.parametrize(
    ("command", "limit", "fails"),
    [
        ("sync", 10_000, "the cache copy"),
        ("sync", 60_000, "DuckDB's write-ahead log at commit"),
        ("rebuild", 50_000, "DuckDB's write-ahead log at commit"),
    ],
)
def test_a_file_size_limit_is_one_line_and_changes_nothing(
    synced: Path, built_scryfall: Path, tmp_path: Path, command: str, limit: int, fails: str
) -> None:
    path = tmp_path / "db.duckdb"
    shutil.copy(synced, path)
    shutil.copytree(synced.with_suffix(".cache"), path.with_suffix(".cache"))
    cards = tmp_path / "woe.json.gz"  # kept as is in the cache: about 18 kB
    woe = built_scryfall / "cards" / "woe+wot.unique-cards.json"
    cards.write_bytes(gzip.compress(woe.read_bytes()))
    # the cache copy is written first: a limit below its size stops it, one above reaches the WAL
    assert (limit < cards.stat().st_size) == (fails == "the cache copy")
    con = pdb.connect(path, read_only=True)
    before = pdb.fingerprint(con)
    con.close()
    args = ("sync", "--file", str(cards)) if command == "sync" else ("db", "rebuild")
    err = assert_one_line(run(path, *args, fsize=limit), "db.duckdb", "file-size limit")
    assert "nothing was changed" in err
    assert ("or the cache folder" in err) == (fails == "the cache copy"), err
    con = pdb.connect(path, read_only=True)
    try:
        assert pdb.fingerprint(con) == before  # row counts and a hash of every row
    finally:
        con.close()
    assert run(path, *args).returncode == 0  # without the limit it works


def test_storage_error_leaves_other_errors_alone() -> None:
    import duckdb

    assert (
        pdb.storage_error("x.duckdb", duckdb.CatalogException("Table foo does not exist")) is None
    )
    assert pdb.storage_error("x.duckdb", ValueError("bug")) is None
    full = pdb.storage_error("x.duckdb", OSError(28, "No space left on device"))
    assert full is not None and "the disk is full" in str(full)


def test_output_that_cannot_be_written_names_the_output(synced: Path, tmp_path: Path) -> None:
    """``> /dev/full`` and a file-size limit on ``-o``: the output is named, not the
    database, and no partial ``-o`` file stays behind."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*CLI, "--db", str(synced), "db", "info"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert_one_line(done, "standard output: cannot write: No space left on device")
    out = tmp_path / "packs.jsonl"
    done = run(
        synced,
        "open",
        "one",
        "-n",
        "50",
        "--seed",
        "1",
        "-f",
        "jsonl",
        "-o",
        str(out),
        fsize=20_000,
    )
    assert_one_line(done, f"-o {out}: cannot write: File too large")
    assert not out.exists()


# --- the kept-product cache runs no code (issue 20 §2) --------------------------------------


class _Planted:
    """A pickle that, loaded, writes a marker file (and could do anything else)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # noqa: ANN204
        return (Path.write_text, (self.marker, "ran"))


def test_a_pickle_planted_in_the_cache_never_runs(own_db: Path, tmp_path: Path) -> None:
    import pickle

    from boosterkit.cache import Cache
    from boosterkit.database import Database
    from boosterkit.generator import open_packs

    def opened(cache: Cache) -> list[dict]:
        return [
            p.to_dict() for p in open_packs("afr", "draft", 2, 7, db=Database(own_db, cache=cache))
        ]

    want = opened(Cache())
    values = own_db.parent / "own.cache" / "values"
    kept = sorted(values.glob("*.json"))
    assert kept and all(f.read_bytes().startswith(b"BKC1 ") for f in kept)
    marker = tmp_path / "ran"
    for f in kept:
        f.write_bytes(pickle.dumps(_Planted(marker)))  # a plain pickle, as an old cache kept
    cache = Cache()
    assert opened(cache) == want and not marker.exists() and cache.loads == 0  # a miss, rebuilt
    for f in sorted(values.glob("*.json")):  # a valid header on a pickle body
        body = pickle.dumps(_Planted(marker))
        f.write_bytes(b"BKC1 " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    assert opened(Cache()) == want and not marker.exists()


@pytest.mark.parametrize("how", ["world-writable", "group-writable", "foreign", "symlink"])
def test_an_unsafe_cache_folder_is_refused_in_one_line(
    own_db: Path, tmp_path: Path, how: str, monkeypatch
) -> None:
    import os

    cache = own_db.parent / "own.cache"
    assert run(own_db, "open", "afr", "-n", "1", "--seed", "1").returncode == 0
    folder = cache / "values"
    if how == "world-writable":
        folder.chmod(0o777)
    elif how == "group-writable":
        cache.chmod(0o770)
    elif how == "foreign":
        if os.geteuid() != 0:
            pytest.skip("giving a folder to another user needs root")
        os.chown(folder, 12345, -1)
    else:
        elsewhere = tmp_path / "elsewhere"
        folder.rename(elsewhere)
        folder.symlink_to(elsewhere)
    before = {p: p.read_bytes() for p in cache.rglob("*") if p.is_file()}
    r = run(own_db, "open", "afr", "-n", "1", "--seed", "2")
    assert r.returncode == 1 and r.stdout == "" and len(r.stderr.splitlines()) == 1, r.stderr
    assert "the cache folder" in r.stderr and "boosterkit neither reads nor writes it" in r.stderr
    assert "Traceback" not in r.stderr
    assert {p: p.read_bytes() for p in cache.rglob("*") if p.is_file()} == before


def test_no_write_follows_a_symlink(tmp_path: Path) -> None:
    """A planted ``.part`` (or kept temporary) symlink is replaced, never written through."""
    import os
    import threading

    from boosterkit.cache import CacheFiles
    from boosterkit.pipeline.cache import store_bytes

    target = tmp_path / "root-only"
    target.write_text("precious")
    cache = tmp_path / "db.cache"
    (cache / "scryfall").mkdir(parents=True)
    (cache / "scryfall" / "sets.json.gz.part").symlink_to(target)
    store_bytes(cache, b'{"data": []}', "scryfall/sets.json")
    assert gzip.decompress((cache / "scryfall" / "sets.json.gz").read_bytes()) == b'{"data": []}'
    files = CacheFiles(cache / "values")
    name = "n.k1.json"
    files.folder.mkdir(mode=0o700)
    (files.folder / f".{name}.{os.getpid()}.{threading.get_ident()}").symlink_to(target)
    planted = files.folder / f".{name}.{os.getpid()}.{threading.get_ident()}"
    files.save("n", (), "k1", {"value": 1}, dict[str, int])
    assert (files.folder / name).exists() and not planted.exists()
    assert files.load("n", (), "k1", dict[str, int]) == {"value": 1}
    assert target.read_text() == "precious"


# --- sync while serve holds the database (issue 20 §1) ----------------------------------------


@contextmanager
def _serving(db: Path) -> Iterator[str]:
    """``boosterkit --db DB serve`` on a free port of 127.0.0.1; its base URL."""
    import socket
    import time

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [*CLI, "--db", str(db), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            assert proc.poll() is None, proc.stderr.read()
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_sync_while_serve_runs_waits_for_its_idle_close(
    synced: Path, built_scryfall: Path, tmp_path: Path
) -> None:
    """The normal night in a shop: the service has just answered (it holds the file for its
    1 s linger); the sync waits for it to let go, loads, and the service reads the new data."""
    import httpx

    path = tmp_path / "shop.duckdb"
    shutil.copy(synced, path)
    shutil.copytree(synced.with_suffix(".cache"), path.with_suffix(".cache"))
    cards = built_scryfall / "cards" / "one.unique-cards.json"
    with _serving(path) as url:
        assert httpx.get(f"{url}/sets", timeout=10).status_code == 200  # the file is open now
        done = run(path, "sync", "--file", str(cards))
        assert done.returncode == 0, done.stderr
        assert "Conflicting lock" not in done.stderr and done.stderr.startswith("synced ")
        health = httpx.get(f"{url}/health", timeout=10)
        assert health.status_code == 200


def test_a_sync_that_cannot_get_the_file_names_the_other_process(
    synced: Path, built_scryfall: Path, tmp_path: Path
) -> None:
    """A service kept busy past the wait: one line naming the boosterkit process and what to
    do, never DuckDB's lock text (the holder's interpreter path, a ``-readonly`` flag)."""
    import os
    import threading

    import httpx

    path = tmp_path / "busy.duckdb"
    shutil.copy(synced, path)
    before = digest(path)
    cards = built_scryfall / "cards" / "one.unique-cards.json"
    with _serving(path) as url:
        stop = threading.Event()

        def keep_busy() -> None:
            with httpx.Client(timeout=10) as client:
                while not stop.is_set():
                    client.get(f"{url}/sets")

        worker = threading.Thread(target=keep_busy)
        worker.start()
        try:
            done = subprocess.run(
                [*CLI, "--db", str(path), "sync", "--file", str(cards)],
                capture_output=True,
                text=True,
                timeout=120,
                env={**os.environ, "BOOSTERKIT_LOCK_WAIT": "1"},  # 1 s of requests served, not 2
            )
        finally:
            stop.set()
            worker.join(30)
    err = assert_one_line(done, "the database is in use by another boosterkit process (PID ")
    assert " serve --port " in err and "waited 1 s for it to let go" in err
    assert "a `boosterkit serve` lets go of the file 1 s after its last request" in err
    assert "Conflicting lock" not in err and "-readonly" not in err and sys.executable not in err
    assert digest(path) == before
