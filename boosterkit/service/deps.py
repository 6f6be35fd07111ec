"""What every route module shares: the JSON response, the per-request database cursor and
a minigame request's share of the work budget."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import Request
from fastapi.responses import Response

from boosterkit.errors import BoosterkitError
from boosterkit.minigames.catalog import get_minigame
from boosterkit.pipeline.db import Connection
from boosterkit.serialize import to_json


def json_response(data: Any, status_code: int = 200) -> Response:
    """``data`` exactly as the CLI prints it with ``--format json``."""
    return Response(to_json(data) + "\n", status_code=status_code, media_type="application/json")


def cursor(request: Request) -> Iterator[Connection]:
    """A read-only cursor for this request (dependency): the app's ``Database`` handle's
    ``read()``, for the routes that call a function taking a connection."""
    with request.app.state.database.read() as cur:
        yield cur


def game_packs(minigame: str, players: int) -> int:
    """How many packs one deal of ``minigame`` for ``players`` opens (its share of the work
    budget); a request the deal will refuse counts as ``players`` packs."""
    try:
        return get_minigame(minigame).pack_count(players)
    except (BoosterkitError, TypeError, ValueError):
        return players  # the deal itself reports what is wrong
