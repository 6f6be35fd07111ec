"""The database handle: one object owns the database file, how connections to it are made,
and what is kept from it (sqlite-utils' ``Database`` and datasette's ``Datasette`` are the
models).

The CLI makes one from ``--db`` (``ctx.obj``), the service one per app
(``app.state.database``: ``service.database.ReadOnlyDatabase``, the shared read-only
cursor). Library entry points (``open_packs``, ``deal``, ``validate_setup``, ``odds``…) take
it as ``db``, or a path or an open connection, which ``Database.of`` turns into one, once, at
the edge; below them nothing asks "path or connection?" again. Functions that work inside a
transaction (the pipeline's loads and queries) take the connection ``read()`` or ``write()``
gives.

What is derived from the database (compiled products, card rows…) is kept in the handle's
``cache`` (``boosterkit.cache``): ``cached()`` gives this content's. Importing this module
loads neither DuckDB nor numpy: a cached product is drawn without either.
"""

from __future__ import annotations

import contextlib
import os
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union, cast

from boosterkit import cache as cachemod
from boosterkit import config
from boosterkit.cache import Cache, ContentCache, WouldWait
from boosterkit.errors import InputError

if TYPE_CHECKING:
    from boosterkit.pipeline.db import Connection

#: What entry points take as ``db``: a handle, a database path (``None``: the configured
#: one, ``--db``/``BOOSTERKIT_DB``), or an open DuckDB connection (anything with ``execute``).
DbLike = Union["Database", str, "os.PathLike[str]", "Connection", None]

__all__ = ["Database", "DbLike"]

MEMORY = ":memory:"


def _remove_new(path: Path, cache: Path | None) -> None:
    """Remove a database file (and its write-ahead log, and ``cache``) a failed write made."""
    import shutil

    for p in (path, Path(f"{path}.wal")):
        with contextlib.suppress(OSError):
            p.unlink()
    if cache is not None:
        shutil.rmtree(cache, ignore_errors=True)


class Database:
    """A boosterkit database: its file, its connection policy and its cache.

    - ``Database(path)``: a file (``None``: the configured one, resolved on first use).
      ``read()`` opens it read-only for the block, ``write()`` read-write (created and
      migrated on first use); both close it after. Reads go to the bundled sample
      (``pipeline.sample``) when the path is ``config.SAMPLE``, or when none is named and
      the default file does not exist yet (``notice`` is then told, once); writes never do.
    - ``Database.borrowing(con)``: an open connection, read and written through and never
      closed; its file is asked once (for the products kept beside it).
    - ``Database.memory()`` (or the path ``":memory:"``): an in-memory database, one
      connection the handle owns, opened now and closed by ``close()``; ``memory()`` keeps
      what is derived from it by name in a cache of its own.
    - ``service.database.ReadOnlyDatabase``: the service's shared read-only cursor.

    ``cache``: the ``boosterkit.cache.Cache`` that keeps what is derived from the database
    once per content (default: the process's own, keyed by file and content). Within
    ``session()``, a thread reads the file's content stamp once and opens at most one
    connection, on first use.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        cache: Cache | None = None,
        notice: Callable[[str], object] | None = None,
    ) -> None:
        self._explicit = path
        self._cache = cache
        self._notice = notice
        self._connection: Connection | None = None  # borrowed, or owned (in memory)
        self._owned = str(path) == MEMORY
        self._local = threading.local()
        if self._owned:
            from boosterkit.pipeline import db as dbmod

            self._connection = dbmod.connect(MEMORY)

    @classmethod
    def of(cls, db: DbLike, *, cache: Cache | None = None) -> Database:
        """``db`` as a handle: itself if it is one, else a path or a connection made one (the
        one place the values an entry point accepts become a handle), keeping what it
        derives in ``cache`` (default: the process's; a handle keeps its own)."""
        if isinstance(db, Database):
            return db
        if db is None or isinstance(db, (str, os.PathLike)):
            return cls(db, cache=cache)
        return cls.borrowing(db, cache=cache)

    @classmethod
    def borrowing(
        cls,
        connection: Connection,
        *,
        path: str | os.PathLike[str] | None = None,
        cache: Cache | None = None,
    ) -> Database:
        """A handle over an open ``connection`` (never closed here). ``path``: its file,
        when known (else asked of the connection once)."""
        handle = cls(path, cache=cache)
        handle._connection = connection
        return handle

    @classmethod
    def memory(cls, cache: Cache | None = None) -> Database:
        """An in-memory database (migrated), kept open until ``close()``; what is derived
        from it is kept by name in ``cache`` (default: a cache of its own)."""
        return cls(MEMORY, cache=cache if cache is not None else Cache())

    # --- what it is --------------------------------------------------------------------------

    @property
    def path(self) -> Path | None:
        """The database file (None: in memory, or a connection to one)."""
        if "path" not in self.__dict__:
            self.__dict__["path"] = self._resolve()
        found: Path | None = self.__dict__["path"]
        return found

    def _resolve(self) -> Path | None:
        if self._owned:
            return None
        if self._connection is not None and not self._explicit:
            return _connection_path(self._connection)

        path = config.db_path(self._explicit)
        if str(path) == MEMORY:
            return None
        if str(path) == config.SAMPLE:
            return self._sample(said=False)
        if not path.exists() and not config.is_configured(self._explicit):
            return self._sample(said=True)
        return path

    def _sample(self, *, said: bool) -> Path:
        """The bundled sample's database (built on first use); ``said``: tell ``notice``."""
        from boosterkit.pipeline import sample

        found = sample.ensure()
        self.__dict__["sample"] = True
        if said and self._notice is not None:
            self._notice(sample.NOTICE)
        return found

    def named(self) -> Path | None:
        """The file to name in a message: the one read, once resolved, else the one named
        (resolving nothing: never builds the sample)."""
        if "path" in self.__dict__:
            return self.path
        if self._owned or self._connection is not None:
            return None

        return config.db_path(self._explicit)

    @property
    def sample(self) -> bool:
        """Whether this handle reads the bundled sample: asked for (``--db :sample:``), or
        because no database was named and the user data folder holds none yet."""
        return self.path is not None and bool(self.__dict__.get("sample"))

    def _target(self) -> Path | None:
        """The file writes go to: the named or default one, never the sample (asking to
        write to it is an ``InputError``)."""
        if self._owned or self._connection is not None:
            return self.path

        path = config.db_path(self._explicit)
        if str(path) == MEMORY:
            return None
        if str(path) == config.SAMPLE:
            raise InputError(
                f"{config.SAMPLE} is the bundled sample, read-only: `sync` and `import` write "
                "a database of your own (leave out --db and BOOSTERKIT_DB for the default one, "
                "or name a file)"
            )
        return path

    @property
    def shared_file(self) -> Path | None:
        """The file worker processes may open read-only to read what this handle reads
        (``--jobs``): None in memory or through a connection (borrowed, or the service's)."""
        return None if self._connection is not None else self.path

    @property
    def cache_dir(self) -> Path:
        """Where fetched and imported files are kept: the folder beside the file."""

        path = self._target()
        if path is None:
            raise ValueError("a database without a file keeps no cache folder")
        return config.cache_dir(path)

    @property
    def cache(self) -> Cache:
        """What is kept of this database (default: the process's ``boosterkit.cache.DEFAULT``)."""
        if self._cache is None:
            self._cache = cachemod.DEFAULT
        return self._cache

    def __repr__(self) -> str:
        where = "memory" if self._owned else (self._explicit or "the configured file")
        borrowed = self._connection is not None and not self._owned
        return f"<Database {where}{' (a borrowed connection)' if borrowed else ''}>"

    # --- connections --------------------------------------------------------------------------

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read-only connection for the block: the session's (opened on first use) within
        ``session()``, else one of its own."""
        session: _Session | None = getattr(self._local, "session", None)
        if session is not None:
            yield session.connection()
            return
        with self._reading() as con:
            yield con

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A read-write connection for the block (the file created and migrated if needed):
        to the named or default file, never the sample, which is read no more after it. A
        file this block created is removed when the block fails (with its cache folder, if
        it made that too): a failed first sync leaves no empty database behind."""

        target = self._target()
        path = target if self._connection is None and not self._owned else None
        made = path is not None and not path.exists()
        cache = None if path is None else config.cache_dir(path)
        made_cache = cache is not None and not cache.exists()
        try:
            with self._connect(read_only=False, path=target) as con:
                yield con
        except BaseException:
            if made and path is not None and cache is not None:
                _remove_new(path, cache if made_cache else None)
            raise
        if self.__dict__.get("sample"):
            del self.__dict__["path"], self.__dict__["sample"]

    def _reading(self) -> AbstractContextManager[Connection]:
        """How this handle reads (the service's handle reads through its shared cursor)."""
        self.check_wait()
        return self._connect(read_only=True)

    def without_waiting(self) -> AbstractContextManager[None]:
        """Within the block, on this thread, what would wait raises ``cache.WouldWait``
        instead: a read of the database, a value not in memory (``cached().value``). A call
        made so either runs from memory alone or stops before it changed anything (the
        service runs a request so on its event loop, and again on a thread if it stopped)."""
        return _NoWait(self._local)

    def may_wait(self) -> bool:
        """False within ``without_waiting`` on this thread."""
        return not getattr(self._local, "no_wait", False)

    def check_wait(self) -> None:
        """``cache.WouldWait`` within ``without_waiting`` (before reading the file)."""
        if not self.may_wait():
            raise WouldWait("the database")

    @contextmanager
    def _connect(self, *, read_only: bool, path: Path | None = None) -> Iterator[Connection]:
        if self._connection is not None:  # borrowed, or owned (in memory)
            yield self._connection
            return
        if self._owned:
            raise ValueError("this in-memory database was closed")
        from boosterkit.pipeline import db as dbmod

        path = path or self.path
        con = dbmod.connect(cast(Path, path), read_only=read_only)  # a file: not owned
        try:
            yield con
        finally:
            con.close()

    def require(self) -> None:
        """The error a read would raise when the file does not exist (for calls that read
        the database whatever is kept: ``validate``)."""
        if self._connection is None and self.path is not None:
            if not self.path.exists():
                with self._reading():
                    pass  # raises DatabaseError "no database here yet"

    def close(self) -> None:
        """Close the in-memory database's connection (a borrowed one is its owner's)."""
        if self._owned and self._connection is not None:
            self._connection.close()
            self._connection = None

    # --- sessions and the cache -------------------------------------------------------------

    def session(self) -> AbstractContextManager[Connection]:
        """One call's view of the database, for this thread: the file's content stamp read
        once (every product and value is of one content) and one connection, opened on its
        first query and closed at the end of the block (a kept product and its values need
        none). Gives that connection, lazily; nested sessions are the outer one."""
        return _SessionBlock(self)

    def located(self) -> tuple[Path | None, str | None]:
        """(the file, the key of its content: stamp, booster data and code) — the session's
        when in one; the key is None when nothing of it can be kept by content."""
        session: _Session | None = getattr(self._local, "session", None)
        return session.located if session is not None else self._locate()

    def _locate(self) -> tuple[Path | None, str | None]:
        path = self.path
        return path, cachemod.content_key(path) if path is not None else None

    def cached(self) -> ContentCache:
        """The cache of this database's content (within a session, the session's: one
        look-up a session): ``value()`` gives what is derived from it
        (``generator.cache.compiled``: the compiled products)."""
        session: _Session | None = getattr(self._local, "session", None)
        if session is None:
            return self.cache.entry(self)
        if session.content is None:
            session.content = self.cache.entry(self)
        return session.content


class _NoWait:
    """``Database.without_waiting``'s block (a class: the service enters one a request)."""

    __slots__ = ("_local", "_before")

    def __init__(self, local: threading.local) -> None:
        self._local = local
        self._before = False

    def __enter__(self) -> None:
        self._before = getattr(self._local, "no_wait", False)
        self._local.no_wait = True

    def __exit__(self, *exc: object) -> None:
        self._local.no_wait = self._before


class _SessionBlock:
    """``Database.session``'s block (a class: the service enters one a request)."""

    __slots__ = ("database", "session")

    def __init__(self, database: Database) -> None:
        self.database = database
        self.session: _Session | None = None

    def __enter__(self) -> Connection:
        local = self.database._local
        outer: _Session | None = getattr(local, "session", None)
        if outer is not None:
            return outer.lazy
        self.session = local.session = _Session(self.database, self.database._locate())
        return self.session.lazy

    def __exit__(self, *exc: Any) -> bool | None:
        if self.session is None:
            return None
        self.database._local.session = None
        stack, self.session.stack = self.session.stack, None
        return None if stack is None else stack.__exit__(*exc)


class _Session:
    """A session's content key and its connection, opened on first use (closed, with the
    stack that holds it, when the session ends)."""

    def __init__(self, database: Database, located: tuple[Path | None, str | None]) -> None:
        self.database, self.located = database, located
        self.stack: ExitStack | None = None
        self.content: ContentCache | None = None
        self._con: Connection | None = None
        self.lazy = cast("Connection", _Lazy(self))

    def connection(self) -> Connection:
        if self._con is None:
            if self.stack is None:
                self.stack = ExitStack()
            self._con = self.stack.enter_context(self.database._reading())
        return self._con


class _Lazy:
    """A connection stand-in that opens the session's connection on its first query."""

    def __init__(self, session: _Session) -> None:
        self._session = session

    def execute(self, *args: Any) -> Any:
        return self._session.connection().execute(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session.connection(), name)


_PATHS: weakref.WeakKeyDictionary[Any, Path | None] = weakref.WeakKeyDictionary()
_PATHS_LOCK = threading.Lock()


def _connection_path(con: Any) -> Path | None:
    """The file of an open DuckDB connection (None for an in-memory one, or anything that
    cannot say), asked once per connection."""
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
