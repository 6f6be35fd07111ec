"""The bundled sample: what the committed files hold (``data/sample/make_sample.py`` from
../shared), that the database built from them is the real import's rows, and that every
command reading cards uses it when no database is loaded, read-only, saying so once."""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

import pytest
from conftest import PKG, ROOT, shared_path
from helpers import run_cli

from boosterkit import config
from boosterkit.database import Database
from boosterkit.pipeline import db as pdb
from boosterkit.pipeline import sample

SCRIPT = PKG / "data" / "sample" / "make_sample.py"
NOTICE = "boosterkit: using the bundled sample (AFR): `boosterkit sync SET` loads real data\n"


def make_sample():
    spec = importlib.util.spec_from_file_location("make_sample", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def committed(path: Path):
    return json.loads(gzip.decompress(path.read_bytes()))


@pytest.fixture
def nothing_loaded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No database named, none in the user data folder (a new user); the current folder a
    fresh one. Returns where ``sync``/``import`` write by default."""
    monkeypatch.delenv("BOOSTERKIT_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    default = config.default_db_path()
    assert not default.exists()
    return default


# --- the files ---------------------------------------------------------------------------


def test_committed_sample_is_what_the_script_writes() -> None:
    mtgjson, products = make_sample().sample(shared_path())
    assert committed(sample.MTGJSON_FILE) == mtgjson
    assert committed(sample.SEALED_FILE) == products


def test_sample_holds_afr_the_list_it_names_and_every_minigame_set() -> None:
    data = committed(sample.MTGJSON_FILE)["data"]
    games = {c for c in data if c.startswith("M")}
    assert {"AFR", "PLIST"} | games == set(data) and len(games) == 14
    assert len(data["AFR"]["cards"]) == 420 and len(data["AFR"]["tokens"]) == 22
    assert set(data["AFR"]["booster"]) == {"arena", "default"}
    products = committed(sample.SEALED_FILE)
    assert {p["set_code"] for p in products} == {"afr"} and len(products) == 10
    numbers = make_sample().list_numbers(products)
    kept = {c["number"].rstrip("ab") for c in data["PLIST"]["cards"]}
    assert kept == numbers and len(numbers) == 300  # every one the Set Booster names


def test_the_script_keeps_every_key_the_importer_reads() -> None:
    """A key the MTGJSON importer starts to read (``watermark``) is kept in the sample, or
    this fails naming it (the slow test below would show the rows that differ)."""
    import re

    maker = make_sample()
    source = (PKG / "pipeline" / "mtgjson_transform.py").read_text(encoding="utf-8")
    source += (PKG / "pipeline" / "mtgjson.py").read_text(encoding="utf-8")
    read = set(re.findall(r"""(?:\.get\(|\[)"([a-zA-Z]+)"[\],)]""", source))
    booster = {"allowDuplicates", "balanceColors", "boosters", "contents", "fixed", "foil",
               "sheets", "sourceSetCodes", "totalWeight", "weight"}  # fmt: skip
    summary = {"fill", "id", "openable", "products", "sets", "slots"}  # the importer's own dicts
    kept = {*maker.SET_KEYS, *maker.CARD_KEYS, *maker.IDENTIFIER_KEYS, *maker.FOREIGN_KEYS}
    assert read - kept - booster - summary == set()


def test_the_docs_state_the_bytes_the_sample_adds() -> None:
    sizes = [p.stat().st_size for p in (sample.MTGJSON_FILE, sample.SEALED_FILE)]
    text = (ROOT / "docs" / "data.md").read_text(encoding="utf-8")
    assert f"{sum(sizes):,} bytes" in text, f"docs/data.md: the sample is {sum(sizes):,} bytes"
    assert sum(sizes) < 250_000


@pytest.mark.slow
def test_the_sample_database_is_the_real_import_of_its_rows(
    sample_db: Path, tmp_path: Path
) -> None:
    """Every row the sample holds is the row a full import of ../shared makes: the trimmed
    keys are all the importers read."""
    from boosterkit.pipeline.collation import import_collation
    from boosterkit.pipeline.mtgjson import import_mtgjson

    folder = shared_path("mtgjson")
    files = [folder / f"{c}.json" for c in ("AFR", "PLIST", *make_sample().MINIGAMES)]
    files += sorted((folder / "minigames-2025").glob("*.json"))
    full = tmp_path / "full.duckdb"
    with Database(full).write() as con:
        import_mtgjson(con, files)
        import_collation(con, shared_path("boosters", "sealed_basic_data.json"))
    kept = "(SELECT id FROM s.cards)"
    queries = {
        "cards": f"SELECT * FROM {{db}}cards WHERE id IN {kept} ORDER BY id",
        "card_faces": f"SELECT * FROM {{db}}card_faces WHERE card_id IN {kept} ORDER BY ALL",
        "card_names": f"SELECT * FROM {{db}}card_names WHERE card_id IN {kept} ORDER BY ALL",
        "mtgjson_uuids": f"SELECT * FROM {{db}}mtgjson_uuids WHERE card_id IN {kept} ORDER BY ALL",
        # The List's card_count is of the cards kept
        "sets": "SELECT * EXCLUDE (card_count) FROM {db}sets WHERE code IN "
        "(SELECT code FROM s.sets) ORDER BY code",
    }
    for table in ("products", "product_variants", "variant_slots", "sheets", "sheet_cards"):
        key = "code" if table == "products" else "product_code"
        queries[table] = (
            f"SELECT * FROM {{db}}{table} WHERE {key} IN (SELECT code FROM s.products) ORDER BY ALL"
        )
    con = pdb.connect(full, read_only=True)
    try:
        con.execute(f"ATTACH '{sample_db}' AS s (READ_ONLY)")
        for table, sql in queries.items():
            got = con.execute(sql.format(db="s.")).fetchall()
            assert got and got == con.execute(sql.format(db="")).fetchall(), table
    finally:
        con.close()


# --- the database built from them ---------------------------------------------------------


def test_built_once_in_the_cache_folder_and_marked(sample_db: Path) -> None:
    assert sample_db.parent == config.sample_dir() and sample.ensure() == sample_db
    con = pdb.connect(sample_db, read_only=True)
    try:
        assert sample.is_sample(con)
        kinds = dict(con.execute("SELECT kind, count(*) FROM cards GROUP BY 1").fetchall())
        assert kinds["minigame"] == 52 and kinds["card"] > 600
        codes = {r[0] for r in con.execute("SELECT code FROM products").fetchall()}
        assert {"afr-draft", "afr-set", "afr-collector", "afr-draft-mtgjson"} <= codes
        unresolved = con.execute(
            "SELECT count(*) FROM sheet_cards WHERE product_code = 'afr-set' AND card_id IS NULL"
        ).fetchone()
        assert unresolved == (0,)  # the List cards it names are there (by plist.csv)
    finally:
        con.close()


def test_a_new_version_replaces_the_old_one(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    first = sample.ensure()
    (first.parent / "sample-0000000000000000.duckdb").write_bytes(b"old")
    monkeypatch.setattr(sample, "key", lambda: "1111111111111111")
    second = sample.ensure()
    assert second != first and second.exists()
    assert sorted(p.name for p in second.parent.glob("*.duckdb")) == [second.name]
    assert not list(second.parent.glob(".*"))  # no temporary file left


def test_a_cache_folder_that_cannot_be_written(monkeypatch, tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    path = sample.ensure()
    assert path.exists() and not path.is_relative_to(blocked)
    con = pdb.connect(path, read_only=True)
    assert sample.is_sample(con)
    con.close()


# --- which database a command reads -------------------------------------------------------


def test_with_nothing_loaded_deal_reads_the_sample_and_says_so_once(
    capsys, nothing_loaded: Path, sample_db: Path
) -> None:
    code, out, err = run_cli(capsys, "deal", "roll-for-initiative", "--players", "5", "--seed", "2")
    assert code == 0 and err == NOTICE
    assert "ROLL FOR INITIATIVE [table]" in out and "AFR (set)" in out
    assert not nothing_loaded.exists()  # read-only: nothing written to the user's folder
    code, again, _ = run_cli(
        capsys, "--db", config.SAMPLE, "deal", "roll-for-initiative", "--players", "5",
        "--seed", "2",
    )  # fmt: skip
    assert code == 0 and again == out


@pytest.mark.parametrize(
    "args",
    [
        ["open", "afr"],  # after the README's main job: packs, not "no database here yet"
        ["open", "afr", "--product", "set", "--seed", "7"],
        ["pool", "afr", "--players", "2", "--seed", "1"],
        ["odds", "afr", "-p", "set"],
        ["products", "afr"],
        ["cards", "afr", "--rarity", "mythic"],
        ["sets"],
        ["db", "info"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_every_command_reading_cards_reads_the_sample(
    capsys, nothing_loaded: Path, sample_db: Path, args: list[str]
) -> None:
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    assert err.count(NOTICE) == 1 and out.strip()


def test_the_sample_is_named_in_db_info(capsys, nothing_loaded: Path, sample_db: Path) -> None:
    code, out, _ = run_cli(capsys, "db", "info", "--json")
    assert code == 0 and json.loads(out)["sample"] == "afr"
    assert "the bundled sample (AFR), read-only" in run_cli(capsys, "db", "info")[1]


def test_validate_reads_the_sample(capsys, nothing_loaded: Path, sample_db: Path) -> None:
    code, _, _ = run_cli(
        capsys, "deal", "mimic-match", "--players", "3", "--seed", "2", "-f", "json",
        "-o", "setup.json",
    )  # fmt: skip
    assert code == 0
    code, out, err = run_cli(capsys, "validate", "setup.json")
    assert code == 0 and err == NOTICE and "valid" in out


def test_an_import_writes_the_users_own_database_which_is_read_after(
    capsys, nothing_loaded: Path, sample_db: Path, built_world
) -> None:
    code, _, err = run_cli(capsys, "import", "mtgjson", str(built_world.folder / "MKHM.json"))
    assert code == 0 and NOTICE not in err and nothing_loaded.exists()
    code, out, err = run_cli(capsys, "sets", "--json")
    assert code == 0 and err == "" and [s["code"] for s in json.loads(out)] == ["mkhm"]
    assert Database().path == nothing_loaded and not Database().sample


def test_the_sample_is_never_written(capsys, tmp_path: Path, built_world) -> None:
    mkhm = str(built_world.folder / "MKHM.json")
    for args in (
        ["--db", config.SAMPLE, "import", "mtgjson", mkhm],
        ["db", "rebuild", "--db", ":sample:"],
    ):
        code, out, err = run_cli(capsys, *args)
        assert code == 2 and out == "" and len(err.splitlines()) == 1
        assert ":sample: is the bundled sample, read-only" in err


def test_a_named_database_that_is_missing_is_an_error_naming_the_ones_here(
    capsys, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    pdb.connect(tmp_path / "demo.duckdb").close()
    code, out, err = run_cli(capsys, "open", "afr", "--db", str(tmp_path / "typo.duckdb"))
    assert code == 1 and out == "" and len(err.splitlines()) == 1
    assert "no database here yet; this folder has ./demo.duckdb: `--db ./demo.duckdb`" in err
    assert "`--db :sample:` reads the bundled sample (AFR)" in err


def test_serve_serves_the_sample_and_its_page_says_so(sample_db: Path) -> None:
    from fastapi.testclient import TestClient

    from boosterkit.service.app import create_app

    with TestClient(create_app(sample_db), base_url="http://127.0.0.1") as client:
        health = client.get("/health").json()
        assert health["sample"] == "afr" and health["database"] == sample_db.name
        assert 'id="sample-note"' in client.get("/").text
        assert "Serving the bundled sample" in client.get("/static/page.js").text
        sheet = client.get("/sheet", params={"minigame": "roll-for-initiative", "players": 5,
                                             "seed": 2})  # fmt: skip
        assert sheet.status_code == 200 and "Roll for Initiative" in sheet.text


def test_a_database_of_ones_own_is_not_called_the_sample(built_db: Path) -> None:
    con = pdb.connect(built_db, read_only=True)
    try:
        assert not sample.is_sample(con)
    finally:
        con.close()
