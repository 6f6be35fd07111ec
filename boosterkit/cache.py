"""The cache of what is derived from a database's content (compiled products, card rows,
minigame texts, exact odds): kept in memory and as checksummed JSON files in
``<db>.cache/values/``, because deriving one costs tens of milliseconds and using it well
under one; a cache only saves time, so a bad file is rebuilt, never in the way.

Each value is keyed by what it was derived from: the content of the database file (its
stamp: inode, modification time and size of the file and of its write-ahead log, which
every committed write changes; its path; the hash of ``data/boosters/*.yaml`` and ``*.csv``;
the package and Python versions), the value's name and scope (a set and product, or the
database alone), the code that derives it (the source of ``build``'s module, or ``code``)
and its type's structure (``typedjson.shape``). A value derived from other data or by other
code is never served.

- ``Cache``: the values of many database contents in memory, least recently used out
  (the process has one, ``DEFAULT``; the service and the pytest plugin keep their own); a
  ``boosterkit.database.Database`` holds one.
- ``ContentCache`` (``Database.cached()``): one content's values, looked up once per call;
  ``value(name, tp, build, scope)`` gives one from memory, else its file, else ``build``
  (and keeps it).
- ``CacheFiles``: the files. A file is ``BKC1 <sha256 of the body>\\n<body>``, the body the
  value as JSON (``typedjson``): nothing in it can run when it is read, and a damaged,
  truncated or foreign file is ignored with one line on stderr (``errors.warn``) and made
  again. The folder is refused (``safefiles.UnsafeFolder``) when another user could write
  to it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import sys
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar

from boosterkit import __version__, typedjson
from boosterkit.data import DATA_DIR
from boosterkit.errors import warn
from boosterkit.safefiles import check_folder, create_exclusive, private_folder

T = TypeVar("T")


class Source(Protocol):
    """What the cache reads of a database (``boosterkit.database.Database`` is one): its
    file and content key, a connection to derive a value through, and whether the caller
    may wait for one (``may_wait``)."""

    def located(self) -> tuple[Path | None, str | None]: ...
    def read(self) -> AbstractContextManager[Any]: ...
    def may_wait(self) -> bool: ...


class WouldWait(Exception):  # noqa: N818  (not an error: a signal to the caller)
    """Raised where the caller asked not to wait (``Database.without_waiting``) by what
    would: a value not in memory (its file, or the database, to be read), a connection to
    the database. The caller does the work again where it may wait (the service: on a
    worker thread instead of its event loop)."""


#: What a value belongs to: (set, product), or nothing (the database alone).
Scope = tuple[str, ...] | tuple[str, str | None] | tuple[()]

__all__ = [
    "DEFAULT",
    "Cache",
    "CacheFiles",
    "ContentCache",
    "Scope",
    "content_key",
    "file_stamp",
    "source_hash",
]

HEADER = b"BKC1 "
_BOOSTERS = os.fspath(DATA_DIR / "boosters")
#: What an older boosterkit kept beside the database (sealed pickles): removed when seen.
_OLD = ("secret", "products", "kept")


def file_stamp(path: str | os.PathLike[str]) -> tuple[tuple[int, int, int], ...]:
    """(inode, modification time, size) of a database file and its write-ahead log: it
    changes whenever a writer committed, so a value keyed on it is rebuilt after."""
    name = os.fspath(path)
    stamp = []
    for p in (name, name + ".wal"):
        if p is not name and not os.access(p, os.F_OK):  # seldom there: no exception made
            continue
        try:
            st = os.stat(p)
        except FileNotFoundError:  # gone since
            continue
        stamp.append((st.st_ino, st.st_mtime_ns, st.st_size))
    return tuple(stamp)


@functools.cache
def _data_hash() -> str:
    """The hash of ``data/boosters/*.yaml`` and ``*.csv`` and the versions: read once per
    process, as the code is (the package's own files; a server reads them again when
    restarted, as it does its code)."""
    h = hashlib.sha256(f"{__version__} {sys.version_info[:2]}".encode())
    for name in _booster_files():
        h.update(name.encode() + b"\0" + Path(name).read_bytes())
    return h.hexdigest()


@functools.cache
def _booster_files() -> tuple[str, ...]:
    """The YAML and CSV files of ``data/boosters`` (listed once per process)."""
    return tuple(
        sorted(
            os.path.join(_BOOSTERS, n)
            for n in os.listdir(_BOOSTERS)
            if n.endswith((".yaml", ".csv"))
        )
    )


def content_key(path: Path) -> str | None:
    """The key of what the database file ``path`` holds now (None without a file): its
    stamp, path, the booster data's hash and the versions."""
    stamp = file_stamp(path)
    if not stamp:
        return None
    return _key((_data_hash(), _absolute(os.fspath(path)), stamp))


def _absolute(name: str) -> str:
    return _absolute_of(name) if os.path.isabs(name) else os.path.abspath(name)


@functools.lru_cache(maxsize=64)
def _absolute_of(name: str) -> str:
    """``os.path.abspath`` of an absolute path (it depends on nothing else)."""
    return os.path.abspath(name)


@functools.lru_cache(maxsize=1024)
def _key(parts: tuple[Any, ...]) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]


@functools.cache
def source_hash(*modules: str) -> str:
    """The hash of the sources of ``modules`` (a package: every module in its folder): the
    code a value is derived by."""
    h = hashlib.sha256()
    for name in modules:
        file = Path(sys.modules[name].__file__ or "")
        files = sorted(file.parent.glob("*.py")) if file.name == "__init__.py" else [file]
        for f in files:
            h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def _norm(scope: tuple[Any, ...]) -> tuple[str, ...]:
    return tuple((str(x).strip().lower() or "default") if x else "default" for x in scope)


class CacheFiles:
    """Values as files in a folder (``<database name>.cache/values``): one per name, scope
    and key; a value kept under a new key drops the older keys of its name and scope."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def beside(cls, database: Path) -> CacheFiles:
        from boosterkit.config import cache_dir  # config reads the environment: on first use

        return cls(cache_dir(database) / "values")

    @staticmethod
    def _prefix(name: str, scope: tuple[str, ...]) -> str:
        return ".".join(re.sub(r"[^a-z0-9-]+", "_", x.lower()) for x in (name, *scope)) + "."

    def path(self, name: str, scope: tuple[str, ...], key: str) -> Path:
        return self.folder / f"{self._prefix(name, scope)}{key}.json"

    def load(self, name: str, scope: tuple[str, ...], key: str, tp: Any) -> Any:
        """The value kept under ``key`` (of type ``tp``), or None: missing, or (with one
        line, ``errors.warn``) damaged, truncated or foreign, which is only a miss."""
        check_folder(self.folder.parent)
        check_folder(self.folder)
        path = self.path(name, scope, key)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return None
        except OSError as exc:
            return _ignored(path, exc.strerror or str(exc))
        head, _, body = data.partition(b"\n")
        if not head.startswith(HEADER) or head[len(HEADER) :] != _digest(body):
            return _ignored(path, "damaged, cut short or not boosterkit's")
        try:
            return typedjson.decode(json.loads(body), tp)
        except (ValueError, RecursionError) as exc:
            return _ignored(path, f"not a {name} ({exc})")

    def save(self, name: str, scope: tuple[str, ...], key: str, value: Any, tp: Any) -> None:
        """Keep ``value`` atomically and drop the older keys of ``name`` and ``scope``; a
        folder that cannot be written is no error (the value is derived again)."""
        prefix = self._prefix(name, scope)
        path = self.path(name, scope, key)
        try:
            body = json.dumps(typedjson.encode(value, tp), separators=(",", ":")).encode()
            private_folder(self.folder, self.folder.parent)
            _forget_old(self.folder.parent)
            _write(path, HEADER + _digest(body) + b"\n" + body)
            for old in self.folder.glob(f"{prefix}*.json"):
                if old != path and "." not in old.name[len(prefix) : -len(".json")]:
                    old.unlink(missing_ok=True)  # not a longer name's
        except OSError:
            pass


def _digest(body: bytes) -> bytes:
    return hashlib.sha256(body).hexdigest().encode()


def _ignored(path: Path, why: str) -> None:
    warn(f"{path}: a file of the cache is {why}; ignored, and made again")
    return None


def _write(path: Path, data: bytes) -> None:
    """``data`` to ``path`` atomically (a new temporary file per process and thread, never
    through a symlink, then a rename): a reader sees the old file or the new one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        with create_exclusive(tmp) as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _forget_old(root: Path) -> None:
    """Remove what an older boosterkit kept in ``root`` (its secret and sealed pickles)."""
    for name in _OLD:
        old = root / name
        if old.is_symlink() or old.is_file():
            old.unlink(missing_ok=True)
        elif old.is_dir():
            shutil.rmtree(old, ignore_errors=True)


class _Content:
    """What memory holds of one database content: values by (name, *scope), least recently
    used first."""

    __slots__ = ("values",)

    def __init__(self) -> None:
        self.values: OrderedDict[tuple[str, ...], Any] = OrderedDict()


class Counts(NamedTuple):
    """How often values were found in memory (``hits``), read from their file (``loads``) or
    derived (``misses``)."""

    hits: int
    loads: int
    misses: int


class Cache:
    """Values derived from databases, in memory (at most ``maxsize``, over every content;
    the least recently used out), backed by the files beside each database. Safe
    to share between threads; concurrent misses on one value derive it once.

    Values of a database without a file are kept by name and scope only when ``pathless``
    is true: their owner then calls ``clear()`` when the data may have changed.
    """

    def __init__(self, maxsize: int = 256, *, pathless: bool = True) -> None:
        self.maxsize = maxsize
        self.pathless = pathless
        self._counts: Counter[tuple[str, str]] = Counter()  # (name, how) -> count
        self._lock = threading.Lock()
        self._contents: OrderedDict[str | None, _Content] = OrderedDict()
        self._count = 0  # values held, over every content
        self._pending: dict[tuple[Any, ...], threading.Lock] = {}

    def counts(self, name: str | None = None) -> Counts:
        """How values named ``name`` (None: every value) were found so far."""
        with self._lock:
            got: Counter[str] = Counter()
            for (n, how), c in self._counts.items():
                if name in (None, n):
                    got[how] += c
        return Counts(got["hits"], got["loads"], got["misses"])

    @property
    def hits(self) -> int:
        return self.counts().hits

    @property
    def loads(self) -> int:
        return self.counts().loads

    @property
    def misses(self) -> int:
        return self.counts().misses

    def _tally(self, name: str, how: str) -> None:
        self._counts[(name, how)] += 1  # with the lock held

    def entry(self, database: Source) -> ContentCache:
        """The cache of ``database``'s content (its key computed once per session)."""
        path, key = database.located()
        if key is None and not self.pathless:
            return ContentCache(self, database, path, None, None)
        with self._lock:
            content = self._contents.get(key)
            if content is None:
                content = self._contents[key] = _Content()
                while len(self._contents) > self.maxsize:
                    self._count -= len(self._contents.popitem(last=False)[1].values)
            else:
                self._contents.move_to_end(key)
        return ContentCache(self, database, path, key, content)

    def clear(self) -> None:
        """Forget every value held in memory (the files stay: they are keyed by the file's
        content). A value being derived is not kept."""
        with self._lock:
            self._contents.clear()
            self._count = 0

    def __len__(self) -> int:
        with self._lock:
            return self._count

    def _trim(self) -> None:
        """Drop the least recently used values past ``maxsize`` (with the lock held)."""
        while self._count > self.maxsize:
            oldest = next(c for c in self._contents.values() if c.values)
            oldest.values.popitem(last=False)
            self._count -= 1

    def held(self, name: str) -> int:
        """How many values named ``name`` memory holds, over every content."""
        with self._lock:
            return sum(1 for c in self._contents.values() for k in c.values if k[0] == name)


class ContentCache:
    """The cache of one database content (``Cache.entry``): its values from memory, else
    from the files beside the database, else derived through the database's connection
    (and kept)."""

    def __init__(
        self,
        cache: Cache,
        database: Source,
        path: Path | None,
        key: str | None,
        content: _Content | None,
    ) -> None:
        self.cache, self.database, self.path, self.key = cache, database, path, key
        self._content = content

    @property
    def keeps(self) -> bool:
        """Whether values are kept (else every call derives)."""
        return self._content is not None

    def value(
        self,
        name: str,
        tp: Any,
        build: Callable[[Any], T],
        scope: Scope = (),
        *,
        reads: bool = True,
        code: str | None = None,
        also: Callable[[T], Scope] | None = None,
    ) -> T:
        """What ``build(connection)`` derives from the database, of type ``tp``: from
        memory, else its file, else built (and kept in both).

        ``scope``: (set, product) when the value belongs to that product, empty when it
        depends on the database alone. ``code``: what derives it (default: the source of
        ``build``'s module). ``reads`` False: ``build`` reads nothing of the database (it
        computes from another value) and gets None, no connection opened for it. ``also``:
        another scope the built value is kept under too (a product asked by kind, kept by
        its code)."""
        content = self._content
        if content is None:
            return self._built(build, reads)
        held = (name, *_norm(scope))
        with self.cache._lock:
            if held in content.values:
                hit: T = self._hit(held)
                return hit
            if not self.database.may_wait():
                raise WouldWait(name)
            pending = self.cache._pending.setdefault((self.key, *held), threading.Lock())
        with pending:
            try:
                with self.cache._lock:
                    if held in content.values:
                        again: T = self._hit(held)
                        return again
                code = code or source_hash(build.__module__)
                value, built = self._loaded_or_built(held, tp, build, reads, code)
                self._hold(held, value)
                if also is not None:
                    other = (name, *_norm(also(value)))
                    if other != held:
                        self._hold(other, value)
                        if built:
                            self._save(other, tp, code, value)
            finally:
                with self.cache._lock:
                    self.cache._pending.pop((self.key, *held), None)
        return value

    def _hit(self, held: tuple[str, ...]) -> Any:
        assert self._content is not None
        self._content.values.move_to_end(held)
        self.cache._tally(held[0], "hits")
        return self._content.values[held]

    def _files(self) -> CacheFiles | None:
        return CacheFiles.beside(self.path) if self.key and self.path else None

    def _file_key(self, held: tuple[str, ...], tp: Any, code: str) -> str:
        return _key((self.key, held, code, typedjson.shape(tp)))

    def _loaded_or_built(
        self, held: tuple[str, ...], tp: Any, build: Callable[[Any], T], reads: bool, code: str
    ) -> tuple[T, bool]:
        """The value from its file, else built (and saved), and whether it was built."""
        files = self._files()
        if files is not None:
            found = files.load(held[0], held[1:], self._file_key(held, tp, code), tp)
            if found is not None:
                with self.cache._lock:
                    self.cache._tally(held[0], "loads")
                loaded: T = found
                return loaded, False
        value = self._built(build, reads)
        with self.cache._lock:
            self.cache._tally(held[0], "misses")
        self._save(held, tp, code, value)
        return value, True

    def _save(self, held: tuple[str, ...], tp: Any, code: str, value: Any) -> None:
        files = self._files()
        if files is not None:
            files.save(held[0], held[1:], self._file_key(held, tp, code), value, tp)

    def _hold(self, held: tuple[str, ...], value: Any) -> None:
        """Keep ``value`` in memory, unless the content was cleared or dropped meanwhile."""
        content = self._content
        assert content is not None
        with self.cache._lock:
            if self.cache._contents.get(self.key) is content:
                self.cache._count += held not in content.values
                content.values[held] = value
                content.values.move_to_end(held)
                self.cache._trim()

    def _built(self, build: Callable[[Any], T], reads: bool) -> T:
        if not reads:
            return build(None)
        with self.database.read() as con:
            return build(con)


#: The process's own cache (keyed by database file and content; never by name and scope
#: alone, so different databases and changed data never share an entry).
DEFAULT = Cache(64, pathless=False)
