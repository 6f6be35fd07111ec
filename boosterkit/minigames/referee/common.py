"""What the three referees share: cards as the rules see them, rule violations, the table a
setup file makes, move-field checks and the seeded dice.

A ``Card`` is one dealt item read the way the rules text reads it: the front face's types
(a split card's left half), the colours and mana value the setup lists (a split card has
both halves' colours and its combined mana value; X counts as 0), toughness and loyalty of
the front face ("*" counts as 0, "1+*" as 1).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from boosterkit.errors import BoosterkitError, InputError
from boosterkit.generator.streams import Rng
from boosterkit.minigames.setupfile import SetupFile, SetupItem

CARD_TYPES = (
    "Artifact",
    "Battle",
    "Creature",
    "Enchantment",
    "Instant",
    "Kindred",
    "Land",
    "Planeswalker",
    "Sorcery",
    "Tribal",
)
T = TypeVar("T")
_NUMBER = re.compile(r"[-+]?\d+")


class RuleViolation(BoosterkitError):
    """An illegal move: ``rule`` is its stable name, ``cards`` the uids involved.

    ``move`` (1-based) is set by the replayer (``play``) that knows the move's position.
    """

    exit_code = 1

    def __init__(self, rule: str, message: str, cards: Iterable[str] = (), move: int | None = None):
        super().__init__(message)
        self.rule, self.message, self.cards, self.move = rule, message, list(cards), move

    def __str__(self) -> str:
        where = f"move {self.move}: " if self.move is not None else ""
        return f"{where}{self.rule}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "move": self.move,
            "rule": self.rule,
            "message": self.message,
            "cards": list(self.cards),
        }


def stat(value: Any) -> int | None:
    """A printed toughness or loyalty as a number: ``"3"`` 3, ``"*"`` 0, ``"1+*"`` 1, X 0."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return int(value)
    m = _NUMBER.search(str(value))
    return int(m.group()) if m else 0


@dataclass(frozen=True, slots=True)
class Card:
    """One card as the referees see it."""

    uid: str
    name: str | None = None
    types: frozenset[str] = frozenset()
    legendary: bool = False
    colors: tuple[str, ...] = ()
    mana_value: float | None = None
    toughness: int | None = None
    loyalty: int | None = None

    @property
    def label(self) -> str:
        return f"{self.uid} ({self.name})" if self.name else self.uid

    def has(self, card_type: str) -> bool:
        return card_type in self.types


def front_types(type_line: str | None) -> tuple[frozenset[str], bool]:
    """The card types and legendary supertype of the front face (left of " // " and "—")."""
    if not type_line:
        return frozenset(), False
    words = type_line.split(" // ")[0].split("—")[0].split()
    return frozenset(w for w in words if w in CARD_TYPES), "Legendary" in words


def card_from_item(
    item: Mapping[str, Any], stats: Mapping[str, tuple[Any, Any]] | None = None
) -> Card:
    """A ``Card`` from a setup item (unknown fields are ignored). ``toughness`` / ``loyalty``
    come from the item when it has them, else from ``stats`` (by ``card_id``)."""
    is_card = item.get("kind", "card") == "card"
    types, legendary = front_types(item.get("type_line")) if is_card else (frozenset(), False)
    tough, loyal = item.get("toughness"), item.get("loyalty")
    if stats is not None and "toughness" not in item and item.get("card_id") in stats:
        tough, loyal = stats[item["card_id"]]
    mv = item.get("mana_value")
    return Card(
        uid=item["uid"],
        name=item.get("name"),
        types=types,
        legendary=legendary,
        colors=tuple(item.get("colors") or ()),
        mana_value=None if mv is None else float(mv),
        toughness=stat(tough),
        loyalty=stat(loyal),
    )


class CardStats:
    """Front-face toughness and loyalty by card id, read from the database ``cards`` table a
    whole set at a time and kept (a simulation deals the same sets again and again)."""

    def __init__(self, con: Any) -> None:
        self.con = con
        self.known: dict[str, tuple[Any, Any]] = {}
        self.sets: set[str] = set()

    @classmethod
    def of(cls, con: Any) -> CardStats:
        return con if isinstance(con, CardStats) else cls(con)

    def lookup(self, items: Iterable[Mapping[str, Any]]) -> dict[str, tuple[Any, Any]]:
        """The stats of ``items`` (setup items) that are in the database."""
        items = [it for it in items if it.get("card_id")]
        new = sorted(
            {str(it.get("set")) for it in items if it["card_id"] not in self.known} - self.sets
        )
        if new:
            rows = self.con.execute(
                "SELECT id, toughness, loyalty FROM cards WHERE set_code IN (SELECT unnest(?))",
                [new],
            ).fetchall()
            self.known.update((r[0], (r[1], r[2])) for r in rows)
            self.sets.update(new)
        return {
            it["card_id"]: self.known[it["card_id"]] for it in items if it["card_id"] in self.known
        }


def evolve(state: T, **changes: Any) -> T:
    """A copy of the (frozen dataclass) ``state`` with ``changes``: ``dataclasses.replace``
    without its per-call field introspection, which dominates a simulated game."""
    new = object.__new__(type(state))
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


# --- the setup ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """What does not change during a game: the setup's facts and its cards by uid."""

    game: str
    players: tuple[str, ...]
    seed: int
    cards: Mapping[str, Card]
    zones: Mapping[str, tuple[str, ...]]
    first_player: str | None
    rolls: Mapping[str, int]
    items: Mapping[str, SetupItem]
    tiebreaks: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)  # roll-offs of ties

    def seat(self, player: Any, what: str = "player") -> int:
        """The seat index of ``player`` (``InputError`` for a name that is not at the table)."""
        if isinstance(player, str) and player in self.players:
            return self.players.index(player)
        raise InputError(
            f"{what}: {player!r} is not a player of this game ({', '.join(self.players)})"
        )


def make_table(
    setup: SetupFile,
    game: str,
    con: Any = None,
    need_stats: bool = False,
    play_zones: Callable[[str], bool] | None = None,
) -> Table:
    """The ``Table`` of a setup file (as ``deal`` gives it, or as ``parse_setup`` read
    it); ``InputError`` for what ``game`` cannot start from.

    ``need_stats``: look toughness and loyalty up in ``con`` (Base Race needs them).
    ``play_zones``: which zones (by name) hold the cards in play; ``Table.cards`` has only
    theirs (default: every zone's).
    """
    if setup["minigame"] != game:
        raise InputError(f"setup: minigame is {setup['minigame']!r}, not {game!r}")
    seed = setup.get("seed")
    if seed is None:
        raise InputError("setup: seed must be a non-negative integer, got None")
    zones: dict[str, tuple[str, ...]] = {}
    items: dict[str, SetupItem] = {}
    for z in setup["zones"]:
        uids = []
        for it in z["cards"]:
            if it["uid"] in items:
                raise InputError(f"setup: card {it['uid']} is in two places")
            items[it["uid"]] = it
            uids.append(it["uid"])
        zones[z["name"]] = tuple(uids)
    stats = None
    used = [
        items[u]
        for name, uids in zones.items()
        if play_zones is None or play_zones(name)
        for u in uids
    ]
    missing = [it for it in used if "toughness" not in it]
    if need_stats and missing:
        if con is None:
            raise InputError(f"{game}: toughness and loyalty come from the database; open one")
        stats = CardStats.of(con).lookup(missing)
    cards = {it["uid"]: card_from_item(it, stats) for it in used}
    names = tuple(f"player-{i}" for i in range(1, setup["players"] + 1))
    first = setup.get("first_player")
    if first is not None and first not in names:
        raise InputError(
            f"setup: first_player {first!r} is not a player of this game ({', '.join(names)})"
        )
    return Table(
        game=game,
        players=names,
        seed=seed,
        cards=cards,
        zones=zones,
        first_player=first,
        rolls=dict(setup.get("rolls") or {}),
        items=items,
        tiebreaks={p: tuple(v) for p, v in (setup.get("tiebreaks") or {}).items()},
    )


def zone(table: Table, name: str, size: int | None = None) -> tuple[str, ...]:
    """The uids of zone ``name``; ``InputError`` if it is missing or not ``size`` cards."""
    if name not in table.zones:
        raise InputError(f"setup: {table.game} needs a zone {name!r}")
    cards = table.zones[name]
    if size is not None and len(cards) != size:
        raise InputError(f"setup: zone {name!r} has {len(cards)} cards, the game needs {size}")
    return cards


# --- moves --------------------------------------------------------------------------------


def need(move: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str = "") -> Any:
    """``move[key]`` checked to be of ``kind`` (``InputError`` naming the field otherwise)."""
    if key not in move:
        raise InputError(f"{what or 'move'}: missing {key!r}")
    value = move[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise InputError(f"{what or 'move'}: {key!r} has the wrong type ({value!r})")
    return value


def only(move: Mapping[str, Any], keys: Iterable[str], what: str = "move") -> None:
    """``InputError`` when ``move`` has a key not in ``keys`` (a typo should not pass)."""
    if not isinstance(move, Mapping):
        raise InputError(f"{what}: expected a JSON object, got {move!r}")
    extra = sorted(set(move) - set(keys))
    if extra:
        raise InputError(f"{what}: unknown field {extra[0]!r} (known: {', '.join(keys)})")


def not_applicable(move: Mapping[str, Any], keys: Iterable[str], what: str, why: str) -> None:
    """``RuleViolation`` ``not-applicable`` naming a field of ``move`` that this kind of move
    does not take (a field of another kind of move: an unknown one is ``only``'s)."""
    extra = [k for k in move if k not in set(keys)]
    if extra:
        raise RuleViolation("not-applicable", f"{what}: {extra[0]!r} does not apply {why}")


def die_value(value: Any, faces: int, what: str) -> int:
    """An observed die: an integer in ``[1, faces]``; a ``bad-die`` violation otherwise."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(f"{what}: a die is an integer, got {value!r}")
    if not 1 <= value <= faces:
        raise RuleViolation("bad-die", f"{what}: a d{faces} shows 1 to {faces}, not {value}")
    return value


def roll(seed: int, stream: str, counter: int, faces: int) -> tuple[int, int]:
    """Die ``faces`` rolled from the game's seeded stream at ``counter``: (value, next counter)."""
    rng = Rng(seed, stream)
    rng.counter = counter
    value = rng.roll(faces)
    return value, rng.counter
