"""The shape of a setup file ``validate`` reads: one typed model (pydantic, strict types).

It admits what ``deal --format json`` writes (``data/setup.schema.json``) and what an
organizer may type by hand (uids and card ids; no seed, flags or notes). Values are never
coerced ("5" is not 5, 1 is not true). A file that does not fit fails with one line naming
the JSON path, as ``InputError``; the rules themselves are checked by ``validate``.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError

from boosterkit.errors import InputError
from boosterkit.generator.rng import SEED_MAX

_OPEN = ConfigDict(extra="allow")


class ItemIn(BaseModel):
    """A pack item or a zone's card: the uid is required, the rest comes from the database."""

    model_config = _OPEN
    uid: StrictStr
    card_id: StrictStr | None = None
    name: StrictStr | None = None
    tag: StrictStr | None = None


class PackIn(BaseModel):
    model_config = _OPEN
    set: StrictStr | None = None
    product: StrictStr | None = None
    seed: StrictInt | None = None
    index: StrictInt | None = None
    variant: StrictInt | None = None
    items: list[ItemIn]


class ZoneIn(BaseModel):
    model_config = _OPEN
    name: StrictStr
    kind: StrictStr
    cards: list[ItemIn]
    owner: StrictStr | None = None
    visibility: StrictStr | None = None
    rows: StrictInt | None = None
    cols: StrictInt | None = None


class SetupIn(BaseModel):
    """A setup file. Optional keys may be left out by a setup dealt by hand."""

    model_config = _OPEN
    minigame: StrictStr
    players: Annotated[StrictInt, Field(ge=1)]
    packs: list[PackIn]
    zones: list[ZoneIn]
    set: StrictStr | None = None
    product: StrictStr | None = None
    seed: Annotated[StrictInt, Field(ge=0, le=SEED_MAX)] | None = None
    strict_backs: StrictBool | None = None
    rolls: dict[str, Any] | None = None
    tiebreaks: dict[str, list[StrictInt]] | None = None
    first_player: Any = None


_WORDS = {
    "string_type": "expected a string",
    "int_type": "expected int",
    "bool_type": "expected bool",
    "list_type": "expected a list",
    "dict_type": "expected an object",
    "model_type": "expected an object",
    "model_attributes_type": "expected an object",
}


def check_shape(data: Any) -> SetupIn:
    """The typed setup, else ``InputError`` with the JSON path of the first problem."""
    if not isinstance(data, dict):
        raise InputError(f"setup: expected a JSON object, got {type(data).__name__}")
    try:
        return SetupIn.model_validate(data)
    except ValidationError as exc:
        raise InputError(_one_line(exc.errors()[0])) from None


def _one_line(err: Any) -> str:
    loc = list(err["loc"])
    if loc and loc[-1] == "uid" and len(loc) >= 2 and isinstance(loc[-2], int):
        return f"{_path(loc[:-1])}: an item is an object with a string uid"
    where, kind, value = _path(loc), err["type"], err.get("input")
    if kind == "missing":
        return f"{where}: missing"
    if loc == ["seed"] and kind in ("greater_than_equal", "less_than_equal"):
        return f"{where}: expected an integer from 0 to {SEED_MAX}, got {value}"
    if kind == "greater_than_equal":
        return f"{where}: expected at least {err['ctx']['ge']}, got {value}"
    words = _WORDS.get(kind, err["msg"].lower())
    return f"{where}: {words}, got {value!r:.40}"


def _path(loc: list[Any]) -> str:
    return "setup" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc)
