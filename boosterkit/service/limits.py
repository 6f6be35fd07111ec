"""What keeps a page on another site, or one busy client, from using the service.

- ``HostAllowlist``: a request whose ``Host`` header is not a name the service was bound to
  gets 400, so a DNS-rebinding page (a hostile name that resolves to 127.0.0.1) cannot read
  the API. ``allowed_hosts(bind, extra)`` is the list ``boosterkit serve`` uses.
- ``WorkBudget``: at most ``capacity`` packs are opened, dealt or validated at once over all
  requests; a request that finds no room within ``wait`` seconds gets 503 with ``Retry-After``.
  (Request bodies in flight are bounded by ``errors.BodyLimit``.)
"""

from __future__ import annotations

import ipaddress
import json
import re
import threading
import time
from collections.abc import Iterable
from contextlib import AbstractContextManager

from starlette.types import ASGIApp, Receive, Scope, Send

from boosterkit.cache import WouldWait
from boosterkit.errors import BoosterkitError, InputError

#: Host names every service answers to (the loopback names), besides the bound address.
DEFAULT_HOSTS = ("127.0.0.1", "localhost", "::1")
#: Bind addresses meaning "every interface": then any IP-literal Host is accepted too
#: (a DNS-rebinding page needs a host *name*), and other names only with ``--allow-host``.
WILDCARDS = ("0.0.0.0", "::", "")
#: Packs opened, dealt or validated at once over all requests (two ``/packs`` of 360).
MAX_PACKS_IN_FLIGHT = 720
#: A pack counts in the work budget once per this many cards it may hold (or part): every
#: real pack once (the biggest, a tournament pack, holds 75), a pack of 1,000 cards 14 times.
CARDS_PER_PACK_UNIT = 75
#: Request-body bytes held at once over all requests (eight bodies of 4 MiB).
MAX_BODY_BYTES_IN_FLIGHT = 32 * 1024 * 1024
#: One client address holds at most this share of a process's body allowance (8 of 32 MiB).
CLIENT_SHARE = 4
MAX_BODY_BYTES_PER_CLIENT = MAX_BODY_BYTES_IN_FLIGHT // CLIENT_SHARE
#: A body's first bytes counted against the allowance only, not the client's share.
SMALL_BODY = 64 * 1024
#: This share of the allowance is kept for bodies' first ``SMALL_BODY`` bytes (4 of 32 MiB).
RESERVE_SHARE = 8
SMALL_RESERVE = MAX_BODY_BYTES_IN_FLIGHT // RESERVE_SHARE
#: Seconds a request body may take to arrive (4 MiB at 200 KiB/s), else 408.
BODY_DEADLINE = 20.0
#: Seconds a request waits for room in a budget before it is answered 503.
BUDGET_WAIT = 1.0
#: ``Retry-After`` (seconds) of a 503 because the service is busy with other requests.
RETRY_AFTER_BUSY = 1


def packs_cost(code: str, pack_cards: int, count: int, max_units: int) -> int:
    """The work-budget units of ``count`` packs of ``code`` holding at most ``pack_cards``
    cards each: one a pack, or one per ``CARDS_PER_PACK_UNIT`` cards when that is more. More
    than ``max_units`` (``max_units × CARDS_PER_PACK_UNIT`` cards) is an ``InputError``."""
    units = max(count, -(-count * pack_cards // CARDS_PER_PACK_UNIT))
    if units > max_units:
        most = max_units * CARDS_PER_PACK_UNIT
        raise InputError(
            f"count: {count:,} packs of {code} (up to {pack_cards:,} cards each) are more than "
            f"the {most:,} cards a request may cost: ask for at most "
            f"{max(1, most // max(1, pack_cards)):,}",
            field="count",
        )
    return units


class ServiceBusy(BoosterkitError):
    """More heavy work is in flight than the service's budget allows (503, ``Retry-After``)."""


def allowed_hosts(bind: str, extra: Iterable[str] = ()) -> list[str]:
    """The Host names a service bound to ``bind`` answers to: loopback, ``bind``, ``extra``.

    ``extra`` may hold ``*`` (no check at all: behind a proxy that checks it).
    """
    hosts = [*DEFAULT_HOSTS, bind.strip("[]"), *(h.strip() for h in extra)]
    return list(dict.fromkeys(h.lower().strip("[]") for h in hosts if h))


#: A ``Host`` header: a plain host name or IPv4 address, or a bracketed IPv6 address, and an
#: optional port; nothing else (no ``user@``, no path, no percent-escapes, no spaces).
_HOST = re.compile(
    r"(?:\[(?P<v6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
    r"(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?))(?::(?P<port>[0-9]{1,5}))?"
)


def host_name(header: str) -> str | None:
    """The name in a ``Host`` header, without the port (``[::1]:8000`` → ``::1``); None
    for a header that is not a plain ``host[:port]`` (``127.0.0.1:80@evil.example``)."""
    header = header.strip().lower()
    m = _HOST.fullmatch(header)
    if m is None:
        return header if _is_ip(header) and ":" in header else None  # a bare IPv6 address
    if m["port"] is not None and not 0 < int(m["port"]) < 65536:
        return None
    if m["v6"] is not None:
        return m["v6"] if _is_ip(m["v6"]) else None
    return m["name"].rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


#: Allowed ``Host`` headers a service keeps as they came, to allow them again at a glance.
ALLOWED_KEPT = 64


class HostAllowlist:
    """ASGI middleware: 400 for a ``Host`` header that names none of ``hosts``."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = frozenset(h.lower().strip("[]") for h in hosts)
        self.any_host = "*" in self.hosts
        self.any_ip = bool(self.hosts & set(WILDCARDS))
        self._allowed: set[bytes] = set()  # raw headers allowed already (a few: ``ALLOWED_KEPT``)

    def allows(self, header: str | None) -> bool:
        if self.any_host:
            return True
        if not header:
            return False
        name = host_name(header)
        return name is not None and (name in self.hosts or (self.any_ip and _is_ip(name)))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        raw = dict(scope["headers"]).get(b"host")
        if raw in self._allowed:
            await self.app(scope, receive, send)
            return
        header = raw.decode("latin-1") if raw is not None else None
        if self.allows(header):
            if raw is not None and len(self._allowed) < ALLOWED_KEPT:
                self._allowed.add(raw)
            await self.app(scope, receive, send)
            return
        shown = repr(header[:100]) if header is not None else "(none)"
        message = (
            f"Host {shown} is not a name this service answers to; start it with "
            "`boosterkit serve --allow-host NAME` to add one"
        )
        body = json.dumps(
            {"error": message, "status": 400}, ensure_ascii=False, separators=(",", ":")
        ).encode()  # as JSONResponse writes the others
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class WorkBudget:
    """A count of units (packs) in flight, shared by the threads that serve requests."""

    def __init__(self, capacity: int = MAX_PACKS_IN_FLIGHT, wait: float = BUDGET_WAIT) -> None:
        self.capacity = capacity
        self.wait = wait
        self.used = 0
        self._cond = threading.Condition()

    def take(self, units: int, *, wait: bool = True) -> AbstractContextManager[None]:
        """Hold ``units`` (at least 1, at most ``capacity``) while the block runs.

        Waits up to ``wait`` seconds for room, then raises ``ServiceBusy``; with ``wait``
        False, raises ``cache.WouldWait`` at once when there is no room (on the event loop).
        """
        return _Held(self, max(1, min(int(units), self.capacity)), wait)

    def _acquire(self, units: int, wait: bool) -> None:
        deadline = time.monotonic() + self.wait
        with self._cond:
            while self.used + units > self.capacity:
                if not wait:
                    raise WouldWait("the work budget")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ServiceBusy(
                        f"the service is busy: {self.used} of {self.capacity} packs are being "
                        f"opened for other requests; try again in {RETRY_AFTER_BUSY} s"
                    )
                self._cond.wait(left)
            self.used += units

    def _release(self, units: int) -> None:
        with self._cond:
            self.used -= units
            self._cond.notify_all()


class _Held:
    """``WorkBudget.take``'s block (a class: the service enters one a request)."""

    __slots__ = ("budget", "units", "wait")

    def __init__(self, budget: WorkBudget, units: int, wait: bool) -> None:
        self.budget, self.units, self.wait = budget, units, wait

    def __enter__(self) -> None:
        self.budget._acquire(self.units, self.wait)

    def __exit__(self, *exc: object) -> None:
        self.budget._release(self.units)
