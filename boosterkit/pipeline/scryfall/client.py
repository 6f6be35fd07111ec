"""The Scryfall client: the shared HTTP layer (``pipeline.http``) plus Scryfall's rules; it only fetches.

- Base URL from ``config.api_url()``; ``next_page`` is followed only on that host, a bulk
  ``download_uri`` also on ``config.bulk_url()`` (``https://data.scryfall.io``).
- ``Accept: application/json``; at least 100 ms between requests, 500 ms between
  ``/cards/search`` requests (Scryfall's published limits).
- A Scryfall error object becomes one ``FetchError`` line with its ``details``; a search
  answering 404 ``not_found`` yields no pages (0 cards).
- Pagination stops with one line on a page seen before, or on pages past what
  ``total_cards`` allows.

Retries, waits, deadlines and downloads: see ``pipeline.http``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import requests

from boosterkit import config
from boosterkit.errors import FetchError
from boosterkit.pipeline.http import DEFAULT_RETRY_AFTER, MIN_INTERVAL, HttpClient

SEARCH_INTERVAL = 0.5
#: A list without ``total_cards`` (``/sets``, ``/bulk-data``) stops after this many pages.
MAX_PAGES = 1000

__all__ = [
    "DEFAULT_RETRY_AFTER",
    "MIN_INTERVAL",
    "SEARCH_INTERVAL",
    "ScryfallAPIError",
    "ScryfallClient",
]


class ScryfallClient(HttpClient):
    """Fetches JSON and files from Scryfall, one request at a time."""

    service = "Scryfall"
    env_var = "SCRYFALL_API_URL"
    offline_hint = (
        "offline, load files instead: `boosterkit sync --file FILE` or "
        "`boosterkit import mtgjson FILE…`"
    )

    def __init__(
        self,
        base_url: str | None = None,
        *,
        bulk_url: str | None = None,
        session: requests.Session | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        **kw: Any,
    ) -> None:
        super().__init__(
            base_url or config.api_url(),
            extra_origins=[bulk_url or config.bulk_url()],
            session=session,
            sleep=sleep,
            clock=clock,
            intervals={"/cards/search": SEARCH_INTERVAL},
            **kw,
        )
        self.session.headers.update({"Accept": "application/json"})

    def get_json(self, path_or_url: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The decoded JSON object; Scryfall error objects and non-JSON answers raise FetchError."""
        status, url, body = self.fetch(path_or_url, params)
        try:
            data = json.loads(body)
        except ValueError:
            raise FetchError(f"GET {url}: HTTP {status}, not JSON") from None
        if not isinstance(data, dict):
            raise FetchError(f"GET {url}: expected a JSON object, got {type(data).__name__}")
        if data.get("object") == "error" or status >= 400:
            raise ScryfallAPIError(url, status, data)
        return data

    def pages(
        self, path_or_url: str, params: dict[str, Any] | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every page of a list object, following ``next_page`` on the API's host.

        Stops with a ``FetchError`` on a ``next_page`` seen before, on a page with nothing
        that says there is more, past the items ``total_cards`` announces, or after
        ``MAX_PAGES`` pages.
        """
        first = self.url(path_or_url)
        page = self.get_json(first, params)
        seen, items = {first, requests.Request("GET", first, params=params).prepare().url}, 0
        while True:
            yield page
            items += len(page.get("data") or [])
            nxt = page.get("next_page")
            if not (page.get("has_more") and nxt):
                return
            total = page.get("total_cards")
            if nxt in seen:
                raise FetchError(f"GET {nxt}: next_page repeats an earlier page; stopped")
            if (isinstance(total, int) and items >= total) or not page.get("data"):
                raise FetchError(
                    f"GET {nxt}: Scryfall says there is more, but {items} items "
                    f"were already read (total_cards {total}); stopped"
                )
            if len(seen) > MAX_PAGES:
                raise FetchError(f"GET {nxt}: more than {MAX_PAGES} pages; stopped")
            self.check_url(nxt, "next_page link")
            seen.add(nxt)
            page = self.get_json(nxt)

    def search_pages(self, query: str, **params: Any) -> Iterator[dict[str, Any]]:
        """Pages of ``/cards/search``; none when Scryfall answers 404 ``not_found``."""
        try:
            yield from self.pages("/cards/search", {"q": query, **params})
        except ScryfallAPIError as exc:
            if exc.status == 404 and exc.code == "not_found":
                return
            raise


class ScryfallAPIError(FetchError):
    """A Scryfall error object (``"object": "error"``) or an HTTP 4xx answer."""

    def __init__(self, url: str, status: int, data: dict[str, Any]) -> None:
        self.url, self.status = url, int(data.get("status") or status)
        self.code = str(data.get("code") or "http_error")
        self.details = str(data.get("details") or f"HTTP {status}")
        super().__init__(f"GET {url}: Scryfall {self.status} {self.code}: {self.details}")
