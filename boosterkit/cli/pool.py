"""``boosterkit pool``: sealed pools for an event, a printable page, deck list or registration
sheet per player; ``boosterkit pool check DECK``: a registered deck against its pool.

``pool`` is a group whose own command makes the pools (``pool afr -n 8``): any first word
that is not a subcommand is that command's (``PoolGroup``); ``pool check`` is the one
subcommand. The check is in ``cli/event.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from typer._click import Context as ClickContext  # typer vendors click
from typer.core import TyperCommand

from boosterkit.cli import render
from boosterkit.cli.options import JSON, HelpGroup, PoolFormat, fmt_option, pick_format
from boosterkit.formats import POOLS

if TYPE_CHECKING:
    from typer._click import Command

#: The hidden name of ``pool``'s own command (``pool make afr`` is ``pool afr``).
OWN = "make"
HELP = (
    "Each player's packs as a sorted pool: a printable page, a deck list or a deck "
    "registration sheet per player (also PDF); `pool check` checks a registered deck."
)


class _Unnamed(ClickContext):
    """The context of ``pool``'s own command: it is named ``boosterkit pool``."""

    @property
    def command_path(self) -> str:
        return str(super().command_path).rstrip()


class PoolCommand(TyperCommand):
    """``pool``'s own command (``_Unnamed``'s context when run as ``pool``)."""

    context_class = _Unnamed


class PoolGroup(HelpGroup):
    """``pool``: a subcommand when the first word names one (``check``), else its own
    command with every word (``pool afr -n 8``, ``pool --help``)."""

    #: Its own command's name (``cli/reference.py`` documents the group as a command too).
    own_command = OWN

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] in self.commands:
            return super().parse_args(ctx, args)
        # click's Group.invoke reads the subcommand from these (typer pins its click)
        ctx._protected_args, ctx.args = [f"\0{OWN}"], list(args)
        return list(ctx.args)

    def resolve_command(
        self, ctx: Any, args: list[str]
    ) -> tuple[str | None, Command | None, list[str]]:
        if args and args[0] == f"\0{OWN}":
            return None, self.commands[OWN], args[1:]
        resolved: tuple[str | None, Command | None, list[str]] = super().resolve_command(ctx, args)
        return resolved


def _write_dir(directory: str, files: dict[str, str | bytes]) -> None:
    """Write every file into ``directory`` (created), or none (``safefiles.write_all``)."""
    from boosterkit.safefiles import write_all

    target = Path(directory)
    try:
        write_all(
            target,
            {n: t.encode("utf-8") if isinstance(t, str) else t for n, t in files.items()},
        )
    except OSError as exc:
        name = Path(exc.filename).name if exc.filename else ""
        where = f" ({name})" if name in files else ""
        raise render.cannot_write(f"-o {directory}{where}", exc) from exc
    render.echo_err(f"wrote {len(files)} files to {target}: {', '.join(files)}")


def _write(data: dict[str, Any], fmt: str, art: Any, output: str | None, paper: str) -> None:
    """The pools in ``fmt``: one document on stdout (a binary one to ``-o FILE`` or a pipe),
    or with ``-o DIR`` (a text format) one file per player."""
    from boosterkit.generator.pools import render_bytes, render_pool, render_pools

    found = POOLS.get(fmt)
    if found.binary and output and not output.endswith(f".{found.extension}"):
        files = {f"pool-{p['player']}.{found.extension}": render_bytes(data, fmt, art, p, paper=paper)
                 for p in data["pools"]}  # fmt: skip
        _write_dir(output, dict(files))
    elif found.binary:
        document = render_bytes(data, fmt, art, paper=paper)
        with render.output(output, fmt) as out:
            out.write(document)
    elif output:
        name = f"pool-{{}}.{found.extension}"
        _write_dir(output, {name.format(p["player"]): render_pool(data, p, fmt, art)
                            for p in data["pools"]})  # fmt: skip
    else:
        with render.output(None) as out:
            out.write(render_pools(data, fmt, art))


def _open(
    ctx: typer.Context, set_code: str | None, players: int, packs: str, options: dict[str, Any]
) -> dict[str, Any]:
    """The event's pools (``events.pools_or_event``)."""
    from boosterkit.generator.events import event_spec, pools_or_event

    plain = not (options["chaos"] or options["duplicate"] or options["only_pack"])
    with render.flags({"players": "--players", "packs": "--packs", "set": "SET",
                       "chaos": "--chaos", "only_pack": "--only-pack"}):  # fmt: skip
        event = event_spec(set_code, packs, options["product"], chaos=options["chaos"],
                           duplicate=options["duplicate"], only_pack=options["only_pack"])  # fmt: skip
        plain = plain and packs.strip().isdigit() and bool(set_code)
        return pools_or_event(ctx.obj, event, players, options["seed"], plain=plain)


SET_OPTION: Any = typer.Argument(
    None, metavar="SET", help="Set code (case-insensitive), e.g. afr; or give --packs SET:N,…"
)
PLAYERS_OPTION: Any = typer.Option(
    ..., "--players", "-n", metavar="N", help="Number of players (1 to 64)."
)
PACKS_OPTION: Any = typer.Option(
    "6",
    "--packs",
    metavar="N|SPEC",
    help="Packs per player (1 to 36): 6 sealed, 3 draft; or a mix of sets and products, "
    "afr:3,stx:3 or afr/set:2,afr:4 (a sealed product too: 'afr/prerelease pack:1').",
)
PRODUCT_OPTION: Any = typer.Option(
    None,
    "--product",
    "-p",
    metavar="PRODUCT",
    help="Kind (draft, set, collector, …) or code (afr-set). Default: as `open`.",
)
CHAOS_OPTION: Any = typer.Option(
    None,
    "--chaos",
    metavar="SETS",
    help="Chaos: each pack's set drawn from these (afr,stx,khm), --packs N of them.",
)
DUPLICATE_OPTION: Any = typer.Option(
    False, "--duplicate", help="Duplicate sealed: every player gets the same pool."
)
ONLY_PACK_OPTION: Any = typer.Option(
    None,
    "--only-pack",
    metavar="N",
    help="A league's week: print only pack N of each pool (its earlier packs are those "
    "of the weeks before).",
)
SEED_OPTION: Any = typer.Option(
    None, "--seed", metavar="SEED", help="Event seed. Default: a random one, printed on stderr."
)
OUTPUT_OPTION: Any = typer.Option(
    None,
    "-o",
    "--output",
    metavar="DIR",
    help="Write one file per player into DIR (one line on stderr says so); a PDF format: "
    "one FILE.pdf, or a file per player into DIR.",
)
IMAGES_OPTION: Any = typer.Option(
    False,
    "--images",
    help="HTML: each card with its Scryfall image (from the database) and artist credit.",
)
PAPER_OPTION: Any = typer.Option("a4", "--paper", metavar="a4|letter", help="PDF paper size.")
EVENT_OPTION: Any = typer.Option(
    None, "--event", metavar="NAME", help="The event's name, printed on registration sheets."
)


def pool_cmd(
    ctx: typer.Context,
    set_code: str | None = SET_OPTION,
    players: int = PLAYERS_OPTION,
    packs: str = PACKS_OPTION,
    product: str | None = PRODUCT_OPTION,
    chaos: str | None = CHAOS_OPTION,
    duplicate: bool = DUPLICATE_OPTION,
    only_pack: int | None = ONLY_PACK_OPTION,
    seed: int | None = SEED_OPTION,
    fmt: PoolFormat = fmt_option("text"),
    json_: bool = JSON,
    output: str | None = OUTPUT_OPTION,
    images: bool = IMAGES_OPTION,
    paper: str = PAPER_OPTION,
    event: str | None = EVENT_OPTION,
) -> None:
    """Each player's packs as a sorted pool: a printable page, a deck list or a deck
    registration sheet per player (also PDF). `boosterkit pool check DECK` checks a
    registered deck against its pool."""
    from boosterkit.generator import new_seed
    from boosterkit.generator.decks import left_out
    from boosterkit.generator.pools import pool_images
    from boosterkit.pdf import check_paper

    fmt, chosen = pick_format(fmt, json_), new_seed() if seed is None else seed
    render.check_images(POOLS, fmt, images)
    with render.flags({"paper": "--paper"}):
        paper = check_paper(paper)
    options = {"product": product, "seed": chosen, "chaos": chaos, "duplicate": duplicate,
               "only_pack": only_pack}  # fmt: skip
    data = _open(ctx, set_code, players, packs, options)
    if event:
        data = {**data, "event": event}
    render.seed_note(seed, chosen)
    art = pool_images(ctx.obj, data) if images else None
    render.images_note(images, art)
    _write(data, fmt, art, output, paper)
    if note := left_out(data, fmt):  # after the output: a refused format says nothing else
        render.echo_err(note)


def register(app: typer.Typer) -> None:
    """Add ``pool`` (and ``pool check``) to ``app``."""
    from boosterkit.cli.event import check_cmd

    group = typer.Typer(
        name="pool", help=HELP, cls=PoolGroup, no_args_is_help=False, rich_markup_mode=None
    )
    group.command(OWN, hidden=True, cls=PoolCommand)(pool_cmd)
    group.command("check")(check_cmd)
    app.add_typer(group, name="pool")
