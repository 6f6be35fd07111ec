"""Sealed products opened: a box, a bundle, a prerelease pack… as the packs and cards it holds.

A sealed product's contents (``pipeline/sealed_contents.py``) are flattened, in the data's
order, into booster packs (a set and a pack code: ``draft``, ``set``, ``theme-w``…), loose
cards (a bundle's foil promo) and what boosterkit does not open: decks (it has no deck lists),
items that are not cards (a spindown die), pack codes with no booster product in the
database (a prerelease promo pack), products the data does not describe.

Opening ``count`` copies with ``seed``: the k-th booster pack of the run is pack k of its
booster product under ``seed`` (what ``open_packs`` gives as pack k), so a Draft Booster Box
of 36 is exactly ``open SET -p draft -n 36`` with that seed, and a case is its boxes one after
another. Each copy's loose cards follow its packs as one more numbered pack, whose product is
the sealed product's name. Positions are given by the data alone: a pack that cannot be
opened keeps its number, so loading its product later changes no other pack. A ``variable``
entry (one of several configurations) is drawn from the seed's stream ``sealed/<copy>``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from boosterkit.database import Database
from boosterkit.errors import InputError, NotFoundError
from boosterkit.generator.cache import compiled
from boosterkit.generator.engine import CompiledProduct, open_compiled
from boosterkit.generator.model import CARD_COLUMNS, Item, Pack
from boosterkit.generator.packs import new_seed
from boosterkit.generator.rng import check_seed
from boosterkit.generator.streams import Rng

if TYPE_CHECKING:
    from boosterkit.database import DbLike
    from boosterkit.pipeline.db import Connection
    from boosterkit.pipeline.sealed_contents import SealedRow

#: Products inside products at most (a case of boxes of packs is 3 deep).
MAX_DEPTH = 8
#: Booster packs one ``open`` of sealed products may hold (a case of 6 boxes of 36 is 216).
MAX_SEALED_PACKS = 20_000
#: The slot of a product's loose cards (a bundle's promo) in the pack that holds them.
LOOSE_SLOT = "promo"
NO_DECKS = "a preconstructed deck: boosterkit has no deck lists"
NOT_A_CARD = "not a card"
NO_BOOSTER = "packs with no booster product in the database"
NOT_DESCRIBED = "products the sealed-contents data does not describe"


@dataclass(frozen=True)
class BoosterRef:
    """A booster pack as the data names it: a set and a pack code (``draft``, ``theme-w``)."""

    set: str
    code: str


@dataclass(frozen=True)
class CardRef:
    """A loose card of a product: set, collector number, finish and the data's name."""

    set: str
    number: str
    name: str | None
    foil: bool


@dataclass(frozen=True)
class Unopened:
    """Something a product holds that boosterkit does not open, and why."""

    kind: str  # deck | other | pack | sealed
    name: str
    count: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "count": self.count, "reason": self.reason}


@dataclass
class Flat:
    """One copy of a product, flattened: its booster packs in order, loose cards, the rest."""

    packs: list[BoosterRef] = field(default_factory=list)
    cards: list[CardRef] = field(default_factory=list)
    unopened: list[Unopened] = field(default_factory=list)
    variable: bool = False


def _key(name: str) -> str:
    """A product name as matched: case, punctuation and spacing ignored."""
    return " ".join(re.sub(r"[^0-9a-z]+", " ", name.lower()).split())


class Catalogue:
    """The stored sealed products, by set and matched name."""

    def __init__(self, rows: list[SealedRow]) -> None:
        self.rows = {(r.set_code, _key(r.name)): r for r in rows}

    def of_set(self, set_code: str) -> list[SealedRow]:
        return [r for (s, _), r in sorted(self.rows.items()) if s == set_code]

    def get(self, set_code: str, name: str) -> SealedRow | None:
        return self.rows.get((set_code.strip().lower(), _key(name)))

    def find(self, set_code: str, query: str) -> SealedRow | None:
        """The product ``query`` names: its full name, else the only product whose name ends
        with it after the fewest words (``bundle`` is the Bundle, not the Gift Bundle).
        Several equally near: ``InputError`` listing them; none: None."""
        set_code = set_code.strip().lower()
        exact = self.get(set_code, query)
        want = _key(query)
        if exact is not None or not want:
            return exact
        ends = [r for r in self.of_set(set_code) if (" " + _key(r.name)).endswith(" " + want)]
        if not ends:
            return None
        fewest = min(len(_key(r.name).split()) for r in ends)
        nearest = [r for r in ends if len(_key(r.name).split()) == fewest]
        if len(nearest) > 1:
            names = "; ".join(r.name for r in nearest)
            raise InputError(
                f"product {query!r} of {set_code}: several sealed products end so: {names}"
            )
        return nearest[0]


def catalogue(con: Connection) -> Catalogue:
    """Every stored sealed product (none in a database without the table's rows)."""
    from boosterkit.pipeline.sealed_contents import stored

    return Catalogue(list(stored(con)))


# --- flattening ------------------------------------------------------------------------------


def _count(entry: dict[str, Any], where: str) -> int:
    n = entry.get("count", 1)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InputError(f"{where}: count {n!r} is not a whole number")
    return n


def _pick(configs: list[dict[str, Any]], rng: Rng) -> dict[str, Any]:
    """One configuration of a ``variable`` entry, by its ``chance`` weight (default 1)."""
    weights = [max(0, int(c.get("chance", 1) or 0)) for c in configs]
    if not configs or not sum(weights):
        return {}
    at = rng.below(sum(weights))
    for config, w in zip(configs, weights):
        if at < w:
            return {k: v for k, v in config.items() if k != "chance"}
        at -= w
    return configs[-1]


def flatten(
    cat: Catalogue, row: SealedRow, rng: Rng, depth: int = 0, out: Flat | None = None
) -> Flat:
    """One copy of ``row`` as booster packs, loose cards and what does not open."""
    out = Flat() if out is None else out
    if depth > MAX_DEPTH:
        raise InputError(
            f"sealed product {row.name!r}: nested more than {MAX_DEPTH} deep (a loop?)"
        )
    _flatten_contents(cat, row.set_code, row.name, row.contents, rng, depth, out)
    return out


def _flatten_contents(
    cat: Catalogue, set_code: str, name: str, c: dict[str, Any], rng: Rng, depth: int, out: Flat
) -> None:
    if "copy" in c:
        _nested(cat, {"name": c["copy"], "set": set_code, "count": 1}, set_code, rng, depth, out)
    for e in c.get("pack", ()):
        out.packs += [
            BoosterRef(str(e.get("set") or set_code).lower(), str(e.get("code")))
        ] * _count(e, name)
    for e in c.get("sealed", ()):
        _nested(cat, e, set_code, rng, depth, out)
    for e in c.get("card", ()):
        number = str(e.get("number", ""))
        ref = CardRef(
            str(e.get("set") or set_code).lower(), number, e.get("name"), bool(e.get("foil"))
        )
        out.cards += [ref] * _count(e, name)
    for e in c.get("deck", ()):
        out.unopened.append(Unopened("deck", str(e.get("name")), _count(e, name), NO_DECKS))
    for e in c.get("other", ()):
        out.unopened.append(Unopened("other", str(e.get("name")), _count(e, name), NOT_A_CARD))
    for e in c.get("variable", ()):
        out.variable = True
        _flatten_contents(cat, set_code, name, _pick(e.get("configs") or [], rng), rng, depth, out)


def _nested(
    cat: Catalogue, e: dict[str, Any], set_code: str, rng: Rng, depth: int, out: Flat
) -> None:
    inner_set, inner_name = str(e.get("set") or set_code).lower(), str(e.get("name"))
    n = _count(e, inner_name)
    inner = cat.get(inner_set, inner_name)
    if inner is None:
        out.unopened.append(Unopened("sealed", inner_name, n, NOT_DESCRIBED))
        return
    for _ in range(n):
        flatten(cat, inner, rng, depth + 1, out)


# --- opening ---------------------------------------------------------------------------------


def booster(database: Database, ref: BoosterRef) -> CompiledProduct | str:
    """The compiled booster product of ``ref`` (its code ``SET-CODE``, else the set's
    default product of kind ``CODE``), or why there is none."""
    for product in (f"{ref.set}-{ref.code}", ref.code):
        try:
            return compiled(database, ref.set, product)
        except NotFoundError:
            continue
    return NO_BOOSTER


def _cards(con: Connection, refs: set[CardRef]) -> dict[tuple[str, str], tuple[Any, ...]]:
    """(set, number) → the ``CARD_COLUMNS`` of the printing, for the refs the database holds."""
    if not refs:
        return {}
    cols = ", ".join(CARD_COLUMNS.values())
    keys = sorted({(r.set, r.number) for r in refs})
    rows = con.execute(
        f"SELECT {cols} FROM cards WHERE (set_code, collector_number) IN "
        f"(SELECT * FROM (VALUES {', '.join(['(?, ?)'] * len(keys))}))",
        [v for k in keys for v in k],
    ).fetchall()
    index = {name: i for i, name in enumerate(CARD_COLUMNS)}
    return {(r[index["set"]], r[index["collector_number"]]): tuple(r) for r in rows}


def _loose_item(uid: str, ref: CardRef, row: tuple[Any, ...] | None) -> Item:
    if row is None:
        return Item(uid, None, ref.name, ref.set, ref.number, None, ref.foil, LOOSE_SLOT,
                    "card", True, False)  # fmt: skip
    f = dict(zip(CARD_COLUMNS, row))
    return Item(
        uid, f["card_id"], f["name"], f["set"], f["collector_number"], f["rarity"], ref.foil,
        LOOSE_SLOT, f["kind"] or "card", bool(f["magic_back"]), True, f["type_line"],
        tuple(f["colors"] or ()), f["mana_value"], f["layout"],
    )  # fmt: skip


@dataclass
class SealedOpening:
    """``count`` copies of a sealed product opened with ``seed``: the packs in order (booster
    packs, then each copy's loose cards as a pack), and what was not opened, counted."""

    set: str
    name: str
    source: str
    seed: int
    count: int
    packs: list[Pack]
    unopened: list[Unopened]

    def to_dict(self) -> dict[str, Any]:
        return {
            "set": self.set,
            "name": self.name,
            "source": self.source,
            "seed": self.seed,
            "count": self.count,
            "packs": [p.to_dict() for p in self.packs],
            "unopened": [u.to_dict() for u in self.unopened],
        }

    def note(self) -> str:
        """One line: what was opened, and what was not and why."""
        boosters = Counter(p.product for p in self.packs if p.product != self.name)
        loose = sum(len(p.items) for p in self.packs if p.product == self.name)
        parts = [f"{n} {code}" for code, n in boosters.items()]
        if loose:
            parts.append(f"{loose} loose card{'s' if loose != 1 else ''}")
        copies = f"{self.count} × " if self.count != 1 else ""
        line = f"{copies}{self.name}: {' + '.join(parts) or 'nothing boosterkit opens'}"
        return line + unopened_text(self.unopened)


#: How the line names each reason something was not opened.
_REASONS = {NO_DECKS: "decks (boosterkit has no deck lists)", NOT_A_CARD: "not cards"}


def unopened_text(unopened: list[Unopened]) -> str:
    """``; not opened: decks (…): Bundle Land Pack; not cards: Spindown, …`` or ``""``."""
    groups: dict[str, list[str]] = {}
    for u in unopened:
        name = u.name if u.count == 1 else f"{u.count} × {u.name}"
        groups.setdefault(_REASONS.get(u.reason, u.reason), []).append(name)
    return "".join(f"; not opened, {why}: {', '.join(names)}" for why, names in groups.items())


def _plan(
    cat: Catalogue, row: SealedRow, seed: int, count: int, start: int, limit: int
) -> tuple[list[Flat], list[tuple[int, BoosterRef | list[CardRef]]]]:
    """``count`` copies flattened, and each copy's packs then its loose cards numbered from
    ``start``, ``limit`` of them at most; a copy's ``variable`` choices come from the stream
    ``sealed/<its first number>``."""
    flats: list[Flat] = []
    out: list[tuple[int, BoosterRef | list[CardRef]]] = []
    for _ in range(count):
        flat = flatten(cat, row, Rng(seed, f"sealed/{start + len(out)}"))
        flats.append(flat)
        for ref in flat.packs:
            out.append((start + len(out), ref))
        if flat.cards:
            out.append((start + len(out), flat.cards))
        if len(out) > limit:
            raise InputError(f"{count} × {row.name}: more than the {limit:,} packs one opening "
                             "holds", field="count")  # fmt: skip
    return flats, out


def draw_sealed(
    database: Database,
    con: Connection,
    row: SealedRow,
    seed: int,
    count: int,
    start: int = 1,
    limit: int = MAX_SEALED_PACKS,
) -> tuple[list[Pack], list[Unopened], int]:
    """``count`` copies of ``row`` drawn with ``seed``, numbered from ``start`` (a pool's
    sealed product after its other packs), what was not opened, and how many numbers they
    take (a pack that cannot be opened keeps its own). More than ``limit`` packs:
    ``InputError``, before any is drawn."""
    flats, plan = _plan(catalogue(con), row, seed, count, start, limit)
    packs, missing = _draw_all(database, con, plan, seed, row)
    return packs, _merged(flats, missing), len(plan)


def _draw_all(
    database: Database, con: Connection, plan: list[tuple[int, Any]], seed: int, row: SealedRow
) -> tuple[list[Pack], Counter[tuple[str, str, str]]]:
    boosters = {x: booster(database, x) for _, x in plan if isinstance(x, BoosterRef)}
    loose = {c for _, x in plan if isinstance(x, list) for c in x}
    found = _cards(con, loose)
    packs: list[Pack] = []
    missing: Counter[tuple[str, str, str]] = Counter()
    for k, x in plan:
        if isinstance(x, list):
            items = [
                _loose_item(f"p{k}-{j}", c, found.get((c.set, c.number)))
                for j, c in enumerate(x, 1)
            ]
            packs.append(Pack(row.set_code, row.name, seed, k, 0, items))
            continue
        cp = boosters[x]
        if isinstance(cp, str):
            missing[("pack", f"{x.set} {x.code}", NO_BOOSTER)] += 1
        else:
            packs += open_compiled(cp, seed, k, 1)
    return packs, missing


def _merged(flats: list[Flat], missing: Counter[tuple[str, str, str]]) -> list[Unopened]:
    counts: Counter[tuple[str, str, str]] = Counter(missing)
    for flat in flats:
        for u in flat.unopened:
            counts[(u.kind, u.name, u.reason)] += u.count
    return [Unopened(kind, name, n, why) for (kind, name, why), n in counts.items()]


def find_sealed(database: Database, set_code: str, name: str) -> SealedRow | None:
    """The sealed product of ``set_code`` that ``name`` names (``Catalogue.find``), or None."""
    with database.session() as con:
        return catalogue(con).find(set_code, name)


def sealed_names(database: Database, set_code: str) -> list[str]:
    """The names of ``set_code``'s stored sealed products, sorted."""
    with database.session() as con:
        return [r.name for r in catalogue(con).of_set(set_code.strip().lower())]


def open_sealed(
    set_code: str,
    name: str,
    count: int = 1,
    seed: int | None = None,
    db: DbLike = None,
) -> SealedOpening:
    """Open ``count`` copies of the sealed product ``name`` of ``set_code`` (its name, or the
    end of it: ``Bundle``, ``Draft Booster Box``) with ``seed`` (None: a random one).

    Unknown product: ``NotFoundError`` naming the set's sealed products."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InputError(f"count: need at least 1 product, got {count!r}", field="count")
    seed = new_seed() if seed is None else check_seed(seed)
    database = Database.of(db)
    with database.session() as con:
        cat = catalogue(con)
        row = cat.find(set_code, name)
        if row is None:
            raise NotFoundError(not_found(cat, set_code, name))
        packs, unopened, _ = draw_sealed(database, con, row, seed, count)
    return SealedOpening(row.set_code, row.name, row.source, seed, count, packs, unopened)


def not_found(cat: Catalogue, set_code: str, name: str) -> str:
    """The line for a product that is neither a booster product nor a sealed one."""
    from boosterkit.suggest import unknown

    code = set_code.strip().lower()
    names = [(r.name, r.name) for r in cat.of_set(code)]
    if not names:
        return (
            f"unknown product {name!r} of {code}: no booster product of that kind or code, and "
            f"no sealed product of {code} is loaded (`boosterkit import sealed-contents FILE`)"
        )
    listing = f"its products: `boosterkit products {code} --sealed`"
    return unknown("product", name, names, listing, f" of {code}")


def _describe(database: Database, row: SealedRow, cat: Catalogue) -> dict[str, Any]:
    flat = flatten(cat, row, Rng(0, "sealed/1"))
    packs: Counter[str] = Counter()
    missing: Counter[tuple[str, str, str]] = Counter()
    for ref in flat.packs:
        cp = booster(database, ref)
        if isinstance(cp, str):
            missing[("pack", f"{ref.set} {ref.code}", NO_BOOSTER)] += 1
        else:
            packs[cp.product.code] += 1
    cards = [
        {"set": c.set, "collector_number": c.number, "name": c.name, "foil": c.foil}
        for c in flat.cards
    ]
    unopened = _merged([flat], missing)
    return {
        "set": row.set_code,
        "name": row.name,
        "source": row.source,
        "opens": bool(packs or cards),
        "packs": dict(packs),
        "cards": cards,
        "unopened": [u.to_dict() for u in unopened],
        "variable": flat.variable,
    }


def sealed_products(db: DbLike, set_code: str) -> list[dict[str, Any]]:
    """Every sealed product of ``set_code`` (by name): what one holds that boosterkit opens
    (``packs``: booster product code → count; ``cards``: loose cards), what it does not and
    why (``unopened``), whether it opens anything (``opens``), and whether its contents vary
    (``variable``: the listing shows one draw of them)."""
    database = Database.of(db)
    with database.session() as con:
        cat = catalogue(con)
        return [_describe(database, row, cat) for row in cat.of_set(set_code.strip().lower())]


def sealed_text(p: dict[str, Any]) -> str:
    """One sealed product in a line: what it opens into, what it does not."""
    parts = [f"{n} {code}" for code, n in p["packs"].items()]
    parts += [
        f"{c['name'] or c['set'] + ' ' + c['collector_number']}{' (foil)' if c['foil'] else ''}"
        for c in p["cards"]
    ]
    unopened = [Unopened(**u) for u in p["unopened"]]
    opens = " + ".join(parts) if parts else "nothing boosterkit opens"
    varies = " (one of several contents)" if p["variable"] else ""
    return f"{p['name']}  [{p['source']}]: {opens}{varies}{unopened_text(unopened)}"
