"""Request bodies and the limits the service enforces on them (out of range → 422).

Types are strict: a count, a seed or a player number is a JSON integer (``true``, ``3.0`` and
``"3"`` are refused), a flag is ``true``/``false``, a name is a string. Query parameters
(``GET /sheet``) are text by nature: there a number must be written in digits only.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from boosterkit.generator.rng import SEED_MAX
from boosterkit.minigames.labels import Lang

#: Packs per ``POST /packs`` request (a 15-card pack is about 8 KB of JSON).
MAX_PACKS = 360
#: Players one request may ask for (``POST /deal``, ``/simulate``, ``/pool``, ``GET /sheet``): the
#: printed minigames name 2–8, so this leaves room for larger tables while bounding the work.
MAX_REQUEST_PLAYERS = 32
#: Largest request body accepted, in bytes (a setup to validate is well under this).
MAX_BODY_BYTES = 4 * 1024 * 1024

SetCode = Annotated[
    str, StringConstraints(min_length=1, max_length=16, pattern=r"^[A-Za-z0-9_-]+$")
]
#: A product code or kind, or a minigame id or name.
Name = Annotated[str, StringConstraints(min_length=1, max_length=80, pattern=r"^[^\x00-\x1f]+$")]
#: Seeds are unsigned 64-bit integers, as the generator takes them.
Seed = Annotated[int, Field(ge=0, le=SEED_MAX)]


def _digits(value: object) -> object:
    """A query parameter's number: digits only (``2.0``, ``+2``, `` 2`` are refused)."""
    if isinstance(value, str) and not (value.isascii() and value.isdigit()):
        raise ValueError("expected a whole number written in digits")
    return value


#: A whole number in a query string (``GET /sheet?players=4``).
QueryInt = Annotated[int, BeforeValidator(_digits)]
QuerySeed = Annotated[Seed, BeforeValidator(_digits)]


class PacksRequest(BaseModel):
    """``POST /packs``: the arguments of ``boosterkit open``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    set: SetCode
    product: Name | None = None
    count: int = Field(default=1, ge=1, le=MAX_PACKS)
    seed: Seed | None = None


class GameRequest(BaseModel):
    """The arguments every route that deals a minigame takes (``/deal``, ``/simulate``)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    minigame: Name
    players: int = Field(ge=1, le=MAX_REQUEST_PLAYERS)
    set: SetCode | None = None
    product: Name | None = None
    seed: Seed | None = None


class DealRequest(GameRequest):
    """``POST /deal``: the arguments of ``boosterkit deal``."""

    #: None: the game's default (double-faced cards removed where cards lie face down).
    strict_backs: bool | None = None
    lang: Lang = "en"
