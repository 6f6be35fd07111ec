"""One big JSON array read by two DuckDB threads: the file given as two arrays.

DuckDB parses a JSON array file on one thread, but several files in parallel. A bulk file
holds one element per line (or is pretty-printed), so it can be cut at a line break
between two top-level elements near its middle; each half is copied in the kernel
(``os.copy_file_range``, two threads) to a temporary folder beside the database's cache and
framed as an array of its own. Rows come out in file order (DuckDB keeps the order of
files). The copies cost ~0.3 s of system CPU per 100,000 cards and save ~0.5 s of wall time
(``bench/ingest.py``); ``sync --file`` keeps them as its cache copy of the file (``keep``). (Named pipes would save the copy,
but DuckDB keeps everything it reads from a pipe in memory: 2.5 GB for 400,000 cards.)

Why a wrong cut is harmless: JSON strings cannot hold a raw line break, so a cut is always
between tokens; unless it is between top-level elements, one half has brackets left open or
closed twice and DuckDB rejects it. Callers read the file whole when DuckDB rejects a half
or the halves cannot be made (which also gives the usual error message for a malformed file).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from threading import Event

from boosterkit.safefiles import create_exclusive, make_folders

#: Files smaller than this are read whole: two threads do not pay for themselves.
MIN_BYTES = 8 << 20
#: Nor larger ones (measured on 2 cores, ``bench/ingest.py``): past ~1 GB the staged rows
#: span several row groups, DuckDB already uses both cores after the parse, and the copies
#: only add work (400,000 cards: 6.0 s read whole, 6.6–8.3 s in halves).
MAX_BYTES = 1 << 30
#: How far past the middle to look for a cut (a card object is a few kB).
_WINDOW = 4 << 20
#: How much one ``copy_file_range`` call copies (an interrupted copy stops after one).
_STEP = 64 << 20
#: A line break between two elements: ``}`` (``,``) break (indent) (``,``) ``{``.
_CUT = re.compile(rb"\}[ \t\r]*(,?)[ \t\r]*\n([ \t]*)(,?)[ \t]*\{")


def supported() -> bool:
    """Whether this platform copies file ranges in the kernel (``os.copy_file_range``)."""
    return hasattr(os, "copy_file_range")


def find_cut(path: Path) -> tuple[int, int] | None:
    """``(end, start)``: the first half is ``path[:end]``, the second ``path[start:]``.

    The cut is the least-indented element boundary in a window after the middle of the file
    (top-level elements of a pretty-printed array are the least indented); None if none.
    """
    size = path.stat().st_size
    with open(path, "rb") as f:
        f.seek(size // 2)
        window = f.read(_WINDOW)
    best: tuple[int, int, int] | None = None
    for m in _CUT.finditer(window):
        if bool(m.group(1)) == bool(m.group(3)):  # exactly one comma between the elements
            continue
        indent = len(m.group(2))
        if best is None or indent < best[0]:
            best = (indent, m.start() + 1, m.end() - 1)
            if indent == 0:
                break
    if best is None:
        return None
    return size // 2 + best[1], size // 2 + best[2]


def _copy(dest: str, src: str, start: int, end: int, head: bytes, tail: bytes, stop: Event) -> None:
    """Write ``head + src[start:end] + tail`` to ``dest`` (``copy_file_range``: in the kernel),
    in steps of ``_STEP`` so that ``stop`` (an interrupted sync) ends it soon."""
    with open(src, "rb") as fin, create_exclusive(Path(dest)) as out:
        out.write(head)
        out.flush()
        offset = start
        while offset < end and not stop.is_set():
            n = os.copy_file_range(fin.fileno(), out.fileno(), min(end - offset, _STEP), offset)
            if n == 0:  # the file shrank under us: the half is cut short and DuckDB rejects it
                break
            offset += n
        out.write(tail)


def keep(parts: list[str], dests: list[Path]) -> bool:
    """Move the halves out of their temporary folder to ``dests`` (in the same cache, so a
    rename); True when both moved. On a failure none is left at ``dests``."""
    try:
        for part, dest in zip(parts, dests):
            make_folders(dest.parent)
            os.replace(part, dest)
    except OSError:
        for dest in dests:
            dest.unlink(missing_ok=True)
        return False
    return True


@contextmanager
def halves(path: Path, where: Path) -> Iterator[list[str] | None]:
    """Two files in a temporary folder under ``where`` holding the elements of the JSON array
    file ``path`` as two arrays; removed on exit.

    Yields None when the file is small or very big, the platform lacks ``copy_file_range``,
    no cut is found or the copies cannot be written (a full disk): read the file whole then.
    """
    size = path.stat().st_size
    cut = find_cut(path) if supported() and MIN_BYTES <= size <= MAX_BYTES else None
    if cut is None:
        yield None
        return
    end, start = cut
    try:
        make_folders(where)
        folder = tempfile.TemporaryDirectory(
            prefix="halves-", suffix=".part", dir=where, ignore_cleanup_errors=True
        )
    except OSError:  # a read-only or full cache folder: the load's own copy will say so
        yield None
        return
    with folder as tmp:
        names = [os.path.join(tmp, "first.json"), os.path.join(tmp, "second.json")]
        parts = [(0, end, b"", b"\n]"), (start, size, b"[", b"")]
        stop = Event()
        with ThreadPoolExecutor(2, thread_name_prefix="halves") as pool:
            try:
                copies = [
                    pool.submit(_copy, n, str(path), *part, stop) for n, part in zip(names, parts)
                ]
                wait(copies)
            except BaseException:  # Ctrl-C: the copies stop within a step, the folder goes
                stop.set()
                raise
        if any(c.exception() for c in copies):  # a full disk, a file-size limit…
            yield None
        else:
            yield names
