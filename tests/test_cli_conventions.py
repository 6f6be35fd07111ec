"""One CLI, the same habits everywhere (issue 14 §2): ``--db`` before or after the command,
``-f json`` = ``--json`` = the library's return value, ``-o FILE`` with one stderr line, CSV
where offered, ``-n`` always a count, help texts without ``<bool>``, bare ``boosterkit``."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
import typer.main
from helpers import run_cli as run

from boosterkit import config
from boosterkit.cli.app import app
from boosterkit.serialize import to_json


def _con(path: Path):
    from boosterkit.pipeline import db

    return db.connect(path, read_only=True)


def _sets(path: Path) -> Any:
    from boosterkit.pipeline import queries

    with _con(path) as con:
        return queries.list_sets(con)


def _cards(path: Path) -> Any:
    from boosterkit.pipeline import queries

    with _con(path) as con:
        return queries.list_cards(con, "khm", "mythic")


def _info(path: Path) -> Any:
    from boosterkit.pipeline import queries

    with _con(path) as con:
        return queries.db_info(con, config.db_path(path))


def _products(path: Path) -> Any:
    from boosterkit.generator.cache import compiled_product
    from boosterkit.generator.products import list_products

    with _con(path) as con:
        return list_products(
            con,
            "afr",
            product_of=lambda code: compiled_product("afr", code, path).product,
        )


def _open(path: Path) -> Any:
    from boosterkit.generator import open_packs

    return [p.to_dict() for p in open_packs("afr", "set", 2, 5, db=path)]


def _odds(path: Path) -> Any:
    from boosterkit.generator.odds import odds

    return odds("afr", None, "pack", "AFR Hoard Dragon", db=path)


def _pool(path: Path) -> Any:
    from boosterkit.generator.pools import open_pools

    return open_pools("znr", 2, 1, None, 3, db=path)


def _minigames(path: Path) -> Any:
    from boosterkit.minigames import list_minigames

    return list_minigames()


def _deal(path: Path) -> Any:
    from boosterkit.minigames import deal

    return deal(path, "booster-blitz", 2, "znr", None, 4).to_dict()


def _simulate(path: Path) -> Any:
    from boosterkit.minigames.referee.runner import simulate

    with _con(path) as con:
        return simulate(con, "roll-for-initiative", 2, "afr", None, 6, 2, "random", None)


#: (command line after ``boosterkit``, the library call whose value ``--json`` prints).
DATA_COMMANDS = {
    "sets": (["sets"], _sets),
    "cards": (["cards", "khm", "--rarity", "mythic"], _cards),
    "db info": (["db", "info"], _info),
    "products": (["products", "afr"], _products),
    "open": (["open", "afr", "-p", "set", "-n", "2", "--seed", "5"], _open),
    "odds": (["odds", "afr", "--card", "AFR Hoard Dragon"], _odds),
    "pool": (["pool", "znr", "-n", "2", "--packs", "1", "--seed", "3"], _pool),
    "minigames": (["minigames"], _minigames),
    "deal": (["deal", "booster-blitz", "-n", "2", "--set", "znr", "--seed", "4"], _deal),
    "simulate": (
        [
            "simulate",
            "roll-for-initiative",
            "-n",
            "2",
            "--set",
            "afr",
            "--seed",
            "6",
            "--games",
            "2",
        ],
        _simulate,
    ),
}


@pytest.mark.parametrize("name", list(DATA_COMMANDS))
def test_format_json_equals_json_flag_equals_the_library(capsys, built_db: Path, name: str) -> None:
    args, library = DATA_COMMANDS[name]
    code, before, err = run(capsys, "--db", str(built_db), *args, "-f", "json")
    assert code == 0, err
    code, after, err = run(capsys, *args, "--json", "--db", str(built_db))  # --db after it
    assert code == 0, err
    assert before == after == to_json(library(built_db)) + "\n"


@pytest.mark.parametrize("name", list(DATA_COMMANDS))
def test_output_file_holds_stdout_and_one_line_says_so(
    capsys, built_db: Path, tmp_path: Path, name: str
) -> None:
    args, _ = DATA_COMMANDS[name]
    code, shown, _ = run(capsys, *args, "--db", str(built_db))
    assert code == 0
    target = tmp_path / "out.txt"
    if name == "pool":  # -o DIR: one file per player, named in one line
        code, out, err = run(capsys, *args, "--db", str(built_db), "-o", str(target))
        files = sorted(target.iterdir())
        assert code == 0 and out == "" and [f.name for f in files] == ["pool-1.txt", "pool-2.txt"]
        assert err == f"wrote 2 files to {target}: pool-1.txt, pool-2.txt\n"
        assert all(f.read_text(encoding="utf-8").strip() in shown for f in files)
        return
    code, out, err = run(capsys, *args, "--db", str(built_db), "-o", str(target))
    assert code == 0 and out == ""
    assert target.read_text(encoding="utf-8") == shown
    assert err == f"wrote {target} ({target.stat().st_size:,} bytes)\n"


#: The commands whose data are rows (the others are one record: a sheet, a pool, statistics).
CSV_COMMANDS = ["sets", "cards", "products", "open", "odds", "minigames"]


def test_csv_is_offered_by_the_commands_whose_data_are_rows(capsys) -> None:
    for name, (args, _) in DATA_COMMANDS.items():
        _, help_text, _ = run(capsys, *args[:2] if name == "db info" else args[:1], "--help")
        offered = re.search(r"--format <([a-z|-]+)>", help_text).group(1).split("|")
        assert ("csv" in offered) == (name in CSV_COMMANDS), name
        assert "json" in offered and ("text" in offered or "table" in offered), name


@pytest.mark.parametrize("name", CSV_COMMANDS)
def test_csv_where_offered_is_the_rows_of_the_data(capsys, built_db: Path, name: str) -> None:
    args, library = DATA_COMMANDS[name]
    code, out, err = run(capsys, "--db", str(built_db), *args, "-f", "csv")
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert len({len(r) for r in rows}) == 1  # a rectangle: a header and same-width rows
    data = library(built_db)
    if isinstance(data, list) and name != "open":  # listings: one row per element
        assert len(rows) == 1 + len(data)
    code, jsonl, _ = run(capsys, "--db", str(built_db), *args, "-f", "jsonl")
    assert code == 0 and all(json.loads(line) for line in jsonl.splitlines())


def test_sets_and_cards_csv_carry_the_json_values(capsys, built_db: Path) -> None:
    _, out, _ = run(capsys, "sets", "-f", "csv", "--db", str(built_db))
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["code"] for r in rows] == [s["code"] for s in _sets(built_db)]
    _, out, _ = run(
        capsys, "cards", "khm", "--rarity", "mythic", "-f", "csv", "--db", str(built_db)
    )
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["name"] for r in rows] == [c["name"] for c in _cards(built_db)]


def _leaf_commands(group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for name, cmd in sorted(group.commands.items()):
        path = (*prefix, name)
        out += _leaf_commands(cmd, path) if hasattr(cmd, "commands") else [path]
    return out


COMMANDS = _leaf_commands(typer.main.get_command(app))


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_help_is_written_the_same_way(capsys, path: tuple[str, ...]) -> None:
    code, out, _ = run(capsys, *path, "--help")
    assert code == 0 and out.startswith(f"Usage: boosterkit {' '.join(path)} ")
    assert "<bool>" not in out
    options = out.split("\nOptions:\n", 1)[1]
    # every value an option takes is named in capitals (SET, N, FILE…) or lists its choices
    assert not re.search(r"<(str|int|path|int range)>", options), options
    assert "--db FILE" in options  # accepted after every command
    if re.search(r"^\s+-n, ", options, re.M):  # -n is a count, everywhere
        assert re.search(r"^\s+-n, --\S+ N\b", options, re.M), options
    for arg in re.findall(r"[\[{]([^\]}]+)[\]}]", out.splitlines()[0].split("[OPTIONS]")[1]):
        assert arg.rstrip(".") == arg.rstrip(".").upper(), f"argument {arg} not in capitals"


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_data_commands_offer_format_json_and_output(capsys, path: tuple[str, ...]) -> None:
    if path == ("serve",):
        return  # prints no data: it serves
    _, out, _ = run(capsys, *path, "--help")
    assert re.search(r"-f, --format <[a-z|-]*json[a-z|-]*>", out), out
    assert "--json " in out and ("-o, --output FILE" in out or "-o, --output DIR" in out)


@pytest.mark.parametrize("group", [[], ["db"], ["import"]])
def test_a_bare_group_prints_its_help_and_exits_0(capsys, group: list[str]) -> None:
    code, out, err = run(capsys, *group)
    assert code == 0 and err == ""
    assert out.startswith(f"Usage: boosterkit {' '.join(group)}".rstrip() + " ")
    assert "Commands:" in out


def test_without_a_database_the_message_offers_sync_and_the_imports(capsys, tmp_path) -> None:
    missing = tmp_path / "none.duckdb"
    for args in (["sets"], ["open", "afr"], ["cards", "afr"]):
        code, out, err = run(capsys, *args, "--db", str(missing))
        assert code == 1 and out == "" and len(err.splitlines()) == 1
        assert "no database here yet" in err and "`boosterkit sync SET`" in err
        assert "`boosterkit import mtgjson FILE...`" in err
        assert "`boosterkit import collation FILE`" in err
    assert not missing.exists()


def test_summaries_of_imports_as_json_or_to_a_file(capsys, tmp_path, built_world) -> None:
    path = tmp_path / "i.duckdb"
    mafr = built_world.folder / "MAFR.json"
    code, out, err = run(capsys, "import", "mtgjson", str(mafr), "--db", str(path), "-f", "json")
    first = json.loads(out)
    assert code == 0 and first["sets"] == ["mafr"] and err.startswith("imported 1 set (mafr): ")
    target = tmp_path / "summary.json"
    code, out, err = run(
        capsys, "import", "mtgjson", str(mafr), "--db", str(path), "--json", "-o", str(target)
    )
    again = json.loads(target.read_text())
    assert code == 0 and out == "" and err == f"wrote {target} ({target.stat().st_size:,} bytes)\n"
    assert {k: v for k, v in again.items() if k != "seconds"} == {
        k: v for k, v in first.items() if k != "seconds"
    }
    code, out, err = run(capsys, "db", "rebuild", "--db", str(path), "-f", "json")
    assert code == 0 and json.loads(out)["runs"] == 2 and err.startswith("rebuilt from 2 runs")


def test_db_after_the_command_wins_over_before(capsys, built_db: Path, tmp_path: Path) -> None:
    missing = tmp_path / "none.duckdb"
    code, out, _ = run(capsys, "--db", str(missing), "sets", "--json", "--db", str(built_db))
    assert code == 0 and json.loads(out) == _sets(built_db)


def test_simulate_picks_and_prints_a_seed_as_open_and_deal_do(capsys, built_db: Path) -> None:
    """`simulate` required --seed where `open` and `deal` pick one (issue 34)."""
    # Draft Boosters: no List card the built data lacks, so any seed's games are dealt
    args = [
        "simulate",
        "mimic-match",
        "-n",
        "2",
        "-p",
        "draft",
        "--games",
        "3",
        "--db",
        str(built_db),
    ]
    code, out, err = run(capsys, *args, "--json")
    seed = re.fullmatch(r"seed: (\d+) \(repeat with --seed \1\)\n", err)
    assert code == 0 and seed, err
    assert run(capsys, *args, "--json", "--seed", seed.group(1)) == (0, out, "")
    assert json.loads(out)["seed"] == int(seed.group(1))


def test_play_formats_and_db_after(capsys, built_db: Path, tmp_path: Path) -> None:
    from boosterkit.minigames.referee.play import play
    from boosterkit.minigames.referee.runner import read_moves

    logs = tmp_path / "logs"
    code, _, err = run(
        capsys,
        "simulate",
        "base-race",
        "-n",
        "2",
        "--set",
        "znr",
        "--seed",
        "2",
        "--games",
        "1",
        "--log",
        str(logs),
        "--db",
        str(built_db),
    )
    assert code == 0, err
    setup_file, moves_file = sorted(logs.glob("*.setup.json"))[0], sorted(logs.glob("*.jsonl"))[0]
    args = ["play", str(setup_file), str(moves_file), "--db", str(built_db)]
    _, as_json, _ = run(capsys, *args, "--json")
    _, as_format, _ = run(capsys, *args, "-f", "json")
    lib = play(built_db, json.loads(setup_file.read_text()), read_moves(moves_file.read_text()))
    assert as_json == as_format == to_json(lib.to_dict()) + "\n"
    _, text, _ = run(capsys, *args)
    assert text == lib.text().rstrip("\n") + "\n"
