"""The cache folder next to the database: every fetched or imported file, gzip-compressed.

Paths recorded in ``sync_runs.cache_files`` are relative to the cache folder, so
``boosterkit db rebuild`` can replay every load without the network.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

try:  # ISA-L's gzip is ~5x faster than zlib at the same ratio: a 450 MB bulk file in ~1 s
    from isal import igzip as _fastgzip
except ImportError:  # pragma: no cover - isal is a dependency; plain zlib still works
    _fastgzip = gzip

_CHUNK = 1 << 20


def store_file(cache: Path, src: Path, rel: str) -> str:
    """Copy ``src`` into ``cache/rel`` gzip-compressed (kept as is if already gzip); return rel."""
    if not rel.endswith(".gz"):
        rel += ".gz"
    dest = cache / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    with open(src, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
        f.seek(0)
        if gz:
            with open(tmp, "wb") as out:
                shutil.copyfileobj(f, out, _CHUNK)
        else:
            with _fastgzip.open(tmp, "wb", compresslevel=1) as out:
                shutil.copyfileobj(f, out, _CHUNK)
    tmp.replace(dest)
    return rel


def store_bytes(cache: Path, data: bytes, rel: str) -> str:
    """Write ``data`` to ``cache/rel`` gzip-compressed; return rel."""
    if not rel.endswith(".gz"):
        rel += ".gz"
    dest = cache / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    with gzip.open(tmp, "wb", compresslevel=6) as out:
        out.write(data)
    tmp.replace(dest)
    return rel


def resolve(cache: Path, rel: str) -> Path:
    """The absolute path of a cached file."""
    return cache / rel
