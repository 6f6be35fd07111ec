"""Every error the service answers is JSON ``{"error": "<one line>", "status": N}``.

The one contract (docs/http-api.md): a ``Host`` the service does not answer to → 400;
unknown set/product/minigame/route → 404; wrong method → 405; body too large → 413;
everything else wrong with a request (malformed or non-UTF-8 JSON, JSON nested too deeply,
wrong types — strict: ``true`` or ``3.0`` is no count —, out-of-range values, unknown
fields, a request the library cannot carry out) → 422. The service too busy (heavy work or
request bodies over their budget) → 503 with ``Retry-After``; the database missing, held by
a sync (with ``Retry-After``) or damaged → 503. A 500 only ever means a bug, and says so in
one line (the traceback goes to the server log only).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Coroutine, Generator, Iterable, Mapping
from typing import Any, cast

import duckdb
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from boosterkit.errors import BoosterkitError, InputError, NotFoundError, json_reason
from boosterkit.errors import escape_controls as escape_one_line
from boosterkit.pipeline.db import storage_error
from boosterkit.service.database import DatabaseBusy, DatabaseUnavailable
from boosterkit.service.limits import (
    BODY_DEADLINE,
    BUDGET_WAIT,
    CLIENT_SHARE,
    MAX_BODY_BYTES_IN_FLIGHT,
    RESERVE_SHARE,
    RETRY_AFTER_BUSY,
    SMALL_BODY,
    ServiceBusy,
)
from boosterkit.suggest import unknown

RETRY_AFTER_SECONDS = 5
#: The header that closes a connection after an answer sent before its body was read.
CLOSE = (b"connection", b"close")
log = logging.getLogger("boosterkit.service")


def escape_controls(message: str) -> str:
    """``message`` with control characters (a field name or value from the request may hold
    a newline) written as escapes, so every error stays one line."""
    return escape_one_line(message)


def error_body(status: int, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": escape_controls(message), "status": status, **extra}


def _json(
    status: int, message: str, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    return JSONResponse(error_body(status, message, **extra), status_code=status, headers=headers)


def status_of(exc: BoosterkitError) -> int:
    """The HTTP status of a library error."""
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, InputError):
        return 422
    if isinstance(exc, (DatabaseUnavailable, ServiceBusy)):
        return 503
    return 422  # a request the library cannot carry out, e.g. a game whose setup is unknown


def _where(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p != "body"] or ["body"]
    return ".".join(parts)


def _message(e: Mapping[str, Any]) -> str:
    if e.get("type") == "json_invalid":
        pos = e.get("loc", ("body", "?"))[-1]
        return f"body: not valid JSON (at character {pos}: {(e.get('ctx') or {}).get('error')})"
    where = _where(tuple(e.get("loc", ())))
    if e.get("type") in ("literal_error", "enum") and isinstance(e.get("input"), str):
        # a value outside a field's choices: the nearest one, as the CLI says it

        choices = re.findall(r"'([^']*)'", str((e.get("ctx") or {}).get("expected", "")))
        what = "format" if where == "format" else f"value of {where}"
        return unknown(
            what, e["input"], [(c, c) for c in choices], f"choices: {', '.join(choices)}"
        )
    return f"{where}: {e.get('msg', 'invalid')}"


def validation_message(errors: Iterable[Mapping[str, Any]]) -> str:
    """pydantic errors as one line: ``count: Input should be less than or equal to 360; …``."""
    return "; ".join(_message(e) for e in errors)


def _retry_after(exc: BoosterkitError) -> dict[str, str] | None:
    if isinstance(exc, DatabaseBusy):
        return {"Retry-After": str(RETRY_AFTER_SECONDS)}
    if isinstance(exc, ServiceBusy):
        return {"Retry-After": str(RETRY_AFTER_BUSY)}
    return None


def install_error_handlers(app: FastAPI) -> None:
    """Register the JSON error answers on ``app``."""

    @app.exception_handler(BoosterkitError)
    async def _library(_: Request, exc: BoosterkitError) -> JSONResponse:
        return _json(status_of(exc), str(exc), _retry_after(exc))

    @app.exception_handler(duckdb.Error)
    async def _storage(request: Request, exc: duckdb.Error) -> JSONResponse:
        """A damaged database file found by a query (not at open): 503, naming the file."""
        error = storage_error(request.app.state.database.path.name, exc)
        if error is None:
            return await _bug(request, exc)
        return _json(503, str(error))

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return _json(
            500,
            f"internal error ({type(exc).__name__}) on {request.method} "
            f"{request.url.path}: a bug, please report it",
        )

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg")} for e in exc.errors()]
        return _json(422, validation_message(exc.errors()), detail=errors)

    @app.exception_handler(ValidationError)
    async def _model(_: Request, exc: ValidationError) -> JSONResponse:
        errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg")} for e in exc.errors()]
        return _json(422, validation_message(exc.errors()), detail=errors)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        message = str(exc.detail)
        if exc.status_code == 400 and message == "There was an error parsing the body":
            # FastAPI's answer to a body json.loads refuses with other than JSONDecodeError
            # (not UTF-8, nested too deeply, an integer too long): malformed JSON is 422, as
            # every other case, saying which.
            cause = exc.__cause__
            why = json_reason(cause) if cause is not None else "not UTF-8, or nested too deeply"
            return _json(422, f"body: not valid JSON ({why})")
        if exc.status_code == 404 and message == "Not Found":
            message = f"no route {request.method} {request.url.path} (see /docs)"
        elif exc.status_code == 405:
            message = f"method {request.method} is not allowed on {request.url.path}"
        return _json(exc.status_code, message, getattr(exc, "headers", None))


class BodyLimit:
    """ASGI middleware: a request body over ``max_bytes`` gets 413 before any route sees it;
    bodies held at once stay under ``max_in_flight`` bytes over all requests and under
    ``per_client`` bytes per client address (a quarter of it); the first ``SMALL_BODY`` bytes of a body are
    counted in the total only, and an eighth of the total is kept for them, so
    small requests pass while big uploads stall (a stalled one ends at ``deadline``): a
    request that finds no room within ``wait`` seconds gets 503 with ``Retry-After``. A body
    not in within ``deadline`` seconds gets 408 and its connection is closed. The counts are
    per process (each worker of a ``serve`` holds its own allowance)."""

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        max_in_flight: int = MAX_BODY_BYTES_IN_FLIGHT,
        wait: float = BUDGET_WAIT,
        per_client: int | None = None,
        deadline: float = BODY_DEADLINE,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.max_in_flight = max_in_flight
        # shares of this process's allowance (``serve --workers N`` divides it)
        self.per_client = per_client or max_in_flight // CLIENT_SHARE
        self.reserve = max_in_flight // RESERVE_SHARE
        self.wait = wait
        self.deadline = deadline
        self.in_flight = 0  # one event loop: no lock needed
        self.by_client: dict[str, int] = {}

    def _fits(self, who: str, held: int, n: int) -> bool:
        """Whether ``n`` more bytes of a body holding ``held`` fit (a body alone in flight,
        or its client's only one, always does)."""
        small = held + n <= SMALL_BODY  # a body's first bytes: the reserve is theirs too
        room = self.max_in_flight - (0 if small else self.reserve)
        if self.in_flight - held > 0 and self.in_flight + n > room:
            return False
        mine = self.by_client.get(who, 0)
        return small or mine - held == 0 or mine + n <= self.per_client

    def _take(self, who: str, held: int, n: int) -> bool:
        """Count ``n`` more bytes of a request from ``who`` (holding ``held``) in flight if
        they fit now."""
        if not self._fits(who, held, n):
            return False
        self.in_flight += n
        self.by_client[who] = self.by_client.get(who, 0) + n
        return True

    async def _reserve(self, who: str, held: int, n: int, deadline: float) -> bool:
        """``_take``, waiting for room until ``deadline``."""
        while not self._take(who, held, n):
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.02)
        return True

    def _release(self, who: str, n: int) -> None:
        self.in_flight -= n
        left = self.by_client.get(who, 0) - n
        if left > 0:
            self.by_client[who] = left
        else:
            self.by_client.pop(who, None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._reject(send)
            return
        who = str((scope.get("client") or ("?",))[0])
        held = [0]  # bytes of this body counted in flight (the reader adds to it)
        try:
            body = await self._read(who, receive, send, held)
            if body is not None:
                await self._forward(scope, receive, send, body)
        finally:
            self._release(who, held[0])

    async def _read(self, who: str, receive: Receive, send: Send, held: list[int]) -> bytes | None:
        """The whole body, counted in flight in ``held``; None when an answer (408, 413,
        503) was sent or the client went away."""
        # Chunked bodies carry no length: read up to the limit, then replay what was read.
        start = time.monotonic()
        chunks: list[bytes] = []
        more = True
        while more:
            try:
                message = await _within(receive, start + self.deadline - time.monotonic())
            except (asyncio.TimeoutError, TimeoutError):
                await self._too_slow(send, held[0])
                return None
            if message["type"] != "http.request":
                return None  # the client went away: nothing to answer
            chunk = message.get("body", b"")
            if held[0] + len(chunk) > self.max_bytes:
                await self._reject(send)
                return None
            if not self._take(who, held[0], len(chunk)) and not await self._reserve(
                who, held[0], len(chunk), min(time.monotonic() + self.wait, start + self.deadline)
            ):
                await self._send(
                    send,
                    503,
                    f"the service is busy: {self.max_in_flight} bytes of request bodies are in "
                    f"flight (at most {self.per_client} from one client); try again in "
                    f"{RETRY_AFTER_BUSY} s",
                    [(b"retry-after", str(RETRY_AFTER_BUSY).encode()), CLOSE],
                )
                return None
            held[0] += len(chunk)
            chunks.append(chunk)
            more = message.get("more_body", False)
        return b"".join(chunks)

    async def _too_slow(self, send: Send, got: int) -> None:
        await self._send(
            send,
            408,
            f"request body not received within {self.deadline:g} s ({got} bytes came); the "
            "connection is closed: send the body at once",
            [CLOSE],
        )

    async def _forward(self, scope: Scope, receive: Receive, send: Send, body: bytes) -> None:
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _reject(self, send: Send) -> None:
        await self._send(send, 413, f"request body larger than {self.max_bytes} bytes", [CLOSE])

    @staticmethod
    async def _send(
        send: Send, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None
    ) -> None:
        body = json.dumps(
            error_body(status, message), ensure_ascii=False, separators=(",", ":")
        ).encode()  # as JSONResponse writes the others
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    *(headers or []),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


async def _within(receive: Receive, seconds: float) -> Message:
    """``receive()``, or ``TimeoutError`` after ``seconds``. A message there already (a small
    body comes with its headers) is taken as the receive's first step gives it, with no
    timer; else the receive, started, is waited for under ``asyncio.timeout`` (``wait_for``
    on Python 3.10)."""
    pending = receive()
    if not isinstance(pending, Coroutine):  # pragma: no cover - every ASGI server's is one
        return await asyncio.wait_for(pending, seconds)
    try:
        waiting = pending.send(None)
    except StopIteration as done:
        message: Message = done.value
        return message
    rest = _Started(pending, waiting)
    if _TIMEOUT is None:  # pragma: no cover - Python 3.10
        try:
            return await asyncio.wait_for(_awaited(rest), seconds)
        finally:
            pending.close()  # a receive the deadline cut before it went on: closed
    async with _TIMEOUT(seconds):
        return await rest


class _Started:
    """A coroutine stepped once already (it yielded ``waiting``, what it waits for), awaited
    for the rest: each value it yields goes to the task, each answer and each exception
    (a cancel) back to it, as if it had been awaited from its start."""

    __slots__ = ("coro", "waiting")

    def __init__(self, coro: Coroutine[Any, Any, Message], waiting: Any) -> None:
        self.coro, self.waiting = coro, waiting

    def __await__(self) -> Generator[Any, Any, Message]:
        coro, value = self.coro, self.waiting
        while True:
            step: Any = coro.send
            try:
                given: Any = yield value
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:  # thrown in by the task (a cancel): to the coroutine
                step, given = coro.throw, exc
            try:
                value = step(given)
            except StopIteration as done:
                return cast("Message", done.value)


async def _awaited(rest: _Started) -> Message:  # pragma: no cover - Python 3.10
    return await rest


_TIMEOUT = getattr(asyncio, "timeout", None)  # Python 3.11 on
