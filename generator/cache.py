"""Compiled products kept between calls, for callers that open packs again and again.

Resolving a product from the database and compiling it costs tens of milliseconds; drawing
a few packs from it costs about one. A ``ProductCache`` keeps the compiled products of
recent (set, product) pairs. It is valid for ONE database content: its owner calls
``clear()`` when the database may have changed, or ``track(file_stamp(path))`` to clear it
when the file's size or modification time changed (the service does so when it reopens the
file; the pytest plugin before each fixture call). It is safe to share between threads.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from boosterkit.generator import load_product
from boosterkit.generator.engine import CompiledProduct, compile_product

if TYPE_CHECKING:
    from boosterkit.generator import DbArg


def file_stamp(path: str | os.PathLike[str]) -> tuple[tuple[int, int], ...]:
    """(modification time, size) of a database file and its write-ahead log: it changes
    whenever a writer committed, so a cache keyed on it knows when to ``clear()``."""
    path = Path(path)
    stamp = []
    for p in (path, path.with_name(path.name + ".wal")):
        try:
            st = p.stat()
        except FileNotFoundError:
            continue
        stamp.append((st.st_mtime_ns, st.st_size))
    return tuple(stamp)


class ProductCache:
    """Compiled products by (set, product) for one database content, least recently used out."""

    def __init__(self, maxsize: int = 64) -> None:
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[str, str | None], CompiledProduct] = OrderedDict()
        self._generation = 0  # bumped by clear(): a resolve started before it is not kept
        self._pending: dict[tuple[str, str | None], threading.Lock] = {}
        self._stamp: object = None

    def get(self, set_code: str, product: str | None, db: DbArg) -> CompiledProduct:
        """The compiled product, resolved from ``db`` (as ``load_product`` takes it) on a miss.

        Concurrent misses on the same key resolve it once; the others wait for that result.
        """
        key = (set_code.lower(), product)
        with self._lock:
            hit = self._lookup(key)
            if hit is not None:
                return hit
            pending = self._pending.setdefault(key, threading.Lock())
        with pending:
            with self._lock:
                hit = self._lookup(key)
                if hit is not None:
                    return hit
                generation = self._generation
            try:
                compiled = compile_product(load_product(set_code, product, db))
            finally:
                with self._lock:
                    self._pending.pop(key, None)
            with self._lock:
                self.misses += 1
                if generation == self._generation:
                    self._items[key] = compiled
                    while len(self._items) > self.maxsize:
                        self._items.popitem(last=False)
        return compiled

    def _lookup(self, key: tuple[str, str | None]) -> CompiledProduct | None:
        """A cached product, counted as a hit (called with the lock held)."""
        hit = self._items.get(key)
        if hit is not None:
            self._items.move_to_end(key)
            self.hits += 1
        return hit

    def clear(self) -> None:
        """Forget every product (the database changed)."""
        with self._lock:
            self._items.clear()
            self._generation += 1

    def track(self, stamp: object) -> bool:
        """``clear()`` unless ``stamp`` (e.g. ``file_stamp(path)``) is the one last tracked;
        True when it cleared."""
        with self._lock:
            if stamp == self._stamp:
                return False
            self._stamp = stamp
            self._items.clear()
            self._generation += 1
            return True

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
