"""Compiled products, kept: resolved from the database and compiled once per database content.

Resolving a product from the database and compiling it costs tens to hundreds of
milliseconds; drawing a few packs from it costs well under one. So a compiled product is
kept twice, both keyed by what it was built from:

- in memory, in a ``ProductCache`` (the process has one, ``DEFAULT``; the service and the
  pytest plugin keep their own), which a ``boosterkit.database.Database`` handle holds;
- on disk beside the database file, in ``<name>.cache/products/`` (per set and product, a
  pickle of the full form and one of the lite form, ``generator.small``), so the next
  process loads it in milliseconds without opening the database (and, lite, without numpy).
  The folder is trusted like the database next to it.

Anything else computed from the database once per content (the rows a minigame's sheet and
``validate`` read for a product's cards, the minigame cards' rules texts) is kept the same way
with ``Kept.value``, in ``<name>.cache/kept/``, keyed as the database content plus the source
of the module that computes it.

The key of a content (``content_key``) is the database file's stamp (inode, modification time
and size of the file and its write-ahead log: every committed write changes it, whatever
wrote it), its path, the hashes of ``data/boosters/*.yaml`` and ``*.csv``, and the code that
compiles (the generator's sources and the package version); a product's key adds the product
asked for. A product built from other data is never served: a changed card is in the next
pack. ``ProductCache.entry`` looks a content up once (a ``Database.session`` computes its key
once): the ``Kept`` it returns holds that content's products and values. Without a file
(``:memory:`` databases) only a ``ProductCache`` whose owner clears it keeps products.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from boosterkit import __version__
from boosterkit.data import DATA_DIR
from boosterkit.errors import warn
from boosterkit.generator import small
from boosterkit.generator.model import ProductDef
from boosterkit.generator.small import LiteProduct
from boosterkit.safefiles import (
    Sealer,
    UnsafeFolder,
    check_folder,
    create_exclusive,
    private_folder,
)

if TYPE_CHECKING:
    from boosterkit.database import Database, DbLike
    from boosterkit.generator.engine import CompiledProduct
    from boosterkit.pipeline.db import Connection

    Compiled = CompiledProduct | LiteProduct

    #: The ``db`` entry points take (``boosterkit.database.DbLike``; this older name stays).
    DbArg = DbLike
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
    "Kept",
    "KeptStore",
    "ProductCache",
    "ProductStore",
    "compiled_product",
    "content_key",
    "file_stamp",
    "kept_key",
    "load_product",
    "product_key",
]


def load_product(set_code: str, product: str | None = None, db: DbLike = None) -> ProductDef:
    """The ``ProductDef`` of ``set_code``/``product``, resolved from the database ``db``.

    ``db``: a ``Database``, an open DuckDB connection, a path (opened read-only) or None for
    the configured database (``boosterkit.config.db_path()``). Always reads the database.
    """
    from boosterkit.database import Database

    with Database.of(db).read() as con:
        return _resolved(con, set_code, product)


def _resolved(con: Connection, set_code: str, product: str | None) -> ProductDef:
    from boosterkit.generator.products import resolve_product

    return resolve_product(con, set_code.lower(), product)


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


def content_key(path: Path, content: tuple[Any, str] | None = None) -> str | None:
    """The key of what the database file ``path`` holds now (None without a file): its
    stamp, path, the booster data's hash and the compiling code's. ``content``: the stamp
    and the data hash when already read."""
    stamp, data = content if content is not None else (file_stamp(path), _data_hash())
    if not stamp:
        return None
    return _key((_code_hash(), data, os.path.abspath(path), stamp))


def product_key(
    path: Path, set_code: str, product: str | None, content: tuple[Any, str] | None = None
) -> str | None:
    """The key of a compiled product of the database file ``path`` (None without a file).

    ``content``: the file's stamp and the booster data's hash when already read."""
    base = content_key(path, content)
    return _product_key(base, *_norm(set_code, product)) if base is not None else None


def _product_key(base: str, set_code: str, product: str | None) -> str:
    return _key((base, set_code, product))


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
    (a set and product, or empty: the database alone)."""
    base = content_key(path, content)
    return _kept_key(base, name, build, scope) if base is not None else None


def _kept_key(base: str, name: str, build: Callable[..., Any], scope: Scope) -> str:
    return _key((base, name, _module_hash(build.__module__), scope))


def _read_pickle(path: Path, sealer: Sealer) -> Any:
    """What a kept file holds, or None: missing, or (with one line, ``errors.warn``)
    truncated, foreign or not sealed with this cache's secret, which is only a miss (the
    value is built again and kept over it); an unsealed file is never unpickled. Without a
    secret (none yet, or a bad one just removed with what it sealed) nothing is read."""
    if not sealer.ready():
        return None
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return _ignored(path, exc.strerror or str(exc))
    try:
        payload = sealer.open(data)
        if payload is None:
            return _ignored(path, "damaged, or not sealed with this cache's secret")
        return pickle.loads(payload)  # noqa: S301 (sealed)
    except UnsafeFolder:
        raise
    except Exception as exc:  # noqa: BLE001
        return _ignored(path, f"unreadable ({type(exc).__name__})")


def _ignored(path: Path, why: str) -> None:
    warn(f"{path}: a kept file of the cache is {why}; ignored, and made again")
    return None


def _write_pickle(path: Path, value: Any, sealer: Sealer) -> None:
    """Write ``value`` sealed to ``path`` atomically (a new temporary file per process and
    thread, never through a symlink, then a rename): a reader sees the old file or the new
    one, never half of one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    data = sealer.seal(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    try:
        with create_exclusive(tmp) as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


class _Store:
    """A folder of sealed kept files under a database's cache folder (``folder.parent``,
    whose ``secret`` seals them); both refused when another user could write to them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.sealer = Sealer(folder.parent)

    def _read(self, path: Path) -> Any:
        check_folder(self.folder.parent)
        check_folder(self.folder)
        return _read_pickle(path, self.sealer)

    def _write(self, paths: dict[Path, Any], prefix: str) -> None:
        """Keep each value atomically and drop the older files of ``prefix`` (``_stale``);
        a folder that cannot be written is no error (the values are built again)."""
        try:
            private_folder(self.folder, self.folder.parent)
            for path, value in paths.items():
                _write_pickle(path, value, self.sealer)
            for old in self.folder.glob(f"{prefix}*.pickle"):
                if old not in paths and self._stale(old, prefix):
                    old.unlink(missing_ok=True)
        except OSError:
            pass

    @staticmethod
    def _stale(old: Path, prefix: str) -> bool:
        return True


class KeptStore(_Store):
    """Values computed from a database, as files in a folder (``<database name>.cache/kept``):
    one per name, scope and key; older keys of the same name and scope are dropped."""

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
        return self._read(self.folder / f"{self._prefix(name, scope)}{key}.pickle")

    def save(self, name: str, scope: tuple[str | None, ...], key: str, value: Any) -> None:
        """Keep ``value`` atomically (a folder that cannot be written is no error)."""
        prefix = self._prefix(name, scope)
        self._write({self.folder / f"{prefix}{key}.pickle": value}, prefix)

    @staticmethod
    def _stale(old: Path, prefix: str) -> bool:
        return "." not in old.name[len(prefix) : -len(".pickle")]  # not a longer name's


class ProductStore(_Store):
    """Compiled products as files in a folder (``<database name>.cache/products``): per
    product and key, the full product (numpy tables) and its ``LiteProduct`` (plain tuples,
    loaded without numpy)."""

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
        found = self._read(self._path(set_code, product, key, lite))
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
        self._write(kept, self._prefix(set_code, product))


class _Forms:
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

    def merge(self, other: _Forms) -> None:
        self.full = self.full or other.full
        self.lite = self.lite or other.lite

    def code(self) -> str:
        kept = self.full or self.lite
        if kept is None:
            raise ValueError("a kept product with neither form")
        return kept.product.code


class _Content:
    """What memory holds of one database content: products by (set, product), values by
    (name, *scope), least recently used first."""

    __slots__ = ("products", "values")

    def __init__(self) -> None:
        self.products: OrderedDict[tuple[str, str | None], _Forms] = OrderedDict()
        self.values: OrderedDict[tuple[Any, ...], Any] = OrderedDict()


class ProductCache:
    """Compiled products in memory, least recently used out, backed by the files beside the
    database. Safe to share between threads; concurrent misses on one key compile once.

    ``db_path``: the database file the products come from, for callers that pass open
    connections (saves asking the connection). Products of a database without a file are
    kept by (set, product) only when ``pathless`` is true: their owner then calls
    ``clear()`` when the data may have changed. A ``boosterkit.database.Database`` holds one
    and reads through its own connection policy on a miss.
    """

    def __init__(
        self,
        maxsize: int = 64,
        *,
        db_path: str | os.PathLike[str] | None = None,
        pathless: bool = True,
    ) -> None:
        self.maxsize = maxsize
        self.db_path = Path(db_path) if db_path is not None else None
        self.pathless = pathless
        self.hits = 0  # in memory
        self.loads = 0  # from the files beside the database
        self.misses = 0  # compiled
        self._lock = threading.Lock()
        self._contents: OrderedDict[str | None, _Content] = OrderedDict()
        self._count = 0  # products held, over every content
        self._pending: dict[tuple[Any, ...], threading.Lock] = {}

    def entry(self, database: Database) -> Kept:
        """What is kept of ``database``'s content (its key computed once per session): the
        one look-up a call makes; ``Kept.product`` and ``Kept.value`` read below it."""
        path, key = database.located()
        if key is None and not self.pathless:
            return Kept(self, database, path, None, None)
        with self._lock:
            content = self._contents.get(key)
            if content is None:
                content = self._contents[key] = _Content()
                while len(self._contents) > self.maxsize:
                    self._count -= len(self._contents.popitem(last=False)[1].products)
            else:
                self._contents.move_to_end(key)
        return Kept(self, database, path, key, content)

    def _trim(self) -> None:
        """Drop least recently used products past ``maxsize`` (with the lock held)."""
        while self._count > self.maxsize:
            oldest = next(c for c in self._contents.values() if c.products)
            oldest.products.popitem(last=False)
            self._count -= 1

    def get(
        self, set_code: str, product: str | None, db: DbLike, *, lite: bool = False
    ) -> Compiled:
        """The compiled product of ``db`` (a ``Database``, a path or a connection), kept here:
        ``Database.of(db, self).compiled(…)``."""
        from boosterkit.database import Database

        return Database.of(db, self).compiled(set_code, product, lite=lite)

    def kept(self, name: str, build: Callable[[Any], T], db: DbLike, scope: Scope = ()) -> T:
        """What ``build(connection)`` computes from ``db``, kept here:
        ``Database.of(db, self).kept().value(…)``."""
        from boosterkit.database import Database

        return Database.of(db, self).kept().value(name, build, scope)

    def clear(self) -> None:
        """Forget every product held in memory (the files beside the database stay: they
        are keyed by the file's content stamp). A build under way is not kept."""
        with self._lock:
            self._contents.clear()
            self._count = 0

    def __len__(self) -> int:
        with self._lock:
            return self._count


class Kept:
    """What a ``ProductCache`` keeps of one database content (``ProductCache.entry``): its
    compiled products and the values read from it, from memory, else from the files beside
    the database, else built through the database's connection (and kept)."""

    def __init__(
        self,
        cache: ProductCache,
        database: Database,
        path: Path | None,
        key: str | None,
        content: _Content | None,
    ) -> None:
        self.cache, self.database, self.path, self.key = cache, database, path, key
        self._content = content

    @property
    def keeps(self) -> bool:
        """Whether products and values are kept (else every call builds)."""
        return self._content is not None

    @overload
    def product(
        self, set_code: str, product: str | None, *, lite: Literal[False] = False
    ) -> CompiledProduct: ...
    @overload
    def product(self, set_code: str, product: str | None, *, lite: bool) -> Compiled: ...
    def product(self, set_code: str, product: str | None, *, lite: bool = False) -> Compiled:
        """The compiled product (``lite``: its ``LiteProduct``, plain tuples for
        ``generator.small``, which the next process loads without numpy)."""
        cache, content = self.cache, self._content
        if content is None:
            return _Forms(full=self._compile(set_code, product)).made(lite)
        wanted = _norm(set_code, product)
        with cache._lock:
            hit = self._lookup(wanted, lite)
            if hit is not None:
                return hit
            pending = cache._pending.setdefault((self.key, *wanted), threading.Lock())
        with pending:
            with cache._lock:
                hit = self._lookup(wanted, lite)
                if hit is not None:
                    return hit
            try:
                built = self._build(set_code, product, lite)
                alias = _norm(set_code, built.code())
                with cache._lock:
                    if self._attached():  # not after a clear(): a build under way is not kept
                        held = content.products.get(wanted)
                        if held is None:
                            held = content.products[wanted] = built
                            cache._count += 1
                        held.merge(built)
                        if alias != wanted:  # asked by kind or as the default: by code too
                            cache._count += alias not in content.products
                            content.products[alias] = held
                        cache._trim()
            finally:
                # only once the product is in memory: a thread arriving in between would
                # otherwise find neither the product nor the pending build, and build again
                with cache._lock:
                    cache._pending.pop((self.key, *wanted), None)
        return built.made(lite)

    def _attached(self) -> bool:
        """Whether this content is still held (not cleared or dropped since the look-up)."""
        return self.cache._contents.get(self.key) is self._content

    def _lookup(self, wanted: tuple[str, str | None], lite: bool) -> Compiled | None:
        """A held product in the form asked for, counted as a hit (with the lock held)."""
        assert self._content is not None
        held = self._content.products.get(wanted)
        found = held.form(lite) if held is not None else None
        if found is not None:
            self._content.products.move_to_end(wanted)
            self.cache.hits += 1
        return found

    def _compile(self, set_code: str, product: str | None) -> CompiledProduct:
        from boosterkit.generator.engine import compile_product

        with self.database.read() as con:
            return compile_product(_resolved(con, set_code, product))

    def _store(self) -> ProductStore | None:
        return ProductStore.beside(self.path) if self.key and self.path else None

    def _build(self, set_code: str, product: str | None, lite: bool) -> _Forms:
        store = self._store()
        key = _product_key(self.key, *_norm(set_code, product)) if self.key else ""
        if store is not None:
            found = store.load(set_code, product, key, lite)
            if found is not None:
                with self.cache._lock:
                    self.cache.loads += 1
                return _Forms(lite=found) if isinstance(found, LiteProduct) else _Forms(full=found)
        compiled = self._compile(set_code, product)
        with self.cache._lock:
            self.cache.misses += 1
        if store is None or self.key is None:
            return _Forms(full=compiled)
        lite_form = small.lite(compiled)  # once, for every file written and for memory
        store.save(set_code, product, key, compiled, lite_form)
        code = compiled.product.code
        if _norm(set_code, product)[1] != code:  # asked by kind: kept by code too
            alias = _product_key(self.key, *_norm(set_code, code))
            store.save(set_code, code, alias, compiled, lite_form)
        return _Forms(full=compiled, lite=lite_form)

    def value(
        self, name: str, build: Callable[[Any], T], scope: Scope = (), *, reads: bool = True
    ) -> T:
        """What ``build(connection)`` computes from the database (e.g. the rows of a
        product's cards), computed once per database content and kept like a product: in
        memory, else in the file beside the database, else built (and kept).

        ``scope``: (set, product) when the value belongs to that product, empty when it
        depends on the database alone. The key also holds ``name`` and the source of
        ``build``'s module, so changed code computes it again. ``reads`` False: ``build``
        reads nothing of the database (it computes from a kept product): it gets None,
        and no connection is opened for it.
        """
        content = self._content
        if content is None:
            return self._built(build, reads)
        scope = _norm(*scope) if scope else scope
        held = (name, *scope)
        with self.cache._lock:
            if held in content.values:
                content.values.move_to_end(held)
                found: T = content.values[held]
                return found
        store = KeptStore.beside(self.path) if self.key and self.path else None
        key = _kept_key(self.key, name, build, scope) if self.key else ""
        value = store.load(name, scope, key) if store is not None else None
        if value is None:
            value = self._built(build, reads)
            if store is not None:
                store.save(name, scope, key, value)
        with self.cache._lock:
            if self._attached():
                content.values[held] = value
                while len(content.values) > self.cache.maxsize:
                    content.values.popitem(last=False)
        return value

    def _built(self, build: Callable[[Any], T], reads: bool) -> T:
        if not reads:
            return build(None)
        with self.database.read() as con:
            return build(con)


#: The process's own products (keyed by database file and content; never by (set, product)
#: alone, so different databases and changed data never share an entry).
DEFAULT = ProductCache(16, pathless=False)


@overload
def compiled_product(
    set_code: str,
    product: str | None,
    db: DbLike,
    products: ProductCache | None = None,
    *,
    lite: Literal[False] = False,
) -> CompiledProduct: ...
@overload
def compiled_product(
    set_code: str,
    product: str | None,
    db: DbLike,
    products: ProductCache | None = None,
    *,
    lite: bool,
) -> Compiled: ...
def compiled_product(
    set_code: str,
    product: str | None,
    db: DbLike,
    products: ProductCache | None = None,
    *,
    lite: bool = False,
) -> Compiled:
    """The compiled product (``lite``: its ``LiteProduct``) of ``db`` (a ``Database``, a path
    or a connection), kept in ``products`` (default: the handle's, else ``DEFAULT``)."""
    from boosterkit.database import Database

    return Database.of(db, products).compiled(set_code, product, lite=lite)
