"""The MTGJSON client: per-set files ``{MTGJSON_API_URL}/{CODE}.json.gz``; it only fetches.

The transport is the shared HTTP layer (``pipeline.http``: User-Agent, pacing, bounded
retries and waits, deadline, no other hosts, no ``.part`` left behind). Importing what it
fetched is ``pipeline.mtgjson``'s job.
"""

from __future__ import annotations

import gzip
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests

from boosterkit import config
from boosterkit.errors import FetchError
from boosterkit.pipeline.files import GZIP_MAGIC
from boosterkit.pipeline.http import HttpClient

_RESERVED = {
    "CON",
    "PRN",
    "AUX",
    "NUL",
    *(f"COM{i}" for i in range(10)),
    *(f"LPT{i}" for i in range(10)),
}


class MtgjsonClient(HttpClient):
    """Fetches MTGJSON v5 set files, one request at a time."""

    service = "MTGJSON"
    env_var = "MTGJSON_API_URL"

    def __init__(
        self,
        base_url: str | None = None,
        *,
        session: requests.Session | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        **kw: Any,
    ) -> None:
        super().__init__(
            base_url or config.mtgjson_url(), session=session, sleep=sleep, clock=clock, **kw
        )

    def set_url(self, code: str) -> str:
        """Where MTGJSON keeps a set's file (upper-case code, as MTGJSON names them).

        Codes that are reserved file names on Windows get a ``_`` (Conflux: ``CON_.json.gz``).
        """
        name = code.upper()
        return f"{self.base_url}/{name + '_' if name in _RESERVED else name}.json.gz"

    def set_file(
        self, code: str, dest: Path, progress: Callable[[int, int | None], None] | None = None
    ) -> Path | None:
        """Download ``CODE.json.gz`` to ``dest`` (checked to be whole gzip); None on a 404.

        A set file is one fetch: the fetch deadline (not the bulk-download one) bounds it.
        """
        url = self.set_url(code)
        got = self.download(
            url, dest, progress, decode=True, missing_ok=True, deadline=self.deadline
        )
        if got is None:
            return None
        with open(got, "rb") as f:
            head = f.read(64)
        if (
            head[:2] != GZIP_MAGIC
        ):  # a server that decompressed it on the way: JSON is checked at load
            if head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{":
                return got
            got.unlink(missing_ok=True)
            shown = head[:20].decode("utf-8", "replace")
            raise FetchError(f"GET {url}: not an MTGJSON file (neither gzip nor JSON: {shown!r}…)")
        try:
            with gzip.open(got, "rb") as f:
                while f.read(1 << 20):
                    pass
        except (OSError, EOFError, zlib.error) as exc:
            got.unlink(missing_ok=True)
            raise FetchError(f"GET {url}: not a whole gzip file ({exc}); try again later") from None
        return got
