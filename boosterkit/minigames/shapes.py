"""How a pydantic validation error reads as one line: the path in the file, then what is
wrong (``expected a string, got 5``). Shared by the catalogue and the setup file readers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: pydantic's error types in the project's words.
WORDS = {
    "string_type": "expected a string",
    "int_type": "expected int",
    "float_type": "expected a number",
    "bool_type": "expected bool",
    "list_type": "expected a list",
    "dict_type": "expected an object",
    "model_type": "expected an object",
    "dataclass_type": "expected an object",
    "model_attributes_type": "expected an object",
}


def path(root: str, loc: Sequence[int | str]) -> str:
    """``root.a[0].b`` for the location ``("a", 0, "b")``."""
    return root + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc)


def words(err: Any) -> str:
    """What is wrong, with the value given (cut at 40 characters)."""
    said = WORDS.get(err["type"], str(err["msg"]).lower())
    return f"{said}, got {err.get('input')!r:.40}"
