"""The service against hostile requests: Host allowlist, work and body budgets, one error
contract with strict types, and suggestions that never echo raw input as a command."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from boosterkit.service.app import create_app
from boosterkit.service.errors import BodyLimit
from boosterkit.service.limits import (
    HostAllowlist,
    ServiceBusy,
    WorkBudget,
    allowed_hosts,
    host_name,
)

LOCAL = "http://127.0.0.1"
JSON = {"content-type": "application/json"}


def assert_error(response: Any, status: int, *words: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["status"] == status and "\n" not in body["error"]
    assert "Traceback" not in response.text
    for word in words:
        assert word.lower() in body["error"].lower(), (word, body["error"])
    return body


# --- Host ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "127.0.0.1:8000", "localhost", "LocalHost:80", "[::1]", "[::1]:8000"]
)
def test_loopback_names_are_answered(client: TestClient, host: str) -> None:
    assert client.get("/minigames", headers={"host": host}).status_code == 200


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "evil.example:8000",
        "127.0.0.1.evil.example",
        "localhost.evil.example",
        "192.168.1.20",
        "",
        "127.0.0.1:80@evil.example",  # issue 20: accepted as 127.0.0.1
        "localhost:8000@evil.example:8000",
        "user@127.0.0.1",
        "127.0.0.1/evil",
        "127.0.0.1:99999",
        "127.0.0.1:80:80",
        "127.0.0.1%2F",
        "local host",
        "[::1]@evil.example",
    ],
)
def test_other_hosts_get_400_before_any_route(client: TestClient, host: str) -> None:
    for method, url in (
        ("GET", "/minigames"),
        ("GET", "/health"),
        ("POST", "/packs"),
        ("GET", "/"),
    ):
        body = assert_error(
            client.request(method, url, headers={"host": host}, json={"set": "afr"}),
            400,
            "--allow-host",
        )
        assert "not a name this service answers to" in body["error"]


def test_allowed_hosts_of_serve() -> None:
    assert allowed_hosts("127.0.0.1") == ["127.0.0.1", "localhost", "::1"]
    assert allowed_hosts("192.168.1.20", ["Shop.Local"]) == [
        "127.0.0.1",
        "localhost",
        "::1",
        "192.168.1.20",
        "shop.local",
    ]
    assert host_name("[::1]:8000") == "::1" and host_name("Shop.Local:80") == "shop.local"


def test_bound_to_every_interface_any_ip_but_only_listed_names() -> None:
    check = HostAllowlist(None, allowed_hosts("0.0.0.0", ["shop.local"]))
    assert check.allows("192.168.1.20:8000") and check.allows("[fe80::1]:8000")
    assert check.allows("shop.local:8000") and check.allows("localhost")
    assert not check.allows("evil.example") and not check.allows(None)
    assert HostAllowlist(None, allowed_hosts("127.0.0.1", ["*"])).allows("evil.example")


# --- one error contract, strict types --------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b'{"set": "afr",',
        b"not json",
        b"\xff\xfe\x00",
        b"[" * 100_000,
        b'{"set": "afr"}}',
    ],
)
def test_malformed_json_is_always_422(client: TestClient, body: bytes) -> None:
    for url in ("/packs", "/deal", "/validate"):
        assert_error(client.post(url, content=body, headers=JSON), 422, "body")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("count", True),
        ("count", 3.0),
        ("count", "3"),
        ("seed", 1e3),
        ("seed", "7"),
        ("seed", False),
        ("set", 5),
        ("product", ["draft"]),
    ],
)
def test_packs_types_are_strict(client: TestClient, field: str, value: Any) -> None:
    assert_error(client.post("/packs", json={"set": "afr", field: value}), 422, field)
    nan = client.post("/packs", content=b'{"set": "afr", "count": NaN}', headers=JSON)
    assert_error(nan, 422, "count")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("players", True),
        ("players", 2.0),
        ("players", "2"),
        ("strict_backs", 1),
        ("strict_backs", "true"),
        ("seed", 2.5),
    ],
)
def test_deal_types_are_strict(client: TestClient, field: str, value: Any) -> None:
    body = {"minigame": "roll-for-initiative", "players": 2, "set": "afr", field: value}
    assert_error(client.post("/deal", json=body), 422, field)


@pytest.mark.parametrize(
    "query", ["players=2.0", "players=+2", "players=%202", "seed=1e3", "seed=0x10"]
)
def test_sheet_numbers_are_digits(client: TestClient, query: str) -> None:
    response = client.get(f"/sheet?minigame=roll-for-initiative&set=afr&players=2&{query}")
    assert_error(response, 422, "digits")


def test_errors_stay_one_line_whatever_the_request_holds(client: TestClient) -> None:
    """Found by the fuzzer: an unknown field named "\\n" made a two-line error."""
    body = assert_error(client.post("/deal", json={"\n": None, "minigame\r\n": 1}), 422)
    assert "\\n" in body["error"]
    assert_error(client.get("/sets/%0A%0D/products"), 404)


def test_strict_types_keep_valid_requests_working(client: TestClient) -> None:
    assert client.post("/packs", json={"set": "afr", "count": 2, "seed": 7}).status_code == 200
    deal = {
        "minigame": "roll-for-initiative",
        "players": 2,
        "set": "afr",
        "seed": 2,
        "strict_backs": True,
    }
    assert client.post("/deal", json=deal).status_code == 200
    assert (
        client.get("/sheet?minigame=roll-for-initiative&players=2&set=afr&seed=2").status_code
        == 200
    )


# --- heavy work in flight --------------------------------------------------------------------


def test_work_budget_waits_then_refuses() -> None:
    budget = WorkBudget(capacity=10, wait=0.05)
    with budget.take(8):
        with pytest.raises(ServiceBusy, match="8 of 10 packs"):
            with budget.take(3):
                pass
        with budget.take(2):  # fits
            assert budget.used == 10
    assert budget.used == 0
    with budget.take(500):  # larger than the budget: runs alone
        assert budget.used == 10


def test_work_budget_lets_a_waiting_request_in_when_room_frees() -> None:
    budget = WorkBudget(capacity=4, wait=5.0)
    held, done = threading.Event(), []
    release = threading.Event()

    def first() -> None:
        with budget.take(4):
            held.set()
            release.wait(5)

    thread = threading.Thread(target=first)
    thread.start()
    held.wait(5)
    release.set()
    with budget.take(4):  # waits for the first to finish, then runs
        done.append(budget.used)
    thread.join()
    assert done == [4]


def test_packs_beyond_the_budget_get_503_with_retry_after(built_db: Path) -> None:
    budget = WorkBudget(capacity=50, wait=0.0)
    with TestClient(create_app(built_db, budget=budget), base_url=LOCAL) as client:
        with budget.take(45):  # other requests hold 45 packs
            assert (
                client.post("/packs", json={"set": "afr", "count": 5, "seed": 1}).status_code == 200
            )
            for url, body in (
                ("/packs", {"set": "afr", "count": 6, "seed": 1}),
                ("/deal", {"minigame": "winchester-draft", "players": 2, "set": "afr"}),
            ):
                response = client.post(url, json=body)
                assert_error(response, 503, "busy")
                assert response.headers["retry-after"] == "1"
        assert client.post("/packs", json={"set": "afr", "count": 6, "seed": 1}).status_code == 200


def test_request_bodies_in_flight_are_bounded() -> None:
    """Two bodies of 100 bytes with room for 150 in flight: the second waits, then gets 503."""
    release = asyncio.Event()

    async def slow_app(scope, receive, send) -> None:
        await receive()
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    limit = BodyLimit(slow_app, max_bytes=1000, max_in_flight=150, wait=0.1)

    async def request() -> list[dict]:
        sent: list[dict] = []
        chunks = iter([{"type": "http.request", "body": b"x" * 100, "more_body": False}])

        async def receive() -> dict:
            return next(chunks, {"type": "http.disconnect"})

        async def send(message: dict) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "headers": [(b"content-length", b"100")]}
        await limit(scope, receive, send)
        return sent

    async def scenario() -> tuple[list[dict], list[dict], int]:
        first = asyncio.create_task(request())
        await asyncio.sleep(0.01)
        second = await request()  # the first still holds its 100 bytes
        during = limit.in_flight
        release.set()
        return await first, second, during

    first, second, during = asyncio.run(scenario())
    assert first[0]["status"] == 200
    assert second[0]["status"] == 503 and (b"retry-after", b"1") in second[0]["headers"]
    assert "busy" in json.loads(second[1]["body"])["error"]
    assert during == 100 and limit.in_flight == 0  # released after each request


# --- suggestions built from input --------------------------------------------------------------


def test_a_suggestion_never_turns_input_into_a_command(built_db: Path) -> None:
    from boosterkit.errors import NotFoundError
    from boosterkit.generator.products import fill_hints
    from boosterkit.pipeline import db as pdb
    from boosterkit.pipeline.queries import list_cards

    con = pdb.connect(built_db, read_only=True)
    try:
        with pytest.raises(NotFoundError) as hostile:
            list_cards(con, "afr'; drop table cards;--")
        with pytest.raises(NotFoundError) as plain:
            list_cards(con, "zzz")
    finally:
        con.close()
    assert "boosterkit sync" not in str(hostile.value)
    assert "to load one: `boosterkit sync zzz`" in str(plain.value)
    assert fill_hints("afr", ["x; rm -rf ~"]) == ["boosterkit sync 'x; rm -rf ~'"]
    assert fill_hints("afr", ["tafr"]) == ["boosterkit sync afr (brings tafr)"]


def test_a_bug_is_a_one_line_500_without_traceback(built_db: Path, monkeypatch) -> None:
    import boosterkit.service.app as service

    def broken(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(service, "list_sets", broken)
    app = create_app(built_db)
    with TestClient(app, base_url=LOCAL, raise_server_exceptions=False) as client:
        body = assert_error(client.get("/sets"), 500, "bug", "ZeroDivisionError")
    assert "division by zero" not in body["error"]


def test_play_and_simulate_bounds_are_the_documented_ones(client: TestClient) -> None:
    """docs/limits.md: `/play` at most 5,000 moves, `/simulate` at most 200 games (422 past them)."""
    from boosterkit.service.referee_routes import MAX_MOVES, MAX_SIM_GAMES

    move = {"player": "player-1"}
    over = client.post("/play", json={"setup": {}, "moves": [move] * (MAX_MOVES + 1)})
    assert_error(over, 422, "moves")
    at = client.post("/play", json={"setup": {}, "moves": [move] * MAX_MOVES})
    assert (
        "5000" not in at.text and "5,000" not in at.text
    )  # the count is allowed: other checks answer
    # Draft Boosters: no List card the built data lacks, so the one game deals
    body = {"minigame": "mimic-match", "players": 2, "set": "afr", "product": "draft", "seed": 1}
    assert_error(client.post("/simulate", json={**body, "games": MAX_SIM_GAMES + 1}), 422, "games")
    ok = client.post("/simulate", json={**body, "games": 1})
    assert ok.status_code == 200, ok.text


def test_every_error_answer_is_written_the_same_way(client: TestClient) -> None:
    """One error contract, one form: the answers written below the routes (a Host refused, a
    body too large) are byte for byte what the routes' own error answers would be."""
    from fastapi.responses import JSONResponse

    from boosterkit.service.errors import error_body

    for response in (
        client.get("/health", headers={"host": "evil.example"}),
        client.post("/packs", content=b"x" * (5 * 1024 * 1024), headers=JSON),
        client.post("/packs", json={"set": "afr", "count": True}),
    ):
        body = response.json()
        extra = {k: v for k, v in body.items() if k not in ("error", "status")}
        expected = JSONResponse(error_body(body["status"], body["error"], **extra)).body
        assert response.content == expected, response.content[:120]


# --- slow request bodies, over real sockets ----------------------------------------------------

MIB = 1024 * 1024


@contextmanager
def serving(app: Any) -> Iterator[int]:
    """``app`` under uvicorn on 127.0.0.1 (a free port) in a thread; yields the port."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(500):
        if server.started:
            break
        threading.Event().wait(0.01)
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def _stall(port: int, size: int, source: str = "127.0.0.1") -> socket.socket:
    """A connection that declares a ``size``-byte body, sends all but 2 bytes and goes silent."""
    s = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))
    head = (
        f"POST /packs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {size}\r\n\r\n"
    ).encode()
    try:
        s.sendall(head + b" " * (size - 2))
    except OSError:  # refused (503) and closed while sending: the allowance held
        pass
    return s


def _answer(s: socket.socket) -> bytes:
    out = b""
    while chunk := s.recv(65536):
        out += chunk
    return out


@pytest.mark.parametrize("sources", ["one client", "eight clients"])
def test_eight_stalled_uploads_leave_room_for_a_request(built_db: Path, sources: str) -> None:
    """Issue 20: eight connections sending 4 MiB minus 2 bytes and going silent filled the
    32 MiB of bodies in flight; every POST answered 503 for as long as they hung."""
    import requests

    with serving(create_app(built_db)) as port:
        addresses = [f"127.0.0.{2 + i if sources == 'eight clients' else 1}" for i in range(8)]
        stalls: list[socket.socket] = []
        threads = [
            threading.Thread(target=lambda a=a: stalls.append(_stall(port, 4 * MIB, a)))
            for a in addresses
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        threading.Event().wait(1.5)  # the server has read what it will hold
        r = requests.post(
            f"http://127.0.0.1:{port}/packs", json={"set": "afr", "count": 1, "seed": 1}, timeout=30
        )
        assert r.status_code == 200, r.text
        assert r.json()[0]["set"] == "afr"
        for s in stalls:
            s.close()


def test_a_body_that_does_not_arrive_in_time_gets_408_and_the_connection_closed() -> None:
    async def app(scope, receive, send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    with serving(BodyLimit(app, max_bytes=4 * MIB, deadline=0.5)) as port:
        s = _stall(port, 1000)
        answer = _answer(s)  # recv returns b"" only once the server closed the connection
        s.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408") and b"connection: close" in head.lower()
    error = json.loads(body)["error"]
    assert "not received within 0.5 s (998 bytes came)" in error and "\n" not in error


def test_a_body_sent_in_parts_with_a_pause_is_read_whole() -> None:
    """A body that is not there when the request starts is waited for (under the deadline)
    and handed on whole: the receive started without a timer goes on under one."""

    async def app(scope, receive, send) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        out = b"%d %d" % (len(body), body.count(b"y"))
        length = [(b"content-length", b"%d" % len(out))]
        await send({"type": "http.response.start", "status": 200, "headers": length})
        await send({"type": "http.response.body", "body": out})

    with serving(BodyLimit(app, max_bytes=4 * MIB, deadline=5)) as port:
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        s.sendall(
            b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3000\r\n"
            b"Connection: close\r\n\r\n" + b"x" * 1000
        )
        threading.Event().wait(0.3)
        s.sendall(b"y" * 2000)
        head, _, body = _answer(s).partition(b"\r\n\r\n")  # read until the server closes
        s.close()
    assert head.startswith(b"HTTP/1.1 200") and body == b"3000 2000"


def test_a_message_there_already_is_received_without_a_timer(monkeypatch) -> None:
    """``_within`` takes a message the receive gives at its first step without arming a
    timeout (the usual request: a small body comes with its headers); one it must wait for
    is waited for under the deadline, then times out."""
    from boosterkit.service import errors

    if errors._TIMEOUT is None:  # Python 3.10: wait_for, no timer to count
        pytest.skip("asyncio.timeout is Python 3.11's")
    armed: list[float] = []
    real = errors._TIMEOUT
    monkeypatch.setattr(errors, "_TIMEOUT", lambda s: armed.append(s) or real(s))

    async def scenario() -> tuple[Any, Any, str]:
        ready = asyncio.Event()
        ready.set()

        async def receive() -> dict:
            await ready.wait()
            return {"type": "http.request", "body": b"x"}

        at_once = await errors._within(receive, 5.0)
        ready.clear()
        asyncio.get_running_loop().call_later(0.05, ready.set)
        later = await errors._within(receive, 5.0)
        ready.clear()
        try:
            await errors._within(receive, 0.05)
            late = "answered"
        except TimeoutError:
            late = "timed out"
        return at_once, later, late

    at_once, later, late = asyncio.run(scenario())
    assert at_once == later == {"type": "http.request", "body": b"x"}
    assert late == "timed out" and armed == [5.0, 0.05]


def test_one_client_holds_at_most_its_share_of_the_bodies_in_flight() -> None:
    """Unit: a client at its share waits (then 503) for a big body; its small ones and other
    clients' bodies pass; the reserve keeps room for small bodies when big ones fill the rest."""
    limit = BodyLimit(lambda *a: None, max_bytes=4 * MIB)
    limit.in_flight, limit.by_client = 8 * MIB, {"10.0.0.1": 8 * MIB}
    assert not limit._fits("10.0.0.1", 64 * 1024, 1)  # past its first 64 KiB
    assert limit._fits("10.0.0.1", 0, 1000)  # a small body
    assert limit._fits("10.0.0.2", 0, 4 * MIB)
    limit.in_flight = 28 * MIB
    assert not limit._fits("10.0.0.2", 0, 4 * MIB) and limit._fits("10.0.0.2", 0, 1000)


def test_the_page_and_the_sheet_send_a_content_security_policy(client: TestClient) -> None:
    """Issue 20: `/` and `/sheet` sent no Content-Security-Policy or X-Content-Type-Options.
    (That the page works under it: tests/test_browser.py.)"""
    from boosterkit.service.app import PAGE_CSP, SHEET_CSP

    page = client.get("/")
    sheet = client.get(
        "/sheet", params={"minigame": "roll-for-initiative", "players": 3, "set": "afr", "seed": 2}
    )
    assert page.status_code == sheet.status_code == 200
    for r, csp in ((page, PAGE_CSP), (sheet, SHEET_CSP)):
        assert r.headers["content-security-policy"] == csp
        assert r.headers["x-content-type-options"] == "nosniff"
        policy = dict(p.strip().split(" ", 1) for p in csp.split(";"))
        assert policy["default-src"] == "'none'" and policy["frame-ancestors"] == "'none'"
        assert "'unsafe-eval'" not in csp and "script-src" not in csp.replace(
            "script-src 'self'", ""
        )
        assert "https://*.scryfall.io" in policy["img-src"]
    assert "unsafe-inline" not in PAGE_CSP
