"""Booster products of a set: listing them and compiling one into a ``ProductDef``.

A set's products come from the database (``sealed-data`` and ``mtgjson`` sources) plus
``generic`` products derived from the set's own cards by era, with per-set overrides
(``data/boosters/generic.yaml``, ``generator.generic``), for the kinds no real collation
covers. For each kind one product is the default, by precedence sealed-data > mtgjson >
generic, then the English edition before a regional one (``stx-draft`` before ``stx-jp``),
then the shortest code. A real product takes the drawing flags its counterpart in the other
real source sets (``_union_flags``). Every product gets the slots without a Magic back from
``data/boosters/nonmagic.yaml``.

Sheet cards are resolved at read time (uuid, else set + collector number, else the number
without a letter suffix), so a sync after the import fills references it left open.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from boosterkit.errors import NotFoundError
from boosterkit.generator import extras as ex
from boosterkit.generator import generic as gen
from boosterkit.generator.cache import compiled
from boosterkit.generator.model import CARD_COLUMNS, CardInfo, ProductDef, SheetDef, VariantDef
from boosterkit.pipeline import thelist
from boosterkit.pipeline.db import Connection, one_row, scalar
from boosterkit.pipeline.fills import fill_hints
from boosterkit.pipeline.queries import unknown_set
from boosterkit.pipeline.thelist import LIST_JOIN_SQL, list_params
from boosterkit.suggest import unknown

if TYPE_CHECKING:
    from boosterkit.database import Database

PRECEDENCE = {"sealed-data": 0, "mtgjson": 1, "generic": 2}
#: Kinds ``resolve_product(…, None)`` falls back to, in order, before "the only product".
DEFAULT_KINDS = ("draft", "play")

#: The ``cards`` columns of a ``CardInfo``, first in every query that builds one.
_CARD_COLS = ", ".join(f"c.{col}" for col in CARD_COLUMNS.values())
_N_CARD = len(CARD_COLUMNS)


def _card_info(row: Sequence[Any]) -> CardInfo:
    """The ``CardInfo`` of a row that starts with ``_CARD_COLS``."""
    f = dict(zip(CARD_COLUMNS, row))
    f["kind"] = f["kind"] or "card"
    f["magic_back"] = bool(f["magic_back"])
    f["colors"] = tuple(f["colors"] or ())
    return CardInfo(**f)


# --- the catalogue ----------------------------------------------------------------------


def _set_info(con: Connection, set_code: str) -> dict[str, Any] | None:
    row = con.execute(
        "SELECT code, name, released_at FROM sets WHERE code = ?", [set_code]
    ).fetchone()
    cards = one_row(
        con, "SELECT count(*), max(released_at) FROM cards WHERE set_code = ?", [set_code]
    )
    has_products = scalar(con, "SELECT count(*) FROM products WHERE set_code = ?", [set_code])
    if row is None and not cards[0] and not has_products:
        return None
    return {
        "code": set_code,
        "name": row[1] if row else None,
        "released_at": (row[2] if row else None) or cards[1],
        "cards": cards[0],
    }


#: ``in_booster`` as the generic products read it: Scryfall's flag, or for a set none of
#: whose cards has it (``$main``: its printed size, see ``main_size``) the plain numbers up
#: to that size. Needs ``$main`` and ``$set``.
_IN_BOOSTER_SQL = (
    "CASE WHEN c.set_code = $set AND $main IS NOT NULL "
    "THEN coalesce(TRY_CAST(c.collector_number AS INTEGER) <= $main, false) "
    "ELSE c.in_booster END"
)


def main_cards(con: Connection, set_code: str) -> tuple[int, str] | None:
    """For a set whose Magic cards are all ``booster: false`` on Scryfall (a pre-release
    snapshot): the last number of its main cards, which its generic products draw, and
    where it comes from: the set's printed size, else its last basic land (Scryfall often
    has no printed size for a new set; the basics close the main numbering). None for any
    other set, or when neither is known."""
    magic, booster, size, last_basic = con.execute(
        "SELECT count(*), count(*) FILTER (coalesce(in_booster, true)), "
        "(SELECT printed_size FROM sets WHERE code = $set), "
        "max(TRY_CAST(collector_number AS INTEGER)) FILTER (coalesce(is_basic_land, false)) "
        "FROM cards WHERE set_code = $set AND kind = 'card'",
        {"set": set_code},
    ).fetchone() or (0, 0, None, None)
    if not magic or booster:
        return None
    if size:
        return int(size), "its printed size"
    return (int(last_basic), "up to its last basic land") if last_basic else None


def main_size(con: Connection, set_code: str) -> int | None:
    """``main_cards``' last number alone."""
    found = main_cards(con, set_code)
    return found[0] if found else None


def _booster_rarities(con: Connection, set_code: str) -> Counter[str]:
    rows = con.execute(
        f"SELECT rarity, count(*) FROM cards c WHERE set_code = $set AND kind = 'card' "
        f"AND coalesce({_IN_BOOSTER_SQL}, true) AND NOT coalesce(is_basic_land, false) GROUP BY 1",
        {"set": set_code, "main": main_size(con, set_code)},
    ).fetchall()
    return Counter({r: n for r, n in rows})


def _catalog(con: Connection, set_code: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(set info, product entries with ``default`` flags), or NotFoundError."""
    info = _set_info(con, set_code)
    if info is None:
        raise unknown_set(con, set_code)
    entries = [
        {"code": c, "set_code": s, "name": n, "kind": k, "source": src}
        for c, s, n, k, src in con.execute(
            "SELECT code, set_code, name, kind, source FROM products WHERE set_code = ? "
            "ORDER BY code",
            [set_code],
        ).fetchall()
    ]
    covered = {e["kind"] for e in entries}
    rar = _booster_rarities(con, set_code)
    if rar["common"] and rar["uncommon"] and (rar["rare"] or rar["mythic"]):
        for rule in gen.load_generic().for_set(set_code, _as_date(info["released_at"])):
            if rule.kind not in covered:
                covered.add(rule.kind)
                entries.append(
                    {
                        "code": f"{set_code}-{rule.kind}-generic",
                        "set_code": set_code,
                        "name": rule.name.format(set_name=info["name"] or set_code.upper()),
                        "kind": rule.kind,
                        "source": "generic",
                    }
                )
    best: dict[str, dict[str, Any]] = {}
    for e in sorted(
        entries,
        key=lambda e: (PRECEDENCE.get(e["source"], 9), _regional(e), len(e["code"]), e["code"]),
    ):
        best.setdefault(e["kind"], e)
    for e in entries:
        e["default"] = best[e["kind"]] is e
    chosen = _set_default(entries)
    for e in entries:
        e["default_for_set"] = e is chosen
    entries.sort(key=lambda e: (not e["default_for_set"], e["kind"], not e["default"], e["code"]))
    return info, entries


_REGIONAL = re.compile(r"(-jp\b|\b(Japanese|Chinese|Korean)\b)")


def no_products_reason(con: Connection, set_code: str) -> str:
    """Why ``set_code`` has no products (one line), for a set ``_catalog`` found none for."""
    set_code = set_code.strip().lower()
    n, magic, booster = one_row(
        con,
        "SELECT count(*), count(*) FILTER (kind = 'card'), "
        "count(*) FILTER (kind = 'card' AND coalesce(in_booster, true)) "
        "FROM cards WHERE set_code = ?",
        [set_code],
    )
    if magic and not booster and main_size(con, set_code) is None:
        return (
            f"none of its {magic} cards is marked for boosters (Scryfall `booster: false` on "
            "every card: a bonus sheet, or a pre-release snapshot of a new set) and neither "
            "its printed size nor a basic land tells its main cards, so no generic product "
            "can be built; import its "
            "collation data (`boosterkit import mtgjson`) or sync it again once Scryfall "
            "marks its booster cards"
        )
    if not n:  # only a plain set code is ever quoted as a command
        fix = (
            f"run `boosterkit sync {set_code}`"
            if re.fullmatch(r"[a-z0-9]+", set_code)
            else "sync it"
        )
        return f"no cards of it are loaded yet; {fix}"
    if not magic:
        return (
            "its cards are not booster cards (token, art series and minigame sets open as "
            "part of their parent set's packs)"
        )
    return (
        "no collation data imported for it, and its booster cards lack commons, uncommons "
        "or rares for a generic product"
    )


def _regional(entry: dict[str, Any]) -> bool:
    """A language edition (``stx-jp``, "… Japanese Draft Booster"): never a kind's default
    while the English edition exists."""
    return bool(_REGIONAL.search(entry["code"]) or _REGIONAL.search(entry.get("name") or ""))


def _set_default(entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    for kind in DEFAULT_KINDS:
        for e in entries:
            if e["kind"] == kind and e["default"]:
                return e
    return entries[0] if len(entries) == 1 else None


def _pick(
    entries: list[dict[str, Any]], set_code: str, product: str | None, reason: str = ""
) -> dict[str, Any]:
    if product is None:
        chosen = next((e for e in entries if e["default_for_set"]), None)
    else:
        p = product.strip().lower()
        chosen = next((e for e in entries if e["code"] == p), None) or next(
            (e for e in entries if e["kind"] == p and e["default"]), None
        )
    if chosen is None:
        if not entries:
            raise NotFoundError(f"set {set_code!r} has no booster products: {reason}")

        listing = f"its products: `boosterkit products {set_code.strip().lower()}`"
        if product:
            # a kind's default product is suggested by its kind (`collector`), others by code
            names = [(e["kind"], e["kind"]) for e in entries if e["default"]] + [
                (e["code"], e["kind"] if e["default"] else e["code"]) for e in entries
            ]
            message = unknown("product", product, names, listing, f" of {set_code.strip().lower()}")
            raise NotFoundError(message)
        raise NotFoundError(
            f"set {set_code!r}: no draft or play product, and more than one: choose one with "
            f"--product ({listing})"
        )
    return chosen


# --- compiling ------------------------------------------------------------------------------


def _db_sheets(con: Connection, code: str) -> dict[str, SheetDef]:
    flags = {
        r[0]: r[1:]
        for r in con.execute(
            "SELECT sheet_name, foil, balance_colors, allow_duplicates, fixed FROM sheets "
            "WHERE product_code = ?",
            [code],
        ).fetchall()
    }
    rows = con.execute(
        f"""
        SELECT sc.sheet_name, sc.set_code, sc.collector_number, sc.weight, {_CARD_COLS}
        FROM sheet_cards sc
        LEFT JOIN mtgjson_uuids mu ON sc.card_id IS NULL AND mu.uuid = sc.ref
        LEFT JOIN (SELECT * FROM cards WHERE set_code IN
                     (SELECT set_code FROM sheet_cards WHERE product_code = $code AND card_id IS NULL)
                   QUALIFY row_number() OVER (PARTITION BY set_code, collector_number
                                              ORDER BY coalesce(lang, 'en') <> 'en', id) = 1) ce
               ON sc.card_id IS NULL AND ce.set_code = sc.set_code
              AND (ce.collector_number = sc.collector_number
                   OR ce.collector_number = regexp_replace(sc.collector_number, '[a-z]$', ''))
        {LIST_JOIN_SQL}
        LEFT JOIN cards c ON c.id = coalesce(sc.card_id, mu.card_id, ce.id, pl.card_id)
        WHERE sc.product_code = $code
        QUALIFY row_number() OVER (PARTITION BY sc.sheet_name, sc.ref
                                   ORDER BY ce.collector_number = sc.collector_number DESC) = 1
        ORDER BY sc.sheet_name, sc.ref
        """,
        {"code": code, **list_params()},
    ).fetchall()
    cards: dict[str, list[CardInfo]] = {n: [] for n in flags}
    weights: dict[str, list[int]] = {n: [] for n in flags}
    for sheet, set_code, number, weight, *card in rows:
        if card[0] is None:
            info = CardInfo(None, None, set_code or "?", number, None, "card", True, resolved=False)
        else:
            info = _card_info(card)
        cards[sheet].append(info)
        weights[sheet].append(int(weight))
    return {
        n: SheetDef(n, tuple(cards[n]), tuple(weights[n]), *map(bool, f)) for n, f in flags.items()
    }


def counterpart(code: str) -> str:
    """The same product from the other real source: ``vow-draft`` ↔ ``vow-draft-mtgjson``."""
    return code.removesuffix("-mtgjson") if code.endswith("-mtgjson") else f"{code}-mtgjson"


def _sheet_key(name: str) -> str:
    """sealed-data names sheets ``sfc_common``, MTGJSON the same sheet ``sfcCommon``."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _union_flags(con: Connection, code: str, sheets: dict[str, SheetDef]) -> dict[str, SheetDef]:
    """Sheets with the drawing flags their counterpart product sets ORed in.

    sealed-data and MTGJSON publish the same collation, but a flag is sometimes set in one
    only (VOW's balanced commons: MTGJSON ``balanceColors``, not sealed-data): the winning
    product keeps its cards and weights and takes the union of ``balance_colors`` and
    ``allow_duplicates`` of the counterpart's sheet of the same name, else of the sheet with
    the same cards; ``balance_colors`` also from a balanced sheet whose cards it holds plus
    only their treatments (VOW: sealed-data's ``sfc_common_with_showcase``, 90 commons and
    7 showcase versions of them; MTGJSON's ``sfcCommon``, the 90). docs/collation.md, precedence.
    """
    other = counterpart(code)
    rows = con.execute(
        "SELECT sheet_name, balance_colors, allow_duplicates, foil FROM sheets "
        "WHERE product_code = ?",
        [other],
    ).fetchall()
    if not rows:
        return sheets
    flags = {n: (bool(b), bool(d)) for n, b, d, _ in rows}
    by_name = {_sheet_key(n): f for n, f in flags.items()}
    members: dict[str, set[tuple[str, str | None]]] = {}
    for n, s, c in con.execute(
        "SELECT sheet_name, set_code, collector_number FROM sheet_cards WHERE product_code = ?",
        [other],
    ).fetchall():
        members.setdefault(n, set()).add((s, _plain(c)))
    by_cards = {frozenset(m): flags[n] for n, m in members.items() if n in flags}
    balanced = [(members[n], bool(f)) for n, b, _, f in rows if b and n in members]
    out = {}
    for name, sd in sheets.items():
        b, d = by_name.get(_sheet_key(name)) or by_cards.get(
            frozenset((c.set, _plain(c.collector_number)) for c in sd.cards), (False, False)
        )
        b = b or any(f == sd.foil and _with_treatments(sd, m) for m, f in balanced)
        out[name] = dataclasses.replace(
            sd, balance_colors=sd.balance_colors or b, allow_duplicates=sd.allow_duplicates or d
        )
    return out


def _plain(number: str | None) -> str | None:
    """A collector number without the letter mtg.wtf adds to multi-part cards."""
    return re.sub(r"[a-z]$", "", number) if number else number


def _with_treatments(sd: SheetDef, theirs: set[tuple[str, str | None]]) -> bool:
    """Whether ``sd`` holds every card of ``theirs`` and otherwise only other printings
    (treatments) of those cards: same names, all resolved."""
    ours = {(c.set, _plain(c.collector_number)): c for c in sd.cards}
    if not theirs or not theirs <= ours.keys() or len(ours) == len(theirs):
        return False
    names = {ours[k].name for k in theirs}
    return None not in names and all(
        c.resolved and c.name in names for k, c in ours.items() if k not in theirs
    )


def _db_variants(con: Connection, code: str) -> list[tuple[int, tuple[tuple[str, int], ...]]]:
    weights = con.execute(
        "SELECT variant_index, weight FROM product_variants WHERE product_code = ? "
        "ORDER BY variant_index",
        [code],
    ).fetchall()
    slots: dict[int, list[tuple[str, int]]] = {i: [] for i, _ in weights}
    for i, sheet, count in con.execute(
        "SELECT variant_index, sheet_name, count FROM variant_slots WHERE product_code = ? "
        "ORDER BY variant_index, rowid",
        [code],
    ).fetchall():
        slots[i].append((sheet, int(count)))
    return [(int(w), tuple(slots[i])) for i, w in weights]


def _candidates(
    con: Connection, codes: list[str], own: str, main: int | None
) -> list[gen.Candidate]:
    """The English cards (kind ``card``) of ``codes`` as the generic selectors see them
    (``main``: ``main_size`` of the product's set ``own``)."""
    rows = con.execute(
        f"SELECT {_CARD_COLS}, {_IN_BOOSTER_SQL}, coalesce(c.is_basic_land, false), "
        "c.released_at, c.promo_types, c.full_art FROM cards c "
        "WHERE c.set_code IN (SELECT unnest($codes::VARCHAR[])) AND c.kind = 'card' "
        "AND coalesce(c.lang, 'en') = 'en' ORDER BY c.set_code, c.collector_number, c.id",
        {"codes": codes, "set": own, "main": main},
    ).fetchall()
    out = []
    for r in rows:
        in_booster, basic, released, promo_types, full_art = r[_N_CARD:]
        out.append(
            gen.Candidate(
                _card_info(r), in_booster, bool(basic), _as_date(released),
                tuple(promo_types or ()), full_art,
            )
        )  # fmt: skip
    return out


def _generic_sheets(
    con: Connection, info: dict[str, Any], rule: gen.GenericRule, main: int | None
) -> dict[str, SheetDef]:
    set_code, released = info["code"], _as_date(info["released_at"])
    cards = _candidates(con, rule.sets_drawn(set_code), set_code, main)
    sheets = {}
    for name, sr in rule.sheets.items():
        picked, weights = gen.compile_sheet(sr, cards, set_code, released)
        if picked:
            sheets[name] = SheetDef(name, picked, weights, sr.foil, sr.balance_colors)
    return sheets


def _extra_cards(con: Connection, codes: list[str]) -> dict[str, tuple[CardInfo, ...]]:
    rows = con.execute(
        f"SELECT {_CARD_COLS} FROM cards c WHERE c.set_code IN (SELECT unnest(?::VARCHAR[])) "
        "AND coalesce(c.lang, 'en') = 'en' ORDER BY c.set_code, c.collector_number, c.id",
        [codes],
    ).fetchall()
    out: dict[str, list[CardInfo]] = {}
    for r in rows:
        info = _card_info(r)
        out.setdefault(info.set, []).append(info)
    return {k: tuple(v) for k, v in out.items()}


def _known_absent(con: Connection, codes: list[str]) -> set[str]:
    """Codes the database's full Scryfall set list proves do not exist (empty without it)."""
    n, minigames = one_row(
        con,
        "SELECT count(*), count(*) FILTER (set_type = 'minigame') FROM sets WHERE source = 'scryfall'",
    )
    if n < 100 or not minigames:
        return set()
    have = {r[0] for r in con.execute("SELECT code FROM sets").fetchall()}
    return {c for c in codes if c not in have}


def _compile(con: Connection, info: dict[str, Any], entry: dict[str, Any]) -> ProductDef:
    set_code, kind, code = entry["set_code"], entry["kind"], entry["code"]
    sources: tuple[str, ...] = ()
    notes: list[str] = []
    if entry["source"] == "generic":
        generic = next(
            r
            for r in gen.load_generic().for_set(set_code, _as_date(info["released_at"]))
            if r.kind == kind
        )
        main = main_cards(con, set_code)
        sheets = _generic_sheets(con, info, generic, main[0] if main else None)
        variants = gen.variants(generic, set(sheets))
        if main is not None:
            notes.append(
                f"every Magic card of {set_code} is `booster: false` on Scryfall (a "
                f"pre-release snapshot): its main cards, numbers 1–{main[0]} ({main[1]}), "
                "are taken as its booster cards"
            )
        notes += gen.empty_choices(generic, set(sheets))
    else:
        sheets = _union_flags(con, code, _db_sheets(con, code))
        variants = _db_variants(con, code)
        row = con.execute("SELECT source_sets FROM products WHERE code = ?", [code]).fetchone()
        sources = tuple(s for s in (row[0] if row and row[0] else ()) if s != set_code)
    nonmagic = ex.load_nonmagic()
    rule = nonmagic.rule_for(kind, _as_date(info["released_at"]))
    patterns = [
        o.set_pattern.format(set=set_code)
        for s in (rule.slots if rule else ())
        for o in s.options
        if o.set_pattern
    ]
    sheet_sets = {n: {c.set for c in s.cards} for n, s in sheets.items()}
    extras = ex.compile_extras(
        rule,
        set_code,
        variants,
        sheet_sets,
        _extra_cards(con, patterns),
        _known_absent(con, patterns),
        nonmagic.minigame_share,
    )
    return ProductDef(
        code=code,
        set_code=set_code,
        name=entry["name"] or code,
        kind=kind,
        source=entry["source"],
        variants=tuple(VariantDef(i, w, slots) for i, (w, slots) in enumerate(variants, start=1)),
        sheets=sheets,
        extras=extras,
        source_sets=sources,
        notes=tuple(notes),
    )


def _as_date(value: Any) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value)[:10])


def default_products(con: Connection, set_code: str) -> dict[str, str]:
    """Each product kind of ``set_code`` → the code of its default product (what
    ``--product KIND`` picks), in the listing's order. Unknown set → ``NotFoundError``."""
    _, entries = _catalog(con, set_code.strip().lower())
    return {e["kind"]: e["code"] for e in entries if e["default"]}


def holds_unresolved(product: ProductDef) -> bool:
    """Whether a sheet of ``product`` holds a Magic card the database does not (which a
    minigame that reads cards would refuse)."""
    return any(
        not c.resolved and c.kind == "card" for s in product.sheets.values() for c in s.cards
    )


def resolve_product(con: Connection, set_code: str, product: str | None = None) -> ProductDef:
    """Compile a product of ``set_code``: a code (``afr-set``), a kind (``set``) or None.

    None picks the set's default draft product, else its play product, else its only
    product. An unknown set or product is a ``NotFoundError`` listing what exists.
    """
    set_code = set_code.strip().lower()
    info, entries = _catalog(con, set_code)
    reason = "" if entries else no_products_reason(con, set_code)
    return _compile(con, info, _pick(entries, set_code, product, reason))


# --- the listing --------------------------------------------------------------------------


def describe(product: ProductDef) -> dict[str, Any]:
    """The short JSON form of a compiled product: variants, sheets, extras, unresolved counts."""
    total = sum(v.weight for v in product.variants) or 1
    missing: Counter[str] = Counter()
    old_list: list[str | None] = []
    sheets = []
    for s in product.sheets.values():
        unresolved = [c for c in s.cards if not c.resolved]
        missing.update(c.set for c in unresolved)
        old_list += [c.collector_number for c in unresolved if c.set == thelist.OLD_LIST_SET]
        sheets.append(
            {
                "name": s.name,
                "cards": len(s.cards),
                "total_weight": s.total_weight,
                "foil": s.foil,
                "balance_colors": s.balance_colors,
                "unresolved": len(unresolved),
            }
        )
    extras: list[dict[str, Any]] = []
    for slot in product.extras:
        opts = [
            {
                "kind": o.kind,
                "set": o.set_code,
                "weight": o.weight,
                "cards": len(o.cards),
                "resolved": bool(o.cards) or o.kind == "ad",
            }
            for o in slot.options
        ]
        extras.append(
            {
                "name": slot.name,
                "position": slot.position,
                "unless_sheets": list(slot.unless_sheets),
                "options": opts,
            }
        )
    extra_missing = [
        o["set"] for e in extras for o in e["options"] if not o["resolved"] and o["set"]
    ]
    unknown = [s.name for s in product.sheets.values() if any(c.set == "?" for c in s.cards)]
    return {
        **_describe_variants(product, total),
        "sheets": sheets,
        "extras": extras,
        "notes": list(product.notes),
        **_unresolved(product, missing, extra_missing, old_list),
        "unknown_set_sheets": sorted(unknown),
    }


def _describe_variants(product: ProductDef, total: int) -> dict[str, Any]:
    return {
        "variants": [
            {
                "index": v.index,
                "weight": v.weight,
                "percent": round(100 * v.weight / total, 4),
                "slots": dict(v.slots),
            }
            for v in product.variants
        ]
    }


def _unresolved(
    product: ProductDef, missing: Counter[str], extra_missing: list[str], old_list: list[str | None]
) -> dict[str, Any]:
    """Unresolved counts and the syncs that fill them. A card whose set is unknown ("?": an
    MTGJSON uuid not loaded) points to the product's source sets none of its cards come from."""
    loaded = {c.set for s in product.sheets.values() for c in s.cards if c.resolved}
    guessed = [s for s in product.source_sets if s not in loaded] if missing.get("?") else []
    return {
        "sheet_cards": sum(len(s.cards) for s in product.sheets.values()),
        "unresolved": sum(missing.values()),
        "unresolved_sets": dict(missing.most_common()),
        "missing_extra_sets": sorted(set(extra_missing)),
        "fill": fill_hints(
            product.set_code, [*missing, *guessed, *sorted(set(extra_missing))], old_list
        ),
    }


class Listing(NamedTuple):
    """A set's products as ``list_products`` lists them, and, when there are none, why."""

    products: list[dict[str, Any]]
    reason: str | None


def set_products(database: Database, set_code: str) -> Listing:
    """``list_products`` of ``set_code`` read from ``database``, each product's summary taken
    from the compiled product in its cache (``generator.cache``, compiled now if it is not),
    and why there are none if so."""
    with database.session() as con:
        found = list_products(
            con, set_code, product_of=lambda code: compiled(database, set_code, code).product
        )
        return Listing(found, None if found else no_products_reason(con, set_code))


def list_products(
    con: Connection, set_code: str, *, product_of: Callable[[str], ProductDef] | None = None
) -> list[dict[str, Any]]:
    """Every product of ``set_code``: code, set_code, name, kind, source, default flags and
    the compiled product in short (``describe``). Unknown set → ``NotFoundError``.

    ``product_of(code)``: where to take each product from (e.g. the kept compiled products
    of ``generator.cache``) instead of compiling it here."""
    set_code = set_code.strip().lower()
    info, entries = _catalog(con, set_code)
    return [
        {**e, **describe(product_of(e["code"]) if product_of else _compile(con, info, e))}
        for e in entries
    ]
