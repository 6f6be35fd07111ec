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
class EndEffect(TypedDict):
    """a white or black card's effect: +2 or -2 to any player's roll at the end of the game"""

    color: Literal["W", "B"]
    target: Player


_Die = Annotated[D20, Field(description="the re-rolled die; rolled from the seed when absent")]


@with_config(_CLOSED)
class RerollEffect(TypedDict, total=False):
    """a blue or red card's effect: re-roll another player's die"""

    color: Required[Literal["U", "R"]]
    target: Required[Player]
    die: _Die


@with_config(_CLOSED)
class GreenEffect(TypedDict, total=False):
    """a green card's effect: re-roll the player's own die (target: that player, if given)"""

    color: Required[Literal["G"]]
    target: Player
    die: _Die


#: A colour's effect, one shape per kind (W/B, U/R, G).
ColorEffect = EndEffect | RerollEffect | GreenEffect


@with_config(_CLOSED)
class FaceDownEffect(TypedDict):
    """a card played face down: +1 or -1 at the end of the game"""

    delta: Literal[1, -1]
    target: Player


@with_config(_CLOSED)
class Turn(TypedDict, total=False):
    """a turn: play a card from the hand face up"""

    player: Required[Player]
    card: Required[Uid]
    face_down: Annotated[Literal[False], Field(default=False)]
    effects: Annotated[
        list[ColorEffect],
        Field(description="one effect per colour of the card, in the order applied (none for "
              "a colourless card)"),
    ]  # fmt: skip


@with_config(_CLOSED)
class FaceDownTurn(TypedDict):
    """a turn: play a card from the hand face down"""

    player: Player
    card: Uid
    face_down: Literal[True]
    effects: Annotated[list[FaceDownEffect], Field(min_length=1, max_length=1)]


@with_config(_CLOSED)
class Reroll(TypedDict, total=False):
    """after a colourless card: a player re-rolls (each player in turn, from the one who
    played it, decides)"""

    player: Required[Player]
    reroll: Required[Literal[True]]
    die: D20


@with_config(_CLOSED)
class Keep(TypedDict):
    """after a colourless card: a player keeps their die"""

    player: Player
    reroll: Literal[False]


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
            list[Annotated[int, Field(ge=1, le=16)]],
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
    "roll-for-initiative": (Turn, FaceDownTurn, Reroll, Keep, RollOff),
    "base-race": (Step, Pass),
    "mimic-match": (Look, Decide),
}
