"""What every route module shares: the JSON response and the per-request database cursor."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import Request
from fastapi.responses import Response

from boosterkit.pipeline.db import Connection
from boosterkit.serialize import to_json


def json_response(data: Any, status_code: int = 200) -> Response:
    """``data`` exactly as the CLI prints it with ``--format json``."""
    return Response(to_json(data) + "\n", status_code=status_code, media_type="application/json")


def cursor(request: Request) -> Iterator[Connection]:
    """A read-only cursor for this request (dependency)."""
    with request.app.state.database.cursor() as cur:
        yield cur
