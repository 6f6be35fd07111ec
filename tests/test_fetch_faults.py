"""A hostile upstream changes nothing and hangs nothing (issue 12, Fetching).

Fault-injecting stand-ins of Scryfall and MTGJSON on 127.0.0.1 (``fake_upstream.Fault``),
serving the built Scryfall folder and the MKM fixtures:
a page loop, links and redirects to other hosts, huge and unparsable ``Retry-After``, a
stalled upstream, truncated bodies, a 5xx storm. Each case: the client's injected clock
bounds it (no wall-clock assertion; real stalls are cut by a 0.3 s socket timeout), the
error is one line, and the database keeps every row (row counts and a checksum).
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from dbcheck import fingerprint
from fake_upstream import Answer, Fault
from mtgjson_server import FakeMtgjson
from scryfall_server import FakeScryfall

from boosterkit.errors import FetchError
from boosterkit.pipeline import cache as cachemod
from boosterkit.pipeline import db, http, sync
from boosterkit.pipeline.mtgjson_client import MtgjsonClient
from boosterkit.pipeline.scryfall.client import ScryfallClient

FIX = ROOT / "tests" / "fixtures" / "mtgjson_sync"
BIN = str(Path(sys.executable).with_name("boosterkit"))
EVIL = "http://169.254.169.254/latest/meta-data"


class FakeTime:
    """Injected clock: ``sleep`` advances it; nothing really waits."""

    def __init__(self) -> None:
        self.now, self.sleeps, self.notes = 0.0, [], []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert math.isfinite(seconds) and 0 <= seconds <= http.MAX_RETRY_AFTER
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture(scope="module")
def servers(built_scryfall: Path):
    with (
        FakeScryfall(root=built_scryfall, extra=(FIX / "scryfall",)) as api,
        FakeMtgjson(roots=(FIX / "mtgjson",)) as mj,
    ):
        yield api, mj


@pytest.fixture
def up(servers):
    """The two stand-ins, reset after each test (faults, overridden routes, request logs)."""
    api, mj = servers
    yield api, mj
    for s in (api, mj):
        s.faults.clear()
        s.requests.clear()
        s.rewrite.clear()
        s.__dict__.pop("route", None)
        s.__dict__.pop("_search", None)
        s.__dict__.pop("_route", None)


@pytest.fixture
def loaded(built_scryfall: Path, tmp_path: Path):
    """A database with data in it (the built ONE), its fingerprint, and its cache folder."""
    con = db.connect(tmp_path / "t.duckdb")
    cache = tmp_path / "t.cache"
    sync.sync_file(con, built_scryfall / "cards" / "one.unique-cards.json", cache=cache)
    yield con, cache, fingerprint(con, with_runs=True)
    con.close()


def _retry_notes(t: FakeTime) -> list[str]:
    return [n for n in t.notes if " to retry " in n]


def _sync(con, cache, api, mj, t: FakeTime, codes=("spg",), **kw):
    opts = {"sleep": t.sleep, "clock": t.clock, "timeout": 0.3, "on_wait": t.notes.append, **kw}
    return sync.sync_sets(
        con,
        list(codes),
        cache=cache,
        client=ScryfallClient(api.url, **opts),
        mtgjson=MtgjsonClient(mj.url, **opts),
    )


def _fails(loaded, up, t: FakeTime, match: str, **kw) -> str:
    con, cache, before = loaded
    api, mj = up
    files = sorted(p for p in cache.rglob("*") if p.is_file())
    with pytest.raises(FetchError, match=match) as info:
        _sync(con, cache, api, mj, t, **kw)
    msg = str(info.value)
    assert "\n" not in msg and len(msg) < 600
    assert fingerprint(con, with_runs=True) == before
    assert (
        sorted(p for p in cache.rglob("*") if p.is_file()) == files
    )  # nothing half-fetched, no .part
    return msg


# --- links ------------------------------------------------------------------------------


def _paged(api: FakeScryfall, next_of) -> None:
    """Searches answer pages of 1 card forever, ``next_of(page)`` naming the next."""

    def search(query):
        page = int(query.get("page", ["1"])[0])
        card = api.cards["spg"][0]
        return 200, {
            "object": "list",
            "total_cards": 3,
            "has_more": True,
            "data": [card],
            "next_page": next_of(page, query),
        }

    api._search = search


def _page_url(api, query, page):
    from urllib.parse import urlencode

    return f"{api.url}/cards/search?{urlencode({k: v[0] for k, v in query.items()} | {'page': str(page)})}"


def test_next_page_loop_stops_with_one_line(loaded, up) -> None:
    api, mj = up
    _paged(api, lambda page, q: _page_url(api, q, 1 if page == 2 else 2))  # 1 → 2 → 1 …
    t = FakeTime()
    _fails(loaded, up, t, r"next_page repeats an earlier page; stopped")
    # the first request has no page=1 in its URL: page 1 is asked for once more, then page 2 repeats
    assert sum(r.path == "/cards/search" for r in api.requests) == 3


def test_pages_past_total_cards_stop(loaded, up) -> None:
    api, mj = up
    _paged(api, lambda page, q: _page_url(api, q, page + 1))  # a new page forever
    msg = _fails(
        loaded, up, FakeTime(), r"there is more, but 3 items were already read \(total_cards 3\)"
    )
    assert "page=4" in msg
    assert sum(r.path == "/cards/search" for r in api.requests) == 3


def test_pages_stop_at_the_page_cap(loaded, up, monkeypatch) -> None:
    """New pages forever, and a total_cards that never runs out: the page cap ends it."""
    from boosterkit.pipeline.scryfall import client as client_mod

    api, mj = up
    monkeypatch.setattr(client_mod, "MAX_PAGES", 4)

    def search(query):
        page = int(query.get("page", ["1"])[0])
        return 200, {
            "object": "list",
            "total_cards": 10**9,
            "has_more": True,
            "data": [api.cards["spg"][0]],
            "next_page": _page_url(api, query, page + 1),
        }

    api._search = search
    _fails(loaded, up, FakeTime(), r"more than 4 pages; stopped")
    assert sum(r.path == "/cards/search" for r in api.requests) == 4  # never more than the cap


def test_next_page_to_another_host_is_refused_by_name(loaded, up) -> None:
    api, mj = up
    _paged(api, lambda page, q: EVIL)
    msg = _fails(loaded, up, FakeTime(), "not following a next_page link to another host")
    assert msg.startswith(EVIL) and api.url in msg and "https://data.scryfall.io" in msg


def test_bulk_download_uri_to_another_host_is_refused(loaded, up) -> None:
    con, cache, before = loaded
    api, _ = up
    real = api._route

    def route(path, query):
        status, body = real(path, query)
        if path == "/bulk-data":
            body["data"][0]["download_uri"] = f"{EVIL}/default_cards.json"
        return status, body

    api._route = route
    t = FakeTime()
    with pytest.raises(FetchError, match="not following a download link to another host") as info:
        sync.sync_bulk(
            con,
            "default_cards",
            cache=cache,
            client=ScryfallClient(api.url, sleep=t.sleep, clock=t.clock),
        )
    assert str(info.value).startswith(f"{EVIL}/default_cards.json")
    assert fingerprint(con, with_runs=True) == before and not list(cache.rglob("*.part"))


def test_the_bulk_host_is_configurable(monkeypatch) -> None:
    monkeypatch.setenv("SCRYFALL_BULK_URL", "http://127.0.0.1:9")
    c = ScryfallClient("https://api.scryfall.com")
    c.check_url("http://127.0.0.1:9/x.json")
    c.check_url("https://api.scryfall.com/cards/search?page=2")
    with pytest.raises(FetchError, match="https://data.scryfall.io/x.json: not following"):
        c.check_url("https://data.scryfall.io/x.json")
    with pytest.raises(FetchError, match="another host"):
        c.check_url("http://api.scryfall.com/sets")  # the scheme is part of the origin


def test_redirect_to_another_host_is_refused(loaded, up) -> None:
    api, mj = up
    mj.route = lambda h, path, query: Answer(302, b"", {"Location": f"{EVIL}/SPG.json.gz"})
    msg = _fails(loaded, up, FakeTime(), "not following a redirect to another host")
    assert msg.startswith(f"{EVIL}/SPG.json.gz")


def test_redirect_on_the_same_host_is_followed(loaded, up) -> None:
    con, cache, _ = loaded
    api, mj = up
    real = type(mj).route

    def route(h, path, query):
        if path == "/api/v5/SPG.json.gz":
            return Answer(301, b"", {"Location": "/api/v5/files/SPG.json.gz"})
        return real(mj, h, path.replace("/files/", "/"), query)

    mj.route = route
    assert _sync(con, cache, api, mj, FakeTime())["mtgjson"]["sets"] == ["spg"]
    assert mj.served() == ["SPG"] and mj.requests[-1].path == "/api/v5/files/SPG.json.gz"


def test_redirect_loop_stops(loaded, up) -> None:
    api, mj = up
    mj.route = lambda h, path, query: Answer(302, b"", {"Location": path})
    _fails(loaded, up, FakeTime(), r"SPG\.json\.gz: more than 5 redirects")
    assert len(mj.requests) == 6


# --- waits ------------------------------------------------------------------------------


@pytest.mark.parametrize("upstream", ["scryfall", "mtgjson"])
def test_huge_retry_after_is_capped_and_the_deadline_ends_it(loaded, up, upstream) -> None:
    api, mj = up
    (api if upstream == "scryfall" else mj).faults[:] = [Fault(429, {"Retry-After": "999999"})] * 5
    t = FakeTime()
    msg = _fails(
        loaded,
        up,
        t,
        r"Retry-After 999999 s, capped at 120 s\); waiting 120 s more would "
        r"pass the 300 s fetch deadline \(gave up after 3 attempts\)",
    )
    assert "HTTP 429" in msg and [s for s in t.sleeps if s > 1] == [120.0, 120.0]
    retries = _retry_notes(t)
    assert (
        retries[0].startswith("waiting 120 s to retry 127.0.0.1:")
        and "capped at 120 s" in retries[0]
    )
    assert "attempt 2/5 next, deadline in 300 s" in retries[0]
    assert "attempt 3/5, deadline in 60 s)" in t.notes[-1]  # what it waited for last: 300 - 2 x 120


@pytest.mark.parametrize(
    "value", ["inf", "nan", "-inf", "1e999", "soon", "Wed, 32 Foo 2024 99:00:00 GMT"]
)
def test_unparsable_retry_after_is_treated_as_absent(loaded, up, value) -> None:
    con, cache, before = loaded
    api, mj = up
    api.faults[:] = [Fault(429, {"Retry-After": value})]
    mj.faults[:] = [Fault(429, {"Retry-After": value})]
    t = FakeTime()
    s = _sync(con, cache, api, mj, t)
    assert s["cards"] == 1 and s["mtgjson"]["sets"] == ["spg"]
    # the two 429s wait the default (a loaded machine may add a backoff of its own)
    assert t.sleeps.count(http.DEFAULT_RETRY_AFTER) == 2
    unreadable = [n for n in _retry_notes(t) if "unreadable: 30 s" in n]
    assert len(unreadable) == 2


def test_parse_retry_after() -> None:
    assert http.parse_retry_after("7") == 7.0
    assert http.parse_retry_after(" 0.5 ") == 0.5
    assert http.parse_retry_after("-3") == 0.0
    assert http.parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    for bad in (None, "", "inf", "nan", "1e400", "abc", "Wed, 21 Oct 2015 07:28:00"):
        assert http.parse_retry_after(bad) is None


@pytest.mark.parametrize("upstream", ["scryfall", "mtgjson"])
def test_stalled_upstream_is_bounded_by_the_deadline(loaded, up, upstream) -> None:
    api, mj = up
    (api if upstream == "scryfall" else mj).faults[:] = [Fault(stall=30)] * 5
    t = FakeTime()
    msg = _fails(
        loaded,
        up,
        t,
        r"waiting 4 s more would pass the 5 s fetch deadline \(gave up after 3 attempts\)",
        deadline=5.0,
    )
    assert "Timeout" in msg
    retries = _retry_notes(t)
    assert retries[0].startswith("waiting 1 s to retry 127.0.0.1:") and "Timeout" in retries[0]


def test_a_whole_sync_is_bounded_by_the_sync_deadline(loaded, up, monkeypatch) -> None:
    api, mj = up
    monkeypatch.setenv("BOOSTERKIT_SYNC_DEADLINE", "10")
    api.faults[:] = [Fault(429, {"Retry-After": "6"})] * 2
    t = FakeTime()
    _fails(
        loaded,
        up,
        t,
        r"/sets: HTTP 429 Too Many Requests; waiting 6 s more would pass the 10 s "
        r"sync deadline \(gave up after 2 attempts\)",
    )


def test_stall_without_deadline_pressure_gives_up_after_the_attempts(loaded, up) -> None:
    api, _ = up
    api.faults[:] = [Fault(stall=30)] * 3
    t = FakeTime()
    _fails(loaded, up, t, r"Timeout.*\(gave up after 3 attempts\)", max_retries=2)
    assert [x for x in t.sleeps if x >= 1] == [1.0, 2.0]


def test_a_bulk_download_is_bounded_by_the_download_deadline(loaded, up) -> None:
    con, cache, before = loaded
    api, _ = up
    t = FakeTime()
    client = ScryfallClient(api.url, sleep=t.sleep, clock=t.clock)
    dest = cache / "bulk" / "x.download"

    def slow(done: int, total: int | None) -> None:  # every chunk takes an hour of the fake clock
        t.now += 3601

    with pytest.raises(
        FetchError,
        match=r"/bulk/default_cards.json: the download was not done in time "
        r"\(\d+ bytes\); gave up at the 3600 s download deadline$",
    ):
        client.download(f"{api.url}/bulk/default_cards.json", dest, slow)
    assert not dest.exists() and not list(cache.rglob("*.part"))
    assert fingerprint(con, with_runs=True) == before


# --- bodies and storms --------------------------------------------------------------------


@pytest.mark.parametrize("upstream", ["scryfall", "mtgjson"])
def test_truncated_bodies_are_retried_then_fail_in_one_line(loaded, up, upstream) -> None:
    con, cache, before = loaded
    api, mj = up
    server = api if upstream == "scryfall" else mj
    server.faults[:] = [Fault(truncate=True)]
    t = FakeTime()
    assert _sync(con, cache, api, mj, t)["mtgjson"]["sets"] == ["spg"]  # one cut body: retried
    assert not list(cache.rglob("*.part")) and not list(cache.rglob("*.download"))
    after_ok = fingerprint(con, with_runs=True)
    server.faults[:] = [Fault(truncate=True)] * 5
    _fails(
        (con, cache, after_ok),
        up,
        FakeTime(),
        r"the body was cut short .*\(gave up after 5 attempts\)",
    )


def test_truncated_gzip_without_length_is_not_loaded(loaded, up) -> None:
    api, mj = up
    whole = mj.file_bytes("SPG")
    mj.route = lambda h, path, query: Answer(
        200, whole[: len(whole) - 20], {"Content-Type": "application/gzip"}
    )
    _fails(loaded, up, FakeTime(), r"SPG\.json\.gz: not a whole gzip file")


def test_a_page_that_is_not_mtgjson_is_not_loaded(loaded, up) -> None:
    api, mj = up
    mj.route = lambda h, path, query: Answer(200, b"<html>Please log in to the hotel wifi</html>")
    _fails(
        loaded,
        up,
        FakeTime(),
        r"SPG\.json\.gz: not an MTGJSON file \(neither gzip nor JSON: '<html>Please log in",
    )


@pytest.mark.parametrize("upstream", ["scryfall", "mtgjson"])
def test_5xx_storm_gives_up_with_bounded_backoff(loaded, up, upstream) -> None:
    api, mj = up
    server = api if upstream == "scryfall" else mj
    server.faults[:] = [503, 502, 500, 503, 504, 503]
    t = FakeTime()
    _fails(loaded, up, t, r"HTTP 504 \(gave up after 5 attempts\)")
    assert [x for x in t.sleeps if x >= 1] == [1.0, 2.0, 4.0, 8.0]
    assert len(server.requests) == 5


def test_a_huge_answer_is_refused(loaded, up, monkeypatch) -> None:
    api, _ = up
    assert len(json.dumps(api.sets)) > 1 << 14  # /sets is over 16 KiB
    monkeypatch.setattr(http, "MAX_ANSWER_BYTES", 1 << 14)
    _fails(
        loaded,
        up,
        FakeTime(),
        r"/sets: an answer of more than 0.015625 MB is not an API page; stopped",
    )
    assert len(api.requests) == 1


# --- the cache ----------------------------------------------------------------------------


def test_leftover_part_files_are_removed(loaded, up) -> None:
    con, cache, _ = loaded
    api, mj = up
    stale = cache / "scryfall" / "20240101T000000-1" / "cards-woe-1.json.gz.part"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"x" * 1000)
    fetched = cache / "bulk" / "default_cards-20240101.download"  # killed before it was stored
    fetched.parent.mkdir()
    fetched.write_bytes(b"[]")
    _sync(con, cache, api, mj, FakeTime())
    assert not stale.exists() and not fetched.exists()
    assert cachemod.remove_parts(cache) == 0


def test_store_failure_leaves_no_part(tmp_path: Path, monkeypatch) -> None:
    def full_disk(src, dst, length=0):
        dst.write(b"partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cachemod.shutil, "copyfileobj", full_disk)
    with pytest.raises(OSError, match="No space"):
        cachemod.store_bytes(tmp_path, b'{"a": 1}', "x/y.json")
    assert list(tmp_path.rglob("*")) == [tmp_path / "x"]


@pytest.mark.parametrize("kernel", ["copy_file_range", "no kernel copy (EXDEV)"])
def test_copy_file_is_byte_for_byte_and_a_full_disk_leaves_no_part(
    tmp_path: Path, monkeypatch, kernel: str
) -> None:
    src = tmp_path / "cards.json"
    src.write_bytes(bytes(range(256)) * 5000)  # 1.28 MB, any bytes
    if kernel != "copy_file_range":

        def cross_device(*args):
            raise OSError(18, "Invalid cross-device link")

        monkeypatch.setattr(cachemod.os, "copy_file_range", cross_device)
    cache = tmp_path / "cache"
    assert cachemod.copy_file(cache, src, "files/a.json") == "files/a.json"
    assert (cache / "files" / "a.json").read_bytes() == src.read_bytes()
    assert not list(cache.rglob("*.part"))

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cachemod.os, "copy_file_range", full_disk)
    monkeypatch.setattr(cachemod.shutil, "copyfileobj", full_disk)
    with pytest.raises(OSError, match="No space"):
        cachemod.copy_file(cache, src, "files/b.json")
    assert sorted(p.name for p in (cache / "files").iterdir()) == ["a.json"]


# --- the CLI: one line, exit 1 --------------------------------------------------------------


@pytest.mark.parametrize("case", ["loop", "other-host"])
def test_cli_hostile_pages_one_line(case: str, built_scryfall: Path, tmp_path: Path) -> None:
    dbf = tmp_path / "t.duckdb"
    con = db.connect(dbf)
    one = built_scryfall / "cards" / "one.unique-cards.json"
    sync.sync_file(con, one, cache=tmp_path / "t.cache")
    before = fingerprint(con, with_runs=True)
    con.close()
    with FakeScryfall(root=built_scryfall, extra=(FIX / "scryfall",)) as api, FakeMtgjson() as mj:
        _paged(
            api,
            (lambda p, q: _page_url(api, q, 1 if p == 2 else 2))
            if case == "loop"
            else (lambda p, q: EVIL),
        )
        env = dict(
            os.environ, SCRYFALL_API_URL=api.url, MTGJSON_API_URL=mj.url, BOOSTERKIT_DB=str(dbf)
        )
        r = subprocess.run(
            [BIN, "sync", "spg"], env=env, capture_output=True, text=True, timeout=120
        )
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert (
        len(lines) == 1
        and lines[0].startswith("boosterkit: error: ")
        and "Traceback" not in r.stderr
    )
    assert ("repeats an earlier page" if case == "loop" else EVIL) in lines[0]
    con = db.connect(dbf, read_only=True)
    assert fingerprint(con, with_runs=True) == before
    con.close()


def test_cli_mtgjson_storm_one_line_within_the_configured_deadline(
    built_scryfall: Path, tmp_path: Path
) -> None:
    dbf = tmp_path / "t.duckdb"
    con = db.connect(dbf)
    one = built_scryfall / "cards" / "one.unique-cards.json"
    sync.sync_file(con, one, cache=tmp_path / "t.cache")
    before = fingerprint(con, with_runs=True)
    con.close()
    with (
        FakeScryfall(root=built_scryfall, extra=(FIX / "scryfall",)) as api,
        FakeMtgjson(roots=(FIX / "mtgjson",)) as mj,
    ):
        mj.faults[:] = [500] * 5
        env = dict(
            os.environ,
            SCRYFALL_API_URL=api.url,
            MTGJSON_API_URL=mj.url,
            BOOSTERKIT_DB=str(dbf),
            BOOSTERKIT_FETCH_DEADLINE="2",
        )  # back-off 1 s, then 2 s would pass it
        r = subprocess.run(
            [BIN, "sync", "spg"], env=env, capture_output=True, text=True, timeout=120
        )
        asked = len(mj.requests)
    # how many attempts fit in 2 s depends on the machine (1 or 2): only the bound is asserted
    assert r.returncode == 1 and 1 <= asked <= 2
    (line,) = r.stderr.strip().splitlines()
    assert re.fullmatch(
        rf"boosterkit: error: GET {re.escape(mj.url)}/SPG\.json\.gz: HTTP 500; "
        r"(waiting \d+ s more would pass|gave up at) the 2 s fetch deadline.*",
        line,
    )
    con = db.connect(dbf, read_only=True)
    assert fingerprint(con, with_runs=True) == before
    con.close()


def test_deadline_setting_is_checked(monkeypatch) -> None:
    from boosterkit import config
    from boosterkit.errors import InputError

    monkeypatch.setenv("BOOSTERKIT_FETCH_DEADLINE", "42")
    assert ScryfallClient().deadline == 42.0 == config.fetch_deadline()
    for bad in ("0", "-1", "inf", "nan", "soon"):
        monkeypatch.setenv("BOOSTERKIT_FETCH_DEADLINE", bad)
        with pytest.raises(InputError, match="BOOSTERKIT_FETCH_DEADLINE="):
            config.fetch_deadline()


# --- set codes from the upstream (issue 20 §2) ----------------------------------------------


@pytest.mark.parametrize("where", ["child", "answer"])
def test_a_hostile_set_code_writes_nothing_outside_the_cache_and_is_not_stored(
    loaded, up, tmp_path: Path, where: str
) -> None:
    """A child set listed as ``../../escaped`` (or a /sets/spg answer naming itself so): the
    code is checked against the set-code pattern before use, skipped and named."""
    con, cache, _ = loaded
    api, mj = up
    evil = "../../escaped"
    if where == "child":
        api.rewrite["/sets"] = lambda body: {
            **body,
            "data": [
                *body["data"],
                {**body["data"][0], "code": evil, "parent_set_code": "spg", "name": "Evil"},
            ],
        }
    else:
        api.rewrite["/sets/spg"] = lambda body: {**body, "code": evil}
    before = {p for p in tmp_path.parent.rglob("*")}
    out = _sync(con, cache, api, mj, FakeTime())
    assert out["skipped_codes"] == [repr(evil)]
    new = {p for p in tmp_path.parent.rglob("*")} - before
    assert new and all(p.is_relative_to(cache) or p.name.startswith("t.duckdb") for p in new)
    assert not any("escaped" in p.name for p in new)
    assert all("escaped" not in " ".join(sum(r.query.values(), [])) for r in api.requests)
    assert all("escaped" not in r.path for r in api.requests + mj.requests)
    stored = con.execute(
        "SELECT count(*) FROM sets WHERE code LIKE '%escaped%' OR parent_set_code LIKE '%/%'"
    ).fetchone()[0]
    assert stored == 0
    assert out["set_codes"] == ([] if where == "answer" else ["spg"])


def test_a_set_list_with_a_hostile_code_stores_only_set_codes(tmp_path: Path) -> None:
    """``sync --sets`` and ``db rebuild`` load the set list pages as they were kept: a code
    that is not a set code (or a parent that is not one) is not stored."""
    import json

    from boosterkit.pipeline import ingest

    page = tmp_path / "sets.json"
    good = {"object": "set", "code": "AFR", "name": "Forgotten Realms", "set_type": "expansion"}
    bad = {**good, "code": "../..", "name": "Evil"}
    child = {**good, "code": "tafr", "parent_set_code": "../x", "set_type": "token"}
    page.write_text(json.dumps({"object": "list", "data": [good, bad, child]}))
    con = db.connect(tmp_path / "t.duckdb")
    try:
        ingest.load_files(con, [page])
        rows = con.execute("SELECT code, parent_set_code FROM sets ORDER BY code").fetchall()
    finally:
        con.close()
    assert rows == [("afr", None), ("tafr", None)]
