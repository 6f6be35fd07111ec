"""A ``ProductDef`` compiled once into a ``CompiledProduct``: plain immutable tables (tuples
of weights and prototype ids, which the cache keeps as JSON), the one form the draw
(``generator.engine``), the odds and the cache read.

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

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from boosterkit.errors import InputError
from boosterkit.generator.lazy import build_items
from boosterkit.generator.model import CardInfo, Item, ProductDef, SheetDef, prototype
from boosterkit.pipeline.shapes import MAX_PACK_CARDS
from boosterkit.serialize import to_json

COLORS = ("W", "U", "B", "R", "G")

Floats = tuple[float, ...]
Ints = tuple[int, ...]


#: Counters reserved per draw position of a pack (``generator.engine`` says how they are used).
BLOCK = 64
#: The draw positions of the extra slots (independent of the variant).
EXTRA_BASE = 1 << 20


@dataclass(frozen=True, slots=True)
class SheetTable:
    """A sheet ready to draw from: its cards with a positive weight, in order."""

    name: str
    cum: Floats  # cumulative weights
    weights: Floats
    protos: Ints  # local card index -> prototype id
    allow_duplicates: bool
    fixed_protos: Ints | None  # fixed sheets: every card, once per weight unit
    balance: tuple[tuple[Floats, Ints], ...]  # per colour: (cum, local indices)
    corrected: tuple[tuple[int, Floats, Floats], ...]  # (draws n, weights, cum) after seeds

    def after_seeds(self, n: int) -> tuple[Floats, Floats]:
        """(weights, cum) of the draws after the colour seeds when ``n`` are drawn."""
        return next((w, c) for count, w, c in self.corrected if count == n)


@dataclass(frozen=True, slots=True)
class OptionTable:
    """One option of an extra slot: a card drawn uniformly (its gold-stamped twin with
    chance ``gold_p``)."""

    protos: Ints  # plain prototypes, one per candidate card (or the unresolved item)
    gold: Ints | None  # gold-stamped twins of ``protos`` (art cards)
    gold_p: float


@dataclass(frozen=True, slots=True)
class ExtraTable:
    """A slot without a Magic back: its options by weight."""

    number: int  # index in ProductDef.extras: fixes its counters
    first: bool
    cum: Floats
    options: tuple[OptionTable, ...]


@dataclass(frozen=True, slots=True)
class VariantTable:
    """A pack variant: (sheet number, count) in pack order, and its extras (by number)."""

    index: int
    slots: tuple[tuple[int, int], ...]
    first: Ints
    last: Ints


@dataclass(frozen=True, slots=True)
class CompiledProduct:
    """A product ready to draw from (``compile_product``): plain immutable tables, the one
    form the draw, the odds and the cache read. ``items`` holds one prototype ``Item`` (uid
    empty) per distinct card and slot; a pack is a list of their indices."""

    product: ProductDef
    variant_cum: Floats
    variants: tuple[VariantTable, ...]
    sheets: tuple[SheetTable, ...]
    extras: tuple[ExtraTable, ...]
    items: tuple[Item, ...]
    #: Derived on first use (not kept: cheap to derive, or costly to load): item fields,
    #: JSON fragments, numpy arrays (``lazy.pretty_fragment`` fills ``pretty``).
    pretty: dict[int, str] = field(default_factory=dict, compare=False, repr=False)
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def pack_cards(self) -> int:
        """``product.pack_cards()``: the most objects one pack holds."""
        found: int | None = self.memo.get("pack_cards")
        if found is None:
            found = self.memo["pack_cards"] = self.product.pack_cards()
        return found

    @property
    def item_fields(self) -> tuple[tuple[Any, ...], ...]:
        """Each prototype's ``Item`` fields after ``uid``."""
        found: tuple[tuple[Any, ...], ...] | None = self.memo.get("item_fields")
        if found is None:
            found = self.memo["item_fields"] = tuple(i[1:] for i in self.items)
        return found

    @property
    def protos(self) -> tuple[tuple[Any, ...], ...]:
        """Each prototype's ``PROTO_FIELDS`` (its fields but ``uid`` and ``external``)."""
        found: tuple[tuple[Any, ...], ...] | None = self.memo.get("protos")
        if found is None:
            found = self.memo["protos"] = tuple(i[1:-1] for i in self.items)
        return found

    @property
    def templates(self) -> tuple[dict[str, Any], ...]:
        """Each prototype's ``Item.to_dict()`` without ``uid``."""
        found: tuple[dict[str, Any], ...] | None = self.memo.get("templates")
        if found is None:
            found = self.memo["templates"] = tuple(_template(i) for i in self.items)
        return found

    def fragment(self, proto: int) -> str:
        """Prototype ``proto``'s template as JSON without its opening brace."""
        made: dict[int, str] = self.memo.setdefault("fragment", {})
        found = made.get(proto)
        if found is None:
            found = made[proto] = to_json(self.templates[proto], indent=None)[1:]
        return found

    @property
    def fragments(self) -> tuple[str, ...]:
        """``fragment`` of every prototype."""
        found: tuple[str, ...] | None = self.memo.get("fragments")
        if found is None:
            found = self.memo["fragments"] = tuple(map(self.fragment, range(len(self.items))))
        return found

    def build(self, index: int, protos: Sequence[int]) -> list[Item]:
        """The ``Item`` objects of pack ``index`` holding prototypes ``protos``."""
        return build_items(self.item_fields, index, protos)


def _template(item: Item) -> dict[str, Any]:
    d = item.to_dict()
    del d["uid"]
    return d


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


def _cumulative(weights: Sequence[float]) -> Floats:
    # Python-level accumulation: the same float sums on every platform.
    return tuple(accumulate(float(w) for w in weights))


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
) -> tuple[tuple[tuple[Floats, Ints], ...], tuple[tuple[int, Floats, Floats], ...]]:
    """Per-colour seed sheets, and per number of draws the weights for the draws after them."""
    colour_of = [_is_mono(c) for c in cards]
    groups = []
    colour_total: dict[str, float] = {}
    for colour in COLORS:
        local = [i for i, c in enumerate(colour_of) if c == colour]
        if local:
            colour_total[colour] = float(sum(w[i] for i in local))
            groups.append((_cumulative([w[i] for i in local]), tuple(local)))
    corrected = []
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
        corrected.append((n, tuple(cw), _cumulative(cw)))
    return tuple(groups), tuple(corrected)


def _compile_sheet(sd: SheetDef, table: _ProtoTable, counts: set[int], code: str) -> SheetTable:
    if len(sd.cards) != len(sd.weights):
        raise InputError(
            f"product {code}: sheet {sd.name!r} has {len(sd.cards)} cards but {len(sd.weights)} weights"
        )
    if any(w < 0 for w in sd.weights):
        raise InputError(f"product {code}: sheet {sd.name!r} has a negative weight")
    keep = [i for i, w in enumerate(sd.weights) if w > 0]
    cards = [sd.cards[i] for i in keep]
    w = [int(sd.weights[i]) for i in keep]
    protos = tuple(table.card(c, slot=sd.name, foil=sd.foil) for c in cards)
    fixed = tuple(p for p, wi in zip(protos, w) for _ in range(wi)) if sd.fixed else None
    balance: tuple[tuple[Floats, Ints], ...] = ()
    corrected: tuple[tuple[int, Floats, Floats], ...] = ()
    if sd.balance_colors and not sd.fixed and cards:
        balance, corrected = _balance(cards, w, counts)
    return SheetTable(
        name=sd.name, cum=_cumulative(w), weights=tuple(float(x) for x in w), protos=protos,
        allow_duplicates=sd.allow_duplicates, fixed_protos=fixed, balance=balance,
        corrected=corrected,
    )  # fmt: skip


def _compile_extras(product: ProductDef, table: _ProtoTable) -> tuple[ExtraTable, ...]:
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
            options.append(OptionTable(
                tuple(plain), tuple(gold) if is_art else None, o.gold_stamped_per_mille / 1000.0
            ))  # fmt: skip
        out.append(
            ExtraTable(number, slot.position == "first", _cumulative(weights), tuple(options))
        )
    return tuple(out)


def _check_product(product: ProductDef) -> dict[str, set[int]]:
    """The counts each sheet is drawn with, after checking the variants use known sheets."""
    code = product.code
    if not product.variants or sum(v.weight for v in product.variants) <= 0:
        raise InputError(f"product {code}: no pack variant with a positive weight")
    if product.drawn_cards() > MAX_PACK_CARDS:  # stored before imports were bounded
        raise InputError(
            f"product {code}: a pack of {product.drawn_cards():,} cards, more than the "
            f"{MAX_PACK_CARDS:,} a pack may hold: import it again from a file within the limits"
        )
    counts: dict[str, set[int]] = {n: set() for n in product.sheets}
    for v in product.variants:
        for sheet, count in v.slots:
            if sheet not in counts:
                raise InputError(
                    f"product {code}: variant {v.index} uses unknown sheet {sheet!r} (sheets: {', '.join(product.sheets)})"
                )
            if count < 0:
                raise InputError(f"product {code}: variant {v.index} draws {count} from {sheet!r}")
            counts[sheet].add(count)
    return counts


def compile_product(product: ProductDef) -> CompiledProduct:
    """Precompute everything the draw needs (cumulative weights, item prototypes)."""
    code = product.code
    counts = _check_product(product)
    names = list(product.sheets)
    number = {n: i for i, n in enumerate(names)}
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
        variants.append(VariantTable(
            v.index, tuple((number[s], c) for s, c in v.slots),
            tuple(e.number for e in kept if e.first), tuple(e.number for e in kept if not e.first),
        ))  # fmt: skip
    return CompiledProduct(
        product=product, variant_cum=_cumulative([v.weight for v in product.variants]),
        variants=tuple(variants), sheets=sheets, extras=extras,
        items=tuple(Item.from_prototype("", (*p, False)) for p in table.ids),
    )  # fmt: skip
