"""The one HTTP transport to Scryfall: polite, paced, retrying; it only fetches.

- Base URL from ``config.api_url()``; ``next_page`` and ``download_uri`` are followed as given.
- Every request sends ``User-Agent: config.USER_AGENT`` and ``Accept: application/json``.
- Pacing: at least 100 ms between requests, 500 ms between ``/cards/search`` requests.
- 429: wait ``Retry-After`` (else 30 s) and retry; 5xx and connection errors: bounded
  retries with exponential back-off; then a ``FetchError``.
- A Scryfall error object becomes one ``FetchError`` line with its ``details``; a search
  answering 404 ``not_found`` yields no pages (0 cards).

``sleep`` and ``clock`` are injectable so tests run without waiting.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import requests

from boosterkit import config
from boosterkit.errors import FetchError

MIN_INTERVAL = 0.1
SEARCH_INTERVAL = 0.5
DEFAULT_RETRY_AFTER = 30.0
_CHUNK = 1 << 20
_BAD_URL = (requests.exceptions.MissingSchema, requests.exceptions.InvalidSchema,
            requests.exceptions.InvalidURL)


class ScryfallClient:
    """Fetches JSON and files from Scryfall, one request at a time."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        session: requests.Session | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        max_retries: int = 4,
        backoff: float = 1.0,
        timeout: float = 60.0,
    ) -> None:
        self.base_url = (base_url or config.api_url()).rstrip("/")
        self.session = session or requests.Session()
        self.session.headers.update({"User-Agent": config.USER_AGENT, "Accept": "application/json"})
        self.sleep, self.clock = sleep, clock
        self.max_retries, self.backoff, self.timeout = max_retries, backoff, timeout
        self._last: float | None = None
        self._last_search: float | None = None
        self.requests = 0

    def url(self, path_or_url: str) -> str:
        """An absolute URL: given URLs are kept as is, paths are joined to the base URL."""
        if path_or_url.startswith(("http://", "https://")):
            return path_or_url
        return f"{self.base_url}/{path_or_url.lstrip('/')}"

    def _pace(self, url: str) -> None:
        now = self.clock()
        waits = [0.0]
        if self._last is not None:
            waits.append(self._last + MIN_INTERVAL - now)
        is_search = "/cards/search" in url
        if is_search and self._last_search is not None:
            waits.append(self._last_search + SEARCH_INTERVAL - now)
        wait = max(waits)
        if wait > 0:
            self.sleep(wait)
        self._last = self.clock()
        if is_search:
            self._last_search = self._last

    def request(self, path_or_url: str, params: dict[str, Any] | None = None, *, stream: bool = False) -> requests.Response:
        """GET with pacing and retries; returns the final response (any status below 500 but 429)."""
        url = self.url(path_or_url)
        for attempt in range(self.max_retries + 1):
            self._pace(url)
            self.requests += 1
            try:
                resp = self.session.get(url, params=params, timeout=self.timeout, stream=stream)
            except _BAD_URL as exc:  # retrying cannot help: say so at once
                raise FetchError(f"GET {url}: not a usable URL ({exc}); check SCRYFALL_API_URL") from None
            except requests.RequestException as exc:
                problem, delay = f"{type(exc).__name__}: {exc}", self.backoff * 2**attempt
            else:
                if resp.status_code == 429:
                    problem, delay = "HTTP 429 Too Many Requests", _retry_after(resp)
                elif resp.status_code >= 500:
                    problem, delay = f"HTTP {resp.status_code}", self.backoff * 2**attempt
                else:
                    return resp
                resp.close()
            if attempt < self.max_retries:
                self.sleep(delay)
        raise FetchError(f"GET {url}: {problem} (gave up after {self.max_retries + 1} attempts)")

    def get_json(self, path_or_url: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The decoded JSON object; Scryfall error objects and non-JSON answers raise FetchError."""
        resp = self.request(path_or_url, params)
        try:
            data = resp.json()
        except ValueError:
            raise FetchError(f"GET {resp.url}: HTTP {resp.status_code}, not JSON") from None
        if not isinstance(data, dict):
            raise FetchError(f"GET {resp.url}: expected a JSON object, got {type(data).__name__}")
        if data.get("object") == "error" or resp.status_code >= 400:
            raise ScryfallAPIError(resp.url, resp.status_code, data)
        return data

    def pages(self, path_or_url: str, params: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """Every page of a list object, following ``next_page`` as given."""
        page = self.get_json(path_or_url, params)
        yield page
        while page.get("has_more") and page.get("next_page"):
            page = self.get_json(page["next_page"])
            yield page

    def search_pages(self, query: str, **params: Any) -> Iterator[dict[str, Any]]:
        """Pages of ``/cards/search``; none when Scryfall answers 404 ``not_found``."""
        try:
            yield from self.pages("/cards/search", {"q": query, **params})
        except ScryfallAPIError as exc:
            if exc.status == 404 and exc.code == "not_found":
                return
            raise

    def download(self, url: str, dest: Path, progress: Callable[[int, int | None], None] | None = None) -> Path:
        """Stream ``url`` to ``dest`` as sent (gzip transfer encoding kept); return ``dest``."""
        resp = self.request(url, stream=True)
        if resp.status_code >= 400:
            resp.close()
            raise FetchError(f"GET {resp.url}: HTTP {resp.status_code}")
        total = resp.headers.get("Content-Length")
        done = 0
        dest.parent.mkdir(parents=True, exist_ok=True)
        part = dest.with_name(dest.name + ".part")
        try:
            with resp, open(part, "wb") as out:
                while chunk := resp.raw.read(_CHUNK, decode_content=False):
                    out.write(chunk)
                    done += len(chunk)
                    if progress:
                        progress(done, int(total) if total else None)
        except (OSError, requests.RequestException) as exc:
            part.unlink(missing_ok=True)
            raise FetchError(f"GET {url}: download failed: {exc}") from None
        part.replace(dest)
        return dest


class ScryfallAPIError(FetchError):
    """A Scryfall error object (``"object": "error"``) or an HTTP 4xx answer."""

    def __init__(self, url: str, status: int, data: dict[str, Any]) -> None:
        self.url, self.status = url, int(data.get("status") or status)
        self.code = str(data.get("code") or "http_error")
        self.details = str(data.get("details") or f"HTTP {status}")
        super().__init__(f"GET {url}: Scryfall {self.status} {self.code}: {self.details}")


def _retry_after(resp: requests.Response) -> float:
    value = resp.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else DEFAULT_RETRY_AFTER
    except ValueError:
        return DEFAULT_RETRY_AFTER
