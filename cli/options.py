"""The options every command spells the same way: ``--db``, ``--format``/``-f``, ``--json``,
``-o``/``--output``, and the metavars of their help (SET, GAME, FILE, N, SEED).

``--db FILE`` is accepted before the command (``boosterkit --db X open afr``) and after it
(``boosterkit open afr --db X``): both land in ``ctx.obj["db"]``, which command bodies and the
root group's storage-error guard read. The later one wins.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from typer.core import TyperGroup

if TYPE_CHECKING:
    # What click hands a group's parse_args and invoke: its own Context (typer vendors click
    # and names it nowhere else); commands are given the typer.Context subclass.
    from typer._click import Context as ClickContext

E = TypeVar("E", bound=Enum)

DB_HELP = (
    "Database file (default: $BOOSTERKIT_DB, else the user data dir); before or after the command."
)


class HelpGroup(TyperGroup):
    """A command group that, run bare, prints its help and exits 0 (click's exits 2)."""

    def parse_args(self, ctx: ClickContext, args: list[str]) -> list[str]:
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            typer.echo(ctx.get_help())
            ctx.exit(0)
        return super().parse_args(ctx, args)


def _set_db(ctx: typer.Context, value: Path | None) -> Path | None:
    if value is not None and not ctx.resilient_parsing:
        ctx.ensure_object(dict)["db"] = value
    return value


#: ``--db FILE`` after the command; pass ``db: Path | None = DB`` and read ``ctx.obj["db"]``.
DB: Any = typer.Option(None, "--db", metavar="FILE", callback=_set_db, help=DB_HELP)

#: ``--json``: the same as ``--format json`` (the library's return value, as JSON).
JSON: Any = typer.Option(False, "--json", help="Same as --format json.")

#: ``-o FILE``: write the output there instead of stdout; one line on stderr says so.
OUTPUT: Any = typer.Option(
    None,
    "-o",
    "--output",
    metavar="FILE",
    help="Write to FILE instead of stdout (one line on stderr says so).",
)


def fmt_option(default: Enum) -> Any:
    """``--format``/``-f`` with the choices of ``default``'s enum."""
    return typer.Option(default, "--format", "-f", help="Output format.")


def pick_format(fmt: E, json_: bool) -> E:
    """``fmt``, or its enum's ``json`` member when ``--json`` was given."""
    return type(fmt)("json") if json_ else fmt


class TextFormat(str, Enum):
    """``--format`` of commands whose data is one record: a summary, a verdict, a replay."""

    text = "text"
    json = "json"


#: The ``SET`` argument of the commands about one set's products (``open``, ``odds``, ``pool``,
#: ``products``).
SET_ARG: Any = typer.Argument(..., metavar="SET", help="Set code (case-insensitive), e.g. afr.")


def product_option(default_help: str) -> Any:
    """``--product``/``-p`` of the commands that open packs; ``default_help`` says the default."""
    return typer.Option(
        None,
        "--product",
        "-p",
        metavar="PRODUCT",
        help=f"Kind (draft, set, collector, …) or code (afr-set). {default_help}",
    )


#: ``--players``/``-n`` of the commands that deal a minigame (``deal``, ``simulate``).
PLAYERS: Any = typer.Option(..., "--players", "-n", metavar="N", help="Number of players.")

#: ``--set`` of the commands that deal a minigame.
GAME_SET: Any = typer.Option(
    None,
    "--set",
    metavar="SET",
    help="Set code. Default: a set the game was printed for, if loaded.",
)

#: ``--product``/``-p`` of the commands that deal a minigame.
GAME_PRODUCT: Any = typer.Option(
    None,
    "--product",
    "-p",
    metavar="PRODUCT",
    help="Product kind or code. Default: the game's (set).",
)
