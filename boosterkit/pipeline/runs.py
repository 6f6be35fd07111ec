"""``sync_runs``: every load is recorded, and a failed one is recorded as failed.

    with recorded(con, "mtgjson", "AFR.json") as run:
        ...load inside one transaction...
        run.cards += n
        run.cache_files.append(rel_path)

The data and the ``ok`` row commit together; on an exception the transaction rolls back,
a ``failed`` row with the message is written on its own, and the exception propagates.
A storage failure (damaged file, full disk) writes no ``failed`` row: nothing is written.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from boosterkit.pipeline.db import Connection, storage_error, transaction


@dataclass
class Run:
    source: str
    target: str | None
    started_at: dt.datetime = field(
        default_factory=lambda: dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    )
    sets: int = 0
    cards: int = 0
    message: str | None = None
    cache_files: list[str] = field(default_factory=list)


def _insert(con: Connection, run: Run, status: str) -> None:
    con.execute(
        "INSERT INTO sync_runs (source, target, started_at, finished_at, status, sets, cards, "
        "message, cache_files) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            run.source,
            run.target,
            run.started_at,
            dt.datetime.now(dt.timezone.utc).replace(tzinfo=None),
            status,
            run.sets,
            run.cards,
            run.message,
            run.cache_files,
        ],
    )


def _failed(con: Connection, run: Run, exc: BaseException) -> None:
    run.message = (str(exc) or type(exc).__name__)[:1000]
    if storage_error("", exc) is not None:
        return
    try:
        _insert(con, run, "failed")
    except Exception:  # the connection itself may be gone (interrupted process)
        pass


@contextmanager
def recorded(con: Connection, source: str, target: str | None) -> Iterator[Run]:
    """One transaction for the load and its ``ok`` row; a ``failed`` row if it raises."""
    run = Run(source, target)
    try:
        with transaction(con):
            yield run
            _insert(con, run, "ok")
    except BaseException as exc:
        _failed(con, run, exc)
        raise
