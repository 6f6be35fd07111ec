"""``boosterkit pool SET``: sealed pools / draft pods, a printable page or deck list per player."""

from __future__ import annotations

from pathlib import Path

import typer

from boosterkit.cli import render
from boosterkit.cli.options import (
    JSON,
    SET_ARG,
    PoolFormat,
    fmt_option,
    pick_format,
    product_option,
)
from boosterkit.formats import POOLS


def _write_dir(directory: str, files: dict[str, str]) -> None:
    """Write every file into ``directory`` (created), or none (``safefiles.write_all``)."""
    from boosterkit.safefiles import write_all

    target = Path(directory)
    try:
        write_all(target, {name: text.encode("utf-8") for name, text in files.items()})
    except OSError as exc:
        name = Path(exc.filename).name if exc.filename else ""
        where = f" ({name})" if name in files else ""
        raise render.cannot_write(f"-o {directory}{where}", exc) from exc
    render.echo_err(f"wrote {len(files)} files to {target}: {', '.join(files)}")


def register(app: typer.Typer) -> None:
    """Add ``pool`` to ``app``."""

    @app.command("pool")
    def pool_cmd(
        ctx: typer.Context,
        set_code: str = SET_ARG,
        players: int = typer.Option(
            ..., "--players", "-n", metavar="N", help="Number of players (1 to 64)."
        ),
        packs: int = typer.Option(
            6, "--packs", metavar="N", help="Packs per player (1 to 36): 6 sealed, 3 draft."
        ),
        product: str | None = product_option("Default: as `open`."),
        seed: int | None = typer.Option(
            None,
            "--seed",
            metavar="SEED",
            help="Event seed. Default: a random one, printed on stderr.",
        ),
        fmt: PoolFormat = fmt_option("text"),
        json_: bool = JSON,
        output: str | None = typer.Option(
            None,
            "-o",
            "--output",
            metavar="DIR",
            help="Write one file per player into DIR (one line on stderr says so).",
        ),
        images: bool = typer.Option(
            False,
            "--images",
            help="HTML: each card with its Scryfall image (from the database) and artist credit.",
        ),
    ) -> None:
        """Each player's packs as a sorted pool: a printable page per player, or a deck list."""
        from boosterkit.generator import new_seed
        from boosterkit.generator.decks import left_out
        from boosterkit.generator.pools import open_pools, pool_images, render_pool, render_pools

        fmt, chosen = pick_format(fmt, json_), new_seed() if seed is None else seed
        render.check_images(POOLS, fmt, images)
        with render.flags({"players": "--players", "packs": "--packs"}):
            data = open_pools(set_code, players, packs, product, chosen, db=ctx.obj)
        render.seed_note(seed, chosen)
        art = pool_images(ctx.obj, data) if images else None
        render.images_note(images, art)
        if output:
            name = f"pool-{{}}.{POOLS.get(fmt).extension}"
            _write_dir(
                output,
                {name.format(p["player"]): render_pool(data, p, fmt, art) for p in data["pools"]},
            )
        else:
            with render.output(None) as out:
                out.write(render_pools(data, fmt, art))
        if note := left_out(data, fmt):  # after the output: a refused format says nothing else
            render.echo_err(note)
