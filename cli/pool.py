"""``boosterkit pool SET``: sealed pools / draft pods, a printable page or deck list per player."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import typer

from boosterkit import config
from boosterkit.cli import render
from boosterkit.cli.options import DB, JSON, SET_ARG, fmt_option, pick_format, product_option
from boosterkit.errors import BoosterkitError, InputError


class PoolFormat(str, Enum):
    text = "text"
    md = "md"
    html = "html"
    json = "json"
    decklist = "decklist"


def _write_dir(directory: str, files: dict[str, str]) -> None:
    """Write every file into ``directory`` (created), or none if the directory is unusable."""
    target = Path(directory)
    try:
        target.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (target / name).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"-o {directory}: cannot write: {exc.strerror or exc}") from exc
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
        fmt: PoolFormat = fmt_option(PoolFormat.text),
        json_: bool = JSON,
        output: str | None = typer.Option(
            None,
            "-o",
            "--output",
            metavar="DIR",
            help="Write one file per player into DIR (one line on stderr says so).",
        ),
        db_file: Path | None = DB,
        images: bool = typer.Option(
            False,
            "--images",
            help="HTML: each card with its Scryfall image (from the database) and artist credit.",
        ),
    ) -> None:
        """Each player's packs as a sorted pool: a printable page per player, or a deck list."""
        from boosterkit.generator import new_seed
        from boosterkit.generator.pools import (
            extension,
            open_pools,
            pool_images,
            render_pool,
            render_pools,
        )
        from boosterkit.pipeline.queries import NO_IMAGES

        fmt = pick_format(fmt, json_)
        if images and fmt is not PoolFormat.html:
            raise InputError(
                f"--images: only HTML pools carry card images (--format html, not {fmt.value})"
            )
        chosen = new_seed() if seed is None else seed
        try:
            data = open_pools(
                set_code, players, packs, product, chosen, db=config.db_path(ctx.obj["db"])
            )
        except BoosterkitError as exc:
            raise render.flagged(exc, {"players": "--players", "packs": "--packs"}) from exc
        if seed is None:
            render.echo_err(f"seed: {chosen} (repeat with --seed {chosen})")
        art = pool_images(config.db_path(ctx.obj["db"]), data) if images else None
        if images and not art:
            render.echo_err(NO_IMAGES)
        if output:
            _write_dir(
                output,
                {
                    f"pool-{p['player']}.{extension(fmt.value)}": render_pool(
                        data, p, fmt.value, art
                    )
                    for p in data["pools"]
                },
            )
            return
        typer.echo(render_pools(data, fmt.value, art), nl=False)
