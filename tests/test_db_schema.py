"""The package, its one namespace, the database schema and derived columns."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from boosterkit.pipeline import db, load

ROOT = Path(__file__).resolve().parents[1]


def test_schema_created_and_versioned(db_file: Path) -> None:
    con = db.connect(db_file)
    assert db.schema_version(con) == db.SCHEMA_VERSION
    tables = {
        r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()
    }
    assert {
        "sets",
        "cards",
        "card_faces",
        "sync_runs",
        "products",
        "sheets",
        "sheet_cards",
    } <= tables
    con.close()
    # Re-opening does not migrate again, read-only opens work on a current file.
    ro = db.connect(db_file, read_only=True)
    assert db.schema_version(ro) == db.SCHEMA_VERSION
    ro.close()


def test_newer_schema_is_refused(db_file: Path) -> None:
    con = db.connect(db_file)
    con.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    con.close()
    with pytest.raises(db.DatabaseError, match="newer"):
        db.connect(db_file)


def test_transaction_rolls_back_on_error(mem_db) -> None:
    with pytest.raises(RuntimeError):
        with db.transaction(mem_db):
            mem_db.execute("INSERT INTO sets (code, name) VALUES ('zzz', 'Z')")
            raise RuntimeError("boom")
    assert mem_db.execute("SELECT count(*) FROM sets").fetchone()[0] == 0


def _stage(con, rows):
    load.create_staging(con)
    for r in rows:
        cols = ", ".join(r)
        con.execute(
            f"INSERT INTO stage_cards ({cols}) VALUES ({', '.join('?' * len(r))})", list(r.values())
        )


def test_derived_columns(mem_db) -> None:
    mem_db.execute(
        "INSERT INTO sets (code, set_type) VALUES ('afr','expansion'),('mafr','minigame'),"
        "('tafr','token'),('aafr','memorabilia')"
    )
    base = {"source": "scryfall"}
    _stage(
        mem_db,
        [
            {
                "id": "land",
                "name": "Forest",
                "set_code": "afr",
                "collector_number": "280",
                "layout": "normal",
                "type_line": "Basic Land — Forest",
                **base,
            },
            {
                "id": "bear",
                "name": "Bear",
                "set_code": "afr",
                "collector_number": "1",
                "layout": "normal",
                "type_line": "Legendary Creature — Bear",
                "power": "2",
                "toughness": "*",
                **base,
            },
            {
                "id": "tok",
                "name": "Angel",
                "set_code": "tafr",
                "collector_number": "1",
                "layout": "token",
                "type_line": "Token Creature — Angel",
                **base,
            },
            {
                "id": "mini",
                "name": "Roll for Initiative",
                "set_code": "mafr",
                "collector_number": "5",
                "layout": "double_faced_token",
                "type_line": "Card // Card",
                **base,
            },
            {
                "id": "art",
                "name": "Art",
                "set_code": "aafr",
                "collector_number": "1",
                "layout": "art_series",
                "type_line": "Card // Card",
                **base,
            },
            {
                "id": "mdfc",
                "name": "X // Y",
                "set_code": "afr",
                "collector_number": "2",
                "layout": "modal_dfc",
                "type_line": "Instant // Land",
                **base,
            },
        ],
    )
    assert load.upsert_staged(mem_db) == 6
    got = {
        r[0]: r[1:]
        for r in mem_db.execute(
            "SELECT id, kind, magic_back, is_land, is_basic_land, is_creature, is_legendary, "
            "is_double_faced, power_num, toughness_num FROM cards"
        ).fetchall()
    }
    assert got["land"] == ("card", True, True, True, False, False, False, None, None)
    assert got["bear"] == ("card", True, False, False, True, True, False, 2.0, None)
    assert got["tok"][:2] == ("token", False)
    assert got["mini"][:2] == ("minigame", False)
    assert got["art"][:2] == ("art_card", False)
    assert got["mdfc"] == ("card", False, False, False, False, False, True, None, None)


def test_secondary_source_never_overwrites_scryfall(mem_db) -> None:
    _stage(
        mem_db,
        [
            {
                "id": "a",
                "name": "Scryfall Name",
                "set_code": "afr",
                "collector_number": "1",
                "source": "scryfall",
            }
        ],
    )
    load.upsert_staged(mem_db)
    _stage(
        mem_db,
        [
            {
                "id": "a",
                "name": "MTGJSON Name",
                "set_code": "afr",
                "collector_number": "1",
                "source": "mtgjson",
            }
        ],
    )
    load.upsert_staged(mem_db, keep_scryfall=True)
    assert mem_db.execute("SELECT name, source FROM cards").fetchall() == [
        ("Scryfall Name", "scryfall")
    ]


def test_wheel_installs_one_namespace(tmp_path: Path) -> None:
    """No bare top-level cli/generator/pipeline modules: everything is under boosterkit."""
    pytest.importorskip("build")
    src = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.duckdb", ".venv", "build", "*.egg-info")
    for name in ("pyproject.toml", "README.md"):
        src.mkdir(exist_ok=True)
        shutil.copy(ROOT / name, src / name)
    # the package alone: the top-level pipeline/, generator/… are links into it
    shutil.copytree(ROOT / "boosterkit", src / "boosterkit", ignore=ignore)
    out = tmp_path / "dist"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(out),
            str(src),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    log = done.stdout + done.stderr
    # every folder of files is a listed package; the license is an SPDX expression
    assert "would be ignored" not in log and "license` as a TOML table" not in log, log
    wheel = next(out.glob("boosterkit-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.startswith("boosterkit-")}
    assert top == {"boosterkit"}
    assert "boosterkit/pipeline/db.py" in names
    assert "boosterkit/cli/app.py" in names
    assert "boosterkit/generator/model.py" in names
    # every package in the source tree is in the wheel (a subpackage missing from
    # pyproject's explicit list would only show in a non-editable install)
    for init in ROOT.glob("*/**/__init__.py"):
        rel = init.relative_to(ROOT)
        if rel.parts[0] in {"pipeline", "generator", "cli", "data", "minigames", "service"}:
            assert f"boosterkit/{rel.as_posix()}" in names, rel
    assert "boosterkit/py.typed" in names  # type checkers read the installed package's hints
    assert "boosterkit/data/boosters/nonmagic.yaml" in names
    assert "boosterkit/service/static/index.html" in names
    assert any(n.startswith("boosterkit/data/minigames/") and n.endswith(".yaml") for n in names)


def test_column_maps_name_the_tables_as_they_are(mem_db) -> None:
    """``load.SET_COLUMNS``/``FACE_COLUMNS`` (read by every source) are the tables' columns."""
    for table, columns in (("sets", load.SET_COLUMNS), ("card_faces", load.FACE_COLUMNS)):
        described = {r[0]: r[1] for r in mem_db.execute(f"DESCRIBE {table}").fetchall()}
        assert described == columns
