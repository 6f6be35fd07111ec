"""The minigame catalogue: one YAML file per game under ``data/minigames/``, checked on load.

Every file is an instance of one typed model, ``minigames.spec.Minigame`` (published as
``data/minigame.schema.json``, generated from it). Unknown keys, unknown setup ops and
unknown filter terms fail with the file and the key.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from types import UnionType
from typing import TYPE_CHECKING, Annotated, Any, Union, cast, get_args, get_origin

from boosterkit.data import DATA_DIR
from boosterkit.errors import CONTROL_CHARS, InputError, NotFoundError
from boosterkit.minigames import shapes
from boosterkit.minigames.labels import (  # the languages of printed_names (spec.Minigame)
    LANGS,
    label,
)
from boosterkit.minigames.spec import (
    FACTS,
    OPS,
    REMINDER_KEYS,
    STATUSES,
    VISIBILITIES,
    ZONE_KINDS,
    BaseStep,
    Minigame,
    Part,
    Says,
    keys,
    op_of,
)

if TYPE_CHECKING:
    from pydantic_core import SchemaValidator

__all__ = [
    "FACTS",
    "LANGS",
    "OPS",
    "REMINDER_KEYS",
    "STATUSES",
    "VISIBILITIES",
    "ZONE_KINDS",
    "Minigame",
    "get_minigame",
    "list_minigames",
    "load_catalogue",
    "load_file",
]

CATALOGUE_DIR = DATA_DIR / "minigames"


def _fail(where: str, msg: str) -> InputError:
    return InputError(f"{where}: {msg}")


def _untagged(loc: list[Any]) -> list[Any]:
    """``loc`` without the op pydantic names inside a step (the union's tag: not a key)."""
    return [
        p
        for i, p in enumerate(loc)
        if i < 2 or loc[i - 2] != "steps" or not isinstance(loc[i - 1], int)
    ]


def _first(errors: list[Any]) -> Any:
    """The problem a reader meets first: a mapping's unknown keys, then its missing ones,
    before what is inside it (pydantic lists them last)."""
    rank = {"unexpected_keyword_argument": 0, "missing": 1}
    return min(errors, key=lambda e: (len(_untagged(list(e["loc"]))), rank.get(e["type"], 2)))


def _problem(err: Any, where: str) -> str:
    """One line for a catalogue file's first problem: the file and the key, then what."""
    raw = list(err["loc"])
    loc = _untagged(raw)
    at, kind = shapes.path(where, loc), err["type"]
    in_steps = len(loc) > 1 and loc[-2] == "steps" and isinstance(loc[-1], int)
    if kind == "unexpected_keyword_argument":
        part = part_at(raw[:-1])
        return f"{at}: unknown key (allowed: {', '.join(keys(part) if part else ())})"
    if kind == "missing":
        return f"{at}: missing"
    if kind == "union_tag_not_found" or (in_steps and kind.startswith("dataclass_")):
        return f"{at}: a step is a mapping with an 'op'"
    if kind == "union_tag_invalid":
        return f"{at}.op: unknown op {err['input']['op']!r} (known: {', '.join(OPS)})"
    if kind == "spec":
        return f"{at}: {err['msg']}"
    said = says_at(raw)
    if said is not None:
        mark, depth = said  # the message of the key the value belongs to
        got = mark.message.format(got=repr(err["input"]))
        return f"{shapes.path(where, _untagged(raw[:depth]))}: {got}"
    if kind in ("dataclass_type", "dict_type"):
        return f"{at}: expected a mapping, got {type(err['input']).__name__}"
    return f"{at}: {shapes.words(err)}"


@lru_cache(maxsize=1)
def checker() -> SchemaValidator:
    """pydantic's check of a catalogue file (its mapping, as YAML reads it) against
    ``Minigame``: unknown keys fail, and nothing is coerced ("4" is not 4, 1 is not true) but
    a mapping into the dataclass it is (pydantic's ``strict`` would want an instance)."""
    from pydantic import TypeAdapter
    from pydantic_core import SchemaValidator

    def lax_mappings(node: Any) -> Any:
        if isinstance(node, dict):
            if node.get("type") == "dataclass":
                node["strict"] = False  # its fields keep the config's strict
            for value in node.values():
                lax_mappings(value)
        elif isinstance(node, list):
            for value in node:
                lax_mappings(value)
        return node

    return SchemaValidator(lax_mappings(copy.deepcopy(TypeAdapter(Minigame).core_schema)))


def _loader() -> Any:
    """YAML's safe loader, libyaml's when there is one (~10x faster, the same result)."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_file(path: Path) -> Minigame:
    """Load and check one catalogue file (with pydantic)."""
    return _checked(path.read_bytes(), path.name)


def _checked(raw: bytes, name: str) -> Minigame:
    """The catalogue file ``name`` holding ``raw``, read and checked."""
    import yaml
    from pydantic import ValidationError

    where = f"data/minigames/{name}"
    try:
        data = yaml.load(raw.decode("utf-8"), Loader=_loader())  # noqa: S506 (safe)
    except yaml.YAMLError as exc:
        raise _fail(where, f"not valid YAML: {exc}") from exc
    try:
        game = cast(Minigame, checker().validate_python(data))
    except ValidationError as exc:
        raise InputError(_problem(_first(exc.errors()), where)) from None
    stem = name.removesuffix(".yaml")
    if game.id != stem:
        raise _fail(f"{where}.id", f"{game.id!r} must equal the file name {stem!r}")
    return game


def _compiled(raw: bytes, stem: str) -> Minigame | None:
    """The game ``minigames.compiled`` holds for this file, if its bytes and ``spec.py`` are
    the ones it was compiled from (what ``load_file`` gives for them, a test checks)."""
    from boosterkit.minigames import compiled
    from boosterkit.minigames.compile import digest, spec_digest

    kept = compiled.GAMES.get(stem)
    if kept is None or kept[0] != digest(raw) or compiled.SPEC != spec_digest():
        return None
    return kept[1]()


def _load(path: Path) -> Minigame:
    """One catalogue file: compiled when unchanged, else read and checked."""
    raw = path.read_bytes()
    game = _compiled(raw, path.stem)
    return _checked(raw, path.name) if game is None else game


@lru_cache(maxsize=4)
def load_catalogue(directory: Path = CATALOGUE_DIR) -> dict[str, Minigame]:
    """Every catalogue entry by id, in name order."""
    games = [_load(p) for p in sorted(directory.glob("*.yaml"))]
    return {g.id: g for g in sorted(games, key=lambda g: g.name.lower())}


@lru_cache(maxsize=64)
def _load_one(path: Path) -> Minigame:
    return _load(path)


#: ``get_minigame``'s answers for ids found by their file, by the words asked (the file is
#: read once a process, ``_load_one``): at most ``_BY_ID_MAX`` of them.
_BY_ID: dict[str, Minigame] = {}
_BY_ID_MAX = 256


def get_minigame(game: str) -> Minigame:
    """The entry for ``game`` (an id or a printed name, any case), else ``NotFoundError``.

    An id reads only its own file (a command dealing one game parses one file, not 27)."""
    found = _BY_ID.get(game)  # asked before (by the service, per request)
    if found is not None:
        return found
    if CONTROL_CHARS.search(game):
        raise NotFoundError(f"unknown minigame {game!r}: a game name has no control characters")
    key = game.strip().lower().replace(" ", "-").replace("'", "").replace(".", "")
    if re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", key) and (CATALOGUE_DIR / f"{key}.yaml").is_file():
        found = _load_one(CATALOGUE_DIR / f"{key}.yaml")
        if len(_BY_ID) < _BY_ID_MAX:
            _BY_ID[game] = found
        return found
    catalogue = load_catalogue()
    if key in catalogue:
        return catalogue[key]
    wanted = _fold(game)
    # the card's full title: "Lancez les dés pour l'initiative ! (Mini-jeu magique)"
    suffixes = [_fold(label(lang, "minigame-title")) for lang in LANGS]
    bare = next((wanted[: -len(x)].strip() for x in suffixes if wanted.endswith(f" {x}")), None)
    for g in catalogue.values():
        names = [g.name, *g.printed_names.values(), *g.scryfall_names]
        folds = {_fold(n) for n in names} | {_fold(n.split(" // ")[0]) for n in names}
        if wanted and (wanted in folds or bare in folds):
            return g
    from boosterkit.suggest import unknown

    spellings = [
        (name, g.id)
        for g in catalogue.values()
        for name in (g.id, g.name, *g.printed_names.values())
    ]
    message = unknown("minigame", game, spellings, "all games: `boosterkit minigames`")
    raise NotFoundError(message)


def _fold(name: str) -> str:
    """A name for matching: no accents, case, punctuation or spacing ("Lancez les dés pour
    l'initiative !" = "lancez les des pour l initiative")."""
    import unicodedata

    flat = unicodedata.normalize("NFKD", name.casefold())
    flat = "".join(ch if ch.isalnum() else " " for ch in flat if not unicodedata.combining(ch))
    return " ".join(flat.replace("’", " ").split())


def list_minigames() -> list[dict[str, Any]]:
    """The catalogue: id, name, players, packs, product, minutes, printings and setup status."""
    return [g.summary() for g in load_catalogue().values()]


def markdown_table() -> str:
    """The catalogue as the Markdown table of ``docs/minigames.md`` (cog writes it there)."""
    rows = [
        "| Game | id | Printed as | Players | Packs | Minutes | Product | Setup |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for game in list_minigames():
        spec = get_minigame(game["id"])
        lo, hi = spec.players.min, spec.players.max
        players = f"{lo}+" if hi is None else (f"{lo}" if lo == hi else f"{lo}–{hi}")
        gap = set(spec.unprinted.facts) if spec.unprinted else set()
        mark = {k: " (not printed)" if k in gap else "" for k in ("players", "packs", "minutes")}
        printed = ", ".join(
            f"{p.set.upper()} #{p.number}" if p.number else p.set.upper() for p in spec.printings
        )
        rows.append(
            f"| {spec.name} | `{spec.id}` | {printed} | {players}{mark['players']} | "
            f"{game['packs']}{mark['packs']} | {spec.minutes or '—'}{mark['minutes']} | "
            f"{spec.packs.product} | {spec.status.setup} |"
        )
    return "\n".join(rows) + "\n"


# --- where pydantic found a problem, in the model ------------------------------------------


def part_at(loc: Sequence[int | str]) -> type[Part] | None:
    """The model of the mapping at pydantic's ``loc`` in a ``Minigame`` (None: not one)."""
    node: Any = Minigame
    for part in loc:
        node, _ = _child(_peel(node)[0], part)
    node = _peel(node)[0]
    return node if isinstance(node, type) and issubclass(node, Part) else None


def says_at(loc: Sequence[int | str]) -> tuple[Says, int] | None:
    """The message for an error at pydantic's ``loc`` in a ``Minigame``, and how much of
    ``loc`` it names: the outermost ``deep`` one on the way, else the one at ``loc``."""
    node: Any = Minigame
    marks: list[Says] = []
    for depth in range(len(loc) + 1):
        node, more = _peel(node)
        for mark in marks + more:
            if mark.deep or depth == len(loc):
                return mark, depth
        if depth == len(loc) or node is None:
            return None
        node, marks = _child(node, loc[depth])
    return None


def _peel(node: Any) -> tuple[Any, list[Says]]:
    """``node`` without ``Annotated`` and ``| None``, and the messages they carried."""
    marks: list[Says] = []
    while True:
        if get_origin(node) is Annotated:
            node, *meta = get_args(node)
            marks += [m for m in meta if isinstance(m, Says)]
        elif get_origin(node) in (Union, UnionType) and type(None) in get_args(node):
            rest = [a for a in get_args(node) if a is not type(None)]
            if len(rest) != 1:
                return node, marks
            node = rest[0]
        else:
            return node, marks


def _child(node: Any, part: int | str) -> tuple[Any, list[Says]]:
    """The type at ``part`` of ``node`` (a field, a list item, a dict value, or the step a
    tagged union read: pydantic names the op) and the messages of the field."""
    if isinstance(node, type) and dataclasses.is_dataclass(node):
        for f in dataclasses.fields(node):
            if f.metadata.get("alias", f.name) == part:
                return f.type, []  # its messages: in its Annotated (``_peel``)
        return None, []
    origin, args = get_origin(node), get_args(node)
    if origin is list and isinstance(part, int):
        return args[0], []
    if origin is dict and isinstance(part, str):
        return args[1], []
    if origin in (Union, UnionType):
        steps = [a for a in args if isinstance(a, type) and issubclass(a, BaseStep)]
        op = (a for a in steps if get_args(op_of(a)) == (part,))
        return next(op, None), []
    return None, []
