"""The DuckDB database: opening it, its schema, forward migrations and transactions.

Every table boosterkit keeps is declared here, so the schema reads in one place. A migration
is appended to ``MIGRATIONS`` and never edited once released; ``schema_version`` in table
``meta`` says how many have run.
"""

from __future__ import annotations

import contextlib
import errno
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from boosterkit.errors import BoosterkitError, OutOfMemory, escape_controls, one_line

Connection = duckdb.DuckDBPyConnection

_V1 = """
CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR);

CREATE TABLE sets (
    code VARCHAR PRIMARY KEY,          -- lowercase
    name VARCHAR,
    set_type VARCHAR,
    released_at DATE,
    card_count INTEGER,
    printed_size INTEGER,
    parent_set_code VARCHAR,
    digital BOOLEAN,
    scryfall_id VARCHAR,
    icon_svg_uri VARCHAR,
    source VARCHAR                      -- scryfall | mtgjson
);

CREATE TABLE cards (
    id VARCHAR PRIMARY KEY,             -- the Scryfall id
    oracle_id VARCHAR,
    name VARCHAR NOT NULL,
    set_code VARCHAR NOT NULL,          -- lowercase
    collector_number VARCHAR NOT NULL,
    lang VARCHAR,
    rarity VARCHAR,
    layout VARCHAR,
    type_line VARCHAR,
    mana_cost VARCHAR,
    mana_value DOUBLE,
    colors VARCHAR[],
    color_identity VARCHAR[],
    power VARCHAR,
    toughness VARCHAR,
    loyalty VARCHAR,
    oracle_text VARCHAR,
    in_booster BOOLEAN,
    finishes VARCHAR[],
    promo_types VARCHAR[],
    frame_effects VARCHAR[],
    full_art BOOLEAN,
    released_at DATE,
    source VARCHAR,                     -- scryfall | mtgjson
    -- derived (pipeline.load.DERIVED_COLUMNS)
    kind VARCHAR,                       -- card | token | art_card | minigame | emblem | other
    magic_back BOOLEAN,
    is_land BOOLEAN,
    is_basic_land BOOLEAN,
    is_creature BOOLEAN,
    is_legendary BOOLEAN,
    is_double_faced BOOLEAN,
    power_num DOUBLE,
    toughness_num DOUBLE,
    loyalty_num DOUBLE
);
CREATE INDEX cards_set_number ON cards (set_code, collector_number);

CREATE TABLE card_faces (
    card_id VARCHAR NOT NULL,
    face_index INTEGER NOT NULL,
    name VARCHAR,
    type_line VARCHAR,
    mana_cost VARCHAR,
    colors VARCHAR[],
    power VARCHAR,
    toughness VARCHAR,
    loyalty VARCHAR,
    oracle_text VARCHAR,
    PRIMARY KEY (card_id, face_index)
);

CREATE SEQUENCE sync_runs_seq;
CREATE TABLE sync_runs (
    id INTEGER PRIMARY KEY DEFAULT nextval('sync_runs_seq'),
    source VARCHAR NOT NULL,            -- scryfall-set | scryfall-sets | scryfall-bulk | file | mtgjson | collation | rebuild
    target VARCHAR,                     -- set codes, bulk type or file path
    started_at TIMESTAMP NOT NULL,
    finished_at TIMESTAMP,
    status VARCHAR NOT NULL,            -- ok | failed
    sets INTEGER DEFAULT 0,
    cards INTEGER DEFAULT 0,
    message VARCHAR,
    cache_files VARCHAR[]               -- relative to the cache folder, in ingest order
);

-- Booster products (collation). One model for every source: sealed-data, mtgjson, generic.
CREATE TABLE products (
    code VARCHAR PRIMARY KEY,           -- e.g. afr-draft, afr-set, afr-draft-mtgjson
    set_code VARCHAR NOT NULL,
    name VARCHAR,
    kind VARCHAR NOT NULL,              -- draft | set | collector | play | arena | jumpstart | theme | ...
    source VARCHAR NOT NULL             -- sealed-data | mtgjson | generic
);
CREATE TABLE product_variants (
    product_code VARCHAR NOT NULL,
    variant_index INTEGER NOT NULL,
    weight BIGINT NOT NULL,
    PRIMARY KEY (product_code, variant_index)
);
CREATE TABLE variant_slots (
    product_code VARCHAR NOT NULL,
    variant_index INTEGER NOT NULL,
    sheet_name VARCHAR NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (product_code, variant_index, sheet_name)
);
CREATE TABLE sheets (
    product_code VARCHAR NOT NULL,
    sheet_name VARCHAR NOT NULL,
    foil BOOLEAN NOT NULL DEFAULT false,
    balance_colors BOOLEAN NOT NULL DEFAULT false,
    allow_duplicates BOOLEAN NOT NULL DEFAULT false,
    fixed BOOLEAN NOT NULL DEFAULT false,
    total_weight BIGINT NOT NULL,
    PRIMARY KEY (product_code, sheet_name)
);
CREATE TABLE sheet_cards (
    product_code VARCHAR NOT NULL,
    sheet_name VARCHAR NOT NULL,
    ref VARCHAR NOT NULL,               -- as the source names it: "afr:12:foil" or an MTGJSON uuid
    set_code VARCHAR,                   -- lowercase, when known
    collector_number VARCHAR,
    foil BOOLEAN NOT NULL DEFAULT false,
    weight BIGINT NOT NULL,
    card_id VARCHAR,                    -- resolved Scryfall id, or NULL until a sync brings it
    PRIMARY KEY (product_code, sheet_name, ref)
);

-- MTGJSON names each face of a printing by its own uuid; booster sheets use these uuids.
CREATE TABLE mtgjson_uuids (
    uuid VARCHAR PRIMARY KEY,
    card_id VARCHAR NOT NULL,
    side VARCHAR
);
"""

#: Products remember the sets their sheets draw from (MTGJSON ``sourceSetCodes``), so a
#: missing card of another set still names the sync that brings it.
_V2 = "ALTER TABLE products ADD COLUMN source_sets VARCHAR[];"

#: Scryfall's card images (``image_uris``: the front face's for double-faced cards) and the
#: artist credit, for sheets printed with ``--images`` (MTGJSON gives the artist only).
#: Only the sizes a sheet can use: the four others would add ~400 bytes a card to every
#: ingest (a third more memory for a 400,000-card bulk file).
IMAGE_URIS = "STRUCT(small VARCHAR, normal VARCHAR)"
_V3 = f"ALTER TABLE cards ADD COLUMN image_uris {IMAGE_URIS}; ALTER TABLE cards ADD COLUMN artist VARCHAR;"

#: Card names in other languages (MTGJSON's ``foreignData``: French and Spanish, the sheets'
#: languages), with the printed type line: a French or Spanish sheet prints them. A card's
#: border colour (``borderless``…): pool sheets name the treatment beside a card.
_V4 = """
ALTER TABLE cards ADD COLUMN border_color VARCHAR;
CREATE TABLE card_names (
    card_id VARCHAR NOT NULL,
    lang VARCHAR NOT NULL,              -- fr, es
    name VARCHAR NOT NULL,              -- as printed: "Pégase d'Arborée", "A // B" for two faces
    type_line VARCHAR,                  -- as printed: "Créature : pégase"
    PRIMARY KEY (card_id, lang)
);
"""

#: A card's watermark (``obscura``, ``phyrexian``…): a fact some minigames score (Demon's Due:
#: "each card in their bank that has the watermark of their chosen crime family").
_V5 = "ALTER TABLE cards ADD COLUMN watermark VARCHAR;"

#: A card's Magic Online catalogue ids (MTGJSON ``identifiers.mtgoId``/``mtgoFoilId``, Scryfall
#: ``mtgo_id``/``mtgo_foil_id``): the ``CatID`` an MTGO ``.dek`` deck names each card by.
_V6 = "ALTER TABLE cards ADD COLUMN mtgo_id INTEGER; ALTER TABLE cards ADD COLUMN mtgo_foil_id INTEGER;"

#: Sealed products (boxes, bundles, prerelease packs and kits) and what each holds, as MTGJSON's
#: sealed-content data has it (``pipeline/sealed_contents.py``): booster packs by product
#: code, other sealed products by name, promo cards, decks and non-card items.
_V7 = """
CREATE TABLE sealed_products (
    set_code VARCHAR NOT NULL,          -- lowercase
    name VARCHAR NOT NULL,              -- as the data names it: "Adventures in the Forgotten Realms Bundle"
    contents VARCHAR NOT NULL,          -- JSON: {"pack": [...], "sealed": [...], "card": [...], ...}
    source VARCHAR NOT NULL,            -- sealed-contents | mtgjson
    PRIMARY KEY (set_code, name)
);
"""

MIGRATIONS: list[str] = [_V1, _V2, _V3, _V4, _V5, _V6, _V7]
SCHEMA_VERSION = len(MIGRATIONS)


class DatabaseError(BoosterkitError):
    """The database cannot be opened, is damaged, cannot be written, or is newer than this boosterkit."""


class NotADatabase(DatabaseError):
    """``--db`` names a file that is plainly something else (a JSON setup, a Parquet file):
    a usage error, refused before anything is read or written."""

    exit_code = 2


#: How other files start (a DuckDB file has ``DUCK`` at byte 8) → what the file is.
_FOREIGN = {
    b"SQLite format 3\0": "an SQLite database",
    b"PAR1": "a Parquet file",
    b"ARROW1": "an Arrow file",
    b"\x1f\x8b": "a gzip file",
    b"PK\x03\x04": "a zip file",
    b"%PDF": "a PDF file",
}


def foreign_file(path: Path) -> str | None:
    """What the file at ``path`` is when it is plainly not a DuckDB database (``a JSON
    file``), else None (a database, a damaged one, or no file: DuckDB tells those apart)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    if not head or head[8:12] == b"DUCK":
        return None
    for magic, what in _FOREIGN.items():
        if head.startswith(magic):
            return what
    if b"\0" in head:  # binary: a database whose header was overwritten is "damaged"
        return None
    return "a JSON file" if head.lstrip()[:1] in (b"{", b"[") else "a text file"


#: DuckDB's words for a damaged file → what we tell the user it is.
_DAMAGED = {
    "not a valid DuckDB database file": "not a DuckDB database file",
    "Could not read enough bytes": "truncated: shorter than its own index says",
    "Corrupt database file": "a block fails its checksum",
    "checksum": "a block fails its checksum",
    "Failed to deserialize": "unreadable metadata",
}
#: OS errors (by errno, and by their text inside DuckDB's messages) of a disk that refuses
#: writes → (what happened, what to do).
_FREE = "free some space (or raise the limit) and run the command again"
_DISK_ERRNO = {
    errno.ENOSPC: ("the disk is full", _FREE),
    errno.EFBIG: ("a file-size limit (ulimit -f) was reached", _FREE),
    errno.EDQUOT: ("the disk quota is exceeded", _FREE),
    errno.EROFS: ("the file system is read-only", "use a writable --db location"),
    errno.EACCES: (
        "permission denied (cannot open or write it)",
        "check the permissions of the file and its folder",
    ),
}
_DISK_TEXT = {
    "No space left on device": errno.ENOSPC,
    "File too large": errno.EFBIG,
    "Disk quota exceeded": errno.EDQUOT,
    "Read-only file system": errno.EROFS,
    "Permission denied": errno.EACCES,
}


def storage_error(path: str | Path, exc: BaseException) -> DatabaseError | None:
    """``exc`` as one line naming the file and what to do, when it is a storage failure.

    Storage failures: a damaged or foreign database file (DuckDB refuses it or a block fails
    its checksum), or a disk that refuses writes (full, a ``ulimit -f`` file-size limit, a
    quota, read-only). Anything else (a bug) gives ``None`` and should propagate unchanged.
    Writes happen in transactions, so after either failure the last committed data is intact.
    """
    if isinstance(exc, DatabaseError):
        return exc
    if isinstance(exc, OSError) and exc.errno in _DISK_ERRNO:
        where = exc.filename or f"{path} (or the cache folder beside it)"
        return _cannot_write(where, *_DISK_ERRNO[exc.errno])
    if not isinstance(exc, duckdb.Error):
        return None
    line = str(exc).strip().split("\n", 1)[0]
    for text, code in _DISK_TEXT.items():
        if text in line:
            return _cannot_write(path, *_DISK_ERRNO[code])
    for text, what in _DAMAGED.items():
        if text in line:
            return DatabaseError(
                f"{path}: the database file is damaged ({what}); nothing was changed: restore "
                "it from a backup, or move it aside and run your syncs and imports again"
            )
    if isinstance(exc, duckdb.FatalException) or "database has been invalidated" in line:
        return DatabaseError(
            f"{path}: DuckDB stopped after a failed write ({line.removeprefix('FATAL Error: ')}); "
            "the last committed data is kept: check the disk and run the command again"
        )
    return None


def _cannot_write(where: str | Path, reason: str, advice: str) -> DatabaseError:
    return DatabaseError(f"{where}: cannot write: {reason}; nothing was changed: {advice}")


@contextmanager
def guarded(path: str | Path) -> Iterator[None]:
    """Turn storage failures of the database at ``path`` into one-line ``DatabaseError``s,
    and running out of memory (Python's or DuckDB's) into ``OutOfMemory`` (exit 1)."""
    try:
        yield
    except (MemoryError, duckdb.OutOfMemoryException) as exc:
        raise OutOfMemory(
            "ran out of memory; nothing was changed: free some memory (or give the work in "
            "smaller parts) and run the command again",
            detail=one_line(exc),
        ) from None
    except (duckdb.Error, OSError) as exc:
        error = storage_error(path, exc)
        if error is None:
            raise
        raise error from exc


#: How to make a database: from Scryfall, or offline from MTGJSON / magic-sealed-data files.
NO_DATABASE_HINT = (
    "load cards first: `boosterkit sync SET` from Scryfall, or offline "
    "`boosterkit import mtgjson FILE...` and `boosterkit import collation FILE`; "
    "`--db :sample:` reads the bundled sample (AFR)"
)


def no_database(path: Path) -> str:
    """Why a read of ``path`` found nothing, and what to do: the databases of the current
    folder when there are any (a file loaded with ``--db`` or ``BOOSTERKIT_DB`` set in
    another shell), else how to load one."""
    try:
        here = sorted(p.name for p in Path.cwd().glob("*.duckdb") if p.resolve() != path.resolve())
    except OSError:  # the current folder is gone, or unreadable
        here = []
    if here:
        shown = ", ".join(f"./{n}" for n in here[:3]) + (" …" if len(here) > 3 else "")
        return (
            f"{path}: no database here yet; this folder has {shown}: "
            f"`--db ./{here[0]}` or BOOSTERKIT_DB=./{here[0]} reads it ({NO_DATABASE_HINT})"
        )
    return f"{path}: no database here yet ({NO_DATABASE_HINT})"


_HOLDER = re.compile(r"Conflicting lock is held in (?P<exe>.*?) \(PID (?P<pid>\d+)\)")
#: Seconds between attempts to open a file another process holds.
LOCK_POLL = 0.1


def _open(path: str | Path, read_only: bool) -> Connection:
    """``duckdb.connect``; a writer finding the file held by another process (a ``serve``
    between requests lets go after its linger) tries again for ``config.lock_wait()``
    seconds, then gets ``DatabaseHeld`` naming that process (a reader gets it at once)."""
    from boosterkit import config

    deadline = None
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as exc:
            held = _HOLDER.search(str(exc))
            if held is None:
                raise
            now = time.monotonic()
            deadline = deadline if deadline is not None else now + config.lock_wait()
            if read_only or now >= deadline:
                waited = "" if read_only else f"; waited {config.lock_wait():g} s for it to let go"
                raise DatabaseHeld(
                    f"{path}: the database is in use by {holder(int(held['pid']))}{waited}: "
                    f"{_WHAT_TO_DO}"
                ) from exc
            time.sleep(LOCK_POLL)


_WHAT_TO_DO = (
    "stop it, or run this when it is idle (a `boosterkit serve` lets go of the file 1 s "
    "after its last request; BOOSTERKIT_LOCK_WAIT sets how long a write waits)"
)


class DatabaseHeld(DatabaseError):
    """Another process holds the database file (DuckDB allows one writer or many readers)."""


def holder(pid: int) -> str:
    """Words for the process ``pid``: ``another boosterkit process (PID 12, boosterkit serve
    --port 8000)`` (also for a worker a boosterkit process started: its command is named),
    or ``another process (PID 12)`` when it is not boosterkit's."""
    at = pid
    for _ in range(3):  # the process, its parent (a serve worker's), their parent
        args = _argv(at)
        for i, a in enumerate(args):
            if a.endswith("boosterkit") or a in ("boosterkit.cli", "boosterkit.cli.__main__"):
                shown = escape_controls(" ".join(["boosterkit", *args[i + 1 :]]))[:120]
                return f"another boosterkit process (PID {pid}, {shown})"
        try:
            at = int(Path(f"/proc/{at}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        if at <= 1:
            break
    return f"another process (PID {pid})"


def _argv(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace")
    except OSError:
        return []
    return [a for a in raw.split("\0") if a]


#: WAL size past which a commit checkpoints (DuckDB's default is 16 MiB).
CHECKPOINT_THRESHOLD = "4MiB"


def connect(path: str | Path, *, read_only: bool = False) -> Connection:
    """Open (and on first use create) the database at ``path``, migrated to SCHEMA_VERSION.

    ``path`` may be ``":memory:"`` for tests. Read-only connections are never migrated; a
    read-only open of a missing or outdated file is an error. A damaged file or a full disk
    is a one-line ``DatabaseError`` (see ``storage_error``).
    """
    if str(path) != ":memory:":
        p = Path(path)
        if read_only and not p.exists():
            raise DatabaseError(no_database(p))
        what = foreign_file(p) if p.is_file() else None
        if what is not None:
            raise NotADatabase(
                f"{p}: not a boosterkit database ({what}); nothing was read or changed: give "
                "--db a database file boosterkit made (or a new name, for a new database)"
            )
        with guarded(p):
            p.parent.mkdir(parents=True, exist_ok=True)
    try:
        con = _open(path, read_only)
    except duckdb.Error as exc:
        raise storage_error(path, exc) or DatabaseError(
            f"{path}: cannot open database: {exc}"
        ) from exc
    try:
        with guarded(path):
            # DuckDB draws a progress bar on stdout for long queries: it would corrupt --json.
            con.execute("SET enable_progress_bar = false")
            if not read_only:
                # A bulk commit is written once, by a checkpoint, instead of to the WAL and
                # then again by the checkpoint on close (25,000 cards: 0.14 → 0.11 s).
                con.execute(f"SET checkpoint_threshold = '{CHECKPOINT_THRESHOLD}'")
            version = schema_version(con, path)
            if version < SCHEMA_VERSION and not read_only:
                migrate(con, version)
    except BaseException:
        con.close()
        raise
    if version > SCHEMA_VERSION:
        con.close()
        raise DatabaseError(
            f"{path}: schema version {version} is newer than this boosterkit ({SCHEMA_VERSION})"
        )
    if version < SCHEMA_VERSION and read_only:
        con.close()
        raise DatabaseError(
            f"{path}: schema version {version} needs a migration; open it once read-write"
        )
    return con


def one_row(con: Connection, sql: str, params: Sequence[object] = ()) -> tuple[Any, ...]:
    """The one row of ``sql`` (an aggregate, or a look-up known to match)."""
    found = con.execute(sql, params).fetchone()
    if found is None:
        raise LookupError(f"no row from {sql!r}")
    return found


def scalar(con: Connection, sql: str, params: Sequence[object] = ()) -> Any:
    """The first value of the one row of ``sql`` (``SELECT count(*) …``)."""
    return one_row(con, sql, params)[0]


def fingerprint(con: Connection) -> dict[str, tuple[int, int | None]]:
    """``{table: (rows, hash of every row)}`` of every table: reads every block of the file.

    Equal fingerprints mean equal data; a damaged block raises (see ``verify``).
    """
    tables = [
        r[0]
        for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
            "AND table_type = 'BASE TABLE' AND table_catalog = current_database() ORDER BY 1"
        ).fetchall()
    ]
    out: dict[str, tuple[int, int | None]] = {}
    for table in tables:
        n, h = one_row(con, f'SELECT count(*), bit_xor(hash(t)) FROM "{table}" t')
        out[table] = (int(n), None if h is None else int(h))
    return out


def verify(con: Connection, path: str | Path) -> None:
    """Read every row of every table once: a damaged file is a one-line ``DatabaseError``."""
    with guarded(path):
        fingerprint(con)


def schema_version(con: Connection, path: str | Path = "the database") -> int:
    """The number of migrations applied (0 for an empty database); anything but a number
    in ``meta`` is a ``DatabaseError`` naming ``path`` (no migration is run over it)."""
    exists = scalar(con, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'meta'")
    if not exists:
        return 0
    row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None:
        return 0
    value = row[0]
    if not (isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 6):
        raise DatabaseError(
            f"{path}: the schema version is {value!r}, not a number of migrations: the file "
            "is damaged or not boosterkit's; restore it from a backup, or move it aside and "
            "run your syncs and imports again"
        )
    return int(value)


def migrate(con: Connection, from_version: int) -> None:
    """Apply the migrations after ``from_version``, all in one transaction."""
    with transaction(con):
        for sql in MIGRATIONS[from_version:]:
            con.execute(sql)
        con.execute(
            "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)]
        )


@contextmanager
def transaction(con: Connection) -> Iterator[Connection]:
    """BEGIN … COMMIT, or ROLLBACK on any exception: a failed load changes nothing."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
    except BaseException:
        # The block may have ended its transaction (``ingest.load_halves`` runs work between
        # two): then there is nothing to roll back, and the block's error is the one to see.
        with contextlib.suppress(duckdb.TransactionException):
            con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
