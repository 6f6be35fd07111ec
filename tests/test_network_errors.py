"""Network errors in words (issue 23): a host that cannot be reached is one line under 200
characters naming it and what to do (offline: `sync --file`, `import mtgjson`; MTGJSON down:
`--no-mtgjson`); the urllib3 chain only with `--verbose`. Faults come from `responses` mocks
raising ConnectionError or from a 127.0.0.1 port with nothing listening; never a real host."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
import requests
import responses
import urllib3
from helpers import run_cli
from scryfall_server import FakeScryfall

from boosterkit.errors import UnreachableError
from boosterkit.pipeline.mtgjson_client import MtgjsonClient
from boosterkit.pipeline.scryfall.client import ScryfallClient

SCRYFALL = "https://api.scryfall.test"
MTGJSON = "https://mtgjson.test/api/v5"
INTERNALS = ("HTTPConnectionPool", "HTTPSConnectionPool", "Max retries", "NameResolutionError")


def no_dns(host: str) -> requests.ConnectionError:
    """What requests raises when the machine cannot resolve ``host`` (no network)."""
    gai = socket.gaierror(-3, "Temporary failure in name resolution")
    reason = urllib3.exceptions.NameResolutionError(host, None, gai)  # type: ignore[arg-type]
    return requests.ConnectionError(urllib3.exceptions.MaxRetryError(None, "/", reason))  # type: ignore[arg-type]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when this returns: nothing listens there


def one_short_line(text: str) -> str:
    assert "\n" not in text.strip() and len(text.strip()) < 200, text
    assert not any(word in text for word in INTERNALS), text
    return text.strip()


@responses.activate
def test_no_dns_fails_at_once_naming_the_offline_route() -> None:
    responses.get(re.compile(f"{SCRYFALL}/.*"), body=no_dns("api.scryfall.test"))
    client = ScryfallClient(SCRYFALL, sleep=lambda s: pytest.fail("retried without a network"))
    with pytest.raises(UnreachableError) as err:
        client.get_json("/sets")
    line = one_short_line(str(err.value))
    assert line.startswith("cannot reach api.scryfall.test (its name does not resolve")
    assert "`boosterkit sync --file FILE`" in line and "`boosterkit import mtgjson FILE…`" in line
    assert "NameResolutionError" in (err.value.detail or "") and len(responses.calls) == 1


def test_nothing_listening_is_retried_then_named() -> None:
    waits: list[float] = []
    client = ScryfallClient(f"http://127.0.0.1:{closed_port()}", sleep=waits.append)
    with pytest.raises(UnreachableError) as err:
        client.get_json("/sets")
    line = one_short_line(str(err.value))
    assert re.fullmatch(r"cannot reach 127\.0\.0\.1:\d+ \(no connection\); offline, .*", line)
    backoff = [w for w in waits if w >= 1]  # (the pacing between requests is shorter)
    assert backoff == [1, 2, 4, 8] and "gave up after 5 attempts" in (err.value.detail or "")


@responses.activate
def test_sync_offline_is_one_line_and_verbose_adds_the_detail(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SCRYFALL_API_URL", SCRYFALL)
    responses.get(re.compile(f"{SCRYFALL}/.*"), body=no_dns("api.scryfall.test"))
    dbf = str(tmp_path / "t.duckdb")
    code, out, err = run_cli(capsys, "--db", dbf, "sync", "afr")
    assert code == 1 and out == ""
    assert one_short_line(err).startswith("boosterkit: error: cannot reach api.scryfall.test")
    code, _, err = run_cli(capsys, "--verbose", "--db", dbf, "sync", "afr")
    first, detail = err.splitlines()
    assert code == 1 and "NameResolutionError" not in first
    assert detail.startswith("boosterkit: detail: GET https://api.scryfall.test/sets: Connection")
    assert "NameResolutionError" in detail


@responses.activate
def test_mtgjson_down_names_no_mtgjson_and_loads_nothing(
    capsys, monkeypatch, tmp_path, built_sources
) -> None:
    from boosterkit.pipeline.http import HttpClient

    # no pause between requests to the fake server (0.5 s a search: 3.5 s of this test's 4);
    # the pacing is tested on the client's clock (test_sync.py)
    monkeypatch.setattr(HttpClient, "_pace", lambda self, url: None)
    with FakeScryfall(root=built_sources.scryfall) as api:
        responses.add_passthru(api.url)
        responses.get(re.compile(f"{MTGJSON}/.*"), body=no_dns("mtgjson.test"))
        monkeypatch.setenv("SCRYFALL_API_URL", api.url)
        monkeypatch.setenv("MTGJSON_API_URL", MTGJSON)
        dbf = tmp_path / "t.duckdb"
        code, out, err = run_cli(capsys, "--db", str(dbf), "sync", "afr")
        assert code == 1 and out == ""
        line = err.strip()
        assert "\n" not in line and len(line) < 220 and not any(w in line for w in INTERNALS)
        assert line.startswith("boosterkit: error: cannot reach mtgjson.test (its name does not")
        assert line.endswith(
            "try again later, or sync Scryfall's data alone: `boosterkit sync afr --no-mtgjson`"
        )
        # the sync is one transaction: Scryfall's data was not loaded without MTGJSON's, and
        # the database this first sync made is gone (issue 33: no empty database left behind)
        assert not dbf.exists()
        code, _, err = run_cli(capsys, "--db", str(dbf), "sync", "afr", "--no-mtgjson")
        assert code == 0 and "MTGJSON skipped" in err


def test_mtgjson_client_names_its_host() -> None:
    client = MtgjsonClient(f"http://127.0.0.1:{closed_port()}", sleep=lambda s: None)
    with pytest.raises(UnreachableError, match=r"cannot reach 127\.0\.0\.1:\d+ \(no connection\)$"):
        client.set_file("afr", Path("/nonexistent/never-written"))
