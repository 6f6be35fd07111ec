"""One exit-code rule for every command (docs/exit-codes.md): 0 ok; 1 a failure of the world
(here: a damaged database file, a setup that breaks a rule, an illegal move); 2 a usage or
input error (unknown names, values out of range, malformed files). Every command the app
registers has a row below, so a new command cannot ship without its codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import run_cli

from boosterkit.cli.reference import command_paths

#: Per command: (expected exit code, arguments) cases; ``{name}`` is a file of ``files``.
CASES: dict[str, list[tuple[int, list[str]]]] = {
    "sync": [
        (0, ["--file", "{one}"]),
        (2, ["--file", "{notjson}"]),
        (2, ["--file", "{nowhere}"]),
        (1, ["--db", "{damaged}", "--file", "{one}"]),
    ],
    "sets": [(0, []), (2, ["--type", "nosuch"]), (2, ["-f", "xml"]), (1, ["--db", "{damaged}"])],
    "cards": [
        (0, ["afr"]),
        (2, ["zzz"]),
        (2, ["afr", "--rarity", "shiny"]),
        (1, ["--db", "{damaged}", "afr"]),
    ],
    "products": [(0, ["afr"]), (2, ["afx"]), (1, ["--db", "{damaged}", "afr"])],
    "open": [
        (0, ["afr", "--seed", "1"]),
        (2, ["afx"]),
        (2, ["afr", "-p", "colector"]),
        (2, ["afr", "-n", "0"]),
        (2, ["afr", "-f", "jsn"]),
        (1, ["--db", "{damaged}", "afr", "--seed", "1"]),
    ],
    "minigames": [(0, []), (2, ["-f", "xml"])],
    "deal": [
        (0, ["roll-for-initiative", "--players", "3", "--set", "afr", "--seed", "2"]),
        (2, ["rol-for-initiative", "--players", "3"]),
        (2, ["roll-for-initiative", "--players", "1", "--set", "afr"]),  # "2+ players"
        (2, ["roll-for-initiative", "--players", "99", "--set", "afr"]),  # no pack holds 99
        (1, ["roll-for-initiative", "--players", "25", "--set", "afr", "--seed", "0"]),  # this seed
        (2, ["roll-for-initiative", "--players", "3", "--set", "afx"]),
        (1, ["--db", "{damaged}", "roll-for-initiative", "--players", "3", "--set", "afr"]),
    ],
    "validate": [(0, ["{setup}"]), (1, ["{broken_setup}"]), (2, ["{notjson}"])],
    "serve": [(0, ["--help"]), (2, ["--port", "eighty"]), (1, ["--db", "{damaged}"])],
    # (an unknown command, in a group and at the top, is the same one line)
    "play": [
        (0, ["{game_setup}", "{game_moves}"]),
        (1, ["{game_setup}", "{illegal_moves}"]),
        (2, ["{game_setup}", "{notjson}"]),
    ],
    "simulate": [
        (0, ["mimic-match", "--players", "2", "--set", "afr", "--seed", "1", "--games", "2"]),
        (2, ["booster-blitz", "--players", "2", "--seed", "1", "--games", "2"]),
        (2, ["mimic-macth", "--players", "2", "--seed", "1", "--games", "2"]),
        (2, ["mimic-match", "--players", "2", "--set", "afr", "--seed", "1"]),  # no --games
        (2, ["roll-for-initiative", "-n", "99", "--set", "afr", "--seed", "1", "--games", "2"]),
        (1, ["--db", "{damaged}", "mimic-match", "-n", "2", "--seed", "1", "--games", "2"]),
    ],
    "odds": [
        (0, ["afr"]),
        (2, ["afx"]),
        (2, ["afr", "--card", "No Such Card"]),
        (1, ["--db", "{damaged}", "afr"]),
    ],
    "pool": [
        (0, ["afr", "--players", "2", "--packs", "1", "--seed", "1"]),
        (2, ["afr", "--players", "99", "--packs", "1"]),
        (2, ["afx", "--players", "2"]),
        (1, ["--db", "{damaged}", "afr", "--players", "2"]),
    ],
    "pool check": [
        (0, ["{deck}", "afr", "--packs", "1", "--seed", "1", "--player", "1"]),
        (1, ["{outsider_deck}", "afr", "--packs", "1", "--seed", "1", "--player", "1"]),
        (2, ["{nowhere}", "afr", "--seed", "1", "--player", "1"]),
        (2, ["{deck}"]),  # no pool named
        (1, ["--db", "{damaged}", "{deck}", "afr", "--seed", "1", "--player", "1"]),
    ],
    "db info": [(0, []), (2, ["-f", "xml"]), (1, ["--db", "{damaged}"])],
    "db rebuild": [(0, []), (2, ["-f", "xml"]), (1, ["--db", "{damaged}"])],
    "import mtgjson": [
        (0, ["{afr}"]),
        (2, ["{notjson}"]),
        (2, ["{nowhere}"]),
        (1, ["--db", "{damaged}", "{afr}"]),
    ],
    "import collation": [
        (0, ["{sealed}"]),
        (2, ["{notjson}"]),
        (1, ["--db", "{damaged}", "{sealed}"]),
    ],
    "import sealed-contents": [
        (0, ["{contents}"]),
        (2, ["{notjson}"]),
        (2, ["{nowhere}"]),
        (1, ["--db", "{damaged}", "{contents}"]),
    ],
}


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["opn", "afr"], "unknown command 'opn' — did you mean open? (all commands: `boosterkit --help`)"),
        (["db", "infoo"], "unknown command 'infoo' — did you mean info? (all commands: `boosterkit db --help`)"),
        (["simulate", "mimic-match", "-n", "2"], "Missing option '--games' / '-k'. (`boosterkit simulate --help` says more)"),
    ],
)  # fmt: skip
def test_usage_errors_are_one_line(capsys, args, line) -> None:
    assert run_cli(capsys, *args) == (2, "", f"boosterkit: error: {line}\n")


def test_every_command_has_its_exit_codes() -> None:
    assert set(CASES) == set(command_paths())
    for command, cases in CASES.items():
        codes = {code for code, _ in cases}
        assert {0, 2} <= codes, f"{command}: needs an ok case and an input-error case"


@pytest.fixture(scope="module")
def files(built_world, built_sources, tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("exit-codes")
    damaged = folder / "damaged.duckdb"
    damaged.write_bytes(b"DUCK" + b"\x00garbage" * 4096)
    notjson = folder / "notes.txt"
    notjson.write_text("not JSON\n", encoding="utf-8")
    deck, outsider = folder / "deck.txt", folder / "outsider.txt"
    deck.write_text("Deck\n40 Forest\n", encoding="utf-8")  # basic lands: any pool has them
    outsider.write_text("Deck\n39 Forest\n1 No Such Card\n", encoding="utf-8")
    contents = folder / "afr.yaml"
    contents.write_text("code: afr\nproducts:\n  Draft Pack:\n    pack:\n    - code: draft\n")
    return {
        "deck": deck,
        "outsider_deck": outsider,
        "contents": contents,
        "folder": folder,
        "damaged": damaged,
        "notjson": notjson,
        "nowhere": folder / "nowhere.json",
        "one": built_sources.scryfall / "cards" / "one.unique-cards.json",
        "afr": built_world.folder / "AFR.json",
        "sealed": built_world.sealed,
    }


def _setups(capsys, db: Path, folder: Path) -> dict[str, Path]:
    """A valid setup and one whose first player breaks the rule; a game log and a log whose
    first move is another player's."""
    setup = folder / "setup.json"
    run_cli(capsys, "--db", str(db), "deal", "roll-for-initiative", "-n", "3", "--set", "afr",
            "--seed", "2", "-f", "json", "-o", str(setup))  # fmt: skip
    data = json.loads(setup.read_text(encoding="utf-8"))
    others = [f"player-{i}" for i in (1, 2, 3) if f"player-{i}" != data["first_player"]]
    broken = folder / "broken.json"
    broken.write_text(json.dumps({**data, "first_player": others[0]}), encoding="utf-8")
    logs = folder / "logs"
    run_cli(capsys, "--db", str(db), "simulate", "roll-for-initiative", "-n", "3", "--set",
            "afr", "--seed", "1", "--games", "1", "--log", str(logs))  # fmt: skip
    moves = logs / "game-0001.moves.jsonl"
    first = json.loads(moves.read_text(encoding="utf-8").splitlines()[0])
    wrong = dict(first, player=next(p for p in others if p != first["player"]))
    illegal = folder / "illegal.jsonl"
    illegal.write_text(json.dumps(wrong) + "\n", encoding="utf-8")
    return {
        "setup": setup,
        "broken_setup": broken,
        "game_setup": logs / "game-0001.setup.json",
        "game_moves": moves,
        "illegal_moves": illegal,
    }


@pytest.mark.parametrize(
    ("command", "code", "args"),
    [(cmd, code, args) for cmd, cases in CASES.items() for code, args in cases],
    ids=[f"{cmd}-{code}-{i}" for cmd, cases in CASES.items() for i, (code, _) in enumerate(cases)],
)
def test_exit_code(capsys, files, built_db, tmp_path, command, code, args) -> None:
    db = tmp_path / "db.duckdb"
    shutil.copy(built_db, db)
    names = {k: str(v) for k, v in files.items()}
    if any("setup" in a or "moves" in a for a in args):
        names |= {k: str(v) for k, v in _setups(capsys, db, tmp_path).items()}
    argv = [a.format(**names) for a in args]
    got, out, err = run_cli(capsys, "--db", str(db), *command.split(), *argv)
    assert got == code, f"boosterkit {command} {' '.join(argv)}: exit {got}\n{err}"
    verdict = command in ("validate", "play", "pool check") and "{damaged}" not in args
    if code == 2 or (code == 1 and not verdict):  # an error: one line on stderr, no stdout
        assert out == "" and err.startswith("boosterkit: error: "), err
        assert err.count("\n") == 1 and "Traceback" not in err, err
    elif code == 1:  # a verdict (violations, an illegal move) is the command's output
        assert out and "Traceback" not in err


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt(), RuntimeError("Query interrupted")])
def test_ctrl_c_exits_130_without_a_traceback(capsys, monkeypatch, files, interrupt) -> None:
    # docs/exit-codes.md: "Ctrl-C stops a command with exit 130". During a DuckDB statement
    # Ctrl-C comes as DuckDB's RuntimeError, not as KeyboardInterrupt.
    from boosterkit.pipeline import sync

    def interrupted(*args, **kwargs):
        raise interrupt

    monkeypatch.setattr(sync, "sync_file", interrupted)
    code, _, err = run_cli(
        capsys, "--db", str(files["folder"] / "c.duckdb"), "sync", "--file", str(files["one"])
    )
    assert code == 130
    assert err == ("" if isinstance(interrupt, KeyboardInterrupt) else "Interrupted.\n")  # typer's


def test_other_runtime_errors_are_not_taken_for_ctrl_c(capsys, monkeypatch, files) -> None:
    from boosterkit.pipeline import sync

    def broken(*args, **kwargs):
        raise RuntimeError("something else")

    monkeypatch.setattr(sync, "sync_file", broken)
    with pytest.raises(RuntimeError, match="something else"):
        run_cli(
            capsys, "--db", str(files["folder"] / "c.duckdb"), "sync", "--file", str(files["one"])
        )
