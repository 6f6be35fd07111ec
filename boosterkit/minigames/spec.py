"""The typed model of a minigame: one catalogue file (``data/minigames/<id>.yaml``) is one
``Minigame``; ``data/minigame.schema.json`` is generated from it (``minigames.schemas``).

Every part is a frozen dataclass; ``catalog`` checks a file against these same classes with
pydantic (``catalog.checker``: unknown keys fail, nothing is coerced — "4" is not 4, 1 is not
true), which reads the constraints written here (each field's ``metadata``, and the hooks
of ``AtLeast``, ``FilterTerms`` and ``ByOp``). This module imports neither pydantic nor
``annotated_types``: a ``deal`` of an unchanged catalogue file builds its game from
``minigames.compiled`` without them (``minigames.compile``).
A setup step is one dataclass per op (``Open``, ``Remove``…, the union ``Step``, told apart by
``op``): adding an op is one class here, listed in ``Step``, and one ``_op_*`` function in
``minigames.ops``. The types carry their one-line messages as markers (``Says``) that
``catalog.load_file`` finds when a file fails, prefixed with the file and the key.
"""

import dataclasses
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, cast, get_args

from boosterkit.minigames.filters import TERMS, filter_problem
from boosterkit.minigames.labels import LANGS, Lang


@dataclass(frozen=True)
class Says:
    """The one line a value of the wrong type or range gets here (``{got}``: its repr);
    ``deep``: also anything wrong inside it (else those keep their own). Pydantic ignores it;
    ``catalog`` finds it (``says_at``) when a file fails, so checking costs nothing more."""

    message: str
    deep: bool = False


def _says(message: str, *, deep: bool = False) -> Says:
    return Says(message, deep)


def _one_of(values: Any) -> Says:
    """The message of a closed vocabulary (``values``: a ``Literal``)."""
    return Says(f"{{got}} is not one of {', '.join(map(str, get_args(values)))}")


class AtLeast:
    """A lower bound where pydantic validates: of an integer's value, or of the length of a
    string, list or mapping (pydantic's ``ge`` / ``min_length``: its messages and schema)."""

    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        self.n = n

    def __repr__(self) -> str:
        return f"AtLeast({self.n})"

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        schema = handler(source)
        return {**schema, "ge" if schema["type"] == "int" else "min_length": self.n}


def _spec_error(message: str) -> Exception:
    """The error a check of this module raises: pydantic reports it as a ``spec`` error."""
    from pydantic_core import PydanticCustomError  # only when a file is wrong

    return PydanticCustomError("spec", message)


_TERM = {"type": "string", "pattern": f"^({'|'.join(TERMS)})(\\+({'|'.join(TERMS)}))*$"}


class FilterTerms:
    """Checks a card filter (``filters.filter_problem``) where pydantic validates one; its
    JSON Schema: a term or a non-empty list of terms."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_plain_validator_function(_filter)

    def __get_pydantic_json_schema__(self, schema: Any, handler: Any) -> dict[str, Any]:
        return {"oneOf": [_TERM, {"type": "array", "items": _TERM, "minItems": 1}]}


def _filter(value: Any) -> str | list[str]:
    problem = filter_problem(value)
    if problem:
        raise _spec_error(problem)
    return cast("str | list[str]", value)


#: A card filter (``minigames.filters``): a term such as ``nonland+colored``, or a list of
#: terms (any may match).
Filter = Annotated[str | list[str], FilterTerms()]
PosInt = Annotated[int, AtLeast(1), _says("expected an integer >= 1, got {got}")]
Count = Annotated[int, AtLeast(0), _says("expected an integer >= 0, got {got}")]
Flag = Annotated[bool, _says("expected true or false")]
_Status = Literal["C", "I", "U"]
#: How sure a part is: confirmed from the card (C), inferred (I), unknown (U).
Status = Annotated[_Status, _says("{got} is not C, I or U")]
STATUSES: tuple[str, ...] = get_args(_Status)
_ZoneKind = Literal[
    "hand", "grid", "row", "deck", "pile", "removed", "set_aside", "selected", "discard", "scatter"
]  # fmt: skip
#: Zone kinds a setup may hold.
ZONE_KINDS: tuple[str, ...] = get_args(_ZoneKind)
_Visibility = Literal["public", "owner", "hidden"]
#: Who may see a zone's cards (``engine.default_visibility`` when a step does not say).
VISIBILITIES: tuple[str, ...] = get_args(_Visibility)
Visibility = Annotated[_Visibility, _one_of(_Visibility)]
_Fact = Literal[
    "colors", "mana_value", "card_type", "toughness", "loyalty", "legendary", "name", "text",
    "rarity", "foil", "watermark",
]  # fmt: skip
#: Facts a game is played by (``reads``: printed on the player's own cards); a card the
#: database lacks may not be dealt into play where any but rarity and foil is read.
FACTS: tuple[str, ...] = get_args(_Fact)
_Reminder = Literal["W", "U", "B", "R", "G", "colorless", "multicolor", "face_down"]
#: Keys of ``reminders``: what a card of each colour does in the game.
REMINDER_KEYS: tuple[str, ...] = get_args(_Reminder)
_Rule = Literal[
    "random", "random_team", "lowest_roll", "highest_roll", "first_to_finish", "choice",
    "at_table", "none",
]  # fmt: skip
_Product = Literal["set", "draft", "play", "collector", "beyond"]
_Per = Literal["player", "shared"]


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Part:
    """A mapping of the catalogue: its keys are its fields, any other key is refused."""

    #: How pydantic checks a file (``catalog.checker``): unknown keys fail, nothing coerced.
    __pydantic_config__ = {"extra": "forbid", "strict": True}

    # One ``__repr__`` and ``__eq__`` for every part, as dataclasses would write them: a
    # dataclass makes each by ``exec`` per class, a third of this module's import.
    def __repr__(self) -> str:
        args = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self))
        return f"{type(self).__qualname__}({args})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(
            getattr(self, f.name) == getattr(other, f.name) for f in dataclasses.fields(self)
        )

    def __hash__(self) -> int:  # as a frozen dataclass's: fails on a part holding a list
        return hash((type(self), *(getattr(self, f.name) for f in dataclasses.fields(self))))


def keys(part: type[Part]) -> tuple[str, ...]:
    """A part's keys (aliases), in order: what an unknown key's message lists."""
    return tuple(f.metadata.get("alias", f.name) for f in dataclasses.fields(part))


def _field(*, default: Any = None, empty: type | None = None, **meta: Any) -> Any:
    """A field with ``meta`` pydantic reads (``alias``, ``description``, ``pattern``): its
    default, or (``empty``: list or dict) a fresh empty one, published as the default."""
    if empty is not None:
        extra = {"json_schema_extra": {"default": empty()}}
        return field(default_factory=empty, metadata={**meta, **extra})
    return field(default=default, metadata=meta)


# --- setup steps --------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class BaseStep(Part):
    """What every step may say: a note for the sheet, and how sure the step is."""

    op: str
    note: str | None = None
    status: Status | None = None


_SEE = "who sees the zones this step makes (default: hands and picks their owner, decks and "
_SEE += "removed cards hidden, the rest public)"
_DOWN = "the card has these cards lie face down (sheets say so); default true for decks"


def _see() -> Any:
    """A zone step's ``visibility`` (declared next to last in each: the key order of its
    messages)."""
    return _field(description=_SEE)


def _down() -> Any:
    """A zone step's ``face_down`` (declared last)."""
    return _field(description=_DOWN)


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Open(BaseStep):
    """Open the packs: all into one shared pool, each player their own, or one pack."""

    op: Literal["open"]
    which: Annotated[Literal["all", "own", "pack"], _one_of(Literal["all", "own", "pack"])]
    pack: PosInt | None = None

    def __post_init__(self) -> None:
        if self.which == "pack" and self.pack is None:
            raise _spec_error("opening one pack needs pack")


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Remove(BaseStep):
    """Take every card of ``filter`` out of the pools (to the removed or set-aside cards)."""

    op: Literal["remove"]
    filter: Filter
    reason: str
    to: Annotated[Literal["removed", "set_aside"], _one_of(Literal["removed", "set_aside"])] = (
        "removed"
    )


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Reserve(BaseStep):
    """Give each player ``count`` cards of ``filter`` from the shared pool first."""

    op: Literal["reserve"]
    filter: Filter
    count: PosInt
    zone: str
    visibility: Visibility | None = _see()
    face_down: Flag | None = _down()


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class AddBack(BaseStep):
    """Put ``count`` removed cards of ``filter`` back in the pool, tagged ``tag``."""

    op: Literal["add_back"]
    filter: Filter
    count: PosInt
    tag: str


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class AddExternal(BaseStep):
    """Each player adds ``per_type`` basic lands of each type from outside the packs."""

    op: Literal["add_external"]
    item: Annotated[Literal["basic_lands"], _one_of(Literal["basic_lands"])]
    per_type: PosInt


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Ensure(BaseStep):
    """The shared pool holds exactly ``count`` cards of ``filter`` (Roil Royale's one basic
    land, the ruins): extras are set aside at random; a shortfall is made up from outside the
    packs with basic lands of the set (``add: basic_land``, at random among the five types)."""

    op: Literal["ensure"]
    filter: Filter
    count: Count
    add: Annotated[Literal["basic_land"], _one_of(Literal["basic_land"])]


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Shuffle(BaseStep):
    """Shuffle every pool."""

    op: Literal["shuffle"]


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Combine(BaseStep):
    """Merge the players' own pools into one shared pool."""

    op: Literal["combine"]


_DealCount = Annotated[
    Annotated[int, AtLeast(1)] | Literal["equal", "even"],
    _says("expected an integer >= 1, got {got}", deep=True),
]


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Deal(BaseStep):
    """Deal ``count`` cards (or equal shares, or as evenly as possible) to the players."""

    op: Literal["deal"]
    to: Annotated[Literal["each_player", "others"], _one_of(Literal["each_player", "others"])]
    count: _DealCount
    zone: str
    filter: Filter | None = None
    remainder: (
        Annotated[Literal["pool", "set_aside"], _one_of(Literal["pool", "set_aside"])] | None
    ) = None
    visibility: Visibility | None = _see()
    face_down: Flag | None = _down()


_Who = Literal["each_player", "first", "shared", "each_team"]
_Method = Literal["random", "choice", "choice_unseen"]


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Select(BaseStep):
    """Pick ``count`` cards at random for each player, the first player, each team or all."""

    op: Literal["select"]
    who: Annotated[_Who, _one_of(_Who)]
    count: PosInt
    zone: str
    filter: Filter | None = None
    method: Annotated[_Method, _one_of(_Method)] = "random"
    visibility: Visibility | None = _see()
    face_down: Flag | None = _down()


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Layout(BaseStep):
    """Lay cards out in a grid (``rows`` x ``cols``), a row of ``count``, or a scatter."""

    op: Literal["layout"]
    shape: Annotated[Literal["grid", "row", "scatter"], _one_of(Literal["grid", "row", "scatter"])]
    zone: str
    per: Annotated[_Per, _one_of(_Per)]
    rows: PosInt | None = None
    cols: PosInt | None = None
    count: PosInt | None = None
    source: Annotated[Literal["pool", "hand"], _one_of(Literal["pool", "hand"])] | None = _field(
        alias="from"
    )
    visibility: Visibility | None = _see()
    face_down: Flag | None = _down()
    arrangement: Annotated[Literal["random"], _one_of(Literal["random"])] | None = _field(
        description="deal the cards in a seeded random arrangement (the player arranges them "
        "at the table)"
    )
    holds: str | None = _field(
        description="the cards an add_back step tagged so always lie in this layout (each on a "
        "random cell) when the pool holds more cards than it has places"
    )

    def __post_init__(self) -> None:
        if self.shape == "grid" and (self.rows is None or self.cols is None):
            raise _spec_error("a grid layout needs rows and cols")
        if self.shape == "row" and self.count is None:
            raise _spec_error("a row layout needs count")


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Piles(BaseStep):
    """Make ``count`` piles of ``size`` cards, per player or shared."""

    op: Literal["piles"]
    count: PosInt
    size: PosInt
    per: Annotated[_Per, _one_of(_Per)]
    zone: str
    visibility: Visibility | None = _see()
    face_down: Flag | None = _down()


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Pile(Part):
    """One pile of a split: the cards of ``filter`` not taken by an earlier pile."""

    zone: str
    filter: Filter


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Split(BaseStep):
    """Split the shared pool into piles by filter, in order."""

    op: Literal["split"]
    piles: Annotated[list[Pile], AtLeast(1), _says("expected a non-empty list")]
    visibility: Visibility | None = _see()
    face_down: Flag | None = _down()


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Flip(BaseStep):
    """Turn ``count`` cards of the shared pool face up onto a discard pile."""

    op: Literal["flip"]
    count: PosInt
    zone: str
    visibility: Visibility | None = _see()
    face_down: Flag | None = _down()


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Discard(BaseStep):
    """One player discards ``count`` cards of ``filter`` from their own ``source`` zone to
    begin the shared ``zone`` (Telepathic Transmission: "One player then discards a land to
    begin a central discard pile"): the player is drawn at random among those who hold
    enough of them, the cards at random among theirs."""

    op: Literal["discard"]
    filter: Filter
    count: PosInt = 1
    source: str = _field(default=dataclasses.MISSING, alias="from")
    zone: str
    visibility: Visibility | None = _see()
    face_down: Flag | None = _down()


_RoleMethod = Literal["random", "choice"]


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class AssignRoles(BaseStep):
    """Give every player one of the game's ``roles`` (each role its ``count`` players, the
    role without a count everyone left), at random; ``method: choice``: the card lets the
    table choose (dealt at random here, and a note says so)."""

    op: Literal["roles"]
    method: Annotated[_RoleMethod, _one_of(_RoleMethod)] = "random"


_PlacePer = Literal["player", "shared", "others", "first"]


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Place(BaseStep):
    """Put the rest of the pools in a zone of ``kind``."""

    op: Literal["place"]
    zone: str
    kind: Annotated[_ZoneKind, _one_of(_ZoneKind)]
    per: Annotated[_PlacePer, _one_of(_PlacePer)]
    visibility: Visibility | None = _see()
    face_down: Flag | None = _down()


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Roll(BaseStep):
    """Everyone rolls a ``die``; ties roll again or stay."""

    op: Literal["roll"]
    die: PosInt
    ties: Annotated[Literal["reroll", "keep"], _one_of(Literal["reroll", "keep"])]


class ByOp:
    """Where pydantic validates a step: the union is told apart by ``op`` (a tagged union;
    its JSON Schema says so)."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic import Discriminator

        return Discriminator("op").__get_pydantic_core_schema__(source, handler)


def op_of(step: type[BaseStep]) -> Any:
    """The ``Literal`` of a step class's ``op``."""
    return next(f.type for f in dataclasses.fields(step) if f.name == "op")


#: A setup step: the closed vocabulary of ops, in the order the schema lists them.
Step = Annotated[
    Open | Remove | Reserve | AddBack | AddExternal | Ensure | Shuffle | Combine | Deal | Select
    | Layout | Piles | Split | Flip | Discard | Place | Roll | AssignRoles,
    ByOp(),
]  # fmt: skip
STEPS: tuple[type[BaseStep], ...] = get_args(get_args(Step)[0])
#: The op names, in ``Step``'s order.
OPS: tuple[str, ...] = tuple(get_args(op_of(s))[0] for s in STEPS)
#: Steps that make zones: each may say who sees them and whether they lie face down.
ZONE_STEPS = (Reserve, Deal, Select, Layout, Piles, Split, Flip, Discard, Place)


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class SetupSteps(Part):
    """A game's setup: its steps, in order."""

    steps: Annotated[list[Step], AtLeast(1), _says("expected a non-empty list")]


# --- the game -----------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Printing(Part):
    """A printing of the minigame card: its set, the booster set it came in, its number."""

    set: str
    parent: str
    number: str | None
    status: Status


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Limit(Part):
    max: PosInt
    why: str


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Players(Part):
    min: PosInt | None
    max: PosInt | None
    teams: Annotated[int, AtLeast(2)] | None = None
    limit: Limit | None = _field(
        description="the most players boosterkit deals for (a game printed '2+' cannot serve "
        "any count): max and the reason, printed when refused"
    )


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Extra(Part):
    at_players: PosInt
    packs: PosInt


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Packs(Part):
    """How many packs: per player or in total (plus ``extra`` at some player counts)."""

    per_player: PosInt | None = None
    total: PosInt | None = None
    extra: list[Extra] = _field(empty=list)
    product: Annotated[_Product, _one_of(_Product)] = "set"
    note: str | None = _field(
        description="why the product is what it is, printed as a note when packs is inferred "
        "(status I)"
    )


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Component(Part):
    item: str
    per: Annotated[Literal["game", "player"], _one_of(Literal["game", "player"])]
    qty: int | None


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class StatusParts(Part):
    """How sure each part of the entry is (C, I or U)."""

    printings: Status
    players: Status
    packs: Status
    minutes: Status
    components: Status
    setup: Status
    first_player: Status
    win: Status


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class FirstPlayer(Part):
    rule: Annotated[_Rule, _one_of(_Rule)]
    text: str
    role: str | None = None


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Win(Part):
    text: str
    type: str


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Role(Part):
    """A role a ``roles`` step gives: ``count`` players take it (none: every player given no
    other role)."""

    name: str
    text: str
    count: PosInt | None = None


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Declare(Part):
    """What each player declares before play, among ``options`` (Demon's Due: a crime family):
    printed on each player's page; ``text``: the card's words about it."""

    what: Annotated[str, AtLeast(1)]
    options: Annotated[
        list[Annotated[str, AtLeast(1)]], AtLeast(2), _says("expected a list of 2 or more names")
    ]
    text: str


_Header = Literal["players", "packs", "minutes"]


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Unprinted(Part):
    """The header facts the card does not print (``players``, ``packs``, ``minutes``): the
    catalogue takes them from its text, and the sheet says so with ``text``."""

    facts: Annotated[
        list[_Header], AtLeast(1), _says("expected a list of players, packs, minutes", deep=True)
    ]
    text: str


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class OwnerRule(Part):
    """A rule each player's zone keeps (checked by validate): it holds ``count`` cards of
    ``filter``."""

    zone: str
    filter: Filter
    count: Count
    text: str


_NAMES = f"a mapping of {', '.join(LANGS)} to names"
_READS = f"a list of facts among {', '.join(FACTS)}"
_REMINDERS = f"a mapping of {', '.join(REMINDER_KEYS)} to text"


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class Minigame(Part):
    """One catalogue entry: printings, players, packs, components, the ordered setup steps,
    the first-player rule, the win condition and the C/I/U status of each part."""

    __pydantic_config__ = {
        **Part.__pydantic_config__,
        "title": "boosterkit minigame catalogue entry (data/minigames/<id>.yaml)",
    }
    id: str = _field(default=dataclasses.MISSING, pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    name: Annotated[str, AtLeast(1)]
    scryfall_names: list[str]
    printings: list[Printing]
    players: Players
    packs: Packs
    minutes: PosInt | None
    components: list[Component]
    setup: SetupSteps | None
    first_player: FirstPlayer
    win: Win
    status: StatusParts
    roles: list[Role] = _field(empty=list)
    summary_text: str | None = _field(alias="summary")
    notes: str | None = None
    printed_names: Annotated[dict[Lang, Annotated[str, AtLeast(1)]], _says(_NAMES, deep=True)] = (
        _field(
            empty=dict,
            description="the game's name as printed on the card in other languages; deal and "
            "the sheets accept and use them",
        )
    )
    face_down: Flag = _field(
        default=False,
        description="the game's cards lie face down: double-faced cards (no Magic back) are "
        "removed by default (--no-strict-backs keeps them)",
    )
    reads: Annotated[list[_Fact], _says(_READS, deep=True)] = _field(
        empty=list,
        description="the facts of a card the game is played by: printed on each player's own "
        "cards; a card the database does not hold cannot be dealt into play unless the game "
        "reads only rarity or foil",
    )
    reminders: Annotated[dict[_Reminder, str], _says(_REMINDERS, deep=True)] = _field(
        empty=dict,
        description="what a card of each colour does in the game (one line each), printed "
        "beside the player's cards",
    )
    owner_rules: list[OwnerRule] = _field(
        empty=list,
        description="rules each player's zone must keep, checked by validate: '<player> "
        "<zone>' holds exactly count cards of filter",
    )
    declare: Declare | None = _field(
        description="what each player declares before play, among options: printed on each "
        "player's page"
    )
    unprinted: Unprinted | None = _field(
        description="the header facts (players, packs, minutes) the card does not print: "
        "taken from its text, and the sheet says so"
    )

    def __post_init__(self) -> None:
        if any(isinstance(s, AssignRoles) for s in self.steps or []):
            problem = _roles_problem(self.roles, self.players)
            if problem:
                raise _spec_error(problem)

    @property
    def steps(self) -> list[Step] | None:
        return None if self.setup is None else self.setup.steps

    @property
    def setup_status(self) -> str:
        return self.status.setup

    @property
    def dealable(self) -> bool:
        """Whether boosterkit deals it: its setup is known (status C or I, with steps)."""
        return self.setup is not None and self.status.setup != "U"

    @property
    def adds_external(self) -> bool:
        """Whether its setup adds cards from outside the packs (basic lands)."""
        return any(isinstance(s, (AddExternal, Ensure)) for s in self.steps or [])

    @property
    def players_min(self) -> int | None:
        return self.players.min

    @property
    def players_max(self) -> int | None:
        return self.players.max

    @property
    def product(self) -> str:
        return self.packs.product

    def printed_name(self, lang: str = "en") -> str:
        """The name printed on the card in ``lang`` (English when not known)."""
        return cast("dict[str, str]", self.printed_names).get(lang, self.name)

    def pack_count(self, players: int) -> int:
        """Packs to open for ``players``: per player or total, plus extra packs at N players."""
        packs = self.packs
        n = (packs.per_player or 0) * players + (packs.total or 0)
        return n + sum(e.packs for e in packs.extra if players >= e.at_players)

    def summary(self) -> dict[str, Any]:
        """The row ``boosterkit minigames`` prints."""
        return {
            "id": self.id,
            "name": self.name,
            "players_min": self.players.min,
            "players_max": self.players.max,
            "packs": _packs_text(self.packs),
            "product": self.packs.product,
            "minutes": self.minutes,
            "printings": [f"{p.set}#{p.number}" if p.number else p.set for p in self.printings],
            # the booster sets it was printed for: the sets a deal uses by default
            "sets": list(dict.fromkeys(p.parent for p in self.printings)),
            # how sure what is dealt is: the least sure of the setup, the packs and the players
            "status": max(
                (self.status.setup, self.status.packs, self.status.players), key=STATUSES.index
            ),
            "dealable": self.dealable,
            "printed_names": {"en": self.name, **self.printed_names},
            "players_limit": self.players.limit.max if self.players.limit else None,
            "face_down": self.face_down,
            # what the table needs besides the packs (a d20 each, pen and paper…)
            "components": [{"item": c.item, "per": c.per, "qty": c.qty} for c in self.components],
        }


def _roles_problem(roles: list[Role], players: Players) -> str | None:
    """What makes ``roles`` unusable by a ``roles`` step (None: nothing): every player gets
    exactly one role at every player count the game allows."""
    if not roles:
        return "a roles step needs the game's roles"
    rest = sum(r.count is None for r in roles)
    if rest > 1:
        return "at most one role has no count (it takes every player left)"
    fixed = sum(r.count or 0 for r in roles)
    if players.min is None or players.min < fixed + rest:
        return f"the roles need {fixed + rest} players or more; players.min must allow them"
    if not rest and players.max != fixed:
        return f"the roles give {fixed} players a role; players.max must be {fixed}"
    return None


def _packs_text(packs: Packs) -> str | None:
    if packs.per_player is not None:
        text = f"{packs.per_player} per player"
    elif packs.total is not None:
        text = f"{packs.total}"
    else:
        return None
    for extra in packs.extra:
        text += f", +{extra.packs} at {extra.at_players}+ players"
    return text
