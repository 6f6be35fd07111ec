"""Opening the files a user names: plain or gzip-compressed, told apart by their first bytes.

One place for the sniff and for the one-line errors of a missing or unreadable file, shared
by the Scryfall ingest, the MTGJSON and sealed-data imports and the cache.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from boosterkit.errors import InputError

GZIP_MAGIC = b"\x1f\x8b"


@contextmanager
def open_input(path: Path) -> Iterator[io.BufferedIOBase]:
    """``path`` opened for binary reading, decompressed when it is gzip (whatever its name).

    A missing or unreadable file (a directory, a device, no permission) is an ``InputError``
    naming it. Errors while reading (a truncated gzip stream) are left to the caller, who knows
    what the content should have been. ``isinstance(f, gzip.GzipFile)`` tells which it was.
    """
    try:
        with open(path, "rb") as head:
            if stat.S_ISCHR(os.fstat(head.fileno()).st_mode):  # /dev/zero would be read forever
                raise InputError(f"{path}: a device, not a file")
            gz = head.read(2) == GZIP_MAGIC
        f: io.BufferedIOBase = gzip.open(path, "rb") if gz else open(path, "rb")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    with f:
        yield f
