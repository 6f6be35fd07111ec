"""Read-only questions about the database, as plain dicts (what ``--json`` prints)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from boosterkit.errors import InputError, NotFoundError
from boosterkit.pipeline import db
from boosterkit.pipeline.db import Connection, scalar

if TYPE_CHECKING:
    from boosterkit.database import Database
from boosterkit.pipeline.fields import CARD_COLUMNS, CARD_FIELDS, RARITIES, SET_FIELDS
from boosterkit.pipeline.search import to_sql
from boosterkit.suggest import unknown

#: Scryfall's set types (https://scryfall.com/docs/api/sets). A type Scryfall adds later is
#: accepted as soon as a set of that type is in the database.
SET_TYPES = (
    "core",
    "expansion",
    "masters",
    "eternal",
    "alchemy",
    "masterpiece",
    "arsenal",
    "from_the_vault",
    "spellbook",
    "premium_deck",
    "duel_deck",
    "draft_innovation",
    "treasure_chest",
    "commander",
    "planechase",
    "archenemy",
    "vanguard",
    "funny",
    "starter",
    "box",
    "promo",
    "token",
    "memorabilia",
    "minigame",
)


def _rows(con: Connection, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    cur = con.execute(sql, params or [])
    names = [d[0] for d in cur.description]
    return [{k: _plain(v) for k, v in zip(names, row)} for row in cur.fetchall()]


def _plain(v: Any) -> Any:
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    return v


def unknown_set(con: Connection, set_code: str) -> NotFoundError:
    """``unknown set 'afx' — did you mean afr? (…)``: the loaded sets (with cards or
    products) nearest by code or name, and the commands that list and load sets."""

    rows = con.execute(
        "WITH codes AS (SELECT set_code AS code FROM products UNION SELECT set_code FROM cards) "
        "SELECT codes.code, s.name FROM codes LEFT JOIN sets s ON s.code = codes.code"
    ).fetchall()
    code = set_code.strip().lower()
    # a command to copy is suggested only for a well-formed code, never for raw input
    well_formed = re.fullmatch(r"[a-z0-9]{2,8}", code)
    load = f"`boosterkit sync {code}`" if well_formed else "`boosterkit sync SET`"
    if not rows:
        return NotFoundError(
            f"unknown set {set_code!r}: the database holds no sets yet; load one with {load} "
            "or offline `boosterkit import mtgjson FILE…`"
        )
    if code in {c for c, _ in rows} or scalar(
        con, "SELECT count(*) FROM sets WHERE code = ?", [code]
    ):
        return NotFoundError(  # its booster data or its set row is here, but no card of it
            f"set {code!r} has no cards in the database (only its "
            f"{'booster products' if code in {c for c, _ in rows} else 'set entry'}): load them "
            f"with {load} or offline `boosterkit import mtgjson FILE…`"
        )
    names = [(c, c) for c, _ in rows] + [(n, c) for c, n in rows if n]
    return NotFoundError(
        unknown(
            "set",
            set_code,
            names,
            "loaded sets: `boosterkit sets`" + (f"; to load one: {load}" if well_formed else ""),
        )
    )


def set_types(con: Connection) -> list[str]:
    """The set types of the sets in the database, sorted."""
    rows = con.execute("SELECT DISTINCT set_type FROM sets WHERE set_type IS NOT NULL ORDER BY 1")
    return [r[0] for r in rows.fetchall()]


def _columns(columns: Any, known: tuple[str, ...]) -> list[str]:
    """``columns`` (a list or a comma-separated string) checked against ``known``."""
    if isinstance(columns, str):
        columns = [c.strip() for c in columns.split(",") if c.strip()]
    wanted = [c.lower() for c in columns]
    bad = [c for c in wanted if c not in known]
    if bad or not wanted:
        raise InputError(
            f"columns: {', '.join(bad) or 'none given'}: expected some of {', '.join(known)}",
            field="columns",
        )
    return wanted


#: The largest ``LIMIT`` DuckDB takes (a BIGINT); a larger ``--limit`` means the same: all rows.
MAX_LIMIT = 2**63 - 1


def _limit(limit: int | None) -> str:
    if limit is None:
        return ""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InputError(f"limit: need a number of rows (0 or more), got {limit!r}", field="limit")
    return f" LIMIT {min(int(limit), MAX_LIMIT)}"  # more rows than any table has: all of them


def _unknown_type(set_type: str, present: list[str]) -> str:
    """``unknown set type 'expanson' — did you mean expansion? (…)``: the nearest of Scryfall's
    types and the database's, and the types the database has."""

    have = (
        f"types in the database: {', '.join(present)}"
        if present
        else "the database has no sets yet: `boosterkit sync --sets`"
    )
    return unknown("set type", set_type, [(t, t) for t in (*SET_TYPES, *present)], have)


def list_sets(
    con: Connection, set_type: str | None = None, columns: Any = None, limit: int | None = None
) -> list[dict[str, Any]]:
    """Every known set (newest first), with how many printings of it are loaded.

    ``set_type``: only sets of that Scryfall type; a known type with no sets loaded gives an
    empty list, an unknown one an ``InputError`` listing the types in the database.
    ``columns``: only these of ``SET_FIELDS``; ``limit``: at most that many sets.
    """
    where, params = "", []
    if set_type:
        wanted = set_type.strip().lower()
        present = set_types(con)
        if wanted not in SET_TYPES and wanted not in present:
            raise InputError(_unknown_type(set_type, present), field="type")
        where, params = "WHERE s.set_type = ?", [wanted]
    shown = _columns(columns, SET_FIELDS) if columns is not None else list(SET_FIELDS)
    cols = ", ".join("coalesce(n.cards, 0) AS cards" if c == "cards" else f"s.{c}" for c in shown)
    return _rows(
        con,
        f"""SELECT {cols} FROM sets s
        LEFT JOIN (SELECT set_code, count(*) AS cards FROM cards GROUP BY set_code) n
            ON n.set_code = s.code
        {where} ORDER BY s.released_at DESC NULLS LAST, s.code{_limit(limit)}""",
        params,
    )


def _number_key() -> str:
    # "12", "12a", "★12": numeric part first, then the text.
    return (
        "TRY_CAST(regexp_extract(collector_number, '\\d+') AS INTEGER) NULLS LAST, collector_number"
    )


def list_cards(
    con: Connection,
    set_code: str | None,
    rarity: str | None = None,
    query: str | None = None,
    columns: Any = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """The printings of a set in collector-number order; unknown set → NotFoundError.

    ``query``: a Scryfall-style search (``pipeline.search``), within the set or, with
    ``set_code`` None, over every set (then ordered by set, newest first). ``columns``: only
    these of ``CARD_COLUMNS`` (default ``CARD_FIELDS``); ``limit``: at most that many rows.
    """

    params: list[Any] = []
    where = "true"
    order = _number_key()
    if set_code is not None:
        code = set_code.strip().lower()
        known = scalar(
            con,
            "SELECT (SELECT count(*) FROM sets WHERE code = ?) + (SELECT count(*) FROM cards WHERE set_code = ?)",
            [code, code],
        )
        if not known:
            raise unknown_set(con, set_code)
        params.append(code)
        where = "set_code = ?"
    elif not query:
        raise InputError("cards: give a set code, a query, or both", field="set")
    else:
        order = f"released_at DESC NULLS LAST, set_code, {order}"
    if query:
        sql, qparams = to_sql(query)
        where += f" AND {sql}"
        params += qparams
    if rarity:
        r = rarity.strip().lower()
        if r not in RARITIES:
            choices = [(name, name) for name in RARITIES]
            listing = f"rarities: {', '.join(RARITIES)}"
            raise InputError(unknown("rarity", rarity, choices, listing), field="rarity")
        where += " AND rarity = ?"
        params.append(r)
    wanted = _columns(columns, CARD_COLUMNS) if columns is not None else list(CARD_FIELDS)
    return _rows(
        con,
        f"SELECT {', '.join(wanted)} FROM cards WHERE {where} ORDER BY {order}, id{_limit(limit)}",
        params,
    )


def db_info(con: Connection, path: str | Path) -> dict[str, Any]:
    """Path, whether it is the bundled sample (its set code, else None), schema version, row
    counts per table and the last sync runs. Every row is read first (``db.verify``): a
    damaged file is a one-line ``DatabaseError``, as ``open`` says."""
    db.verify(con, path)
    tables = ("sets", "cards", "card_faces", "products", "sheets", "sheet_cards", "sync_runs")
    counts = {t: scalar(con, f"SELECT count(*) FROM {t}") for t in tables}
    kinds = dict(
        con.execute("SELECT kind, count(*) FROM cards GROUP BY kind ORDER BY kind").fetchall()
    )
    runs = _rows(
        con,
        """SELECT id, source, target, status, started_at, finished_at, sets, cards, message,
                  len(coalesce(cache_files, [])) AS cache_files
           FROM sync_runs ORDER BY id DESC LIMIT 10""",
    )
    from boosterkit.pipeline import sample

    return {
        "path": str(path),
        "sample": sample.SET if sample.is_sample(con) else None,
        "schema_version": db.schema_version(con),
        "counts": counts,
        "cards_by_kind": kinds,
        "last_runs": runs,
    }


@dataclass(frozen=True)
class CardArt:
    """A printing's Scryfall image (``image_uris.small``) and its artist, for sheets."""

    image: str
    artist: str | None


#: Hosts card images may come from (Scryfall's image servers, old and new): an image URL
#: elsewhere (a tampered file) is never put on a sheet, where it would be fetched on view.
IMAGE_HOSTS = ("scryfall.io", "scryfall.com")


_PLAIN_HOST = re.compile(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+")


def safe_image_url(url: str | None) -> str | None:
    """``url`` if it is an https URL whose host part is a plain name on Scryfall's image
    hosts (no ``user:password@``, no port, no percent-escapes, lowercase), without spaces
    or quotes anywhere."""
    if not url or re.search(r"[\s\"'<>\\]", url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    host = parts.netloc
    if parts.scheme != "https" or not _PLAIN_HOST.fullmatch(host):
        return None
    if not any(host == h or host.endswith("." + h) for h in IMAGE_HOSTS):
        return None
    return url


#: What ``--images`` says (on stderr) when none of the cards has an image.
NO_IMAGES = (
    "--images: none of these cards has a Scryfall image in the database (MTGJSON "
    "imports have none; a database from before images were kept gets them with "
    "`boosterkit db rebuild` or `boosterkit sync SET`)"
)


#: A printing's treatment, as a pool sheet names it: (words, the SQL that tells it).
TREATMENTS = (
    ("showcase", "list_contains(frame_effects, 'showcase')"),
    ("borderless", "border_color = 'borderless'"),
    ("extended art", "list_contains(frame_effects, 'extendedart')"),
)


def card_treatments(database: Database, card_ids: Iterable[str | None]) -> dict[str, list[str]]:
    """card id → its treatments (``TREATMENTS``: showcase, borderless, extended art) for the
    cards that have any, read from ``database``."""
    ids = sorted({i for i in card_ids if i})
    if not ids:
        return {}
    flags = ", ".join(f"coalesce({sql}, false)" for _, sql in TREATMENTS)
    with database.read() as con:
        rows = con.execute(
            f"SELECT id, {flags} FROM cards WHERE id IN (SELECT unnest(?))", [ids]
        ).fetchall()
    out = {r[0]: [w for (w, _), on in zip(TREATMENTS, r[1:]) if on] for r in rows}
    return {k: v for k, v in out.items() if v}


def card_mtgo_ids(database: Database, card_ids: Iterable[str | None]) -> dict[str, tuple[Any, Any]]:
    """card id → (MTGO id, MTGO foil id) for the cards that have either, read from
    ``database``."""
    ids = sorted({i for i in card_ids if i})
    if not ids:
        return {}
    with database.read() as con:
        rows = con.execute(
            "SELECT id, mtgo_id, mtgo_foil_id FROM cards WHERE id IN (SELECT unnest(?)) "
            "AND (mtgo_id IS NOT NULL OR mtgo_foil_id IS NOT NULL)",
            [ids],
        ).fetchall()
    return {r[0]: (r[1], r[2]) for r in rows}


def card_art(database: Database, card_ids: Iterable[str | None]) -> dict[str, CardArt]:
    """card id → ``CardArt`` for the cards with a Scryfall image (MTGJSON-only cards have
    none: they are left out, and a sheet prints them without an image).

    ``database`` is read only when there are cards to look up.
    """
    ids = sorted({i for i in card_ids if i})
    if not ids:
        return {}
    with database.read() as con:
        rows = con.execute(
            "SELECT id, image_uris.small, artist FROM cards WHERE id IN (SELECT unnest(?)) "
            "AND image_uris.small IS NOT NULL",
            [ids],
        ).fetchall()
    return {
        cid: CardArt(url, artist) for cid, small, artist in rows if (url := safe_image_url(small))
    }
