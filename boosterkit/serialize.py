"""Serialising library values the same way everywhere: the CLI, the pack writers, the service.

``to_json`` is the one JSON form of every ``--format json`` output and HTTP answer (field
order kept, UTF-8 as is); ``cell`` is the one text form of a value in a CSV or table cell.
Neutral ground: library packages (``generator``, ``service``) import these from here,
never from ``cli``.
"""

from __future__ import annotations

import datetime as _dt
import json
from typing import Any

__all__ = ["cell", "to_json"]


def _default(o: Any) -> Any:
    if isinstance(o, (_dt.date, _dt.datetime)):
        return o.isoformat()
    if hasattr(o, "to_dict"):
        return o.to_dict()
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def to_json(data: Any, *, indent: int | None = 2) -> str:
    """Serialise library output deterministically (sorted keys are NOT used: field order is the contract)."""
    return json.dumps(data, default=_default, indent=indent, ensure_ascii=False)


def cell(v: Any) -> str:
    """One value as CSV/table text: None empty, booleans yes/no, lists comma-joined."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (list, tuple)):
        return ",".join(cell(x) for x in v)
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
