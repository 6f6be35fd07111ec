"""The setup engine: a catalogue entry + opened packs + players + seed → a ``Setup``. Pure.

The engine interprets a game's setup steps (``data/minigames/<id>.yaml``, typed as
``spec.Step``) over working pools (one shared pool, or one pool per player after ``open:
own``) and named output zones, each step by its op in ``minigames.ops``. Every zone also gets
the *rules* that admitted its cards (``Rule``), which is what validation replays: the same
steps over the same packs give the same zone names, kinds, shapes and sizes whatever the
random choices were, so a setup dealt by hand can be checked.
Shuffles, picks and dice come from ``Rng(seed, "minigame/<id>")``; the packs themselves are
opened by the generator with the same seed. Each zone says who may see it (``visibility``)
and whether its cards lie face down; cards the setup gives a role carry a tag (``mimic``).
A Magic card the database does not hold is refused where the game reads it (``reads``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from boosterkit import serialize
from boosterkit.errors import BoosterkitError, InputError
from boosterkit.generator.model import CardInfo, Item, Pack
from boosterkit.minigames.filters import is_nmb
from boosterkit.minigames.initiative import initiative_order
from boosterkit.minigames.ops import (
    BASIC_NAMES,
    OPS,
    Rule,
    SetupError,
    State,
    Zone,
    default_visibility,
    external_basics,
)
from boosterkit.minigames.spec import BaseStep, Layout, Minigame, Place, Remove
from boosterkit.pipeline.fills import fill_hints

if TYPE_CHECKING:  # reading a setup file is validate's and the referee's, not deal's
    from boosterkit.minigames.setupfile import SetupFile, SetupPack, SetupRules

__all__ = [
    "BASIC_NAMES",
    "MAX_TABLE_PLAYERS",
    "OPS",
    "Rule",
    "Setup",
    "SetupError",
    "UnknownCardsError",
    "Zone",
    "build_setup",
    "check_players",
    "default_visibility",
    "external_basics",
    "initiative_order",
    "run_steps",
]


class UnknownCardsError(SetupError):
    """Dealt cards the game reads are not in the database: one short sentence naming the
    commands that bring them (``fix``) and, once ``deal`` found one, a product of the same
    set that deals this seed (``alternative``, a kind such as ``draft``)."""

    def __init__(self, game: str, cards: list[_Where], fix: list[str], set_code: str) -> None:
        self.game, self.count, self.fix, self.set_code = game, len(cards), fix, set_code
        self.lists = all(s in _LIST_SETS for s, _ in cards)
        #: the set's own cards are missing: no seed deals
        self.own = any(s == set_code for s, _ in cards)
        self.alternative: str | None = None
        #: a seed after this one that deals (else: none of ``tried`` seeds does)
        self.seed: int | None = None
        self.tried: tuple[int, int, str | None] | None = None  # (seeds, this seed, every pack's)
        super().__init__(self._message())

    def _message(self) -> str:
        n = self.count
        what = f"{n} {'List ' if self.lists else ''}card{'s' if n != 1 else ''}"
        where = "are" if n != 1 else "is"
        if self.fix:
            head = f"{self.game}: {what} {where} not in the database: run "
            head += " or ".join(f"`{h}`" for h in self.fix[:2])
            if len(self.fix) > 2:
                head += f" (and {len(self.fix) - 2} more: `boosterkit products {self.set_code}`)"
        else:
            head = f"{self.game}: {what} {where} in no file boosterkit can load"
        if self.alternative:
            return f"{head}, or deal `--product {self.alternative}`."
        if self.seed is not None:
            return f"{head}, or deal `--seed {self.seed}`."
        if self.tried is not None:
            tries, seed, every = self.tried
            held = f": every {every} pack holds such cards, and" if every else ";"
            return f"{head}{held} none of the {tries} seeds after {seed} deals either."
        return f"{head}." if self.own else f"{head}, or try another seed."

    def offer_seed(self, seed: int) -> None:
        """Name ``seed`` as one that deals."""
        self.seed = seed
        self.args = (self._message(),)

    def none_of(self, tries: int, seed: int, every: str | None) -> None:
        """Say that none of the ``tries`` seeds after ``seed`` deals (``every``: the product
        every pack of which holds such cards)."""
        self.tried = (tries, seed, every)
        self.args = (self._message(),)

    def offer(self, kind: str) -> None:
        """Name ``kind`` as the product that deals this seed."""
        self.alternative = kind
        self.args = (self._message(),)


#: The List's set codes: magic-sealed-data's old numbering, and Scryfall's.
_LIST_SETS = ("plist", "plst")
_Where = tuple[str, "str | None"]  # a card's set and collector number


@dataclass
class Setup:
    """A dealt minigame. ``to_dict()`` is its setup file (``setupfile.SetupFile``)."""

    minigame: str
    players: int
    set: str
    product: str | None
    seed: int
    strict_backs: bool
    packs: list[Pack]
    zones: list[Zone]
    rolls: dict[str, int]
    first_player: str | None
    notes: list[str]
    spec: Minigame = field(repr=False, compare=False)
    rules: dict[str, list[Rule]] = field(default_factory=dict, repr=False, compare=False)
    expect: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    tiebreaks: dict[str, list[int]] = field(default_factory=dict)
    #: A team game's teams and their players (``team-1``: [``player-1``, …]).
    teams: dict[str, list[str]] = field(default_factory=dict)
    #: Each player's role, in seat order (games with a ``roles`` step).
    roles: dict[str, str] = field(default_factory=dict)
    #: Who a step chose, by the zone it made (``discard``: the player who began the pile).
    chosen: dict[str, str] = field(default_factory=dict)
    #: What sheets print beside the setup (``minigames.lookup``): the game's rules text and
    #: where it came from, per-card facts the packs do not carry, the sheet's language.
    rules_text: dict[str, str] | None = field(default=None, compare=False)
    facts: Mapping[str, dict[str, Any]] = field(default_factory=dict, repr=False, compare=False)
    lang: str = field(default="en", compare=False)
    #: card id → {"name", "type_line"} as printed in ``lang`` (``card_names``; en: empty)
    names: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False, compare=False)
    #: The packs' item lists as the steps took them: held, so a pack gives the same items
    #: again (``LazyPack`` keeps built items only while they are held elsewhere).
    dealt: list[list[Item]] = field(default_factory=list, repr=False, compare=False)

    def zone(self, name: str) -> Zone:
        return next(z for z in self.zones if z.name == name)

    def to_dict(self) -> SetupFile:
        return self._dict()

    def indented_json_parts(self) -> tuple[dict[str, Any], list[bytes]]:
        """``to_dict`` with the items of the packs written already where the setup puts them
        (``serialize.written`` tokens, from the product's kept fragments), and their texts:
        ``serialize.to_json`` of the setup alone writes these as they are."""
        texts: list[bytes] = []
        return cast("dict[str, Any]", self._dict(texts)), texts

    def _dict(self, written: list[bytes] | None = None) -> SetupFile:
        """``to_dict``; with ``written``, each pack item as a ``serialize.written`` token of
        its text (at ``ITEM_DEPTH``) in ``written`` where its pack gives one (a zone's item
        too, unless tagged)."""
        packs: list[dict[str, Any]] = []
        made: dict[str, tuple[Item, Any]] = {}  # each pack item and its dict or token, by uid
        for pack in self.packs:
            texts = None if written is None else getattr(pack, "item_texts", _none)(ITEM_DEPTH)
            if texts is None or written is None:
                done = pack.to_dict()
            else:
                tokens = serialize.written(len(written) + len(texts))[len(written) :]
                written += texts
                done = {**_pack_head(pack), "items": tokens}
            items = pack.items
            made.update(zip((i.uid for i in items), zip(items, done["items"])))
            packs.append(done)
        d: SetupFile = {
            "minigame": self.minigame,
            "players": self.players,
            "set": self.set,
            "product": self.product,
            "seed": self.seed,
            "strict_backs": self.strict_backs,
            "packs": [cast("SetupPack", p) for p in packs],
            "zones": [z.to_dict(made) for z in self.zones],
            "rolls": dict(self.rolls),
            "tiebreaks": {p: list(v) for p, v in self.tiebreaks.items()},
        }
        if self.teams:
            d["teams"] = {t: list(m) for t, m in self.teams.items()}
        if self.roles:
            d["roles"] = dict(self.roles)
        if self.chosen:
            d["chosen"] = dict(self.chosen)
        d["first_player"] = self.first_player
        d["notes"] = list(self.notes)
        if self.rules_text:
            d["rules"] = cast("SetupRules", dict(self.rules_text))
        return d


#: How deep a pack's item sits in a setup's JSON (its packs, a pack, its items, an item).
ITEM_DEPTH = 4


def _none(depth: int) -> None:
    return None


def _pack_head(pack: Pack) -> dict[str, Any]:
    """``pack.to_dict()`` but its items."""
    return {"set": pack.set, "product": pack.product, "seed": pack.seed, "index": pack.index,
            "variant": pack.variant}  # fmt: skip


#: Players of a dealt game, whatever it prints: a sanity bound for games printed as "2+
#: players" (a table, not a stadium).
MAX_TABLE_PLAYERS = 100


def check_players(spec: Minigame, players: int) -> None:
    """``InputError`` unless ``players`` is within the game's printed range (and 100)."""
    lo, hi = spec.players_min or 1, spec.players_max
    if players > MAX_TABLE_PLAYERS:
        raise InputError(
            f"players: {players} is out of range (at most {MAX_TABLE_PLAYERS})", field="players"
        )
    if players < lo or (hi is not None and players > hi):
        span = f"{lo}–{hi}" if hi != lo else f"{lo}"
        span = f"{lo}+" if hi is None else span
        noun = "player" if span == "1" else "players"
        raise InputError(
            f"players: {players} is out of range for {spec.name} ({span} {noun})", field="players"
        )
    limit = spec.players.limit
    if limit is not None and players > limit.max:
        raise InputError(
            f"players: {players} is more than {spec.name} serves (at most "
            f"{limit.max}): {limit.why}",
            field="players",
        )


def _first_after_rolls(s: State) -> str | None:
    rule = s.spec.first_player.rule
    if rule in ("lowest_roll", "highest_roll") and s.rolls:
        return initiative_order(s.rolls, s.tiebreaks, rule == "highest_roll")[0]
    return s.first


def build_setup(
    spec: Minigame,
    packs: list[Pack],
    players: int,
    seed: int,
    *,
    set_code: str,
    product: str | None,
    strict_backs: bool = False,
    basics: dict[str, CardInfo] | None = None,
    first: str | None = None,
) -> Setup:
    """Deal ``packs`` into ``spec``'s setup for ``players``; the same inputs give the same setup.

    ``basics`` maps basic land names to printings for outside additions; ``first`` forces
    the first player of games that choose one at random (validation replays with it).
    """
    if not spec.dealable:
        raise BoosterkitError(
            f"{spec.name}: the setup is unknown (status U), so boosterkit will "
            f"not guess it; {spec.summary_text or ''}".rstrip("; ")
        )
    check_players(spec, players)
    if len(packs) != spec.pack_count(players):
        raise InputError(
            f"{spec.name} at {players} players needs {spec.pack_count(players)} "
            f"packs, got {len(packs)}"
        )
    return run_steps(
        spec,
        packs,
        players,
        seed,
        set_code=set_code,
        product=product,
        strict_backs=strict_backs,
        basics=basics,
        first=first,
    )


def run_steps(
    spec: Minigame,
    packs: list[Pack],
    players: int,
    seed: int,
    *,
    set_code: str,
    product: str | None,
    strict_backs: bool = False,
    basics: dict[str, CardInfo] | None = None,
    first: str | None = None,
    refuse_unknown: bool = True,
    chosen: Mapping[str, str] | None = None,
) -> Setup:
    """``build_setup`` for a caller that has checked the game, the players and the number
    of packs already (``deal``, ``validate_setup``). ``refuse_unknown`` False: a card the
    database lacks where the game reads it gets a note, not ``UnknownCardsError`` (a
    replay: the file's own zones are what validate judges). ``chosen``: who the file says a
    step chose (a replay takes the same players)."""
    held = [p.items for p in packs]  # the same items for every step and the setup's JSON
    s = State(spec, packs, players, seed, strict_backs, basics or {}, first, set_code)
    s.given = dict(chosen or {})
    if spec.steps is None:  # callers check spec.dealable first
        raise BoosterkitError(f"{spec.name}: the setup is unknown (status U)")
    for step in spec.steps:
        _run_step(s, step)
    s.step = None
    first_player = _finish(s, refuse_unknown)
    return Setup(
        minigame=spec.id,
        players=players,
        set=set_code,
        product=product,
        seed=seed,
        strict_backs=strict_backs,
        packs=packs,
        dealt=held,
        zones=list(s.zones.values()),
        rolls=s.rolls,
        first_player=first_player,
        notes=s.notes,
        spec=spec,
        rules=s.rules,
        expect=s.expect,
        tiebreaks=s.tiebreaks,
        teams=s.teams,
        roles=s.roles,
        chosen=s.chosen,
    )


def _run_step(s: State, step: BaseStep) -> None:
    """Apply one setup step to ``s`` and add its notes: the step's own, whether it is
    inferred, and a random arrangement's."""
    s.step = step
    OPS[type(step)](s, step)
    if step.note:
        where: str | None = getattr(step, "zone", None)
        s.notes.append(f"{where}: {step.note}." if where is not None else f"{step.note}.")
    if step.status == "I":
        s.notes.append(f"Inferred, not printed on the card: {_step_words(step)}.")
    if isinstance(step, Layout) and step.arrangement == "random":
        s.notes.append(
            f"{step.zone.capitalize()}: dealt in a random arrangement (seeded); "
            "the card lets each player arrange their own before play."
        )


def _finish(s: State, refuse_unknown: bool) -> str | None:
    """After the steps: set aside what the pools kept, check the unknown cards, tag each
    zone's cards; return the first player (None: the game does not choose one), noted."""
    for key, pool in s.pools.items():
        if pool:
            s.zone("unused", None, "set_aside", s.pool_rules[key]).cards.extend(pool)
    _check_unknown(s, refuse_unknown)
    _check_face_down(s)
    for zone in s.zones.values() if s.tags else ():
        zone.tags = {c.uid: s.tags[c.uid] for c in zone.cards if c.uid in s.tags}
    first_player = _first_after_rolls(s)
    if first_player:
        role = s.spec.first_player.role
        s.notes.append(f"{first_player} starts" + (f" as the {role}." if role else "."))
    return first_player


#: Zones whose cards no game reads at setup (out of play).
OUT_OF_PLAY = ("removed", "set_aside")


def _check_face_down(s: State) -> None:
    """No card without a Magic back lies face down, in any game (its back would show what
    it is): the catalogue's steps keep them out, so one here is a catalogue error."""
    for zone in (z for z in s.zones.values() if z.face_down):
        bad = [c for c in zone.cards if is_nmb(c, s.strict)]
        if bad:
            raise BoosterkitError(
                f"{s.spec.name}: the catalogue puts {bad[0].uid} ({bad[0].name or bad[0].kind}), "
                f"a card without a Magic back, face down in the {zone.name}; its file must "
                "remove such cards before that step"
            )


def _step_words(step: BaseStep) -> str:
    what = (step.reason if isinstance(step, Remove) else None) or step.note
    if what:
        return what
    if isinstance(step, Place):
        return (
            "the remaining cards are not used"
            if step.zone == "unused"
            else f"the remaining cards go to the {step.zone}"
        )
    return f"the {step.op.replace('_', ' ')} step"


def _check_unknown(s: State, refuse: bool = True) -> None:
    """A Magic card the database does not hold: fail where the game reads it (naming the
    sync that brings it); elsewhere it stays, and a note says it is unknown."""
    unknown = [
        (z, c)
        for z in s.zones.values()
        for c in z.cards
        if c.kind == "card" and not c.resolved and not c.external
    ]
    if not unknown:
        return
    reads = [f for f in s.spec.reads if f not in ("rarity", "foil")]
    played = [(z, c) for z, c in unknown if z.kind not in OUT_OF_PLAY]
    if played and reads and refuse:
        cards: list[_Where] = [(c.set, c.collector_number) for _, c in played]
        raise UnknownCardsError(s.spec.name, cards, _fill(s.set_code, cards), s.set_code)
    for z, c in unknown:
        where: _Where = (c.set, c.collector_number)
        fix = _fill(s.set_code, [where])
        how = (
            f"{' or '.join(f'`{h}`' for h in fix)} brings it"
            if fix
            else "no file boosterkit can load holds it"
        )
        s.notes.append(
            f"{c.uid} ({where[0].upper()} {where[1] or '?'}) in the {z.name} is "
            f"an unknown card: the database does not hold it ({how})."
        )


def _fill(set_code: str, cards: list[_Where]) -> list[str]:
    """The commands that would bring ``cards`` (none known: an empty list)."""

    numbers = [n for s, n in cards if s == "plist"]
    return fill_hints(set_code, sorted({s for s, _ in cards}), numbers)
