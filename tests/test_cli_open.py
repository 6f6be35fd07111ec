"""``boosterkit open`` on the built AFR: formats, seeds, reproducibility, errors."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli as run

from boosterkit.cli.render import to_json
from boosterkit.generator import open_packs


def test_json_equals_the_library(capsys, built_db: Path) -> None:
    code, out, _ = run(capsys, "--db", str(built_db), "open", "afr", "-p", "set", "-n", "25",
                       "--seed", "77", "--format", "json")  # fmt: skip
    assert code == 0
    lib = [p.to_dict() for p in open_packs("afr", "set", 25, 77, db=built_db)]
    assert json.loads(out) == lib
    assert out == to_json(lib) + "\n"  # byte for byte, as render.emit would print it
    assert {p["product"] for p in lib} == {"afr-set"} and [p["index"] for p in lib] == list(
        range(1, 26)
    )


def test_jsonl_first_pack_is_the_first_of_3000(capsys, built_db: Path) -> None:
    base = ["--db", str(built_db), "open", "afr", "--seed", "4242", "--format", "jsonl"]
    _, one, _ = run(capsys, *base, "-n", "1")
    _, many, _ = run(capsys, *base, "-n", "3000")
    lines = many.splitlines()
    assert len(lines) == 3000 and one == lines[0] + "\n"
    assert lines[0] == to_json(json.loads(lines[0]), indent=None)
    packs = [json.loads(x) for x in lines]
    assert [p["index"] for p in packs] == list(range(1, 3001))
    uids = [i["uid"] for p in packs for i in p["items"]]
    assert len(uids) == len(set(uids)) and uids[:2] == ["p1-1", "p1-2"]
    _, again, _ = run(capsys, *base, "-n", "3000")
    assert again == many


def test_seed_is_chosen_and_printed_when_absent(capsys, built_db: Path) -> None:
    code, out, err = run(capsys, "--db", str(built_db), "open", "afr", "-f", "jsonl", "-n", "2")
    assert code == 0
    seed = int(err.split("--seed ")[1].split(")")[0])
    assert all(json.loads(x)["seed"] == seed for x in out.splitlines())
    _, replay, _ = run(capsys, "--db", str(built_db), "open", "afr", "-f", "jsonl", "-n", "2",
                       "--seed", str(seed))  # fmt: skip
    assert replay == out


def test_csv_is_one_item_a_row(capsys, built_db: Path) -> None:
    _, out, _ = run(capsys, "--db", str(built_db), "open", "afr", "-p", "set", "-n", "3",
                    "--seed", "5", "-f", "csv")  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(out)))
    packs = open_packs("afr", "set", 3, 5, db=built_db)
    assert len(rows) == sum(len(p.items) for p in packs)
    assert [r["uid"] for r in rows] == [i.uid for p in packs for i in p.items]
    assert [r["name"] for r in rows] == [i.name or "" for p in packs for i in p.items]
    assert {r["pack"] for r in rows} == {"1", "2", "3"}


def test_text_marks_foil_and_non_magic_backs(capsys, built_db: Path, tmp_path: Path) -> None:
    target = tmp_path / "packs.txt"
    code, out, _ = run(capsys, "--db", str(built_db), "open", "afr", "-p", "afr-set", "-n", "4",
                       "--seed", "3", "-o", str(target))  # fmt: skip
    assert code == 0 and out == ""
    text = target.read_text(encoding="utf-8")
    packs = open_packs("afr", "afr-set", 4, 3, db=built_db)
    assert text.count("Pack ") == 4
    assert text.count("[foil") == sum(i.foil for p in packs for i in p.items)
    assert text.count("no Magic back") == sum(not i.magic_back for p in packs for i in p.items)
    first = packs[0].items[1]
    assert f"{first.name}  ({first.set} {first.collector_number})" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["open", "zzz"], "set 'zzz'"),
        (["open", "afr", "-p", "nosuch"], "its products: `boosterkit products afr`"),
        (["open", "afr", "-p", "colector"], "— did you mean collector? ("),
        (["open", "afr", "-n", "0"], "at least 1 pack"),
        (["open", "afr", "--seed", "-3"], "seed must be an integer"),
        (["open", "afr", "-o", "/nonexistent-dir/packs.json"], "-o /nonexistent-dir/packs.json"),
    ],
)
def test_errors_are_one_line(capsys, built_db: Path, tmp_path: Path, args, message) -> None:
    target = tmp_path / "never.json"
    if "-o" not in args:
        args = [*args, "-o", str(target)]
    code, out, err = run(capsys, "--db", str(built_db), *args)
    assert code != 0 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("boosterkit: error: ") and message in lines[0]
    assert not target.exists()  # no half-written output


def test_missing_database_is_a_clear_error(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "boosterkit.cli", "--db", str(tmp_path / "none.duckdb"), "open", "afr"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "no database" in proc.stderr and str(tmp_path / "none.duckdb") in proc.stderr


def test_the_library_does_not_import_the_cli() -> None:
    # Thick library, thin CLI: pack writers and the service share serialisers with the CLI
    # through boosterkit.serialize, never by importing boosterkit.cli.
    code = (
        "import sys, boosterkit.generator.output, boosterkit.generator.cache, boosterkit.service.app\n"
        "print(sorted(m for m in sys.modules if m.startswith('boosterkit.cli')))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"


def test_byte_identical_across_processes_and_hash_seeds(built_db: Path) -> None:
    # Nothing may depend on str hashing (set iteration order) or other per-process state:
    # two fresh processes with different PYTHONHASHSEED print the same bytes, which are the
    # library's packs.
    import os

    cmd = [sys.executable, "-m", "boosterkit.cli", "--db", str(built_db), "open", "afr", "-p",
           "set", "-n", "300", "--seed", "9", "-f", "jsonl"]  # fmt: skip
    outs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        outs.append(
            subprocess.run(cmd, capture_output=True, env=env, check=True, timeout=120).stdout
        )
    assert outs[0] == outs[1]
    lib = open_packs("afr", "set", 300, 9, db=built_db)
    assert outs[0].decode() == "".join(to_json(p.to_dict(), indent=None) + "\n" for p in lib)


def test_a_whole_run_is_written_from_drawn_batches_as_pack_by_pack(
    built_db: Path, built_products: list[tuple[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``open -f jsonl`` draws the run batch by batch and lays each batch's lines out at
    once (``JsonLines.layout``: one variant's length, in chunks; packs of mixed lengths,
    line by line), never a ``Pack`` object (issue 36): the same bytes as each pack's own
    line, for every product of the test world, over batches of a few packs, through a
    UTF-8 buffer and through a Latin-1 text stream; a run some packs were taken from is
    written pack by pack."""
    from boosterkit.generator import iter_packs
    from boosterkit.generator.output import write_jsonl

    db = _in_batches_of_seven(built_db, monkeypatch)
    for set_code, code in built_products:
        want = "".join(
            to_json(p.to_dict(), indent=None) + "\n" for p in open_packs(set_code, code, 40, 3, db)
        )
        raw = io.BytesIO()
        stream = io.TextIOWrapper(raw, encoding="utf-8")
        assert write_jsonl(iter_packs(set_code, code, 40, 3, db), stream) == 40
        stream.flush()
        assert raw.getvalue().decode() == want, code
        latin = io.TextIOWrapper(io.BytesIO(), encoding="latin-1", errors="replace")
        assert write_jsonl(iter_packs(set_code, code, 40, 3, db), latin) == 40
        latin.flush()
        assert latin.buffer.getvalue() == want.encode("latin-1", "replace")  # type: ignore[attr-defined]
        taken = iter_packs(set_code, code, 40, 3, db)
        first = next(taken)
        rest = io.StringIO()
        assert write_jsonl(taken, rest) == 39 and first.index == 1
        assert rest.getvalue() == want.split("\n", 1)[1]


def test_a_whole_run_is_written_as_a_json_list_from_drawn_batches(
    built_db: Path, built_products: list[tuple[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``open -f json`` and ``POST /packs`` (``output.run_json``) lay a run's packs out as
    ``open -f jsonl`` does (``PrettyPacks.layout``), no ``Pack`` object made (issue 36): the
    same bytes as ``serialize.to_json`` of the packs' dicts, for every product of the test
    world, over batches of a few packs; a run some packs were taken from, pack by pack."""
    from boosterkit.generator import iter_packs
    from boosterkit.generator.cache import compiled
    from boosterkit.generator.output import run_json, write_json

    db = _in_batches_of_seven(built_db, monkeypatch)
    for set_code, code in built_products:
        drawn = open_packs(set_code, code, 40, 3, db)
        want = to_json([p.to_dict() for p in drawn]) + "\n"
        raw = io.BytesIO()
        stream = io.TextIOWrapper(raw, encoding="utf-8")
        assert write_json(iter_packs(set_code, code, 40, 3, db), stream) == 40
        stream.flush()
        assert raw.getvalue().decode() == want, code
        cp = compiled(db, set_code, code)
        assert run_json(cp, 3, 40) == want.encode(), code  # past FEW_PACKS: laid out
        assert run_json(cp, 3, 2) == (to_json([p.to_dict() for p in drawn[:2]]) + "\n").encode()
        taken = iter_packs(set_code, code, 40, 3, db)
        next(taken)
        rest = io.StringIO()
        assert write_json(taken, rest) == 39
        assert rest.getvalue() == to_json([p.to_dict() for p in drawn[1:]]) + "\n"
    assert run_json(cp, 3, 0) == b"[]\n"


def _in_batches_of_seven(built_db: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The test world's ``Database``, its runs drawn in batches of 7 packs of 16 cards."""
    from boosterkit.database import Database
    from boosterkit.generator import packs

    monkeypatch.setattr(packs, "BATCH_CARDS", 16 * 7)
    return Database(built_db)
