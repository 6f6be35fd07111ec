"""Read-only questions about the database, as plain dicts (what ``--json`` prints)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from boosterkit.errors import InputError, NotFoundError
from boosterkit.pipeline import db
from boosterkit.pipeline.db import Connection

RARITIES = ("common", "uncommon", "rare", "mythic", "special", "bonus")

SET_FIELDS = ("code", "name", "set_type", "released_at", "card_count", "parent_set_code", "digital", "cards")
CARD_FIELDS = (
    "id", "set_code", "collector_number", "name", "rarity", "kind", "magic_back", "type_line",
    "mana_cost", "colors", "in_booster", "lang", "layout",
)


def _rows(con: Connection, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    cur = con.execute(sql, params or [])
    names = [d[0] for d in cur.description]
    return [{k: _plain(v) for k, v in zip(names, row)} for row in cur.fetchall()]


def _plain(v: Any) -> Any:
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    return v


def list_sets(con: Connection, set_type: str | None = None) -> list[dict[str, Any]]:
    """Every known set (newest first), with how many printings of it are loaded."""
    where, params = "", []
    if set_type:
        where, params = "WHERE s.set_type = ?", [set_type.lower()]
    cols = ", ".join(f"s.{c}" for c in SET_FIELDS if c != "cards")
    return _rows(
        con,
        f"""SELECT {cols}, coalesce(n.cards, 0) AS cards FROM sets s
        LEFT JOIN (SELECT set_code, count(*) AS cards FROM cards GROUP BY set_code) n
            ON n.set_code = s.code
        {where} ORDER BY s.released_at DESC NULLS LAST, s.code""",
        params,
    )


def _number_key() -> str:
    # "12", "12a", "★12": numeric part first, then the text.
    return "TRY_CAST(regexp_extract(collector_number, '\\d+') AS INTEGER) NULLS LAST, collector_number"


def list_cards(con: Connection, set_code: str, rarity: str | None = None) -> list[dict[str, Any]]:
    """The printings of a set in collector-number order; unknown set → NotFoundError."""
    code = set_code.strip().lower()
    known = con.execute(
        "SELECT (SELECT count(*) FROM sets WHERE code = ?) + (SELECT count(*) FROM cards WHERE set_code = ?)",
        [code, code],
    ).fetchone()[0]
    if not known:
        raise NotFoundError(f"set {set_code!r}: not in the database (try `boosterkit sync {code}`)")
    params: list[Any] = [code]
    where = "set_code = ?"
    if rarity:
        r = rarity.strip().lower()
        if r not in RARITIES:
            raise InputError(f"rarity {rarity!r}: expected one of {', '.join(RARITIES)}")
        where += " AND rarity = ?"
        params.append(r)
    return _rows(
        con, f"SELECT {', '.join(CARD_FIELDS)} FROM cards WHERE {where} ORDER BY {_number_key()}", params
    )


def db_info(con: Connection, path: str | Path) -> dict[str, Any]:
    """Path, schema version, row counts per table and the last sync runs."""
    tables = ("sets", "cards", "card_faces", "products", "sheets", "sheet_cards", "sync_runs")
    counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}
    kinds = dict(con.execute("SELECT kind, count(*) FROM cards GROUP BY kind ORDER BY kind").fetchall())
    runs = _rows(
        con,
        """SELECT id, source, target, status, started_at, finished_at, sets, cards, message,
                  len(coalesce(cache_files, [])) AS cache_files
           FROM sync_runs ORDER BY id DESC LIMIT 10""",
    )
    return {
        "path": str(path),
        "schema_version": db.schema_version(con),
        "counts": counts,
        "cards_by_kind": kinds,
        "last_runs": runs,
    }
