"""Opening the files a user names: plain or gzip-compressed, told apart by their first bytes.

One place for the sniff and for the one-line errors of a missing or unreadable file, shared
by the Scryfall ingest, the MTGJSON and sealed-data imports and the cache.
"""

from __future__ import annotations

import gzip
import io
import os
import select
import stat
import tempfile
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from boosterkit.errors import BoosterkitError, InputError

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


#: A gzip file expands to at most this many times its size (real card data: about 10).
MAX_GZIP_RATIO = 100
#: Past its first ``DENSE_AFTER`` bytes a file holds at most one JSON object (``{``) per this
#: many bytes (real Scryfall, MTGJSON and sealed data: one per 165 bytes or more): a file of
#: ``[{},{},…]`` would cost a row of every column per 3 bytes (64 MB: 3.9 GB of memory).
MIN_OBJECT_BYTES = 32
DENSE_AFTER = 1 << 20


def check_expansion(path: Path) -> None:
    """Refuse, in one line, a file that would cost far more memory than its size: a gzip
    stream past ``MAX_GZIP_RATIO`` times the file, or more than one object per
    ``MIN_OBJECT_BYTES`` bytes. One streaming pass, stopped at the first excess (ISA-L
    decompresses about 2 GB/s); nothing is kept in memory."""
    fastgzip: types.ModuleType
    try:  # ISA-L's gzip: about 2 GB/s, five times zlib
        from isal import igzip as fastgzip
    except ImportError:  # pragma: no cover - isal is a dependency
        fastgzip = gzip
    with open_input(path) as f:
        gz = isinstance(f, gzip.GzipFile)
    limit = max(DENSE_AFTER, MAX_GZIP_RATIO * path.stat().st_size) if gz else None
    seen = objects = 0
    opener = fastgzip.open if gz else open
    try:
        with opener(path, "rb") as stream:
            while chunk := stream.read(1 << 20):
                seen += len(chunk)
                objects += chunk.count(b"{")
                _check_sizes(path, seen, objects, limit)
    except (OSError, EOFError, ValueError):
        return  # a damaged stream: the reader that follows says what is wrong with it


def _check_sizes(path: Path, seen: int, objects: int, limit: int | None) -> None:
    if limit is not None and seen > limit:
        raise InputError(
            f"{path}: a gzip file that expands past {MAX_GZIP_RATIO} times its size "
            f"({limit:,} bytes; card data expands about 10 times): not read"
        )
    if seen > DENSE_AFTER and objects * MIN_OBJECT_BYTES > seen:
        raise InputError(
            f"{path}: {objects:,} JSON objects in its first {seen:,} bytes, more than one per "
            f"{MIN_OBJECT_BYTES} bytes (card data has one per 165 or more): not read, as it "
            "would take far more memory than its size"
        )


#: Seconds a pipe (a FIFO, ``/dev/stdin`` fed by ``cat``) may stay without a writer.
PIPE_WAIT = 10.0
#: The most a pipe is read into its temporary copy.
MAX_PIPE_BYTES = 4 << 30


@contextmanager
def readable(path: Path) -> Iterator[Path]:
    """``path``, or for a pipe (a FIFO, ``/dev/stdin`` fed by another command) a temporary
    copy of what it carries, read once: the readers open a file several times. A pipe whose
    writer does not come within ``PIPE_WAIT`` seconds is an ``InputError`` rather than a wait
    for ever; errors about the copy name ``path``. The copy is removed afterwards."""
    try:
        fifo = stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        fifo = False  # the reader says what is wrong with it
    if not fifo:
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="boosterkit-pipe-") as folder:
        copy = Path(folder) / (path.name or "stdin")
        _spool(path, copy)
        try:
            yield copy
        except BoosterkitError as exc:
            exc.args = tuple(str(a).replace(str(copy), str(path)) for a in exc.args)
            raise


def _spool(path: Path, copy: Path) -> None:
    """Copy what the pipe ``path`` carries into ``copy``, waiting ``PIPE_WAIT`` s for it."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO without a writer: no wait here
    try:
        poll = select.poll()
        poll.register(fd, select.POLLIN | select.POLLHUP)
        if not poll.poll(int(PIPE_WAIT * 1000)):
            raise InputError(
                f"{path}: a pipe that nothing wrote to in {PIPE_WAIT:g} s: start the command "
                f"that writes it first (`cat cards.json > {path}`), or give a file"
            )
        os.set_blocking(fd, True)
        with open(copy, "wb") as out:
            while chunk := os.read(fd, 1 << 20):
                out.write(chunk)
                if out.tell() > MAX_PIPE_BYTES:
                    raise InputError(
                        f"{path}: a pipe that carries more than {MAX_PIPE_BYTES >> 30} GiB: "
                        "write it to a file and give the file"
                    )
    finally:
        os.close(fd)
