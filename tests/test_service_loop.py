"""Where the service runs a request's work (issue 36): on its event loop when all it needs is
in memory, else on a worker thread. What would wait (a read of the database, a value not in
memory, a full work budget) raises ``cache.WouldWait`` within ``Database.without_waiting``,
before anything changed, and the work is done again where it may wait."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.responses import Response
from fastapi.testclient import TestClient

from boosterkit.cache import WouldWait
from boosterkit.generator.cache import compiled
from boosterkit.service.app import create_app
from boosterkit.service.database import ReadOnlyDatabase
from boosterkit.service.deps import LOOP_PACKS, answer
from boosterkit.service.limits import WorkBudget


def test_without_waiting_refuses_what_would_wait(built_db: Path) -> None:
    db = ReadOnlyDatabase(built_db)
    with db.without_waiting(), pytest.raises(WouldWait):
        compiled(db, "afr", "draft")  # not in memory: its file or the database
    with db.without_waiting(), pytest.raises(WouldWait), db.read():
        pass
    kept = compiled(db, "afr", "draft")  # may wait: compiled and kept
    with db.without_waiting():
        assert compiled(db, "afr", "draft") is kept  # in memory: no wait
        assert not db.may_wait()
        seen: list[bool] = []
        other = threading.Thread(target=lambda: seen.append(db.may_wait()))
        other.start()
        other.join()
        assert seen == [True]  # another thread is not held to it
    assert db.may_wait()
    db.close()


def test_a_full_budget_does_not_wait_on_the_loop() -> None:
    budget = WorkBudget(capacity=10, wait=0.05)
    with budget.take(8), pytest.raises(WouldWait), budget.take(5, wait=False):
        pass
    with budget.take(5, wait=False):
        assert budget.used == 5
    assert budget.used == 0


def _state(database: Any) -> Any:
    return SimpleNamespace(database=database)


class _Handle:
    """A stand-in database handle that records ``without_waiting`` by thread."""

    def __init__(self) -> None:
        self.local = threading.local()

    def without_waiting(self) -> Any:
        handle = self

        class Block:
            def __enter__(self) -> None:
                handle.local.no_wait = True

            def __exit__(self, *exc: object) -> None:
                handle.local.no_wait = False

        return Block()


def test_answer_runs_on_the_loop_then_on_a_thread_when_it_would_wait() -> None:
    handle = _Handle()
    calls: list[tuple[bool, bool, bool]] = []  # (wait, on the loop's thread, held)
    loop_thread: list[int] = []

    def work(wait: bool) -> Response:
        held = getattr(handle.local, "no_wait", False)
        calls.append((wait, threading.get_ident() == loop_thread[0], held))
        if not wait and len(calls) == 1:
            raise WouldWait("the database")
        return Response(b"ok")

    async def main() -> list[Response]:
        loop_thread.append(threading.get_ident())
        first = await answer(_state(handle), 1, work)  # would wait: done again on a thread
        second = await answer(_state(handle), 1, work)  # from memory: on the loop
        big = await answer(_state(handle), LOOP_PACKS + 1, work)  # too big for the loop
        return [first, second, big]

    answers = asyncio.run(main())
    assert [a.body for a in answers] == [b"ok"] * 3
    assert calls == [(False, True, True), (True, False, False), (False, True, True),
                     (True, False, False)]  # fmt: skip


def test_a_new_product_is_compiled_on_a_thread_and_kept(built_db: Path) -> None:
    """The first ``/packs`` of a product compiles it (on a worker thread: it reads the
    database); the next is drawn from memory, and both answer as the CLI's library does."""
    app = create_app(built_db, linger=0)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        body = {"set": "afr", "product": "set", "count": 3, "seed": 5}
        first = client.post("/packs", json=body)
        again = client.post("/packs", json=body)
        counts = app.state.database.cache.counts("product")
    assert first.status_code == again.status_code == 200
    assert first.content == again.content
    assert counts.misses + counts.loads == 1 and counts.hits >= 1
