"""The busiest routes, ``POST /packs`` and ``POST /deal``, answered without FastAPI's per-request
machinery (issue 36: its routing, dependency solving, body reading and exception middleware
cost a request about what drawing and writing its packs does).

``FastRoutes`` sits inside ``BodyLimit`` (which has read the whole body): for one of its
routes, the body is parsed as FastAPI parses it (``json.loads``), checked by the route's own
request model, and answered by the route's own function (``app.packs_answer``,
``app.deal_answer``), the same ``Response``. Anything else goes on to FastAPI as it came, its
body replayed: another route or method, a body that is not JSON or that the model refuses
(FastAPI's 422). An error of the work is answered by the app's handler of it, found as
FastAPI's exception middleware finds it (one without goes on to the server-error
middleware, as ever). So every answer is the one FastAPI gives, byte for byte
(``tests/test_service_fast.py`` compares them), and ``/openapi.json`` still describes the
routes.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from inspect import isawaitable
from typing import Any

from pydantic import BaseModel, ValidationError
from starlette.datastructures import State
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: A fast route: the request model its body must pass, and the answer to a checked body.
Answer = Callable[[State, Any], Awaitable[Response]]


class FastRoutes:
    """ASGI middleware answering ``routes`` (path → (model, answer)) for ``POST`` requests
    with a JSON body; every other request goes to ``app`` unchanged."""

    def __init__(self, app: ASGIApp, routes: Mapping[str, tuple[type[BaseModel], Answer]]) -> None:
        self.app = app
        self.routes = dict(routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = None
        if scope["type"] == "http" and scope["method"] == "POST" and not scope.get("root_path"):
            route = self.routes.get(scope["path"])
        if route is None:
            await self.app(scope, receive, send)
            return
        message = await receive()
        request = None
        if message["type"] == "http.request" and not message.get("more_body") and _json(scope):
            request = _checked(route[0], message.get("body", b""))
        if request is None:  # FastAPI answers it (its 422), from the same messages
            await self.app(scope, _replaying(message, receive), send)
            return
        try:
            response = await route[1](scope["app"].state, request)
        except Exception as exc:
            handler = _handler(scope["app"], exc)
            if handler is None:
                raise  # the server-error middleware's, as for any request
            response = handler(Request(scope, receive), exc)
            if isawaitable(response):
                response = await response
        await response(scope, receive, send)


def _checked(model: type[BaseModel], body: bytes) -> BaseModel | None:
    """``body`` parsed as FastAPI parses a JSON body and checked by ``model``; None when it is
    not JSON or ``model`` refuses it."""
    try:
        return model.model_validate(json.loads(body))
    except (ValueError, RecursionError, ValidationError):
        return None


def _handler(app: Any, exc: Exception) -> Callable[[Request, Exception], Any] | None:
    """``app``'s handler of ``exc`` as its exception middleware finds it: by class, the
    nearest first; ``Exception``'s is the server-error middleware's (None here)."""
    handlers = app.exception_handlers
    for cls in type(exc).__mro__:
        if cls is Exception:
            return None
        if cls in handlers:
            found: Callable[[Request, Exception], Any] = handlers[cls]
            return found
    return None


def _json(scope: Scope) -> bool:
    """Whether the request says its body is JSON (``Content-Type: application/json``, its
    first such header, as FastAPI reads it); other types are FastAPI's to refuse."""
    for name, value in scope["headers"]:
        if name == b"content-type":
            return bool(value.split(b";", 1)[0].strip().lower() == b"application/json")
    return False


def _replaying(first: Message, receive: Receive) -> Receive:
    """``receive`` with ``first``, received already, given again first."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return first
        return await receive()

    return replay
