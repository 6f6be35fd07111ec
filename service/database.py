"""Read-only access to the database for the service, shared safely between requests.

DuckDB lets one process write a file OR several processes read it, never both: while
``boosterkit sync`` (or an import) writes, a read-only open fails with "Could not set lock",
and while any process holds the file open read-only, a writer cannot open it. So the service
never keeps the file open while idle: the first request in opens it, concurrent requests
each take their own cursor (a DuckDB connection is not thread-safe; a cursor per thread is),
and the last request out closes it, which lets a sync in. A request that arrives while a
sync holds the lock waits up to ``busy_timeout`` seconds, then gets ``DatabaseBusy`` (503).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from boosterkit.errors import BoosterkitError
from boosterkit.pipeline import db as pdb


class DatabaseUnavailable(BoosterkitError):
    """The database cannot be served now: missing, locked by a writer, or of another schema."""


class DatabaseBusy(DatabaseUnavailable):
    """Another process (a sync or an import) holds the write lock for longer than we waited."""


def _is_lock_conflict(exc: BaseException) -> bool:
    cause = exc.__cause__ or exc
    return isinstance(cause, duckdb.IOException) and "lock" in str(cause).lower()


class ReadOnlyDatabase:
    """A read-only DuckDB file opened while requests use it and closed when none do."""

    def __init__(self, path: str | Path, *, busy_timeout: float = 3.0, poll: float = 0.05) -> None:
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self.poll = poll
        self._lock = threading.Lock()
        self._con: pdb.Connection | None = None
        self._users = 0

    def _busy(self) -> DatabaseBusy:
        return DatabaseBusy(
            f"{self.path}: the database is busy: another process (a sync or an import) "
            f"is writing to it; try again in a few seconds"
        )

    def _open(self, deadline: float) -> pdb.Connection:
        while True:
            try:
                return pdb.connect(self.path, read_only=True)
            except pdb.DatabaseError as exc:
                if not _is_lock_conflict(exc):
                    raise DatabaseUnavailable(str(exc)) from exc
                if time.monotonic() >= deadline:
                    raise self._busy() from exc
            time.sleep(self.poll)

    @contextmanager
    def cursor(self) -> Iterator[pdb.Connection]:
        """A cursor of the shared read-only connection, for the current thread only."""
        # One deadline for the whole wait, so requests queued behind a blocked open do not
        # each wait the full timeout again.
        deadline = time.monotonic() + self.busy_timeout
        if not self._lock.acquire(timeout=self.busy_timeout):
            raise self._busy()
        try:
            if self._con is None:
                self._con = self._open(deadline)
            self._users += 1
            cur = self._con.cursor()
        finally:
            self._lock.release()
        try:
            yield cur
        finally:
            cur.close()
            with self._lock:
                self._users -= 1
                if self._users == 0 and self._con is not None:
                    self._con.close()
                    self._con = None

    def check(self) -> None:
        """Open and close once: raises ``DatabaseUnavailable`` when serving would fail."""
        with self.cursor():
            pass
