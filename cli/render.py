"""One renderer for every command's output: ``--format json|jsonl|csv|table|text``.

Commands return plain data (dicts and lists, as the library does) and call ``emit``. The
``--json`` flag of listing commands is ``--format json``. JSON output is exactly the
library's return value, serialised with ``to_json``.
"""

from __future__ import annotations

import errno
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Any, TextIO

import typer

from boosterkit.errors import BoosterkitError, InputError
from boosterkit.serialize import CsvWriter, cell, to_json

__all__ = [
    "Format",
    "cell",
    "echo_err",
    "emit",
    "flagged",
    "output",
    "summary",
    "table",
    "to_json",
    "write_csv",
    "wrote",
]


class Format(str, Enum):
    json = "json"
    jsonl = "jsonl"
    csv = "csv"
    table = "table"
    text = "text"


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
    """``rows`` as CSV, formula-like cells neutralised unless ``raw`` (``serialize.CsvWriter``)."""
    rows = list(rows)
    cols = list(columns or (rows[0].keys() if rows else []))
    w = CsvWriter(out, cols, raw=raw)
    for r in rows:
        w.row(r.get(c) for c in cols)


@contextmanager
def writing(name: str) -> Iterator[None]:
    """Output that cannot be written (a full disk, ``> /dev/full``) is one line naming
    ``name``, not an error about the database. A closed pipe (``| head``) is left to click,
    which exits quietly."""
    try:
        yield
    except OSError as exc:
        if exc.errno == errno.EPIPE:
            raise
        raise BoosterkitError(f"{name}: cannot write: {exc.strerror or exc}") from exc


def _name(out: TextIO) -> str:
    return "standard output" if out is sys.stdout else f"-o {getattr(out, 'name', 'output')}"


def emit(
    data: Any,
    fmt: Format | str = Format.table,
    *,
    text: Callable[[Any], str] | None = None,
    rows: Callable[[Any], list[dict[str, Any]]] | None = None,
    columns: Sequence[str] | None = None,
    out: TextIO | None = None,
) -> None:
    """Print ``data`` in ``fmt``.

    ``text`` renders the human form (default: a table of ``rows(data)`` or of ``data``);
    ``rows`` flattens data to rows for ``csv``/``table`` (default: ``data`` itself);
    ``jsonl`` writes one element of ``data`` per line.
    """
    out = out or sys.stdout
    with writing(_name(out)):
        _emit(data, Format(fmt), text, rows, columns, out)
        out.flush()


def _emit(
    data: Any,
    fmt: Format,
    text: Callable[[Any], str] | None,
    rows: Callable[[Any], list[dict[str, Any]]] | None,
    columns: Sequence[str] | None,
    out: TextIO,
) -> None:
    if fmt is Format.json:
        out.write(to_json(data) + "\n")
    elif fmt is Format.jsonl:
        for element in data if isinstance(data, list) else [data]:
            out.write(to_json(element, indent=None) + "\n")
    elif fmt is Format.csv:
        write_csv(rows(data) if rows else data, out, columns)
    elif text is not None and fmt is Format.text:
        out.write(text(data).rstrip("\n") + "\n")
    else:
        flat = rows(data) if rows else data
        if text is not None and not isinstance(flat, list):
            out.write(text(data).rstrip("\n") + "\n")
        else:
            out.write(table(flat, columns) + "\n")


def summary(
    data: dict[str, Any], fmt: str, path: str | None, line: Callable[[dict[str, Any]], str]
) -> None:
    """The result of a command that changes the database (sync, import, rebuild): ``text`` is
    its summary ``line`` on stderr (or in ``-o FILE``); ``json`` is the library's return value
    on stdout (the line still on stderr) or in ``-o FILE``."""
    if not path:
        echo_err(line(data))
        if fmt == "text":
            return
    with output(path) as out:
        emit(data, fmt, text=line, out=out)


def echo_err(message: str) -> None:
    """A line for humans on stderr (progress, summaries, chosen seeds)."""
    typer.echo(message, err=True)


@contextmanager
def output(path: str | None) -> Iterator[TextIO]:
    """``-o FILE`` support: a text file opened for writing (and closed after), or stdout.

    An unwritable path is an ``InputError`` naming ``-o``; a write that fails (a full disk)
    is one line naming the output, and a partly written file is removed.
    """
    if not path or path == "-":
        with writing("standard output"):
            yield sys.stdout
            sys.stdout.flush()
        return
    with _file(path, "w") as out:
        yield out


@contextmanager
def _file(path: str, mode: str) -> Iterator[Any]:
    """``-o FILE`` opened with ``mode`` (text or binary): an unwritable path is an
    ``InputError`` naming ``-o``, a failed write one line, a partly written file removed."""
    try:
        out = open(path, mode) if "b" in mode else open(path, mode, encoding="utf-8", newline="")
    except OSError as exc:
        raise InputError(f"-o {path}: cannot write: {exc.strerror or exc}") from exc
    try:
        with writing(f"-o {path}"), out:
            yield out
    except BaseException:
        if Path(path).is_file():  # nothing half-written stays behind (never a device)
            Path(path).unlink()
        raise
    wrote(path)


def wrote(path: str | Path, what: str | None = None) -> None:
    """The one stderr line of ``-o``: what was written where (``wrote out.json (1,234 bytes)``)."""
    p = Path(path)
    size = f"{p.stat().st_size:,} bytes" if p.is_file() else "done"
    echo_err(f"wrote {p} ({what or size})")


def flagged(exc: BoosterkitError, flags: dict[str, str]) -> BoosterkitError:
    """``exc`` reworded for the command line when it is about an argument in ``flags``.

    The library names arguments as the API does (``players: 9 is out of range …``); here
    ``{"players": "--players"}`` makes that ``--players 9 is out of range …``. Other errors,
    and arguments not in ``flags``, are returned unchanged.
    """
    flag = flags.get(exc.field or "")
    if flag is None:
        return exc
    message, prefix = str(exc), f"{exc.field}: "
    message = (
        f"{flag} {message.removeprefix(prefix)}"
        if message.startswith(prefix)
        else f"{message} ({flag})"
    )
    return type(exc)(message, field=exc.field)


@contextmanager
def binary_output(path: str | None, what: str = "this format") -> Iterator[Any]:
    """``-o FILE`` for binary formats (Parquet, Arrow): the file, or stdout when it is not a
    terminal. A terminal or an unwritable path is an ``InputError``; as ``output``, a failed
    write is one line and leaves no partial file (and never removes a device)."""
    if not path or path == "-":
        if sys.stdout.isatty():
            raise InputError(f"{what} is binary: give -o FILE (or redirect stdout)")
        sys.stdout.flush()
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    with _file(path, "wb") as out:
        yield out
