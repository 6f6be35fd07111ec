"""The move records of the refereed games: one JSON Lines record per move, one shape per
kind of move. ``data/moves.schema.json`` is generated from these (``minigames.schemas``);
each referee allows exactly their keys (``keys``) and checks their values with its rules.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, with_config
from typing_extensions import Required, TypedDict

_CLOSED = ConfigDict(extra="forbid")
Player = Annotated[str, Field(pattern="^player-[0-9]+$")]
Uid = Annotated[
    str, Field(pattern="^(p[0-9]+-[0-9]+|x[0-9]+-[0-9]+)$", description="a card's uid in the setup")
]
D20 = Annotated[int, Field(ge=1, le=20)]


def keys(*shapes: type) -> tuple[str, ...]:
    """The keys of ``shapes``, in their order (each once): what a move of them may hold."""
    return tuple(dict.fromkeys(k for shape in shapes for k in shape.__annotations__))


# --- Roll for Initiative ------------------------------------------------------------------


@with_config(_CLOSED)
class ColorEffect(TypedDict, total=False):
    """a colour's effect: W/B target any player, U/R another player, G the player's own die"""

    color: Required[Literal["W", "U", "B", "R", "G"]]
    target: Player
    die: Annotated[
        D20, Field(description="the re-rolled die (U, R, G); rolled from the seed when absent")
    ]


@with_config(_CLOSED)
class FaceDownEffect(TypedDict):
    """a card played face down: +1 or -1 at the end of the game"""

    delta: Literal[1, -1]
    target: Player


@with_config(_CLOSED)
class Turn(TypedDict, total=False):
    """a turn: play a card from the hand"""

    player: Required[Player]
    card: Required[Uid]
    face_down: Annotated[bool, Field(default=False)]
    effects: Annotated[
        list[ColorEffect | FaceDownEffect],
        Field(description="face up: one effect per colour of the card (none for a colourless "
              "card); face down: one ±1 effect"),
    ]  # fmt: skip


@with_config(_CLOSED)
class Reroll(TypedDict, total=False):
    """after a colourless card: each player in turn, from the one who played it, decides
    whether to re-roll"""

    player: Required[Player]
    reroll: Required[bool]
    die: D20


@with_config(_CLOSED)
class RollOff(TypedDict, total=False):
    """a final tie: the tied players roll again"""

    roll_off: Required[Literal[True]]
    dice: Annotated[dict[Player, D20], Field(json_schema_extra={"additionalProperties": False})]


# --- Base Race ----------------------------------------------------------------------------


@with_config(_CLOSED)
class Step(TypedDict):
    """move one own card one space; onto an opponent's card it is a battle"""

    player: Player
    card: Uid
    to: Annotated[
        str,
        Field(pattern="^[a-d][1-6]$",
              description="files a-d from player-1's left, ranks 1-6 from player-1's back row"),
    ]  # fmt: skip


#: A player none of whose cards can move passes (``pass`` is a Python keyword: no class form).
Pass = TypedDict("Pass", {"player": Player, "pass": Literal[True]})
with_config(_CLOSED)(Pass)
Pass.__doc__ = "a player none of whose cards can move passes"


# --- Mimic Match --------------------------------------------------------------------------


@with_config(_CLOSED)
class Look(TypedDict, total=False):
    """look at two grid cards"""

    player: Required[Player]
    cells: Required[
        Annotated[
            list[Annotated[int, Field(ge=1)]],
            Field(min_length=2, max_length=2, description="grid cells 1-16 in row order"),
        ]
    ]
    take: Required[Annotated[bool, Field(description="reveal and take a match (then go again)")]]
    cards: Annotated[
        list[Uid],
        Field(min_length=2, max_length=2, description="optional check: the cards at those cells"),
    ]
    refill: Annotated[
        list[Uid],
        Field(max_length=2,
              description="the cards drawn into the holes (default: the top of the setup's deck)"),
    ]  # fmt: skip


@with_config(_CLOSED)
class Decide(TypedDict):
    """the mimic finder settles a tie for the most points"""

    player: Player
    winner: Player


#: Each refereed game's kinds of move, in the order its referee tells them apart.
MOVES: dict[str, tuple[type, ...]] = {
    "roll-for-initiative": (Turn, Reroll, RollOff),
    "base-race": (Step, Pass),
    "mimic-match": (Look, Decide),
}
