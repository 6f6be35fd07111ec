"""The one HTTP layer for every upstream (Scryfall, MTGJSON): polite, paced, bounded; it only fetches.

Rules every client inherits (see docs/limits.md, "Fetch limits"):

- ``User-Agent: config.USER_AGENT`` on every request; at least ``min_interval`` between
  requests, and longer for paths named in ``intervals``.
- 429: wait ``Retry-After`` (seconds or an HTTP date; absent or unparsable → 30 s), capped
  at ``MAX_RETRY_AFTER`` (120 s). 5xx, connection errors, stalls and truncated bodies:
  bounded retries with exponential back-off. Then one ``FetchError`` line.
- Every fetch (one GET with its retries, waits and body) is bounded by a deadline
  (``config.fetch_deadline()``, 300 s; a download by ``config.download_deadline()``), and
  a run of fetches may be bounded as a whole (``bound_all``: ``sync SET`` uses
  ``config.sync_deadline()``, 1800 s).
- Links (redirects, ``next_page``, ``download_uri``) are followed only to the base URL's
  origin and the ``extra_origins`` the client allows; anything else is an error naming it.
- An API answer read into memory is at most 64 MB; a download goes through ``DEST.part``,
  which is removed whatever stops it.

``sleep`` and ``clock`` are injectable so tests run without waiting; ``on_wait`` receives a
one-line description of every wait — for an answer or before a retry (the CLI's progress line).
"""

from __future__ import annotations

import email.utils
import math
import re
import socket
import time
import zlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
import urllib3

from boosterkit import config
from boosterkit.errors import FetchError, TransientError, UnreachableError, one_line
from boosterkit.safefiles import create_exclusive, make_folders

MIN_INTERVAL = 0.1
DEFAULT_RETRY_AFTER = 30.0
MAX_RETRY_AFTER = 120.0
MAX_REDIRECTS = 5
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
#: An API answer read into memory (a page, a set object); files are streamed to disk instead.
MAX_ANSWER_BYTES = 64 << 20
_CHUNK = 1 << 20
_BAD_URL = (
    requests.exceptions.MissingSchema,
    requests.exceptions.InvalidSchema,
    requests.exceptions.InvalidURL,
)
#: Errors while reading a body (a stall, a connection cut short): worth another attempt.
_BODY_ERRORS = (
    requests.RequestException,
    urllib3.exceptions.HTTPError,
    OSError,
    EOFError,
    zlib.error,
)


def origin(url: str) -> str:
    """``scheme://host[:port]`` of a URL, lower-case: what a link may point to."""
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


class Gone(Exception):
    """Internal: an attempt failed in a way another attempt may fix (``delay`` before it);
    ``unreachable``: no connection was made (the line to say if no attempt makes one)."""

    def __init__(self, problem: str, delay: float, unreachable: str | None = None) -> None:
        super().__init__(problem)
        self.problem, self.delay, self.unreachable = problem, delay, unreachable


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and what it wraps (causes, contexts, urllib3's ``reason``, exceptions in args)."""
    seen: list[BaseException] = []
    stack: list[object] = [exc]
    while stack and len(seen) < 32:
        e = stack.pop()
        if not isinstance(e, BaseException) or any(e is s for s in seen):
            continue
        seen.append(e)
        stack += [getattr(e, "reason", None), e.__cause__, e.__context__, *e.args]
    return seen


def _unresolvable(exc: BaseException) -> bool:
    """The host's name did not resolve (no network, no DNS, or a mistyped host)."""
    kinds: tuple[type[BaseException], ...] = (socket.gaierror,)
    name_error = getattr(urllib3.exceptions, "NameResolutionError", None)
    if name_error is not None:
        kinds += (name_error,)
    return any(isinstance(e, kinds) for e in _chain(exc))


class HttpClient:
    """GETs to one upstream, one at a time; see the module docstring for the rules."""

    service = "HTTP"
    env_var = "the base URL"
    #: What to do when the host cannot be reached (after the host's name, in one line).
    offline_hint = ""

    def __init__(
        self,
        base_url: str,
        *,
        extra_origins: Iterable[str] = (),
        session: requests.Session | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        max_retries: int = 4,
        backoff: float = 1.0,
        timeout: float = 60.0,
        deadline: float | None = None,
        download_deadline: float | None = None,
        min_interval: float = MIN_INTERVAL,
        intervals: Mapping[str, float] | None = None,
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.origins = {origin(self.base_url), *(origin(o) for o in extra_origins)}
        self.session = session or requests.Session()
        self.session.headers.update({"User-Agent": config.USER_AGENT})
        self.sleep, self.clock, self.on_wait = sleep, clock, on_wait
        self.max_retries, self.backoff, self.timeout = max_retries, backoff, timeout
        self.deadline = config.fetch_deadline() if deadline is None else deadline
        self.download_deadline = (
            config.download_deadline() if download_deadline is None else download_deadline
        )
        self.min_interval, self.intervals = min_interval, dict(intervals or {})
        self._last: float | None = None
        self._last_by: dict[str, float] = {}
        self.requests = 0
        #: (clock value, its name): a bound over many fetches (``bound_all``), or None
        self.overall: tuple[float, str] | None = None

    def bound_all(self, seconds: float, name: str, *others: HttpClient) -> None:
        """From now on, no fetch of this client (and ``others``) goes past ``seconds`` from now."""
        until = (self.clock() + seconds, f"{seconds:g} s {name}")
        for client in (self, *others):
            client.overall = until

    # --- URLs ---------------------------------------------------------------------------

    def url(self, path_or_url: str) -> str:
        """An absolute URL: given URLs are kept as is, paths are joined to the base URL."""
        if path_or_url.startswith(f"{self.base_url}/") or _SCHEME.match(path_or_url):
            return path_or_url  # (a base URL that is not http(s) fails once, named as given)
        return f"{self.base_url}/{path_or_url.lstrip('/')}"

    def check_url(self, url: str, via: str = "link") -> None:
        """A ``FetchError`` naming ``url`` unless it points to an allowed origin."""
        if origin(url) not in self.origins:
            allowed = ", ".join(sorted(self.origins))
            raise FetchError(
                f"{url}: not following a {via} to another host than {allowed} "
                f"({self.service} allows only these; set {self.env_var} to change)"
            )

    # --- pacing and waiting -------------------------------------------------------------

    def _pace(self, url: str) -> None:
        now = self.clock()
        waits = [0.0]
        if self._last is not None:
            waits.append(self._last + self.min_interval - now)
        keys = [k for k in self.intervals if k in url]
        waits += [self._last_by[k] + self.intervals[k] - now for k in keys if k in self._last_by]
        wait = max(waits)
        if wait > 0:
            self.sleep(wait)
        self._last = self.clock()
        for k in keys:
            self._last_by[k] = self._last

    def _wait(
        self, url: str, problem: str, delay: float, attempt: int, ends_at: float, label: str
    ) -> None:
        """Sleep ``delay`` before attempt ``attempt + 1``, unless that passes the deadline."""
        left = ends_at - self.clock()
        if left <= 0:
            raise TransientError(f"GET {url}: {problem}; gave up at the {label}")
        if delay >= left:
            raise TransientError(
                f"GET {url}: {problem}; waiting {delay:g} s more would pass the "
                f"{label} (gave up after {_attempts(attempt)})"
            )
        if self.on_wait:
            self.on_wait(
                f"waiting {delay:g} s to retry {_short(url)} ({problem}); attempt "
                f"{attempt + 1}/{self.max_retries + 1} next, deadline in {left:.0f} s"
            )
        self.sleep(delay)

    # --- requests -----------------------------------------------------------------------

    def _get(self, url: str, params: Mapping[str, Any] | None, timeout: float) -> requests.Response:
        """One GET, following redirects only to allowed origins."""
        for _ in range(MAX_REDIRECTS + 1):
            self.requests += 1
            try:
                resp = self.session.get(
                    url, params=params, timeout=timeout, stream=True, allow_redirects=False
                )
            except _BAD_URL as exc:  # retrying cannot help: say so at once
                raise FetchError(
                    f"GET {url}: not a usable URL ({exc}); check {self.env_var}"
                ) from None
            except requests.exceptions.SSLError as exc:
                raise Gone(f"{type(exc).__name__}: {one_line(exc)}", -1) from None
            except requests.ConnectionError as exc:
                problem = f"{type(exc).__name__}: {one_line(exc)}"
                if _unresolvable(exc):  # no network or no such host: retrying cannot help
                    why = "its name does not resolve: no network?"
                    raise UnreachableError(
                        self.unreachable(url, why), detail=f"GET {url}: {problem}"
                    ) from None
                raise Gone(problem, -1, self.unreachable(url, "no connection")) from None
            except requests.RequestException as exc:
                raise Gone(f"{type(exc).__name__}: {one_line(exc)}", -1) from None
            if not (resp.is_redirect and resp.headers.get("Location")):
                return resp
            resp.close()
            url, params = urljoin(resp.url, resp.headers["Location"]), None
            self.check_url(url, "redirect")
        raise FetchError(f"GET {url}: more than {MAX_REDIRECTS} redirects")

    def unreachable(self, url: str, why: str) -> str:
        """``cannot reach api.scryfall.com (why); <what to do>``: one line, no transport detail."""
        hint = f"; {self.offline_hint}" if self.offline_hint else ""
        return f"cannot reach {urlsplit(url).netloc} ({why}){hint}"

    def _attempts(
        self,
        url: str,
        params: Mapping[str, Any] | None,
        limit: float,
        consume: Callable[[requests.Response, float], Any],
        name: str = "fetch deadline",
    ) -> Any:
        """Attempts until ``consume(response, ends_at)`` returns; retries, waits, deadline."""
        ends_at, label = self.clock() + limit, f"{limit:g} s {name}"
        if self.overall is not None and self.overall[0] < ends_at:
            ends_at, label = self.overall
        problem, unreachable = "no answer", None
        for attempt in range(1, self.max_retries + 2):
            self._pace(url)
            left = ends_at - self.clock()
            if left <= 0:
                break
            if self.on_wait:
                self.on_wait(
                    f"waiting for {_short(url)} (attempt {attempt}/{self.max_retries + 1}, "
                    f"deadline in {left:.0f} s)"
                )
            try:
                resp = self._get(url, params, min(self.timeout, left))
                with resp:
                    status = resp.status_code
                    if status == 429:
                        raise Gone(
                            "HTTP 429 Too Many Requests" + _retry_note(resp), retry_after(resp)
                        )
                    if status >= 500:
                        raise Gone(f"HTTP {status}", -1)
                    return consume(resp, ends_at)
            except Gone as exc:
                problem, unreachable = exc.problem, exc.unreachable
                delay = exc.delay if exc.delay >= 0 else self.backoff * 2 ** (attempt - 1)
            if attempt <= self.max_retries:
                try:
                    self._wait(url, problem, delay, attempt, ends_at, label)
                except FetchError as exc:
                    if unreachable is None:
                        raise
                    raise UnreachableError(unreachable, detail=str(exc)) from None
        else:
            gave_up = f"GET {url}: {problem} (gave up after {_attempts(self.max_retries + 1)})"
            if unreachable is not None:
                raise UnreachableError(unreachable, detail=gave_up)
            raise TransientError(gave_up)
        gave_up = f"GET {url}: {problem}; gave up at the {label}"
        if unreachable is not None:
            raise UnreachableError(unreachable, detail=gave_up)
        raise TransientError(gave_up)

    def fetch(
        self, path_or_url: str, params: Mapping[str, Any] | None = None
    ) -> tuple[int, str, bytes]:
        """GET a whole body (status below 500 but 429): ``(status, final url, body)``."""
        url = self.url(path_or_url)
        self.check_url(url)

        def consume(resp: requests.Response, ends_at: float) -> tuple[int, str, bytes]:
            chunks, size = [], 0
            for chunk in _body(resp, decode=True):
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_ANSWER_BYTES:
                    raise FetchError(
                        f"GET {resp.url}: an answer of more than {MAX_ANSWER_BYTES / 2**20:g} MB "
                        f"is not an API page; stopped"
                    )
                if self.clock() > ends_at:
                    raise Gone("the body did not arrive in time", 0.0)
            return resp.status_code, resp.url, b"".join(chunks)

        got: tuple[int, str, bytes] = self._attempts(url, params, self.deadline, consume)
        return got

    def download(
        self,
        url: str,
        dest: Path,
        progress: Callable[[int, int | None], None] | None = None,
        *,
        decode: bool = False,
        missing_ok: bool = False,
        deadline: float | None = None,
    ) -> Path | None:
        """Stream ``url`` to ``dest`` through ``dest.part``; return ``dest``.

        ``decode=False`` keeps a gzip transfer encoding as sent (the file stays compressed);
        ``missing_ok`` turns a 404 into ``None``. Any other status from 400 is a FetchError.
        ``deadline`` bounds it all (default: the download deadline, meant for bulk files).
        """
        url = self.url(url)
        self.check_url(url, "download link")
        make_folders(dest.parent)
        part = dest.with_name(dest.name + ".part")

        def consume(resp: requests.Response, ends_at: float) -> Path | None:
            if resp.status_code == 404 and missing_ok:
                return None
            if resp.status_code >= 400:
                raise FetchError(f"GET {resp.url}: HTTP {resp.status_code}")
            total = resp.headers.get("Content-Length")
            done = 0
            try:
                with create_exclusive(part) as out:  # never through a planted symlink
                    for chunk in _body(resp, decode=decode):
                        out.write(chunk)
                        done += len(chunk)
                        if progress:
                            progress(done, int(total) if total and total.isdigit() else None)
                        if self.clock() > ends_at:
                            raise Gone(f"the download was not done in time ({done} bytes)", 0.0)
            except OSError as exc:  # the disk, not the network: no retry
                part.unlink(missing_ok=True)
                raise FetchError(
                    f"{part}: cannot write the download: {exc.strerror or exc}"
                ) from None
            except BaseException:
                part.unlink(missing_ok=True)
                raise
            part.replace(dest)
            return dest

        try:
            if deadline is not None:
                got: Path | None = self._attempts(url, None, deadline, consume)
                return got
            end: Path | None = self._attempts(
                url, None, self.download_deadline, consume, "download deadline"
            )
            return end
        finally:
            part.unlink(missing_ok=True)


def _body(resp: requests.Response, *, decode: bool) -> Iterable[bytes]:
    """The body in chunks; a stall or a body cut short is a retryable ``Gone``."""
    try:
        while chunk := resp.raw.read(_CHUNK, decode_content=decode):
            yield chunk
    except _BODY_ERRORS as exc:
        raise Gone(f"the body was cut short ({type(exc).__name__}: {one_line(exc)})", -1) from None


def retry_after(resp: requests.Response) -> float:
    """Seconds to wait after a 429: ``Retry-After`` capped at 120 s; unparsable → 30 s."""
    value = parse_retry_after(resp.headers.get("Retry-After"))
    return DEFAULT_RETRY_AFTER if value is None else min(value, MAX_RETRY_AFTER)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` as seconds (delta or HTTP date); None when absent or unparsable."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None or when.tzinfo is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


def _retry_note(resp: requests.Response) -> str:
    raw = resp.headers.get("Retry-After")
    if raw is None:
        return f" (no Retry-After: {DEFAULT_RETRY_AFTER:g} s)"
    value = parse_retry_after(raw)
    if value is None:
        return f" (Retry-After {raw[:40]!r} unreadable: {DEFAULT_RETRY_AFTER:g} s)"
    if value > MAX_RETRY_AFTER:
        return f" (Retry-After {value:g} s, capped at {MAX_RETRY_AFTER:g} s)"
    return ""


def _attempts(n: int) -> str:
    return f"{n} attempt{'' if n == 1 else 's'}"


def _short(url: str) -> str:
    parts = urlsplit(url)
    return parts.netloc + parts.path
