"""The DuckDB database: opening it, its schema, forward migrations and transactions.

Every table boosterkit keeps is declared here, so the schema reads in one place. A migration
is appended to ``MIGRATIONS`` and never edited once released; ``schema_version`` in table
``meta`` says how many have run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from boosterkit.errors import BoosterkitError

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

MIGRATIONS: list[str] = [_V1]
SCHEMA_VERSION = len(MIGRATIONS)


class DatabaseError(BoosterkitError):
    """The database cannot be opened or is newer than this boosterkit."""


def connect(path: str | Path, *, read_only: bool = False) -> Connection:
    """Open (and on first use create) the database at ``path``, migrated to SCHEMA_VERSION.

    ``path`` may be ``":memory:"`` for tests. Read-only connections are never migrated; a
    read-only open of a missing or outdated file is an error.
    """
    if str(path) != ":memory:":
        p = Path(path)
        if read_only and not p.exists():
            raise DatabaseError(f"{p}: no database here yet (run `boosterkit sync` first)")
        p.parent.mkdir(parents=True, exist_ok=True)
    try:
        con = duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as exc:
        raise DatabaseError(f"{path}: cannot open database: {exc}") from exc
    # DuckDB draws a progress bar on stdout for long queries: it would corrupt --json output.
    con.execute("SET enable_progress_bar = false")
    version = schema_version(con)
    if version > SCHEMA_VERSION:
        con.close()
        raise DatabaseError(
            f"{path}: schema version {version} is newer than this boosterkit ({SCHEMA_VERSION})"
        )
    if version < SCHEMA_VERSION:
        if read_only:
            con.close()
            raise DatabaseError(f"{path}: schema version {version} needs a migration; open it once read-write")
        migrate(con, version)
    return con


def schema_version(con: Connection) -> int:
    """The number of migrations applied (0 for an empty database)."""
    exists = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'meta'"
    ).fetchone()[0]
    if not exists:
        return 0
    row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


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
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
