"""Booster products (collation data) in the database, and the taw/magic-sealed-data import.

One product model for every source (``sealed-data``, ``mtgjson``; ``generic`` ones are
computed by ``generator.products``): a product has weighted pack variants, each drawing
(sheet, count) pairs; a sheet has cards with integer weights. ``write_products`` stores
products of that shape in bulk; ``import_collation`` reads the magic-sealed-data export
(``[{code, set_code, name, boosters: [{sheets: {name: count}, weight}], sheets: {…}}]``).

Card references are kept as the source names them (``afr:12:foil`` or an MTGJSON uuid) and
resolved to local printings by set and collector number (or uuid); unresolved ones keep
``card_id`` NULL and are resolved again at read time, so a later sync fills them.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from boosterkit.errors import InputError, json_reason, one_line
from boosterkit.pipeline.cache import store_imported
from boosterkit.pipeline.db import Connection, one_row
from boosterkit.pipeline.files import check_expansion, open_input, readable
from boosterkit.pipeline.fills import fill_hints
from boosterkit.pipeline.runs import recorded
from boosterkit.pipeline.shapes import check_product, flag, listing, mapping, text, texts, whole
from boosterkit.pipeline.thelist import LIST_JOIN_SQL, list_params

#: Suffix of a sealed-data product code (after ``<set>-``) → product kind.
SUFFIX_KINDS = {
    "set": "set",
    "collector": "collector",
    "arena": "arena",
    "jumpstart": "jumpstart",
    "theme": "theme",
    "play": "play",
    "starter": "starter",
    "vip": "vip",
    "premium": "premium",
    "tournament": "tournament",
    "draft": "draft",
}

_TABLES: dict[str, dict[str, str]] = {
    "products": {
        "code": "VARCHAR",
        "set_code": "VARCHAR",
        "name": "VARCHAR",
        "kind": "VARCHAR",
        "source": "VARCHAR",
        "source_sets": "VARCHAR[]",
    },
    "product_variants": {"product_code": "VARCHAR", "variant_index": "INTEGER", "weight": "BIGINT"},
    "variant_slots": {
        "product_code": "VARCHAR",
        "variant_index": "INTEGER",
        "sheet_name": "VARCHAR",
        "count": "INTEGER",
    },
    "sheets": {
        "product_code": "VARCHAR",
        "sheet_name": "VARCHAR",
        "foil": "BOOLEAN",
        "balance_colors": "BOOLEAN",
        "allow_duplicates": "BOOLEAN",
        "fixed": "BOOLEAN",
        "total_weight": "BIGINT",
    },
    "sheet_cards": {
        "product_code": "VARCHAR",
        "sheet_name": "VARCHAR",
        "ref": "VARCHAR",
        "set_code": "VARCHAR",
        "collector_number": "VARCHAR",
        "foil": "BOOLEAN",
        "weight": "BIGINT",
    },
}

#: SQL resolving a sheet card ``sc`` to a printing id: MTGJSON uuid, exact set+number, then
#: the number without a trailing letter (mtg.wtf numbers multi-part cards ``106a``), then an
#: old-numbered List card (``plist:N``) by its Scryfall id (``pipeline.thelist``). Named
#: parameters: ``thelist.list_params()``.
RESOLVED_ID_SQL = "coalesce(mu.card_id, ce.id, cl.id, pl.card_id)"
RESOLVE_JOINS_SQL = (
    """
    LEFT JOIN mtgjson_uuids mu ON mu.uuid = sc.ref
    LEFT JOIN (SELECT id, set_code, collector_number FROM cards
               QUALIFY row_number() OVER (PARTITION BY set_code, collector_number
                                          ORDER BY coalesce(lang, 'en') <> 'en', id) = 1) ce
           ON ce.set_code = sc.set_code AND ce.collector_number = sc.collector_number
    LEFT JOIN (SELECT id, set_code, collector_number FROM cards
               QUALIFY row_number() OVER (PARTITION BY set_code, collector_number
                                          ORDER BY coalesce(lang, 'en') <> 'en', id) = 1) cl
           ON cl.set_code = sc.set_code
          AND cl.collector_number = regexp_replace(sc.collector_number, '[a-z]$', '')
"""
    + LIST_JOIN_SQL
)


def insert_rows(
    con: Connection, table: str, columns: Mapping[str, str], rows: Iterable[Mapping[str, Any]]
) -> int:
    """Bulk-insert ``rows`` (dicts with ``columns``) through one NDJSON scan; return the count."""
    fd, tmp = tempfile.mkstemp(suffix=".ndjson", prefix="boosterkit-")
    n = 0
    try:
        with os.fdopen(fd, "wb") as f:
            for r in rows:
                f.write(_ndjson_line({c: r.get(c) for c in columns}))
                n += 1
        if n:
            cols = ", ".join(columns)
            spec = "{" + ", ".join(f"'{k}': '{v}'" for k, v in columns.items()) + "}"
            con.execute(
                f"INSERT INTO {table} ({cols}) SELECT {cols} FROM read_json(?, "
                f"format='newline_delimited', columns={spec}, maximum_object_size=1000000000)",
                [tmp],
            )
    finally:
        os.unlink(tmp)
    return n


def _ndjson_line(row: dict[str, Any]) -> bytes:
    """``row`` as one line of JSON (orjson; ``json`` for what orjson refuses, such as an
    integer beyond 64 bits)."""
    try:
        return orjson.dumps(row, default=str, option=orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError:
        return (json.dumps(row, default=str) + "\n").encode()


def write_products(con: Connection, products: Sequence[Mapping[str, Any]]) -> int:
    """Replace the products with these codes (all five tables) and resolve their cards.

    Each product: ``code set_code name kind source``, ``variants`` ([{weight, slots:
    [(sheet, count)…]}], slots in pack order) and ``sheets`` ([{name, foil, balance_colors,
    allow_duplicates, fixed, total_weight, cards: [{ref, set_code, collector_number, foil,
    weight}]}]). Returns the number of sheet cards written.
    """
    codes = [p["code"] for p in products]
    _delete_products(con, codes)
    rows = _product_rows(products)
    cards = rows.pop("sheet_cards")
    for table, table_rows in rows.items():
        insert_rows(con, table, _TABLES[table], table_rows)
    written = _replace_sheet_cards(con, cards)
    resolve_sheet_cards(con, codes)
    return written


def _replace_sheet_cards(con: Connection, rows: Iterable[Mapping[str, Any]]) -> int:
    """The sheet cards of the products in ``_codes`` replaced by ``rows``, by key: a card
    that stays is updated where it is, only those that went are deleted. DuckDB applies a
    primary key's deletions at commit, slowly (138,000 sheet cards: 2 s), and a re-import
    or a rebuild mostly writes what was there already."""
    table = "sheet_cards"
    columns = _TABLES[table]
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _incoming_cards ("
        + ", ".join(f"{c} {t}" for c, t in columns.items())
        + ")"
    )
    n = insert_rows(con, "_incoming_cards", columns, rows)
    con.execute(
        f"""DELETE FROM {table} sc WHERE sc.product_code IN (SELECT code FROM _codes)
            AND NOT EXISTS (SELECT 1 FROM _incoming_cards i WHERE i.product_code = sc.product_code
                            AND i.sheet_name = sc.sheet_name AND i.ref = sc.ref)"""
    )
    key = ("product_code", "sheet_name", "ref")
    names = ", ".join(columns)
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in key)
    con.execute(
        f"INSERT INTO {table} ({names}) SELECT {names} FROM _incoming_cards "
        f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}, card_id = NULL"
    )
    con.execute("DROP TABLE _incoming_cards")
    return n


def _delete_products(con: Connection, codes: list[str]) -> None:
    """Delete the products ``codes`` from the product tables but ``sheet_cards``
    (``_replace_sheet_cards``), and name them in the temporary table ``_codes``."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _codes AS SELECT unnest(?::VARCHAR[]) AS code", [codes]
    )
    for table, key in (
        ("sheets", "product_code"),
        ("variant_slots", "product_code"),
        ("product_variants", "product_code"),
        ("products", "code"),
    ):
        con.execute(f"DELETE FROM {table} WHERE {key} IN (SELECT code FROM _codes)")


def _product_rows(
    products: Sequence[Mapping[str, Any]],
) -> dict[str, Iterable[Mapping[str, Any]]]:
    """The rows of ``products`` for each product table, in the order they are inserted
    (products first, sheet cards last); all but the products are generated lazily."""
    return {
        "products": products,
        "product_variants": (
            {"product_code": p["code"], "variant_index": i, "weight": v["weight"]}
            for p in products
            for i, v in enumerate(p["variants"], start=1)
        ),
        "variant_slots": (
            {"product_code": p["code"], "variant_index": i, "sheet_name": s, "count": c}
            for p in products
            for i, v in enumerate(p["variants"], start=1)
            for s, c in v["slots"]
        ),
        "sheets": (
            {"product_code": p["code"], "sheet_name": s["name"], **s}
            for p in products
            for s in p["sheets"]
        ),
        "sheet_cards": (
            {"product_code": p["code"], "sheet_name": s["name"], **c}
            for p in products
            for s in p["sheets"]
            for c in s["cards"]
        ),
    }


def resolve_sheet_cards(con: Connection, codes: Sequence[str] | None = None) -> None:
    """Fill ``sheet_cards.card_id`` (and set/number from the uuid) where a printing now exists."""
    where = "" if codes is None else "AND sc.product_code IN (SELECT unnest($codes::VARCHAR[]))"
    con.execute(
        f"""
        UPDATE sheet_cards AS t SET card_id = r.cid,
               set_code = coalesce(t.set_code, r.cset), collector_number = coalesce(t.collector_number, r.cnum)
        FROM (SELECT sc.product_code, sc.sheet_name, sc.ref, {RESOLVED_ID_SQL} AS cid,
                     c.set_code AS cset, c.collector_number AS cnum
              FROM sheet_cards sc {RESOLVE_JOINS_SQL}
              LEFT JOIN cards c ON c.id = {RESOLVED_ID_SQL}
              WHERE sc.card_id IS NULL {where}) r
        WHERE t.product_code = r.product_code AND t.sheet_name = r.sheet_name AND t.ref = r.ref
          AND r.cid IS NOT NULL
        """,
        {**list_params(), **({} if codes is None else {"codes": list(codes)})},
    )


def unresolved_summary(con: Connection, codes: Sequence[str], examples: int = 5) -> dict[str, Any]:
    """Counts of resolved/unresolved sheet cards of ``codes``, the sets missing (``?``: cards
    named by an MTGJSON uuid only, whose set no loaded file names), the sheets holding those,
    and examples."""
    args = [list(codes)]
    base = "FROM sheet_cards WHERE product_code IN (SELECT unnest(?::VARCHAR[]))"
    total, missing = one_row(
        con, f"SELECT count(*), count(*) FILTER (card_id IS NULL) {base}", args
    )
    by_set = con.execute(
        f"SELECT coalesce(set_code, '?'), count(*) {base} AND card_id IS NULL "
        "GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10",
        args,
    ).fetchall()
    ex = con.execute(
        f"SELECT product_code || ' ' || sheet_name || ' ' || ref {base} AND card_id IS NULL "
        f"ORDER BY product_code, sheet_name, ref LIMIT {int(examples)}",
        args,
    ).fetchall()
    unknown = con.execute(
        f"SELECT DISTINCT sheet_name {base} AND card_id IS NULL AND set_code IS NULL ORDER BY 1",
        args,
    ).fetchall()
    return {
        "sheet_cards": int(total),
        "resolved": int(total - missing),
        "unresolved": int(missing),
        "unresolved_sets": {s: int(n) for s, n in by_set},
        "unknown_set_sheets": [u[0] for u in unknown],
        "unresolved_examples": [e[0] for e in ex],
    }


# --- the magic-sealed-data export -------------------------------------------------------


def product_kind(code: str, set_code: str) -> str:
    """The kind of a sealed-data product from its code: ``afr`` draft, ``afr-set`` set …

    ``-jp`` keeps the kind of what it is a Japanese version of (``stx-set-jp`` → set).
    """
    rest = code[len(set_code) :] if code.startswith(set_code) else code.partition("-")[2]
    parts = [p for p in rest.strip("-").split("-") if p]
    if parts and parts[-1] == "jp":
        parts = parts[:-1]
    if not parts:
        return "draft"
    return SUFFIX_KINDS.get(parts[0], parts[0])


def sealed_product_code(code: str, set_code: str) -> str:
    """``afr`` → ``afr-draft``; every other sealed-data code is kept."""
    return f"{code}-draft" if code == set_code else code


_REF = re.compile(r"^([a-z0-9_]+):([^:]+)(?::(foil))?$")


def parse_ref(ref: str, where: str) -> tuple[str, str, bool]:
    """``set:number[:foil]`` → (set, number, foil); anything else is an ``InputError``."""
    m = _REF.match(ref)
    if not m:
        raise InputError(f"{where}: card reference {ref!r} is not 'set:number[:foil]'")
    return m.group(1), m.group(2), m.group(3) is not None


def _sealed_sheet(name: str, sheet: Any, where: str) -> dict[str, Any]:
    where = f"{where} sheet {name!r}"
    sheet = mapping(sheet, where)
    cards = []
    for ref, weight in mapping(sheet.get("cards"), f"{where}: 'cards'").items():
        s, num, foil = parse_ref(ref, where)
        weight = whole(weight, f"{where}: the weight of {ref}")
        cards.append(
            {"ref": ref, "set_code": s, "collector_number": num, "foil": foil, "weight": weight}
        )
    if not cards:
        raise InputError(f"{where} is empty")
    total = sheet.get("total_weight")
    return {
        "name": name,
        "foil": all(c["foil"] for c in cards),
        "balance_colors": flag(sheet.get("balance_colors"), f"{where}: 'balance_colors'"),
        "allow_duplicates": flag(sheet.get("allow_duplicates"), f"{where}: 'allow_duplicates'"),
        "fixed": flag(sheet.get("fixed"), f"{where}: 'fixed'"),
        "total_weight": sum(c["weight"] for c in cards)
        if total is None
        else whole(total, f"{where}: 'total_weight'"),
        "cards": cards,
    }


def _slots(b: Mapping[str, Any], where: str) -> list[tuple[str, int]]:
    """A variant's (sheet, count) pairs in pack order: ``sheet_order`` when given (the split
    2025 export adds it to every variant), else the order of ``sheets``."""
    order = b.get("sheet_order")
    if order is None:
        order = list(b["sheets"])
    elif sorted(texts(order, f"{where}: 'sheet_order'")) != sorted(b["sheets"]):
        raise InputError(f"{where}: 'sheet_order' is not a list of exactly the variant's sheets")
    return [(k, whole(b["sheets"][k], f"{where}: the count of sheet {k!r}", low=0)) for k in order]


def _source_sets(obj: Mapping[str, Any], where: str) -> list[str] | None:
    codes = obj.get("source_set_codes")
    if codes is None:
        return None
    return [c.lower() for c in texts(codes, f"{where}: 'source_set_codes'")]


def _variants(obj: Mapping[str, Any], names: set[str], where: str) -> list[dict[str, Any]]:
    """The product's booster variants: weighted (sheet, count) lists of its own sheets."""
    variants = []
    for i, b in enumerate(listing(obj["boosters"], f"{where}: 'boosters'", optional=True), 1):
        at = f"{where}: booster variant {i}"
        b = mapping(b, at)
        unknown = sorted(set(mapping(b.get("sheets"), f"{at}: 'sheets'")) - names)
        if unknown:
            raise InputError(f"{at} draws undefined sheet(s) {', '.join(unknown)}")
        weight = whole(b.get("weight", 1), f"{at}: its weight", low=0)
        variants.append({"weight": weight, "slots": _slots(b, at)})
    if not variants:
        raise InputError(f"{where}: no booster variants")
    return variants


def sealed_product(obj: Any, where: str) -> dict[str, Any]:
    """One product of the export → a product dict for ``write_products`` (validated)."""
    obj = mapping(obj, where)
    for key in ("code", "set_code", "boosters", "sheets"):
        if key not in obj:
            raise InputError(f"{where}: no {key!r} key (not a magic-sealed-data export?)")
    code = str(text(obj["code"], f"{where}: 'code'")).lower()
    set_code = str(text(obj["set_code"], f"{where}: 'set_code'")).lower()
    where = f"{where} ({code})"
    sheets = [
        _sealed_sheet(n, s, where) for n, s in mapping(obj["sheets"], f"{where}: 'sheets'").items()
    ]
    variants = _variants(obj, {s["name"] for s in sheets}, where)
    kind = product_kind(code, set_code)
    name = (
        text(obj.get("name"), f"{where}: 'name'", optional=True)
        or text(obj.get("set_name"), f"{where}: 'set_name'", optional=True)
        or code
    )
    if kind == "draft" and code == set_code and "booster" not in name.lower():
        name = f"{name} Draft Booster"  # the export names a set's draft booster by the set
    product = {
        "code": sealed_product_code(code, set_code),
        "set_code": set_code,
        "name": name,
        "kind": kind,
        "source": "sealed-data",
        "variants": variants,
        "sheets": sheets,
        "source_sets": _source_sets(obj, where),
    }
    check_product(product, where)
    return product


#: What ``import collation`` reads in a folder.
EXPORT_SUFFIXES = (".json", ".json.gz")


def _read_file(path: Path) -> list[dict[str, Any]]:
    """One export file: a list of products (``sealed_basic_data.json``) or one product
    object (a file of the split 2025 export, ``mkm-play.json``)."""
    check_expansion(path)
    with open_input(path) as f:
        try:
            data = json.loads(f.read().decode("utf-8"))
        except (OSError, EOFError) as exc:
            raise InputError(f"{path}: not readable JSON ({one_line(exc)})") from None
        except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError too
            raise InputError(f"{path}: not readable JSON ({json_reason(exc)})") from None
    first = data[0] if isinstance(data, list) and data else data
    if isinstance(first, Mapping) and "object" in first:
        raise InputError(
            f"{path}: Scryfall data, not a magic-sealed-data export: use `boosterkit sync --file`"
        )
    if isinstance(data, Mapping) and "data" in data:
        raise InputError(
            f"{path}: an MTGJSON file, not a magic-sealed-data export: use "
            "`boosterkit import mtgjson` (it imports the file's booster key)"
        )
    if isinstance(data, Mapping) and "boosters" in data:
        return [sealed_product(data, str(path))]
    if not isinstance(data, list):
        raise InputError(
            f"{path}: expected a JSON list of products or one product object "
            "(magic-sealed-data export)"
        )
    return [sealed_product(p, f"{path}: product {i}") for i, p in enumerate(data, start=1)]


def export_files(path: Path) -> list[Path]:
    """``path`` itself, or for a folder its ``.json``/``.json.gz`` files by name."""
    if not path.is_dir():
        return [path]
    files = sorted(p for p in path.iterdir() if p.is_file() and p.name.endswith(EXPORT_SUFFIXES))
    if not files:
        raise InputError(f"{path}: a folder without .json or .json.gz files")
    return files


def read_sealed(path: Path) -> list[dict[str, Any]]:
    """Read and validate a magic-sealed-data export: a file of products, a file of one
    product, or a folder of such files (``.json`` or ``.json.gz``). A product code given
    twice is an error naming where."""
    return _unique([(f, p) for f in export_files(Path(path)) for p in _read_file(f)])


def _unique(found: list[tuple[Path, dict[str, Any]]]) -> list[dict[str, Any]]:
    seen: dict[str, Path] = {}
    for f, p in found:
        if p["code"] in seen:
            where = f"{seen[p['code']]} and {f}" if seen[p["code"]] != f else str(f)
            raise InputError(f"{where}: product {p['code']} is given twice")
        seen[p["code"]] = f
    return [p for _, p in found]


def _missing_sources(con: Connection, products: list[dict[str, Any]]) -> list[str]:
    """Sets the products' ``source_set_codes`` name that have no card in the database."""
    wanted = sorted({s for p in products for s in p.get("source_sets") or ()})
    have = {
        r[0]
        for r in con.execute(
            "SELECT DISTINCT set_code FROM cards WHERE set_code IN (SELECT unnest(?::VARCHAR[]))",
            [wanted],
        ).fetchall()
    }
    return [s for s in wanted if s not in have]


_UNRESOLVED_SQL = f"""
    SELECT sc.product_code, count(*) FILTER ({RESOLVED_ID_SQL} IS NULL)
    FROM {{table}} sc {RESOLVE_JOINS_SQL} {{where}} GROUP BY 1"""
_REF_COLUMNS = {"product_code": "VARCHAR", "ref": "VARCHAR", "set_code": "VARCHAR",
                "collector_number": "VARCHAR"}  # fmt: skip


def _kept_products(con: Connection, products: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stored products an import does not replace: those whose sheets resolve more of
    their cards here than the import's product of the same code would (the 2025 export names
    The List ``plst:AFR-123``, which PLIST.json does not resolve, where the 2023 one's
    ``plist:N`` did): more data never deals less. Each: code, unresolved kept and new."""
    codes = [p["code"] for p in products]
    where = "WHERE sc.product_code IN (SELECT unnest($codes::VARCHAR[]))"
    stored = dict(
        con.execute(
            _UNRESOLVED_SQL.format(table="sheet_cards", where=where),
            {**list_params(), "codes": codes},
        ).fetchall()
    )
    if not stored:
        return []
    con.execute("CREATE OR REPLACE TEMP TABLE _incoming (product_code VARCHAR, ref VARCHAR, "
                "set_code VARCHAR, collector_number VARCHAR)")  # fmt: skip
    rows = (
        {"product_code": p["code"], **c}
        for p in products
        if p["code"] in stored
        for s in p["sheets"]
        for c in s["cards"]
    )
    insert_rows(con, "_incoming", _REF_COLUMNS, rows)
    incoming = dict(
        con.execute(_UNRESOLVED_SQL.format(table="_incoming", where=""), list_params()).fetchall()
    )
    con.execute("DROP TABLE _incoming")
    return [
        {"code": c, "unresolved_kept": int(n), "unresolved_new": int(incoming.get(c, 0))}
        for c, n in sorted(stored.items())
        if incoming.get(c, 0) > n
    ]


def _load(con: Connection, products: list[dict[str, Any]]) -> dict[str, Any]:
    kept = _kept_products(con, products)
    products = [p for p in products if p["code"] not in {k["code"] for k in kept}]
    write_products(con, products)
    codes = [p["code"] for p in products]
    summary: dict[str, Any] = {
        "products": len(products),
        "sheets": sum(len(p["sheets"]) for p in products),
        "kept": kept,
    }
    summary.update(unresolved_summary(con, codes))
    summary["source_sets_missing"] = _missing_sources(con, products)
    summary["fill"] = fill_for(summary)
    summary["openable"] = openable_products(con)
    return summary


def openable_products(con: Connection) -> list[str]:
    """The stored products that open now: those of sets whose cards are loaded (a sheet may
    still point to a set that is not; that slot then yields an unresolved item)."""
    rows = con.execute(
        "SELECT code FROM products p WHERE EXISTS (SELECT 1 FROM cards c "
        "WHERE c.set_code = p.set_code AND c.kind = 'card') ORDER BY set_code, code"
    ).fetchall()
    return [r[0] for r in rows]


def fill_for(summary: Mapping[str, Any]) -> list[str]:
    """The commands that bring an import's unresolved cards (its ``unresolved_sets`` and
    ``source_sets_missing``), as ``boosterkit products`` names them."""
    return fill_hints("", [*summary.get("unresolved_sets", {}), *summary["source_sets_missing"]])


def import_collation(
    con: Connection, path: str | os.PathLike[str], *, cache: Path | None = None
) -> dict[str, Any]:
    """Import a magic-sealed-data export as ``sealed-data`` products; return a summary.

    ``path``: a file of products, a file of one product, or a folder of such files, all
    read and checked before anything is written, then loaded in one transaction. A product
    replaces the stored one of the same code (the later import wins), unless the stored
    one's sheets resolve more cards here (``kept`` in the summary). The summary counts
    files, products, sheets and sheet cards, how many references resolved to local
    printings, and for the unresolved ones the sets they are in, a few examples, and the
    sets ``source_set_codes`` names that have no cards. Atomic and idempotent; recorded
    in ``sync_runs``.
    """
    given = Path(path)
    with readable(given) as path:
        return _import(con, path, given, cache)


def _import(con: Connection, path: Path, given: Path, cache: Path | None) -> dict[str, Any]:
    """``import_collation`` of ``path`` (``given``: the path as the user gave it)."""
    files = export_files(path)
    products = read_sealed(path)
    with recorded(con, "collation", str(given)) as run:
        summary = {"file": str(given), "files": len(files), **_load(con, products)}
        if cache is not None:
            run.cache_files += [store_imported(cache, f, "collation") for f in files]
        run.message = f"{summary['products']} products, {summary['unresolved']} unresolved cards"
    return summary


def replay(con: Connection, files: list[Path], target: str | None) -> None:
    """``db rebuild`` replayer: load an import's cached files inside the caller's
    transaction, all at once as the import did."""
    _load(con, _unique([(f, p) for f in files for p in _read_file(f)]))
