"""The setup file: one typed model (``SetupFile`` and its parts, pydantic-checked TypedDicts).

``Setup.to_dict()`` returns one (the JSON of ``deal --format json``); ``validate``, the
referee (``play``, ``simulate``) and the service read one through ``parse_setup``.
``data/setup.schema.json`` is generated from it (``minigames.schemas``) and describes
what ``deal`` writes: every key but those marked ``Sometimes`` (written for some cards or
zones only). A file may also be dealt by hand: every key not ``Required`` may be left out
(uids and card ids are enough). Values are never coerced ("5" is not 5, 1 is not true); a
file that does not fit fails with one line naming the JSON path, as ``InputError``. The
rules themselves are checked by ``validate``.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, TypeVar

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, with_config
from typing_extensions import Required, TypedDict

from boosterkit.errors import InputError
from boosterkit.generator.rng import SEED_MAX
from boosterkit.minigames import shapes
from boosterkit.minigames.spec import VISIBILITIES, ZONE_KINDS

T = TypeVar("T")
_SOMETIMES = "x-sometimes"
#: A key ``deal`` writes for some items or zones only (every other key it always writes).
Sometimes = Annotated[T, Field(json_schema_extra={_SOMETIMES: True})]


def _written(schema: dict[str, Any]) -> None:
    """The published schema requires every key ``deal`` always writes."""
    props = schema.get("properties", {})
    schema["required"] = [k for k, v in props.items() if not v.pop(_SOMETIMES, False)]


def _config(**published: Any) -> ConfigDict:
    """Keys beyond these are kept (not checked); ``published``: more of the schema."""

    def extra(schema: dict[str, Any]) -> None:
        _written(schema)
        schema.update(published)

    return ConfigDict(extra="allow", strict=True, json_schema_extra=extra)


def _doc(text: str | None = None, **schema: Any) -> Any:
    """A description and what ``deal`` writes there (e.g. ``enum``) for the published schema."""
    return Field(description=text, json_schema_extra=schema or None)


_KINDS = ["card", "token", "art_card", "minigame", "emblem", "ad", "other"]


@with_config(_config())
class SetupItem(TypedDict, total=False):
    """A pack item or a zone's card (``generator.model.Item`` as JSON). Only the uid is
    required to read one; validate looks the rest up by ``card_id``."""

    uid: Required[
        Annotated[
            str,
            _doc("p<pack>-<position> (1-based) for pack items; x<player>-<n> for outside "
                 "additions (x0-<n>: the table's)", pattern="^(p[0-9]+-[0-9]+|x[0-9]+-[0-9]+)$"),
        ]
    ]  # fmt: skip
    card_id: Annotated[str | None, _doc("Scryfall id; null for ads and unresolved references")]
    name: str | None
    set: str
    collector_number: str | None
    rarity: str | None
    foil: bool
    slot: str
    kind: Annotated[str, _doc(enum=_KINDS)]
    magic_back: bool
    resolved: bool
    type_line: str | None
    colors: list[Annotated[str, _doc(enum=list("WUBRG"))]]
    mana_value: float | None
    layout: str | None
    gold_stamped: Sometimes[Annotated[bool, _doc("art cards only")]]
    external: Sometimes[
        Annotated[bool, _doc("present (true) only on items added from outside the packs",
                             const=True)]
    ]  # fmt: skip
    tag: Sometimes[
        Annotated[str | None, _doc("a role the setup gives the card, e.g. mimic (Mimic Match); "
                                   "only on zone cards")]
    ]  # fmt: skip


@with_config(_config())
class SetupPack(TypedDict, total=False):
    """An opened pack, exactly as ``boosterkit open SET --product P -n N --seed S --format
    json`` gives it."""

    set: str | None
    product: str | None
    seed: int | None
    index: Annotated[int | None, _doc(minimum=1)]
    variant: int | None
    items: Required[list[SetupItem]]


_GRID = {"if": {"properties": {"kind": {"const": "grid"}}}, "then": {"required": ["rows", "cols"]}}


@with_config(_config(additionalProperties=False, **_GRID))
class SetupZone(TypedDict, total=False):
    """A named place in the setup: a hand, a grid, a deck, the removed cards…"""

    name: Required[
        Annotated[
            str,
            _doc("'<owner> <zone>' for owned zones (player-1 hand), else the zone name (grid, "
                 "removed, set aside, deck…)"),
        ]
    ]  # fmt: skip
    owner: Annotated[str | None, _doc(pattern="^(player|team)-[0-9]+$")]
    kind: Required[Annotated[str, _doc(enum=list(ZONE_KINDS))]]
    visibility: Annotated[
        str | None,
        _doc("who may see the cards: everyone (face up), the owner only (a hand, an own grid), "
             "or nobody at the table (face down, set aside; on the organizer's page)",
             enum=list(VISIBILITIES)),
    ]  # fmt: skip
    rows: Sometimes[Annotated[int | None, _doc(minimum=1)]]
    cols: Sometimes[Annotated[int | None, _doc(minimum=1)]]
    cards: Required[Annotated[list[SetupItem], _doc("in deal order; grids in row order")]]


@with_config(ConfigDict(extra="forbid", strict=True))
class SetupRules(TypedDict):
    """The game's rules text and where it came from."""

    source: str
    text: str


@with_config(_config(title="boosterkit minigame setup", additionalProperties=False))
class SetupFile(TypedDict, total=False):
    """The JSON of ``boosterkit deal GAME --format json`` and the input of ``validate``,
    ``play`` and ``POST /validate`` / ``/play``."""

    minigame: Required[Annotated[str, _doc("catalogue id, e.g. roll-for-initiative")]]
    players: Required[Annotated[int, Field(ge=1)]]
    set: str | None
    product: Annotated[
        str | None, _doc("the product the packs were opened as (a kind such as set, or a code)")
    ]
    seed: Annotated[int, Field(ge=0, le=SEED_MAX)] | None
    strict_backs: Annotated[
        bool | None,
        _doc("double-faced Magic cards were removed too (the default for games whose cards "
             "lie face down)"),
    ]  # fmt: skip
    packs: Required[list[SetupPack]]
    zones: Required[list[SetupZone]]
    rolls: Annotated[
        dict[str, Any] | None,
        _doc("each player's first roll (their starting initiative unless they tied: see "
             "tiebreaks)", additionalProperties={"type": "integer", "minimum": 1}),
    ]  # fmt: skip
    tiebreaks: Annotated[
        dict[str, list[int]] | None,
        _doc("the re-rolls of tied players, in order: round by round every player whose "
             "initiative equals another's rolls again (only they) and the new roll is their "
             "initiative, while any two tie (at most 10 rounds); a player's last roll is "
             "their starting initiative"),
    ]  # fmt: skip
    teams: Sometimes[
        Annotated[
            dict[str, list[str]],
            _doc("a team game's teams (team-1, team-2) and their players; first_player is "
                 "then the team that starts",
                 propertyNames={"pattern": "^team-[0-9]+$"},
                 additionalProperties={"type": "array", "minItems": 1,
                                       "items": {"pattern": "^player-[0-9]+$"}}),
        ]
    ]  # fmt: skip
    roles: Sometimes[
        Annotated[
            dict[str, str],
            _doc("each player's role, for games that give roles at setup (Day Vs. Night: Day "
                 "and Night)", propertyNames={"pattern": "^player-[0-9]+$"}),
        ]
    ]  # fmt: skip
    chosen: Sometimes[
        Annotated[
            dict[str, str],
            _doc("who a setup step chose, by the zone it made (Telepathic Transmission: the "
                 "player who discarded a land to begin the discard pile)",
                 additionalProperties={"pattern": "^player-[0-9]+$"}),
        ]
    ]  # fmt: skip
    first_player: Annotated[
        Any, _doc("a player, a team (team games), or null", type=["string", "null"])
    ]
    notes: list[str]
    rules: Sometimes[
        Annotated[
            SetupRules,
            _doc("the game's rules text: from its minigame card when the database holds it, "
                 "else from the catalogue"),
        ]
    ]  # fmt: skip


@cache
def adapter() -> TypeAdapter[SetupFile]:
    """The model's validator, built on first use (``deal`` writes setups, never reads one)."""
    return TypeAdapter(SetupFile)


def parse_setup(data: Any) -> SetupFile:
    """The typed setup, else ``InputError`` with the JSON path of the first problem."""
    if not isinstance(data, dict):
        raise InputError(f"setup: expected a JSON object, got {type(data).__name__}")
    try:
        return adapter().validate_python(data)
    except ValidationError as exc:
        raise InputError(_one_line(exc.errors()[0])) from None


def _one_line(err: Any) -> str:
    loc = list(err["loc"])
    if loc and loc[-1] == "uid" and len(loc) >= 2 and isinstance(loc[-2], int):
        return f"{shapes.path('setup', loc[:-1])}: an item is an object with a string uid"
    where, kind, value = shapes.path("setup", loc), err["type"], err.get("input")
    if kind == "missing":
        return f"{where}: missing"
    if loc == ["seed"] and kind in ("greater_than_equal", "less_than_equal"):
        return f"{where}: expected an integer from 0 to {SEED_MAX}, got {value}"
    if kind == "greater_than_equal":
        return f"{where}: expected at least {err['ctx']['ge']}, got {value}"
    return f"{where}: {shapes.words(err)}"
