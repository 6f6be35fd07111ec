"""``POST /play`` and ``POST /simulate``: the referee over HTTP, as ``boosterkit play --json``
and ``boosterkit simulate --json`` (errors as every other route: JSON, 4xx)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from boosterkit.generator import new_seed
from boosterkit.minigames.referee.play import play as play_game
from boosterkit.minigames.referee.runner import simulate
from boosterkit.service.deps import game_packs, json_response
from boosterkit.service.models import GameRequest

#: Games per ``POST /simulate`` (a game costs about as much as dealing its setup).
MAX_SIM_GAMES = 200
#: Moves per ``POST /play``.
MAX_MOVES = 5000

router = APIRouter(tags=["referee"])


class PlayRequest(BaseModel):
    """``POST /play``: a setup (as ``/deal`` returns it) and its moves (JSON Lines records)."""

    model_config = ConfigDict(extra="forbid")

    setup: dict[str, Any]
    moves: list[dict[str, Any]] = Field(max_length=MAX_MOVES)
    states: bool = Field(
        default=False, description="also the state after each move (the first 1,000)"
    )


class SimulateRequest(GameRequest):
    """``POST /simulate``: the arguments of ``boosterkit simulate`` (no log folder)."""

    games: int = Field(default=100, ge=1, le=MAX_SIM_GAMES)
    policy: Literal["random", "greedy"] = "random"


@router.post("/play")
def play(req: PlayRequest, request: Request) -> Response:
    """Replay a move log from a checked setup: ``boosterkit play --json [--states]`` (200 with
    ``violation`` set for a setup that breaks a rule or an illegal move; 422 for a malformed
    or oversized setup or move). Holds the setup's packs in the work budget (they are opened
    again to check them)."""
    packs = req.setup.get("packs")
    with request.app.state.budget.take(len(packs) if isinstance(packs, list) else 1):
        played = play_game(request.app.state.database, req.setup, req.moves, req.states)
        return json_response(played.to_dict())


@router.post("/simulate")
def simulate_games(req: SimulateRequest, request: Request) -> Response:
    """Deal and play ``games`` games: ``boosterkit simulate --json`` (a seed is chosen and
    reported when none is given)."""
    seed = new_seed() if req.seed is None else req.seed
    # WorkBudget.take caps the share at the budget's capacity
    with request.app.state.budget.take(game_packs(req.minigame, req.players) * req.games):
        return json_response(
            simulate(
                request.app.state.database,
                req.minigame,
                req.players,
                req.set,
                req.product,
                seed,
                req.games,
                req.policy,
            )
        )
