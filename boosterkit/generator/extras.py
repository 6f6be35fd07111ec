"""The slots without a Magic back, kept as data: ``data/boosters/nonmagic.yaml``.

Loading validates every key (an unknown key is an ``InputError`` naming file and key);
the compile functions are pure: they turn the rules plus cards already read from the
database into ``ExtraSlot``s for ``generator.products``. The YAML checker here is shared
with ``generator.generic`` (generic products, ``generic.yaml``).
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol, TypeVar

import yaml

from boosterkit.data import DATA_DIR
from boosterkit.errors import InputError
from boosterkit.generator.model import CardInfo, ExtraOption, ExtraSlot

R_co = TypeVar("R_co", covariant=True)

BOOSTERS_DIR = DATA_DIR / "boosters"
MINIGAME_SHARES = ("all_packs", "token_ad_slot")
EXTRA_KINDS = ("token", "art_card", "minigame", "ad")
#: The file in ``data/boosters`` each ``_once`` loader reads by default.
_DEFAULT_FILES = {
    "load_nonmagic": "nonmagic.yaml",
    "load_generic": "generic.yaml",
    "box_sizes": "boxes.yaml",
}


@dataclass(frozen=True)
class OptionRule:
    kind: str
    set_pattern: str | None  # e.g. "t{set}"; None for ad cards
    weight: int | None = None
    percent: Fraction | None = None  # share of packs (see NonMagic.minigame_share)
    gold_stamped_percent: Fraction = Fraction(0)
    unless_known_absent: bool = False
    only_sets: tuple[str, ...] | None = None  # product sets the option exists for; None: all


@dataclass(frozen=True)
class SlotRule:
    name: str
    position: str
    options: tuple[OptionRule, ...]
    unless_names: tuple[str, ...] = ()
    unless_card_sets: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rule:
    name: str
    kinds: tuple[str, ...]
    released_from: dt.date | None
    released_to: dt.date | None
    slots: tuple[SlotRule, ...]

    def matches(self, kind: str, released: dt.date | None) -> bool:
        if kind not in self.kinds:
            return False
        if self.released_from is None and self.released_to is None:
            return True
        if released is None:
            return False
        return (self.released_from is None or released >= self.released_from) and (
            self.released_to is None or released <= self.released_to
        )


@dataclass(frozen=True)
class NonMagic:
    minigame_share: str
    rules: tuple[Rule, ...]

    def rule_for(self, kind: str, released: dt.date | None) -> Rule | None:
        return next((r for r in self.rules if r.matches(kind, released)), None)


# --- validation -------------------------------------------------------------------------


class _Checker:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, msg: str) -> InputError:
        return InputError(f"{self.path}: {where}: {msg}")

    def obj(
        self, value: Any, where: str, required: Sequence[str], optional: Sequence[str] = ()
    ) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(where, f"expected a mapping, got {type(value).__name__}")
        unknown = sorted(set(value) - set(required) - set(optional))
        if unknown:
            known = ", ".join([*required, *optional])
            raise self.fail(where, f"unknown key {unknown[0]!r} (known: {known})")
        missing = [k for k in required if k not in value]
        if missing:
            raise self.fail(where, f"missing key {missing[0]!r}")
        return dict(value)

    def seq(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, f"expected a list, got {type(value).__name__}")
        return value

    def int_(self, value: Any, where: str, minimum: int = 0) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(where, f"expected an integer >= {minimum}, got {value!r}")
        return value

    def number(self, value: Any, where: str) -> Fraction:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 100:
            raise self.fail(where, f"expected a percentage 0–100, got {value!r}")
        return Fraction(str(value))

    def dates(self, value: Any, where: str) -> tuple[dt.date | None, dt.date | None]:
        if value is None:
            return None, None
        d = self.obj(value, where, (), ("from", "to"))
        for k, v in d.items():
            if not isinstance(v, dt.date):
                raise self.fail(f"{where}.{k}", f"expected a date YYYY-MM-DD, got {v!r}")
        return d.get("from"), d.get("to")


def _read_yaml(path: Path) -> Any:
    try:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when built with it
        return yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506 (safe loader)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except yaml.YAMLError as exc:
        raise InputError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None


def _option(c: _Checker, raw: Any, where: str) -> OptionRule:
    d = c.obj(
        raw,
        where,
        ("kind",),
        ("set", "weight", "percent", "gold_stamped_percent", "unless_known_absent", "only_sets"),
    )
    if d["kind"] not in EXTRA_KINDS:
        raise c.fail(f"{where}.kind", f"{d['kind']!r} is not one of {', '.join(EXTRA_KINDS)}")
    if ("weight" in d) == ("percent" in d):
        raise c.fail(where, "give exactly one of 'weight' or 'percent'")
    return OptionRule(
        kind=d["kind"],
        set_pattern=d.get("set"),
        weight=c.int_(d["weight"], f"{where}.weight", 1) if "weight" in d else None,
        percent=c.number(d["percent"], f"{where}.percent") if "percent" in d else None,
        gold_stamped_percent=c.number(
            d.get("gold_stamped_percent", 0), f"{where}.gold_stamped_percent"
        ),
        unless_known_absent=bool(d.get("unless_known_absent", False)),
        only_sets=(
            tuple(str(x).lower() for x in c.seq(d["only_sets"], f"{where}.only_sets"))
            if "only_sets" in d
            else None
        ),
    )


def _slot(c: _Checker, raw: Any, where: str) -> SlotRule:
    d = c.obj(raw, where, ("name", "options"), ("position", "unless_sheets"))
    position = d.get("position", "last")
    if position not in ("first", "last"):
        raise c.fail(f"{where}.position", f"{position!r} is not first or last")
    unless = c.obj(
        d.get("unless_sheets") or {}, f"{where}.unless_sheets", (), ("names", "card_sets")
    )
    options = tuple(
        _option(c, o, f"{where}.options[{i}]")
        for i, o in enumerate(c.seq(d["options"], f"{where}.options"))
    )
    if not any(o.weight for o in options):
        raise c.fail(f"{where}.options", "needs at least one option with a weight")
    return SlotRule(
        name=str(d["name"]),
        position=position,
        options=options,
        unless_names=tuple(
            str(x) for x in c.seq(unless.get("names", []), f"{where}.unless_sheets.names")
        ),
        unless_card_sets=tuple(
            str(x).lower()
            for x in c.seq(unless.get("card_sets", []), f"{where}.unless_sheets.card_sets")
        ),
    )


class Loader(Protocol[R_co]):
    """A data file's reader: ``path`` defaults to the file under ``data/boosters/``."""

    def __call__(self, path: Path | None = None) -> R_co: ...


def _once(load: Callable[[Path], R_co]) -> Loader[R_co]:
    """``load(path)`` parsed once per process and file version (path, inode, mtime, size):
    the result is immutable data, shared by every caller."""

    @functools.lru_cache(maxsize=16)
    def cached(path: Path, version: tuple[int, int, int]) -> R_co:
        return load(path)

    @functools.wraps(load)
    def wrapper(path: Path | None = None) -> R_co:
        path = Path(path or BOOSTERS_DIR / _DEFAULT_FILES[load.__name__])
        try:
            st = path.stat()
        except OSError:
            return load(path)  # says what is wrong with it
        return cached(path, (st.st_ino, st.st_mtime_ns, st.st_size))

    return wrapper


@_once
def load_nonmagic(path: Path) -> NonMagic:
    """Read and check ``data/boosters/nonmagic.yaml`` (or ``path``)."""
    c = _Checker(path)
    top = c.obj(_read_yaml(path), "top level", ("rules",), ("settings",))
    settings = c.obj(top.get("settings") or {}, "settings", (), ("minigame_share",))
    share = settings.get("minigame_share", "all_packs")
    if share not in MINIGAME_SHARES:
        raise c.fail(
            "settings.minigame_share", f"{share!r} is not one of {', '.join(MINIGAME_SHARES)}"
        )
    rules = []
    for i, raw in enumerate(c.seq(top["rules"], "rules")):
        where = f"rules[{i}]"
        d = c.obj(raw, where, ("name", "kinds", "slots"), ("released",))
        lo, hi = c.dates(d.get("released"), f"{where}.released")
        rules.append(Rule(
            name=str(d["name"]), kinds=tuple(c.seq(d["kinds"], f"{where}.kinds")),
            released_from=lo, released_to=hi,
            slots=tuple(_slot(c, s, f"{where}.slots[{j}]")
                        for j, s in enumerate(c.seq(d["slots"], f"{where}.slots"))),
        ))  # fmt: skip
    return NonMagic(share, tuple(rules))


# --- pure compilation ---------------------------------------------------------------------


def list_share(
    variants: Sequence[tuple[int, Sequence[tuple[str, int]]]], sheets: set[str]
) -> Fraction:
    """The share of packs (by variant weight) that draw any of ``sheets``."""
    total = sum(w for w, _ in variants)
    hit = sum(w for w, slots in variants if any(c and s in sheets for s, c in slots))
    return Fraction(hit, total) if total else Fraction(0)


def option_weights(
    slot: SlotRule, present: Sequence[OptionRule], p_list: Fraction, minigame_share: str
) -> list[int]:
    """Integer weights of ``present`` options so each ``percent`` option hits its share.

    With ``all_packs`` a percent option is that share of ALL packs, so inside the slot
    (which only ``1 - p_list`` of the packs have) it weighs ``percent / (1 - p_list)``.
    """
    fixed = [o.percent for o in present if o.percent is not None]
    q = sum((p / 100 for p in fixed), Fraction(0))
    if minigame_share == "all_packs" and fixed and p_list < 1:
        q = q / (1 - p_list)
    q = min(q, Fraction(1))
    rest = sum(o.weight or 0 for o in present)
    shares = []
    for o in present:
        if o.percent is not None:
            base = o.percent / 100
            shares.append(
                q * base / sum((p / 100 for p in fixed), Fraction(0)) if base else Fraction(0)
            )
        else:
            shares.append((1 - q) * Fraction(o.weight or 0, rest) if rest else Fraction(0))
    scale = math.lcm(*(s.denominator for s in shares))
    ints = [int(s * scale) for s in shares]
    g = math.gcd(*ints) or 1
    return [i // g for i in ints]


def compile_extras(
    rule: Rule | None,
    set_code: str,
    variants: Sequence[tuple[int, Sequence[tuple[str, int]]]],
    sheet_sets: Mapping[str, set[str]],
    set_cards: Mapping[str, tuple[CardInfo, ...]],
    known_absent: set[str],
    minigame_share: str,
) -> tuple[ExtraSlot, ...]:
    """The product's slots without a Magic back.

    ``sheet_sets`` maps each sheet to the set codes of its cards (to find The List),
    ``set_cards`` the cards of the a/t/m sets in the database, ``known_absent`` the set codes
    the database's full set list proves do not exist.
    """
    if rule is None:
        return ()
    out = []
    for slot in rule.slots:
        unless = tuple(
            sorted(
                n
                for n, sets in sheet_sets.items()
                if n.lower() in slot.unless_names or sets & set(slot.unless_card_sets)
            )
        )
        present = [
            o
            for o in slot.options
            if not (
                o.unless_known_absent
                and o.set_pattern
                and o.set_pattern.format(set=set_code) in known_absent
            )
            and (o.only_sets is None or set_code in o.only_sets)
        ]
        weights = option_weights(slot, present, list_share(variants, set(unless)), minigame_share)
        options = []
        for o, w in zip(present, weights):
            sc = o.set_pattern.format(set=set_code) if o.set_pattern else None
            options.append(ExtraOption(
                kind=o.kind, set_code=sc, weight=w, cards=set_cards.get(sc, ()) if sc else (),
                gold_stamped_per_mille=int(o.gold_stamped_percent * 10),
            ))  # fmt: skip
        out.append(ExtraSlot(slot.name, tuple(options), unless, slot.position))
    return tuple(out)
