"""A fake MTGJSON on 127.0.0.1: ``/api/v5/{CODE}.json.gz`` from folders of real-format files.

    with FakeMtgjson(roots=(FIXTURES, shared_path("mtgjson"))) as mj:   # mj.url → ".../api/v5"
        monkeypatch.setenv("MTGJSON_API_URL", mj.url)

``CODE.json`` (or ``CODE.json.gz``) in the first root that has it is served gzip-compressed,
as MTGJSON serves its per-set files (``application/gzip``, no transfer encoding); a code
with no file answers 404 with MTGJSON's HTML-ish body. Faults, delay and the request log
are ``fake_upstream.FakeServer``'s.
"""

from __future__ import annotations

import gzip
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from fake_upstream import Answer, FakeServer, Fault, Logged

PREFIX = "/api/v5"
_FILE = re.compile(r"^/api/v5/([A-Za-z0-9_]+)\.json\.gz$")


@dataclass
class FakeMtgjson(FakeServer):
    """The server; start with ``with`` or ``start()``. No roots: every file is a 404."""

    roots: tuple[Path, ...] = ()
    delay: float = 0.0
    faults: list[int | Fault] = field(default_factory=list)
    requests: list[Logged] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._init_server()

    @property
    def url(self) -> str:
        return self.origin + PREFIX

    def file_bytes(self, code: str) -> bytes | None:
        """The gzip-compressed file served for ``code`` (None: a 404)."""
        for root in self.roots:
            gz, plain = root / f"{code}.json.gz", root / f"{code}.json"
            if gz.is_file():
                return gz.read_bytes()
            if plain.is_file():
                return gzip.compress(plain.read_bytes(), compresslevel=1, mtime=0)
        return None

    def served(self) -> list[str]:
        """The codes asked for, in order."""
        return [m.group(1) for r in self.requests if (m := _FILE.match(r.path))]

    def route(self, h: BaseHTTPRequestHandler, path: str, query: dict[str, list[str]]) -> Answer:
        m = _FILE.match(path)
        data = self.file_bytes(m.group(1)) if m and m.group(1).isupper() else None
        if data is None:
            return Answer(
                404, b"<html><body>404 Not Found</body></html>", {"Content-Type": "text/html"}
            )
        return Answer(200, data, {"Content-Type": "application/gzip"})


if __name__ == "__main__":  # a server for manual runs: python tests/mtgjson_server.py FOLDER…
    import sys

    with FakeMtgjson(roots=tuple(Path(p) for p in sys.argv[1:])) as server:
        print(server.url, flush=True)
        threading.Event().wait()
