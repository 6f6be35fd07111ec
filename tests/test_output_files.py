"""Files the user names are never lost (issue 33 §3): ``-o FILE`` replaces the old file only
once the new one is whole (Ctrl-C, a full disk: the old one stays); ``pool -o DIR`` writes
inside DIR only, never through a symlink planted there, and all its files or none; a
``--db`` that is some other file is refused before any work.

A full disk is simulated with a file-size limit (``RLIMIT_FSIZE``, SIGXFSZ ignored) in the
child process only, as in ``test_storage_faults.py``.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import run_cli

CLI = [sys.executable, "-m", "boosterkit.cli"]
PRECIOUS = "precious\n"


def _child(fsize: int | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Python then raises KeyboardInterrupt
    if fsize is not None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))


def run(db: Path, *args: str, fsize: int | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "--db", str(db), *args],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: _child(fsize),
    )


def _one_line(done: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    assert done.returncode == code, (done.returncode, done.stderr[-2000:])
    assert done.stderr.startswith("boosterkit: error: ") and done.stderr.count("\n") == 1, (
        done.stderr
    )
    for word in words:
        assert word in done.stderr, (word, done.stderr)


def test_ctrl_c_during_o_keeps_the_old_file(built_db: Path, tmp_path: Path) -> None:
    """``echo precious >r.jsonl; boosterkit open afr -n 2000000 -f jsonl -o r.jsonl``, then
    Ctrl-C: r.jsonl was gone; now it still says precious and nothing else is left."""
    target = tmp_path / "r.jsonl"
    target.write_text(PRECIOUS)
    proc = subprocess.Popen(
        [*CLI, "--db", str(built_db), "open", "afr", "-n", "2000000", "--seed", "1",
         "-f", "jsonl", "-o", str(target)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: _child(None),
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        written = sum(p.stat().st_size for p in tmp_path.iterdir() if p.is_file())
        if written > 100_000:  # packs are being written (to r.jsonl or beside it)
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the run ended before it was interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert target.read_text() == PRECIOUS
    assert [p.name for p in tmp_path.iterdir()] == ["r.jsonl"]  # no temporary file left


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_a_full_disk_during_o_keeps_the_old_file(built_db: Path, tmp_path: Path, fmt) -> None:
    target = tmp_path / f"packs.{fmt}"
    target.write_text(PRECIOUS)
    done = run(built_db, "open", "afr", "-n", "400", "--seed", "1", "-f", fmt,
               "-o", str(target), fsize=20_000)  # fmt: skip
    _one_line(done, 1, f"-o {target}: cannot write: File too large")
    assert target.read_text() == PRECIOUS
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_an_interrupted_write_in_process_keeps_the_old_file(tmp_path: Path) -> None:
    from boosterkit.cli import render

    target = tmp_path / "out.txt"
    target.write_text(PRECIOUS)
    target.chmod(0o640)
    with pytest.raises(KeyboardInterrupt), render.output(str(target)) as out:
        out.write("half of it")
        out.flush()
        raise KeyboardInterrupt
    assert target.read_text() == PRECIOUS and os.listdir(tmp_path) == ["out.txt"]
    with render.output(str(target)) as out:
        out.write("new\n")
    assert target.read_text() == "new\n" and os.listdir(tmp_path) == ["out.txt"]
    assert target.stat().st_mode & 0o777 == 0o640  # the replaced file's mode kept


def test_o_through_a_symlink_writes_the_file_it_names(tmp_path: Path) -> None:
    """``-o link`` (a link the user made) replaces the file the link names, and the link stays."""
    from boosterkit.cli import render

    real, link = tmp_path / "real.txt", tmp_path / "link.txt"
    real.write_text(PRECIOUS)
    link.symlink_to(real.name)
    with render.output(str(link)) as out:
        out.write("new\n")
    assert link.is_symlink() and real.read_text() == "new\n"


def test_o_to_a_device_or_a_pipe_writes_it_as_before(built_db: Path, tmp_path: Path) -> None:
    """``-o /dev/stdout`` (a pipe here) and ``-o /dev/null`` cannot be replaced: written as is."""
    done = subprocess.run(
        [*CLI, "--db", str(built_db), "open", "afr", "--seed", "1", "-o", "/dev/stdout"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Pack 1: afr-draft") and "wrote /dev/stdout" in done.stderr
    assert run(built_db, "open", "afr", "--seed", "1", "-o", "/dev/null").returncode == 0


# --- pool -o DIR ------------------------------------------------------------------------------

POOL = ("pool", "afr", "--players", "2", "--packs", "1", "--seed", "1")


def test_pool_never_writes_through_a_planted_symlink(capsys, built_db: Path, tmp_path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text(PRECIOUS)
    folder = tmp_path / "pools"
    folder.mkdir()
    (folder / "pool-1.txt").symlink_to("../victim.txt")
    code, _, err = run_cli(capsys, "--db", str(built_db), *POOL, "-o", str(folder))
    assert code == 0, err
    assert victim.read_text() == PRECIOUS
    written = folder / "pool-1.txt"
    assert not written.is_symlink() and written.read_text().startswith("Player 1 of 2")
    assert sorted(os.listdir(folder)) == ["pool-1.txt", "pool-2.txt"]


def test_pool_writes_every_file_or_none(capsys, built_db: Path, tmp_path: Path) -> None:
    """``pool-2.txt`` cannot be written (a folder holds its name): ``pool-1.txt`` was left
    behind; now nothing new stays and the old ``pool-1.txt`` is as it was."""
    folder = tmp_path / "pools"
    (folder / "pool-2.txt").mkdir(parents=True)
    (folder / "pool-1.txt").write_text(PRECIOUS)
    code, out, err = run_cli(capsys, "--db", str(built_db), *POOL, "-o", str(folder))
    assert code == 2 and out == "", err
    assert err.startswith("boosterkit: error: ") and err.count("\n") == 1, err
    assert f"-o {folder}" in err and "pool-2.txt" in err
    assert sorted(os.listdir(folder)) == ["pool-1.txt", "pool-2.txt"]
    assert (folder / "pool-1.txt").read_text() == PRECIOUS and (folder / "pool-2.txt").is_dir()


def test_pool_on_a_full_disk_is_exit_1_and_writes_nothing(built_db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "pools"
    folder.mkdir()
    (folder / "pool-1.txt").write_text(PRECIOUS)
    done = run(built_db, "pool", "afr", "--players", "2", "--packs", "6", "--seed", "1",
               "-f", "html", "-o", str(folder), fsize=1024)  # fmt: skip
    _one_line(done, 1, f"-o {folder}", "cannot write: File too large")
    assert os.listdir(folder) == ["pool-1.txt"] and (folder / "pool-1.txt").read_text() == PRECIOUS


# --- a --db that is not a database -----------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [b'{"zones": []}\n', b"SQLite format 3\x00" + bytes(100), b"PAR1" + bytes(60)],
    ids=["json", "sqlite", "parquet"],
)
@pytest.mark.parametrize(
    "command", [("import", "mtgjson", "MAFR"), ("open", "afr"), ("sets",)], ids=" ".join
)
def test_a_db_that_is_another_file_is_refused_before_any_work(
    built_world, tmp_path: Path, content: bytes, command: tuple[str, ...]
) -> None:
    """``--db setup.json import mtgjson …`` printed "imported 1 set", exit 0, the file
    unchanged; then ``open`` said "Cannot launch in-memory database in read-only mode!"."""
    path = tmp_path / "setup.json"
    path.write_bytes(content)
    mafr = str(built_world.folder / "MAFR.json")
    done = run(path, *(mafr if a == "MAFR" else a for a in command))
    _one_line(done, 2, f"{path}: not a boosterkit database")
    assert path.read_bytes() == content and os.listdir(tmp_path) == ["setup.json"]


# --- a damaged cache is rebuilt, never in the way (issue 33 §10) ------------------------------


def _damage(cache: Path, how: str) -> None:
    files = sorted((cache / "values").glob("*.json"))
    assert files
    for f in files:
        body = f.read_bytes()
        if how == "truncated":
            f.write_bytes(body[: len(body) // 2])
        elif how == "a byte changed":
            at = len(body) - 10
            f.write_bytes(body[:at] + bytes([body[at] ^ 1]) + body[at + 1 :])
        elif how == "emptied":
            f.write_bytes(b"")
        elif how == "foreign JSON":
            f.write_bytes(b'{"not": "a cache file"}')
        else:  # "an old sealed pickle": what boosterkit kept before issue 35
            f.write_bytes(b"BKS1" + bytes(32) + b"\x80\x05N.")


DAMAGES = ["truncated", "a byte changed", "emptied", "foreign JSON", "an old sealed pickle"]
COMMANDS = [
    ("open", "afr", "-n", "2", "--seed", "1"),
    ("deal", "mimic-match", "--players", "3", "--set", "afr", "--seed", "2"),
]


@pytest.fixture(scope="module", params=COMMANDS, ids=lambda c: c[0])
def cached_run(request, built_db: Path, tmp_path_factory) -> tuple[tuple, Path, str, Path]:
    """A command run once on a copy of ``built_db``, which wrote its cache: the command, the
    copy, what the run printed and a copy of the cache it wrote. A test damages the cache
    beside the database, put back as the run left it: a copy of the database would have
    another cache (the cache is of the file's path, inode, modification time and size)."""
    import shutil

    db = tmp_path_factory.mktemp("cached") / "own.duckdb"
    shutil.copy(built_db, db)
    first = run(db, *request.param)
    assert first.returncode == 0 and first.stderr == "", first.stderr
    made = db.parent / "made.cache"
    shutil.copytree(db.parent / "own.cache", made)
    return request.param, db, first.stdout, made


@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_cache_is_rebuilt_with_one_line(cached_run, how: str) -> None:
    """Overwriting ``<db>.cache/secret`` made every ``open`` and ``deal`` exit 1 (issue 33);
    the cache now holds no secret and no pickle (issue 35): a damaged file is rebuilt."""
    import shutil

    command, own_db, printed, made = cached_run
    cache = own_db.parent / "own.cache"
    shutil.rmtree(cache)
    shutil.copytree(made, cache)
    _damage(cache, how)
    done = run(own_db, *command)
    assert done.returncode == 0, done.stderr
    assert done.stdout == printed
    lines = done.stderr.splitlines()
    assert lines and all(line.startswith("boosterkit: warning: ") for line in lines), lines
    assert all("made again" in line and str(cache) in line for line in lines)
    assert len(lines) == len({line.split(":")[2] for line in lines})  # one line a file
    again = run(own_db, *command)  # rebuilt: the next run loads it, in silence
    assert (again.returncode, again.stdout, again.stderr) == (0, printed, "")


def test_no_pickle_and_no_secret_in_the_cache(own_db: Path) -> None:
    """Every file of the cache is checksummed JSON; what an older boosterkit kept (a secret,
    sealed pickles) is removed when the cache is next written."""
    cache = own_db.parent / "own.cache"
    (cache / "products").mkdir(parents=True)
    (cache / "products" / "afr.draft.x.pickle").write_bytes(b"BKS1")
    (cache / "secret").write_bytes(bytes(32))
    for command in COMMANDS:
        assert run(own_db, *command).returncode == 0
    files = [p for p in cache.rglob("*") if p.is_file()]
    assert files and all(p.parent == cache / "values" and p.suffix == ".json" for p in files)
    for p in files:
        head, _, body = p.read_bytes().partition(b"\n")
        assert head.startswith(b"BKC1 ") and json.loads(body) is not None
        assert b"pickle" not in head


def test_the_service_answers_through_a_damaged_cache(own_db: Path, caplog) -> None:
    """The service answered 422 to every ``POST /packs`` after the secret was overwritten
    (issue 33); a damaged cache file is rebuilt, the request answered (issue 35)."""
    from fastapi.testclient import TestClient

    from boosterkit.service.app import create_app

    body = {"set": "afr", "count": 2, "seed": 1}
    with TestClient(create_app(own_db), base_url="http://127.0.0.1") as client:
        want = client.post("/packs", json=body)
    assert want.status_code == 200
    for f in (own_db.parent / "own.cache" / "values").glob("*.json"):
        f.write_bytes(b"garbage\n")
    with TestClient(create_app(own_db), base_url="http://127.0.0.1") as client:
        got = client.post("/packs", json=body)
        assert got.status_code == 200, got.text
        assert got.content == want.content
    warned = [r.getMessage() for r in caplog.records if r.name == "boosterkit"]
    assert len(warned) == 1 and "made again" in warned[0], warned
