"""``boosterkit play`` and ``simulate``: the referee over a move log, and many games dealt
and played by a policy."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import typer

from boosterkit.cli import render
from boosterkit.cli.minigames import load_setup_json, read_text_file
from boosterkit.cli.options import (
    GAME_PRODUCT,
    GAME_SET,
    JSON,
    OUTPUT,
    PLAYERS,
    TextFormat,
    fmt_option,
    jobs_option,
    pick_format,
)
from boosterkit.errors import escape_controls


class Policy(str, Enum):
    random = "random"
    greedy = "greedy"


def play_cmd(
    ctx: typer.Context,
    setup_file: Path = typer.Argument(
        ..., metavar="SETUP", help="A setup JSON file (from `deal --format json`)."
    ),
    moves_file: Path = typer.Argument(
        ..., metavar="MOVES", help="The moves file, one JSON object a line."
    ),
    states: bool = typer.Option(
        False, "--states", help="Also the state after each move (the first 1,000 moves)."
    ),
    fmt: TextFormat = fmt_option("text"),
    as_json: bool = JSON,
    output: str | None = OUTPUT,
) -> None:
    """Replay a game from a checked setup: each move, the end state and the result. The setup
    gets the checks of `validate` first. Exit 0 for a complete legal game, 1 for a setup that
    breaks a rule, at the first illegal move or a game not over, 2 for bad input."""
    from boosterkit.minigames.referee.play import play
    from boosterkit.minigames.referee.runner import read_moves

    setup = load_setup_json(setup_file)
    text = read_text_file(moves_file, "a moves file (a game of 5,000 moves is about 0.5 MB)")
    played = play(ctx.obj, setup, read_moves(text, str(moves_file)), states)
    with render.output(output) as out:
        render.emit(
            played.to_dict(),
            pick_format(fmt, as_json),
            out=out,
            text=lambda _: escape_controls(played.text(), one_line=False),
        )
    if not played.complete:
        raise typer.Exit(1)


def simulate_cmd(
    ctx: typer.Context,
    game: str = typer.Argument(
        ..., metavar="GAME", help="roll-for-initiative, base-race or mimic-match."
    ),
    players: int = PLAYERS,
    set_code: str | None = GAME_SET,
    product: str | None = GAME_PRODUCT,
    seed: int | None = typer.Option(
        None,
        "--seed",
        metavar="SEED",
        help="Seed of the run; setup i uses (seed, i). Default: a random one, printed on stderr.",
    ),
    games: int = typer.Option(
        ..., "--games", "-k", metavar="N", help="How many games to deal and play."
    ),
    policy: Policy = typer.Option(Policy.random, "--policy", help="How the players choose."),
    log: Path | None = typer.Option(
        None, "--log", metavar="DIR", help="Write each setup and its moves to this folder."
    ),
    jobs: int = jobs_option(
        "playing parts of the games, their tallies merged in order: the output and the logs "
        "are the same byte for byte. Fewer than 400 games a worker: one process."
    ),
    fmt: TextFormat = fmt_option("text"),
    as_json: bool = JSON,
    output: str | None = OUTPUT,
) -> None:
    """Deal GAMES setups and play each to the end: wins per seat, turns, how games ended."""
    from boosterkit.generator import new_seed
    from boosterkit.generator.rng import check_seed
    from boosterkit.jobs import keep_freed
    from boosterkit.minigames.referee.runner import simulate, stats_text

    keep_freed()  # games dealt and played in batches: their memory reused
    chosen = new_seed() if seed is None else check_seed(seed)
    with render.flags(_SIMULATE_FLAGS):
        stats = simulate(ctx.obj, game, players, set_code, product, chosen, games,
                         policy.value, log, jobs=jobs)  # fmt: skip
    render.seed_note(seed, chosen)
    with render.output(output) as out:
        render.emit(stats, pick_format(fmt, as_json), text=stats_text, out=out)


#: ``simulate``'s arguments as the library names them → as the command line spells them.
_SIMULATE_FLAGS = {
    "players": "--players",
    "set": "--set",
    "games": "--games",
    "log": "--log",
    "jobs": "--jobs",
    "game": "GAME",
}


def register(app: typer.Typer) -> None:
    """Add ``play`` and ``simulate`` to ``app``."""
    app.command("play")(play_cmd)
    app.command("simulate")(simulate_cmd)
