"""``POST /packs`` and ``POST /deal`` answered by ``service.fast.FastRoutes`` (issue 36): every
answer, valid or not, is the one FastAPI gives without it, byte for byte; a body the request
model takes never reaches FastAPI's routing (its work's errors are answered by the app's
handlers there and then), one it refuses does (FastAPI writes the 422)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.middleware import Middleware

from boosterkit.service.app import create_app
from boosterkit.service.fast import FastRoutes

JSON = {"content-type": "application/json"}
DEAL = {"minigame": "roll-for-initiative", "players": 5, "set": "afr", "seed": 3}

#: (method, path, headers, body, answered without FastAPI's routing)
REQUESTS: list[tuple[str, str, dict[str, str], bytes, bool]] = [
    ("POST", "/packs", JSON, json.dumps({"set": "afr", "count": 3, "seed": 7}).encode(), True),
    ("POST", "/packs", JSON, b'{"set": "AFR", "product": "set", "count": 2, "seed": 1}', True),
    ("POST", "/packs", JSON, b'{"set": "afr", "count": 41, "seed": 2}', True),  # on a thread
    (
        "POST",
        "/packs",
        {"content-type": "application/json; charset=utf-8"},
        b'{"set": "afr", "seed": 9}',
        True,
    ),
    ("POST", "/packs?pretty=1", JSON, b'{"set": "afr", "seed": 5}', True),
    ("POST", "/deal", JSON, json.dumps(DEAL).encode(), True),
    (
        "POST",
        "/deal",
        JSON,
        json.dumps({**DEAL, "lang": "fr", "strict_backs": False}).encode(),
        True,
    ),
    ("POST", "/packs", JSON, b'{"set": "afr", "count": "3"}', False),  # strict types: 422
    ("POST", "/packs", JSON, b'{"set": "afr", "colour": "red"}', False),  # unknown field
    ("POST", "/packs", JSON, b'{"set": "afr", "count": 3,', False),  # not JSON
    ("POST", "/packs", JSON, b"[" * 100_000 + b"]" * 100_000, False),  # too deep to parse
    ("POST", "/packs", JSON, b"", False),
    ("POST", "/packs", {"content-type": "text/plain"}, b'{"set": "afr", "seed": 1}', False),
    ("POST", "/packs", {}, b'{"set": "afr", "seed": 1}', False),
    ("POST", "/packs", JSON, b'{"set": "zzz", "seed": 1}', True),  # the work's error: 404
    ("POST", "/deal", JSON, json.dumps({**DEAL, "players": 1}).encode(), True),  # 422
    ("POST", "/deal", JSON, json.dumps({**DEAL, "minigame": "no such game"}).encode(), True),
    ("POST", "/deal", JSON, json.dumps({**DEAL, "seed": -1}).encode(), False),
    ("POST", "/packs/", JSON, b'{"set": "afr", "seed": 1}', False),
    ("GET", "/packs", {}, b"", False),
]


def _without_fast_routes(app: Any) -> Any:
    app.user_middleware = [m for m in app.user_middleware if m.cls is not FastRoutes]
    return app


class _Reached:
    """Innermost middleware: records each request that got past ``FastRoutes``."""

    def __init__(self, app: Any, reached: list[str]) -> None:
        self.app, self.reached = app, reached

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.reached.append(scope["path"])
        await self.app(scope, receive, send)


def _route_calls(app: Any) -> list[str]:
    """The paths of the requests FastAPI's routing was reached for (recorded)."""
    reached: list[str] = []
    app.user_middleware.append(Middleware(_Reached, reached=reached))  # last: innermost
    return reached


def _answer(client: TestClient, method: str, path: str, headers: dict, body: bytes) -> tuple:
    r = client.request(method, path, headers=headers, content=body, follow_redirects=False)
    kept = sorted((k, v) for k, v in r.headers.items() if k != "date")
    return r.status_code, kept, r.content


@pytest.fixture(scope="module")
def clients(built_db: Path) -> Any:
    fast_app = create_app(built_db)
    reached = _route_calls(fast_app)
    plain_app = _without_fast_routes(create_app(built_db))
    with (
        TestClient(fast_app, base_url="http://127.0.0.1") as fast,
        TestClient(plain_app, base_url="http://127.0.0.1") as plain,
    ):
        yield fast, plain, reached


@pytest.mark.parametrize(("method", "path", "headers", "body", "taken"), REQUESTS)
def test_an_answer_is_fastapis_own(clients, method, path, headers, body, taken) -> None:
    fast, plain, reached = clients
    reached.clear()
    got = _answer(fast, method, path, headers, body)
    want = _answer(plain, method, path, headers, body)
    assert got == want
    assert (reached == []) is taken, reached
    assert got[0] in ((200, 404, 422) if taken else (307, 405, 422)), got


def test_a_request_without_a_seed_is_answered_by_a_new_one(clients) -> None:
    fast, _, reached = clients
    reached.clear()
    for _ in range(3):
        r = fast.post("/deal", json={k: v for k, v in DEAL.items() if k != "seed"})
        assert reached == []
        if r.status_code == 200:  # (a seed drawing a card the test world lacks: a 422)
            assert 0 <= r.json()["seed"] < 2**64
            break
    else:
        pytest.fail(f"three new seeds, no deal: {r.text}")


async def _asgi(app: Any, path: str, body: bytes, root_path: str = "") -> list[dict]:
    """The messages ``app`` sends for ``POST path`` with ``body`` (JSON), as a server would
    hand them over (the date header left out)."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": root_path + path, "raw_path": (root_path + path).encode(),
        "query_string": b"", "root_path": root_path, "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000), "state": {},
        "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                    (b"content-length", b"%d" % len(body))],
    }  # fmt: skip
    messages = iter([{"type": "http.request", "body": body, "more_body": False}])
    sent: list[dict] = []

    async def receive() -> dict:
        return next(messages, {"type": "http.disconnect"})

    async def send(message: dict) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


def test_an_app_served_under_a_root_path_is_answered_the_same(built_db: Path) -> None:
    """Under a ``root_path`` (a proxy's prefix) the routes are matched without it, as
    FastAPI's router matches them: answered by the fast path, the same bytes."""
    import asyncio

    fast_app = create_app(built_db)
    reached = _route_calls(fast_app)
    plain_app = _without_fast_routes(create_app(built_db))
    body = json.dumps(DEAL).encode()
    got = asyncio.run(_asgi(fast_app, "/deal", body, root_path="/bk"))
    want = asyncio.run(_asgi(plain_app, "/deal", body, root_path="/bk"))
    assert got == want and got[0]["status"] == 200 and reached == []


class _Teapot(Exception):
    pass


class _Silent(Exception):
    pass


def test_an_error_of_the_work_is_handled_as_starlettes_exception_middleware_does(
    built_db: Path, monkeypatch
) -> None:
    """A handler keyed by a status code wins for an HTTP error of that status; a plain
    (not async) handler is run; a handler that answers nothing sends nothing: as FastAPI."""
    import asyncio

    from starlette.exceptions import HTTPException
    from starlette.responses import PlainTextResponse

    from boosterkit.service import app as service_app

    raised: list[Exception] = []

    def failing(*args: Any) -> Any:
        raise raised[0]

    monkeypatch.setattr(service_app, "prepare", failing)
    apps = []
    for app in (create_app(built_db), _without_fast_routes(create_app(built_db))):
        app.exception_handlers[418] = lambda r, e: PlainTextResponse("by status", 418)
        app.exception_handlers[_Teapot] = lambda r, e: PlainTextResponse("plain handler", 409)
        app.exception_handlers[_Silent] = lambda r, e: None
        apps.append(app)
    body = b'{"set": "afr", "seed": 1}'
    for error, want in [
        (HTTPException(418), b"by status"),
        (_Teapot(), b"plain handler"),
        (_Silent(), None),
    ]:
        raised[:] = [error]
        fast, plain = (asyncio.run(_asgi(app, "/packs", body)) for app in apps)
        assert fast == plain, error
        assert (fast[-1]["body"] if fast else None) == want
