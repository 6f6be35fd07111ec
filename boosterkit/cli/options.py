"""The options every command spells the same way: ``--db``, ``--format``/``-f``, ``--json``,
``-o``/``--output``, and the metavars of their help (SET, GAME, FILE, N, SEED).

``--db FILE`` is accepted before the command (``boosterkit --db X open afr``) and after it
(``boosterkit open afr --db X``; the root group adds it to every command, ``accept_db``):
either makes ``ctx.obj``, the one ``boosterkit.database.Database`` handle command bodies pass
to the library and the root group's storage-error guard names. The later one wins.

``--format`` choices are built from the output registries (``boosterkit.formats``): a format
registered there is offered by the commands of its kind.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import typer
from typer._click.exceptions import UsageError  # typer vendors click and does not export it
from typer.core import TyperGroup

from boosterkit.formats import FRAMES, PACKS, POOLS, RECORDS, SHEETS, literal

if TYPE_CHECKING:
    # What click hands a group's parse_args and invoke: its own Context (typer vendors click
    # and names it nowhere else); commands are given the typer.Context subclass.
    from typer._click import Command, Parameter
    from typer._click import Context as ClickContext

    # ``--format`` values are plain strings: the choices below, checked by typer.
    RecordFormat: TypeAlias = str
    TextFormat: TypeAlias = str
    PackFormat: TypeAlias = str
    OddsFormat: TypeAlias = str
    SheetFormat: TypeAlias = str
    PoolFormat: TypeAlias = str
else:
    #: Listings (``sets``, ``cards``, ``products``, ``minigames``): every record format.
    RecordFormat = literal(RECORDS.names)
    #: One record (a summary, a verdict, a replay, statistics): its text or its JSON.
    TextFormat = literal(RECORDS.only("text", "json"))
    #: ``open``: the pack formats, then the frame formats.
    PackFormat = literal(PACKS.names + FRAMES.names)
    #: ``odds``: its tables first, then every record format, then the frame formats.
    OddsFormat = literal(RECORDS.ordered("table", "text") + FRAMES.names)
    #: ``deal``: the sheet formats, and the setup itself as JSON.
    SheetFormat = literal((*SHEETS.names, "json"))
    #: ``pool``: the pool formats.
    PoolFormat = literal(POOLS.names)

DB_HELP = (
    "Database file (default: $BOOSTERKIT_DB, else the user data dir, else the bundled "
    "sample; :sample: asks for it); before or after the command."
)


class HelpGroup(TyperGroup):
    """A command group that, run bare, prints its help and exits 0 (click's exits 2); an
    unknown command is one line with the nearest ones."""

    def parse_args(self, ctx: ClickContext, args: list[str]) -> list[str]:
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            typer.echo(ctx.get_help())
            ctx.exit(0)
        return super().parse_args(ctx, args)

    def resolve_command(self, ctx: ClickContext, args: list[str]) -> Any:
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            from boosterkit.suggest import unknown

            names = [(c, c) for c in self.list_commands(ctx)]
            listing = f"all commands: `{ctx.command_path} --help`"
            raise OneLineUsage(unknown("command", name, names, listing))
        return super().resolve_command(ctx, args)


def usage_line(exc: Exception) -> OneLineUsage:
    """A usage error (a missing option, a value of the wrong type) as one line naming the
    help to read, instead of click's usage block."""
    ctx = getattr(exc, "ctx", None)
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    where = f" (`{ctx.command_path} --help` says more)" if ctx is not None else ""
    return OneLineUsage(f"{message}{where}")


def database(db: Path | None) -> Any:
    """The handle of ``--db`` (None: the configured database, resolved on first use); a
    command that reads the bundled sample for want of a database says so on stderr."""
    from boosterkit.database import Database

    return Database(db, notice=_notice)


def _notice(message: str) -> None:
    typer.echo(f"boosterkit: {message}", err=True)


def _set_db(ctx: ClickContext, param: Parameter, value: Path | None) -> Path | None:
    """``--db`` after the command: its handle replaces the root's, on every context (the
    root group's guard reads its own)."""
    if value is not None and not ctx.resilient_parsing:
        handle, at = database(value), ctx
        while True:
            at.obj = handle
            if at.parent is None:
                break
            at = at.parent
    return value


def accept_db(command: Command, template: Parameter) -> None:
    """Give ``command`` (and every command below it) the root's ``--db`` option, which sets
    ``ctx.obj`` rather than being passed to the command's function."""
    subcommands = getattr(command, "commands", None)
    if subcommands is not None:
        for sub in subcommands.values():
            accept_db(sub, template)
        return
    if not any(p.name == template.name for p in command.params):
        option = copy.copy(template)
        option.callback, option.expose_value = _set_db, False
        command.params.append(option)


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


def fmt_option(default: str) -> Any:
    """``--format``/``-f``, the choices those of the parameter's annotation (above)."""
    return typer.Option(default, "--format", "-f", help="Output format.")


class OneLineUsage(UsageError):
    """A usage error (exit 2) shown as one line, ``boosterkit: error: …``, instead of click's
    usage block; a click exception, so any click runner sees exit 2 too."""

    def show(self, file: Any = None) -> None:
        from boosterkit.errors import escape_controls

        typer.echo(f"boosterkit: error: {escape_controls(self.format_message())}", err=True)


def unknown_choice(exc: typer.BadParameter) -> OneLineUsage | None:
    """A value outside an option's choices (``-f jsn``, ``--lang de``) as one line with the
    nearest choice: ``unknown format 'jsn' — did you mean json? (choices of --format: …)``;
    None for any other bad parameter (click's own message stands)."""
    from boosterkit.suggest import unknown

    param = exc.param
    described = getattr(param, "type_descriptor", None)
    errors = getattr(exc.__cause__, "errors", None)
    if param is None or described is None or not described.is_choice or errors is None:
        return None
    value = str(errors()[0].get("input", ""))
    choices = [str(getattr(c, "value", c)) for c in described.choices]
    opt = max(param.opts, key=len)
    what = "format" if opt == "--format" else f"value of {opt}"
    listing = f"choices of {opt}: {', '.join(choices)}"
    return OneLineUsage(unknown(what, value, [(c, c) for c in choices], listing))


def pick_format(fmt: str, json_: bool) -> str:
    """``fmt``, or ``json`` when ``--json`` was given."""
    return "json" if json_ else fmt


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


def _cap_jobs(ctx: typer.Context, value: int) -> int:
    """``--jobs`` past the cores this process may run on: the cores, in one stderr line."""
    if ctx.resilient_parsing or value is None:
        return value
    from boosterkit.jobs import cap_jobs

    capped, note = cap_jobs(value)
    if note is not None:
        typer.echo(note, err=True)
    return capped


def jobs_option(what: str) -> Any:
    """``--jobs N`` of the commands whose work splits across processes (at most the cores:
    ``jobs.cap_jobs``); ``what`` says what each worker does and that the output does not
    change."""
    return typer.Option(
        1,
        "--jobs",
        min=0,
        metavar="N",
        callback=_cap_jobs,
        help=f"Worker processes (0: one per core; at most the cores) {what}",
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
