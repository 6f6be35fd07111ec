"""``boosterkit sets|cards|db info|db rebuild``: --json equals the library's return value."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import run_cli

from boosterkit.errors import InputError, NotFoundError
from boosterkit.pipeline import db, queries, sync


@pytest.fixture(scope="module")
def root(any_sources) -> Path:
    """The Scryfall folder: real where ``../shared`` is, else built."""
    return any_sources.scryfall


def _file(root: Path, *parts: str) -> list | dict:
    return json.loads(root.joinpath(*parts).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def loaded(root: Path, tmp_path_factory) -> Path:
    """A database with the set list and two sets' cards (ONE, WOE with WOT)."""
    path = tmp_path_factory.mktemp("browse") / "t.duckdb"
    con = db.connect(path)
    cache = path.parent / "t.cache"
    for parts in (
        ("sets", "sets.json"),
        ("cards", "one.unique-cards.json"),
        ("cards", "woe+wot.unique-cards.json"),
    ):
        sync.sync_file(con, root.joinpath(*parts), cache=cache)
    con.close()
    return path


def _count(root: Path) -> int:
    """The cards ``loaded`` holds."""
    return len(_file(root, "cards", "one.unique-cards.json")) + len(
        _file(root, "cards", "woe+wot.unique-cards.json")
    )


@pytest.fixture
def cli(capsys):
    """``boosterkit --db PATH ARGS`` in this process (``helpers.run_cli``): its exit code,
    stdout and stderr, as a child process gives them (these runs start no process of their
    own: 27 children cost 6 s of CPU, starting Python)."""

    def run(path: Path, *args: str) -> SimpleNamespace:
        code, out, err = run_cli(capsys, "--db", str(path), *args)
        return SimpleNamespace(returncode=code, stdout=out, stderr=err)

    return run


def _lib(path: Path, fn, *args):
    con = db.connect(path, read_only=True)
    try:
        return fn(con, *args)
    finally:
        con.close()


@pytest.mark.parametrize(
    "args, fn, fargs",
    [
        (["sets", "--json"], queries.list_sets, ()),
        (["sets", "--type", "minigame", "--json"], queries.list_sets, ("minigame",)),
        (["cards", "ONE", "--json"], queries.list_cards, ("one",)),
        (
            ["cards", "woe", "--rarity", "Mythic", "--format", "json"],
            queries.list_cards,
            ("woe", "mythic"),
        ),
    ],
)
def test_json_equals_library(loaded: Path, args, fn, fargs, cli) -> None:
    r = cli(loaded, *args)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == _lib(loaded, fn, *fargs)


def test_db_info_json_equals_library(loaded: Path, root: Path, cli) -> None:
    r = cli(loaded, "db", "info", "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got == _lib(loaded, queries.db_info, loaded)
    assert got["counts"]["cards"] == _count(root) and got["schema_version"] == db.SCHEMA_VERSION
    assert [r["status"] for r in got["last_runs"]] == ["ok", "ok", "ok"]


def test_listing_contents(loaded: Path, root: Path) -> None:
    cards = _lib(loaded, queries.list_cards, "ONE")
    raw = _file(root, "cards", "one.unique-cards.json")
    assert len(cards) == len(raw) > 200
    numbers = [int(c["collector_number"]) for c in cards]
    assert numbers == sorted(numbers)
    mythics = _lib(loaded, queries.list_cards, "one", "mythic")
    assert len(mythics) == sum(c["rarity"] == "mythic" for c in raw) > 0
    minigames = _lib(loaded, queries.list_sets, "minigame")
    assert minigames and all(s["set_type"] == "minigame" for s in minigames)
    assert any(s["code"] == "mclb" and s["parent_set_code"] == "clb" for s in minigames)
    one = next(s for s in _lib(loaded, queries.list_sets) if s["code"] == "one")
    listed = next(s for s in _file(root, "sets", "sets.json")["data"] if s["code"] == "one")
    assert one["cards"] == len(raw) and one["released_at"] == listed["released_at"]


def test_text_output_and_errors(loaded: Path, cli) -> None:
    mythics = len(_lib(loaded, queries.list_cards, "one", "mythic"))
    r = cli(loaded, "cards", "one", "--rarity", "mythic")
    assert r.returncode == 0 and r.stdout.count("\n") == mythics + 2  # header, rule, rows
    r = cli(loaded, "cards", "zzz")
    assert r.returncode == 2 and r.stderr.strip() == (
        "boosterkit: error: unknown set 'zzz' (loaded sets: `boosterkit sets`; "
        "to load one: `boosterkit sync zzz`)"
    )
    r = cli(loaded, "cards", "onr")
    assert r.returncode == 2 and "unknown set 'onr' — did you mean one? (" in r.stderr
    r = cli(loaded, "cards", "one", "--rarity", "shiny")
    assert r.returncode == 2 and "rarity 'shiny'" in r.stderr and "Traceback" not in r.stderr
    # a near miss is suggested, as every other option's value is (issue 34)
    r = cli(loaded, "cards", "one", "--rarity", "mythc")
    assert r.returncode == 2 and r.stderr.strip() == (
        "boosterkit: error: unknown rarity 'mythc' — did you mean mythic? (rarities: common, "
        "uncommon, rare, mythic, special, bonus) (--rarity)"
    )
    r = cli(loaded, "cards", "one", "--q", "r:mythc")
    assert r.returncode == 2 and "unknown rarity 'mythc' — did you mean mythic?" in r.stderr
    with pytest.raises(NotFoundError):
        _lib(loaded, queries.list_cards, "nope")
    with pytest.raises(InputError):
        _lib(loaded, queries.list_cards, "one", "shiny")


def test_unknown_set_type_is_an_error_listing_the_types_present(loaded: Path, cli) -> None:
    r = cli(loaded, "sets", "--type", "bogus")
    present = sorted({s["set_type"] for s in _lib(loaded, queries.list_sets)})
    assert "eternal" in present and "minigame" in present  # from the set list
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == (
        f"boosterkit: error: unknown set type 'bogus' (types in the database: "
        f"{', '.join(present)})\n"
    )
    # a Scryfall type is a filter even with no set of it loaded; case does not matter
    assert _lib(loaded, queries.list_sets, "Vanguard") == [
        s for s in _lib(loaded, queries.list_sets) if s["set_type"] == "vanguard"
    ]
    con = db.connect(":memory:")
    assert queries.list_sets(con, "alchemy") == []
    with pytest.raises(
        InputError,
        match=r"^unknown set type 'bogus' \(the database has no sets yet: `boosterkit sync --sets`\)$",
    ):
        queries.list_sets(con, "bogus")


def test_missing_database_is_one_line(tmp_path: Path, cli) -> None:
    r = cli(tmp_path / "none.duckdb", "sets")
    assert r.returncode == 1 and "no database here yet" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "none.duckdb").exists()


def test_db_rebuildcli(loaded: Path, root: Path, tmp_path: Path, cli) -> None:
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(loaded.read_bytes())
    (tmp_path / "copy.cache").symlink_to(loaded.parent / "t.cache")
    before = _lib(copy, queries.list_cards, "woe")
    r = cli(copy, "db", "rebuild", "--json")
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    assert result["runs"] == 3 and result["cards"] == _count(root)
    assert _lib(copy, queries.list_cards, "woe") == before
