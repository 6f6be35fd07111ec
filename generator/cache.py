"""Compiled products, kept: resolved from the database and compiled once per database content.

Resolving a product from the database and compiling it costs tens to hundreds of
milliseconds; drawing a few packs from it costs well under one. So a compiled product is
kept twice, both keyed by what it was built from:

- in memory, in a ``ProductCache`` (the process has one, ``DEFAULT``; the service and the
  pytest plugin keep their own);
- on disk beside the database file, in ``<name>.cache/products/`` (per set and product, a
  pickle of the full form and one of the lite form, ``generator.small``), so the next
  process loads it in milliseconds without opening the database (and, lite, without numpy).
  The folder is trusted like the database next to it.

Anything else computed from the database once per content (the rows a minigame's sheet and
``validate`` read for a product's cards, the minigame cards' rules texts) is kept the same way
with ``ProductCache.kept``, in ``<name>.cache/kept/``, keyed as the product it belongs to (or
the database alone) plus the source of the module that computes it.

The key is the database file's stamp (inode, modification time and size of the file and its
write-ahead log: every committed write changes it, whatever wrote it), the product asked
for, the hashes of ``data/boosters/*.yaml`` and ``*.csv``, and the code that compiles (the generator's
sources and the package version). A product built from other data is never served: a
changed card is in the next pack. Without a file (``:memory:`` databases) only a
``ProductCache`` whose owner clears it keeps products.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import re
import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from boosterkit import __version__
from boosterkit.data import DATA_DIR
from boosterkit.generator import small
from boosterkit.generator.model import ProductDef
from boosterkit.generator.small import LiteProduct

if TYPE_CHECKING:
    import duckdb

    from boosterkit.generator.engine import CompiledProduct

    Compiled = CompiledProduct | LiteProduct

    DbArg = str | os.PathLike[str] | duckdb.DuckDBPyConnection | None
    #: What a kept value belongs to: (set, product), or nothing (the database alone).
    Scope = tuple[()] | tuple[str, str | None]

T = TypeVar("T")
FORMAT = 1  # bump when the pickled CompiledProduct changes shape
_GENERATOR_DIR = Path(__file__).resolve().parent
_BOOSTERS = os.fspath(DATA_DIR / "boosters")
#: Every module of the generator: any change to how products compile or draw is a new key.
_SOURCES = tuple(sorted(p.name for p in _GENERATOR_DIR.glob("*.py")))

__all__ = [
    "DEFAULT",
    "KeptStore",
    "ProductCache",
    "ProductStore",
    "compiled_product",
    "file_stamp",
    "kept_key",
    "load_product",
    "product_key",
]


def load_product(set_code: str, product: str | None = None, db: DbArg = None) -> ProductDef:
    """The ``ProductDef`` of ``set_code``/``product``, resolved from the database ``db``.

    ``db`` is an open DuckDB connection, a path (opened read-only) or None for the
    configured database (``boosterkit.config.db_path()``). Always reads the database.
    """
    from boosterkit.generator.products import resolve_product

    if db is not None and not isinstance(db, (str, os.PathLike)):
        return resolve_product(db, set_code.lower(), product)
    from boosterkit import config
    from boosterkit.pipeline import db as dbmod

    con = dbmod.connect(config.db_path(db), read_only=True)
    try:
        return resolve_product(con, set_code.lower(), product)
    finally:
        con.close()


def file_stamp(path: str | os.PathLike[str]) -> tuple[tuple[int, int, int], ...]:
    """(inode, modification time, size) of a database file and its write-ahead log: it
    changes whenever a writer committed, so a product keyed on it is rebuilt after."""
    name = os.fspath(path)
    stamp = []
    for p in (name, name + ".wal"):
        try:
            st = os.stat(p)
        except FileNotFoundError:
            continue
        stamp.append((st.st_ino, st.st_mtime_ns, st.st_size))
    return tuple(stamp)


@functools.cache
def _code_hash() -> str:
    """What compiles products in this process: the generator's sources, versions (a pickle
    another numpy cannot read is only a miss)."""
    h = hashlib.sha256(f"{FORMAT} {__version__} {sys.version_info[:2]}".encode())
    for name in _SOURCES:
        h.update((_GENERATOR_DIR / name).read_bytes())
    return h.hexdigest()


@functools.lru_cache(maxsize=8)
def _data_hash_of(stats: tuple[tuple[str, int, int], ...]) -> str:
    h = hashlib.sha256()
    for name, _, _ in stats:
        h.update(name.encode() + b"\0" + Path(name).read_bytes())
    return h.hexdigest()


def _data_hash() -> str:
    """The hash of ``data/boosters/*.yaml`` and ``*.csv`` (re-read only when a file's stat changes)."""
    stats = []
    for name in _booster_files():
        st = os.stat(name)
        stats.append((name, st.st_mtime_ns, st.st_size))
    return _data_hash_of(tuple(stats))


@functools.cache
def _booster_files() -> tuple[str, ...]:
    """The YAML and CSV files of ``data/boosters`` (listed once per process; stat-ed every
    time): a changed rule or table is a new key."""
    return tuple(
        sorted(
            os.path.join(_BOOSTERS, n)
            for n in os.listdir(_BOOSTERS)
            if n.endswith((".yaml", ".csv"))
        )
    )


def _norm(set_code: str, product: str | None) -> tuple[str, str | None]:
    return set_code.strip().lower(), (product.strip().lower() or None) if product else None


def product_key(
    path: Path, set_code: str, product: str | None, content: tuple[Any, str] | None = None
) -> str | None:
    """The key of a compiled product of the database file ``path`` (None without a file).

    ``content``: the file's stamp and the booster data's hash when already read (see
    ``ProductCache.pinned``)."""
    stamp, data = content if content is not None else (file_stamp(path), _data_hash())
    if not stamp:
        return None
    return _key((_code_hash(), data, os.path.abspath(path), stamp, *_norm(set_code, product)))


@functools.lru_cache(maxsize=256)
def _key(parts: tuple[Any, ...]) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]


@functools.cache
def _module_hash(module: str) -> str:
    """The hash of a module's source: what a kept value was computed by."""
    return hashlib.sha256(Path(sys.modules[module].__file__ or "").read_bytes()).hexdigest()


def kept_key(
    path: Path,
    name: str,
    build: Callable[..., Any],
    scope: Scope,
    content: tuple[Any, str] | None = None,
) -> str | None:
    """The key of a value ``build`` computes from the database file ``path`` for ``scope``
    (a set and product: keyed as that product; empty: the database alone)."""
    set_code, product = scope if scope else ("", None)
    base = product_key(path, set_code, product, content=content)
    if base is None:
        return None
    return _key((base, name, _module_hash(build.__module__), scope))


def _read_pickle(path: Path) -> Any:
    """What a kept file holds, or None (missing, truncated or foreign: only a miss)."""
    try:
        with open(path, "rb") as f:
            return pickle.load(f)  # noqa: S301 (our own file, beside the user's database)
    except Exception:  # noqa: BLE001
        return None


def _write_pickle(path: Path, value: Any) -> None:
    """Write ``value`` to ``path`` atomically (a temporary file per process and thread,
    then a rename): a reader sees the old file or the new one, never half of one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        with open(tmp, "wb") as f:
            pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


class KeptStore:
    """Values computed from a database, as files in a folder (``<database name>.cache/kept``):
    one per name, scope and key; older keys of the same name and scope are dropped."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def beside(cls, database: Path) -> KeptStore:
        from boosterkit.config import cache_dir

        return cls(cache_dir(database) / "kept")

    @staticmethod
    def _prefix(name: str, scope: tuple[str | None, ...]) -> str:
        return (
            ".".join(re.sub(r"[^a-z0-9-]+", "_", (x or "default").lower()) for x in (name, *scope))
            + "."
        )

    def load(self, name: str, scope: tuple[str | None, ...], key: str) -> Any:
        """The value kept under ``key``, or None (missing or unreadable)."""
        return _read_pickle(self.folder / f"{self._prefix(name, scope)}{key}.pickle")

    def save(self, name: str, scope: tuple[str | None, ...], key: str, value: Any) -> None:
        """Keep ``value`` atomically (a folder that cannot be written is no error)."""
        prefix = self._prefix(name, scope)
        path = self.folder / f"{prefix}{key}.pickle"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            _write_pickle(path, value)
            for old in self.folder.glob(f"{prefix}*.pickle"):
                if old != path and "." not in old.name[len(prefix) : -len(".pickle")]:
                    old.unlink(missing_ok=True)
        except OSError:
            pass


class ProductStore:
    """Compiled products as files in a folder (``<database name>.cache/products``): per
    product and key, the full product (numpy tables) and its ``LiteProduct`` (plain tuples,
    loaded without numpy)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def beside(cls, database: Path) -> ProductStore:
        from boosterkit.config import cache_dir

        return cls(cache_dir(database) / "products")

    @staticmethod
    def _prefix(set_code: str, product: str | None) -> str:
        s, p = _norm(set_code, product)
        return ".".join(re.sub(r"[^a-z0-9-]+", "_", x) for x in (s, p or "default")) + "."

    def _path(self, set_code: str, product: str | None, key: str, lite: bool) -> Path:
        return (
            self.folder / f"{self._prefix(set_code, product)}{key}{'.lite' if lite else ''}.pickle"
        )

    def load(
        self, set_code: str, product: str | None, key: str, lite: bool = False
    ) -> Compiled | None:
        """The product stored under ``key`` (its lite form if ``lite``), or None (missing,
        unreadable or of other code)."""
        found = _read_pickle(self._path(set_code, product, key, lite))
        if lite:
            return found if isinstance(found, small.LiteProduct) else None
        from boosterkit.generator.engine import CompiledProduct

        return found if isinstance(found, CompiledProduct) else None

    def save(
        self,
        set_code: str,
        product: str | None,
        key: str,
        cp: CompiledProduct,
        lite: LiteProduct | None = None,
    ) -> None:
        """Store ``cp`` and its lite form (``lite``, else derived here) atomically and drop the
        same product's older files; a folder that cannot be written is no error (the product
        is compiled again)."""
        kept = {
            self._path(set_code, product, key, False): cp,
            self._path(set_code, product, key, True): lite if lite is not None else small.lite(cp),
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            for path, value in kept.items():
                _write_pickle(path, value)
            for old in self.folder.glob(f"{self._prefix(set_code, product)}*.pickle"):
                if old not in kept:
                    old.unlink(missing_ok=True)
        except OSError:
            pass


_PATHS: weakref.WeakKeyDictionary[Any, Path | None] = weakref.WeakKeyDictionary()
_PATHS_LOCK = threading.Lock()


def _connection_path(con: Any) -> Path | None:
    """The file of an open DuckDB connection (None for an in-memory one), asked once per
    connection."""
    with _PATHS_LOCK:
        if con in _PATHS:
            return _PATHS[con]
    try:
        row = con.execute(
            "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
        ).fetchone()
    except Exception:  # not a DuckDB connection we can ask  # noqa: BLE001
        return None
    path = Path(row[0]) if row and row[0] else None
    with _PATHS_LOCK:
        _PATHS[con] = path
    return path


class _Kept:
    """A product held in memory: the full form, the lite form, or both."""

    __slots__ = ("full", "lite")

    def __init__(self, full: CompiledProduct | None = None, lite: LiteProduct | None = None):
        self.full, self.lite = full, lite

    def form(self, lite: bool) -> Compiled | None:
        if lite and self.lite is None and self.full is not None:
            self.lite = small.lite(self.full)
        return self.lite if lite else self.full

    def made(self, lite: bool) -> Compiled:
        """``form(lite)`` of a product just built, which holds the form it was built for."""
        found = self.form(lite)
        if found is None:
            raise ValueError(f"a kept product without its {'lite' if lite else 'full'} form")
        return found

    def merge(self, other: _Kept) -> None:
        self.full = self.full or other.full
        self.lite = self.lite or other.lite

    def code(self) -> str:
        kept = self.full or self.lite
        if kept is None:
            raise ValueError("a kept product with neither form")
        return kept.product.code


class ProductCache:
    """Compiled products in memory, least recently used out, backed by the files beside the
    database. Safe to share between threads; concurrent misses on one key compile once.

    ``db_path``: the database file the products come from, when the caller passes open
    connections (saves asking the connection). ``connect``: how to read that database on a
    miss (a callable returning a context manager that yields a connection; the service's
    shared read-only cursor), instead of the ``db`` passed to ``get``. Products of a database
    without a file are kept by (set, product) only when ``pathless`` is true: their owner
    then calls ``clear()`` when the data may have changed.
    """

    def __init__(
        self,
        maxsize: int = 64,
        *,
        db_path: str | os.PathLike[str] | None = None,
        connect: Callable[[], AbstractContextManager[Any]] | None = None,
        pathless: bool = True,
    ) -> None:
        self.maxsize = maxsize
        self.db_path = Path(db_path) if db_path is not None else None
        self.connect = connect
        self.pathless = pathless
        self.hits = 0  # in memory
        self.loads = 0  # from the files beside the database
        self.misses = 0  # compiled
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[Any, ...], _Kept] = OrderedDict()
        self._values: OrderedDict[tuple[Any, ...], Any] = OrderedDict()  # see kept()
        self._generation = 0  # bumped by clear(): a compile started before it is not kept
        self._pending: dict[tuple[Any, ...], threading.Lock] = {}
        self._local = threading.local()  # see pinned()

    @contextmanager
    def pinned(self, db: DbArg) -> Iterator[None]:
        """Within the block, this thread reads the stamp of ``db``'s file (and the booster
        data's hash) once: every product and value it gets from ``db`` is of one content."""
        path = self._path(db)
        before = getattr(self._local, "pin", None)
        self._local.pin = (db, path, (file_stamp(path), _data_hash()) if path else None)
        try:
            yield
        finally:
            self._local.pin = before

    def _located(self, db: DbArg) -> tuple[Path | None, tuple[Any, str] | None]:
        """(file, content: its stamp and the data hash when pinned) of ``db``."""
        pin = getattr(self._local, "pin", None)
        if pin is not None and pin[0] is db:
            return pin[1], pin[2]
        return self._path(db), None

    def _path(self, db: DbArg) -> Path | None:
        if self.db_path is not None:
            return self.db_path
        if db is None or isinstance(db, (str, os.PathLike)):
            from boosterkit import config

            path = config.db_path(db)
            return None if str(path) == ":memory:" else path
        return _connection_path(db)

    def get(self, set_code: str, product: str | None, db: DbArg, *, lite: bool = False) -> Compiled:
        """The compiled product of ``db`` (as ``load_product`` takes it): from memory, else
        from the file beside the database, else resolved and compiled (and kept).

        ``lite``: its ``LiteProduct`` (plain tuples, for ``generator.small``) instead, which
        the next process loads without numpy."""
        path, content = self._located(db)
        key = product_key(path, set_code, product, content) if path is not None else None
        if key is None and not self.pathless:
            return _Kept(full=self._compile(set_code, product, db)).made(lite)
        mkey = (key,) if key is not None else _norm(set_code, product)
        with self._lock:
            hit = self._lookup(mkey, lite)
            if hit is not None:
                return hit
            pending = self._pending.setdefault(mkey, threading.Lock())
        with pending:
            with self._lock:
                hit = self._lookup(mkey, lite)
                if hit is not None:
                    return hit
                generation = self._generation
            try:
                built = self._build(set_code, product, db, path, key, lite)
                alias = self._alias(set_code, product, path, key, built.code())
                with self._lock:
                    if generation == self._generation:
                        kept = self._items.setdefault(mkey, built)
                        kept.merge(built)
                        if alias is not None:
                            self._items[alias] = kept
                        while len(self._items) > self.maxsize:
                            self._items.popitem(last=False)
            finally:
                # only once the product is in memory: a thread arriving in between would
                # otherwise find neither the product nor the pending build, and build again
                with self._lock:
                    self._pending.pop(mkey, None)
        return built.made(lite)

    @staticmethod
    def _alias(
        set_code: str, product: str | None, path: Path | None, key: str | None, code: str
    ) -> tuple[Any, ...] | None:
        """The memory key of the product's own code when it was asked for by kind or as the
        default (``deal`` asks for ``set``; the setup it writes names ``afr-set``)."""
        if _norm(set_code, product)[1] == code:
            return None
        if key is None:
            return _norm(set_code, code)
        alias = product_key(path, set_code, code) if path is not None else None
        return (alias,) if alias is not None else None

    def _compile(self, set_code: str, product: str | None, db: DbArg) -> CompiledProduct:
        from boosterkit.generator.engine import compile_product

        with self._reading(db) as con:
            return compile_product(load_product(set_code, product, con))

    def _build(
        self,
        set_code: str,
        product: str | None,
        db: DbArg,
        path: Path | None,
        key: str | None,
        lite: bool,
    ) -> _Kept:
        store = ProductStore.beside(path) if key is not None and path is not None else None
        if store is not None and key is not None:
            found = store.load(set_code, product, key, lite)
            if found is not None:
                with self._lock:
                    self.loads += 1
                return _Kept(lite=found) if isinstance(found, LiteProduct) else _Kept(full=found)
        compiled = self._compile(set_code, product, db)
        with self._lock:
            self.misses += 1
        if store is None or key is None or path is None:
            return _Kept(full=compiled)
        lite_form = small.lite(compiled)  # once, for every file written and for memory
        store.save(set_code, product, key, compiled, lite_form)
        code = compiled.product.code
        if _norm(set_code, product)[1] != code and (alias := product_key(path, set_code, code)):
            store.save(set_code, code, alias, compiled, lite_form)  # asked by kind: by code too
        return _Kept(full=compiled, lite=lite_form)

    def kept(self, name: str, build: Callable[[Any], T], db: DbArg, scope: Scope = ()) -> T:
        """What ``build(connection)`` computes from the database ``db`` (e.g. the rows of a
        product's cards), computed once per database content and kept like a product: in
        memory, else in the file beside the database, else built (and kept).

        ``scope``: (set, product) when the value belongs to that product (it is then keyed
        as the product), empty when it depends on the database alone. The key also holds
        ``name`` and the source of ``build``'s module, so changed code computes it again.
        """
        scope = _norm(*scope) if scope else scope
        path, content = self._located(db)
        key = kept_key(path, name, build, scope, content) if path is not None else None
        if key is None and not self.pathless:
            with self._reading(db) as con:
                return build(con)
        mkey = (key,) if key is not None else (name, *scope)
        with self._lock:
            if mkey in self._values:
                self._values.move_to_end(mkey)
                return self._values[mkey]
            generation = self._generation
        store = KeptStore.beside(path) if key is not None and path is not None else None
        value = store.load(name, scope, key) if store is not None and key is not None else None
        if value is None:
            with self._reading(db) as con:
                value = build(con)
            if store is not None and key is not None:
                store.save(name, scope, key, value)
        with self._lock:
            if generation == self._generation:
                self._values[mkey] = value
                while len(self._values) > self.maxsize:
                    self._values.popitem(last=False)
        return value

    def keeps(self, db: DbArg) -> bool:
        """Whether products and values of ``db`` are kept here (else every call builds)."""
        if self.pathless:
            return True
        path, content = self._located(db)
        return path is not None and bool(content[0] if content else file_stamp(path))

    @contextmanager
    def _reading(self, db: DbArg) -> Iterator[Any]:
        """A connection to read ``db`` through: ``connect`` when set, ``db`` when it is one,
        else the file opened read-only (closed after)."""
        if self.connect is not None:
            with self.connect() as con:
                yield con
            return
        if db is not None and not isinstance(db, (str, os.PathLike)):
            yield db
            return
        from boosterkit import config
        from boosterkit.pipeline import db as dbmod

        con = dbmod.connect(config.db_path(db), read_only=True)
        try:
            yield con
        finally:
            con.close()

    def _lookup(self, key: tuple[Any, ...], lite: bool) -> Compiled | None:
        """A kept product in the form asked for, counted as a hit (with the lock held)."""
        kept = self._items.get(key)
        found = kept.form(lite) if kept is not None else None
        if found is not None:
            self._items.move_to_end(key)
            self.hits += 1
        return found

    def clear(self) -> None:
        """Forget every product held in memory (the files beside the database stay: they
        are keyed by the file's content stamp)."""
        with self._lock:
            self._items.clear()
            self._values.clear()
            self._generation += 1

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


#: The process's own products (keyed by database file and content; never by (set, product)
#: alone, so different databases and changed data never share an entry).
DEFAULT = ProductCache(16, pathless=False)


@overload
def compiled_product(
    set_code: str,
    product: str | None,
    db: DbArg,
    products: ProductCache | None = None,
    *,
    lite: Literal[False] = False,
) -> CompiledProduct: ...
@overload
def compiled_product(
    set_code: str,
    product: str | None,
    db: DbArg,
    products: ProductCache | None = None,
    *,
    lite: bool,
) -> Compiled: ...
def compiled_product(
    set_code: str,
    product: str | None,
    db: DbArg,
    products: ProductCache | None = None,
    *,
    lite: bool = False,
) -> Compiled:
    """The compiled product (``lite``: its ``LiteProduct``) from ``products`` (default
    ``DEFAULT``)."""
    return (products if products is not None else DEFAULT).get(set_code, product, db, lite=lite)
