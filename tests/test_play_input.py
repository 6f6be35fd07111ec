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


# --- what is echoed from input (issue 20 §3) ---------------------------------------------

OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"  # a clipboard write
RED = "\x1b[31m"
C1 = "\x9b2J"  # the 8-bit CSI: clear the screen


def _no_escape(text: str) -> None:
    assert not any(ch in text for ch in ("\x1b", "\x07", "\x9b")), repr(text[:300])


def _hostile(setup: dict[str, Any], zone: bool = False) -> dict[str, Any]:
    bad = copy.deepcopy(setup)
    hand = next(z for z in bad["zones"] if z["kind"] == "hand")
    if zone:
        hand["name"] += C1
    else:
        hand["cards"][0]["uid"] = f"p1-1{OSC52}{RED}"
    return bad


def test_validate_and_play_never_echo_an_escape_sequence(
    capsys, built_db: Path, rfi, tmp_path: Path
) -> None:
    """Issue 20: `validate` printed card uids as they are: an OSC 52 clipboard write and colour
    codes reached the terminal."""
    setup_file, moves_file = _write(tmp_path, _hostile(rfi[0]), rfi[1])
    for args in (["validate", setup_file], ["play", setup_file, moves_file]):
        for fmt in ([], ["--json"]):
            code, out, err = run(capsys, "--db", str(built_db), *args, *fmt)
            assert code in (1, 2) and (out or err)
            _no_escape(out + err)
            assert "\\x1b]52" in out + err or "\\u001b]52" in out + err  # shown, escaped
    setup_file, moves_file = _write(tmp_path, _hostile(rfi[0], zone=True), rfi[1])
    for args in (["validate", setup_file], ["play", setup_file, moves_file]):
        for fmt in ([], ["--json"]):
            code, out, err = run(capsys, "--db", str(built_db), *args, *fmt)
            assert code in (1, 2) and "\\x9b2J" in out + err
            _no_escape(out + err)
    bad_move = [{**rfi[1][0], "player": f"player-1{OSC52}"}]
    setup_file, moves_file = _write(tmp_path, rfi[0], bad_move)
    code, out, err = run(capsys, "--db", str(built_db), "play", setup_file, moves_file)
    assert code == 2 and err.count("\n") == 1
    _no_escape(out + err)


def test_a_game_name_with_a_control_character_is_not_a_game_name(capsys, built_db, rfi, tmp_path):
    from boosterkit.errors import NotFoundError
    from boosterkit.minigames.catalog import get_minigame

    for name in ("roll-for-initiative\x1b[31m", "roll-for\x00-initiative", "Roll for\tInitiative"):
        with pytest.raises(NotFoundError, match="a game name has no control characters"):
            get_minigame(name)
    setup_file, _ = _write(tmp_path, {**rfi[0], "minigame": f"roll-for-initiative{RED}"}, [])
    code, out, err = run(capsys, "--db", str(built_db), "validate", setup_file)
    assert code == 2 and "a game name has no control characters" in err and err.count("\n") == 1
    _no_escape(out + err)


HUGE = "1" * 5000


def test_huge_integers_are_one_line_with_the_right_reason(
    capsys, built_db: Path, client: TestClient, rfi, tmp_path: Path
) -> None:
    """Issue 20: an integer over 4,300 digits was a 52-line ValueError traceback (the service
    said "not UTF-8, or nested too deeply")."""
    text = json.dumps(rfi[0]).replace('"players": 4', f'"players": {HUGE}', 1)
    assert HUGE in text
    (tmp_path / "s.json").write_text(text)
    (tmp_path / "m.jsonl").write_text(json.dumps(rfi[1][0]).replace("{", f'{{"n": {HUGE}, ', 1))
    for args in (["validate", "s.json"], ["play", "s.json", "m.jsonl"]):
        files = [str(tmp_path / a) if a.endswith(("json", "jsonl")) else a for a in args]
        code, out, err = run(capsys, "--db", str(built_db), *files)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert "an integer of more than 4,300 digits" in err and "Traceback" not in err
    (tmp_path / "ok.json").write_text(json.dumps(rfi[0]))
    code, _, err = run(
        capsys, "--db", str(built_db), "play", str(tmp_path / "ok.json"), str(tmp_path / "m.jsonl")
    )
    assert code == 2 and "m.jsonl: line 1: not a move: an integer of more than 4,300" in err
    for route, body in (
        ("/validate", text),
        ("/play", f'{{"setup": {text}, "moves": []}}'),
    ):
        r = client.post(route, content=body, headers={"content-type": "application/json"})
        assert r.status_code == 422, r.text
        assert r.json()["error"] == "body: not valid JSON (an integer of more than 4,300 digits)"
