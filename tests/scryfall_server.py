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

``extra`` folders add ``*.unique-cards.json`` (fixtures) to the shared cards.

``api.requests`` logs every request (path, query, headers, monotonic time). ``api.faults``
is a list of faults answered (and popped) before the real answer: ``[429, 503]``, stalls,
truncated bodies (``fake_upstream.Fault``). ``api.delay`` sleeps before each answer (seconds).
"""

from __future__ import annotations

import gzip
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fake_upstream import Answer, FakeServer, Fault, Logged, error_object, json_answer

__all__ = ["FakeScryfall", "Fault", "Logged"]

SCRYFALL = Path(__file__).resolve().parents[2] / "shared" / "scryfall"
PAGE_SIZE = 175


def _load_cards(*folders: Path) -> dict[str, list[dict[str, Any]]]:
    by_set: dict[str, list[dict[str, Any]]] = {}
    for folder in folders:
        for f in sorted(folder.glob("*.unique-cards.json")):
            for card in json.loads(f.read_text(encoding="utf-8")):
                by_set.setdefault(card["set"].lower(), []).append(card)
    return by_set


@dataclass
class FakeScryfall(FakeServer):
    """The server; start with ``with`` or ``start()``."""

    root: Path = SCRYFALL
    bulk_updated_at: str = "2024-01-01T10:00:00.000+00:00"
    delay: float = 0.0
    gzip_bulk: bool = True
    faults: list[int | Fault] = field(default_factory=list)
    requests: list[Logged] = field(default_factory=list)
    extra: tuple[Path, ...] = ()

    def __post_init__(self) -> None:
        self.sets = json.loads((self.root / "sets" / "sets.json").read_text(encoding="utf-8"))
        self.cards = _load_cards(self.root / "cards", *self.extra)
        self._init_server()

    @property
    def url(self) -> str:
        return self.origin

    def bulk_file(self) -> bytes:
        """The default_cards download: every shared card, as one JSON array."""
        return json.dumps([c for cards in self.cards.values() for c in cards]).encode("utf-8")

    # --- request handling -------------------------------------------------------------

    def route(self, h: BaseHTTPRequestHandler, path: str, query: dict[str, list[str]]) -> Answer:
        if path == "/bulk/default_cards.json":
            return self._bulk(h)
        status, body = self._route(path, query)
        return json_answer(status, body)

    def _route(self, path: str, query: dict[str, list[str]]) -> tuple[int, dict[str, Any]]:
        if path == "/sets":
            return 200, self.sets
        if path.startswith("/sets/"):
            code = path.removeprefix("/sets/").lower()
            for s in self.sets["data"]:
                if s["code"] == code:
                    return 200, s
            return 404, error_object(
                404, "not_found", f"No Magic set found for the given code “{code}”."
            )
        if path == "/cards/search":
            return self._search(query)
        if path == "/bulk-data":
            entry = {
                "object": "bulk_data",
                "type": "default_cards",
                "name": "Default Cards",
                "updated_at": self.bulk_updated_at,
                "content_type": "application/json",
                "content_encoding": "gzip",
                "download_uri": f"{self.url}/bulk/default_cards.json",
            }
            return 200, {"object": "list", "has_more": False, "data": [entry]}
        return 404, error_object(404, "not_found", f"No route for {path}")

    def _search(self, query: dict[str, list[str]]) -> tuple[int, dict[str, Any]]:
        q = query.get("q", [""])[0].strip().lower()
        if not q.startswith(("e:", "set:")):
            return 422, error_object(
                422, "bad_request", f"this fake only answers e:CODE, not {q!r}"
            )
        cards = self.cards.get(q.split(":", 1)[1], [])
        if not cards:
            return 404, error_object(404, "not_found", "Your query didn’t match any cards.")
        page = int(query.get("page", ["1"])[0])
        chunk = cards[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
        body: dict[str, Any] = {
            "object": "list",
            "total_cards": len(cards),
            "has_more": page * PAGE_SIZE < len(cards),
            "data": chunk,
        }
        if body["has_more"]:
            nxt = {k: v[0] for k, v in query.items()} | {"page": str(page + 1)}
            body["next_page"] = f"{self.url}/cards/search?{urlencode(nxt)}"
        return 200, body

    def _bulk(self, h: BaseHTTPRequestHandler) -> Answer:
        data = self.bulk_file()
        gz = self.gzip_bulk and "gzip" in h.headers.get("Accept-Encoding", "")
        if gz:
            data = gzip.compress(data, compresslevel=1)
        return Answer(
            200,
            data,
            {"Content-Type": "application/json", **({"Content-Encoding": "gzip"} if gz else {})},
        )


if __name__ == "__main__":  # a server for manual runs: python tests/scryfall_server.py
    with FakeScryfall() as server:
        print(server.url, flush=True)
        threading.Event().wait()
