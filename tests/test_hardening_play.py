"""``play`` and ``POST /play`` against hostile setups and logs (issue 20): sizes checked before
anything is built, the checks of ``validate`` first, a bounded answer, the dice it says were
recorded or drawn, control characters and huge integers in one escaped line."""

from __future__ import annotations

import copy
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import run_cli as run

from boosterkit.minigames import deal
from boosterkit.minigames.referee.play import MAX_STATES, play
from boosterkit.minigames.referee.runner import play_out
from boosterkit.service.app import create_app

LOCAL = "http://127.0.0.1"


@pytest.fixture(scope="module")
def client(built_db: Path) -> TestClient:
    with TestClient(create_app(built_db), base_url=LOCAL) as c:
        yield c


@pytest.fixture(scope="module")
def rfi(built_db: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A dealt Roll for Initiative setup and its moves as a policy played them (dice logged)."""
    setup = deal(built_db, "roll-for-initiative", 4, "afr", "draft", 3).to_dict()
    moves, res = play_out(setup, "random")
    assert res["finished"]
    return setup, moves


@pytest.fixture(scope="module")
def mimic(built_db: Path) -> dict[str, Any]:
    return deal(built_db, "mimic-match", 2, "afr", "draft", 5).to_dict()


def _write(tmp: Path, setup: Any, moves: list[dict[str, Any]]) -> tuple[str, str]:
    (tmp / "s.json").write_text(json.dumps(setup))
    (tmp / "m.jsonl").write_text("".join(json.dumps(m) + "\n" for m in moves))
    return str(tmp / "s.json"), str(tmp / "m.jsonl")


def test_play_with_a_hundred_million_players_is_refused_before_anything_is_built(
    client: TestClient, rfi
) -> None:
    """Issue 20: `"players": 100000000` made the referee build one name per player (6 GB)."""
    setup = {**rfi[0], "players": 100_000_000}
    tracemalloc.start()
    try:
        r = client.post("/play", json={"setup": setup, "moves": rfi[1]})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert r.status_code == 422 and "players: 100000000 is out of range" in r.json()["error"]
    assert peak < 20 * 2**20  # a name per player would be gigabytes


def test_a_twenty_thousand_card_grid_is_refused_and_no_answer_passes_10_mb(
    client: TestClient, mimic
) -> None:
    """Issue 20: a 20,000-card Mimic Match grid with 1,000 moves gave a 390 MB answer."""
    setup = copy.deepcopy(mimic)
    grid = next(z for z in setup["zones"] if z["kind"] == "grid")
    grid["cards"] = [{"uid": f"x1-{i}"} for i in range(1, 20_001)]  # 378 KB, as the audit's
    moves = [{"player": "player-1", "cells": [1, 2], "take": False}] * 1000
    r = client.post("/play", json={"setup": setup, "moves": moves, "states": True})
    assert r.status_code == 422 and len(r.content) < 10 * 2**20
    items = sum(len(p["items"]) for p in setup["packs"])
    assert f"cards, more than the {items} of the packs: not a setup" in r.json()["error"]


def test_states_only_when_asked_and_capped(built_db: Path, rfi, monkeypatch) -> None:
    import boosterkit.minigames.referee.play as played

    setup, moves = rfi
    plain = play(built_db, setup, moves).to_dict()
    assert plain["states"] == 0 and all("state" not in m for m in plain["moves"])
    monkeypatch.setattr(played, "MAX_STATES", 2)
    asked = play(built_db, setup, moves, states=True).to_dict()
    assert [("state" in m) for m in asked["moves"]] == [True, True] + [False] * (len(moves) - 2)
    assert asked["states"] == 2 and asked["end"] == plain["end"]
    assert MAX_STATES == 1000


def test_the_answer_says_which_dice_were_recorded_and_which_drawn(built_db: Path, rfi) -> None:
    setup, moves = rfi
    full = play(built_db, setup, moves).to_dict()
    assert full["complete"] and full["dice"]["drawn"] == 0
    with_dice = [m for m in full["moves"] if m["dice"]["recorded"]]
    assert with_dice, "a Roll for Initiative game rolls dice"
    n = with_dice[0]["move"] - 1
    bare = json.loads(json.dumps(moves))
    for key in ("die", "dice"):
        bare[n].pop(key, None)
    for effect in bare[n].get("effects", []):
        effect.pop("die", None)
    again = play(built_db, setup, bare).to_dict()
    m = again["moves"][n]
    assert m["dice"]["drawn"] and not m["dice"]["recorded"]
    assert again["dice"]["drawn"] == len(m["dice"]["drawn"])


def test_play_of_a_forged_setup_is_exit_1_card_mismatch(
    capsys, built_db: Path, rfi, tmp_path: Path
) -> None:
    """Issue 20: a card rewritten five-coloured plus chosen dice was reported as a legal game."""
    setup, moves = copy.deepcopy(rfi[0]), rfi[1]
    hand = next(z for z in setup["zones"] if z["kind"] == "hand")
    hand["cards"][0]["colors"] = list("WUBRG")
    setup_file, moves_file = _write(tmp_path, setup, moves)
    code, out, err = run(capsys, "--db", str(built_db), "play", setup_file, moves_file, "--json")
    body = json.loads(out)
    assert code == 1 and err == "" and body["complete"] is False and body["moves"] == []
    assert body["violation"]["rule"] == "card-mismatch"
    assert "card-mismatch" in {v["rule"] for v in body["setup_violations"]}
    code, out, _ = run(capsys, "--db", str(built_db), "play", setup_file, moves_file)
    assert code == 1 and out.splitlines()[-1].startswith("not played: card-mismatch: ")


def test_post_play_of_a_forged_setup_is_not_played(client: TestClient, rfi) -> None:
    setup = copy.deepcopy(rfi[0])
    next(z for z in setup["zones"] if z["kind"] == "hand")["cards"][0]["colors"] = ["W", "U"]
    r = client.post("/play", json={"setup": setup, "moves": rfi[1]})
    assert r.status_code == 200 and r.json()["violation"]["rule"] == "card-mismatch"
    assert r.json()["moves"] == [] and r.json()["setup_valid"] is False
