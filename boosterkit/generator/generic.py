"""Generic products as data: ``data/boosters/generic.yaml`` read, checked and compiled.

A generic product is a template for an era (``products``), optionally changed for some sets
by an override (``overrides``: named pack groups and sheets replaced). Sheets select cards
with a ``Selector`` (set, release date, collector-number ranges, type line, rarity …), so
bonus sheets (Special Guests, The List, Breaking News …) come from the card data, never
from lists typed into code. Everything here is pure: ``generator.products`` reads the cards
from the database and hands them to ``compile_sheet``.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from boosterkit.generator.extras import BOOSTERS_DIR as BOOSTERS_DIR  # where generic.yaml is
from boosterkit.generator.extras import _Checker, _once, _read_yaml
from boosterkit.generator.model import CardInfo
from boosterkit.pipeline.fields import RARITIES

_SELECT_KEYS = (
    "set",
    "released_with_set",
    "numbers",
    "numbers_by_set",
    "collector_numbers",
    "exclude_numbers",
    "types",
    "exclude_types",
    "promo_types",
    "exclude_promo_types",
    "full_art",
    "basic",
    "any_booster_flag",
    "rarities",
)


@dataclass(frozen=True)
class Selector:
    """Which cards a sheet (or a share group of it) draws, and their per-card weights."""

    set: str = "{set}"  # "{set}" = the product's set
    released_with_set: bool = False  # only cards released the day the product's set was
    numbers: tuple[tuple[int, int], ...] = ()  # collector-number ranges (numeric part)
    #: per product set: ranges that replace ``numbers`` and ``released_with_set`` for it
    numbers_by_set: Mapping[str, tuple[tuple[int, int], ...]] | None = None
    collector_numbers: tuple[str, ...] = ()  # exactly these collector numbers (``XLN-91``)
    exclude_numbers: tuple[tuple[int, int], ...] = ()
    types: tuple[str, ...] = ()  # the type line contains one of these
    exclude_types: tuple[str, ...] = ()
    promo_types: tuple[str, ...] = ()  # Scryfall promo_types has one of these
    exclude_promo_types: tuple[str, ...] = ()
    full_art: bool | None = None
    basic: bool | None = False  # True: basic lands only; False: never; None ("any"): both
    any_booster_flag: bool = False  # ignore Scryfall's `booster` flag (bonus sheets)
    rarities: Mapping[str, int] | None = None  # per-card weight by rarity; None: any, 1

    def set_code(self, product_set: str) -> str:
        return self.set.format(set=product_set)


@dataclass(frozen=True)
class Group:
    select: Selector
    share: Fraction | None = None  # exact share of the sheet; None: per-card weights only


@dataclass(frozen=True)
class SheetRule:
    name: str
    groups: tuple[Group, ...]
    foil: bool = False
    balance_colors: bool = False


Choice = tuple[Fraction, tuple[tuple[str, int], ...]]


@dataclass(frozen=True)
class GenericRule:
    kind: str
    name: str
    released_from: dt.date | None
    released_to: dt.date | None
    pack: tuple[tuple[str, tuple[Choice, ...]], ...]  # named groups, in pack order
    sheets: dict[str, SheetRule]
    overridden_for: str | None = None  # the set an override was applied for

    def matches(self, released: dt.date | None) -> bool:
        if released is None:  # an undated set gets the classic products (no bounds from)
            return self.released_from is None
        return (self.released_from is None or released >= self.released_from) and (
            self.released_to is None or released <= self.released_to
        )

    def sets_drawn(self, product_set: str) -> list[str]:
        """Set codes the sheets draw from (the product's own set first)."""
        codes = [g.select.set_code(product_set) for s in self.sheets.values() for g in s.groups]
        return list(dict.fromkeys([product_set, *codes]))


@dataclass(frozen=True)
class Override:
    sets: tuple[str, ...]
    kind: str
    name: str | None
    pack: dict[str, tuple[Choice, ...]]
    sheets: dict[str, SheetRule]


@dataclass(frozen=True)
class Generic:
    products: tuple[GenericRule, ...]
    overrides: tuple[Override, ...] = field(default=())

    def for_set(self, set_code: str, released: dt.date | None) -> list[GenericRule]:
        """The set's generic products, one per kind (first matching era), overrides applied."""
        out: dict[str, GenericRule] = {}
        for rule in self.products:
            if rule.kind in out or not rule.matches(released):
                continue
            ov = next(
                (o for o in self.overrides if o.kind == rule.kind and set_code in o.sets), None
            )
            out[rule.kind] = apply_override(rule, ov, set_code) if ov else rule
        return list(out.values())


def apply_override(rule: GenericRule, ov: Override, set_code: str) -> GenericRule:
    """``rule`` with ``ov``'s pack groups and sheets in place of its own (unused sheets go)."""
    pack = tuple((name, ov.pack.get(name, choices)) for name, choices in rule.pack)
    sheets = {**rule.sheets, **ov.sheets}
    used = {s for _, choices in pack for _, slots in choices for s, n in slots if n}
    return replace(
        rule,
        name=ov.name or rule.name,
        pack=pack,
        sheets={n: s for n, s in sheets.items() if n in used},
        overridden_for=set_code,
    )


# --- reading and checking --------------------------------------------------------------


def _ranges(c: _Checker, raw: Any, where: str) -> tuple[tuple[int, int], ...]:
    out = []
    for i, r in enumerate(c.seq(raw, where)):
        m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", str(r))
        if isinstance(r, bool) or not m:
            raise c.fail(f"{where}[{i}]", f"expected a number or a range 'A-B', got {r!r}")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo:
            raise c.fail(f"{where}[{i}]", f"range {r!r} ends before it starts")
        out.append((lo, hi))
    return tuple(out)


def _strings(c: _Checker, raw: Any, where: str) -> tuple[str, ...]:
    return tuple(str(x) for x in c.seq(raw, where))


def _selector(c: _Checker, d: Mapping[str, Any], where: str, base: Selector) -> Selector:
    kw: dict[str, Any] = {}
    for key in ("set",):
        if key in d:
            kw[key] = str(d[key]).lower()
    for key in ("released_with_set", "basic", "any_booster_flag", "full_art"):
        if key == "basic" and d.get(key) == "any":
            kw[key] = None
        elif key in d:
            if not isinstance(d[key], bool):
                raise c.fail(f"{where}.{key}", f"expected true or false, got {d[key]!r}")
            kw[key] = d[key]
    for key in ("numbers", "exclude_numbers"):
        if key in d:
            kw[key] = _ranges(c, d[key], f"{where}.{key}")
    if "numbers_by_set" in d:
        by_set = d["numbers_by_set"]
        if not isinstance(by_set, Mapping) or not by_set:
            raise c.fail(f"{where}.numbers_by_set", "expected a mapping of set code → ranges")
        kw["numbers_by_set"] = {
            str(k).lower(): _ranges(c, v, f"{where}.numbers_by_set.{k}") for k, v in by_set.items()
        }
    if "collector_numbers" in d:
        kw["collector_numbers"] = _strings(c, d["collector_numbers"], f"{where}.collector_numbers")
    for key in ("types", "exclude_types", "promo_types", "exclude_promo_types"):
        if key in d:
            kw[key] = _strings(c, d[key], f"{where}.{key}")
    if "rarities" in d:
        r = c.obj(d["rarities"], f"{where}.rarities", (), RARITIES)
        kw["rarities"] = {k: c.int_(v, f"{where}.rarities.{k}", 1) for k, v in r.items()}
    return replace(base, **kw)


def _share(c: _Checker, value: Any, where: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise c.fail(where, f"expected a positive number, got {value!r}")
    return Fraction(str(value))


def _sheet(c: _Checker, name: str, raw: Any, where: str) -> SheetRule:
    d = c.obj(raw, where, (), ("shares", "foil", "balance_colors", *_SELECT_KEYS))
    base = _selector(c, d, where, Selector())
    if "shares" not in d:
        if (
            base.rarities is None
            and base.basic is False
            and base.set == "{set}"
            and not base.numbers
            and not base.types
        ):
            raise c.fail(
                where, "a sheet needs 'rarities', 'shares', 'basic', 'numbers', 'types' or a 'set'"
            )
        groups = [Group(base)]
    else:
        groups = []
        items = c.seq(d["shares"], f"{where}.shares")
        for i, g in enumerate(items):
            w = f"{where}.shares[{i}]"
            gd = c.obj(g, w, (), ("share", *_SELECT_KEYS))
            share = _share(c, gd["share"], f"{w}.share") if "share" in gd else None
            groups.append(Group(_selector(c, gd, w, base), share))
        if not groups:
            raise c.fail(f"{where}.shares", "needs at least one group")
        if len({g.share is None for g in groups}) > 1:
            raise c.fail(f"{where}.shares", "give 'share' on every group or on none")
    for k in ("foil", "balance_colors"):
        if k in d and not isinstance(d[k], bool):
            raise c.fail(f"{where}.{k}", f"expected true or false, got {d[k]!r}")
    return SheetRule(
        name, tuple(groups), bool(d.get("foil", False)), bool(d.get("balance_colors", False))
    )


def _sheets(c: _Checker, raw: Any, where: str) -> dict[str, SheetRule]:
    if not isinstance(raw, Mapping):
        raise c.fail(where, "expected a mapping of sheet name → sheet")
    return {str(n): _sheet(c, str(n), s, f"{where}.{n}") for n, s in raw.items()}


def _pack(
    c: _Checker, raw: Any, where: str, sheets: Sequence[str]
) -> dict[str, tuple[Choice, ...]]:
    if not isinstance(raw, Mapping) or not raw:
        raise c.fail(where, "expected a mapping of group name → list of choices")
    out = {}
    for name, group in raw.items():
        choices = []
        for k, ch in enumerate(c.seq(group, f"{where}.{name}")):
            w = f"{where}.{name}[{k}]"
            cd = c.obj(ch, w, ("weight", "slots"))
            slots = c.obj(cd["slots"], f"{w}.slots", (), tuple(sheets))
            choices.append(
                (
                    _share(c, cd["weight"], f"{w}.weight"),
                    tuple((s, c.int_(n, f"{w}.slots.{s}", 0)) for s, n in slots.items()),
                )
            )
        if not choices:
            raise c.fail(f"{where}.{name}", "needs at least one choice")
        out[str(name)] = tuple(choices)
    return out


def _product(c: _Checker, raw: Any, where: str) -> GenericRule:
    d = c.obj(raw, where, ("kind", "name", "pack", "sheets"), ("released",))
    lo, hi = c.dates(d.get("released"), f"{where}.released")
    sheets = _sheets(c, d["sheets"], f"{where}.sheets")
    pack = _pack(c, d["pack"], f"{where}.pack", tuple(sheets))
    return GenericRule(str(d["kind"]), str(d["name"]), lo, hi, tuple(pack.items()), sheets)


def _override(c: _Checker, raw: Any, where: str, products: Sequence[GenericRule]) -> Override:
    d = c.obj(raw, where, ("sets", "kind"), ("name", "pack", "sheets"))
    kind = str(d["kind"])
    templates = [p for p in products if p.kind == kind]
    if not templates:
        raise c.fail(f"{where}.kind", f"no generic product of kind {kind!r} to override")
    sheets = _sheets(c, d.get("sheets") or {}, f"{where}.sheets")
    known = {n for t in templates for n in t.sheets} | set(sheets)
    pack = _pack(c, d["pack"], f"{where}.pack", tuple(known)) if "pack" in d else {}
    groups = {n for t in templates for n, _ in t.pack}
    for name in pack:
        if name not in groups:
            raise c.fail(
                f"{where}.pack.{name}",
                f"no pack group {name!r} in the {kind} template "
                f"(groups: {', '.join(sorted(groups))})",
            )
    sets = tuple(str(s).lower() for s in c.seq(d["sets"], f"{where}.sets"))
    return Override(sets, kind, str(d["name"]) if "name" in d else None, pack, sheets)


@_once
def load_generic(path: Path) -> Generic:
    """Read and check ``data/boosters/generic.yaml`` (or ``path``), once per file version
    (parsing costs ~40 ms and every product resolution needs the rules)."""
    c = _Checker(path)
    top = c.obj(_read_yaml(path), "top level", ("products",), ("overrides",))
    products = tuple(
        _product(c, raw, f"products[{i}]")
        for i, raw in enumerate(c.seq(top["products"], "products"))
    )
    overrides = tuple(
        _override(c, raw, f"overrides[{i}]", products)
        for i, raw in enumerate(c.seq(top.get("overrides") or [], "overrides"))
    )
    return Generic(products, overrides)


# --- pure compilation ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Candidate:
    """A card as the selectors see it: the ``CardInfo`` plus the facts selectors test."""

    info: CardInfo
    in_booster: bool | None
    basic: bool
    released_at: dt.date | None
    promo_types: tuple[str, ...] = ()
    full_art: bool | None = None

    @property
    def number(self) -> int | None:
        m = re.match(r"\d+", self.info.collector_number or "")
        return int(m.group()) if m else None


def _in(n: int | None, ranges: Sequence[tuple[int, int]]) -> bool:
    return n is not None and any(lo <= n <= hi for lo, hi in ranges)


def select(
    cards: Sequence[Candidate], sel: Selector, product_set: str, released: dt.date | None
) -> list[tuple[CardInfo, int]]:
    """The cards ``sel`` picks from ``cards`` (of any set) with their per-card weights."""
    code = sel.set_code(product_set)
    own = [c for c in cards if c.info.set == code and sel.basic in (None, c.basic)]
    if (
        sel.basic is not False and not sel.any_booster_flag
    ):  # basics: the booster ones, else every printing
        own = [c for c in own if c.in_booster is not False] or own
    elif not sel.any_booster_flag:
        own = [c for c in own if c.in_booster is not False]
    if sel.numbers_by_set and product_set in sel.numbers_by_set:  # the set's own ranges
        sel = replace(sel, numbers=sel.numbers_by_set[product_set], released_with_set=False)
    out = []
    for c in own:
        if not _kept(c, sel, released):
            continue
        if sel.rarities is None:
            out.append((c.info, 1))
        elif c.info.rarity is not None and c.info.rarity in sel.rarities:
            out.append((c.info, sel.rarities[c.info.rarity]))
    return out


def _kept(c: Candidate, sel: Selector, released: dt.date | None) -> bool:
    """Whether ``c`` passes every test of ``sel`` but the set, basic and booster ones."""
    t = c.info.type_line or ""
    return not (
        sel.released_with_set
        and (released is None or c.released_at != released)
        or sel.numbers
        and not _in(c.number, sel.numbers)
        or sel.collector_numbers
        and re.sub(r"[a-z]$", "", c.info.collector_number or "") not in sel.collector_numbers
        or _in(c.number, sel.exclude_numbers)
        or sel.types
        and not any(x in t for x in sel.types)
        or any(x in t for x in sel.exclude_types)
        or sel.promo_types
        and not set(sel.promo_types) & set(c.promo_types)
        or set(sel.exclude_promo_types) & set(c.promo_types)
        or sel.full_art is not None
        and bool(c.full_art) != sel.full_art
    )


def placeholder(set_code: str) -> CardInfo:
    """The unresolved stand-in for a sheet of another set whose cards are not loaded."""
    return CardInfo(None, None, set_code, None, None, "card", True, resolved=False)


def compile_sheet(
    rule: SheetRule, cards: Sequence[Candidate], product_set: str, released: dt.date | None
) -> tuple[tuple[CardInfo, ...], tuple[int, ...]]:
    """Integer per-card weights: each share group gets exactly its share of the sheet.

    A group without cards is dropped (the other groups share its part), unless it draws
    another set: then one unresolved card of that set keeps its place, so the pack keeps
    its shape and ``products`` names the sync that fills it.
    """
    picked: list[CardInfo] = []
    fractions: list[Fraction] = []
    missing: dict[str, int] = {}  # set code -> index of its one unresolved card
    for g in rule.groups:
        members = select(cards, g.select, product_set, released)
        code = g.select.set_code(product_set)
        if not members and code != product_set:
            share = Fraction(1) if g.share is None else g.share
            if code in missing:
                fractions[missing[code]] += share
            else:
                missing[code] = len(picked)
                picked.append(placeholder(code))
                fractions.append(share)
            continue
        total = sum(w for _, w in members)
        for card, w in members:
            picked.append(card)
            fractions.append(Fraction(w) if g.share is None else g.share * w / total)
    if not picked:
        return (), ()
    return tuple(picked), integer_weights(fractions)


def integer_weights(fractions: Sequence[Fraction]) -> tuple[int, ...]:
    """The smallest integers in exactly the proportions of ``fractions``."""
    scale = math.lcm(*(f.denominator for f in fractions))
    ints = [int(f * scale) for f in fractions]
    g = math.gcd(*ints) or 1
    return tuple(i // g for i in ints)


def _drawable(
    choices: Sequence[Choice], present: set[str] | None
) -> list[tuple[Fraction, tuple[tuple[str, int], ...]]]:
    """The choices of a pack group whose sheets all have cards (all, without ``present``)."""
    if present is None:
        return list(choices)
    return [(w, slots) for w, slots in choices if all(s in present for s, n in slots if n > 0)]


def variants(
    rule: GenericRule, present: set[str] | None = None
) -> list[tuple[int, tuple[tuple[str, int], ...]]]:
    """Every combination of one choice per pack group: (integer weight, slots in pack order).

    ``present``: the sheets that have cards. A choice drawing any other sheet is left out
    and its weight goes to the other choices of its group, in proportion (so a pack keeps
    its size: ``empty_choices`` says what moved); a group left with no choice is dropped.
    """
    groups = [g for g in (_drawable(choices, present) for _, choices in rule.pack) if g]
    combos = list(itertools.product(*groups))
    weights = integer_weights(
        [math.prod((w for w, _ in combo), start=Fraction(1)) for combo in combos]
    )
    out = []
    for weight, combo in zip(weights, combos):
        slots: dict[str, int] = {}  # one draw per sheet: no duplicates across groups
        for _, group in combo:
            for sheet, n in group:
                if n > 0:
                    slots[sheet] = slots.get(sheet, 0) + n
        out.append((weight, tuple(slots.items())))
    return out


def empty_choices(rule: GenericRule, present: set[str]) -> list[str]:
    """One note per pack group with choices ``variants`` leaves out (sheets without cards)."""
    notes = []
    for name, choices in rule.pack:
        kept = _drawable(choices, present)
        if len(kept) == len(choices):
            continue
        empty = sorted({s for _, slots in choices for s, n in slots if n > 0} - present)
        total = sum(w for w, _ in choices)
        share = 1 - sum(w for w, _ in kept) / total
        where = (
            "go to the group's other choices, in proportion"
            if kept
            else "have no other choice: the group is left out"
        )
        notes.append(
            f"{name}: {', '.join(empty)} select no card of this set; "
            f"their {float(share) * 100:.4g} % of packs {where}"
        )
    return notes
