"""The cache folder next to the database: every fetched or imported file.

Pages, downloads and imports are kept gzip-compressed (a gzip file as sent). A file given
to ``sync --file`` is kept as given (``copy_file``: a copy in the kernel, no codec; or the
two halves ``pipeline.halves`` already copied): gzip of 475 MB of cards costs ~0.9 CPU-s
even with ISA-L at level 1 (zstd and lz4 cost more), a third of DuckDB's whole parse of
them; the kernel copy ~0.3 s of system time. The price is disk: the file's size, not ~15 %.
Paths recorded in ``sync_runs.cache_files`` are relative to the cache folder, so
``boosterkit db rebuild`` can replay every load without the network; it reads either kind.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import io
import os
import shutil
import types
from pathlib import Path
from typing import BinaryIO

from boosterkit.pipeline.files import GZIP_MAGIC
from boosterkit.safefiles import create_exclusive, make_folders

_fastgzip: types.ModuleType  # isal.igzip or gzip: the same open()
try:  # ISA-L's gzip is ~5x faster than zlib at the same ratio: a 450 MB bulk file in ~1 s
    from isal import igzip as _fastgzip
except ImportError:  # pragma: no cover - isal is a dependency; plain zlib still works
    _fastgzip = gzip

_CHUNK = 1 << 20


def store_file(cache: Path, src: Path, rel: str) -> str:
    """Copy ``src`` into ``cache/rel`` gzip-compressed (kept as is if already gzip); return rel."""
    with open(src, "rb") as f:
        return _store(cache, f, rel)


def store_bytes(cache: Path, data: bytes, rel: str) -> str:
    """Write ``data`` to ``cache/rel`` gzip-compressed; return rel."""
    return _store(cache, io.BytesIO(data), rel)


def store_imported(cache: Path, src: Path, folder: str) -> str:
    """Store an imported file as ``folder/<sha256 prefix>-<name>``: a changed file is a new copy."""
    h = hashlib.sha256()
    with open(src, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return store_file(cache, src, f"{folder}/{h.hexdigest()[:12]}-{src.name}")


def _store(cache: Path, f: BinaryIO, rel: str) -> str:
    """Write ``f`` to ``cache/rel`` (``.gz`` added) through a ``.part`` file; return rel."""
    if not rel.endswith(".gz"):
        rel += ".gz"
    dest = cache / rel
    make_folders(dest.parent)
    tmp = dest.with_name(dest.name + ".part")
    gz = f.read(2) == GZIP_MAGIC
    f.seek(0)
    try:
        with create_exclusive(tmp) as raw:  # a planted .part symlink is removed, not followed
            if gz:
                shutil.copyfileobj(f, raw, _CHUNK)
            else:
                with _fastgzip.open(raw, "wb", compresslevel=1) as out:
                    shutil.copyfileobj(f, out, _CHUNK)
        tmp.replace(dest)
    except BaseException:  # a full disk must not leave a big .part behind
        tmp.unlink(missing_ok=True)
        raise
    return rel


#: ``copy_file_range`` errors that mean "not here" (another filesystem, an old kernel…).
_NO_KERNEL_COPY = {errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.EBADF}


def _copy_bytes(fin: BinaryIO, out: BinaryIO) -> None:
    """All of ``fin`` to ``out``: in the kernel where it can (a reflink on a copy-on-write
    filesystem), else through a buffer."""
    offset, size = 0, os.fstat(fin.fileno()).st_size
    try:
        while offset < size:
            n = os.copy_file_range(fin.fileno(), out.fileno(), min(size - offset, 1 << 30), offset)
            if n == 0:
                break
            offset += n
    except (AttributeError, OSError) as exc:
        if offset or isinstance(exc, OSError) and exc.errno not in _NO_KERNEL_COPY:
            raise
    if offset < size:  # nothing copied yet (no kernel copy), or the file grew meanwhile
        fin.seek(offset)
        out.seek(offset)
        shutil.copyfileobj(fin, out, _CHUNK)


def copy_file(cache: Path, src: Path, rel: str) -> str:
    """Copy ``src`` into ``cache/rel`` byte for byte, through a ``.part`` file; return rel."""
    dest = cache / rel
    make_folders(dest.parent)
    tmp = dest.with_name(dest.name + ".part")
    try:
        with open(src, "rb") as fin, create_exclusive(tmp) as out:
            _copy_bytes(fin, out)
        tmp.replace(dest)
    except BaseException:  # a full disk must not leave a big .part behind
        tmp.unlink(missing_ok=True)
        raise
    return rel


#: Names of unfinished files: ``*.part`` (being written) and ``*.download`` (fetched, not yet stored).
PARTIAL = ("*.part", "*.download")


def remove_parts(cache: Path) -> int:
    """Remove the unfinished files (``PARTIAL``) a killed run left in the cache; return how many.

    Called before a sync fetches: the database is open for writing by then, so no other
    boosterkit process is writing into this cache.
    """
    n = 0
    if cache.is_dir():
        for pattern in PARTIAL:
            for p in list(cache.rglob(pattern)):
                if p.is_dir():  # the halves of a big file (``pipeline.halves``)
                    shutil.rmtree(p, ignore_errors=True)
                else:
                    p.unlink(missing_ok=True)
                n += 1
    return n


def resolve(cache: Path, rel: str) -> Path:
    """The absolute path of a cached file."""
    return cache / rel
