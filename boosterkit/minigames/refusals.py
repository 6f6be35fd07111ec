"""Why a deal was refused, in words that say what would work (issue 30 §3): "try another
seed" only where another seed deals (and which one), an input error where no seed of the
product can, the sync that brings cards the database lacks, another product of the set.

``deal`` calls ``explain`` with the refused ``SetupError``; ``validate`` asks
``never_served`` whether a setup's packs could ever make the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from boosterkit.errors import BoosterkitError, InputError
from boosterkit.generator.cache import compiled
from boosterkit.generator.engine import open_compiled
from boosterkit.generator.rng import SEED_MAX
from boosterkit.minigames.capacity import always_unknown, deal_capacity, ever_holds
from boosterkit.minigames.engine import (
    MAX_TABLE_PLAYERS,
    SetupError,
    UnknownCardsError,
    run_steps,
)
from boosterkit.minigames.filters import describe
from boosterkit.minigames.lookup import sets_holding
from boosterkit.minigames.ops import backed
from boosterkit.minigames.spec import AddBack, Minigame, Remove
from boosterkit.pipeline.fills import fill_hints

if TYPE_CHECKING:
    from boosterkit.database import Database
    from boosterkit.generator.engine import CompiledProduct
    from boosterkit.generator.model import CardInfo, ProductDef
    from boosterkit.minigames.capacity import Capacity
    from boosterkit.pipeline.db import Connection

#: The product kinds a refused deal may offer instead, in this order (those the organizer
#: page's product choice lists).
ALTERNATIVE_KINDS = ("draft", "play", "set")
#: Seeds after a refused one tried before saying which deals (or that none of them does).
NEXT_SEEDS = 8


@dataclass
class Attempt:
    """What a deal was asked for, to try it again with another product or seed."""

    database: Database
    con: Connection
    spec: Minigame
    players: int
    seed: int
    strict_backs: bool
    basics: dict[str, CardInfo] | None = None

    def deals(self, cp: CompiledProduct, seed: int, set_code: str, product: str) -> bool:
        """Whether ``cp``'s packs of ``seed`` make the setup."""
        count = self.spec.pack_count(self.players)
        try:
            run_steps(self.spec, open_compiled(cp, seed, 1, count), self.players, seed,
                      set_code=set_code, product=product, strict_backs=self.strict_backs,
                      basics=self.basics)  # fmt: skip
        except SetupError:
            return False
        return True

    def next_seed(self, set_code: str, cp: CompiledProduct) -> int | None:
        """The first of the ``NEXT_SEEDS`` seeds after this one that deals from ``cp``."""

        seeds = (s for s in range(self.seed + 1, self.seed + 1 + NEXT_SEEDS) if s <= SEED_MAX)
        return next((s for s in seeds if self.deals(cp, s, set_code, cp.product.code)), None)

    def alternative(self, set_code: str, used: str) -> str | None:
        """The first kind of ``ALTERNATIVE_KINDS`` whose default product is not ``used``,
        holds no card the database lacks, and deals this seed."""

        # startup: the products module imports DuckDB and the booster YAML; a deal that is
        # not refused needs neither
        from boosterkit.generator.products import default_products, holds_unresolved

        defaults = default_products(self.con, set_code)
        for kind in ALTERNATIVE_KINDS:
            if defaults.get(kind) in (None, used):
                continue
            cp = compiled(self.database, set_code, defaults[kind])
            if not holds_unresolved(cp.product) and self.deals(cp, self.seed, set_code, kind):
                return kind
        return None

    def others(self, set_code: str, used: str) -> dict[str, CompiledProduct]:
        """The set's default product of each ``ALTERNATIVE_KINDS`` but ``used``, by kind."""

        from boosterkit.generator.products import default_products  # startup: as above

        defaults = default_products(self.con, set_code)
        return {
            kind: compiled(self.database, set_code, defaults[kind])
            for kind in ALTERNATIVE_KINDS
            if defaults.get(kind) not in (None, used)
        }

    def capacities(self, set_code: str, used: str) -> dict[str, Capacity]:
        """What the set's other products (those holding no card the database lacks) give
        this game's deal step."""

        out = {}
        for kind, cp in self.others(set_code, used).items():
            cap = None if _holds_unresolved(cp.product) else deal_capacity(
                self.spec, cp, self.strict_backs)  # fmt: skip
            if cap is not None:
                out[kind] = cap
        return out


def explain(attempt: Attempt, set_code: str, cp: CompiledProduct, exc: SetupError) -> None:
    """Reword ``exc`` (or raise the input error it is) so it says what would work."""
    if exc.op == "deal":
        _shortfall(attempt, set_code, cp, exc)
    else:
        err = never_served(attempt.spec, exc, cp, attempt.strict_backs, attempt.con, set_code,
                           attempt.others(set_code, cp.product.code))  # fmt: skip
        if err is not None:
            raise err from exc
    if isinstance(exc, UnknownCardsError):
        _unknown(attempt, set_code, cp, exc)
    elif exc.op != "deal" and exc.reason and "try another seed" in str(exc):
        _seed(attempt, set_code, cp, exc)


def _shortfall(attempt: Attempt, set_code: str, cp: CompiledProduct, exc: SetupError) -> None:
    """A deal step's refusal: an input error when no pack of ``cp``'s product could ever
    serve the players (the bound is the product's structure), else ``exc`` says the range
    its packs hold and names a product of the set that always deals."""

    spec, players = attempt.spec, attempt.players
    cap = deal_capacity(spec, cp, attempt.strict_backs)
    if cap is None:
        return
    others = attempt.capacities(set_code, cp.product.code)
    limit = min(spec.players_max or MAX_TABLE_PLAYERS, MAX_TABLE_PLAYERS)
    too_many = cap.too_many(players, limit, others)
    if too_many is not None:
        raise too_many from exc
    if cap.span(players)[0] < cap.need(players):
        exc.args = (cap.by_chance(exc.reason, players, attempt.seed, others),)


def _seed(attempt: Attempt, set_code: str, cp: CompiledProduct, exc: SetupError) -> None:
    """ "Try another seed": say which seed deals, or that none of the next ones does."""
    found = attempt.next_seed(set_code, cp)
    if found is not None:
        exc.args = (f"{exc.reason}; `--seed {found}` deals it (this was {attempt.seed})",)
    else:
        exc.args = (
            f"{exc.reason}; none of the {NEXT_SEEDS} seeds after {attempt.seed} deals it "
            "either: try another set or product",
        )


def _unknown(attempt: Attempt, set_code: str, cp: CompiledProduct, exc: UnknownCardsError) -> None:
    """Name a product of the set that deals this seed, else a seed that deals, else say
    that none of the next seeds does (Strixhaven's Mystical Archive slot: every pack)."""

    kind = attempt.alternative(set_code, cp.product.code)
    if kind:
        exc.offer(kind)
    elif not exc.own:
        found = attempt.next_seed(set_code, cp)
        if found is not None:
            exc.offer_seed(found)
        else:
            exc.none_of(NEXT_SEEDS, attempt.seed, cp.product.code if always_unknown(cp) else None)


def never_served(
    spec: Minigame,
    exc: SetupError,
    cp: CompiledProduct,
    strict: bool,
    con: Connection,
    set_code: str,
    others: dict[str, CompiledProduct] | None = None,
) -> BoosterkitError | None:
    """The error of a refusal no seed of ``cp`` can avoid: its step needs a kind of card no
    pack of the product holds (an input error naming a product or set whose packs do), or
    that only cards the database lacks could be (the sync that brings them); else None.
    ``deal`` and ``validate`` both say it. ``others``: the set's other products by kind."""

    step, steps = exc.step, spec.steps or []
    flt = getattr(step, "filter", None)
    at = next((k for k, s in enumerate(steps) if s is step), None)
    if step is None or flt is None or at is None or exc.op == "deal":
        return None

    # an add_back draws from the removed cards: what it needs is a removed card of its filter
    removed = [] if isinstance(step, AddBack) else [
        s.filter for s in steps[:at] if isinstance(s, Remove)]  # fmt: skip
    need = backed(flt) if isinstance(step, AddBack) else flt
    if ever_holds(cp, need, removed, strict):
        return None
    unknown = _own_unknown(cp, set_code)
    if unknown:
        return _missing_data(spec, cp, set_code, unknown, flt)
    kinds = [k for k, o in (others or {}).items() if ever_holds(o, need, removed, strict)]
    return _never_message(spec, step, cp, set_code, need, kinds, con, strict)


def _own_unknown(cp: CompiledProduct, set_code: str) -> int:
    """How many cards of the set itself ``cp``'s sheets name that the database lacks."""
    items = cp.items
    return sum(1 for i in items if i.kind == "card" and not i.resolved and i.set == set_code)


def _missing_data(
    spec: Minigame, cp: CompiledProduct, set_code: str, unknown: int, flt: Any
) -> SetupError:

    hint = fill_hints(set_code, [set_code])[0]
    return SetupError(
        f"{spec.name}: no {describe(flt)} the database knows is in {cp.product.code} packs, and "
        f"{unknown} cards of its sheets are not in the database, so what they are is unknown: "
        f"`{hint}` (or `boosterkit import mtgjson` of its MTGJSON set file) would bring them"
    )


def _never_message(
    spec: Minigame,
    step: Any,
    cp: CompiledProduct,
    set_code: str,
    need: Any,
    kinds: list[str],
    con: Connection,
    strict: bool,
) -> InputError:

    if kinds:
        where = f"deal it with `--product {kinds[0]}`"
    else:
        sets = sets_holding(con, need, strict, set_code)
        parents = ", ".join(dict.fromkeys(p.parent for p in spec.printings))
        where = (
            f"deal it with `--set {sets[0]}`"
            + (f" (or {', '.join(sets[1:4])})" if sets[1:] else "")
            if sets
            else f"no loaded set has one; `boosterkit sync {spec.printings[0].parent}` loads the "
            f"set it was printed for ({parents})"
        )
    what = describe(need, 1)
    a = "an" if what[:1] in "aeiou" else "a"
    return InputError(
        f"{spec.name}: no {cp.product.code} pack can hold {a} {what}, which the "
        f"{getattr(step, 'zone', None) or step.op.replace('_', ' ')} needs, so no seed deals "
        f"it: {where}",
        field="set",
    )


def _holds_unresolved(product: ProductDef) -> bool:
    from boosterkit.generator.products import holds_unresolved  # startup: as above

    return holds_unresolved(product)
