"""Hostile import files and environments (issue 33): every wrong shape is one line and exit 2
(1 for a failure of the world), never a traceback, and changes nothing.

The files are the built world's (``built_world``) with one value replaced; the shapes are
the ones an adversarial audit found giving tracebacks.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli

from boosterkit.pipeline import db as pdb

CLI = [sys.executable, "-m", "boosterkit.cli"]


def one_line(code: int, err: str, exit_code: int = 2) -> str:
    """The error line of a run that failed as it should: one line, no traceback."""
    assert code == exit_code, err
    assert "Traceback" not in err and "Usage:" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("boosterkit: error: "), err
    return lines[0]


def raw_json(data: Any, replace: dict[str, str]) -> str:
    """``data`` as JSON text with the quoted placeholders replaced by raw JSON text
    (``NaN``, ``1e400``): what ``json.dumps`` cannot write itself."""
    out = json.dumps(data)
    for placeholder, raw in replace.items():
        out = out.replace(json.dumps(placeholder), raw)
    return out


@pytest.fixture(scope="module")
def afr_product(built_world) -> dict[str, Any]:
    """The built world's AFR Set Booster, as the magic-sealed-data export has it."""
    products = json.loads(built_world.sealed.read_text())
    return next(p for p in products if p["code"] == "afr-set")


@pytest.fixture(scope="module")
def afr_mtgjson(built_world) -> dict[str, Any]:
    return json.loads((built_world.folder / "AFR.json").read_text())


def _first_card(p: dict[str, Any]) -> dict[str, Any]:
    return next(iter(p["sheets"].values()))["cards"]


def _set_first_weight(p: dict[str, Any], value: Any) -> None:
    cards = _first_card(p)
    cards[next(iter(cards))] = value


def _set_total(value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda p: next(iter(p["sheets"].values())).__setitem__("total_weight", value)


#: (what, how the product is changed, raw JSON replacements, words of the line)
COLLATION_SHAPES = [
    ("card weight 2^63", lambda p: _set_first_weight(p, 2**63), {}, "not from 1 to"),
    ("total_weight 'abc'", _set_total("abc"), {}, "'total_weight' is 'abc', not a whole number"),
    ("total_weight NaN", _set_total("@nan"), {"@nan": "NaN"}, "is nan, not a whole number"),
    ("total_weight 1e400", _set_total("@inf"), {"@inf": "1e400"}, "is inf, not a whole number"),
    ("total_weight {}", _set_total({}), {}, "is an object, not a whole number"),
    (
        "variant weight 'x'",
        lambda p: p["boosters"][0].__setitem__("weight", "x"),
        {},
        "booster variant 1: its weight is 'x'",
    ),  # fmt: skip
    (
        "slot count 'ten'",
        lambda p: p["boosters"][0]["sheets"].__setitem__("common", "ten"),
        {},
        "the count of sheet 'common' is 'ten'",
    ),  # fmt: skip
    (
        "sheet flag 'no'",
        lambda p: next(iter(p["sheets"].values())).__setitem__("fixed", "no"),
        {},
        "'fixed' is 'no', not true or false",
    ),  # fmt: skip
    ("code a list", lambda p: p.__setitem__("code", ["afr"]), {}, "'code' is a list"),
    ("name a number", lambda p: p.__setitem__("name", 7), {}, "'name' is 7, not a string"),
    (
        "sheet_order of numbers",
        lambda p: p["boosters"][0].__setitem__("sheet_order", [1]),
        {},
        "'sheet_order'[0] is 1, not a string",
    ),  # fmt: skip
    (
        "deep nesting",
        lambda p: p.__setitem__("name", "@deep"),
        {"@deep": "[" * 100_000},
        "not readable JSON",
    ),  # fmt: skip
]


@pytest.mark.parametrize(
    "change, raw, words", [c[1:] for c in COLLATION_SHAPES], ids=[c[0] for c in COLLATION_SHAPES]
)
def test_a_collation_file_of_a_wrong_shape_is_one_line(
    afr_product, tmp_path: Path, capsys, change, raw, words
) -> None:
    product = copy.deepcopy(afr_product)
    change(product)
    path = tmp_path / "evil.json"
    path.write_text(raw_json([product], raw))
    db = tmp_path / "x.duckdb"
    code, _, err = run_cli(capsys, "--db", str(db), "import", "collation", str(path))
    line = one_line(code, err)
    assert str(path) in line and words in line, line
    assert not db.exists()  # nothing was kept: not even the database the import made


def _booster(d: dict[str, Any]) -> dict[str, Any]:
    return d["data"]["booster"]["default"]


MTGJSON_SHAPES = [
    ("booster a list", lambda d: d["data"].__setitem__("booster", [1]), "'booster' is a list"),
    ("booster a string", lambda d: d["data"].__setitem__("booster", "x"), "'booster' is 'x'"),
    (
        "contents a list",
        lambda d: _booster(d)["boosters"][0].__setitem__("contents", []),
        "variant 1: 'contents' is a list, not an object",
    ),  # fmt: skip
    (
        "weight missing",
        lambda d: _booster(d)["boosters"][0].pop("weight"),
        "variant 1: 'weight' is missing",
    ),  # fmt: skip
    (
        "weight 'heavy'",
        lambda d: _booster(d)["boosters"][0].__setitem__("weight", "heavy"),
        "'weight' is 'heavy', not a whole number",
    ),  # fmt: skip
    (
        "sheet card weight 2^60",
        lambda d: _booster(d)["sheets"]["common"]["cards"].update(
            {next(iter(_booster(d)["sheets"]["common"]["cards"])): 2**60}
        ),
        "not from 0 to",
    ),  # fmt: skip
    (
        "a card's colors a number",
        lambda d: d["data"]["cards"][0].__setitem__("colors", 5),
        "cards[0]: 'colors' is 5, not a list",
    ),  # fmt: skip
    (
        "a card's identifiers a string",
        lambda d: d["data"]["cards"][0].__setitem__("identifiers", "x"),
        "'identifiers' is 'x'",
    ),
    (
        "a card's manaValue text",
        lambda d: d["data"]["cards"][0].__setitem__("manaValue", "2"),
        "'manaValue' is '2', not a number",
    ),  # fmt: skip
    (
        "baseSetSize text",
        lambda d: d["data"].__setitem__("baseSetSize", "281"),
        "'baseSetSize' is '281', not a whole number",
    ),  # fmt: skip
]


@pytest.mark.parametrize(
    "change, words", [c[1:] for c in MTGJSON_SHAPES], ids=[c[0] for c in MTGJSON_SHAPES]
)
def test_an_mtgjson_file_of_a_wrong_shape_is_one_line(
    afr_mtgjson, tmp_path: Path, capsys, change, words
) -> None:
    data = copy.deepcopy(afr_mtgjson)
    change(data)
    path = tmp_path / "AFR.json"
    path.write_text(json.dumps(data))
    db = tmp_path / "x.duckdb"
    code, _, err = run_cli(capsys, "--db", str(db), "import", "mtgjson", str(path))
    line = one_line(code, err)
    assert str(path) in line and words in line, line
    assert not db.exists()  # nothing was kept: not even the database the import made


@pytest.mark.parametrize("value", ["abc", "", "-1", "1.5"])
def test_a_schema_version_that_is_no_number_is_one_line_and_runs_no_migration(
    built_db: Path, tmp_path: Path, capsys, value: str
) -> None:
    import duckdb

    db = tmp_path / "x.duckdb"
    db.write_bytes(built_db.read_bytes())
    con = duckdb.connect(str(db))
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", [value])
    con.close()
    for args in (["cards", "afr"], ["import", "collation", str(tmp_path / "none.json")]):
        code, _, err = run_cli(capsys, "--db", str(db), *args)
        line = one_line(code, err, exit_code=1)
        assert f"the schema version is {value!r}, not a number of migrations" in line
    con = duckdb.connect(str(db), read_only=True)
    try:  # -1 would re-run the last migration: nothing was run, the value is as it was
        assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (
            value,
        )
    finally:
        con.close()


def test_a_limit_past_any_integer_the_database_takes_means_all_rows(built_db, capsys) -> None:
    code, out, err = run_cli(capsys, "--db", str(built_db), "cards", "afr", "-n", str(2**63))
    assert code == 0, err
    _, everything, _ = run_cli(capsys, "--db", str(built_db), "cards", "afr")
    assert out == everything


@pytest.mark.parametrize(
    "env, words",
    [
        ({"BOOSTERKIT_DB": "~nosuchuser/x.duckdb"}, "'~nosuchuser' is no user's home folder"),
        ({"BOOSTERKIT_DB": "/tmp/" + "a" * 300 + ".duckdb"}, "bytes long, more than the 251"),
        ({"SCRYFALL_API_URL": "http://[::1"}, "SCRYFALL_API_URL='http://[::1': not a URL"),
    ],
    ids=["unknown user", "300-character name", "unparsable URL"],
)
def test_a_wrong_environment_is_one_line(capsys, monkeypatch, env, words) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    args = ["sync", "afr"] if "SCRYFALL_API_URL" in env else ["cards", "afr"]
    code, _, err = run_cli(capsys, *args)
    assert words in one_line(code, err)


def test_a_terminal_that_cannot_encode_a_dash_gets_an_escape(built_db: Path) -> None:
    """``PYTHONIOENCODING=ascii``: the "—" of a type line cannot be written; it is escaped."""
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "BOOSTERKIT_DB": str(built_db)}
    done = subprocess.run([*CLI, "cards", "afr"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "Creature \\u2014 " in done.stdout and "Traceback" not in done.stderr


# --- family 1: what a product may ask for, what a request may cost -----------------------


def _draws(sheet: str, count: int, **flags: Any) -> Callable[[dict[str, Any]], None]:
    def change(p: dict[str, Any]) -> None:
        for b in p["boosters"]:
            b["sheets"][sheet] = count
        p["sheets"][sheet].update(flags)

    return change


def _fixed_weight(p: dict[str, Any]) -> None:
    sheet = p["sheets"]["basic"]
    sheet["fixed"] = True
    sheet["cards"][next(iter(sheet["cards"]))] = 10**12


BIG_PRODUCTS = [
    (
        "a common slot of 10^6 cards",
        _draws("common", 10**6),
        "booster variant 1 puts 1,000,00",
    ),  # fmt: skip
    (
        "10^6 cards, duplicates allowed",
        _draws("common", 10**6, allow_duplicates=True),
        "booster variant 1 puts 1,000,00",
    ),  # fmt: skip
    (
        "a fixed sheet of weight 10^12",
        _fixed_weight,
        "sheet 'basic' (a fixed sheet: every card, once per weight) puts 1,000,000,000,0",
    ),  # fmt: skip
    (
        "a sheet of 20,001 cards",
        lambda p: p["sheets"]["common"]["cards"].update({f"afr:{n}": 1 for n in range(20_001)}),
        "lists 20,0",
    ),  # fmt: skip
    (
        "weights past 2^53",
        lambda p: p["sheets"]["common"]["cards"].update({"afr:9001": 2**52, "afr:9002": 2**52}),
        "its weights add up to",
    ),  # fmt: skip
]


@pytest.mark.parametrize(
    "change, words", [c[1:] for c in BIG_PRODUCTS], ids=[c[0] for c in BIG_PRODUCTS]
)
def test_a_product_past_the_bounds_is_refused_at_import(
    afr_product, tmp_path: Path, capsys, change, words
) -> None:
    product = copy.deepcopy(afr_product)
    change(product)
    path = tmp_path / "evil.json"
    path.write_text(json.dumps([product]))
    code, _, err = run_cli(capsys, "--db", str(tmp_path / "x.duckdb"), "import", "collation",
                           str(path))  # fmt: skip
    assert words in one_line(code, err)


def test_an_mtgjson_product_past_the_bounds_is_refused_at_import(
    afr_mtgjson, tmp_path: Path, capsys
) -> None:
    data = copy.deepcopy(afr_mtgjson)
    for b in _booster(data)["boosters"]:
        b["contents"]["common"] = 10**6
    path = tmp_path / "AFR.json"
    path.write_text(json.dumps(data))
    code, _, err = run_cli(capsys, "--db", str(tmp_path / "x.duckdb"), "import", "mtgjson",
                           str(path))  # fmt: skip
    line = one_line(code, err)
    assert "booster 'default': booster variant 1 puts 1,000,00" in line, line


@pytest.fixture(scope="module")
def big_packs_db(built_db: Path, afr_product, tmp_path_factory) -> Path:
    """The built world with ``afr-big`` (1,000-card packs: the most a pack may hold) and
    ``afr-evil`` (10^6 cards a pack, stored as a release before the bounds stored it)."""
    from boosterkit.pipeline import collation

    db = tmp_path_factory.mktemp("big") / "big.duckdb"
    db.write_bytes(built_db.read_bytes())
    big = copy.deepcopy(afr_product) | {"code": "afr-big"}
    _draws("common", 1_000 - sum(v for k, v in big["boosters"][0]["sheets"].items()
                                 if k != "common"), allow_duplicates=True)(big)  # fmt: skip
    big["boosters"] = big["boosters"][:1]
    evil = copy.deepcopy(afr_product) | {"code": "afr-evil"}
    _draws("common", 10**6, allow_duplicates=True)(evil)
    con = pdb.connect(db)
    try:
        collation.write_products(con, [collation.sealed_product(big, "big")])
        unchecked = collation.sealed_product(copy.deepcopy(afr_product), "evil")
        unchecked["code"] = "afr-evil"
        unchecked["variants"] = [{"weight": 1, "slots": [("common", 10**6)]}]
        collation.write_products(con, [unchecked])
    finally:
        con.close()
    return db


def test_a_product_stored_past_the_bounds_opens_nothing_in_one_line(
    big_packs_db: Path, capsys
) -> None:
    code, _, err = run_cli(capsys, "--db", str(big_packs_db), "open", "afr", "-p", "afr-evil")
    line = one_line(code, err)
    assert "product afr-evil: a pack of 1,000,000 cards, more than the 1,000" in line


def test_post_packs_costs_cards_and_answers_within_the_budget(big_packs_db: Path) -> None:
    from fastapi.testclient import TestClient

    from boosterkit.service.app import create_app
    from boosterkit.service.limits import CARDS_PER_PACK_UNIT
    from boosterkit.service.models import MAX_PACKS

    most = MAX_PACKS * CARDS_PER_PACK_UNIT
    with TestClient(create_app(big_packs_db), base_url="http://127.0.0.1") as client:
        evil = client.post("/packs", json={"set": "afr", "product": "afr-evil", "count": 1})
        refused = client.post("/packs", json={"set": "afr", "product": "afr-big", "count": 28})
        fits = client.post("/packs", json={"set": "afr", "product": "afr-big", "count": 27})
        plain = client.post("/packs", json={"set": "afr", "product": "set", "count": MAX_PACKS})
    assert evil.status_code == 422 and "a pack of 1,000,000 cards" in evil.json()["error"]
    assert refused.status_code == 422, refused.text
    error = refused.json()["error"]
    assert f"more than the {most:,} cards a request may cost: ask for at most 27" in error
    assert fits.status_code == 200 and sum(len(p["items"]) for p in fits.json()) <= most
    assert plain.status_code == 200 and len(plain.json()) == MAX_PACKS  # real packs: as before


def test_a_pack_counts_in_the_work_budget_by_its_cards() -> None:
    from boosterkit.errors import InputError
    from boosterkit.service.limits import packs_cost

    assert packs_cost("afr-set", 16, 360, 360) == 360  # every real pack counts once
    assert packs_cost("x-tournament", 75, 360, 360) == 360
    assert packs_cost("afr-big", 1_000, 27, 360) == 360  # 14 units a pack
    with pytest.raises(InputError, match="ask for at most 27$"):
        packs_cost("afr-big", 1_000, 28, 360)


def test_big_packs_are_drawn_in_batches_of_bounded_cards(big_packs_db: Path) -> None:
    from boosterkit.database import Database
    from boosterkit.generator.packs import BATCH, BATCH_CARDS, batch_size, iter_packs, prepare

    database = Database.of(big_packs_db)
    compiled, _ = prepare("afr", "afr-big", 1000, 1, database)
    assert compiled.product.pack_cards() >= 1_000
    assert batch_size(compiled) * compiled.product.pack_cards() <= BATCH_CARDS
    plain, _ = prepare("afr", "set", 1000, 1, database)
    assert batch_size(plain) == BATCH
    sizes = [len(p.items) for p in iter_packs("afr", "afr-big", 300, 5, db=big_packs_db)]
    assert len(sizes) == 300 and max(sizes) == compiled.product.pack_cards()


# --- family 6: no NaN in any JSON we write ------------------------------------------------


def strict_json(text: str) -> Any:
    """``json.loads`` that refuses ``NaN``, ``Infinity`` and ``-Infinity`` as JSON does."""

    def refuse(token: str) -> None:
        raise AssertionError(f"{token} in JSON output")

    return json.loads(text, parse_constant=refuse)


def test_non_finite_numbers_in_a_synced_file_are_written_as_null(
    built_scryfall: Path, tmp_path: Path, capsys
) -> None:
    from fastapi.testclient import TestClient

    from boosterkit.service.app import create_app

    cards = json.loads((built_scryfall / "cards" / "one.unique-cards.json").read_text())
    for i, card in enumerate(cards):
        card["cmc"] = ("@nan", "@inf", "@-inf")[i % 3]
        card["power"] = "NaN"
    path = tmp_path / "nan.json"
    path.write_text(raw_json(cards, {"@nan": "NaN", "@inf": "1e400", "@-inf": "-Infinity"}))
    db = tmp_path / "x.duckdb"
    code, _, err = run_cli(capsys, "--db", str(db), "sync", "--file", str(path))
    assert code == 0, err
    code, out, err = run_cli(capsys, "--db", str(db), "open", "one", "-n", "6", "--seed", "1",
                             "-f", "json")  # fmt: skip
    assert code == 0, err
    values = {i["mana_value"] for p in strict_json(out) for i in p["items"] if i["card_id"]}
    assert values == {None}
    code, out, err = run_cli(
        capsys, "--db", str(db), "cards", "one", "--json", "--columns", "name,mana_value"
    )
    assert code == 0 and {c["mana_value"] for c in strict_json(out)} == {None}
    with TestClient(create_app(db), base_url="http://127.0.0.1") as client:
        answer = client.post("/packs", json={"set": "one", "count": 6, "seed": 1})
    assert answer.status_code == 200 and strict_json(answer.text)
    con = pdb.connect(db, read_only=True)
    try:
        assert pdb.scalar(con, "SELECT count(*) FROM cards WHERE power_num IS NOT NULL") == 0
    finally:
        con.close()


def test_a_non_finite_mana_value_in_an_mtgjson_file_is_refused(
    afr_mtgjson, tmp_path: Path, capsys
) -> None:
    data = copy.deepcopy(afr_mtgjson)
    data["data"]["cards"][0]["manaValue"] = "@nan"
    path = tmp_path / "AFR.json"
    path.write_text(raw_json(data, {"@nan": "NaN"}))
    code, _, err = run_cli(capsys, "--db", str(tmp_path / "x.duckdb"), "import", "mtgjson",
                           str(path))  # fmt: skip
    assert str(path) in one_line(code, err)


# --- family 7: memory amplification ----------------------------------------------------------


def _gzip(path: Path, data: bytes) -> Path:
    import gzip

    path.write_bytes(gzip.compress(data, 9))
    return path


@pytest.fixture(scope="module")
def bomb(tmp_path_factory) -> Path:
    """300 KB of gzip, 300 MB of ``[{},{},…]``."""
    folder = tmp_path_factory.mktemp("bomb")
    return _gzip(folder / "cards.json.gz", b"[" + b"{}," * 100_000_000 + b"{}]")


@pytest.mark.parametrize("command", [["sync", "--file"], ["import", "collation"],
                                     ["import", "mtgjson"]])  # fmt: skip
def test_a_small_gzip_of_empty_objects_is_refused_before_it_is_read(
    bomb: Path, tmp_path: Path, capsys, command
) -> None:
    """1.18 GB and exit 2 "Out of Memory Error" before; now one line after its first 2 MB."""
    assert bomb.stat().st_size < 400_000
    db = tmp_path / "x.duckdb"
    code, _, err = run_cli(capsys, "--db", str(db), *command, str(bomb))
    line = one_line(code, err)
    assert "JSON objects in its first 2,097,152 bytes, more than one per 32 bytes" in line


def test_a_gzip_that_expands_past_100_times_its_size_is_refused(tmp_path: Path, capsys) -> None:
    name = b"a" * 60_000_000  # one long name: few objects, but 60 MB from ~60 KB
    bomb = _gzip(tmp_path / "cards.json.gz", b'[{"object": "card", "name": "' + name + b'"}]')
    code, _, err = run_cli(capsys, "--db", str(tmp_path / "x.duckdb"), "sync", "--file",
                           str(bomb))  # fmt: skip
    line = one_line(code, err)
    assert "a gzip file that expands past 100 times its size" in line


def test_real_files_pass_the_expansion_check(scryfall_dir: Path, tmp_path: Path) -> None:
    from boosterkit.pipeline.files import check_expansion

    for path in [*scryfall_dir.glob("cards/*.json"), *scryfall_dir.glob("mtgjson/*.json"),
                 scryfall_dir / "boosters" / "sealed_basic_data.json"]:  # fmt: skip
        check_expansion(path)
        check_expansion(_gzip(tmp_path / (path.name + ".gz"), path.read_bytes()))


def test_out_of_memory_is_a_failure_of_the_world(tmp_path: Path) -> None:
    import duckdb

    from boosterkit.errors import OutOfMemory
    from boosterkit.pipeline import ingest

    error = ingest._duck_error(tmp_path / "x.json", duckdb.OutOfMemoryException("Out of Memory"))
    assert isinstance(error, OutOfMemory) and error.exit_code == 1
    assert "ran out of memory reading it; nothing was changed" in str(error)
    for exc in (MemoryError(), duckdb.OutOfMemoryException("Out of Memory Error: …")):
        with pytest.raises(OutOfMemory) as caught, pdb.guarded(tmp_path / "x.duckdb"):
            raise exc
        assert caught.value.exit_code == 1 and "ran out of memory" in str(caught.value)


# --- family 9: pipes ---------------------------------------------------------------------------


def test_import_mtgjson_reads_a_pipe_on_stdin(built_world, tmp_path: Path) -> None:
    """``cat AFR.json | boosterkit import mtgjson /dev/stdin``: "not an MTGJSON v5 file" before
    (the file was opened three times; a pipe carries its bytes once)."""
    db = tmp_path / "x.duckdb"
    data = (built_world.folder / "AFR.json").read_bytes()
    done = subprocess.run([*CLI, "--db", str(db), "import", "mtgjson", "/dev/stdin"],
                          input=data, capture_output=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert b"imported 2 sets (afr, tafr)" in done.stdout + done.stderr
    done = subprocess.run([*CLI, "--db", str(db), "import", "collation", "/dev/stdin"],
                          input=built_world.sealed.read_bytes(), capture_output=True)  # fmt: skip
    assert done.returncode == 0 and b"products you can open now: afr-arena" in done.stderr
    con = pdb.connect(db, read_only=True)
    try:
        targets = {r[0] for r in con.execute("SELECT target FROM sync_runs").fetchall()}
    finally:
        con.close()
    assert targets == {"/dev/stdin"}


def test_a_fifo_without_a_writer_is_one_line_not_a_wait(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    from boosterkit.pipeline import files

    monkeypatch.setattr(files, "PIPE_WAIT", 0.3)
    fifo = tmp_path / "cards.fifo"
    os.mkfifo(fifo)
    for command in (["import", "mtgjson"], ["import", "collation"], ["sync", "--file"]):
        code, _, err = run_cli(capsys, "--db", str(tmp_path / "x.duckdb"), *command, str(fifo))
        assert f"{fifo}: a pipe that nothing wrote to in 0.3 s" in one_line(code, err)


def test_sync_file_reads_a_fifo(built_scryfall: Path, tmp_path: Path, capsys) -> None:
    """``sync --file FIFO`` said "no such file"."""
    import threading

    fifo = tmp_path / "cards.fifo"
    os.mkfifo(fifo)
    data = (built_scryfall / "cards" / "one.unique-cards.json").read_bytes()
    writer = threading.Thread(target=lambda: fifo.write_bytes(data), daemon=True)
    writer.start()
    try:
        code, out, err = run_cli(capsys, "--db", str(tmp_path / "x.duckdb"), "sync", "--file",
                                 str(fifo))  # fmt: skip
    finally:
        writer.join(10)
    assert code == 0, err
    assert "synced 1 set" in out + err


# --- family 11: messages -----------------------------------------------------------------------


def test_a_boolean_in_the_environment_that_is_none_is_one_line(capsys, monkeypatch) -> None:
    monkeypatch.setenv("BOOSTERKIT_VERBOSE", "maybe")
    code, _, err = run_cli(capsys, "cards", "afr")
    assert "BOOSTERKIT_VERBOSE='maybe': expected 1 or 0" in one_line(code, err)


def test_a_set_with_products_but_no_cards_is_not_suggested_as_itself(
    built_db: Path, tmp_path: Path, capsys
) -> None:
    import duckdb

    db = tmp_path / "x.duckdb"
    db.write_bytes(built_db.read_bytes())
    con = duckdb.connect(str(db))
    con.execute(
        "DELETE FROM card_faces WHERE card_id IN (SELECT id FROM cards WHERE set_code = 'mh2')"
    )
    con.execute("DELETE FROM cards WHERE set_code = 'mh2'")
    con.execute("DELETE FROM sets WHERE code = 'mh2'")
    con.close()
    code, _, err = run_cli(capsys, "--db", str(db), "cards", "mh2")
    line = one_line(code, err)
    assert "did you mean mh2" not in line
    assert "set 'mh2' has no cards in the database (only its booster products)" in line


def test_db_info_on_a_damaged_database_says_so_as_reading_it_does(
    built_scryfall: Path, tmp_path: Path, capsys
) -> None:
    from test_storage_faults import BLOCK, HEADERS, damaged

    good = tmp_path / "good.duckdb"
    code, _, err = run_cli(capsys, "--db", str(good), "sync", "--file",
                           str(built_scryfall / "cards" / "one.unique-cards.json"))  # fmt: skip
    assert code == 0, err
    con = pdb.connect(good)
    con.execute("CHECKPOINT")
    con.close()
    compared = 0
    blocks = range((good.stat().st_size - HEADERS) // BLOCK)
    for block, offset in ((b, o) for b in blocks for o in (16, 4096, 32768)):
        path = damaged(good, tmp_path / f"block{block}-{offset}.duckdb", "block", block, offset)
        try:  # a block some command reading the database would find damaged
            con = pdb.connect(path, read_only=True)
            try:
                pdb.verify(con, path)
                continue
            finally:
                con.close()
        except pdb.DatabaseError:
            compared += 1
        code, out, err = run_cli(capsys, "--db", str(path), "db", "info")
        assert "damaged" in one_line(code, err, exit_code=1), out[:200]
    assert compared, "no block of the test database is found damaged"


def test_a_failed_first_sync_leaves_no_database(built_world, tmp_path: Path, capsys) -> None:
    db = tmp_path / "new.duckdb"
    code, _, err = run_cli(capsys, "--db", str(db), "sync", "--file", str(built_world.sealed))
    one_line(code, err)
    assert not db.exists() and not Path(f"{db}.wal").exists()
    assert not (tmp_path / "new.cache").exists()
    code, _, err = run_cli(capsys, "--db", str(db), "deal", "roll-for-initiative",
                           "--players", "2", "--set", "afr")  # fmt: skip
    assert "no database here yet" in one_line(code, err, exit_code=1)


# --- family 12: more data never deals less ---------------------------------------------------


def test_the_2025_export_does_not_replace_a_product_whose_list_resolves(
    scryfall_dir: Path, tmp_path: Path, capsys
) -> None:
    """With PLIST.json loaded, the 2023 afr-set's ``plist:N`` List cards resolve and the 2025
    export's ``plst:AFR-123`` do not: the import keeps afr-set and says so (before: 300 of
    1,297 sheet cards unresolved, 3 of 8 mimic-match deals failed)."""
    db = tmp_path / "x.duckdb"
    mtgjson = [str(scryfall_dir / "mtgjson" / f"{c}.json") for c in ("AFR", "MAFR", "PLIST")]
    for args in (["import", "mtgjson", *mtgjson],
                 ["import", "collation", str(scryfall_dir / "boosters" / "sealed_basic_data.json")]):  # fmt: skip
        code, _, err = run_cli(capsys, "--db", str(db), *args)
        assert code == 0, err
    _, before, _ = run_cli(capsys, "--db", str(db), "products", "afr")
    deals = [run_cli(capsys, "--db", str(db), "deal", "mimic-match", "--players", "3", "--set",
                     "afr", "--seed", str(s), "--format", "json")[1] for s in range(1, 9)]  # fmt: skip
    code, _, err = run_cli(capsys, "--db", str(db), "import", "collation",
                           str(scryfall_dir / "boosters" / "sealed-2025-07" / "afr-set.json"))  # fmt: skip
    assert code == 0, err
    assert "kept 1 stored product whose sheets resolve more cards here than this file's: " \
        "afr-set (0 unresolved, this file's 300)" in err  # fmt: skip
    _, after, _ = run_cli(capsys, "--db", str(db), "products", "afr")
    assert after == before and "plst" not in after
    for seed, setup in enumerate(deals, start=1):
        code, out, err = run_cli(capsys, "--db", str(db), "deal", "mimic-match", "--players", "3",
                                 "--set", "afr", "--seed", str(seed), "--format", "json")  # fmt: skip
        assert code == 0 and out == setup, err
