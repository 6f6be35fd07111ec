"""Read-only access to the database for the service, shared safely between requests.

DuckDB lets one process write a file OR several processes read it, never both: while
``boosterkit sync`` (or an import) writes, a read-only open fails with "Could not set lock",
and while any process holds the file open read-only, a writer cannot open it. So the service
never keeps the file open while idle: the first request in opens it, concurrent requests
each take their own cursor (a DuckDB connection is not thread-safe; a cursor per thread is),
and once no request has used it for ``linger`` seconds it is closed, which lets a sync in.
(Opening costs tens of milliseconds on a real database, so a steady stream of requests
shares one open.) A request that arrives while a sync holds the lock waits up to
``busy_timeout`` seconds, then gets ``DatabaseBusy`` (503).

``ReadOnlyDatabase`` is the service's ``boosterkit.database.Database`` handle: the library
calls a route makes take it as their ``db`` and read through ``cursor()``, within a
``session()`` taken on the first query only. Compiled products and what else is derived from
the database are kept in its own ``cache`` (a ``boosterkit.cache.Cache`` keyed by the file's
content, backed by the files beside the database): a request whose product is cached draws
its packs without touching the database.
``health()`` is read once per file content and answered from memory after that.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import duckdb

from boosterkit.cache import Cache, file_stamp
from boosterkit.database import Database
from boosterkit.errors import BoosterkitError
from boosterkit.pipeline import db as pdb
from boosterkit.pipeline.queries import db_info


class DatabaseUnavailable(BoosterkitError):
    """The database cannot be served now: missing, locked by a writer, or of another schema."""


class DatabaseBusy(DatabaseUnavailable):
    """Another process (a sync or an import) holds the write lock for longer than we waited."""


def _is_lock_conflict(exc: BaseException) -> bool:
    cause = exc.__cause__ or exc
    return isinstance(cause, duckdb.IOException) and "lock" in str(cause).lower()


class ReadOnlyDatabase(Database):
    """A read-only DuckDB file opened while requests use it and closed when none do: a
    ``Database`` whose reads go through the shared connection's cursors."""

    def __init__(
        self,
        path: str | Path,
        *,
        busy_timeout: float = 3.0,
        linger: float = 1.0,
        poll: float = 0.05,
    ) -> None:
        super().__init__(path, cache=Cache())
        self._file = Path(path)
        self.busy_timeout = busy_timeout
        self.linger = linger
        self.poll = poll
        self._lock = threading.Lock()
        self._con: pdb.Connection | None = None
        self._users = 0
        self._last_used = 0.0
        self._closer: threading.Timer | None = None
        self._health: tuple[object, dict[str, Any]] | None = None

    @property
    def path(self) -> Path:
        return self._file

    def _reading(self) -> AbstractContextManager[pdb.Connection]:
        return self.cursor()  # looked up on the instance: tests replace it

    @contextmanager
    def write(self) -> Iterator[pdb.Connection]:
        """Refused: the service never writes (a sync does, once the service let go)."""
        raise TypeError("the service's database is read-only")

    def _busy(self) -> DatabaseBusy:
        return DatabaseBusy(
            f"{self.path.name}: the database is busy: another process (a sync or an import) "
            f"is writing to it; try again in a few seconds"
        )

    def _open(self, deadline: float) -> pdb.Connection:
        while True:
            try:
                return pdb.connect(self.path, read_only=True)
            except pdb.DatabaseError as exc:
                if not _is_lock_conflict(exc):
                    # answers name the file, never its folders (the log of `serve` has the path)
                    raise DatabaseUnavailable(
                        str(exc).replace(str(self.path), self.path.name)
                    ) from exc
                if time.monotonic() >= deadline:
                    raise self._busy() from exc
            time.sleep(self.poll)

    @contextmanager
    def cursor(self) -> Iterator[pdb.Connection]:
        """A cursor of the shared read-only connection, for the current thread only."""
        self.check_wait()
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
                self._last_used = time.monotonic()
                if self._users == 0:
                    self._schedule_close(self.linger)

    def _schedule_close(self, delay: float) -> None:
        """Close the idle connection after ``delay`` seconds (called with the lock held)."""
        if delay <= 0:
            self._close_now()
        elif self._closer is None:
            self._closer = threading.Timer(delay, self._close_if_idle)
            self._closer.daemon = True
            self._closer.start()

    def _close_if_idle(self) -> None:
        with self._lock:
            self._closer = None
            idle = time.monotonic() - self._last_used
            if self._users == 0 and idle >= self.linger:
                self._close_now()
            elif self._users == 0:
                self._schedule_close(self.linger - idle)

    def _close_now(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None

    def close(self) -> None:
        """Release the file now (at shutdown); the next request opens it again."""
        with self._lock:
            if self._closer is not None:
                self._closer.cancel()
                self._closer = None
            if self._users == 0:
                self._close_now()

    def health(self) -> dict[str, Any]:
        """The database's name (never its path), schema version and row counts: read from
        the file once per content stamp, from memory after that."""

        stamp = file_stamp(self.path)
        known = self._health
        if known is not None and known[0] == stamp and stamp:
            return known[1]
        with self.cursor() as cur:
            stamp = file_stamp(self.path)  # open now: no writer can change it
            info = db_info(cur, self.path.name)
        info = {"database": info.pop("path"), **info}
        del info["last_runs"]  # their targets are file paths on the server
        self._health = (stamp, info)
        return info

    def check(self) -> None:
        """Open, read every table, close: ``DatabaseUnavailable`` when serving would fail.

        Reading every row (``pipeline.db.verify``) finds a damaged block that opening alone
        does not; it takes about 0.1 s per 100,000 cards.
        """
        try:
            con = pdb.connect(self.path, read_only=True)
        except pdb.DatabaseError as exc:
            raise DatabaseUnavailable(str(exc)) from exc
        try:
            pdb.verify(con, self.path)
        except pdb.DatabaseError as exc:
            raise DatabaseUnavailable(str(exc)) from exc
        finally:
            con.close()
