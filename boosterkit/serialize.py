"""Serialising library values the same way everywhere: the CLI, the pack writers, the service.

``to_json`` is the one JSON form of every ``--format json`` output and HTTP answer (field
order kept, UTF-8 as is); ``cell`` is the one text form of a value in a CSV or table cell;
``CsvWriter`` is the one CSV writer (every ``--format csv``). Neutral ground: library
packages (``generator``, ``service``) import these from here, never from ``cli``.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

__all__ = ["FORMULA_START", "CsvWriter", "cell", "csv_cell", "md_inline", "to_json"]

#: A cell starting with one of these is a formula to a spreadsheet (OWASP "CSV Injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#!|~>])")


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


def csv_cell(v: Any, *, raw: bool = False) -> str:
    """``cell(v)`` made safe for spreadsheets: text starting with ``= + - @``, tab or CR gets a
    leading ``'`` (OWASP), so it is shown, never run. Numbers (``-1``) and ``raw`` pass as is."""
    text = cell(v)
    if raw or not text.startswith(FORMULA_START) or _NUMBER.fullmatch(text):
        return text
    return "'" + text


def md_inline(text: Any) -> str:
    """Text placed inside a Markdown line (not at its start), escaped: on one line, no raw HTML
    (``&`` and ``<`` as entities), no link, emphasis, code, heading or table markup."""
    flat = re.sub(r"[\r\n\t\v\f\x85\u2028\u2029]+", " ", str(text))
    return _MD_SPECIAL.sub(r"\\\1", flat.replace("&", "&amp;").replace("<", "&lt;"))


class CsvWriter:
    """Rows to CSV (``\\n`` line ends, quoted as needed), each cell through ``csv_cell``."""

    def __init__(self, out: TextIO, columns: Sequence[str], *, raw: bool = False) -> None:
        self._w = csv.writer(out, lineterminator="\n")
        self.raw = raw
        self._w.writerow(list(columns))

    def row(self, values: Iterable[Any]) -> None:
        self._w.writerow([csv_cell(v, raw=self.raw) for v in values])
