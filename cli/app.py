"""The ``boosterkit`` command: a thin typer layer over the library.

Each command module in ``cli/`` defines ``register(app)``; ``COMMAND_MODULES`` lists them.
A command body calls one library function with the database handle ``ctx.obj`` (a
``boosterkit.database.Database``, made once from ``--db``) and hands the result to
``cli.render``. ``BoosterkitError`` becomes one line on stderr and a non-zero exit; so do
storage failures of the database (a damaged file, a full disk, a ``ulimit -f`` limit), which
``Guarded`` turns into ``DatabaseError`` naming the ``--db`` file wherever a command hits them.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from boosterkit import __version__
from boosterkit.cli.options import DB_HELP, HelpGroup, accept_db, database

if TYPE_CHECKING:
    from typer._click import Context as ClickContext  # see cli/options.py HelpGroup
from boosterkit.errors import BoosterkitError, escape_controls

#: One registration line per command module (a new command group touches only its own file).
COMMAND_MODULES = [
    "sync",
    "browse",
    "imports",
    "products",
    "packs",
    "minigames",
    "serve",
    "referee",
    "odds",
    "pool",
]


class Guarded(HelpGroup):
    """The root command group: every command accepts ``--db`` after it too, and storage
    failures of any command become one-line errors."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        db = next(p for p in self.params if p.name == "db")
        for command in self.commands.values():
            accept_db(command, db)

    def invoke(self, ctx: ClickContext) -> object:
        try:
            return super().invoke(ctx)
        except BoosterkitError:
            raise
        except Exception as exc:
            if not isinstance(exc, OSError) and "duckdb" not in sys.modules:
                raise  # --help's exit, a usage error: not a storage failure (keep start-up lazy)
            from boosterkit import config
            from boosterkit.pipeline.db import guarded

            handle = ctx.obj
            with guarded((handle.path if handle is not None else None) or config.db_path()):
                raise


app = typer.Typer(
    cls=Guarded,
    name="boosterkit",
    help="Realistic, seeded Magic booster packs from Scryfall/MTGJSON data, dealt into minigames.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain click help: importing rich costs more than typer itself
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"boosterkit {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    db: Path | None = typer.Option(None, "--db", metavar="FILE", help=DB_HELP),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """Realistic, seeded Magic booster packs, dealt into the Set Booster minigames."""
    ctx.obj = database(db)


for _name in COMMAND_MODULES:
    importlib.import_module(f"boosterkit.cli.{_name}").register(app)


def main() -> None:
    """Console entry point: typer handles usage errors; user errors become one line."""
    try:
        # standalone mode: usage errors print a short message and exit 2; the name is the
        # console script's also under `python -m` (help and errors say `boosterkit`)
        app(prog_name="boosterkit")
    except BoosterkitError as exc:
        typer.echo(f"boosterkit: error: {escape_controls(str(exc))}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        typer.echo("Interrupted.", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
