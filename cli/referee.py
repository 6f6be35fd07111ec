"""``boosterkit play`` and ``simulate``: the referee over a move log, and many games dealt
and played by a policy."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from boosterkit import config
from boosterkit.cli import render
from boosterkit.cli.minigames import read_setup_file, read_text_file
from boosterkit.cli.options import (
    DB,
    GAME_PRODUCT,
    GAME_SET,
    JSON,
    OUTPUT,
    PLAYERS,
    TextFormat,
    fmt_option,
    pick_format,
)
from boosterkit.errors import BoosterkitError

if TYPE_CHECKING:
    from boosterkit.pipeline.db import Connection


class Policy(str, Enum):
    random = "random"
    greedy = "greedy"


def _connect(ctx: typer.Context) -> Connection:
    from boosterkit.pipeline import db

    return db.connect(config.db_path(ctx.obj["db"]), read_only=True)


def play_cmd(
    ctx: typer.Context,
    setup_file: Path = typer.Argument(
        ..., metavar="SETUP", help="A setup JSON file (from `deal --format json`)."
    ),
    moves_file: Path = typer.Argument(
        ..., metavar="MOVES", help="The moves file, one JSON object a line."
    ),
    fmt: TextFormat = fmt_option(TextFormat.text),
    as_json: bool = JSON,
    output: str | None = OUTPUT,
    db_file: Path | None = DB,
) -> None:
    """Replay a game: the state after each move and the result. Exit 0 for a complete legal
    game, 1 at the first illegal move (or a game not over), 2 for bad input."""
    from boosterkit.minigames.referee.runner import read_moves, replay

    setup = read_setup_file(setup_file)
    text = read_text_file(moves_file, "a moves file (a game of 5,000 moves is about 0.5 MB)")
    moves = read_moves(text, str(moves_file))
    con = (
        _connect(ctx) if isinstance(setup, dict) and setup.get("minigame") == "base-race" else None
    )
    try:
        rep = replay(setup, moves, con)
    finally:
        if con is not None:
            con.close()
    with render.output(output) as out:
        render.emit(
            rep.to_dict(), pick_format(fmt, as_json).value, out=out, text=lambda _: rep.text()
        )
    if not rep.complete:
        raise typer.Exit(1)


def simulate_cmd(
    ctx: typer.Context,
    game: str = typer.Argument(
        ..., metavar="GAME", help="roll-for-initiative, base-race or mimic-match."
    ),
    players: int = PLAYERS,
    set_code: str | None = GAME_SET,
    product: str | None = GAME_PRODUCT,
    seed: int = typer.Option(
        ..., "--seed", metavar="SEED", help="Seed of the run; setup i uses (seed, i)."
    ),
    games: int = typer.Option(
        ..., "--games", "-k", metavar="N", help="How many games to deal and play."
    ),
    policy: Policy = typer.Option(Policy.random, "--policy", help="How the players choose."),
    log: Path | None = typer.Option(
        None, "--log", metavar="DIR", help="Write each setup and its moves to this folder."
    ),
    fmt: TextFormat = fmt_option(TextFormat.text),
    as_json: bool = JSON,
    output: str | None = OUTPUT,
    db_file: Path | None = DB,
) -> None:
    """Deal GAMES setups and play each to the end: wins per seat, turns, how games ended."""
    from boosterkit.generator.engine import check_seed
    from boosterkit.minigames.referee.runner import simulate, stats_text

    con = _connect(ctx)
    try:
        stats = simulate(
            con, game, players, set_code, product, check_seed(seed), games, policy.value, log
        )
    except BoosterkitError as exc:
        raise render.flagged(
            exc,
            {
                "players": "--players",
                "set": "--set",
                "games": "--games",
                "log": "--log",
                "game": "GAME",
            },
        ) from exc
    finally:
        con.close()
    with render.output(output) as out:
        render.emit(stats, pick_format(fmt, as_json).value, text=stats_text, out=out)


def register(app: typer.Typer) -> None:
    """Add ``play`` and ``simulate`` to ``app``."""
    app.command("play")(play_cmd)
    app.command("simulate")(simulate_cmd)
