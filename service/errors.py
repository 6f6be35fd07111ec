"""Every error the service answers is JSON ``{"error": "<one line>", "status": N}``.

User errors map to 4xx: unknown set/product/minigame → 404; bad or out-of-range input, or
a request the library cannot carry out → 422; body too large → 413. A database that cannot
be read right now (missing, or a sync holds it) → 503 with ``Retry-After``. A 500 only ever
means a bug.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from boosterkit.errors import BoosterkitError, InputError, NotFoundError
from boosterkit.service.database import DatabaseBusy, DatabaseUnavailable

RETRY_AFTER_SECONDS = 5


def error_body(status: int, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": message, "status": status, **extra}


def _json(status: int, message: str, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    return JSONResponse(error_body(status, message, **extra), status_code=status, headers=headers)


def status_of(exc: BoosterkitError) -> int:
    """The HTTP status of a library error."""
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, InputError):
        return 422
    if isinstance(exc, DatabaseUnavailable):
        return 503
    return 422  # a request the library cannot carry out, e.g. a game whose setup is unknown


def _where(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p != "body"] or ["body"]
    return ".".join(parts)


def validation_message(errors: list[dict[str, Any]]) -> str:
    """pydantic errors as one line: ``count: Input should be less than or equal to 360; …``."""
    return "; ".join(f"{_where(tuple(e.get('loc', ())))}: {e.get('msg', 'invalid')}" for e in errors)


def install_error_handlers(app: FastAPI) -> None:
    """Register the JSON error answers on ``app``."""

    @app.exception_handler(BoosterkitError)
    async def _library(_: Request, exc: BoosterkitError) -> JSONResponse:
        status = status_of(exc)
        headers = {"Retry-After": str(RETRY_AFTER_SECONDS)} if isinstance(exc, DatabaseBusy) else None
        return _json(status, str(exc), headers)

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
        if exc.status_code == 404 and message == "Not Found":
            message = f"no route {request.method} {request.url.path} (see /docs)"
        elif exc.status_code == 405:
            message = f"method {request.method} is not allowed on {request.url.path}"
        return _json(exc.status_code, message, getattr(exc, "headers", None))


class BodyLimit:
    """ASGI middleware: a request body over ``max_bytes`` gets 413 before any route sees it."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._reject(send)
            return
        # Chunked bodies carry no length: read up to the limit, then replay what was read.
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_bytes:
                await self._reject(send)
                return
            more = message.get("more_body", False)
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _reject(self, send: Send) -> None:
        body = json.dumps(
            error_body(413, f"request body larger than {self.max_bytes} bytes")
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})
