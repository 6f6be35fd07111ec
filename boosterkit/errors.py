"""Errors a user can fix. The CLI prints them as one line and exits non-zero; no traceback."""

from __future__ import annotations


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
