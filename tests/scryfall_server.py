"""A fake Scryfall API on 127.0.0.1, serving the real files of ``../shared/scryfall``.

Usable by any test::

    with FakeScryfall() as api:            # api.url → "http://127.0.0.1:PORT"
        monkeypatch.setenv("SCRYFALL_API_URL", api.url)

Endpoints, answered as Scryfall does:

- ``/sets`` — ``sets/sets.json``; ``/sets/{code}`` — one set object or a 404 error object;
- ``/cards/search?q=e:CODE`` — the printings of CODE from ``cards/*.unique-cards.json`` in
  pages of 175 with ``has_more`` / ``next_page`` / ``total_cards``; no cards → 404 ``not_found``;
- ``/bulk-data`` — a listing with ``default_cards`` whose ``download_uri`` is ``/bulk/default_cards.json``
  (every shared card, gzip content-encoded when the client accepts it and ``gzip_bulk``),
  ``updated_at`` settable.

``api.requests`` logs every request (path, query, headers, monotonic time). ``api.faults``
is a list of HTTP statuses answered (and popped) before the real answer: ``[429, 503]``.
``api.delay`` sleeps before each answer (seconds).
"""

from __future__ import annotations

import gzip
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

SCRYFALL = Path(__file__).resolve().parents[2] / "shared" / "scryfall"
PAGE_SIZE = 175


@dataclass
class Logged:
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    at: float


def _load_cards(folder: Path) -> dict[str, list[dict[str, Any]]]:
    by_set: dict[str, list[dict[str, Any]]] = {}
    for f in sorted(folder.glob("*.unique-cards.json")):
        for card in json.loads(f.read_text(encoding="utf-8")):
            by_set.setdefault(card["set"].lower(), []).append(card)
    return by_set


def _error(status: int, code: str, details: str) -> dict[str, Any]:
    return {"object": "error", "status": status, "code": code, "details": details}


@dataclass
class FakeScryfall:
    """The server; start with ``with`` or ``start()``."""

    root: Path = SCRYFALL
    bulk_updated_at: str = "2024-01-01T10:00:00.000+00:00"
    delay: float = 0.0
    gzip_bulk: bool = True
    faults: list[int] = field(default_factory=list)
    requests: list[Logged] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sets = json.loads((self.root / "sets" / "sets.json").read_text(encoding="utf-8"))
        self.cards = _load_cards(self.root / "cards")
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> FakeScryfall:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                api._handle(self)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> FakeScryfall:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def bulk_file(self) -> bytes:
        """The default_cards download: every shared card, as one JSON array."""
        return json.dumps([c for cards in self.cards.values() for c in cards]).encode("utf-8")

    # --- request handling -------------------------------------------------------------

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(h.path)
        query = parse_qs(parts.query)
        self.requests.append(Logged(parts.path, query, dict(h.headers.items()), time.monotonic()))
        if self.delay:
            time.sleep(self.delay)
        if self.faults:
            status = self.faults.pop(0)
            headers = {"Retry-After": "2"} if status == 429 else {}
            return self._send(h, status, _error(status, "fault", "injected by the test"), headers)
        if parts.path == "/bulk/default_cards.json":
            return self._send_bulk(h)
        status, body = self._route(parts.path, query)
        self._send(h, status, body)

    def _route(self, path: str, query: dict[str, list[str]]) -> tuple[int, dict[str, Any]]:
        if path == "/sets":
            return 200, self.sets
        if path.startswith("/sets/"):
            code = path.removeprefix("/sets/").lower()
            for s in self.sets["data"]:
                if s["code"] == code:
                    return 200, s
            return 404, _error(404, "not_found", f"No Magic set found for the given code “{code}”.")
        if path == "/cards/search":
            return self._search(query)
        if path == "/bulk-data":
            entry = {
                "object": "bulk_data", "type": "default_cards", "name": "Default Cards",
                "updated_at": self.bulk_updated_at, "content_type": "application/json",
                "content_encoding": "gzip", "download_uri": f"{self.url}/bulk/default_cards.json",
            }
            return 200, {"object": "list", "has_more": False, "data": [entry]}
        return 404, _error(404, "not_found", f"No route for {path}")

    def _search(self, query: dict[str, list[str]]) -> tuple[int, dict[str, Any]]:
        q = query.get("q", [""])[0].strip().lower()
        if not q.startswith(("e:", "set:")):
            return 422, _error(422, "bad_request", f"this fake only answers e:CODE, not {q!r}")
        cards = self.cards.get(q.split(":", 1)[1], [])
        if not cards:
            return 404, _error(404, "not_found", "Your query didn’t match any cards.")
        page = int(query.get("page", ["1"])[0])
        chunk = cards[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
        body: dict[str, Any] = {
            "object": "list", "total_cards": len(cards), "has_more": page * PAGE_SIZE < len(cards),
            "data": chunk,
        }
        if body["has_more"]:
            nxt = {k: v[0] for k, v in query.items()} | {"page": str(page + 1)}
            body["next_page"] = f"{self.url}/cards/search?{urlencode(nxt)}"
        return 200, body

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode("utf-8")
        h.send_response(status)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    def _send_bulk(self, h: BaseHTTPRequestHandler) -> None:
        data = self.bulk_file()
        gz = self.gzip_bulk and "gzip" in h.headers.get("Accept-Encoding", "")
        if gz:
            data = gzip.compress(data, compresslevel=1)
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        if gz:
            h.send_header("Content-Encoding", "gzip")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)


if __name__ == "__main__":  # a server for manual runs: python tests/scryfall_server.py
    with FakeScryfall() as server:
        print(server.url, flush=True)
        threading.Event().wait()
