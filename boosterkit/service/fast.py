"""The busiest routes, ``POST /packs`` and ``POST /deal``, answered without FastAPI's per-request
machinery (issue 36: its routing, dependency solving, body reading and exception middleware
cost a request about what drawing and writing its packs does).

``FastRoutes`` sits inside ``BodyLimit`` (which has read the whole body): for one of its
routes, the body is parsed as FastAPI parses it (``json.loads``), checked by the route's own
request model, and answered by the route's own function (``app.packs_answer``,
``app.deal_answer``), the same ``Response``. Anything else goes on to FastAPI as it came, its
body replayed: another route or method, a body that is not JSON or that the model refuses
(FastAPI's 422). An error of the work is answered by the app's handler of it, found and
run as Starlette's exception middleware finds and runs it (one without goes on to the
server-error middleware, as ever). So every answer is the one FastAPI gives, byte for byte
(``tests/test_service_fast.py`` compares them), and ``/openapi.json`` still describes the
routes. What FastAPI does around a route is not done for these requests: no
``scope["route"]`` for outer middleware, no route name in FastAPI's telemetry spans, and a
dependency added to the router or a ``dependency_overrides`` would not apply to them.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable, Mapping
from inspect import iscoroutinefunction
from typing import Any, cast

from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import State
from starlette.exceptions import HTTPException
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
        if scope["type"] == "http" and scope["method"] == "POST":
            route = self.routes.get(_route_path(scope))
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
            response: Response | None = await route[1](scope["app"].state, request)
        except Exception as exc:
            handler = _handler(scope["app"], exc)
            if handler is None:
                raise  # the server-error middleware's, as for any request
            response = await _handled(handler, Request(scope, receive), exc)
            exc.__traceback__ = None  # as Starlette does: a reused exception keeps none
        if response is not None:  # (a handler may answer nothing)
            await response(scope, receive, send)


def _route_path(scope: Scope) -> str:
    """The path routes match, as Starlette's router takes it: without the ``root_path``
    the app is served under."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root) and path[len(root) : len(root) + 1] == "/":
        return path[len(root) :]
    return path


def _checked(model: type[BaseModel], body: bytes) -> BaseModel | None:
    """``body`` parsed as FastAPI parses a JSON body and checked by ``model``; None when it is
    not JSON or ``model`` refuses it."""
    try:
        return model.model_validate(json.loads(body))
    except (ValueError, RecursionError, ValidationError):
        return None


Handler = Callable[[Request, Exception], Any]


def _handler(app: Any, exc: Exception) -> Handler | None:
    """``app``'s handler of ``exc`` as its exception middleware finds it: an HTTP error's by
    its status code, else by class, the nearest first; ``Exception``'s and 500's are the
    server-error middleware's (None here)."""
    handlers = app.exception_handlers
    if isinstance(exc, HTTPException) and exc.status_code != 500:
        found: Handler | None = handlers.get(exc.status_code)
        if found is not None:
            return found
    for cls in type(exc).__mro__:
        if cls is Exception:
            return None
        if cls in handlers:
            found = handlers[cls]
            return found
    return None


async def _handled(handler: Handler, request: Request, exc: Exception) -> Response | None:
    """``handler``'s answer to ``exc``: awaited, or run on a worker thread if it is plain."""
    if _is_async(handler):
        answer: Response | None = await handler(request, exc)
        return answer
    return cast("Response | None", await run_in_threadpool(handler, request, exc))


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


def _is_async(handler: Any) -> bool:
    """Whether calling ``handler`` gives a coroutine (through partials; an object's by its
    type's ``__call__``), as Starlette tells them apart."""
    while isinstance(handler, functools.partial):
        handler = handler.func
    return iscoroutinefunction(handler) or iscoroutinefunction(type(handler).__call__)
