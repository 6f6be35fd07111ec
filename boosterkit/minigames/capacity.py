"""How many players a product's packs can ever serve in a game's ``deal`` step. Pure.

A deal refused because these packs lack cards is bad luck of the seed when some packs of the
product hold enough, and an input error when none can: the bound comes from the product's
structure (its pack variants, sheets and extra slots), not from the packs opened. Per pack,
``high`` counts the slots that can yield a card reaching the deal (it survives the removals
before it and matches the deal's filter), ``low`` the slots that always do.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from boosterkit.errors import InputError
from boosterkit.minigames.filters import describe, matches
from boosterkit.minigames.spec import Combine, Deal, Minigame, Open, Remove, Shuffle

if TYPE_CHECKING:
    from boosterkit.generator.engine import CompiledProduct

__all__ = ["Capacity", "deal_capacity"]

#: Steps before the deal whose effect on the pool is known from the structure alone (the
#: others take cards by chance, or add cards from outside the packs).
_PLAIN = (Open, Remove, Shuffle, Combine)


@dataclass(frozen=True)
class Capacity:
    """What one pack of ``product`` gives a game's deal step: ``low`` to ``high`` cards."""

    spec: Minigame
    deal: Deal
    product: str  # the product's code (``afr-set``)
    low: int
    high: int
    removed: tuple[Any, ...] = ()  # the filters the steps before the deal take out

    def need(self, players: int) -> int:
        """The cards the deal takes at ``players`` (at least one for each player it serves)."""
        served = players - 1 if self.deal.to == "others" else players
        return served * (self.deal.count if isinstance(self.deal.count, int) else 1)

    def span(self, players: int) -> tuple[int, int]:
        """The fewest and the most cards the packs opened at ``players`` give the deal."""
        packs = self.spec.pack_count(players)
        return packs * self.low, packs * self.high

    def most_players(self, cap: int) -> int | None:
        """The most players (up to ``cap``) the packs can ever serve; None: not even the
        game's fewest."""
        lo = self.spec.players_min or 1
        fits = [n for n in range(lo, cap + 1) if self.span(n)[1] >= self.need(n)]
        return fits[-1] if fits else None

    def cards(self) -> str:
        """The cards the deal takes, in words."""
        flt = self.deal.filter
        noun = "cards" if flt in (None, "any") else describe(flt, 2)
        if not self.removed:
            return noun
        return (
            f"{noun} once the {' and the '.join(describe(f) for f in self.removed)} are taken out"
        )

    def too_many(self, players: int, cap: int, others: dict[str, Capacity]) -> InputError | None:
        """The input error of a player count no seed of this product serves (None: some
        seed does); ``others``: the set's other products by kind, the largest named."""
        if self.span(players)[1] >= self.need(players):
            return None
        packs, (_, high) = self.spec.pack_count(players), self.span(players)
        each = self.deal.count if isinstance(self.deal.count, int) else 1
        who = "each player but the first" if self.deal.to == "others" else "each player"
        most = self.most_players(cap) or 0
        best = max(others.items(), key=lambda kv: kv[1].most_players(cap) or 0, default=None)
        more = (best[1].most_players(cap) or 0) if best else 0
        if most == 0:  # not even the fewest players: dealing fewer cannot help
            at_most = "so it cannot deal this game"
            todo = f": `--product {best[0]}` deals up to {more}" if best and more else (
                ": try another set")  # fmt: skip
        else:
            at_most = f"so at most {most} player{'' if most == 1 else 's'}"
            if best and more >= players:
                todo = f"; `--product {best[0]}` deals up to {more}"
            elif best and more > most:
                todo = f" ({more} with `--product {best[0]}`): deal fewer"
            else:
                todo = ": deal fewer"
        return InputError(
            f"players: {players} is more than {self.spec.name} can deal from {self.product} "
            f"packs: {packs} hold at most {high} {self.cards()}, {each} for {who}, {at_most}"
            f"{todo}",
            field="players",
        )

    def by_chance(self, reason: str, players: int, seed: int, others: dict[str, Capacity]) -> str:
        """The refusal of a seed whose packs lack cards other seeds' packs hold: ``reason``,
        the range these packs hold, and a product (of ``others``) that always deals."""
        packs, (low, high) = self.spec.pack_count(players), self.span(players)
        sure = [k for k, c in others.items() if c.span(players)[0] >= c.need(players)]
        also = (
            f", or `--product {sure[0]}` (its {packs} hold at least "
            f"{others[sure[0]].span(players)[0]})"
            if sure
            else ""
        )
        return (
            f"{reason}; {packs} {self.product} packs hold {low} to {high} such cards: try "
            f"another seed (this was {seed}){also}"
        )


def deal_capacity(spec: Minigame, cp: CompiledProduct, strict: bool) -> Capacity | None:
    """The capacity of ``cp``'s packs for ``spec``'s first deal step; None when the game has
    none, or when a step before it changes the pool in ways the structure cannot bound."""
    removed: list[Any] = []
    for step in spec.steps or ():
        if isinstance(step, Deal):
            low, high = _per_pack(cp, removed, step.filter, strict)
            return Capacity(spec, step, cp.product.code, low, high, tuple(removed))
        if not isinstance(step, _PLAIN) or (isinstance(step, Open) and step.which == "pack"):
            return None
        if isinstance(step, Remove):
            removed.append(step.filter)
    return None


def _per_pack(cp: CompiledProduct, removed: list[Any], flt: Any, strict: bool) -> tuple[int, int]:
    """(fewest, most) cards reaching the deal in one pack, over the variants that can occur."""

    def reach(protos: Iterable[int]) -> tuple[bool, bool]:  # (some do, all do)
        ok = [
            matches(i, flt, strict) and not any(matches(i, r, strict) for r in removed)
            for i in cp.build(0, [int(p) for p in protos])
        ]
        return any(ok), bool(ok) and all(ok)

    sheets = [reach(s.protos) for s in cp.sheets]
    lows, highs = [], []
    for vdef, v in zip(cp.product.variants, cp.variants):
        if vdef.weight <= 0:
            continue
        low = high = 0
        for number, count in v.slots:
            fixed = cp.sheets[number].fixed_protos
            if fixed is not None:
                some = sum(reach([p])[0] for p in fixed)
                low, high = low + some, high + some
            elif count:
                low += count * sheets[number][1]
                high += count * sheets[number][0]
        for extra in (*v.first, *v.last):
            some, every = _extra_reach(reach, cp.extras[extra].options)
            low, high = low + every, high + some
        lows.append(low)
        highs.append(high)
    return min(lows, default=0), max(highs, default=0)


def ever_holds(cp: CompiledProduct, flt: Any, removed: Sequence[Any], strict: bool) -> bool:
    """Whether any pack of ``cp`` can hold a card of ``flt`` that survives ``removed`` (a
    card the database lacks cannot serve: a game that reads it refuses it unknown)."""
    return any(
        matches(i, flt, strict) and not any(matches(i, r, strict) for r in removed)
        for i in cp.items  # every card a pack can hold
    )


def always_unknown(cp: CompiledProduct) -> list[str]:
    """The sets of the cards the database lacks that every pack of ``cp`` holds (a slot
    drawing only such cards in every variant), in order; [] when some pack holds none."""
    found: list[str] | None = None
    for vdef, v in zip(cp.product.variants, cp.variants):
        if vdef.weight <= 0:
            continue
        sets: list[str] = []
        for number, count in v.slots:
            items = cp.build(0, cp.sheets[number].protos) if count else []
            if items and not any(i.resolved for i in items):
                sets += [i.set for i in items if i.set not in sets]
        if not sets:
            return []
        found = sets if found is None else [s for s in found if s in sets] or found
    return found or []


def _extra_reach(reach: Any, options: Sequence[Any]) -> tuple[bool, bool]:
    """Whether an extra slot can give (any option) and always gives (every option) a card."""
    found = [reach([*o.protos, *(o.gold if o.gold is not None else ())]) for o in options]
    return any(f[0] for f in found), all(f[1] for f in found)
