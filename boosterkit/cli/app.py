"""The ``boosterkit`` command: a thin typer layer over the library.

Each command module in ``cli/`` defines ``register(app)``; ``COMMAND_MODULES`` lists them.
A command body calls one library function with the database handle ``ctx.obj`` (a
``boosterkit.database.Database``, made once from ``--db``) and hands the result to
``cli.render``. ``BoosterkitError`` becomes one line on stderr and a non-zero exit; so do
storage failures of the database (a damaged file, a full disk, a ``ulimit -f`` limit), which
``Guarded`` turns into ``DatabaseError`` naming the ``--db`` file wherever a command hits them.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from typer._click.exceptions import UsageError  # typer vendors click and does not export it

from boosterkit import __version__
from boosterkit.cli.coerce import quicken
from boosterkit.cli.options import (
    DB_HELP,
    HelpGroup,
    accept_db,
    database,
    unknown_choice,
    usage_line,
)

if TYPE_CHECKING:
    from typer._click import Context as ClickContext  # see cli/options.py HelpGroup
from boosterkit.errors import BoosterkitError, escape_controls

#: One registration line per command module (a new command group touches only its own file):
#: the module, and the top-level commands its ``register`` adds (``tests/test_cli_coerce.py``
#: checks they are these). ``main`` registers only the module of the command it runs.
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "sync": ("sync",),
    "browse": ("sets", "cards", "db"),
    "imports": ("import",),
    "products": ("products",),
    "packs": ("open",),
    "minigames": ("minigames", "deal", "validate"),
    "serve": ("serve",),
    "referee": ("play", "simulate"),
    "odds": ("odds",),
    "pool": ("pool",),
}


class Guarded(HelpGroup):
    """The root command group: every command accepts ``--db`` after it too, storage
    failures of any command become one-line errors, and option values are coerced without
    pydantic where they can be (``cli.coerce``)."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        db = next(p for p in self.params if p.name == "db")
        for command in self.commands.values():
            accept_db(command, db)
        quicken(self)

    def invoke(self, ctx: ClickContext) -> object:
        try:
            return super().invoke(ctx)
        except BoosterkitError as exc:
            exc.verbose = bool(ctx.params.get("verbose"))  # main() prints the detail then
            raise
        except typer.BadParameter as exc:
            raise unknown_choice(exc) or usage_line(exc) from None
        except UsageError as exc:
            raise usage_line(exc) from None
        except Exception as exc:
            if not isinstance(exc, (OSError, MemoryError)) and "duckdb" not in sys.modules:
                raise  # --help's exit, a usage error: not a storage failure (keep start-up lazy)
            from boosterkit import config
            from boosterkit.pipeline.db import guarded

            handle = ctx.obj
            with guarded((handle.named() if handle is not None else None) or config.db_path()):
                raise


def _version(value: bool) -> None:
    if value:
        typer.echo(f"boosterkit {__version__}")
        raise typer.Exit()


def root(
    ctx: typer.Context,
    db: Path | None = typer.Option(None, "--db", metavar="FILE", help=DB_HELP),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
    verbose: bool = typer.Option(
        False,
        "--verbose",
        envvar="BOOSTERKIT_VERBOSE",
        help="After an error's line, what the library below said (a network error's detail).",
    ),
) -> None:
    """Realistic, seeded Magic booster packs, dealt into the Set Booster minigames."""
    ctx.obj = database(db)


def make_app(modules: Iterable[str] = COMMAND_MODULES) -> typer.Typer:
    """The ``boosterkit`` command with the commands of ``modules`` (default: all)."""
    made = typer.Typer(
        cls=Guarded,
        name="boosterkit",
        help="Realistic, seeded Magic booster packs from Scryfall/MTGJSON data, dealt into "
        "minigames.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,  # plain click help: importing rich costs more than typer itself
    )
    made.callback()(root)
    for name in modules:
        importlib.import_module(f"boosterkit.cli.{name}").register(made)
    return made


def command_module(argv: list[str]) -> str | None:
    """The module of the command ``argv`` runs (None: the root's help, an unknown command):
    the first word that is neither a root option nor ``--db``'s value."""
    words = iter(argv)
    for word in words:
        if word == "--db":
            next(words, None)
        elif not word.startswith("-"):
            return next((m for m, names in COMMAND_MODULES.items() if word in names), None)
    return None


@functools.cache
def full_app() -> typer.Typer:
    """The command with every command module (made once)."""
    return make_app()


def __getattr__(name: str) -> Any:
    """``app`` is ``full_app()``, made on first use: ``main`` makes only the command it runs
    (importing every command module and building their options cost 35-45 ms a run)."""
    if name == "app":
        return full_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Console entry point: typer handles usage errors; user errors become one line."""
    _degrade_output()
    _check_flags_in_environment()
    module = command_module(sys.argv[1:])
    command = make_app([module]) if module else full_app()
    try:
        # standalone mode: usage errors print a short message and exit 2; the name is the
        # console script's also under `python -m` (help and errors say `boosterkit`)
        command(prog_name="boosterkit")
    except BoosterkitError as exc:
        typer.echo(f"boosterkit: error: {escape_controls(str(exc))}", err=True)
        if exc.detail and getattr(exc, "verbose", False):
            typer.echo(f"boosterkit: detail: {escape_controls(str(exc.detail))}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        _interrupted()
    except RuntimeError as exc:
        if str(exc) != DUCKDB_INTERRUPTED:
            raise
        _interrupted()


#: What a boolean environment variable may say (click's words, any case; empty: unset).
BOOLEAN_WORDS = frozenset({"", "1", "0", "true", "false", "t", "f", "yes", "no", "y", "n",
                           "on", "off"})  # fmt: skip


def _check_flags_in_environment() -> None:
    """``BOOSTERKIT_VERBOSE=maybe`` is one line and exit 2, not click's usage block."""
    raw = os.environ.get("BOOSTERKIT_VERBOSE")
    if raw is not None and raw.strip().lower() not in BOOLEAN_WORDS:
        typer.echo(
            f"boosterkit: error: BOOSTERKIT_VERBOSE={escape_controls(raw)[:40]!r}: expected "
            "1 or 0 (or true/false, yes/no, on/off)",
            err=True,
        )
        sys.exit(2)


def _degrade_output() -> None:
    """On a terminal or pipe whose encoding cannot hold every character (``LANG=C``,
    ``PYTHONIOENCODING=ascii``), write those it cannot as escapes (``—`` as ``\\u2014``)
    rather than fail; stderr does so already."""
    stream = sys.stdout
    if getattr(stream, "errors", "strict") == "strict" and hasattr(stream, "reconfigure"):
        stream.reconfigure(errors="backslashreplace")


#: What DuckDB raises (a ``RuntimeError``) when Ctrl-C comes during one of its statements.
DUCKDB_INTERRUPTED = "Query interrupted"


def _interrupted() -> None:
    typer.echo("Interrupted.", err=True)
    sys.exit(130)


if __name__ == "__main__":
    main()
