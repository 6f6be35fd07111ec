"""The referee: Roll for Initiative, Base Race and Mimic Match played out from a dealt setup.

A module per game (``roll_for_initiative``, ``base_race``, ``mimic_match``), each with
``start(setup, con) -> State``, ``legal_moves(state)``, ``apply(state, move) -> State``
(``RuleViolation`` on an illegal move), ``result(state)``, ``state_dict`` and ``render``;
plus pure rules such as ``base_race.battle`` and ``mimic_match.is_match``. The functions
here dispatch on the game. ``replay`` plays a move log; ``simulate`` deals and plays many
games with a policy. Moves are dicts, one JSON Lines record each (``data/moves.schema.json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from boosterkit.errors import InputError
from boosterkit.minigames.referee import base_race, mimic_match, roll_for_initiative
from boosterkit.minigames.referee.common import Card, RuleViolation

GAMES: dict[str, ModuleType] = {
    "roll-for-initiative": roll_for_initiative,
    "base-race": base_race,
    "mimic-match": mimic_match,
}
POLICIES = ("random", "greedy")

__all__ = [
    "GAMES",
    "POLICIES",
    "Card",
    "RuleViolation",
    "apply",
    "apply_logged",
    "game_module",
    "legal_moves",
    "new_game",
    "replay",
    "result",
    "simulate",
]


def game_module(game: str) -> ModuleType:
    """The referee of ``game`` (an id or name); ``InputError`` for a game it does not play."""
    from boosterkit.minigames.catalog import get_minigame

    key = game if game in GAMES else get_minigame(game).id
    if key not in GAMES:
        raise InputError(f"the referee plays {', '.join(GAMES)}; not {game!r}", field="game")
    return GAMES[key]


def new_game(setup: Any, con: Any = None) -> Any:
    """The state at the first move of a setup (the parsed JSON, read as a ``SetupFile``);
    ``con``: Base Race's toughness."""
    from boosterkit.minigames.setupfile import parse_setup

    file = parse_setup(setup)
    return game_module(file["minigame"]).start(file, con)


def _module(state: Any) -> ModuleType:
    return GAMES[state.table.game]


def legal_moves(state: Any) -> list[dict[str, Any]]:
    """Every legal move in ``state`` (dice are rolled when a move is applied)."""
    moves: list[dict[str, Any]] = _module(state).legal_moves(state)
    return moves


def apply(state: Any, move: Mapping[str, Any]) -> Any:
    """The state after ``move``; ``RuleViolation`` (with its rule name) if it is illegal."""
    return _module(state).apply(state, move)


def apply_logged(state: Any, move: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """``apply`` and the move as a log records it (with every die it rolled)."""
    mod = _module(state)
    if hasattr(mod, "apply_logged"):
        applied: tuple[Any, dict[str, Any]] = mod.apply_logged(state, move)
        return applied
    return mod.apply(state, move), dict(move)


def result(state: Any) -> dict[str, Any] | None:
    """None while the game goes on, else the winner and how the game ended."""
    result: dict[str, Any] | None = _module(state).result(state)
    return result


def replay(setup: Any, moves: Any, con: Any = None) -> Any:
    """``runner.replay``: play a move log from a setup (see there)."""
    from boosterkit.minigames.referee.runner import replay as _replay

    return _replay(setup, moves, con)


def simulate(con: Any, game: str, players: int, **options: Any) -> dict[str, Any]:
    """``runner.simulate``: deal and play many games, statistics (see there)."""
    from boosterkit.minigames.referee.runner import simulate as _simulate

    return _simulate(con, game, players, **options)
