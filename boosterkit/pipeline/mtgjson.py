"""MTGJSON v5 as a second card source: set files and AllPrintings (``.json``/``.json.gz``).

Cards and tokens go through the shared load step (``pipeline.load``) keyed by
``identifiers.scryfallId``, so a printing loaded from Scryfall and from MTGJSON is one row
(Scryfall's values win). Every face uuid is recorded in ``mtgjson_uuids``; the ``booster``
key becomes ``mtgjson`` products (``pipeline.collation.write_products``). AllPrintings is
streamed one set at a time with ``ijson``; it is never loaded whole.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import ijson

from boosterkit.errors import InputError, one_line
from boosterkit.pipeline import load
from boosterkit.pipeline.cache import store_imported
from boosterkit.pipeline.collation import (
    fill_for,
    insert_rows,
    openable_products,
    resolve_sheet_cards,
    unresolved_summary,
    write_products,
)
from boosterkit.pipeline.db import Connection, scalar
from boosterkit.pipeline.files import check_expansion, open_input, readable
from boosterkit.pipeline.mtgjson_transform import SetRows, booster_products, check_set, set_rows
from boosterkit.pipeline.runs import recorded

_SET_COLUMNS = {
    k: v for k, v in load.SET_COLUMNS.items() if k not in ("scryfall_id", "icon_svg_uri")
}
_SETS_PREFIX = "sets="  # how a --set filter is kept in sync_runs.target for the replay
_UUID_COLUMNS = {"uuid": "VARCHAR", "card_id": "VARCHAR", "side": "VARCHAR"}
_NAME_COLUMNS = {"card_id": "VARCHAR", "lang": "VARCHAR", "name": "VARCHAR", "type_line": "VARCHAR"}


#: Keys of an MTGJSON set object: a file that starts with one is a bare set object (as the
#: minigame sets of ``minigames-2025/`` are), without the ``{"meta", "data"}`` wrapper.
_SET_KEYS = frozenset({"baseSetSize", "block", "booster", "cards", "code", "name", "tokens"})


def _layout(path: Path) -> str:
    """``set`` (``{"meta", "data": {set}}``), ``all`` (``{"meta", "data": {CODE: set}}``) or
    ``bare`` (a set object itself)."""
    try:
        with open_input(path) as f:
            for prefix, event, value in ijson.parse(f):
                if prefix == "" and event == "start_array":
                    raise InputError(
                        f'{path}: a JSON list, not an MTGJSON v5 file ({{"meta", "data"}}): '
                        "Scryfall cards go to `boosterkit sync --file`, a magic-sealed-data "
                        "export to `boosterkit import collation`"
                    )
                if prefix == "" and event not in ("start_map", "map_key"):
                    break  # not an object at the top
                if prefix == "" and event == "map_key" and value in _SET_KEYS:
                    return "bare"
                if prefix == "data" and event == "map_key":
                    return "all" if value[:1].isupper() or value[:1].isdigit() else "set"
                if prefix == "data" and event != "start_map":
                    break  # "data" is not an object
    except ijson.JSONError as exc:
        raise InputError(f"{path}: not valid JSON ({one_line(exc)})") from None
    except (OSError, EOFError) as exc:
        raise InputError(f"{path}: not readable ({one_line(exc)})") from None
    raise InputError(f"{path}: not an MTGJSON v5 file (no 'data' object with a set)")


def read_sets(
    path: str | os.PathLike[str],
    only: Iterable[str] | None = None,
    *,
    codes: set[str] | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield the set objects of an MTGJSON set file, a bare set object or AllPrintings, one
    at a time.

    ``only`` (set codes, any case) limits AllPrintings to those sets; ``codes``, when given,
    collects the (upper-case) code of every set in the file, yielded or not.
    """
    path = Path(path)
    wanted = {c.upper() for c in only} if only else None
    kind = _layout(path)
    try:
        with open_input(path) as f:
            if kind in ("set", "bare"):
                for data in ijson.items(f, "data" if kind == "set" else "", use_float=True):
                    check_set(data, str(path))
                    if codes is not None:
                        codes.add(str(data["code"]).upper())
                    if wanted is None or str(data["code"]).upper() in wanted:
                        yield data
            else:
                for code, data in ijson.kvitems(f, "data", use_float=True):
                    if codes is not None:
                        codes.add(code.upper())
                    if wanted is not None and code.upper() not in wanted:
                        continue
                    check_set(data, f"{path} [{code}]")
                    yield data
    except ijson.JSONError as exc:
        raise InputError(f"{path}: not valid JSON ({one_line(exc)})") from None
    except (OSError, EOFError) as exc:
        raise InputError(f"{path}: not readable ({one_line(exc)})") from None


def _known_set_types(con: Connection) -> dict[str, str]:
    rows = con.execute("SELECT code, set_type FROM sets WHERE source = 'scryfall'").fetchall()
    return {c: t for c, t in rows if t}


def _load_set(con: Connection, rows: SetRows) -> None:
    """Stage one set's rows: sets (Scryfall's rows kept), cards, faces, uuids."""
    con.execute("CREATE OR REPLACE TEMP TABLE stage_sets AS SELECT * FROM sets LIMIT 0")
    insert_rows(con, "stage_sets", _SET_COLUMNS, rows.sets)
    cols = ", ".join(_SET_COLUMNS)
    updates = ", ".join(f"{c} = excluded.{c}" for c in _SET_COLUMNS if c != "code")
    con.execute(
        f"INSERT INTO sets ({cols}) SELECT {cols} FROM stage_sets "
        f"ON CONFLICT (code) DO UPDATE SET {updates} WHERE sets.source <> 'scryfall'"
    )
    insert_rows(con, "stage_cards", load.RAW_COLUMNS, rows.cards)
    insert_rows(con, "stage_faces", load.FACE_COLUMNS, rows.faces)
    insert_rows(con, "stage_uuids", _UUID_COLUMNS, rows.uuids)
    insert_rows(con, "stage_names", _NAME_COLUMNS, rows.names)


def _load(con: Connection, paths: list[Path], only: Iterable[str] | None = None) -> dict[str, Any]:
    """Load files into the open transaction; the summary of what they held."""
    load.create_staging(con)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE stage_uuids (uuid VARCHAR, card_id VARCHAR, side VARCHAR)"
    )
    cols = ", ".join(f"{k} {v}" for k, v in _NAME_COLUMNS.items())
    con.execute(f"CREATE OR REPLACE TEMP TABLE stage_names ({cols})")
    known = _known_set_types(con)
    products: list[dict[str, Any]] = []
    sets: list[str] = []
    skipped = 0
    in_files: set[str] = set()
    for path in paths:
        for data in read_sets(path, only, codes=in_files):
            rows = set_rows(data, known)
            products += booster_products(data, rows.numbers, f"{path} ({data['code']})")
            _load_set(con, rows)
            sets += [s["code"] for s in rows.sets]
            skipped += rows.skipped
    _check_only(paths, only, in_files)
    staged = load.upsert_staged(con, keep_scryfall=True)
    con.execute(
        "INSERT OR REPLACE INTO mtgjson_uuids SELECT uuid, any_value(card_id), any_value(side) "
        "FROM stage_uuids GROUP BY uuid"
    )
    _write_names(con)
    load.rederive(con)
    if products:
        write_products(con, products)
    resolve_sheet_cards(con)  # these printings may fill other sources' missing references
    summary: dict[str, Any] = {
        "sets": sorted(set(sets)),
        "cards": staged,
        "tokens": scalar(
            con,
            "SELECT count(*) FROM cards WHERE kind IN ('token', 'emblem') AND set_code IN "
            "(SELECT unnest(?::VARCHAR[]))",
            [sets],
        ),
        "minigames": scalar(
            con,
            "SELECT count(*) FROM cards WHERE kind = 'minigame' AND set_code IN "
            "(SELECT unnest(?::VARCHAR[]))",
            [sets],
        ),
        "uuids": scalar(con, "SELECT count(*) FROM stage_uuids"),
        "skipped_without_scryfall_id": skipped,
        "products": [p["code"] for p in products],
        "source_sets_missing": _missing_sources(con, products),
    }
    if products:
        summary.update(unresolved_summary(con, summary["products"]))
    summary["fill"] = fill_for(summary)
    summary["openable"] = openable_products(con)
    for t in ("stage_cards", "stage_faces", "stage_uuids", "stage_sets", "stage_names"):
        con.execute(f"DROP TABLE IF EXISTS {t}")
    return summary


def _write_names(con: Connection) -> None:
    """The printings of these files get the names they give (``card_names``), no others."""
    con.execute(
        "DELETE FROM card_names WHERE card_id IN (SELECT DISTINCT card_id FROM stage_uuids)"
    )
    con.execute(
        "INSERT INTO card_names SELECT card_id, lang, any_value(name), any_value(type_line) "
        "FROM stage_names GROUP BY card_id, lang"
    )


def _missing_sources(con: Connection, products: list[dict[str, Any]]) -> list[str]:
    """Sets named by the products' ``sourceSetCodes`` that have no card in the database."""
    wanted = sorted({s for p in products for s in p.get("source_sets") or ()})
    if not wanted:
        return []
    have = {
        r[0]
        for r in con.execute(
            "SELECT DISTINCT set_code FROM cards WHERE set_code IN (SELECT unnest(?::VARCHAR[]))",
            [wanted],
        ).fetchall()
    }
    return [s for s in wanted if s not in have]


def load_files(con: Connection, paths: list[Path]) -> dict[str, Any]:
    """Load MTGJSON set files into the caller's open transaction (as ``import mtgjson`` does).

    For callers that record their own run (``sync SET`` loads them with its Scryfall files);
    returns the same summary as ``import_mtgjson``. Does not write ``sync_runs``.
    """
    for p in paths:
        _layout(p)
    return _load(con, list(paths))


def _check_only(paths: list[Path], only: Iterable[str] | None, in_files: set[str]) -> None:
    """A requested set code that none of the files holds is an error (a typo must not pass)."""
    missing = sorted({c.upper() for c in only or ()} - in_files)
    if not missing:
        return
    held = sorted(in_files)
    listed = ", ".join(held[:20]) + (f" … ({len(held)} sets)" if len(held) > 20 else "")
    raise InputError(
        f"sets: {', '.join(missing)} not in {', '.join(map(str, paths))} "
        f"(sets there: {listed or 'none'})",
        field="sets",
    )


def import_mtgjson(
    con: Connection,
    paths: Iterable[str | os.PathLike[str]],
    *,
    cache: Path | None = None,
    sets: Iterable[str] | None = None,
) -> dict[str, Any]:
    """Import MTGJSON set files / AllPrintings in one atomic, recorded load; return a summary.

    The summary lists the sets written, cards staged (printings, faces merged), tokens and
    minigame cards among them, face uuids recorded, and the ``mtgjson`` products with their
    resolved/unresolved sheet-card counts. ``sets`` limits AllPrintings to those set codes.
    Re-importing the same files changes nothing but adds a ``sync_runs`` row.
    """
    given = [Path(p) for p in paths]
    if not given:
        raise InputError("import mtgjson: no files given")
    only = list(sets) if sets else None
    target = " ".join(str(p) for p in given) + (f" {_SETS_PREFIX}{','.join(only)}" if only else "")
    with ExitStack() as stack:  # a pipe is read into a temporary file first
        files = [stack.enter_context(readable(p)) for p in given]
        return _import(con, files, target, only, cache)


def _import(
    con: Connection, files: list[Path], target: str, only: list[str] | None, cache: Path | None
) -> dict[str, Any]:
    """``import_mtgjson`` of regular files, recorded as ``target``."""
    for p in files:
        check_expansion(p)
        _layout(p)  # fail on a bad file before anything is written
    with recorded(con, "mtgjson", target) as run:
        summary = _load(con, files, only)
        if not summary["sets"]:
            raise InputError(f"{', '.join(map(str, files))}: no set matched {only}")
        if cache is not None:
            for p in files:
                run.cache_files.append(store_imported(cache, p, "mtgjson"))
        run.sets, run.cards = len(summary["sets"]), summary["cards"]
    return summary


def replay(con: Connection, files: list[Path], target: str | None) -> None:
    """``db rebuild`` replayer: reload cached MTGJSON files inside the caller's transaction."""
    only = None
    if target and _SETS_PREFIX in target:
        only = target.rsplit(_SETS_PREFIX, 1)[1].split(",")
    _load(con, files, only)
