"""The setup ops: what each step model of ``spec.Step`` does to the working pools and zones
(``State``), one ``_op_*`` function per step, dispatched by ``OPS``. Pure.

Adding an op is one step model in ``minigames/spec.py`` (listed in ``Step``) and one function
here (listed in ``OPS``; the ops about players rather than pools, ``roll``, ``roles`` and
``discard``, are in ``minigames.player_ops``); ``tests/test_models.py`` checks that every step
has one. Every zone
an op makes records the ``Rule`` that admitted its cards, which is what validation replays.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

from boosterkit.errors import BoosterkitError
from boosterkit.generator.model import CardInfo, Item, Pack
from boosterkit.generator.streams import Rng
from boosterkit.minigames.filters import describe, is_nmb, matches, nonmagic_filter, predicate
from boosterkit.minigames.player_ops import op_discard, op_roles, op_roll
from boosterkit.minigames.spec import (
    ZONE_STEPS,
    AddBack,
    AddExternal,
    AssignRoles,
    BaseStep,
    Combine,
    Deal,
    Discard,
    Ensure,
    Flip,
    Layout,
    Minigame,
    Open,
    Piles,
    Place,
    Remove,
    Reserve,
    Roll,
    Select,
    Shuffle,
    Split,
)
from boosterkit.pipeline.fills import fill_hints

if TYPE_CHECKING:  # reading a setup file is validate's and the referee's, not deal's
    from boosterkit.minigames.setupfile import SetupItem, SetupZone

BASIC_NAMES = ("Plains", "Island", "Swamp", "Mountain", "Forest")


class SetupError(BoosterkitError):
    """The opened packs cannot make this game's setup (for example too few lands).

    ``set_code`` and ``product``: what the packs were opened as (``deal`` fills them in);
    ``op`` and ``reason``: the step that refused a seed and its refusal without the advice
    (``deal`` words a player count no seed can serve as an input error)."""

    set_code: str | None = None
    product: str | None = None
    op: str | None = None
    reason: str = ""
    step: BaseStep | None = None


@dataclass(frozen=True)
class Rule:
    """What a zone filled by one step may hold (checked by validation)."""

    packs: tuple[int, ...] = ()  # cards must come from these packs (own-pack games)
    removed: tuple[Any, ...] = ()  # filters taken out of the pool before the zone was filled
    readmit: tuple[Any, ...] = ()  # filters added back afterwards
    need: Any = None  # the step's own filter
    unless: tuple[Any, ...] = ()  # filters of earlier piles of a split
    external: bool = False  # outside additions allowed

    def check(self, item: Item, pack_of: dict[str, int], strict: bool) -> str | None:
        """None when ``item`` may be here, else the reason it may not."""
        if item.external:
            if not self.external:
                return "is an outside addition, which this zone does not take"
        elif self.packs and pack_of.get(item.uid) not in self.packs:
            own = " or ".join(map(str, self.packs))
            s = "s" if len(self.packs) > 1 else ""
            return f"comes from pack {pack_of.get(item.uid)}, not this player's own pack{s} {own}"
        for flt in self.removed:
            if matches(item, flt, strict) and not any(
                readmits(g, item, strict) for g in self.readmit
            ):
                return f"is one of the {describe(flt)} the rules remove"
        if self.need is not None and not matches(item, self.need, strict):
            return f"is not one of the {describe(self.need)} this zone takes"
        if any(matches(item, u, strict) for u in self.unless):
            return "belongs in an earlier pile of the split"
        return None


def readmits(flt: Any, item: Item, strict: bool) -> bool:
    """Whether an ``add_back`` of ``flt`` may put ``item`` back: it matches, and has a Magic
    back unless the filter asks for cards without one (Foraging Squirrels' art card; Mimic
    Match's mimics are lands, never a double-faced land whose back shows it)."""
    return matches(item, flt, strict) and (nonmagic_filter(flt) or not is_nmb(item, strict))


def backed(flt: Any) -> Any:
    """``flt`` limited to cards with a Magic back, unless it asks for cards without one."""
    if nonmagic_filter(flt):
        return flt
    terms = flt if isinstance(flt, list) else [flt]
    out = [f"{t}+magic" for t in terms]
    return out if isinstance(flt, list) else out[0]


@dataclass
class Zone:
    """A named place in the setup: a hand, a grid, a deck, the removed cards…"""

    name: str
    owner: str | None
    kind: str
    cards: list[Item] = field(default_factory=list)
    rows: int | None = None
    cols: int | None = None
    visibility: str = "public"  # public | owner | hidden (spec.VISIBILITIES)
    face_down: bool = False  # the card has these cards lie face down (sheets say so)
    tags: dict[str, str] = field(default_factory=dict)  # uid -> tag (e.g. mimic)

    def to_dict(self, made: Mapping[str, tuple[Item, Any]] | None = None) -> SetupZone:
        """The zone as JSON; ``made``: the packs' items already made, by uid (the item, and
        its dict, copied rather than made again, or its ``serialize.written`` token)."""
        shape: dict[str, Any] = {} if self.rows is None else {"rows": self.rows, "cols": self.cols}
        d = {
            "name": self.name,
            "owner": self.owner,
            "kind": self.kind,
            "visibility": self.visibility,
        }
        known, tags, none = (made or {}).get, self.tags.get, (None, None)
        cards: list[Any] = []
        for c in self.cards:
            item, done = known(c.uid, none)
            tag = tags(c.uid)
            if item is not c and item != c:
                done = None  # not the pack's item of that uid
            if done is not None and type(done) is not dict and not tag:
                cards.append(done)  # written already (a ``serialize.written`` token)
            else:
                cards.append(_tagged(dict(done) if isinstance(done, dict) else c.to_dict(), tag))
        return cast("SetupZone", {**d, **shape, "cards": cards})


def _tagged(d: dict[str, Any], tag: str | None) -> SetupItem:
    item = cast("SetupItem", d)  # Item.to_dict(): the item's fields
    if tag:
        item["tag"] = tag
    return item


#: Who may see a zone's cards (``spec.VISIBILITIES``): everyone (face up), its owner only
#: (a hand, an own grid), or nobody at the table (face down, set aside: the organizer's page).
_HIDDEN_KINDS = ("removed", "set_aside", "deck")


def default_visibility(kind: str, owner: str | None) -> str:
    """A zone's visibility when its step does not say: hands and picks are their owner's,
    decks and removed cards are face down, the rest lies face up."""
    if kind in _HIDDEN_KINDS:
        return "hidden"
    if kind in ("hand", "selected", "grid", "pile") and owner:
        return "owner"
    return "public"


def external_basics(
    players: int, per_type: int, basics: dict[str, CardInfo], set_code: str
) -> dict[str, list[Item]]:
    """The outside basic lands each player adds (uids ``x<player>-<n>``)."""
    out: dict[str, list[Item]] = {}
    for p in range(1, players + 1):
        items: list[Item] = []
        for name in BASIC_NAMES:
            info = basics.get(name)
            for _ in range(per_type):
                items.append(
                    Item(
                        uid=f"x{p}-{len(items) + 1}",
                        card_id=info.card_id if info else None,
                        name=name,
                        set=info.set if info else set_code,
                        collector_number=info.collector_number if info else None,
                        rarity="common",
                        foil=False,
                        slot="external",
                        kind="card",
                        magic_back=True,
                        resolved=info is not None,
                        type_line=f"Basic Land — {name}",
                        colors=(),
                        mana_value=0.0,
                        layout="normal",
                        external=True,
                    )
                )
        out[f"player-{p}"] = items
    return out


def team_members(teams: int | None, players: int) -> dict[str, list[str]]:
    """The teams of a team game (``team-1``…: players dealt round the table in turn), else
    none."""
    if not teams:
        return {}
    return {
        f"team-{t + 1}": [f"player-{k + 1}" for k in range(players) if k % teams == t]
        for t in range(teams)
    }


class State:
    """Working pools and zones while the steps run (what each ``_op_*`` function changes)."""

    def __init__(
        self,
        spec: Minigame,
        packs: list[Pack],
        players: int,
        seed: int,
        strict: bool,
        basics: dict[str, CardInfo],
        first: str | None,
        set_code: str,
    ):
        self.spec, self.packs, self.strict, self.basics = spec, packs, strict, basics
        self.set_code = set_code
        self.players = [f"player-{i}" for i in range(1, players + 1)]
        self.rng = Rng(seed, f"minigame/{spec.id}")
        self.pools: dict[str | None, list[Item]] = {}
        self.pool_rules: dict[str | None, Rule] = {}
        self.zones: dict[str, Zone] = {}
        self.rules: dict[str, list[Rule]] = {}
        self.expect: dict[str, str] = {}
        self.rolls: dict[str, int] = {}
        self.tiebreaks: dict[str, list[int]] = {}
        self.tags: dict[str, str] = {}
        self.roles: dict[str, str] = {}
        #: who a step chose, by the zone it made (a replay passes the file's: ``given``)
        self.chosen: dict[str, str] = {}
        self.given: dict[str, str] = {}
        self.step: BaseStep | None = None
        self.notes: list[str] = []
        self.teams = team_members(spec.players.teams, len(self.players))
        self.first = self._first_player(first)

    def _first_player(self, given: str | None) -> str | None:
        rule = self.spec.first_player.rule
        if rule == "random_team":  # "Randomly determine which team goes first"
            drawn = self.rng.choose(list(self.teams))
            return given if given in self.teams else drawn
        if rule == "random":  # drawn even when given: a replay's shuffles are deal's
            drawn = self.rng.choose(self.players)
            return given if given in self.players else drawn
        if rule == "choice":
            return given if given in self.players else self.players[0]
        if rule == "at_table":  # the card names who starts by a fact of the table
            return given if given in self.players else None
        return None

    # zones -------------------------------------------------------------------------------
    def zone(self, name: str, owner: str | None, kind: str, rule: Rule, why: str = "") -> Zone:
        if name not in self.zones:
            step = self.step if isinstance(self.step, ZONE_STEPS) else None
            vis = (step and step.visibility) or default_visibility(kind, owner)
            down = kind == "deck" if step is None or step.face_down is None else step.face_down
            self.zones[name] = Zone(name, owner, kind, visibility=vis, face_down=down)
            self.rules[name] = []
        if rule not in self.rules[name]:
            self.rules[name].append(rule)
        if why:
            self.expect[name] = why
        return self.zones[name]

    def fail(self, msg: str, pool: list[Item] | None = None) -> SetupError:
        """A setup this seed cannot deal. When ``pool`` holds cards of the dealt set that are
        not in the database (types unknown, so no filter matches them), every seed draws
        such cards: the error says which sync would bring them instead of "another seed"
        (unresolved cards of other sets, e.g. The List, are occasional and stay a seed matter).
        """
        own = [
            i for i in pool or () if i.kind == "card" and not i.resolved and i.set == self.set_code
        ]
        if not own:
            reason = f"{self.spec.name}: {msg}"
            err = SetupError(
                f"{reason}; try another seed (this was {self.rng.seed}) or another set"
            )
            err.op, err.reason = (self.step.op if self.step else None), reason
            err.step = self.step
            return err
        examples = ", ".join(f"{i.set} {i.collector_number or '?'}" for i in own[:3])

        hint = fill_hints(self.set_code, [self.set_code])[0]
        return SetupError(
            f"{self.spec.name}: {msg}; {len(own)} cards in the packs are not in the database "
            f"(e.g. {examples}), so what they are is unknown: `{hint}` (or `boosterkit import "
            f"mtgjson` of its MTGJSON set file) would bring them"
        )

    def lacking(
        self,
        what: str,
        need: int,
        have: int,
        flt: Any = None,
        pool: list[Item] | None = None,
        pool_key: str | None = None,
        held: str | None = None,
    ) -> SetupError:
        """ "The packs lack cards" in words: what the step does, how many of which cards the
        opened packs held after the removals so far, how many it needs, and what to do."""
        removed = self.pool_rules.get(pool_key, Rule()).removed
        after = (
            f" once the {' and the '.join(describe(f) for f in removed)} are taken out"
            if removed
            else ""
        )
        packs = len(self.packs)
        if held is not None:
            after = ""
        else:
            held = (
                (
                    f"{pool_key}'s own packs hold"
                    if len(self.pool_rules.get(pool_key, Rule()).packs) > 1
                    else f"{pool_key}'s own pack holds"
                )
                if pool_key
                else f"the {packs} pack{'s' if packs != 1 else ''} opened hold{'s' if packs == 1 else ''}"
            )
        back = [i for i in pool or () if i.uid in self.tags] if after and flt is None else []
        if back:  # an add_back step's cards are not among what the packs held after removals
            have -= len(back)
            after += f" ({len(back)} {describe(self._readmitted(back), len(back))} put back makes "
            after += f"{have + len(back)})"
        noun = describe(flt or "any", have).replace("any card", "card" if have == 1 else "cards")
        are = "is" if need == 1 else "are"
        return self.fail(f"{what}: {held} {have} {noun}{after}, and {need} {are} needed", pool)

    def _readmitted(self, cards: list[Item]) -> Any:
        return next(
            (f for f in self.pool_rules.get(None, Rule()).readmit if matches(cards[0], f)), None
        )

    def shared(self) -> list[Item]:
        if None not in self.pools:
            raise self.fail("this step needs the shared pool (open: all, or combine first)")
        return self.pools[None]

    def owners(self, who: str) -> list[str]:
        if who == "others":
            return [p for p in self.players if p != (self.first or self.players[0])]
        if who == "first":
            return [self.first or self.players[0]]
        return list(self.players)

    def pick(
        self,
        pool: list[Item],
        flt: Any,
        count: int,
        what: str,
        key: str | None = None,
        need: int | None = None,
        held: str | None = None,
        taken: int = 0,
    ) -> list[Item]:
        """Take ``count`` random items matching ``flt`` out of ``pool`` (``need``: the total
        the step takes over all its calls, ``taken``: how many its earlier calls took, for the
        message)."""
        cands = [i for i in pool if matches(i, flt, self.strict)]
        if len(cands) < count:
            raise self.lacking(what, need or count, len(cands) + taken, flt, pool, key, held)
        chosen = []
        for _ in range(count):
            chosen.append(cands.pop(self.rng.below(len(cands))))
        ids = {id(i) for i in chosen}
        pool[:] = [i for i in pool if id(i) not in ids]
        return chosen


def _op_open(s: State, step: Open) -> None:
    which = step.which
    if which == "own":  # k packs each: player i opens packs (i-1)k+1 … ik
        k = max(1, len(s.packs) // len(s.players))
        for i, p in enumerate(s.players):
            own = range(i * k + 1, (i + 1) * k + 1)
            s.pools[p] = [item for n in own for item in s.packs[n - 1].items]
            s.pool_rules[p] = Rule(packs=tuple(own))
        return
    chosen = s.packs if which == "all" else [s.packs[(step.pack or 1) - 1]]  # (checked)
    s.pools.setdefault(None, [])
    s.pool_rules[None] = Rule()
    for pack in chosen:
        s.pools[None].extend(pack.items)


def _op_remove(s: State, step: Remove) -> None:
    flt = step.filter
    name, kind = ("removed", "removed") if step.to == "removed" else ("set aside", "set_aside")
    zone = s.zone(name, None, kind, Rule(need=flt), f"all the {describe(flt)}")
    moved = 0
    wanted = predicate(flt, s.strict)
    for key, pool in s.pools.items():
        out: list[Item] = []
        kept: list[Item] = []
        for i in pool:
            (out if wanted(i) else kept).append(i)
        s.pools[key] = kept
        zone.cards.extend(out)
        moved += len(out)
        s.pool_rules[key] = replace(s.pool_rules[key], removed=s.pool_rules[key].removed + (flt,))
    strict = ""
    if s.strict and "nmb" in str(flt):
        why = (
            "this game's cards lie face down, where a double-faced card shows its other face; "
            "--no-strict-backs keeps them"
            if s.spec.face_down
            else "--strict-backs"
        )
        strict = f" (double-faced Magic cards too: {why})"
    s.notes.append(f"Removed {moved} {describe(flt, moved)}{strict}: {step.reason}.")


def _op_reserve(s: State, step: Reserve) -> None:
    pool = s.shared()
    rule = replace(s.pool_rules[None], need=step.filter)
    total = step.count * len(s.players)
    for k, p in enumerate(s.players):
        cards = s.pick(
            pool,
            step.filter,
            step.count,
            f"giving each of the {len(s.players)} players {step.count} "
            f"{describe(step.filter, step.count)}",
            need=total,
            taken=k * step.count,
        )
        s.zone(f"{p} {step.zone}", p, "hand", rule).cards.extend(cards)
    given = describe(step.filter, step.count)
    s.notes.append(f"Each player was given {step.count} {given} first.")


def _op_add_back(s: State, step: AddBack) -> None:
    source = s.zones.get("removed") or s.zones.get("set aside")
    if source is None:
        raise s.fail("add_back needs removed cards")
    cards = s.pick(
        source.cards,
        backed(step.filter),
        step.count,
        f"putting back {step.count} as {step.tag}s",
        held=f"the {source.name} cards hold",
    )
    s.shared().extend(cards)
    for c in cards:
        s.tags[c.uid] = step.tag
    s.pool_rules[None] = replace(
        s.pool_rules[None], readmit=s.pool_rules[None].readmit + (step.filter,)
    )
    what = describe(step.filter, step.count)
    s.notes.append(
        f'Put back {step.count} {what} as {step.tag} (tagged "{step.tag}" '
        "in the JSON and marked on the organizer's page only)."
    )


def _op_add_external(s: State, step: AddExternal) -> None:
    extra = external_basics(len(s.players), step.per_type, s.basics, s.set_code)
    for p in s.players:
        key = p if p in s.pools else None
        s.pools.setdefault(key, []).extend(extra[p])
        s.pool_rules[key] = replace(s.pool_rules.get(key, Rule()), external=True)
    n = step.per_type * len(BASIC_NAMES)
    s.notes.append(
        f"Each player adds {n} basic lands from outside the packs "
        f"({step.per_type} of each type; marked external)."
    )


def _op_ensure(s: State, step: Ensure) -> None:
    pool, flt, what = s.shared(), step.filter, describe(step.filter, 1)
    held = [i for i in pool if matches(i, flt, s.strict)]
    if len(held) > step.count:
        extra = s.pick(pool, flt, len(held) - step.count, f"setting aside extra {what}s")
        s.zone("set aside", None, "set_aside", Rule(need=flt)).cards.extend(extra)
        s.notes.append(
            f"The packs held {len(held)} {describe(flt, len(held))}; the card has "
            f"{step.count}: {len(extra)} set aside at random."
        )
    elif len(held) < step.count:
        names = [s.rng.choose(BASIC_NAMES) for _ in range(step.count - len(held))]
        added = [_outside(s, name, k) for k, name in enumerate(names, 1)]
        pool.extend(added)
        s.pool_rules[None] = replace(s.pool_rules[None], external=True)
        s.notes.append(
            f"The packs held {len(held)} {describe(flt, len(held))}; the card has "
            f"{step.count}: added {', '.join(names)} from outside the packs (marked external)."
        )


def _outside(s: State, name: str, n: int) -> Item:
    """Basic land ``name`` from outside the packs, for the table (uid ``x0-<n>``)."""
    one = external_basics(1, 1, {name: s.basics[name]} if name in s.basics else {}, s.set_code)
    land = next(i for i in one["player-1"] if i.name == name)
    return land._replace(uid=f"x0-{n}")


def _op_shuffle(s: State, step: Shuffle) -> None:
    for key in list(s.pools):
        s.pools[key] = s.rng.shuffled(s.pools[key])


def _op_combine(s: State, step: Combine) -> None:
    merged = [i for p in s.players for i in s.pools.pop(p, [])]
    rule = s.pool_rules.pop(s.players[0], Rule())
    for p in s.players[1:]:
        s.pool_rules.pop(p, None)
    s.pools[None] = s.pools.get(None, []) + merged
    s.pool_rules[None] = replace(rule, packs=())


def _op_deal(s: State, step: Deal) -> None:
    pool, flt, count = s.shared(), step.filter, step.count
    targets = s.owners(step.to)
    wanted = predicate(flt, s.strict)
    cands = list(filter(wanted, pool))
    n = len(targets)
    if count == "equal":
        each, why = len(cands) // n, f"equal shares of {len(cands)} cards for {n} players"
        total = each * n
    elif count == "even":
        each, total = None, len(cands)
        why = f"{len(cands)} cards dealt as evenly as possible to {n} players"
    else:
        each, total, why = count, count * n, f"{count} card{'' if count == 1 else 's'} each"
    if total > len(cands) or total < n:
        need = max(total, n)
        share = (
            f"{each} card{'s' if each != 1 else ''}"
            if isinstance(each, int) and each
            else "at least 1 card"
        )
        raise s.lacking(f"dealing {share} to the {n} players", need, len(cands), flt, pool)
    rule = replace(s.pool_rules[None], need=flt)
    zones = [s.zone(f"{p} {step.zone}", p, "hand", rule, why) for p in targets]
    dealt = cands[:total]
    for k, zone in enumerate(zones):  # round the table: card k to player k % n
        zone.cards.extend(dealt[k::n])
    ids = {id(i) for i in dealt}
    pool[:] = [i for i in pool if id(i) not in ids]
    if step.remainder == "set_aside":
        rest = list(filter(wanted, pool))
        s.zone("set aside", None, "set_aside", s.pool_rules[None]).cards.extend(rest)
        pool[:] = [i for i in pool if not wanted(i)]
        s.notes.append(
            f"Dealt {each} card{'' if each == 1 else 's'} to each player; "
            f"{len(rest)} left over, set aside."
        )


def _op_select(s: State, step: Select) -> None:
    who, flt, count = step.who, step.filter, step.count
    owners: Sequence[str | None]
    if who == "each_team":
        members = s.teams or team_members(2, len(s.players))
        owners = list(members)
        s.notes.append(
            "Teams: " + "; ".join(f"{o} = {', '.join(m)}" for o, m in members.items()) + "."
        )
    elif who == "shared":
        owners = [None]
    else:
        owners = s.owners(who)
    for owner in owners:
        key = owner if owner in s.pools else None
        pool = s.pools[key] if key in s.pools else s.shared()
        cards = s.pick(pool, flt, count, f"the {step.zone}", key)
        name = f"{owner} {step.zone}" if owner else step.zone
        rule = replace(s.pool_rules[key], need=flt)
        s.zone(name, owner, "selected", rule, f"{count} {describe(flt, count)}").cards.extend(cards)
    if step.method != "random":
        s.notes.append(
            f"{step.zone.capitalize()}: picked at random here; the rules let the player choose."
        )


def _op_layout(s: State, step: Layout) -> None:
    shape = step.shape
    owners = list(s.players) if step.per == "player" else [None]
    for owner in owners:
        name = f"{owner} {step.zone}" if owner else step.zone
        key = owner if owner in s.pools else None
        if step.source == "hand":
            hand = s.zones.pop(f"{owner} hand")
            source, rules = hand.cards, s.rules.pop(f"{owner} hand")
        else:
            source, rules = s.pools[key] if key in s.pools else s.shared(), [s.pool_rules[key]]
        size = {
            "grid": (step.rows or 0) * (step.cols or 0),
            "row": step.count or 0,
            "scatter": len(source),
        }[shape]
        if len(source) < size or size == 0:
            what = (
                f"{step.cols} x {step.rows}, {size} cards"
                if shape == "grid"
                else f"{size or 1} cards"
            )
            raise s.lacking(
                f"laying out the {name} ({what})", size or 1, len(source), None, source, key
            )
        if step.arrangement == "random":
            source[:size] = s.rng.shuffled(source[:size])
        if step.holds:
            _hold(s, step, source, size)
        zone = s.zone(name, owner, shape, rules[0], f"a {shape} of {size} cards")
        for r in rules[1:]:
            s.zone(name, owner, shape, r)
        if shape == "grid":
            zone.rows, zone.cols = step.rows, step.cols
        zone.cards.extend(source[:size])
        del source[:size]


def _hold(s: State, step: Layout, source: list[Item], size: int) -> None:
    """Swap each card tagged ``step.holds`` left beyond the layout's ``size`` places onto a
    random one of them (only such deals draw more, so every other deal stays as it was)."""
    left = [k for k in range(size, len(source)) if s.tags.get(source[k].uid) == step.holds]
    for k in left:
        cell = s.rng.below(size)
        while s.tags.get(source[cell].uid) == step.holds:  # never swap two held cards
            cell = s.rng.below(size)
        source[cell], source[k] = source[k], source[cell]
    if left:
        s.notes.append(
            f"{step.zone.capitalize()}: the packs held {len(source)} cards for {size} places; "
            f"the {step.holds} always lies in it, so it took a random place and "
            f"{len(source) - size} other cards were left over."
        )


def _op_piles(s: State, step: Piles) -> None:
    owners = list(s.players) if step.per == "player" else [None]
    for owner in owners:
        key = owner if owner in s.pools else None
        pool = s.pools[key] if key in s.pools else s.shared()
        need = step.count * step.size
        if len(pool) < need:
            raise s.lacking(
                f"making {step.count} piles of {step.size}", need, len(pool), None, pool, key
            )
        for k in range(1, step.count + 1):
            name = f"{owner} {step.zone} {k}" if owner else f"{step.zone} {k}"
            zone = s.zone(name, owner, "pile", s.pool_rules[key], f"{step.size} cards")
            zone.cards.extend(pool[: step.size])
            del pool[: step.size]


def _op_split(s: State, step: Split) -> None:
    pool, earlier = s.shared(), list[Any]()
    for pile in step.piles:
        rule = replace(s.pool_rules[None], need=pile.filter, unless=tuple(earlier))
        why = "the rest" if pile.filter == "any" else f"all the {describe(pile.filter)}"
        zone = s.zone(pile.zone, None, "pile", rule, why)
        zone.cards.extend(i for i in pool if rule.check(i, {}, s.strict) is None)
        pool[:] = [i for i in pool if i not in zone.cards]
        earlier.append(pile.filter)


def _op_flip(s: State, step: Flip) -> None:
    pool = s.shared()
    if len(pool) < step.count:
        raise s.lacking(
            f"flipping {step.count} to the {step.zone}", step.count, len(pool), None, pool
        )
    zone = s.zone(step.zone, None, "discard", s.pool_rules[None], f"{step.count} cards")
    zone.cards.extend(pool[: step.count])
    del pool[: step.count]


def _op_place(s: State, step: Place) -> None:
    per = step.per
    if per == "shared":
        targets: list[tuple[str | None, str | None]] = [(k, None) for k in list(s.pools)]
    else:
        owners = s.owners("others" if per == "others" else "first" if per == "first" else "all")
        if len(s.pools) == 1 and None in s.pools and len(owners) == 1:
            targets = [(None, owners[0])]
        else:
            targets = [(p, p) for p in owners if p in s.pools]
        if not targets:
            raise s.fail(f"place {step.zone!r} per {per} has no pool to take")
    for key, owner in targets:
        name = f"{owner} {step.zone}" if owner else step.zone
        zone = s.zone(name, owner, step.kind, s.pool_rules[key], "the rest of the cards")
        zone.cards.extend(s.pools[key])
        s.pools[key] = []


#: What each step model does: one ``_op_*`` function per ``spec.Step`` (a test checks that
#: every step has one).
OPS: dict[type[BaseStep], Callable[[State, Any], None]] = {
    Open: _op_open,
    Remove: _op_remove,
    Reserve: _op_reserve,
    AddBack: _op_add_back,
    AddExternal: _op_add_external,
    Ensure: _op_ensure,
    Shuffle: _op_shuffle,
    Combine: _op_combine,
    Deal: _op_deal,
    Select: _op_select,
    Layout: _op_layout,
    Piles: _op_piles,
    Split: _op_split,
    Flip: _op_flip,
    Discard: op_discard,
    Place: _op_place,
    Roll: op_roll,
    AssignRoles: op_roles,
}
