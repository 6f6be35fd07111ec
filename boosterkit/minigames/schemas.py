"""The JSON Schemas in ``data/``, generated from the typed models (never edited by hand).

- ``minigame.schema.json``: a catalogue file (``spec.Minigame``);
- ``setup.schema.json``: what ``deal --format json`` writes (``setupfile.SetupFile``);
- ``moves.schema.json``: a referee's move record (``referee.moves``, a definition per game).

Regenerate them after changing a model (a test fails until the committed files match)::

    .venv/bin/python -m boosterkit.minigames.schemas
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Union

from boosterkit.data import DATA_DIR

_DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _minigame() -> dict[str, Any]:
    from pydantic import TypeAdapter

    from boosterkit.minigames.spec import Minigame

    return TypeAdapter(Minigame).json_schema(by_alias=True)


def _setup() -> dict[str, Any]:
    from boosterkit.minigames.setupfile import adapter

    schema = adapter().json_schema(mode="serialization")
    schema["description"] = (
        "The JSON of `boosterkit deal GAME --format json` (Setup.to_dict()), the input of "
        "`boosterkit validate` and `play`. Every key listed as required is one deal always "
        "writes; a setup dealt by hand may leave out all but the minigame, players, packs, "
        "zones and each card's uid."
    )
    return schema


def _moves() -> dict[str, Any]:
    from pydantic import TypeAdapter

    from boosterkit.minigames.referee.moves import MOVES

    defs: dict[str, Any] = {}
    for game, shapes in MOVES.items():
        kinds: Any = Union[shapes]  # noqa: UP007 (a union of a tuple, made at run time)
        one = TypeAdapter(kinds).json_schema()
        defs.update(one.pop("$defs"))
        defs[game] = one
    return {
        "title": "boosterkit referee move",
        "description": "One record (line) of a move log for `boosterkit play SETUP.json "
        "MOVES.jsonl`: JSON Lines, one move a line, in the order played. A log is for one "
        "game: each line matches that game's definition ($defs/<game>). Dice left out are "
        "rolled from the setup's seed; `simulate --log` writes every die it used.",
        "anyOf": [{"$ref": f"#/$defs/{game}"} for game in MOVES],
        "$defs": defs,
    }


#: File name → how its schema is made.
SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {
    "minigame.schema.json": _minigame,
    "moves.schema.json": _moves,
    "setup.schema.json": _setup,
}


def _untitled(node: Any) -> Any:
    """Without the titles pydantic derives from field and class names ("Card Id")."""
    if isinstance(node, dict):
        return {k: _untitled(v) for k, v in node.items() if k != "title" or not isinstance(v, str)}
    if isinstance(node, list):
        return [_untitled(v) for v in node]
    return node


def schema(name: str) -> dict[str, Any]:
    """The schema published as ``data/<name>``."""
    body = SCHEMAS[name]()
    head = {"$schema": _DRAFT, "$id": f"https://boosterkit.invalid/{name}", "title": body["title"]}
    return {**head, **_untitled(body)}


def text(name: str) -> str:
    """``schema(name)`` as the committed file holds it."""
    return json.dumps(schema(name), indent=2, ensure_ascii=False) + "\n"


def write(folder: Path = DATA_DIR) -> list[str]:
    """Write every schema to ``folder``; the names of those that changed."""
    changed = []
    for name in SCHEMAS:
        path = folder / name
        new = text(name)
        if not path.is_file() or path.read_text(encoding="utf-8") != new:
            path.write_text(new, encoding="utf-8")
            changed.append(name)
    return changed


if __name__ == "__main__":
    for written in write():
        print(f"wrote data/{written}")
    sys.exit(0)
