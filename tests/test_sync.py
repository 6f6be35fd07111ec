"""``boosterkit sync`` end to end against a fake Scryfall on 127.0.0.1 serving the files of a
Scryfall folder: the real one where ``../shared`` is, else the built one (``any_sources``)."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT
from helpers import UNPACED_CLI
from scryfall_server import FakeScryfall
from test_ingest import snapshot

from boosterkit.errors import FetchError, InputError, NotFoundError
from boosterkit.pipeline import db, rebuild, sync
from boosterkit.pipeline.scryfall.client import ScryfallClient

BIN = str(Path(sys.executable).with_name("boosterkit"))


@pytest.fixture(scope="module")
def root(any_sources) -> Path:
    return any_sources.scryfall


@pytest.fixture(scope="module")
def api(root: Path):
    with FakeScryfall(root=root) as server:
        yield server


def _client(api: FakeScryfall) -> ScryfallClient:
    return ScryfallClient(api.url, sleep=lambda s: None)


def _run(args: list[str], env_db: Path, api: FakeScryfall, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, SCRYFALL_API_URL=api.url, BOOSTERKIT_DB=str(env_db))
    return subprocess.run([*UNPACED_CLI, *args], env=env, capture_output=True, text=True,
                          timeout=120, **kw)  # fmt: skip


def _cards(root: Path, *codes: str) -> list[dict]:
    """The card objects of sets ``codes`` in the folder's card files."""
    out = []
    for f in sorted((root / "cards").glob("*.unique-cards.json")):
        out += [c for c in json.loads(f.read_text(encoding="utf-8")) if c["set"] in codes]
    return out


@pytest.mark.slow
def test_cli_sync_set_with_child_sets(api: FakeScryfall, root: Path, tmp_path: Path) -> None:
    dbf = tmp_path / "t.duckdb"
    api.requests.clear()
    r = _run(["sync", "WOE", "--json"], dbf, api)
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert "synced" in r.stderr and f"{summary['cards']} cards" in r.stderr
    # the set list says which sets descend from woe (wot, twoe, woc, and twoc via woc…)
    sets = json.loads((root / "sets" / "sets.json").read_text(encoding="utf-8"))["data"]
    family = ["woe"]
    for parent in family:
        family += [s["code"] for s in sets if s.get("parent_set_code") == parent]
    children = set(family) - {"woe"}
    assert {"wot", "twoe", "woc", "twoc"} <= children
    assert set(summary["set_codes"]) == {"woe"} | children
    expected = _cards(root, "woe", "wot")
    wot = sum(c["set"] == "wot" for c in expected)
    assert summary["cards"] == len(expected) and len(expected) - wot > 175 and wot
    # every search asked for every printing, and page 2 of woe (more than 175) was followed
    searches = [q for q in api.requests if q.path == "/cards/search"]
    assert all(
        q.query["unique"] == ["prints"]
        and q.query["include_extras"] == ["true"]
        and q.query["include_variations"] == ["true"]
        for q in searches
    )
    assert [q.query.get("page") for q in searches if q.query["q"] == ["e:woe"]] == [None, ["2"]]
    assert all(q.headers["User-Agent"].startswith("boosterkit/") for q in api.requests)
    # pacing is asserted where it is decided, on the client's clock (see
    # test_sync_paces_requests_on_the_client_clock): no server-side timing here

    con = db.connect(dbf, read_only=True)
    assert con.execute("SELECT count(*) FROM cards").fetchone()[0] == len(expected)
    assert con.execute("SELECT count(*) FROM cards WHERE set_code = 'wot'").fetchone()[0] == wot
    run = con.execute(
        "SELECT source, target, status, sets, cards, cache_files FROM sync_runs"
    ).fetchall()
    assert len(run) == 1 and run[0][:5] == (
        "scryfall-set", "woe", "ok", len(children) + 1, len(expected)
    )  # fmt: skip
    cache = dbf.parent / "t.cache"
    assert all((cache / f).exists() for f in run[0][5])
    assert sum("cards-woe-" in f for f in run[0][5]) == 2
    before = snapshot(con)
    con.close()

    # idempotent: a second sync changes no row
    r2 = _run(["sync", "woe"], dbf, api)
    assert r2.returncode == 0, r2.stderr
    con = db.connect(dbf, read_only=True)
    assert snapshot(con) == before
    con.close()


class FakeTime:
    """An injected clock whose sleep advances it: the client's schedule, without waiting."""

    def __init__(self) -> None:
        self.now, self.sleeps = 0.0, []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_sync_paces_requests_on_the_client_clock(
    api: FakeScryfall, root: Path, mem_db, tmp_path: Path
) -> None:
    t = FakeTime()
    client = ScryfallClient(api.url, sleep=t.sleep, clock=t.clock)
    sent: list[tuple[str, float]] = []
    client.session.hooks["response"].append(lambda r, *a, **k: sent.append((r.url, t.now)))
    summary = sync.sync_sets(mem_db, ["woe"], cache=tmp_path, client=client, use_mtgjson=False)
    assert summary["cards"] == len(_cards(root, "woe", "wot"))
    searches = [at for url, at in sent if "/cards/search" in url]
    assert len(searches) == len(summary["set_codes"]) + 1  # woe has two pages
    assert [round(b - a, 9) for a, b in zip(searches, searches[1:])] == [0.5] * (len(searches) - 1)
    assert all(round(b[1] - a[1], 9) >= 0.1 for a, b in zip(sent, sent[1:]))


def test_unknown_set_one_line_no_change(api: FakeScryfall, root: Path, tmp_path: Path) -> None:
    dbf = tmp_path / "t.duckdb"
    con = db.connect(dbf)
    sync.sync_file(con, root / "cards" / "one.unique-cards.json", cache=tmp_path / "t.cache")
    before = snapshot(con)
    con.close()
    r = _run(["sync", "zzq"], dbf, api)
    assert r.returncode == 2  # an input error: Scryfall knows no such set
    assert (
        r.stderr.strip().startswith("boosterkit: error: unknown set 'zzq'")
        and "\n" not in r.stderr.strip()
    )
    assert "Traceback" not in r.stderr
    con = db.connect(dbf, read_only=True)
    assert snapshot(con) == before
    assert not list((tmp_path / "t.cache").glob("scryfall/*"))  # nothing half-fetched kept
    con.close()


def test_http_error_after_retries_changes_nothing(root: Path, mem_db, tmp_path: Path) -> None:
    sync.sync_file(mem_db, root / "cards" / "bro.unique-cards.json", cache=tmp_path)
    before = snapshot(mem_db)
    with FakeScryfall(root=root) as api:
        # /sets and /sets/woe answer, then every search fails with a server error
        api._search = lambda q: (
            500,
            {"object": "error", "status": 500, "code": "boom", "details": "x"},
        )
        client = ScryfallClient(api.url, sleep=lambda s: None, max_retries=2)
        with pytest.raises(FetchError, match=r"HTTP 500 \(gave up after 3 attempts\)"):
            sync.sync_sets(mem_db, ["woe"], cache=tmp_path, client=client)
        assert sum(r.path == "/cards/search" for r in api.requests) == 3
    assert snapshot(mem_db) == before
    assert mem_db.execute("SELECT count(*) FROM sync_runs").fetchone()[0] == 1


def test_429_then_success_through_sync(
    api: FakeScryfall, root: Path, mem_db, tmp_path: Path
) -> None:
    waits: list[float] = []
    client = ScryfallClient(api.url, sleep=waits.append)
    api.faults[:] = [429, 503]
    summary = sync.sync_sets(mem_db, ["ONE"], cache=tmp_path, client=client)
    assert 2.0 in waits  # the fake's Retry-After
    assert summary["cards"] == len(_cards(root, "one")) > 175  # two pages
    assert mem_db.execute("SELECT count(*) FROM sets WHERE code = 'one'").fetchone()[0] == 1


def test_child_set_without_cards_is_zero_not_failure(
    api: FakeScryfall, root: Path, mem_db, tmp_path: Path
) -> None:
    summary = sync.sync_sets(mem_db, ["mom"], cache=tmp_path, client=_client(api))
    # mom has ~10 child sets; the folder holds cards for mom only: the rest answer 404
    assert len(summary["set_codes"]) > 5
    assert summary["cards"] == len(_cards(root, "mom"))
    assert mem_db.execute("SELECT count(DISTINCT set_code) FROM cards").fetchone()[0] == 1


def test_unknown_set_library(api: FakeScryfall, mem_db, tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="'qqq'"):
        sync.sync_sets(mem_db, ["qqq"], cache=tmp_path, client=_client(api))


def test_bulk_download_skip_when_unchanged_and_rebuild_offline(root: Path, tmp_path: Path) -> None:
    with FakeScryfall(root=root) as api:
        con = db.connect(tmp_path / "t.duckdb")
        cache = tmp_path / "t.cache"
        first = sync.sync_bulk(con, "default_cards", cache=cache, client=_client(api))
        n = sum(len(v) for v in api.cards.values())
        assert first["downloaded"] is True and first["cards"] == n
        second = sync.sync_bulk(con, "default_cards", cache=cache, client=_client(api))
        assert second["downloaded"] is False and second["cards"] == n
        assert sum(r.path.startswith("/bulk/") for r in api.requests) == 1
        api.bulk_updated_at = "2024-02-01T10:00:00.000+00:00"
        assert sync.sync_bulk(con, "default_cards", cache=cache, client=_client(api))["downloaded"]
        with pytest.raises(InputError, match="bulk type 'rulings': expected one of default_cards"):
            sync.sync_bulk(con, "rulings", cache=cache, client=_client(api))
        with pytest.raises(
            InputError, match="bulk type 'all_cards': Scryfall offers default_cards"
        ):
            sync.sync_bulk(con, "all_cards", cache=cache, client=_client(api))
        sync.sync_set_list(con, cache=cache, client=_client(api))
    before = snapshot(con)
    # the server is gone: rebuild uses only the cache
    result = rebuild.rebuild(con, cache)
    assert result["runs"] == 4
    assert snapshot(con) == before
    assert len(list(cache.glob("bulk/*.gz"))) == 2


def test_bulk_sent_without_gzip_is_compressed_in_the_cache(root: Path, tmp_path: Path) -> None:
    with FakeScryfall(root=root, gzip_bulk=False) as api:
        con = db.connect(tmp_path / "t.duckdb")
        summary = sync.sync_bulk(con, "default_cards", cache=tmp_path / "c", client=_client(api))
        plain = api.bulk_file()
    assert summary["cards"] == sum(len(v) for v in api.cards.values())
    (cached,) = (tmp_path / "c").glob("bulk/*")
    assert cached.name.endswith(".json.gz") and gzip.decompress(cached.read_bytes()) == plain


def _big_file(root: Path, tmp_path: Path, copies: int) -> Path:
    """The folder's cards repeated with fresh ids, as a plain JSON array (like a bulk file)."""
    cards = _cards(root, "one", "bro", "mom", "ltr", "woe", "wot")
    path = tmp_path / "big.json"
    with open(path, "w", encoding="utf-8") as f:
        f.write("[")
        for i in range(copies):
            for j, c in enumerate(cards):
                c = dict(c, id=f"{i:08x}-0000-4000-8000-{j:012x}")
                f.write(("," if i or j else "") + json.dumps(c))
        f.write("]")
    return path


@pytest.mark.slow
def test_sync_killed_mid_load_leaves_old_data(root: Path, tmp_path: Path) -> None:
    dbf = tmp_path / "t.duckdb"
    con = db.connect(dbf)
    sync.sync_file(con, root / "cards" / "one.unique-cards.json", cache=tmp_path / "t.cache")
    before = snapshot(con)
    con.close()
    n = len(_cards(root, "one", "bro", "mom", "ltr", "woe", "wot"))
    copies = -(-18_000 // n)
    big = _big_file(root, tmp_path, copies)  # ≈18,000 cards
    env = dict(os.environ, BOOSTERKIT_DB=str(dbf))
    proc = subprocess.Popen(
        [BIN, "sync", "--file", str(big)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    import psutil

    child, seen = psutil.Process(proc.pid), False
    deadline = time.monotonic() + 60
    # Wait until the sync reads the file (its parse, its halves' copies or the load
    # transaction with the cache copy beside it) and kill it there: at any of
    # those moments the old data must survive. Waiting for two readers at once missed the
    # short window on a loaded machine.
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            opened = sum(f.path == str(big) for f in child.open_files())
        except psutil.Error:
            break
        if opened >= 1:
            seen = True
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.005)
    proc.wait()
    assert seen, "the sync finished before it could be interrupted"
    assert proc.returncode == -signal.SIGKILL
    con = db.connect(dbf)
    assert snapshot(con) == before
    assert con.execute("SELECT status FROM sync_runs ORDER BY id").fetchall() == [("ok",)]
    # and the database still works: the same file now loads completely
    assert sync.sync_file(con, big, cache=tmp_path / "t.cache")["cards"] == copies * n
    con.close()


def test_cli_bad_file_exit_code_no_traceback(tmp_path: Path, api: FakeScryfall) -> None:
    dbf = tmp_path / "t.duckdb"
    bad = tmp_path / "bad.json"
    bad.write_text('[{"object": "card", "id": "x",,]')
    r = _run(["sync", "--file", str(bad)], dbf, api)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"boosterkit: error: {bad}: ")
    r = _run(["sync", "woe", "--sets"], dbf, api)
    assert r.returncode == 2 and "exactly one of" in r.stderr


def test_cli_file_summary_line(tmp_path: Path, root: Path, api: FakeScryfall) -> None:
    r = _run(
        ["sync", "--file", str(root / "cards" / "one.unique-cards.json")],
        tmp_path / "t.duckdb",
        api,
    )
    assert r.returncode == 0, r.stderr
    n = len(_cards(root, "one"))
    assert r.stderr.startswith(f"synced 1 set, {n} cards in ") and r.stderr.endswith(" s\n")


#: Runs ``boosterkit ARGV`` in-process, then prints which HTTP modules it imported.
_HTTP_PROBE = """
import json, sys
from boosterkit.cli.app import app
try:
    app(sys.argv[1:], prog_name="boosterkit")
except SystemExit as exc:
    assert not exc.code, exc.code
print(json.dumps(sorted(m for m in ("requests", "urllib3", "scrython") if m in sys.modules)), file=sys.stderr)
"""


def test_sync_file_imports_no_http_client(root: Path, tmp_path: Path) -> None:
    """A local file needs no network code (issue 13: its start-up is part of the ingest time)."""
    src = root / "cards" / "one.unique-cards.json"
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            _HTTP_PROBE,
            "--db",
            str(tmp_path / "t.duckdb"),
            "sync",
            "--file",
            str(src),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr.startswith(f"synced 1 set, {len(_cards(root, 'one'))} cards in ")
    assert json.loads(r.stderr.strip().splitlines()[-1]) == []
