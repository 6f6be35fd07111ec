"""The pack engine: pure functions from a ``ProductDef`` and a seed to ``Pack`` objects.

A product is compiled once (``compile_product``; cumulative weights as numpy arrays, one
prototype per distinct item) and then whole batches of packs are drawn at once: the random
numbers of every pack come from ``generator.rng`` keyed by (seed, pack index, counter), so
pack *i* depends only on (seed, i) and never on the batch it was drawn in.

Per pack: counter 0 picks the variant by weight. Draw *d* of the pack (its sheets' draws in
variant order) uses counters ``1 + 64*d + r``: round *r* < ``REDRAWS`` redraws a card already
drawn from the same sheet in this pack (sequential rejection, i.e. weighted sampling without
replacement); the last counter of the block draws exactly from the weights left. The extra
slot *e* (no Magic back) uses the block of draw ``EXTRA_BASE + e``: option, card, stamp.

Colour balance (``SheetDef.balance_colors``, research §0 fact 4 and §2.3): of the ``n``
draws, one goes to each of W, U, B, R, G (by weight within the colour), and the other
``n - s`` draws use corrected weights that keep every card's expected count at its
unbalanced value ``n * w / W``. For a monocoloured card of colour ``c`` (colour weight
``W_c``) the seed draw already gives it ``w / W_c``, so the remaining draws must give
``w * (n / W - 1 / W_c)``; any other card (colourless, multicoloured, land) keeps
``w * n / W``. These weights sum to ``n - s`` over the sheet, so they are exactly the
per-draw probabilities times ``n - s`` (Draftmancer's x = (c·r − a·s)/(r·(c+a)) is the
uniform-weight case summed over colours). A colour too small for the correction
(``W_c < W / n``) gets weight 0 in the remaining draws.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from boosterkit.errors import InputError
from boosterkit.generator import rng
from boosterkit.generator._np import np
from boosterkit.generator.lazy import LazyPack, build_items, new_pack
from boosterkit.generator.model import (
    PROTO_FIELDS,
    CardInfo,
    Item,
    Pack,
    ProductDef,
    SheetDef,
    prototype,
)
from boosterkit.generator.rng import check_seed
from boosterkit.pipeline.shapes import MAX_PACK_CARDS
from boosterkit.serialize import to_json

__all__ = [
    "PROTO_FIELDS",
    "CompiledProduct",
    "LazyPack",
    "check_seed",
    "compile_product",
    "draw_batch",
    "open_batch",
    "open_compiled",
    "open_pack",
]

COLORS = ("W", "U", "B", "R", "G")
REDRAWS = 16  # rejection rounds before the exact draw from the remaining weights
BLOCK = 64  # counters reserved per draw position
EXTRA_BASE = 1 << 20  # draw positions of the extra slots (independent of the variant)


@dataclass(frozen=True, slots=True)
class _Sheet:
    name: str
    cum: np.ndarray  # cumulative weights (float64), zero-weight cards removed
    weights: np.ndarray  # float64 weights, same order
    protos: np.ndarray  # local card index -> prototype id
    allow_duplicates: bool
    fixed_protos: tuple[int, ...] | None  # fixed sheets: every card, once per weight unit
    balance: tuple[tuple[np.ndarray, np.ndarray], ...]  # per colour: (cum, local indices)
    corrected: dict[int, tuple[np.ndarray, np.ndarray]]  # draws n -> (weights, cum) after seeds


@dataclass(frozen=True, slots=True)
class _Option:
    cum_share: float
    protos: np.ndarray  # plain prototypes, one per candidate card (or the unresolved item)
    gold: np.ndarray | None  # gold-stamped twins of ``protos`` (art cards)
    gold_p: float


@dataclass(frozen=True, slots=True)
class _Extra:
    number: int  # index in ProductDef.extras: fixes its counters
    first: bool
    cum: np.ndarray
    options: tuple[_Option, ...]


@dataclass(frozen=True, slots=True)
class _Variant:
    index: int
    slots: tuple[tuple[int, int], ...]  # (sheet number, count)
    first: tuple[_Extra, ...]
    last: tuple[_Extra, ...]


@dataclass(frozen=True, slots=True)
class CompiledProduct:
    """A product ready for fast batches: built once by ``compile_product``."""

    product: ProductDef
    variant_cum: np.ndarray
    variants: tuple[_Variant, ...]
    sheets: tuple[_Sheet, ...]
    protos: tuple[tuple[Any, ...], ...]  # Item fields after uid, per prototype id
    item_fields: tuple[tuple[Any, ...], ...]  # the same and ``external`` (False), per Item
    templates: tuple[dict[str, Any], ...]  # Item.to_dict() without uid, per prototype id
    fragments: tuple[str, ...]  # JSON of the template without its opening brace
    #: The same indented as ``serialize.to_json`` indents an item of a pack: built on first
    #: use, per prototype id (``lazy.pretty_fragment``).
    pretty: dict[int, str] = field(default_factory=dict, compare=False)

    def items(self, index: int, protos: Sequence[int]) -> list[Item]:
        """The ``Item`` objects of pack ``index`` holding prototypes ``protos``."""
        return build_items(self.item_fields, index, protos)


class _ProtoTable:
    """Collects distinct item prototypes, numbering them in first-seen order."""

    def __init__(self) -> None:
        self.ids: dict[tuple[Any, ...], int] = {}

    def add(self, proto: tuple[Any, ...]) -> int:
        return self.ids.setdefault(proto, len(self.ids))

    def card(self, c: CardInfo, *, slot: str, foil: bool, gold: bool | None = None) -> int:
        kind = c.kind
        return self.add(prototype(
            card_id=c.card_id if c.resolved and kind != "ad" else None, name=c.name, set=c.set,
            collector_number=c.collector_number, rarity=c.rarity, foil=foil, slot=slot,
            kind=kind, magic_back=c.magic_back, resolved=c.resolved, type_line=c.type_line,
            colors=tuple(c.colors), mana_value=c.mana_value, layout=c.layout,
            gold_stamped=bool(gold) if kind == "art_card" else None,
        ))  # fmt: skip

    def unresolved(self, kind: str, set_code: str, slot: str, gold: bool | None) -> int:
        return self.add(prototype(
            card_id=None, name=None, set=set_code, collector_number=None, rarity=None,
            foil=False, slot=slot, kind=kind, magic_back=False, resolved=False, type_line=None,
            colors=(), mana_value=None, layout=None,
            gold_stamped=bool(gold) if kind == "art_card" else None,
        ))  # fmt: skip


# --- compiling -------------------------------------------------------------------------------


def _cumulative(weights: Sequence[float]) -> np.ndarray:
    # Python-level accumulation: the same float sums on every platform and numpy version.
    return np.array(list(accumulate(float(w) for w in weights)), dtype=np.float64)


def _is_mono(card: CardInfo) -> str | None:
    """The colour of a monocoloured non-land card, else None (lands count as colourless)."""
    if len(card.colors) != 1 or card.colors[0] not in COLORS:
        return None
    if card.type_line and "Land" in card.type_line:
        return None
    return card.colors[0]


_RHO_MAX = 1 - 1e-9


def _quantise(weights: Sequence[float]) -> list[float]:
    """Weights rounded to 40 significant bits of the largest: a last-bit difference in the
    platform's ``exp``/``log`` cannot change the draws."""
    top = max(weights)
    if top <= 0:
        return [0.0 for _ in weights]
    scale = float(1 << 40) / top
    return [float(round(x * scale)) for x in weights]


def _inclusion(w: Sequence[int], n: int) -> list[float]:
    """Chance of each card to be among ``n`` weighted draws without replacement.

    Rosén's approximation for successive sampling: ``1 - exp(-w t)`` with ``t`` such that
    the chances sum to ``n`` (exact for equal weights; within ~1 % otherwise).
    """
    if n >= len(w):
        return [1.0] * len(w)

    def size(t: float) -> float:
        return sum(-math.expm1(-wi * t) for wi in w)

    lo, hi = 0.0, 1.0
    while size(hi) < n:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if size(mid) < n else (lo, mid)
    return [-math.expm1(-wi * hi) for wi in w]


def _balance(
    cards: Sequence[CardInfo], w: list[int], counts: set[int]
) -> tuple[tuple[tuple[np.ndarray, np.ndarray], ...], dict[int, tuple[np.ndarray, np.ndarray]]]:
    """Per-colour seed sheets, and per number of draws the weights for the draws after them."""
    colour_of = [_is_mono(c) for c in cards]
    groups = []
    colour_total: dict[str, float] = {}
    for colour in COLORS:
        local = [i for i, c in enumerate(colour_of) if c == colour]
        if local:
            colour_total[colour] = float(sum(w[i] for i in local))
            groups.append((_cumulative([w[i] for i in local]), np.array(local, dtype=np.int64)))
    corrected: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for n in sorted(counts):
        target = _inclusion(w, n)
        cw = []
        for wi, mono, pi in zip(w, colour_of, target):
            rho = pi  # chance to be among the draws after the seeds, given it is not a seed
            if mono is not None and mono in colour_total:
                seeded = wi / colour_total[mono]
                rho = max(0.0, (pi - seeded) / (1.0 - seeded)) if seeded < 1 else 0.0
            cw.append(-math.log1p(-min(rho, _RHO_MAX)))
        if sum(cw) <= 0:  # nothing left to correct with: plain weights
            cw = [float(x) for x in w]
        cw = _quantise(cw)
        corrected[n] = (np.array(cw, dtype=np.float64), _cumulative(cw))
    return tuple(groups), corrected


def _compile_sheet(sd: SheetDef, table: _ProtoTable, counts: set[int], code: str) -> _Sheet:
    if len(sd.cards) != len(sd.weights):
        raise InputError(
            f"product {code}: sheet {sd.name!r} has {len(sd.cards)} cards but {len(sd.weights)} weights"
        )
    if any(w < 0 for w in sd.weights):
        raise InputError(f"product {code}: sheet {sd.name!r} has a negative weight")
    keep = [i for i, w in enumerate(sd.weights) if w > 0]
    cards = [sd.cards[i] for i in keep]
    w = [int(sd.weights[i]) for i in keep]
    protos = [table.card(c, slot=sd.name, foil=sd.foil) for c in cards]
    fixed = tuple(p for p, wi in zip(protos, w) for _ in range(wi)) if sd.fixed else None
    groups: tuple[tuple[np.ndarray, np.ndarray], ...] = ()
    corrected: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    if sd.balance_colors and not sd.fixed and cards:
        groups, corrected = _balance(cards, w, counts)
    return _Sheet(
        name=sd.name, cum=_cumulative(w), weights=np.array(w, dtype=np.float64),
        protos=np.array(protos, dtype=np.int64), allow_duplicates=sd.allow_duplicates,
        fixed_protos=fixed, balance=groups, corrected=corrected,
    )  # fmt: skip


def _compile_extras(product: ProductDef, table: _ProtoTable) -> list[_Extra]:
    out = []
    for number, slot in enumerate(product.extras):
        if slot.position not in ("first", "last"):
            raise InputError(
                f"product {product.code}: extra slot {slot.name!r} position must be first or last"
            )
        weights = [o.weight for o in slot.options]
        if not slot.options or sum(weights) <= 0 or min(weights) < 0:
            raise InputError(
                f"product {product.code}: extra slot {slot.name!r} has no option with a positive weight"
            )
        options = []
        for o in slot.options:
            set_code = o.set_code or product.set_code
            if o.cards:
                plain = [table.card(c, slot=slot.name, foil=False, gold=False) for c in o.cards]
                gold = [table.card(c, slot=slot.name, foil=False, gold=True) for c in o.cards]
            else:
                plain = [table.unresolved(o.kind, set_code, slot.name, False)]
                gold = [table.unresolved(o.kind, set_code, slot.name, True)]
            is_art = o.kind == "art_card" or any(c.kind == "art_card" for c in o.cards)
            options.append(_Option(
                cum_share=0.0, protos=np.array(plain, dtype=np.int64),
                gold=np.array(gold, dtype=np.int64) if is_art else None,
                gold_p=o.gold_stamped_per_mille / 1000.0,
            ))  # fmt: skip
        out.append(_Extra(number, slot.position == "first", _cumulative(weights), tuple(options)))
    return out


def compile_product(product: ProductDef) -> CompiledProduct:
    """Precompute everything the batch engine needs (cumulative weights, item prototypes)."""
    code = product.code
    if not product.variants or sum(v.weight for v in product.variants) <= 0:
        raise InputError(f"product {code}: no pack variant with a positive weight")
    if product.drawn_cards() > MAX_PACK_CARDS:  # stored before imports were bounded
        raise InputError(
            f"product {code}: a pack of {product.drawn_cards():,} cards, more than the "
            f"{MAX_PACK_CARDS:,} a pack may hold: import it again from a file within the limits"
        )
    names = list(product.sheets)
    number = {n: i for i, n in enumerate(names)}
    counts: dict[str, set[int]] = {n: set() for n in names}
    for v in product.variants:
        for sheet, count in v.slots:
            if sheet not in number:
                raise InputError(
                    f"product {code}: variant {v.index} uses unknown sheet {sheet!r} (sheets: {', '.join(names)})"
                )
            if count < 0:
                raise InputError(f"product {code}: variant {v.index} draws {count} from {sheet!r}")
            counts[sheet].add(count)
    table = _ProtoTable()
    sheets = tuple(_compile_sheet(product.sheets[n], table, counts[n], code) for n in names)
    for v in product.variants:
        for sheet, count in v.slots:
            if count and not len(sheets[number[sheet]].cum):
                raise InputError(
                    f"product {code}: sheet {sheet!r} has no card with a positive weight"
                )
    extras = _compile_extras(product, table)
    variants = []
    for v in product.variants:
        drawn = {s for s, c in v.slots if c}
        kept = [e for e, slot in zip(extras, product.extras) if not drawn & set(slot.unless_sheets)]
        variants.append(_Variant(
            v.index, tuple((number[s], c) for s, c in v.slots),
            tuple(e for e in kept if e.first), tuple(e for e in kept if not e.first),
        ))  # fmt: skip
    protos = tuple(table.ids)
    templates = []
    for p in protos:
        d = Item.from_prototype("", (*p, False)).to_dict()
        del d["uid"]
        templates.append(d)
    fragments = tuple(to_json(t, indent=None)[1:] for t in templates)
    return CompiledProduct(
        product=product, variant_cum=_cumulative([v.weight for v in product.variants]),
        variants=tuple(variants), sheets=sheets, protos=protos,
        item_fields=tuple((*p, False) for p in protos), templates=tuple(templates),
        fragments=fragments,
    )  # fmt: skip


# --- drawing ---------------------------------------------------------------------------------


def _pick(cum: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Indices drawn by weight: ``cum`` cumulative weights, ``u`` uniforms in [0, 1)."""
    idx = np.searchsorted(cum, u * cum[-1], side="right")
    return np.minimum(idx, len(cum) - 1)


def _exact(keys: np.ndarray, counter: int, weights: np.ndarray, taken: np.ndarray) -> np.ndarray:
    """Draw by ``weights`` without the cards in ``taken`` (rows); all weights if none is left."""
    w = np.broadcast_to(weights, (len(keys), len(weights))).copy()
    np.put_along_axis(w, taken, 0.0, axis=1)
    empty = w.sum(axis=1) <= 0
    w[empty] = weights
    cum = np.cumsum(w, axis=1)
    target = rng.uniform_np(keys, counter) * cum[:, -1]
    idx = (cum <= target[:, None]).sum(axis=1)
    return np.minimum(idx, len(weights) - 1)


def _draw_column(
    keys: np.ndarray, draw: int, cum: np.ndarray, weights: np.ndarray,
    earlier: np.ndarray | None,
) -> np.ndarray:  # fmt: skip
    """One draw per row, redrawn while it repeats a card in ``earlier`` (rows × previous)."""
    base = 1 + BLOCK * draw
    col = _pick(cum, rng.uniform_np(keys, base))
    if earlier is None or earlier.shape[1] == 0:
        return col
    bad = np.nonzero((earlier == col[:, None]).any(axis=1))[0]
    for r in range(1, REDRAWS):
        if not len(bad):
            return col
        new = _pick(cum, rng.uniform_np(keys[bad], base + r))
        col[bad] = new
        bad = bad[(earlier[bad] == new[:, None]).any(axis=1)]
    if len(bad):
        col[bad] = _exact(keys[bad], base + BLOCK - 1, weights, earlier[bad])
    return col


def _draw_sheet(keys: np.ndarray, sheet: _Sheet, count: int, first_draw: int) -> np.ndarray:
    """``count`` local card indices per row (rows × count)."""
    out = np.empty((len(keys), count), dtype=np.int64)
    start = 0
    if sheet.balance and count >= len(sheet.balance):
        for j, (cum, local) in enumerate(sheet.balance):
            out[:, j] = local[_pick(cum, rng.uniform_np(keys, 1 + BLOCK * (first_draw + j)))]
        start = len(sheet.balance)
        weights, cum = sheet.corrected[count]
    else:
        weights, cum = sheet.weights, sheet.cum
    for j in range(start, count):
        earlier = None if sheet.allow_duplicates else out[:, :j]
        out[:, j] = _draw_column(keys, first_draw + j, cum, weights, earlier)
    return sheet.protos[out]


def _draw_extra(keys: np.ndarray, extra: _Extra) -> np.ndarray:
    base = 1 + BLOCK * (EXTRA_BASE + extra.number)
    which = _pick(extra.cum, rng.uniform_np(keys, base))
    u_card = rng.uniform_np(keys, base + 1)
    u_gold = rng.uniform_np(keys, base + 2)
    out = np.empty(len(keys), dtype=np.int64)
    for o, opt in enumerate(extra.options):
        rows = np.nonzero(which == o)[0]
        if not len(rows):
            continue
        card = np.minimum((u_card[rows] * len(opt.protos)).astype(np.int64), len(opt.protos) - 1)
        out[rows] = opt.protos[card]
        if opt.gold is not None:
            stamped = u_gold[rows] < opt.gold_p
            out[rows[stamped]] = opt.gold[card[stamped]]
    return out


def _draw_variant(keys: np.ndarray, cp: CompiledProduct, v: _Variant) -> np.ndarray:
    """The prototype ids of packs (rows) of variant ``v``, in pack order."""
    cols: list[np.ndarray] = [_draw_extra(keys, e)[:, None] for e in v.first]
    draw = 0
    for sheet_no, count in v.slots:
        sheet = cp.sheets[sheet_no]
        if sheet.fixed_protos is not None:
            cols.append(
                np.broadcast_to(
                    np.array(sheet.fixed_protos, dtype=np.int64),
                    (len(keys), len(sheet.fixed_protos)),
                )
            )
        elif count:
            cols.append(_draw_sheet(keys, sheet, count, draw))
            draw += count
    cols += [_draw_extra(keys, e)[:, None] for e in v.last]
    if not cols:
        return np.empty((len(keys), 0), dtype=np.int64)
    return np.concatenate(cols, axis=1)


def draw_batch(
    cp: CompiledProduct, seed: int, start: int, count: int
) -> tuple[list[int], list[list[int]]]:
    """Variant indices and prototype ids of packs ``start .. start+count-1`` (1-based)."""
    check_seed(seed)
    return _draw_batch(cp, seed, start, count)


def _draw_batch(
    cp: CompiledProduct, seed: int, start: int, count: int
) -> tuple[list[int], list[list[int]]]:
    drawn = draw_arrays(cp, seed, start, count)
    if len(drawn) == 1 and len(drawn[0][1]) == count:  # one variant: every pack in order
        index, _, mat = drawn[0]
        return [index] * count, mat.tolist()
    rows: list[Any] = [None] * count
    variants = [0] * count
    for index, where, mat in drawn:
        at = where.tolist()
        for i, row in zip(at, mat.tolist()):
            rows[i] = row
        for i in at:
            variants[i] = index
    return variants, rows


def draw_arrays(
    cp: CompiledProduct, seed: int, start: int, count: int
) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """Packs ``start .. start+count-1`` (1-based, seed checked by the caller) as arrays, per
    variant drawn: its index, where its packs are in the batch (0-based offsets, ascending)
    and their prototype ids (a row a pack). ``draw_batch`` is these, as lists in pack order."""
    if start < 1 or count < 0:
        raise InputError(f"pack indices start at 1 (got start {start}, count {count})")
    keys = rng.pack_keys_np(seed, np.arange(start, start + count, dtype=np.uint64))
    if len(cp.variants) == 1:
        v = cp.variants[0]
        return [(v.index, np.arange(count), _draw_variant(keys, cp, v))]
    chosen = _pick(cp.variant_cum, rng.uniform_np(keys, 0))
    drawn = []
    for n, v in enumerate(cp.variants):
        where = np.nonzero(chosen == n)[0]
        if len(where):
            drawn.append((v.index, where, _draw_variant(keys[where], cp, v)))
    return drawn


# --- packs -----------------------------------------------------------------------------------


def open_batch(
    product: ProductDef | CompiledProduct, seed: int, start: int = 1, count: int = 1
) -> list[Pack]:
    """Packs ``start .. start+count-1`` (1-based) of the run of ``product`` with ``seed``.

    A ``ProductDef`` is compiled on every call: callers opening the same product again and
    again pass ``compile_product(product)`` (or use ``generator.cache.ProductCache``)."""
    cp = product if isinstance(product, CompiledProduct) else compile_product(product)
    return open_compiled(cp, check_seed(seed), start, count)


def open_compiled(cp: CompiledProduct, seed: int, start: int, count: int) -> list[Pack]:
    """``open_batch`` for a caller that has checked ``seed`` already (``check_seed``)."""
    # A batch is tens of thousands of new containers and no reference cycle: the cyclic
    # collector would rescan the growing batch dozens of times (a third of the time), so it
    # waits until the batch is built.
    collecting = gc.isenabled()
    gc.disable()
    try:
        variants, rows = _draw_batch(cp, seed, start, count)
        return [new_pack(cp, seed, start + n, variants[n], rows[n]) for n in range(count)]
    finally:
        if collecting:
            gc.enable()


def open_pack(product: ProductDef | CompiledProduct, seed: int, index: int) -> Pack:
    """Pack ``index`` (1-based) of the run of ``product`` with ``seed``: a pure function."""
    return open_batch(product, seed, index, 1)[0]
