"""The List (issue 18): ``plist:N`` (magic-sealed-data before 2024) resolves from an
imported PLIST.json and, through ``data/boosters/plist.csv``, from a Scryfall sync of
``plst``; ``plst:SET-NUM`` and ``spg:N`` (the 2025 export) by set and number; what is
missing names the command that brings it; with The List loaded every AFR Set Booster deals."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import play_fixtures as pf
import pytest
from conftest import PKG, shared_path
from helpers import run_cli

from boosterkit.generator.products import fill_hints, list_products, resolve_product
from boosterkit.minigames import SetupError, deal
from boosterkit.pipeline import db, thelist
from boosterkit.pipeline.collation import import_collation, write_products
from boosterkit.pipeline.mtgjson import import_mtgjson
from boosterkit.pipeline.sync import sync_file

SCRIPT = PKG / "data" / "boosters" / "make_plist.py"


def _script():
    spec = importlib.util.spec_from_file_location("make_plist", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_table_is_what_the_script_derives_from_plist_json() -> None:
    source = shared_path("mtgjson", "PLIST.json")
    text = thelist.LIST_FILE.read_text(encoding="utf-8")
    assert text == _script().plist_csv(source)
    assert "3c2281531ccc0b25f11d36e40ed1831400e78108" in text  # the source's commit
    ids = thelist.list_ids()
    assert len(ids) == 727 and set(ids) == {str(n) for n in range(1, 728)}
    assert ids["1"] == "f6653228-50b6-4485-9e84-9774f2e2d6c9"  # PLIST 1, Iterative Analysis


def test_a_bad_table_line_is_an_error_naming_the_line(tmp_path: Path) -> None:
    from boosterkit.errors import InputError

    bad = tmp_path / "plist.csv"
    bad.write_text("# x\nnumber,scryfall_id\n1,f6653228-50b6-4485-9e84-9774f2e2d6c9\n2,nope\n")
    with pytest.raises(InputError, match=r"plist.csv: line 4: expected 'NUMBER,SCRYFALL_ID'"):
        thelist.list_ids(bad)


def _ref(ref: str) -> dict:
    s, num = ref.split(":")
    return {"ref": ref, "set_code": s, "collector_number": num, "foil": False, "weight": 1}


def _list_product(refs: list[str]) -> dict:
    return {
        "code": "zzz-set", "set_code": "zzz", "name": "ZZZ Set Booster", "kind": "set",
        "source": "sealed-data", "variants": [{"weight": 1, "slots": [("the_list", 1)]}],
        "sheets": [{"name": "the_list", "foil": False, "balance_colors": False,
                    "allow_duplicates": False, "fixed": False, "total_weight": len(refs),
                    "cards": [_ref(r) for r in refs]}],
    }  # fmt: skip


REFS = ["plist:1", "plist:108a", "plist:1076", "plst:AFR-5", "spg:19"]


def _plst_cards() -> list[dict]:
    """Scryfall `plst` printings numbered after their original set, with the ids the table
    gives PLIST 1 and 108, one more `plst` card and a Special Guest (made-up fields)."""
    ids = thelist.list_ids()
    one = dict(pf.card("plst", "CNS-1", "uncommon", "2020-09-26", **pf.BONUS), id=ids["1"])
    split = dict(pf.card("plst", "DGM-2", "rare", "2020-09-26", **pf.BONUS), id=ids["108"])
    return [one, split, pf.card("plst", "AFR-5", "rare", "2021-07-23", **pf.BONUS)] + pf.guests(
        19, 1, "2024-02-09"
    )


@pytest.mark.parametrize("order", ["products first", "cards first"])
def test_old_numbers_resolve_from_a_plst_sync(tmp_path: Path, order: str) -> None:
    """At read time (products stored before the sync) and at write time (after) alike:
    `plist:N` through the table (108a is 108), `plst:SET-NUM` and `spg:N` by set and number;
    1076 is past the table (PLIST.json numbers 1–727) and stays unresolved."""
    cards = pf.write(tmp_path / "plst.json", _plst_cards())
    with db.connect(tmp_path / "t.duckdb") as con:
        if order == "products first":
            write_products(con, [_list_product(REFS)])
            sync_file(con, cards, cache=tmp_path / "cache")
        else:
            sync_file(con, cards, cache=tmp_path / "cache")
            write_products(con, [_list_product(REFS)])
        sheet = resolve_product(con, "zzz", "set").sheets["the_list"]
        (listed,) = list_products(con, "zzz")
    got = {(c.set, c.collector_number): c.resolved for c in sheet.cards}
    assert got == {
        ("plst", "CNS-1"): True,
        ("plst", "DGM-2"): True,
        ("plist", "1076"): False,
        ("plst", "AFR-5"): True,
        ("spg", "19"): True,
    }
    assert listed["unresolved_sets"] == {"plist": 1} and listed["fill"] == []  # nothing brings it


def test_old_numbers_resolve_from_plist_json_and_a_later_sync_keeps_them(tmp_path: Path) -> None:
    """An imported PLIST.json resolves `plist:N` by set and number; when a sync of `plst`
    later moves those printings to Scryfall's numbering, the table still finds them."""
    path = tmp_path / "t.duckdb"
    with db.connect(path) as con:
        write_products(con, [_list_product(REFS)])
        import_mtgjson(con, [shared_path("mtgjson", "PLIST.json")])
        before = resolve_product(con, "zzz", "set").sheets["the_list"].cards
        sync_file(con, pf.write(tmp_path / "plst.json", _plst_cards()), cache=tmp_path / "c")
        after = resolve_product(con, "zzz", "set").sheets["the_list"].cards
    ids = thelist.list_ids()
    found = {(c.set, c.collector_number): c.card_id for c in before if c.resolved}
    assert found == {("plist", "1"): ids["1"], ("plist", "108"): ids["108"]}
    found = {(c.set, c.collector_number): c.card_id for c in after if c.resolved}
    assert found == {
        ("plst", "CNS-1"): ids["1"],
        ("plst", "DGM-2"): ids["108"],
        ("plst", "AFR-5"): pf.card("plst", "AFR-5", "rare", "")["id"],
        ("spg", "19"): pf.guests(19, 1, "")[0]["id"],
    }


def test_fill_hints_for_the_list() -> None:
    imp, sync = "boosterkit import mtgjson …/PLIST.json", "boosterkit sync plst"
    assert fill_hints("afr", ["plist"]) == [imp, sync]
    assert fill_hints("afr", ["plist"], ["291", "1076"]) == [imp, sync]
    assert fill_hints("one", ["plist"], ["1076"]) == []  # past PLIST.json: nothing brings it
    assert fill_hints("mkm", ["plst", "spg", "plist"]) == [
        "boosterkit sync plst",
        "boosterkit sync spg",
        imp,
    ]
    assert fill_hints("stx", ["sta", "stx"]) == ["boosterkit sync stx", "boosterkit sync sta"]


GAMES = (("roll-for-initiative", 4), ("mimic-match", 3), ("base-race", 2))


@pytest.fixture(scope="module")
def readme_db(tmp_path_factory) -> Path:
    """The README's offline data plus PLIST.json."""
    path = tmp_path_factory.mktemp("readme") / "demo.duckdb"
    with db.connect(path) as con:
        import_mtgjson(
            con,
            [shared_path("mtgjson", f) for f in ("AFR.json", "MAFR.json", "PLIST.json")],
        )
        import_collation(con, shared_path("boosters", "sealed_basic_data.json"))
    return path


def test_readme_data_deals_every_seed_from_afr_set_boosters(readme_db: Path, capsys) -> None:
    """Done when: 20 of 20 seeds deal Roll for Initiative (4), Mimic Match (3) and Base Race
    (2) from AFR Set Boosters; `products afr` has nothing left to fill."""
    with db.connect(readme_db, read_only=True) as con:
        for game, players in GAMES:
            for seed in range(1, 21):
                setup = deal(con, game, players, "afr", seed=seed)
                assert setup.product == "set" and all(p.product == "afr-set" for p in setup.packs)
        listed = {p["code"]: p for p in list_products(con, "afr")}
    # every sheet card resolves; only the art cards (AAFR, no file here) are left to fill
    assert listed["afr-set"]["unresolved"] == 0
    assert listed["afr-set"]["fill"] == ["boosterkit sync afr (brings aafr)"]
    code, out, _ = run_cli(capsys, "--db", str(readme_db), "products", "afr")
    assert code == 0 and "plst" not in out and "PLIST" not in out


def test_without_the_list_the_refusal_names_the_fix_and_a_product_that_deals(
    real_db: Path, tmp_path: Path, capsys
) -> None:
    """real_db has no List cards: about half the seeds of Mimic Match at 3 are refused, each
    in one short sentence naming the commands, and `--product draft` deals that seed."""
    refused = 0
    with db.connect(real_db, read_only=True) as con:
        for seed in range(1, 21):
            try:
                deal(con, "mimic-match", 3, "afr", seed=seed)
            except SetupError as exc:
                refused += 1
                message = str(exc)
                assert message.startswith("Mimic Match: ") and len(message) < 160
                assert "`boosterkit import mtgjson …/PLIST.json` or `boosterkit sync plst`" in (
                    message
                )
                assert message.endswith(", or deal `--product draft`.")
                assert deal(con, "mimic-match", 3, "afr", product="draft", seed=seed)
    assert 4 <= refused <= 16
    fixed = tmp_path / "fixed.duckdb"
    shutil.copy(real_db, fixed)
    code, _, err = run_cli(
        capsys, "--db", str(fixed), "import", "mtgjson", str(shared_path("mtgjson", "PLIST.json"))
    )
    assert code == 0 and "imported 1 set (plist)" in err
    with db.connect(fixed, read_only=True) as con:
        for seed in range(1, 21):
            deal(con, "mimic-match", 3, "afr", seed=seed)  # every seed deals now


def test_simulate_that_deals_nothing_fails_naming_the_sync(
    real_db: Path, tmp_path: Path, capsys
) -> None:
    """ONE from Scryfall's one-printing-per-name dump: its Set Boosters' basics are not in
    it, so Base Race deals no setup at all: simulate fails (issue 30: a run that dealt
    nothing exits 1), saying what it opened and what would bring the cards."""
    from boosterkit.minigames.referee.runner import simulate

    path = tmp_path / "one.duckdb"
    shutil.copy(real_db, path)
    with db.connect(path) as con:
        sync_file(con, shared_path("cards", "one.unique-cards.json"), cache=tmp_path / "cache")
        with pytest.raises(SetupError) as err:
            simulate(con, "base-race", 2, "one", seed=1, games=3)
    said = str(err.value)
    assert said.startswith("simulate: none of the 3 setups could be dealt, so no game was played")
    assert "`boosterkit sync one`" in said
