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
