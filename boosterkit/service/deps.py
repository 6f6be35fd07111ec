"""What every route module shares: the JSON response, the per-request database cursor, a
minigame request's share of the work budget, and where a request's work runs (``answer``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from fastapi import Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import State

from boosterkit.cache import WouldWait
from boosterkit.errors import BoosterkitError
from boosterkit.minigames.catalog import get_minigame
from boosterkit.pipeline.db import Connection
from boosterkit.serialize import to_json_bytes


def json_response(data: Any, status_code: int = 200) -> Response:
    """``data`` exactly as the CLI prints it with ``--format json``."""
    body = to_json_bytes(data, b"\n")
    return Response(body, status_code=status_code, media_type="application/json")


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


#: Packs a request may open, deal or list on the event loop (a few milliseconds of work).
LOOP_PACKS = 40


async def answer(state: State, packs: int, work: Callable[[bool], Response]) -> Response:
    """``work(wait)``'s answer (``state``: the app's): run on the event loop when it opens at
    most ``LOOP_PACKS`` packs and needs nothing but memory (``wait`` False: the database
    handle's ``without_waiting``, and no wait for the work budget), else on a worker thread.

    A handoff to a thread and back costs about what drawing and writing 36 packs does, and
    a thread gains nothing for work that holds the GIL throughout; what may wait (a product
    not compiled yet, a query, a full budget) raises ``cache.WouldWait`` before it changed
    anything, and is done again on a thread, where it may wait (``wait`` True)."""
    if packs <= LOOP_PACKS:
        try:
            with state.database.without_waiting():
                return work(False)
        except WouldWait:
            pass
    return await run_in_threadpool(work, True)
