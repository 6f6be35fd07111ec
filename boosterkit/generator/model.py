"""Plain data the generator reads (products) and writes (packs of items).

``ProductDef`` is a product compiled from the database and ``data/``: weighted variants,
sheets of resolved cards with integer weights, and the slots without a Magic back. The
engine (``generator.engine``) only ever sees these objects, never the database.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple


@dataclass(frozen=True, slots=True)
class CardInfo:
    """What the generator and the minigames need to know of one printing."""

    card_id: str | None  # Scryfall id; None for ad cards and unresolved references
    name: str | None
    set: str  # lowercase set code
    collector_number: str | None
    rarity: str | None
    kind: str  # card | token | art_card | minigame | emblem | ad | other
    magic_back: bool
    type_line: str | None = None
    colors: tuple[str, ...] = ()
    mana_value: float | None = None
    layout: str | None = None
    resolved: bool = True


@dataclass(frozen=True, slots=True)
class SheetDef:
    """A sheet: cards with integer weights, drawn ``count`` times per pack by a variant."""

    name: str
    cards: tuple[CardInfo, ...]
    weights: tuple[int, ...]
    foil: bool = False
    balance_colors: bool = False
    allow_duplicates: bool = False
    fixed: bool = False  # every card is in every pack, once per weight unit (Jumpstart-style)

    @property
    def total_weight(self) -> int:
        return sum(self.weights)


@dataclass(frozen=True, slots=True)
class VariantDef:
    """One whole-pack layout: (sheet name, count) in pack order, chosen with ``weight``."""

    index: int
    weight: int
    slots: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class ExtraOption:
    """One possible content of a slot without a Magic back (see ``data/nonmagic.yaml``).

    ``cards`` are the candidates (uniform), empty when the source set is not in the
    database: the slot then yields an unresolved item of this kind and set.
    """

    kind: str  # token | art_card | minigame | ad
    set_code: str | None
    weight: int
    cards: tuple[CardInfo, ...] = ()
    gold_stamped_per_mille: int = 0  # art cards: chance of the gold-stamped signature, in ‰


@dataclass(frozen=True, slots=True)
class ExtraSlot:
    """A slot without a Magic back: one option is drawn by weight.

    The slot is skipped in packs whose variant draws any sheet in ``unless_sheets`` (for
    example the token/ad slot of a Set Booster that carries a card from The List).
    ``position`` is ``first`` or ``last`` in the pack.
    """

    name: str
    options: tuple[ExtraOption, ...]
    unless_sheets: tuple[str, ...] = ()
    position: str = "last"


@dataclass(frozen=True, slots=True)
class ProductDef:
    """A booster product ready to open."""

    code: str
    set_code: str
    name: str
    kind: str
    source: str  # sealed-data | mtgjson | generic
    variants: tuple[VariantDef, ...]
    sheets: dict[str, SheetDef]
    extras: tuple[ExtraSlot, ...] = ()
    #: Other sets its sheets draw from, as the source data names them (MTGJSON
    #: ``sourceSetCodes``): where an unresolved card's own set is unknown, these say which
    #: sync brings it.
    source_sets: tuple[str, ...] = ()
    #: What was changed from the product's rules to fit the data (generic products: a
    #: choice whose sheet selects no card, a set without booster flags), one line each.
    notes: tuple[str, ...] = ()

    def drawn_cards(self) -> int:
        """The most cards a pack draws from the sheets: a variant's counts, a fixed sheet
        counted by its weights (every card, once per weight unit)."""
        return max(
            (
                sum(
                    s.total_weight if (s := self.sheets.get(name)) and s.fixed else count
                    for name, count in v.slots
                )
                for v in self.variants
            ),
            default=0,
        )

    def pack_cards(self) -> int:
        """The most objects one pack holds: ``drawn_cards`` and one per extra slot."""
        return self.drawn_cards() + len(self.extras)


class Item(NamedTuple):
    """One object in an opened pack (immutable; serialise it with ``to_dict``).

    An item is its ``uid`` ("p12-7" = pack 12, position 7; unique within a run) followed by
    the fields of its prototype (``ITEM_FIELDS``): the engine keeps one prototype tuple per
    distinct card and slot and builds an item as ``(uid,) + prototype`` in one step
    (``from_prototype``).
    """

    uid: str
    card_id: str | None
    name: str | None
    set: str
    collector_number: str | None
    rarity: str | None
    foil: bool
    slot: str  # the sheet or extra slot it came from
    kind: str
    magic_back: bool
    resolved: bool
    type_line: str | None = None
    colors: tuple[str, ...] = ()
    mana_value: float | None = None
    layout: str | None = None
    gold_stamped: bool | None = None  # art cards only
    external: bool = False  # added from outside the packs (minigame setups)

    @classmethod
    def from_prototype(cls, uid: str, proto: tuple[Any, ...]) -> Item:
        """An item with ``proto`` (the ``ITEM_FIELDS`` values, in order) as its fields."""
        return _new(cls, (uid, *proto))

    def to_dict(self) -> dict[str, Any]:
        """The item as JSON: its fields in order (``colors`` a list), ``gold_stamped`` on art
        cards only and ``external`` only when true (``setupfile.SetupItem`` is this shape)."""
        d: dict[str, Any] = dict(zip(_DICT_FIELDS, self))  # up to ``layout``
        d["colors"] = list(self.colors)
        if self.kind == "art_card":
            d["gold_stamped"] = bool(self.gold_stamped)
        if self.external:
            d["external"] = True
        return d


# The fields of cards and items are declared once, by ``CardInfo`` and ``Item``; every other
# list of them (prototypes, CSV columns, the cards columns read, validate's comparisons) is
# derived from these two, and read by name.

#: The fields ``Item.to_dict`` always holds, in order (``gold_stamped`` and ``external``,
#: the last two, only when they apply).
_DICT_FIELDS: tuple[str, ...] = Item._fields[:-2]
#: ``Item`` fields after ``uid``, in order: ``Item.from_prototype``'s ``proto``.
ITEM_FIELDS: tuple[str, ...] = Item._fields[1:]
#: The engine's prototype of a distinct item: its fields but ``uid`` and ``external`` (an item
#: from the packs is never external), in ``Item`` order.
PROTO_FIELDS: tuple[str, ...] = tuple(f for f in ITEM_FIELDS if f != "external")
#: A field's position in a prototype (``proto[PROTO_INDEX["kind"]]``).
PROTO_INDEX: dict[str, int] = {f: i for i, f in enumerate(PROTO_FIELDS)}
#: The ``cards`` column of each ``CardInfo`` field read from the database (``resolved`` says
#: whether the row was found; it is no column).
CARD_COLUMNS: dict[str, str] = {
    f.name: {"card_id": "id", "set": "set_code"}.get(f.name, f.name)
    for f in fields(CardInfo)
    if f.name != "resolved"
}


def prototype(**values: Any) -> tuple[Any, ...]:
    """An item prototype from its ``PROTO_FIELDS`` by name (all of them)."""
    return tuple(values[f] for f in PROTO_FIELDS)


#: ``tuple.__new__`` builds an ``Item`` from one tuple of all its fields without the keyword
#: handling of ``Item(...)``: the engine makes hundreds of thousands per second.
_new = tuple.__new__


@dataclass(slots=True)
class Pack:
    """An opened pack: pack ``index`` of the run with ``seed``, drawn from ``variant``."""

    set: str
    product: str
    seed: int
    index: int
    variant: int
    items: list[Item] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "set": self.set,
            "product": self.product,
            "seed": self.seed,
            "index": self.index,
            "variant": self.variant,
            "items": [i.to_dict() for i in self.items],
        }
