"""The Scryfall client against `responses` mocks serving the pages of the built Scryfall folder
(``built_scryfall``)."""

from __future__ import annotations

import json

import pytest
import requests
import responses

from boosterkit import __version__, config
from boosterkit.errors import FetchError
from boosterkit.pipeline.scryfall.client import ScryfallAPIError, ScryfallClient

BASE = "https://api.scryfall.com"  # `responses` answers: nothing leaves the machine


class FakeTime:
    """An injectable clock whose sleep advances it: pacing is observable without waiting."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def _client(t: FakeTime, **kw) -> ScryfallClient:
    return ScryfallClient(BASE, sleep=t.sleep, clock=t.clock, **kw)


@pytest.fixture
def stored(built_scryfall):
    """A file of the built Scryfall folder, parsed: ``stored("sets", "set-cmm.json")``."""
    return lambda *parts: json.loads(built_scryfall.joinpath(*parts).read_text(encoding="utf-8"))


@responses.activate
def test_pagination_follows_next_page_as_given(stored) -> None:
    page1, page2 = stored("sets", "sets-page1.json"), stored("sets", "sets-page2.json")
    # Page 1 points at api.scryfall.com: the client follows it verbatim (same host).
    assert page1["next_page"].startswith("https://api.scryfall.com/sets")
    responses.get(f"{BASE}/sets", json=page1)
    responses.get(page1["next_page"], json=page2)
    t = FakeTime()
    pages = list(_client(t).pages("/sets"))
    codes = [s["code"] for p in pages for s in p["data"]]
    assert len(pages) == 2 and len(codes) == 20 and len(set(codes)) == 20
    assert responses.calls[1].request.url == page1["next_page"]


@responses.activate
def test_search_pages_one_page1_then_not_found_means_zero(stored) -> None:
    page = stored("search", "one-set-search-page1.json")
    rest = page["total_cards"] - len(page["data"])
    last = {**page, "has_more": False, "data": page["data"][:rest]}
    last.pop("next_page")
    responses.get(
        f"{BASE}/cards/search",
        json=page,
        match=[responses.matchers.query_param_matcher({"q": "e:one", "unique": "prints"})],
    )
    responses.get(page["next_page"], json=last)
    t = FakeTime()
    c = _client(t)
    got = list(c.search_pages("e:one", unique="prints"))
    assert [len(p["data"]) for p in got] == [175, rest] and 0 < rest < 175
    assert sum(len(p["data"]) for p in got) == page["total_cards"]

    responses.get(
        f"{BASE}/cards/search",
        status=404,
        json={
            "object": "error",
            "code": "not_found",
            "status": 404,
            "details": "Your query didn’t match any cards.",
        },
    )
    assert list(c.search_pages("e:tzzz")) == []


@responses.activate
def test_headers_sent(stored) -> None:
    responses.get(f"{BASE}/sets/cmm", json=stored("sets", "set-cmm.json"))
    data = _client(FakeTime()).get_json("/sets/cmm")
    assert data["code"] == "cmm"
    headers = responses.calls[0].request.headers
    assert headers["User-Agent"] == config.USER_AGENT
    product, contact = headers["User-Agent"].split(" ", 1)
    assert product == f"boosterkit/{__version__}" and "https://" in contact
    assert headers["Accept"] == "application/json"


@responses.activate
def test_429_waits_retry_after_then_succeeds(stored) -> None:
    responses.get(f"{BASE}/sets/cmm", status=429, headers={"Retry-After": "7"}, json={})
    responses.get(f"{BASE}/sets/cmm", status=429, json={})  # no Retry-After: 30 s
    responses.get(f"{BASE}/sets/cmm", json=stored("sets", "set-cmm.json"))
    t = FakeTime()
    assert _client(t).get_json("/sets/cmm")["name"] == "Commander Masters"
    assert len(responses.calls) == 3
    assert 7.0 in t.sleeps and 30.0 in t.sleeps


@responses.activate
def test_5xx_retried_with_backoff_then_clear_error(stored) -> None:
    for _ in range(3):
        responses.get(f"{BASE}/sets", status=503, body="busy")
    responses.get(f"{BASE}/sets", json=stored("sets", "sets-page2.json"))
    t = FakeTime()
    assert len(_client(t, backoff=1.0).get_json("/sets")["data"]) == 10
    backoffs = [s for s in t.sleeps if s >= 1.0]
    assert backoffs == [1.0, 2.0, 4.0]

    responses.reset()
    responses.get(f"{BASE}/sets", status=502, body="bad gateway")
    t = FakeTime()
    with pytest.raises(
        FetchError,
        match=r"GET https://api.scryfall.com/sets: HTTP 502 \(gave up after 3 attempts\)",
    ):
        _client(t, max_retries=2).get_json("/sets")
    assert len(responses.calls) == 3


@responses.activate
def test_connection_errors_are_retried_then_reported() -> None:
    responses.get(f"{BASE}/sets", body=requests.ConnectionError("refused"))
    t = FakeTime()
    with pytest.raises(
        FetchError, match=r"^cannot reach api\.scryfall\.com \(no connection\)"
    ) as err:
        _client(t, max_retries=3).get_json("/sets")
    assert len(responses.calls) == 4
    assert "ConnectionError: refused (gave up after 4 attempts)" in (err.value.detail or "")


@responses.activate
def test_error_object_becomes_one_line_with_details(stored) -> None:
    err = stored("errors", "validation_error-parse-mana.json")
    responses.get(f"{BASE}/symbology/parse-mana", status=422, json=err)
    with pytest.raises(ScryfallAPIError) as info:
        _client(FakeTime()).get_json("/symbology/parse-mana", {"cost": "TFF"})
    msg = str(info.value)
    assert "\n" not in msg
    assert "422 validation_error" in msg and err["details"] in msg
    assert info.value.status == 422 and info.value.code == "validation_error"
    assert len(responses.calls) == 1  # a 4xx is not retried


@responses.activate
def test_pacing_100ms_between_requests_500ms_between_searches(stored) -> None:
    page = stored("search", "forests-page1.json")
    page2 = stored("search", "forests-page2.json")
    responses.get(page["next_page"], json=page2)  # ".../cards/search?some_args=stuff"
    responses.get(f"{BASE}/cards/search", json=page)
    responses.get(f"{BASE}/sets/cmm", json=stored("sets", "set-cmm.json"))
    t = FakeTime()
    c = _client(t)
    times: list[float] = []
    c.session.hooks["response"].append(lambda r, *a, **k: times.append(t.now))
    c.get_json("/sets/cmm")
    c.get_json("/sets/cmm")
    pages = list(c.search_pages("t:forest", unique="prints"))
    c.get_json("/sets/cmm")
    assert sum(len(p["data"]) for p in pages) == 20
    gaps = [round(b - a, 6) for a, b in zip(times, times[1:])]
    # sets → sets: 0.1; sets → search: 0.1; search → search: 0.5; search → sets: 0.1
    assert gaps == [0.1, 0.1, 0.5, 0.1]


def test_base_url_from_environment(monkeypatch) -> None:
    monkeypatch.setenv("SCRYFALL_API_URL", "http://127.0.0.1:9/")
    c = ScryfallClient()
    assert c.url("/sets/afr") == "http://127.0.0.1:9/sets/afr"
    assert c.url("https://data.scryfall.io/x.json") == "https://data.scryfall.io/x.json"


@responses.activate
def test_requests_go_to_the_environment_base_url(stored, monkeypatch) -> None:
    monkeypatch.setenv("SCRYFALL_API_URL", "http://127.0.0.1:9/")
    responses.get("http://127.0.0.1:9/sets/cmm", json=stored("sets", "set-cmm.json"))
    assert ScryfallClient(sleep=lambda s: None).get_json("/sets/cmm")["code"] == "cmm"
    monkeypatch.delenv("SCRYFALL_API_URL")
    assert ScryfallClient().base_url == "https://api.scryfall.com"


def test_unusable_base_url_fails_at_once_without_retries(monkeypatch) -> None:
    monkeypatch.setenv("SCRYFALL_API_URL", "api.scryfall.com")  # no scheme
    t = FakeTime()
    with pytest.raises(FetchError, match="not a usable URL .*check SCRYFALL_API_URL"):
        ScryfallClient(sleep=t.sleep, clock=t.clock).get_json("/sets/afr")
    assert not [s for s in t.sleeps if s >= 1.0]  # no back-off
