"""One renderer for every command's output: the record formats of ``formats.RECORDS``
(``--format json|jsonl|csv|table|text``), written to stdout or ``-o FILE``.

Commands return plain data (dicts and lists, as the library does) and call ``emit``. The
``--json`` flag is ``--format json``. JSON output is exactly the library's return value,
serialised with ``to_json``. ``flags`` words the library's errors about an argument with the
command line's spelling of it.

Every text a command writes goes through ``serialize.Escaped`` (stdout, ``-o FILE``) or ``echo_err``
(stderr): a control character that came from an input file (a product named with an OSC 52
clipboard write) is written as its escape (``errors.escape_controls``), never acted on.
"""

from __future__ import annotations

import errno
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import typer

from boosterkit.errors import BoosterkitError, InputError, escape_controls
from boosterkit.formats import RECORDS, Formats
from boosterkit.serialize import Escaped, cell, escaped, table, to_json, write_csv

__all__ = [
    "cell",
    "check_images",
    "echo_err",
    "emit",
    "flagged",
    "flags",
    "images_note",
    "output",
    "seed_note",
    "summary",
    "table",
    "to_json",
    "unresolved_sets",
    "write_csv",
    "wrote",
]


def unresolved_sets(counts: dict[str, int], unknown_sheets: Sequence[str], limit: int = 6) -> str:
    """``afc 56, plst 3`` — the sets of unresolved cards and how many each; the cards of no
    known set (``?``: named by an MTGJSON id only) in words, with the sheets they are on."""
    parts = []
    for s, n in counts.items():
        if s != "?":
            parts.append(f"{s} {n:,}")
            continue
        sheets = ", ".join(unknown_sheets) or "?"
        on = "sheet" if len(unknown_sheets) == 1 else "sheets"
        parts.append(
            f"{n:,} by MTGJSON id only, on {on} {sheets}: the MTGJSON file of their set "
            "is not loaded"
        )
    return ", ".join(parts[:limit]) + (", …" if len(parts) > limit else "")


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
    stream = getattr(out, "stream", out) if isinstance(out, Escaped) else out
    return "standard output" if stream is sys.stdout else f"-o {getattr(out, 'name', 'output')}"


def emit(
    data: Any,
    fmt: str = "table",
    *,
    text: Callable[[Any], str] | None = None,
    rows: Callable[[Any], list[dict[str, Any]]] | None = None,
    columns: Sequence[str] | None = None,
    out: TextIO | None = None,
) -> None:
    """Print ``data`` in ``fmt``, a ``formats.RECORDS`` format.

    ``text`` renders the human form (default: a table of ``rows(data)`` or of ``data``);
    ``rows`` flattens data to rows for ``csv``/``table`` (default: ``data`` itself);
    ``jsonl`` writes one element of ``data`` per line.
    """
    out = escaped(out or sys.stdout)
    render = RECORDS.get(fmt).renderer()
    with writing(_name(out)):
        render(data, out, text=text, rows=rows, columns=columns)
        out.flush()


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
    """A line for humans on stderr (progress, summaries, chosen seeds), control characters
    written as escapes."""
    typer.echo(escape_controls(message, one_line=False), err=True)


@contextmanager
def output(path: str | None, binary: str | None = None) -> Iterator[Any]:
    """``-o FILE`` support: a text file opened for writing (and closed after), or stdout.

    An unwritable path is an ``InputError`` naming ``-o``; a write that fails (a full disk)
    is one line naming the output, and a partly written file is removed. ``binary``: the
    name of a binary format (``binary_output``).
    """
    if binary is not None:
        with binary_output(path, binary) as out:
            yield out
        return
    if not path or path == "-":
        with writing("standard output"):
            yield escaped(sys.stdout)
            sys.stdout.flush()
        return
    with _file(path, "w") as out:
        yield escaped(out)


#: Errors of the world when writing (exit 1); any other ``OSError`` of an output path is
#: about the path the user gave (exit 2).
WORLD_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def cannot_write(name: str, exc: OSError) -> BoosterkitError:
    """``exc`` as the one line of an output that cannot be written: a failure of the world
    (a full disk, a file-size limit) or an ``InputError`` (a missing folder, no permission)."""
    kind = BoosterkitError if exc.errno in WORLD_ERRNOS else InputError
    return kind(f"{name}: cannot write: {exc.strerror or exc}")


@contextmanager
def _file(path: str, mode: str) -> Iterator[Any]:
    """``-o FILE`` (text, or binary with ``"b"`` in ``mode``) written whole or not at all
    (``safefiles.WholeFile``): the old file stays until the new one is whole; an unwritable
    path is an ``InputError`` naming ``-o``, a failed write one line."""
    from boosterkit.safefiles import WholeFile

    whole = WholeFile(path)
    try:
        out = whole.open(binary="b" in mode)
    except OSError as exc:
        raise cannot_write(f"-o {path}", exc) from exc
    try:
        with writing(f"-o {path}"):
            yield out
            whole.commit()
    except BaseException:
        whole.discard()
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


@contextmanager
def flags(names: dict[str, str]) -> Iterator[None]:
    """Within the block, a ``BoosterkitError`` about an argument in ``names`` is reworded
    for the command line (``flagged``)."""
    try:
        yield
    except BoosterkitError as exc:
        reworded = flagged(exc, names)
        if reworded is exc:
            raise
        raise reworded from exc


def check_images(registry: Formats, fmt: str, images: bool) -> None:
    """``--images`` with a format of ``registry`` that carries none: an ``InputError``."""
    refused = registry.refuses_images(fmt) if images else None
    if refused:
        carriers = "/".join(registry.image_formats)
        raise InputError(f"--images: {refused} (--format {carriers}, not {fmt})")


def images_note(asked: bool, art: Any) -> None:
    """The stderr line of ``--images`` when none of the cards has an image."""
    if asked and not art:
        from boosterkit.pipeline.queries import NO_IMAGES  # imports DuckDB: only when needed

        echo_err(NO_IMAGES)


def seed_note(seed: int | None, chosen: int) -> None:
    """The stderr line naming the seed chosen when none was given."""
    if seed is None:
        echo_err(f"seed: {chosen} (repeat with --seed {chosen})")
