"""Scryfall files → ``cards``/``card_faces``/``sets``, streamed by DuckDB.

One code path for everything Scryfall-shaped: a bulk file (JSON array of cards, plain or
gzip), a search page or any list object, a single card object, newline-delimited cards, a
set object or a list of sets. Card files are never parsed into Python objects: DuckDB's
``read_json`` streams them with an explicit column list (``transform.CARD_JSON_COLUMNS``).

Cards go through the staging tables of ``pipeline.load`` (``load_files``), except a big
plain array loaded into a database with no cards: its two halves go straight into the
tables in one statement (``load_direct``). Functions here load into the caller's open
transaction; callers wrap them in ``pipeline.runs.recorded`` so that a bad file changes
nothing.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from boosterkit.errors import BoosterkitError, InputError, OutOfMemory, one_line
from boosterkit.pipeline import files, load
from boosterkit.pipeline.db import Connection, one_row, scalar
from boosterkit.pipeline.scryfall import transform

_COLUMNS = {"cards": transform.CARD_JSON_COLUMNS, "sets": transform.SET_JSON_COLUMNS}


@dataclass(frozen=True)
class Shape:
    """What a Scryfall file holds: ``cards`` (with a DuckDB reading plan) or ``sets``."""

    holds: str  # "cards" | "sets"
    format: str  # "array" | "unstructured" | "list"
    compression: str  # "gzip" | "none"


#: A set code as SQL (``%`` the column): 2–8 letters or digits, as ``sync`` checks them.
SET_CODE_SQL = "regexp_full_match(lower(%s), '[a-z0-9]{2,8}')"  # = sync.SET_CODE_PATTERN


def _sql_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _first_char(path: Path) -> tuple[str, str]:
    """The compression and the first non-blank character of ``path``."""
    with files.open_input(path) as f:
        gz = isinstance(f, gzip.GzipFile)
        try:
            head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
        except (OSError, EOFError) as exc:
            raise InputError(f"{path}: cannot read: {exc}") from None
    return ("gzip" if gz else "none"), head[:1].decode("latin-1")


def _duck_error(path: Path, exc: duckdb.Error) -> BoosterkitError:
    """What DuckDB said of reading ``path``, as one line: the file's fault (exit 2), but for
    running out of memory, which is the machine's (exit 1)."""
    if isinstance(exc, duckdb.OutOfMemoryException):
        return OutOfMemory(
            f"{path}: ran out of memory reading it; nothing was changed: free some memory, "
            "or load the file in parts",
            detail=one_line(exc),
        )
    msg = str(exc).split("\n", 1)[0].replace(str(path), "").replace(' in file ""', "")
    msg = msg.removeprefix("Invalid Input Error: ").removeprefix("Conversion Error: ").strip()
    return InputError(f"{path}: not a valid Scryfall JSON file: {msg}")


def _mtgjson_head(path: Path) -> bool:
    """Whether ``path`` starts like an MTGJSON v5 file: ``{"meta": …`` or ``{"data": …``."""
    with files.open_input(path) as f:
        head = f.read(256).lstrip(b"\xef\xbb\xbf \t\r\n")
    return re.match(rb'\{\s*"(meta|data)"\s*:', head) is not None


def _sealed_head(path: Path) -> bool:
    """Whether ``path`` starts like a magic-sealed-data export: a list of products, each with
    ``boosters`` and ``sheets`` (keys no Scryfall object has)."""
    with files.open_input(path) as f:
        try:
            head = f.read(65536)
        except (OSError, EOFError):
            return False
    return all(re.search(rb'"%s"\s*:' % key, head) for key in (b"boosters", b"sheets"))


def detect(con: Connection, path: Path) -> Shape:
    """Classify ``path``; wrong shapes are an ``InputError`` naming the file."""
    compression, first = _first_char(path)
    if first == "[":
        return Shape("cards", "array", compression)
    if first != "{":
        what = "an empty file" if not first else f"text starting with {first!r}"
        raise InputError(
            f"{path}: expected a JSON array of Scryfall card objects or a list object, got {what}"
        )
    src = _sql_str(str(path))
    try:
        row = con.execute(
            f"SELECT object, data[1].object, len(data), details FROM read_json({src}, "
            "format='unstructured', compression=" + _sql_str(compression) + ", "
            "columns={'object': 'VARCHAR', 'data': 'STRUCT(object VARCHAR)[]', 'details': 'VARCHAR'}) LIMIT 1"
        ).fetchone()
    except duckdb.Error as exc:
        if _mtgjson_head(path):
            raise InputError(
                f'{path}: an MTGJSON file ({{"meta", "data"}}), not Scryfall data: '
                "use `boosterkit import mtgjson`"
            ) from None
        raise _duck_error(path, exc) from None
    obj, inner, n, details = row if row else (None, None, None, None)
    if obj == "card":
        return Shape("cards", "unstructured", compression)
    if obj == "set":
        return Shape("sets", "unstructured", compression)
    if obj == "list" and (inner == "card" or n == 0):
        return Shape("cards", "list", compression)
    if obj == "list" and inner == "set":
        return Shape("sets", "list", compression)
    if obj == "error":
        raise InputError(f"{path}: holds a Scryfall error, not cards: {details}")
    found = (
        f"a list of {inner!r} objects"
        if obj == "list"
        else (f"an object of type {obj!r}" if obj else 'an object without an "object" field')
    )
    raise InputError(f"{path}: expected Scryfall card or set objects, found {found}")


def _raw_select(path: Path | list[str], shape: Shape) -> str:
    """SQL reading the objects of ``path`` (or of several files) as rows of raw columns."""
    src = (
        _sql_str(str(path))
        if isinstance(path, Path)
        else "[" + ", ".join(_sql_str(p) for p in path) + "]"
    )
    comp = _sql_str(shape.compression)
    cols = _COLUMNS[shape.holds]
    if shape.format == "list":
        data = _sql_str(transform.struct_sql(cols) + "[]")
        return (
            f"SELECT d.* FROM (SELECT unnest(data) AS d FROM read_json({src}, "
            f"format='unstructured', compression={comp}, columns={{'data': {data}}}))"
        )
    return (
        f"SELECT * FROM read_json({src}, format={_sql_str(shape.format)}, compression={comp}, "
        f"columns={transform.json_columns_sql(cols)}, maximum_object_size=67108864)"
    )


def _stage_raw(con: Connection, path: Path, shape: Shape) -> None:
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE stage_raw AS {_raw_select(path, shape)}")
    except duckdb.Error as exc:
        raise _duck_error(path, exc) from None


#: The fields every card must have → the staging column holding each.
_REQUIRED = {"id": "id", "name": "name", "set": "_set", "collector_number": "collector_number"}
#: What DuckDB raises for a file it will not load as asked (malformed JSON, a wrong cut, a
#: key twice, a value of the wrong type, a row ``_direct_sql`` refuses): another way may.
#: Anything else (a full disk, no memory, an interrupt) is no reason to read again.
_REJECTED = (duckdb.InvalidInputException, duckdb.ConstraintException, duckdb.ConversionException)


def _check_cards(con: Connection, path: Path, new: str) -> None:
    """Every staged object of this file is a card with the required fields."""
    bad = con.execute(
        f"SELECT rowid, _object, {', '.join(_REQUIRED.values())} {new} AND "
        f"(_object IS DISTINCT FROM 'card' OR {' OR '.join(f'{c} IS NULL' for c in _REQUIRED.values())}) "
        "ORDER BY rowid LIMIT 1"
    ).fetchone()
    if bad is None:
        return
    rowid, obj, *fields = bad
    n = scalar(con, f"SELECT count(*) {new} AND rowid <= ?", [rowid])
    if obj != "card":
        if n == 1 and _sealed_head(path):
            raise InputError(
                f"{path}: booster collation data (a magic-sealed-data export), not "
                "Scryfall cards: use `boosterkit import collation`"
            )
        raise InputError(f"{path}: element {n} is not a card object (object={obj!r})")
    missing = [c for c, v in zip(_REQUIRED, fields) if v is None]
    raise InputError(f"{path}: card {n} has no {', '.join(missing)}")


#: Extra staging columns (beyond ``load.RAW_COLUMNS``, which ``upsert_staged`` reads) that
#: keep what validation, faces and set rows need, so cards are copied once, not twice.
_EXTRA = {
    "_object": "c.object",
    "_faces": "c.card_faces",
    "_set_name": "c.set_name",
    "_set_type": "c.set_type",
    "_set_id": "c.set_id",
    "_set": "c.set",
}


def _add_extra_columns(con: Connection) -> None:
    types = {"_faces": transform.CARD_JSON_COLUMNS["card_faces"]}
    for col in _EXTRA:
        con.execute(
            f"ALTER TABLE stage_cards ADD COLUMN IF NOT EXISTS {col} {types.get(col, 'VARCHAR')}"
        )


def _insert_cards(con: Connection, source: Path | list[str], shape: Shape) -> None:
    """Append the raw cards of ``source`` (a file, or the halves of one) to ``stage_cards``.

    For halves, whether a row needs text cleaning is decided here, in the parse's own pass
    and threads. A file read whole is parsed on one thread: its rows are left to
    ``upsert_staged``, whose check runs on every core once the rows are staged.
    """
    _add_extra_columns(con)
    cols = {**transform.CARD_SELECT, **_EXTRA}
    exprs = ", ".join(f"{e} AS {c}" for c, e in cols.items())
    dirty = load.staged_dirty_sql("s") if isinstance(source, list) else "NULL"
    con.execute(
        f"INSERT INTO stage_cards ({', '.join(cols)}, _dirty) "
        f"SELECT s.*, {dirty} FROM (SELECT {exprs} FROM ({_raw_select(source, shape)}) c) s"
    )


#: The shape whose big files are cut in two (``pipeline.halves``) and parsed on two threads.
SPLIT = Shape("cards", "array", "none")


def prestage(con: Connection, parts: list[str]) -> bool:
    """Stage the cards of the two halves of a big plain array file (``halves``) on two
    threads, into fresh staging tables that ``load_files(…, prestaged=path)`` then completes.

    Runs outside any transaction (a failed statement there would abort it). False (nothing
    staged) when DuckDB rejects a half: load the file whole then.
    """
    load.create_staging(con)
    try:
        _insert_cards(con, parts, SPLIT)
    except _REJECTED:
        return False
    return True


def _faces_select(rows: str) -> str:
    """The ``FACE_SELECT`` rows of the cards ``rows`` (``FROM … WHERE …`` over rows with
    ``id`` and ``_faces``)."""
    exprs = ", ".join(f"{e} AS {k}" for k, e in transform.FACE_SELECT.items())
    return f"""SELECT {exprs} FROM (
        SELECT id, unnest(_faces) AS f, generate_subscripts(_faces, 1) - 1 AS i
        {rows} AND len(_faces) > 0) AS c"""


def _new_sets_sql(rows: str) -> str:
    """``INSERT INTO sets`` the sets the cards ``rows`` name that it lacks, from the card's
    own set fields."""
    return f"""INSERT INTO sets (code, name, set_type, scryfall_id, source)
        SELECT set_code, any_value(_set_name), any_value(_set_type), any_value(_set_id), 'scryfall'
        {rows} GROUP BY set_code
        ON CONFLICT (code) DO NOTHING"""


def _direct_sql(parts: list[str]) -> str:
    """One statement: the halves parsed once (on two threads) into ``cards``, ``card_faces``
    and ``sets`` (DuckDB's data-modifying common table expressions over one materialized
    parse; the cards' insert sees the set rows the statement makes). A row that
    ``stage_cards_file`` would reject raises an error; a row with a set code it would drop is
    dropped. Cards whose text needs cleaning (almost never) go to ``stage_cards`` instead:
    cleaning every row on the way costs 0.3 CPU-s per 100,000."""
    cols = {**transform.CARD_SELECT, **_EXTRA}
    exprs = ", ".join(f"{e} AS {c}" for c, e in cols.items())
    bad = " OR ".join(
        ["s._object IS DISTINCT FROM 'card'"] + [f"s.{c} IS NULL" for c in _REQUIRED.values()]
    )
    faces = ", ".join(transform.FACE_SELECT)
    raw = ", ".join(load.RAW_COLUMNS)
    return f"""
        WITH p AS MATERIALIZED (
            SELECT s.*, {load.staged_dirty_sql("s")} AS _dirty
            FROM (SELECT {exprs} FROM ({_raw_select(parts, SPLIT)}) c) s
            WHERE CASE WHEN {bad} THEN error('not loaded straight in: stage it')
                  ELSE {SET_CODE_SQL % "s.set_code"} END),
        f AS (INSERT INTO card_faces ({faces})
              {load.clean_faces_sql(f"({_faces_select('FROM p WHERE true')})")}),
        n AS ({_new_sets_sql("FROM p")}),
        d AS (INSERT INTO stage_cards ({raw}, _dirty)
              SELECT {raw}, true FROM p WHERE _dirty IS NOT false)
        {load.insert_cards_sql("(FROM p WHERE _dirty IS false)", clean=False)}"""


def _load_direct(con: Connection, parts: list[str]) -> int:
    """``_direct_sql``, then the cards it staged cleaned into ``cards``; return the cards."""
    load.create_staging(con)
    (cards,) = one_row(con, _direct_sql(parts))
    dirty = scalar(con, "SELECT count(*) FROM stage_cards")
    if dirty:
        con.execute(load.insert_cards_sql("stage_cards", clean=True))
    return int(cards) + int(dirty)


def load_direct(con: Connection, parts: list[str]) -> dict[str, int] | None:
    """Load the halves of a big plain array file straight into an empty ``cards`` (and
    ``card_faces``, ``sets``), with no staging copy of the cards: one copy fewer than
    ``prestage`` + ``load_files``.

    Must be the first statement of the caller's transaction. None, with that transaction
    rolled back, when the database holds cards or DuckDB rejects the load (a half, a card
    twice, an element that is not a card…): load the file the staged way then, which keeps
    the first row of an id and says what is wrong.
    """
    try:
        if scalar(con, "SELECT NOT EXISTS (FROM cards) AND NOT EXISTS (FROM card_faces)"):
            cards = _load_direct(con, parts)
            load.clean_set_names(con)
            card_sets = scalar(con, "SELECT count(DISTINCT set_code) FROM cards")
            return {"sets": 0, "cards": cards, "card_sets": int(card_sets)}
    except _REJECTED:
        pass
    con.execute("ROLLBACK")
    return None


def load_halves(con: Connection, path: Path, parts: list[str]) -> tuple[dict[str, int], bool]:
    """Load ``path``, a big plain array file, from its two halves (``halves``); return the
    ``load_files`` counts and whether the halves were read (a faithful copy of ``path``).

    Must be the first statement of the caller's transaction. Straight into an empty
    database (``load_direct``); else staged from the halves, the staging done between two
    transactions (``prestage``); else, when DuckDB rejects a half, read whole.
    """
    counts = load_direct(con, parts)
    if counts is not None:
        return counts, True
    try:
        staged = prestage(con, parts)
    finally:
        con.execute("BEGIN TRANSACTION")
    return load_files(con, [path], prestaged=path if staged else None), staged


def stage_cards_file(
    con: Connection, path: Path, shape: Shape | None = None, *, inserted: bool = False
) -> int:
    """Append the cards of ``path`` to ``stage_cards``/``stage_faces``; return how many.

    Call ``load.create_staging(con)`` first, or ``prestage`` (then ``inserted=True``: the raw
    rows are in ``stage_cards`` already). Unknown sets named by the cards are added to
    ``sets`` from the card's own set fields, so derived columns (token, minigame…) are right.
    """
    shape = shape or detect(con, path)
    start = -1
    if not inserted:
        start = scalar(con, "SELECT coalesce(max(rowid), -1) FROM stage_cards")
        try:
            _insert_cards(con, path, shape)
        except duckdb.Error as exc:
            raise _duck_error(path, exc) from None
    new = f"FROM stage_cards WHERE rowid > {int(start)}"
    _check_cards(con, path, new)
    con.execute(f"DELETE {new} AND NOT {SET_CODE_SQL % 'set_code'}")  # never a set code
    con.execute(
        f"INSERT INTO stage_faces ({', '.join(transform.FACE_SELECT)}) {_faces_select(new)}"
    )
    con.execute(_new_sets_sql(new))
    return int(scalar(con, f"SELECT count(*) {new}"))


def load_sets_file(con: Connection, path: Path, shape: Shape | None = None) -> int:
    """Upsert the set objects of ``path`` (a set object or a list of sets); return how many."""
    shape = shape or detect(con, path)
    _stage_raw(con, path, shape)
    bad = con.execute(
        "SELECT rowid FROM stage_raw WHERE object IS DISTINCT FROM 'set' OR code IS NULL "
        "ORDER BY rowid LIMIT 1"
    ).fetchone()
    if bad:
        n = scalar(con, "SELECT count(*) FROM stage_raw WHERE rowid <= ?", [bad[0]])
        raise InputError(f"{path}: element {n} is not a set object with a code")
    cols = ", ".join(transform.SET_SELECT)
    exprs = ", ".join(transform.SET_SELECT.values())
    updates = ", ".join(f"{c} = excluded.{c}" for c in transform.SET_SELECT if c != "code")
    con.execute(
        f"INSERT INTO sets ({cols}) SELECT {exprs} FROM stage_raw s WHERE {SET_CODE_SQL % 's.code'} "
        f"QUALIFY row_number() OVER (PARTITION BY lower(s.code) ORDER BY rowid DESC) = 1 "
        f"ON CONFLICT (code) DO UPDATE SET {updates}"
    )
    n = scalar(con, "SELECT count(*) FROM stage_raw")
    con.execute("DROP TABLE stage_raw")
    return int(n)


def load_files(
    con: Connection, paths: list[Path], *, prestaged: Path | None = None
) -> dict[str, int]:
    """Load Scryfall files in order; return ``{"sets", "cards", "card_sets"}`` counts.

    Sets are upserted as they come; all cards are staged, then upserted once, after the
    set rows they depend on, and derived columns of existing cards are refreshed.
    ``prestaged``: the one file of ``paths`` whose raw rows ``prestage`` already staged.
    """
    if prestaged is None:
        load.create_staging(con)
    sets = cards = 0
    for path in paths:
        shape = detect(con, path)
        if shape.holds == "sets":
            sets += load_sets_file(con, path, shape)
        else:
            cards += stage_cards_file(con, path, shape, inserted=path == prestaged)
    card_sets = scalar(con, "SELECT count(DISTINCT set_code) FROM stage_cards")
    load.upsert_staged(con)
    if sets:
        load.rederive(con)
    return {"sets": sets, "cards": cards, "card_sets": int(card_sets)}


def replay(con: Connection, files: list[Path], target: str | None) -> None:
    """``rebuild`` replayer for every Scryfall source: the same loading as the first time."""
    load_files(con, files)
