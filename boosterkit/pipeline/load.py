"""The one load step every source shares: staged printings → ``cards`` / ``card_faces``.

A source (Scryfall pages, a bulk file, MTGJSON) only fills the temporary tables
``stage_cards`` and ``stage_faces`` with raw columns (``RAW_COLUMNS`` / ``FACE_COLUMNS``);
``upsert_staged`` derives ``kind``, ``magic_back``, ``is_land`` … in SQL and upserts by id.
Call it inside ``db.transaction`` so a failure leaves the previous data intact.

Every text field is cleaned on the way in (``clean_sql``), whatever the source: control
characters (NUL included), bidirectional overrides and invisible format characters are
removed, and line breaks survive only in rules text. So nothing an upstream smuggles into a
name reaches a sheet, a CSV file or a terminal.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager

import duckdb

from boosterkit.pipeline.db import IMAGE_URIS, Connection, one_row, scalar

#: name → DuckDB type of every raw column a source provides (the ``cards`` columns that are
#: not derived). Sources may leave any of them NULL except id, name, set_code, collector_number.
RAW_COLUMNS: dict[str, str] = {
    "id": "VARCHAR",
    "oracle_id": "VARCHAR",
    "name": "VARCHAR",
    "set_code": "VARCHAR",
    "collector_number": "VARCHAR",
    "lang": "VARCHAR",
    "rarity": "VARCHAR",
    "layout": "VARCHAR",
    "type_line": "VARCHAR",
    "mana_cost": "VARCHAR",
    "mana_value": "DOUBLE",
    "colors": "VARCHAR[]",
    "color_identity": "VARCHAR[]",
    "power": "VARCHAR",
    "toughness": "VARCHAR",
    "loyalty": "VARCHAR",
    "oracle_text": "VARCHAR",
    "in_booster": "BOOLEAN",
    "finishes": "VARCHAR[]",
    "promo_types": "VARCHAR[]",
    "frame_effects": "VARCHAR[]",
    "full_art": "BOOLEAN",
    "border_color": "VARCHAR",
    "released_at": "DATE",
    "source": "VARCHAR",
    "image_uris": IMAGE_URIS,
    "artist": "VARCHAR",
    "watermark": "VARCHAR",
    "mtgo_id": "INTEGER",
    "mtgo_foil_id": "INTEGER",
}

#: name → DuckDB type of every column of ``sets`` (each source fills those it knows).
SET_COLUMNS: dict[str, str] = {
    "code": "VARCHAR",
    "name": "VARCHAR",
    "set_type": "VARCHAR",
    "released_at": "DATE",
    "card_count": "INTEGER",
    "printed_size": "INTEGER",
    "parent_set_code": "VARCHAR",
    "digital": "BOOLEAN",
    "scryfall_id": "VARCHAR",
    "icon_svg_uri": "VARCHAR",
    "source": "VARCHAR",
}

FACE_COLUMNS: dict[str, str] = {
    "card_id": "VARCHAR",
    "face_index": "INTEGER",
    "name": "VARCHAR",
    "type_line": "VARCHAR",
    "mana_cost": "VARCHAR",
    "colors": "VARCHAR[]",
    "power": "VARCHAR",
    "toughness": "VARCHAR",
    "loyalty": "VARCHAR",
    "oracle_text": "VARCHAR",
}

#: Layouts whose two faces are printed on the two sides of the card (so: no Magic back).
DOUBLE_FACED_LAYOUTS = (
    "transform",
    "modal_dfc",
    "meld",
    "double_faced_token",
    "reversible_card",
    "art_series",
    "battle",
)

#: Characters removed from every text field: C0/C1 controls but tab, LF and CR (handled
#: below), zero-width space, LRM/RLM, bidi embeddings/overrides/isolates, BOM (RE2 syntax).
_INVISIBLE = (
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\x{200b}\x{200e}\x{200f}"
    r"\x{202a}-\x{202e}\x{2066}-\x{2069}\x{feff}]"
)
#: Anything ``clean_sql`` changes: one scan decides whether a value needs cleaning at all.
_UNCLEAN = r"[\x00-\x1f\x7f-\x9f\x{200b}\x{200e}\x{200f}\x{2028}\x{2029}\x{202a}-\x{202e}\x{2066}-\x{2069}\x{feff}]"
_UNCLEAN_MULTILINE = _UNCLEAN.replace(r"\x00-\x1f", r"\x00-\x09\x0b-\x1f")
#: Text fields whose line breaks are kept (as LF): rules text.
MULTILINE = ("oracle_text",)


def clean_sql(expr: str, multiline: bool = False) -> str:
    """SQL for the text ``expr`` without control and invisible characters.

    Single-line fields get one space for each run of tabs and line breaks; multi-line
    fields keep line breaks as LF (CR LF, CR, U+2028/9 become LF) and turn tabs into spaces.
    """
    if multiline:
        body = (
            rf"regexp_replace(regexp_replace({expr}, '\r\n?|[\x{{2028}}\x{{2029}}]', "
            rf"chr(10), 'g'), '\t', ' ', 'g')"
        )
    else:
        body = rf"regexp_replace({expr}, '[\t\n\r\x{{2028}}\x{{2029}}]+', ' ', 'g')"
    unclean = _UNCLEAN_MULTILINE if multiline else _UNCLEAN
    return (
        f"CASE WHEN regexp_matches({expr}, '{unclean}') "
        f"THEN regexp_replace({body}, '{_INVISIBLE}', '', 'g') ELSE {expr} END"
    )


def _cleaned(column: str, sql_type: str, alias: str = "s") -> str:
    """``alias.column``, cleaned when it is text (``VARCHAR`` or ``VARCHAR[]``) and the row
    is flagged ``_dirty`` (see ``_dirty_sql``)."""
    ref = f"{alias}.{column}"
    if sql_type == "VARCHAR":
        clean = clean_sql(ref, column in MULTILINE)
    elif sql_type == "VARCHAR[]":
        clean = f"[{clean_sql('v')} for v in {ref}]"
    else:
        return ref
    return f"CASE WHEN {alias}._dirty THEN {clean} ELSE {ref} END"


def _dirty_sql(columns: dict[str, str], alias: str) -> str:
    """SQL: whether any text field of the row needs cleaning (two regex scans of the row's
    text rather than one per column)."""
    single = [f"{alias}.{c}" for c, t in columns.items() if t == "VARCHAR" and c not in MULTILINE]
    single += [f"array_to_string({alias}.{c}, '')" for c, t in columns.items() if t == "VARCHAR[]"]
    checks = [f"regexp_matches(concat_ws('', {', '.join(single)}), '{_UNCLEAN}')"]
    checks += [
        f"regexp_matches(coalesce({alias}.{c}, ''), '{_UNCLEAN_MULTILINE}')"
        for c in MULTILINE
        if c in columns
    ]
    return " OR ".join(checks)


def staged_dirty_sql(alias: str) -> str:
    """SQL: whether the ``RAW_COLUMNS`` of row ``alias`` need cleaning. A source may store it
    in ``stage_cards._dirty`` while it stages (in the same pass as its parse, on as many
    threads); rows left NULL are checked by ``upsert_staged``."""
    return _dirty_sql(RAW_COLUMNS, alias)


def _card_dirty(alias: str) -> str:
    return f"coalesce({alias}._dirty, {staged_dirty_sql(alias)})"


def _flagged(source: str) -> str:
    """Staged cards ``source`` with ``_dirty`` decided for every row, for ``_cleaned``."""
    return f"(SELECT * REPLACE ({_card_dirty('d')} AS _dirty) FROM {source} d)"


def _any_dirty(con: Connection, table: str, dirty: str) -> bool:
    """Whether any row of ``table`` has text to clean (about 0.2 s per 100,000 cards unless
    ``_dirty`` was stored)."""
    return bool(scalar(con, f"SELECT EXISTS (SELECT 1 FROM {table} d WHERE {dirty})"))


# The front face's type line decides land/creature/legendary: "Instant // Land" is an instant.
_FRONT = "split_part(coalesce(s.type_line, ''), ' // ', 1)"
_DF = ", ".join(f"'{x}'" for x in DOUBLE_FACED_LAYOUTS)


def _finite(expr: str) -> str:
    """SQL: the number ``expr``, or NULL for NaN and the infinities (``"NaN"`` casts to one),
    so no JSON written from the database holds a ``NaN`` token."""
    return f"CASE WHEN isfinite({expr}) THEN {expr} END"


def _derived(front: str) -> dict[str, str]:
    """SQL expressions (over ``stage_cards s`` joined to ``sets st``) for the derived columns;
    ``front`` is the front face's type line (``_FRONT``, or a column holding it)."""
    return {
        "kind": f"""CASE
        WHEN st.set_type = 'minigame' THEN 'minigame'
        WHEN s.layout = 'art_series' THEN 'art_card'
        WHEN s.layout = 'emblem' OR {front} LIKE '%Emblem%' THEN 'emblem'
        WHEN s.layout IN ('token', 'double_faced_token') OR st.set_type = 'token'
             OR {front} LIKE 'Token%' THEN 'token'
        WHEN s.layout IN ('planar', 'scheme', 'vanguard', 'augment', 'host')
             OR st.set_type = 'memorabilia' THEN 'other'
        ELSE 'card' END""",
        "is_double_faced": f"coalesce(s.layout IN ({_DF}), false)",
        "is_land": f"regexp_matches({front}, '\\bLand\\b')",
        "is_basic_land": f"regexp_matches({front}, '\\bBasic\\b.*\\bLand\\b')",
        "is_creature": f"regexp_matches({front}, '\\bCreature\\b')",
        "is_legendary": f"regexp_matches({front}, '\\bLegendary\\b')",
        **{
            f"{c}_num": _finite(f"TRY_CAST(s.{c} AS DOUBLE)")
            for c in ("power", "toughness", "loyalty")
        },
    }


#: The derived columns' SQL over ``s`` / ``st``.
DERIVED_COLUMNS: dict[str, str] = _derived(_FRONT)


@contextmanager
def one_thread(con: Connection) -> Iterator[None]:
    """DuckDB on one thread for the block. An insert into the indexed ``cards`` gains nothing
    from a second thread and costs more with it (100,000 cards: 0.45–0.53 CPU-s on one,
    0.64–0.78 on two, no shorter). ``threads`` is a setting of the whole database: put back."""
    before = int(scalar(con, "SELECT current_setting('threads')"))
    con.execute("SET threads = 1")
    try:
        yield
    except BaseException:
        # A failed statement aborts the transaction and the SET then fails too: the caller
        # must see the first error. (The setting stays at one thread on this connection,
        # which the failed load closes or rolls back: a cost, not a wrong result.)
        with contextlib.suppress(duckdb.Error):
            con.execute(f"SET threads = {before}")
        raise
    con.execute(f"SET threads = {before}")


def create_staging(con: Connection) -> None:
    """(Re)create empty temporary ``stage_cards`` and ``stage_faces`` tables."""
    cols = ", ".join(f"{k} {v}" for k, v in RAW_COLUMNS.items())
    fcols = ", ".join(f"{k} {v}" for k, v in FACE_COLUMNS.items())
    con.execute(f"CREATE OR REPLACE TEMP TABLE stage_cards ({cols}, _dirty BOOLEAN)")
    con.execute(f"CREATE OR REPLACE TEMP TABLE stage_faces ({fcols})")


def upsert_staged(con: Connection, *, keep_scryfall: bool = False) -> int:
    """Upsert ``stage_cards``/``stage_faces`` into ``cards``/``card_faces``; return rows staged.

    With ``keep_scryfall`` (used by secondary sources such as MTGJSON), printings already
    loaded from Scryfall are left as they are: Scryfall's values win where both have a field.
    Only ``RAW_COLUMNS`` are read: a source may keep extra ``_``-prefixed columns in
    ``stage_cards`` for its own use. An id staged twice keeps its first row (by rowid).
    """
    if keep_scryfall:
        _unstage_scryfall(con)
    distinct = _upsert_cards(con)
    _upsert_faces(con)
    clean_set_names(con)
    return distinct


def _unstage_scryfall(con: Connection) -> None:
    """Drop the staged printings (and faces) that are already loaded from Scryfall."""
    con.execute(
        "DELETE FROM stage_cards WHERE id IN (SELECT id FROM cards WHERE source = 'scryfall')"
    )
    con.execute(
        "DELETE FROM stage_faces WHERE card_id IN (SELECT id FROM cards WHERE source = 'scryfall')"
    )


def _upsert_cards(con: Connection) -> int:
    """Replace the ``cards`` rows of the ids in ``stage_cards`` (first row of an id, text
    cleaned if any needs it, derived columns computed); return the number of distinct ids."""
    # One scan finds whether any staged text needs cleaning (almost never): only then is the
    # slower cleaning insert used.
    dirty = _any_dirty(con, "stage_cards", _card_dirty("d"))
    n, distinct = one_row(con, "SELECT count(*), count(DISTINCT id) FROM stage_cards")
    source = "stage_cards"
    if n != distinct:  # the window (a sort of every staged row) only when there are duplicates
        source = f"""(SELECT {", ".join(RAW_COLUMNS)}, _dirty FROM stage_cards
              QUALIFY row_number() OVER (PARTITION BY id ORDER BY rowid) = 1)"""
    # Upsert as delete + insert: every column is replaced anyway, and DuckDB's
    # ON CONFLICT DO UPDATE is ~10x slower on a bulk file's 100,000 existing ids.
    con.execute("DELETE FROM cards WHERE id IN (SELECT id FROM stage_cards)")
    with one_thread(con):
        con.execute(insert_cards_sql(_flagged(source) if dirty else source, clean=dirty))
    return int(distinct)


def insert_cards_sql(source: str, *, clean: bool) -> str:
    """``INSERT INTO cards`` every column, from ``source`` (a table or a subquery) whose rows
    hold ``RAW_COLUMNS``: derived columns computed (with the card's set row) and, with
    ``clean``, text cleaned in the rows whose ``_dirty`` is true (``source`` then has it)."""
    raw = ", ".join(
        f"{_cleaned(c, t)} AS {c}" if clean else f"s.{c}" for c, t in RAW_COLUMNS.items()
    )
    # the front face's type line is cut once per row, not once per derived column
    derived = _derived("s._front")
    # magic_back depends on kind and is_double_faced: only single-faced Magic cards have one.
    names = list(RAW_COLUMNS) + list(DERIVED_COLUMNS) + ["magic_back"]
    return f"""
        INSERT INTO cards ({", ".join(names)})
        SELECT *, (kind = 'card' AND NOT is_double_faced) AS magic_back FROM (
            SELECT {raw}, {", ".join(f"{expr} AS {name}" for name, expr in derived.items())}
            FROM (SELECT *, {_FRONT} AS _front FROM {source} s) s
            LEFT JOIN sets st ON st.code = s.set_code)
        """


def clean_faces_sql(source: str) -> str:
    """A SELECT of ``FACE_COLUMNS`` from the face rows ``source`` (a subquery), the text of
    each row cleaned when it needs it."""
    values = ", ".join(_cleaned(c, t, "f") for c, t in FACE_COLUMNS.items())
    return f"SELECT {values} FROM (SELECT *, {_dirty_sql(FACE_COLUMNS, 'd')} AS _dirty FROM {source} d) f"


def _upsert_faces(con: Connection) -> None:
    """Replace the ``card_faces`` rows of the staged card ids with ``stage_faces`` (first row
    of a card's face index, text cleaned if any needs it)."""
    con.execute("DELETE FROM card_faces WHERE card_id IN (SELECT id FROM stage_cards)")
    fnames = ", ".join(FACE_COLUMNS)
    fdirty = _any_dirty(con, "stage_faces", _dirty_sql(FACE_COLUMNS, "d"))
    fvalues = ", ".join(
        _cleaned(c, t, "f") if fdirty else f"f.{c}" for c, t in FACE_COLUMNS.items()
    )
    con.execute(
        f"""
        INSERT INTO card_faces ({fnames})
        SELECT {fvalues}
        FROM (SELECT *, rowid AS _row{", " + _dirty_sql(FACE_COLUMNS, "d") + " AS _dirty" if fdirty else ""}
              FROM stage_faces d) f
        QUALIFY row_number() OVER (PARTITION BY card_id, face_index ORDER BY _row) = 1
        """
    )


def clean_set_names(con: Connection) -> None:
    """Set names come from the same upstreams (and are printed on sheets): clean them too."""
    con.execute(
        f"UPDATE sets SET name = {clean_sql('name')} WHERE regexp_matches(name, '{_UNCLEAN}')"
    )


def rederive(con: Connection) -> None:
    """Recompute the derived columns of every card (after the ``sets`` table changed)."""
    sets = ", ".join(f"{name} = {expr}" for name, expr in DERIVED_COLUMNS.items())
    sql = f"""
        UPDATE cards AS s SET {sets}
        FROM (SELECT c.id AS cid, st.set_type FROM cards c LEFT JOIN sets st ON st.code = c.set_code) st
        WHERE st.cid = s.id
    """
    con.execute(sql)
    con.execute("UPDATE cards SET magic_back = (kind = 'card' AND NOT is_double_faced)")
