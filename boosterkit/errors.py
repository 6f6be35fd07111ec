"""Errors a user can fix. The CLI prints them as one line and exits non-zero; no traceback."""

from __future__ import annotations

import re
import sys

#: Characters a terminal may act on (C0 but tab, newline and form feed, DEL, C1), and those
#: that reorder or hide text (line/paragraph separators, bidi marks, overrides and isolates).
_TERMINAL = r"\x00-\x08\x0b\x0d-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069"
_IN_TEXT = re.compile(f"[{_TERMINAL}]")
#: Any control character, tab, newline and form feed included (none is part of a name or
#: of a line).
CONTROL_CHARS = re.compile(f"[{_TERMINAL}\\t\\n\\f]")
#: The most digits Python converts an integer of (``sys.int_info``; json.loads refuses more).
INT_DIGITS: int = getattr(sys.int_info, "default_max_str_digits", 4300)


class BoosterkitError(Exception):
    """Base class for user-facing errors: the message says what and where.

    ``field``: the argument the error is about, by its library/API name (``players``,
    ``set``), so a front end can name its own spelling of it (the CLI's ``--players``).
    """

    #: 1: a failure of the world (network, disk, a database that cannot be read, a setup that
    #: breaks a rule); 2: a usage or input error (docs/exit-codes.md).
    exit_code: int = 1

    def __init__(self, *args: object, field: str | None = None, detail: str | None = None) -> None:
        super().__init__(*args)
        self.field = field
        #: What a library below said (the urllib3 chain of a network error): shown only with
        #: ``boosterkit --verbose``.
        self.detail = detail
        #: Set by the CLI under ``--verbose``: print ``detail`` after the line.
        self.verbose = False


class InputError(BoosterkitError):
    """A file or argument given by the user is unreadable, malformed or of the wrong shape."""

    exit_code = 2


class OutOfMemory(BoosterkitError):
    """The machine ran out of memory for a piece of work: a failure of the world (exit 1),
    not of the file or the request."""


class NotFoundError(BoosterkitError):
    """An unknown set, product, minigame or card: an input error (exit 2), answered with the
    nearest names (``boosterkit.suggest``)."""

    exit_code = 2


class FetchError(BoosterkitError):
    """An HTTP error that persisted after retries, or a Scryfall error object."""


class TransientError(FetchError):
    """An upstream that failed for now: its retries or its deadline spent (5xx, stalls…)."""


class UnreachableError(TransientError):
    """A host that cannot be reached at all (no network, a name that does not resolve, no
    connection after retries): one line naming the host and what to do instead."""


def one_line(exc: BaseException, limit: int = 300) -> str:
    """``exc``'s message on one line (whitespace runs folded), at most ``limit`` characters;
    its type's name when it has none. For wrapping a library's error in a user-facing one."""
    return " ".join(str(exc).split())[:limit] or type(exc).__name__


def escape_controls(text: str, one_line: bool = True) -> str:
    """``text`` with every control character (``\\x1b``, ``\\x9b``, …) written as its escape,
    so text read from input (a uid, a zone name) never reaches a terminal as a command;
    ``one_line``: tabs, newlines and form feeds too (an error stays one line); else they
    stay (a form feed is the page break between the pools of ``pool``'s text)."""
    pattern = CONTROL_CHARS if one_line else _IN_TEXT
    return pattern.sub(lambda m: repr(m.group())[1:-1], text)


def warn(message: str) -> None:
    """One line on stderr, ``boosterkit: warning: …``: something was wrong and was dealt
    with (a damaged cache, rebuilt). It goes through the ``boosterkit`` logger, which with no
    logging set up Python prints as is; an application's own logging set-up gets it."""
    import logging

    logging.getLogger("boosterkit").warning("boosterkit: warning: %s", escape_controls(message))


def json_reason(exc: BaseException) -> str:
    """Why ``json.loads`` refused a text, in words: the JSON error, an integer too long
    to convert, nesting too deep or bytes that are not UTF-8."""
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply"
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8"
    if isinstance(exc, ValueError) and "integer string conversion" in str(exc):
        return f"an integer of more than {INT_DIGITS:,} digits"
    return one_line(exc)
