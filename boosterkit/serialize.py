"""Serialising library values the same way everywhere: the CLI, the pack writers, the service.

``to_json`` is the one JSON form of every ``--format json`` output and HTTP answer (field
order kept, UTF-8 as is); ``cell`` is the one text form of a value in a CSV or table cell;
``CsvWriter`` is the one CSV writer (every ``--format csv``). Neutral ground: library
packages (``generator``, ``service``) import these from here, never from ``cli``.

The ``*_records`` functions write the formats of ``formats.RECORDS`` (a command's data: a
listing or one record); ``cli.render.emit`` calls them.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO, cast

from boosterkit.errors import escape_controls

__all__ = [
    "FORMULA_START",
    "CsvWriter",
    "written",
    "Escaped",
    "cell",
    "csv_cell",
    "escaped",
    "json_safe",
    "md_inline",
    "table",
    "to_json",
    "unescaped",
    "write_csv",
]

#: The human form of a record (a summary line, a verdict), and its rows for csv/table.
Text = Callable[[Any], str]
Rows = Callable[[Any], list[dict[str, Any]]]

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


#: Characters JSON leaves raw (it escapes only C0) that a terminal may act on or that
#: reorder text: DEL, C1, line/paragraph separators, bidi marks, overrides and isolates.
_JSON_RAW = re.compile("[\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def json_safe(text: str) -> str:
    """JSON text with the characters JSON leaves raw (``_JSON_RAW``) written as ``\\uXXXX``:
    the same JSON, which no terminal acts on."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


#: ``_JSON_RAW``'s characters in UTF-8: ``\x7f``; ``\xc2\x80``–``\xc2\x9f``; ``\xe2\x80`` or
#: ``\xe2\x81`` and one of ``_RAW_LAST``. Each byte is looked for first (``in``: memchr, tens
#: of GB/s), a pattern only when one is there: text seldom holds them.
_RAW_C1 = re.compile(rb"\xc2[\x80-\x9f]")
_RAW_E2 = re.compile(rb"\xe2(?:\x80[\x8e\x8f\xa8-\xae]|\x81[\xa6-\xa9])")
_RAW_LAST = tuple(bytes([b]) for b in (0x8E, 0x8F, *range(0xA6, 0xAF)))


def json_safe_bytes(data: bytes) -> bytes:
    """``json_safe`` on UTF-8 JSON."""
    if (
        b"\x7f" in data
        or (b"\xc2" in data and _RAW_C1.search(data))
        or (any(last in data for last in _RAW_LAST) and _RAW_E2.search(data))
    ):
        return json_safe(data.decode()).encode()
    return data


#: Floats that orjson writes otherwise than Python's ``repr`` (which it equals elsewhere):
#: a one-digit negative exponent (orjson ``3e-6``, Python ``3e-06``) and the decimals under
#: 1e-4 (orjson ``0.00003``, Python ``3e-05``). In indented JSON a number ends its line (a
#: comma, then a new line); a string cannot end so (its quote comes first): every such
#: float is found, and a negative integer (``-5,``) only costs the slow way.
_ORJSON_FLOATS = (re.compile(rb"-[0-9],?\n"), re.compile(rb"\.0000[0-9]*,?\n"))


def written(count: int) -> list[Any]:
    """Tokens 0..``count``-1 for values written already: what an object's
    ``indented_json_parts`` holds where its text *k* goes (an ``orjson.Fragment`` of
    ``NUL k NUL``, which no JSON text holds raw: orjson escapes it in a string)."""
    if len(_TOKENS) < count:
        import orjson  # here: a command that writes no JSON does not load it

        with _GROWING:  # threads (the service's) grow both lists in step, a number each
            while len(_TOKENS) < count:
                _NUMBERS.append(b"%d" % len(_TOKENS))  # first: a token seen has its number
                _TOKENS.append(orjson.Fragment(b"\x00%s\x00" % _NUMBERS[-1]))
    return _TOKENS[:count]


_TOKENS: list[Any] = []
_NUMBERS: list[bytes] = []  # each token's number, as written
_GROWING = threading.Lock()


def _orjson_default(o: Any) -> Any:
    if isinstance(o, (tuple, list, dict, str, int, float, bytes)):  # a subclass: json's way
        raise TypeError(type(o).__name__)
    return _default(o)


def to_json_bytes(data: Any, end: bytes = b"") -> bytes:
    """``to_json(data)`` (indented) as UTF-8 bytes, then ``end`` (joined, not copied after)."""
    out = _orjson(data, end)
    return (_stdlib_json(data, 2).encode() + end) if out is None else out


def _orjson(data: Any, end: bytes = b"") -> bytes | None:
    """``data`` indented by orjson (C: 50–70× the standard library's indented encoder, which
    is Python), whose form is ``json.dumps(indent=2, ensure_ascii=False)``'s, ``json_safe``,
    then ``end``;
    None where it may differ (``_ORJSON_FLOATS``, a subclass of a builtin, a key that is no
    string, an integer past 64 bits, a lone surrogate, a value alone): the standard library
    writes those. NaN and the infinities are no JSON: no boosterkit value holds one (the
    pipeline loads them as NULL), and orjson would write ``null``.

    An object alone may give its value with texts written already (``indented_json_parts``:
    the value with ``written`` tokens, and the texts, each as ``to_json`` writes it where
    it stands, ``json_safe``): the value is written and checked, then each token replaced
    by its text (a setup's cards: most of its bytes, never scanned again)."""
    dumps, option = _DUMPS[0] if _DUMPS else _orjson_dumps()
    texts: list[bytes] = []
    top = data.indented_json_parts() if hasattr(type(data), "indented_json_parts") else data
    if top is not data:
        top, texts = top
    try:
        out = dumps(top, default=_orjson_default, option=option)
    except TypeError:  # orjson.JSONEncodeError is one
        return None
    if not out.endswith((b"}", b"]")) or any(f.search(out) for f in _ORJSON_FLOATS):
        return None
    out = json_safe_bytes(out)
    if not texts:
        return out + end if end else out
    pieces = out.split(b"\x00")  # between every two pieces: a token's number
    pieces[1::2] = map(dict(zip(_NUMBERS, texts)).__getitem__, pieces[1::2])
    pieces.append(end)
    return b"".join(pieces)


def _orjson_dumps() -> tuple[Callable[..., bytes], int]:
    """orjson's ``dumps`` and ``_orjson``'s options, imported once, on first use (a command
    that writes no JSON does not load orjson; a request no longer runs an import)."""
    import orjson

    # dataclasses, dates and builtins' subclasses go to ``_orjson_default``, as json's way
    option = (
        orjson.OPT_INDENT_2
        | orjson.OPT_PASSTHROUGH_DATACLASS
        | orjson.OPT_PASSTHROUGH_DATETIME
        | orjson.OPT_PASSTHROUGH_SUBCLASS
    )
    if not _DUMPS:
        _DUMPS.append((orjson.dumps, option))
    return _DUMPS[0]


_DUMPS: list[tuple[Callable[..., bytes], int]] = []


def _stdlib_json(data: Any, indent: int | None) -> str:
    return json_safe(json.dumps(data, default=_default, indent=indent, ensure_ascii=False))


def to_json(data: Any, *, indent: int | None = 2) -> str:
    """Serialise library output deterministically (sorted keys are NOT used: field order is
    the contract); UTF-8 as is, but for what a terminal could act on (``json_safe``).
    ``indent`` 2 (``to_json_bytes``) or None (one line, ``", "`` and ``": "`` between)."""
    out = _orjson(data) if indent == 2 else None
    return _stdlib_json(data, indent) if out is None else out.decode()


class Escaped:
    """A text stream whose text has every control character a terminal could act on written
    as its escape (``errors.escape_controls``; tabs, newlines and form feeds kept): what a
    command writes (``cli.render``), so text from an input file (a product named with an
    OSC 52 clipboard write) is shown, never acted on. Anything else is the stream's: its
    binary ``buffer`` takes bytes as they are (binary formats, JSON lines), and a writer
    whose text is escaped by construction writes to ``stream`` (``unescaped``)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(escape_controls(text, one_line=False))

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def escaped(stream: TextIO) -> TextIO:
    """``stream`` through ``Escaped`` (once)."""
    return stream if isinstance(stream, Escaped) else cast(TextIO, Escaped(stream))


def unescaped(stream: TextIO) -> TextIO:
    """The stream below an ``Escaped`` one, for text that needs no escaping: JSON built by
    ``to_json`` (C0 escaped by JSON, the rest by ``json_safe``)."""
    return stream.stream if isinstance(stream, Escaped) else stream


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


def table(rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None) -> str:
    """A plain fixed-width text table of ``rows``."""
    if not rows:
        return "(none)"
    cols = list(columns or rows[0].keys())
    cells = [[cell(r.get(c)) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in cells]
    return "\n".join(lines)


def write_csv(
    rows: Iterable[dict[str, Any]],
    out: TextIO,
    columns: Sequence[str] | None = None,
    *,
    raw: bool = False,
) -> None:
    """``rows`` as CSV, formula-like cells neutralised unless ``raw`` (``CsvWriter``)."""
    rows = list(rows)
    cols = list(columns or (rows[0].keys() if rows else []))
    w = CsvWriter(out, cols, raw=raw)
    for r in rows:
        w.row(r.get(c) for c in cols)


# --- formats.RECORDS: the data, as JSON, JSON lines, CSV, a table or text -------------------


def json_records(
    data: Any, out: TextIO, *, text: Text | None, rows: Rows | None, columns: Sequence[str] | None
) -> None:
    """The data as ``to_json`` gives it: the library's return value."""
    out.write(to_json(data) + "\n")


def jsonl_records(
    data: Any, out: TextIO, *, text: Text | None, rows: Rows | None, columns: Sequence[str] | None
) -> None:
    """One element of the data (or the one record) per line."""
    for element in data if isinstance(data, list) else [data]:
        out.write(to_json(element, indent=None) + "\n")


def csv_records(
    data: Any, out: TextIO, *, text: Text | None, rows: Rows | None, columns: Sequence[str] | None
) -> None:
    """The data's rows (``rows(data)``, else the data) as CSV."""
    write_csv(rows(data) if rows else data, out, columns)


def table_records(
    data: Any, out: TextIO, *, text: Text | None, rows: Rows | None, columns: Sequence[str] | None
) -> None:
    """The data's rows as a table; a record that has no rows, as its text."""
    flat = rows(data) if rows else data
    if text is not None and not isinstance(flat, list):
        out.write(text(data).rstrip("\n") + "\n")
    else:
        out.write(table(flat, columns) + "\n")


def text_records(
    data: Any, out: TextIO, *, text: Text | None, rows: Rows | None, columns: Sequence[str] | None
) -> None:
    """The human form (``text(data)``); without one, the table."""
    if text is None:
        table_records(data, out, text=text, rows=rows, columns=columns)
    else:
        out.write(text(data).rstrip("\n") + "\n")
