"""What one slow or greedy client can hold of ``boosterkit serve``: its connections.

uvicorn gives a request body no deadline (``errors.BodyLimit`` does) and request headers
none at all: a connection that sends ``GET / HTTP/1.1\\r\\nHost: x\\r\\nX: a`` and goes
silent was held for good, and 1,100 of them took every file descriptor of a process limited
to 1,024, so ``/health`` went unanswered. ``ConnectionGuard.protocol()`` is uvicorn's h11
protocol with two bounds (``serve`` runs every worker with it):

- **a header deadline**: a request's headers must be whole within ``HEADER_DEADLINE``
  seconds of the connection being opened, or of the answer to its previous request (a
  keep-alive connection); else the connection gets 408 (if part of a request came) and is
  closed;
- **connections per client**: one client address holds at most ``MAX_CONNECTIONS_PER_CLIENT``
  connections, and all clients at most ``connection_capacity()`` (half the open-file limit
  less ``RESERVED_FILES`` for the database and the rest; the other half takes the bursts of
  new connections accepted before they are counted, ``accept_backlog()``); past either, the oldest connection (of that
  client, else of anyone) still waiting for its headers is closed to make room, and when
  every one is busy with a request the new connection is closed instead.

So a flood of idle connections costs the flooding client its oldest ones, and a whole
request from anyone (``/health``) is taken in and answered.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from boosterkit.service.errors import error_body

#: Seconds a request's headers may take to arrive (from the connection, or from the answer
#: to the previous request on a keep-alive connection).
HEADER_DEADLINE = 10.0
#: Connections one client address holds at once (a browser opens about 6).
MAX_CONNECTIONS_PER_CLIENT = 64
#: Open files kept out of the connections' reach: the database, its cache, logs, sockets.
RESERVED_FILES = 128
#: Connections of all clients at most, whatever the open-file limit.
MAX_CONNECTIONS = 10_000


def _open_files() -> int:
    """This process's open-file limit (``RLIMIT_NOFILE``'s soft one)."""
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError):  # pragma: no cover - not Unix
        return 1024
    return limit if limit >= 0 else 2 * MAX_CONNECTIONS + RESERVED_FILES  # RLIM_INFINITY


def connection_capacity(open_files: int | None = None) -> int:
    """Connections a process holds at most: half its open-file limit (``open_files``, else
    ``RLIMIT_NOFILE``'s soft one) less ``RESERVED_FILES``, at least 16, at most
    ``MAX_CONNECTIONS``. The other half is for a burst accepted at once (``accept_backlog``),
    before any is counted: so the process never runs out of file descriptors."""
    files = _open_files() if open_files is None else open_files
    return max(16, min(MAX_CONNECTIONS, (files - RESERVED_FILES) // 2))


#: Bursts of accepted connections that can be in flight before the first of them is counted:
#: asyncio accepts a burst in one turn of its loop, makes their protocols in the next and
#: calls ``connection_made`` (where they are counted, and the oldest closed) in the one
#: after, and a closed connection's descriptor is released a turn later still.
BURSTS_IN_FLIGHT = 4


def accept_backlog(open_files: int | None = None) -> int:
    """Connections waiting to be accepted, and taken at once (uvicorn's ``backlog``, which
    asyncio also uses as its burst): a quarter of ``connection_capacity`` (so that
    ``BURSTS_IN_FLIGHT`` bursts fit in the other half of the open files), at most 512."""
    return max(4, min(512, connection_capacity(open_files) // BURSTS_IN_FLIGHT))


def uvicorn_options() -> dict[str, Any]:
    """What ``serve`` gives ``uvicorn.Config`` (per server: a fresh guard): the guarded
    protocol and the backlog."""
    return {"http": ConnectionGuard().protocol(), "backlog": accept_backlog()}


class ConnectionGuard:
    """The connections of one server (one process): by client address, oldest first, and
    the bounds they are held to. ``protocol()`` is the uvicorn protocol that reports here."""

    def __init__(
        self,
        *,
        per_client: int = MAX_CONNECTIONS_PER_CLIENT,
        total: int | None = None,
        header_deadline: float = HEADER_DEADLINE,
    ) -> None:
        self.per_client = per_client
        self.total = connection_capacity() if total is None else total
        self.header_deadline = header_deadline
        self.by_client: dict[str, dict[GuardedH11Protocol, None]] = {}
        self.open: dict[GuardedH11Protocol, None] = {}  # insertion order: oldest first

    def protocol(self) -> type[H11Protocol]:
        """uvicorn's h11 protocol held to this guard's bounds (``uvicorn.Config(http=…)``)."""
        return cast(
            "type[H11Protocol]", type("GuardedH11Protocol", (GuardedH11Protocol,), {"guard": self})
        )

    def opened(self, conn: GuardedH11Protocol) -> None:
        """Count ``conn`` in; past a bound, make room (``_make_room``)."""
        mine = self.by_client.setdefault(conn.client_host, {})
        mine[conn] = None
        self.open[conn] = None
        if len(mine) > self.per_client:
            self._make_room(mine, conn)
        if len(self.open) > self.total and conn in self.open:
            self._make_room(self.open, conn)

    def _make_room(self, among: dict[GuardedH11Protocol, None], new: GuardedH11Protocol) -> None:
        """Close the oldest connection of ``among`` waiting for its headers, else ``new``."""
        victim = next((c for c in among if c is not new and c.waiting()), new)
        victim.drop()

    def closed(self, conn: GuardedH11Protocol) -> None:
        """Count ``conn`` out (once, however often it is called)."""
        self.open.pop(conn, None)
        mine = self.by_client.get(conn.client_host)
        if mine is not None:
            mine.pop(conn, None)
            if not mine:
                del self.by_client[conn.client_host]


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on request headers, counted by its guard."""

    guard: ConnectionGuard
    _timer: asyncio.TimerHandle | None = None
    _since: float | None = None  # when the wait for a request's headers began

    @property
    def client_host(self) -> str:
        return self.client[0] if self.client else ""

    def waiting(self) -> bool:
        """Whether the connection waits for (the rest of) a request's headers."""
        return self.conn.their_state is h11.IDLE and not self.transport.is_closing()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._watch()
        self.guard.opened(self)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        self.guard.closed(self)
        super().connection_lost(exc)

    def drop(self) -> None:
        """Close the connection now (to make room for another), and count it out."""
        self._stop()
        self.guard.closed(self)
        self.transport.close()

    def _watch(self) -> None:
        """The header deadline runs while the connection waits for a request's headers: from
        when the wait began (``_since``), checked by one timer a connection, set again only
        when it fires (not a timer made and cancelled a request)."""
        if not self.waiting():
            self._since = None
            return
        if self._since is None:
            self._since = self.loop.time()
        if self._timer is None:
            self._timer = self.loop.call_at(self._since + self.guard.header_deadline, self._late)

    def _stop(self) -> None:
        self._since = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _late(self) -> None:
        """The timer fired: 408 if the wait it watched is past the deadline and part of a
        request came, then the connection closed; else it waits for the wait now (if any)."""
        self._timer = None
        if not self.waiting() or self._since is None:
            return
        due = self._since + self.guard.header_deadline
        if self.loop.time() < due:  # a later wait than the one the timer was set for
            self._timer = self.loop.call_at(due, self._late)
            return
        if self.conn.trailing_data[0]:
            message = f"request headers not received within {self.guard.header_deadline:g} s"
            self.transport.write(_answer(408, "Request Timeout", message))
        self.drop()


def _answer(status: int, reason: str, message: str) -> bytes:
    """A whole HTTP/1.1 answer that closes the connection, with the service's error body."""
    body = json.dumps(error_body(status, message), ensure_ascii=False, separators=(",", ":"))
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body.encode())}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body.encode()
