"""Odds of a compiled product: each card, rarity and foil, per pack and per box.

Computed from the same ``CompiledProduct`` the engine draws from (variants by weight, sheets
of integer weights, the corrected weights of colour-balanced sheets, the slots without a
Magic back), so the figures are the engine's, not a second model of the product.

Which figures are exact:

- **Exact**: variants; sheets drawn with duplicates allowed (independent draws); sheets
  drawn without duplicates (the engine's rejection redraw is exactly successive weighted
  sampling without replacement): a dynamic programme over how many cards of each class
  (same weight, same rarity and foil) were drawn gives every card's chance and every
  group's chance of none; fixed sheets; the extra slots (option, card, gold stamp).
  Only floating-point rounding separates these from the true values.
- **Integral** (``method: integral``): colour-balanced sheets. Their first draws take one
  card of each colour; the others draw without replacement, by the corrected weights, from
  the cards left. Seen as an exponential race (the later draws are the first ``m`` of
  independent clocks), a card's chance is an exact one-dimensional integral whose integrand
  (the generating function of how many unseeded cards ran before it, seeds summed per
  colour) is computed exactly; the integral is taken by composite Gauss–Legendre. Against
  full enumeration on small sheets and the exact programme on real ones it agrees to 1e-12
  (``tests/test_odds.py``).
- **Approximate** (``method: approx``): a sheet whose class programme would exceed
  ``DP_STATES_MAX`` states (Rosén's ``1 - exp(-w t)``; none of the real products tested),
  a card listed twice on one sheet, and a group's chance of none on a balanced sheet that
  mixes groups (product over its cards; real balanced sheets are all commons).

A pack's figures mix the variants by weight; sheets and extra slots of one pack are drawn
independently of each other. A box is ``box_size`` independent packs (``data/boosters/
boxes.yaml``): expected copies multiply, the chance of at least one is ``1 - (1 - p)^B``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from boosterkit.database import Database
from boosterkit.errors import InputError, NotFoundError
from boosterkit.generator._np import np
from boosterkit.generator.arrays import SheetArrays, arrays
from boosterkit.generator.cache import compiled, generator_code
from boosterkit.generator.compiled import CompiledProduct, ExtraTable
from boosterkit.generator.engine import check_seed
from boosterkit.generator.extras import _once, _read_yaml
from boosterkit.generator.model import PROTO_INDEX, ProductDef
from boosterkit.generator.simulation import simulate
from boosterkit.jobs import check_jobs
from boosterkit.suggest import unknown

if TYPE_CHECKING:
    from boosterkit.database import DbLike

DP_STATES_MAX = 200_000
#: How a figure was computed, best first: a row takes the worst of what it is made of.
METHODS = ("exact", "integral", "approx")
APPROX = 2
PER = ("pack", "box")
RARITY_ORDER = ("mythic", "rare", "uncommon", "common", "special", "bonus")

#: The prototype fields that make a card key (one printing, foil or not; slots merged).
KEY_FIELDS = (
    "card_id",
    "name",
    "set",
    "collector_number",
    "rarity",
    "foil",
    "kind",
    "gold_stamped",
    "resolved",
)
_KEY_POS = tuple(PROTO_INDEX[f] for f in KEY_FIELDS)
_P_RARITY, _P_FOIL, _P_KIND = (PROTO_INDEX[f] for f in ("rarity", "foil", "kind"))
_K_RARITY, _K_FOIL, _K_KIND = (KEY_FIELDS.index(f) for f in ("rarity", "foil", "kind"))

Group = tuple[str, bool]  # (rarity, or kind for objects without a Magic back; foil)
Key = tuple[Any, ...]  # a card key: the ``KEY_FIELDS`` of an item prototype


@dataclass
class _SheetOdds:
    """One sheet drawn ``n`` times: per local card expected copies and chance of ≥ 1; the
    variance of each card's copies and of each group's count (``var``, ``g_var``; None:
    the card is 0 or 1 copy, variance ``p (1 - p)``, and groups are sums of such cards)."""

    expected: np.ndarray
    present: np.ndarray
    none: dict[Group, float]
    exact: bool = True
    method: str = "exact"  # exact | integral (numerical integration of an exact formula)
    var: np.ndarray | None = None
    g_var: dict[Group, float] | None = None

    def card_var(self) -> np.ndarray:
        return self.var if self.var is not None else self.present * (1.0 - self.present)


@dataclass
class _Acc:
    """One variant's figures per card key and per group."""

    expected: dict[Key, float] = field(default_factory=lambda: defaultdict(float))
    none: dict[Key, float] = field(default_factory=lambda: defaultdict(lambda: 1.0))
    g_none: dict[Group, float] = field(default_factory=lambda: defaultdict(lambda: 1.0))
    #: variances of the copies of each card and of each group's count (draws of different
    #: sheets and slots are independent: they add)
    var: dict[Key, float] = field(default_factory=lambda: defaultdict(float))
    g_var: dict[Group, float] = field(default_factory=lambda: defaultdict(float))
    rank: dict[Any, int] = field(default_factory=dict)  # card key or ("group", …) -> METHODS index

    def worse(self, key: Any, rank: int) -> None:
        self.rank[key] = max(self.rank.get(key, 0), rank)


def proto_group(proto: Sequence[Any]) -> Group:
    """(rarity, foil) of a card, (kind, False) of an object without a Magic back."""
    kind, rarity = proto[_P_KIND], proto[_P_RARITY]
    label = (rarity or "unresolved") if kind == "card" else kind
    return (label, bool(proto[_P_FOIL]))


def proto_key(proto: Sequence[Any]) -> Key:
    """The card-level identity of an item prototype (``KEY_FIELDS``): slots merged."""
    return tuple(proto[i] for i in _KEY_POS)


def key_group(key: Sequence[Any]) -> Group:
    """``proto_group`` of a card key."""
    kind = key[_K_KIND]
    label = (key[_K_RARITY] or "unresolved") if kind == "card" else kind
    return (label, bool(key[_K_FOIL]))


# --- one sheet ------------------------------------------------------------------------------


def _class_dp(
    weights: Sequence[float], sizes: Sequence[int], n: int
) -> dict[tuple[int, ...], float] | None:
    """Distribution of how many cards of each class ``n`` successive draws take (no repeats).

    Class ``j`` has ``sizes[j]`` cards of weight ``weights[j]``. None if the state count
    exceeds ``DP_STATES_MAX``.
    """
    k = len(weights)
    states: dict[tuple[int, ...], float] = {(0,) * k: 1.0}
    for _ in range(n):
        nxt: dict[tuple[int, ...], float] = defaultdict(float)
        for state, p in states.items():
            left = sum((m - c) * w for m, c, w in zip(sizes, state, weights))
            for j in range(k):
                if state[j] < sizes[j]:
                    s = list(state)
                    s[j] += 1
                    nxt[tuple(s)] += p * (sizes[j] - state[j]) * weights[j] / left
        if len(nxt) > DP_STATES_MAX:
            return None
        states = nxt
    return states


def _rosen(weights: np.ndarray, n: float, keep: np.ndarray) -> np.ndarray:
    """``1 - exp(-w t)`` with ``t`` such that ``sum(keep * (1 - exp(-w t))) = n``."""
    if n <= 0:
        return np.zeros_like(weights)

    def size(t: float) -> float:
        return float(np.sum(keep * -np.expm1(-weights * t)))

    if float(np.sum(keep * (weights > 0))) <= n:
        return np.where(weights > 0, 1.0, 0.0)
    lo, hi = 0.0, 1.0 / max(float(weights.max()), 1e-300)
    while size(hi) < n:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if size(mid) < n else (lo, mid)
    return -np.expm1(-weights * hi)


def _none_product(present: np.ndarray, groups: list[Group]) -> dict[Group, float]:
    out: dict[Group, float] = defaultdict(lambda: 1.0)
    for p, g in zip(present.tolist(), groups):
        out[g] *= 1.0 - p
    return dict(out)


def _shares(p: np.ndarray, groups: list[Group]) -> dict[Group, float]:
    out: dict[Group, float] = defaultdict(float)
    for pi, g in zip(p.tolist(), groups):
        out[g] += pi
    return dict(out)


def sheet_odds(sheet: SheetArrays, n: int, groups: list[Group]) -> _SheetOdds:
    """Figures of ``n`` draws from a compiled sheet (``groups``: per local card)."""
    w = sheet.weights
    size = len(w)
    if sheet.allow_duplicates:  # independent draws: binomial counts
        p = w / w.sum()
        share = _shares(p, groups)
        return _SheetOdds(
            n * p,
            -np.expm1(n * np.log1p(-p)) if n else np.zeros(size),
            {g: (1.0 - s) ** n for g, s in share.items()},
            var=n * p * (1.0 - p),
            g_var={g: n * s * (1.0 - s) for g, s in share.items()},
        )
    if n >= size:  # every card once, then the engine draws the rest from all weights
        k, p = n - size, w / w.sum()
        share = _shares(p, groups)
        return _SheetOdds(
            1.0 + k * p,
            np.ones(size),
            {g: 0.0 for g in groups},
            var=k * p * (1.0 - p),
            g_var={g: k * s * (1.0 - s) for g, s in share.items()},
        )
    if sheet.balance and n >= len(sheet.balance):
        return _balanced(sheet, n, groups)
    return _successive(w, n, groups)


def _successive(w: np.ndarray, n: int, groups: list[Group]) -> _SheetOdds:
    classes: dict[tuple[float, Group], list[int]] = {}
    for i, (wi, g) in enumerate(zip(w.tolist(), groups)):
        classes.setdefault((wi, g), []).append(i)
    keys = list(classes)
    sizes = [len(classes[k]) for k in keys]
    dist = _class_dp([k[0] for k in keys], sizes, n)
    if dist is None:
        present = _rosen(w, n, np.ones_like(w))
        return _SheetOdds(
            present, present, _none_product(present, groups), exact=False, method="approx"
        )
    mean = np.zeros(len(keys))
    none: dict[Group, float] = defaultdict(float)
    moments: dict[Group, list[float]] = defaultdict(lambda: [0.0, 0.0])  # E[G], E[G²]
    by_group: dict[Group, list[int]] = defaultdict(list)
    for j, k in enumerate(keys):
        by_group[k[1]].append(j)
    for state, p in dist.items():
        mean += p * np.array(state, dtype=np.float64)
        for g, js in by_group.items():
            count = sum(state[j] for j in js)
            if not count:
                none[g] += p
            moments[g][0] += p * count
            moments[g][1] += p * count * count
    present = np.empty(len(w))
    for j, k in enumerate(keys):
        present[classes[k]] = mean[j] / sizes[j]
    g_var = {g: max(e2 - e * e, 0.0) for g, (e, e2) in moments.items()}
    return _SheetOdds(present, present, {g: none.get(g, 0.0) for g in by_group}, g_var=g_var)


_PANELS, _NODES = 24, 12  # composite Gauss–Legendre over the race time


def _race_nodes(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights on [0, X] in units of the pool's total rate (x = R t)."""
    top = m + 40.0 * math.sqrt(m) + 60.0
    g, gw = np.polynomial.legendre.leggauss(_NODES)
    edges = np.linspace(0.0, top, _PANELS + 1)
    half = np.diff(edges) / 2
    x = (edges[:-1, None] + half[:, None] * (g[None, :] + 1)).ravel()
    return x, (half[:, None] * gw[None, :]).ravel()


def _times(poly: np.ndarray, f: np.ndarray) -> np.ndarray:
    """``poly`` (nodes × m coefficients) times ``1 - f + f·z`` per node, truncated."""
    out = poly * (1.0 - f)[:, None]
    out[:, 1:] += poly[:, :-1] * f[:, None]
    return out


def _convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    m = a.shape[1]
    out = np.zeros_like(a)
    for k in range(m):
        out[:, k:] += a[:, k : k + 1] * b[:, : m - k]
    return out


def race_inclusion(
    cw: np.ndarray, m: int, members: Sequence[np.ndarray], seed_p: np.ndarray, i: int
) -> float:
    """Chance that card ``i`` (not a seed) is among ``m`` successive draws without repeats
    by weights ``cw`` from the cards left after the seeds: one card of each ``members``
    group, card ``j`` with chance ``seed_p[j]`` (within its group; cards in no group are
    never seeds).

    Exponential race: the later draws are the ``m`` first of independent clocks of rates
    ``cw``; ``P = ∫ cw_i e^(-cw_i t) P(fewer than m other unseeded clocks before t) dt``.
    The count's generating function is exact (per colour: which card is the seed; ``i``
    excluded, the seed renormalised among the others), the integral composite
    Gauss–Legendre (``tests/test_odds.py`` checks it against the exact programme).
    """
    if cw[i] <= 0 or m <= 0:
        return 0.0 if m <= 0 or cw[i] <= 0 else 1.0
    rate = float(cw.sum())
    x, xw = _race_nodes(m)
    t = x / rate
    fire = -np.expm1(-np.outer(cw, t))  # card × node: its clock ran before t
    grouped = np.zeros(len(cw), dtype=bool)
    poly = np.zeros((len(t), m))
    poly[:, 0] = 1.0
    for local in members:
        grouped[local] = True
        others = [j for j in local.tolist() if j != i]
        total = float(seed_p[others].sum()) if others else 0.0
        if total <= 0:
            for j in others:
                poly = _times(poly, fire[j])
            continue
        no_seed = np.zeros_like(poly)
        no_seed[:, 0] = 1.0
        seeded = np.zeros_like(poly)
        for j in others:
            seeded = _times(seeded, fire[j]) + no_seed * (seed_p[j] / total)
            no_seed = _times(no_seed, fire[j])
        poly = _convolve(poly, seeded)
    for j in np.nonzero(~grouped)[0].tolist():
        if j != i:
            poly = _times(poly, fire[j])
    fewer = poly.sum(axis=1)  # P(fewer than m others before t)
    density = cw[i] * np.exp(-cw[i] * t) / rate
    return float(min(1.0, np.sum(xw * density * fewer)))


def _balanced(sheet: SheetArrays, n: int, groups: list[Group]) -> _SheetOdds:
    """A colour-balanced sheet: one seed per colour, then ``n - s`` draws by the corrected
    weights from the cards left. Card chances by ``race_inclusion`` (one computation per
    class of interchangeable cards); a group's chance of none is exact when the group is
    all or none of the sheet, else the product of its cards' (approx)."""
    size = len(sheet.weights)
    seed_p = np.zeros(size)
    members = []
    for cum, local in sheet.balance:
        seed_p[local] = np.diff(np.concatenate(([0.0], cum))) / cum[-1]
        members.append(local)
    cw = sheet.corrected[n][0]
    m = n - len(sheet.balance)
    colour = np.full(size, -1)
    for c, local in enumerate(members):
        colour[local] = c
    present = np.empty(size)
    done: dict[tuple[int, float, float, float], float] = {}
    for i in range(size):
        key = (int(colour[i]), float(sheet.weights[i]), float(cw[i]), float(seed_p[i]))
        if key not in done:
            done[key] = race_inclusion(cw, m, members, seed_p, i)
        present[i] = seed_p[i] + (1.0 - seed_p[i]) * done[key]
    none: dict[Group, float] = {}
    g_var: dict[Group, float] = {}
    exact = True
    for g in set(groups):
        inside = [k for k, h in enumerate(groups) if h == g]
        if len(inside) == size:  # every draw is of this group: always n of them
            none[g], g_var[g] = 0.0, 0.0
        else:
            none[g] = float(np.prod(1.0 - present[inside]))
            g_var[g] = float(np.sum(present[inside] * (1.0 - present[inside])))  # approx
            exact = False
    return _SheetOdds(present, present, none, exact=exact, method="integral", g_var=g_var)


# --- a product ------------------------------------------------------------------------------


def _add_extra(acc: _Acc, cp: CompiledProduct, extra: ExtraTable) -> None:
    shares = np.diff(np.concatenate(([0.0], extra.cum))) / extra.cum[-1]
    probs: dict[int, float] = defaultdict(float)
    for share, opt in zip(shares.tolist(), extra.options):
        each = share / len(opt.protos)
        twins = opt.gold
        for k, p in enumerate(opt.protos):
            gold = opt.gold_p if twins is not None else 0.0
            probs[p] += each * (1.0 - gold)
            if twins is not None and gold:
                probs[int(twins[k])] += each * gold
    taken: dict[Group, float] = defaultdict(float)
    by_key: dict[Key, float] = defaultdict(float)
    for p, prob in probs.items():
        proto = cp.protos[p]
        key = proto_key(proto)
        by_key[key] += prob
        acc.none[key] *= 1.0 - prob
        taken[proto_group(proto)] += prob
    for key, prob in by_key.items():  # one draw: 0 or 1 copy of each card
        acc.expected[key] += prob
        acc.var[key] += prob * (1.0 - prob)
    for g, s in taken.items():
        acc.g_none[g] *= max(0.0, 1.0 - s)
        acc.g_var[g] += s * (1.0 - s)


def _add_sheet(
    acc: _Acc,
    cp: CompiledProduct,
    sheet: SheetArrays,
    n: int,
    cache: dict[tuple[str, int], _SheetOdds],
) -> None:
    protos = [cp.protos[p] for p in sheet.protos.tolist()]
    if sheet.fixed_protos is not None:
        for p in sheet.fixed_protos:
            key = proto_key(cp.protos[p])
            acc.expected[key] += 1.0
            acc.none[key] = 0.0
            acc.g_none[proto_group(cp.protos[p])] = 0.0
        return
    if not n:
        return
    groups = [proto_group(p) for p in protos]
    if (sheet.name, n) not in cache:
        cache[(sheet.name, n)] = sheet_odds(sheet, n, groups)
    so = cache[(sheet.name, n)]
    keys = [proto_key(p) for p in protos]
    repeated = {k for k, c in _count(keys).items() if c > 1}
    rank = METHODS.index(so.method)
    for key, e, pr, v in zip(keys, so.expected.tolist(), so.present.tolist(), so.card_var()):
        acc.expected[key] += e
        acc.none[key] *= 1.0 - pr
        acc.var[key] += float(v)  # a card listed twice: approx (its rows say so)
        acc.worse(key, APPROX if key in repeated else rank)
    g_var = so.g_var if so.g_var is not None else _independent(so, groups)
    for g, v in so.none.items():
        acc.g_none[g] *= v
        acc.g_var[g] += g_var.get(g, 0.0)
        acc.worse(("group",) + g, rank if so.exact else APPROX)


def _independent(so: _SheetOdds, groups: list[Group]) -> dict[Group, float]:
    """Group variances as sums of the cards' (the approximate programme)."""
    out: dict[Group, float] = defaultdict(float)
    for v, g in zip(so.card_var().tolist(), groups):
        out[g] += v
    return dict(out)


def _count(keys: Iterable[Key]) -> dict[Key, int]:
    out: dict[Key, int] = defaultdict(int)
    for k in keys:
        out[k] += 1
    return out


def _variant_odds(cp: CompiledProduct) -> list[tuple[float, _Acc]]:
    arr = arrays(cp)
    total = float(cp.variant_cum[-1])
    shares = np.diff(np.concatenate(([0.0], cp.variant_cum))) / total
    cache: dict[tuple[str, int], _SheetOdds] = {}
    out = []
    for share, v in zip(shares.tolist(), cp.variants):
        if share <= 0:
            continue
        acc = _Acc()
        for e in v.first + v.last:
            _add_extra(acc, cp, cp.extras[e])
        for sheet_no, count in v.slots:
            _add_sheet(acc, cp, arr.sheets[sheet_no], count, cache)
        out.append((share, acc))
    return out


def _group_sort(g: Group) -> tuple[int, str, bool]:
    label, foil = g
    rank = RARITY_ORDER.index(label) if label in RARITY_ORDER else len(RARITY_ORDER)
    return (rank, label, foil)


def _mix(
    parts: list[tuple[float, _Acc]],
) -> tuple[dict[Key, list[float]], dict[Group, list[float]], dict[Any, int]]:
    """The variants' figures mixed by weight: per card key and per group ``[expected,
    chance, E[count²]]``, and the worst method rank of each."""
    cards: dict[Key, list[float]] = {}
    groups: dict[Group, list[float]] = {}
    ranks: dict[Any, int] = {}
    for share, acc in parts:
        for k, r in acc.rank.items():
            ranks[k] = max(ranks.get(k, 0), r)
        mean: dict[Group, float] = defaultdict(float)
        for key, e in acc.expected.items():
            row = cards.setdefault(key, [0.0, 0.0, 0.0])
            row[0] += share * e
            row[1] += share * (1.0 - acc.none[key])
            row[2] += share * (acc.var[key] + e * e)
            mean[key_group(key)] += e
        for g in acc.g_none:
            row = groups.setdefault(g, [0.0, 0.0, 0.0])
            row[1] += share * (1.0 - acc.g_none[g])
        for g, m in mean.items():
            groups.setdefault(g, [0.0, 0.0, 0.0])[2] += share * (acc.g_var.get(g, 0.0) + m * m)
    for key, (e, _, _) in cards.items():
        groups.setdefault(key_group(key), [0.0, 0.0, 0.0])[0] += e
    return cards, groups, ranks


def product_odds(cp: CompiledProduct) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Per-pack (card rows, group rows): ``expected`` copies, ``chance`` of at least one,
    ``method`` one of ``METHODS``, and ``variance``, the variance of the count per pack
    under the same model (what ``--simulate`` measures its deviations in)."""
    cards, groups, ranks = _mix(_variant_odds(cp))
    card_rows = []
    for key, (e, c, e2) in cards.items():
        g = key_group(key)
        card_rows.append({
            **dict(zip(KEY_FIELDS, key)), "group": g[0], "expected": e, "chance": min(c, 1.0),
            "method": METHODS[ranks.get(key, 0)], "variance": max(e2 - e * e, 0.0),
        })  # fmt: skip
    card_rows.sort(
        key=lambda r: (
            _group_sort((r["group"], r["foil"])),
            r["name"] or "",
            r["set"],
            r["collector_number"] or "",
            bool(r["gold_stamped"]),
        )
    )
    group_rows = [
        {
            "group": g[0],
            "foil": g[1],
            "expected": e,
            "chance": min(c, 1.0),
            "method": METHODS[ranks.get(("group",) + g, 0)],
            "variance": max(e2 - e * e, 0.0),
        }
        for g, (e, c, e2) in sorted(groups.items(), key=lambda kv: _group_sort(kv[0]))
    ]
    return card_rows, group_rows


def per_unit(rows: list[dict[str, Any]], packs: int) -> list[dict[str, Any]]:
    """Rows of per-pack figures as figures per ``packs`` independent packs."""
    if packs == 1:
        return rows
    return [
        {
            **r,
            "expected": r["expected"] * packs,
            "variance": r.get("variance", 0.0) * packs,
            "chance": -math.expm1(packs * math.log1p(-min(r["chance"], 1.0)))
            if r["chance"] < 1.0
            else 1.0,
        }
        for r in rows
    ]


def match_card(
    rows: list[dict[str, Any]], name: str, product: ProductDef | None = None
) -> list[dict[str, Any]]:
    """Card rows named ``name`` (case-insensitive; else those containing it). None: a
    ``NotFoundError`` naming the nearest names of ``rows`` (``boosterkit.suggest``)."""

    want = name.strip().lower()
    exact = [r for r in rows if (r["name"] or "").lower() == want]
    found = exact or [r for r in rows if want in (r["name"] or "").lower()]
    if not found:
        names = [(r["name"], r["name"]) for r in rows if r["name"]]
        where = f" in {product.code}'s packs" if product else " in this product's packs"
        every = f"boosterkit odds {product.set_code} -p {product.code}" if product else ""
        listing = f"every card's odds: `{every}`" if every else "every card: without --card"
        raise NotFoundError(unknown("card", name, names, listing, where))
    return found


def check_per(per: str) -> str:
    p = per.strip().lower()
    if p not in PER:
        raise InputError(f"per {per!r}: expected pack or box", field="per")
    return p


# --- the entry point ----------------------------------------------------------------------


@_once
def box_sizes(path: Path) -> Mapping[str, int]:
    """Packs per box by product kind, from ``data/boosters/boxes.yaml`` (or ``path``), read
    once per file version like the other booster data."""
    raw = _read_yaml(path)
    if not isinstance(raw, dict) or set(raw) != {"boxes"} or not isinstance(raw["boxes"], dict):
        raise InputError(f"{path}: expected exactly one key, boxes (kind: packs)")
    bad = [k for k, v in raw["boxes"].items() if not isinstance(v, int) or v < 1]
    if bad:
        raise InputError(f"{path}: boxes.{bad[0]} must be a whole number of packs (1 or more)")
    return MappingProxyType(dict(raw["boxes"]))  # shared by every caller: read-only


def _box_size(kind: str, box_size: int | None) -> int | None:
    if box_size is not None:
        if isinstance(box_size, bool) or not isinstance(box_size, int) or box_size < 1:
            raise InputError(
                f"box_size: {box_size!r} is not a whole number of packs (1 or more)",
                field="box_size",
            )
        return box_size
    return box_sizes().get(kind)


def _z(observed: float, expected: float, se: float) -> float | None:
    if se > 1e-9:
        return round((observed - expected) / se, 3)
    return 0.0 if abs(observed - expected) < 1e-9 else None


def _observed(
    rows: list[dict[str, Any]], counts: dict[Any, tuple[int, int, int]], units: int, ids: list[Any]
) -> None:
    """Add the simulated figures and their deviation in standard errors to ``rows``."""
    for row, ident in zip(rows, ids):
        copies, _, present = counts.get(ident, (0, 0, 0))
        mean = copies / units
        chance = present / units
        p = row["chance"]
        row["observed_expected"] = round(mean, 12)
        row["z_expected"] = _z(mean, row["expected"], math.sqrt(row["variance"] / units))
        row["observed_chance"] = round(chance, 12)
        row["z_chance"] = _z(chance, p, math.sqrt(p * (1 - p) / units))


def _simulated(
    cp: CompiledProduct,
    cards: list[dict[str, Any]],
    groups: list[dict[str, Any]],
    packs: int,
    seed: int,
    unit: int,
    jobs: int,
) -> dict[str, Any]:

    sim = simulate(cp, packs, seed, unit, jobs=jobs)
    key_counts = {sim.keys[k]: (c, s, u) for k, c, s, u in sim.cards.rows()}
    group_counts = {sim.groups_index[g]: (c, s, u) for g, c, s, u in sim.groups.rows()}
    _observed(cards, key_counts, sim.units, [tuple(r[f] for f in KEY_FIELDS) for r in cards])
    _observed(groups, group_counts, sim.units, [(r["group"], r["foil"]) for r in groups])
    return {"packs": sim.units * unit, "seed": seed, "units": sim.units}


Rows = list[dict[str, Any]]


def cached_odds(database: Database, cp: CompiledProduct) -> tuple[Rows, Rows]:
    """``product_odds(cp)``, cached with the product (``cp``, from the same session of
    ``database``): the next ``odds`` of it reads them in milliseconds. Copies of the rows:
    the caller's to change."""
    scope = (cp.product.set_code, cp.product.code)
    cards, groups = database.cached().value(
        "odds", tuple[Rows, Rows], lambda _: product_odds(cp), scope, reads=False,
        code=generator_code(),
    )  # fmt: skip
    return [dict(r) for r in cards], [dict(r) for r in groups]


def odds(
    set_code: str,
    product: str | None = None,
    per: str = "pack",
    card: str | None = None,
    db: DbLike = None,
    *,
    box_size: int | None = None,
    simulate: int = 0,
    seed: int = 0,
    jobs: int = 1,
) -> dict[str, Any]:
    """The odds of ``set_code``'s ``product``: per card and per group (rarity or kind, foil),
    the ``expected`` copies and the ``chance`` of at least one per pack or per box.

    ``card``: only card rows of that name. ``simulate`` N > 0: also open N packs of ``seed``
    and add ``observed_*`` figures and ``z_*`` deviations in standard errors (per box: over
    N // box_size whole boxes), in ``jobs`` processes (0: one per core; the same figures
    for any, ``simulation.simulate``). ``db`` as ``open_packs`` takes it (a ``Database``, a path or a
    connection).
    """

    per = check_per(per)
    if isinstance(simulate, bool) or not isinstance(simulate, int) or simulate < 0:
        raise InputError(
            f"simulate: {simulate!r} is not a number of packs (0 or more)", field="simulate"
        )
    seed, jobs = check_seed(seed), check_jobs(jobs)
    database = Database.of(db)
    with database.session():  # one content key for the product and its odds
        cp = compiled(database, set_code, product)  # cached per database content, as `open`
        size = _box_size(cp.product.kind, box_size)
        if per == "box" and size is None:
            raise InputError(
                f"product {cp.product.code} ({cp.product.kind}): no box size in "
                "data/boosters/boxes.yaml; give one with box_size (--box-size N)",
                field="box_size",
            )
        cards, groups = cached_odds(database, cp)
    unit = size if per == "box" and size is not None else 1
    pd = cp.product
    if card is not None:
        cards = match_card(cards, card, pd)
    cards, groups = per_unit(cards, unit), per_unit(groups, unit)
    for r in cards + groups:
        r["expected"], r["chance"] = round(r["expected"], 12), round(r["chance"], 12)
    sim = _simulated(cp, cards, groups, simulate, seed, unit, jobs) if simulate else None
    for r in cards + groups:
        del r["variance"]  # used for the z figures; not one of the odds' fields
    return {
        "set": pd.set_code, "product": pd.code, "name": pd.name, "kind": pd.kind,
        "per": per, "box_size": size, "packs_per_unit": unit, "simulation": sim,
        "groups": groups, "cards": cards,
    }  # fmt: skip
