"""A fake upstream HTTP server on 127.0.0.1 with fault injection, the base of the test stand-ins.

``FakeScryfall`` (``scryfall_server.py``) and ``FakeMtgjson`` (``mtgjson_server.py``) route
requests; this class logs them and injects faults::

    server.faults[:] = [429, Fault(503), Fault(stall=5), Fault(truncate=True),
                        Fault(429, headers={"Retry-After": "inf"})]

Each fault answers (and is popped for) one request before the real answer:

- an int or ``Fault(status)``: that status with an error object (and ``headers``);
- ``Fault(stall=s)``: hold the connection ``s`` seconds without a byte, then close it;
- ``Fault(truncate=True)``: the real answer's headers (its full ``Content-Length``) and
  half its body, then close.

A hostile upstream: ``server.rewrite[path] = fn`` answers every request for ``path`` with
``fn(the real JSON answer)`` (e.g. a set list naming a child set ``../..``).

``server.requests`` logs every request (path, query, headers, monotonic time); ``delay``
sleeps before each answer.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Logged:
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    at: float


@dataclass
class Fault:
    status: int = 503
    headers: dict[str, str] = field(default_factory=dict)
    stall: float = 0.0
    truncate: bool = False


@dataclass
class Answer:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


def json_answer(status: int, body: Any, headers: dict[str, str] | None = None) -> Answer:
    return Answer(
        status,
        json.dumps(body).encode("utf-8"),
        {"Content-Type": "application/json; charset=utf-8", **(headers or {})},
    )


def error_object(status: int, code: str, details: str) -> dict[str, Any]:
    return {"object": "error", "status": status, "code": code, "details": details}


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client hanging up is normal
            super().handle_error(request, client_address)


class FakeServer:
    """The server; subclasses implement ``route(handler, path, query) -> Answer``."""

    delay: float
    faults: list[int | Fault]
    requests: list[Logged]

    def _init_server(self) -> None:
        self._httpd: ThreadingHTTPServer | None = None
        self._stopping = threading.Event()
        self.rewrite: dict[str, Callable[[Any], Any]] = {}

    @property
    def origin(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self):  # noqa: ANN201 (returns the subclass)
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                server._handle(self)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self):  # noqa: ANN204
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def route(self, h: BaseHTTPRequestHandler, path: str, query: dict[str, list[str]]) -> Answer:
        raise NotImplementedError

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(h.path)
        query = parse_qs(parts.query)
        self.requests.append(Logged(parts.path, query, dict(h.headers.items()), time.monotonic()))
        if self.delay:
            time.sleep(self.delay)
        fault = self.faults.pop(0) if self.faults else None
        if isinstance(fault, int):
            fault = Fault(fault)
        if fault is not None and fault.stall:
            self._stopping.wait(fault.stall)
            h.close_connection = True
            return
        if fault is not None and not fault.truncate:
            headers = (
                {"Retry-After": "2"} if fault.status == 429 and not fault.headers else fault.headers
            )
            answer = json_answer(
                fault.status, error_object(fault.status, "fault", "injected by the test"), headers
            )
            return self._send(h, answer)
        answer = self.route(h, parts.path, query)
        if parts.path in self.rewrite:
            hostile = self.rewrite[parts.path](json.loads(answer.body))
            answer = Answer(answer.status, json.dumps(hostile).encode("utf-8"), answer.headers)
        self._send(h, answer, truncate=fault is not None)

    def _send(self, h: BaseHTTPRequestHandler, answer: Answer, *, truncate: bool = False) -> None:
        h.send_response(answer.status)
        headers = {"Content-Length": str(len(answer.body)), **answer.headers}
        for k, v in headers.items():
            h.send_header(k, v)
        if truncate:
            h.send_header("Connection", "close")
        h.end_headers()
        h.wfile.write(answer.body[: len(answer.body) // 2] if truncate else answer.body)
        if truncate:
            h.wfile.flush()
            h.close_connection = True
