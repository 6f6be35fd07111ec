"""magic-sealed-data import: counts against the export, kinds, resolution, errors, CLI; on the
real export where ``../shared`` is, else the built one (``any_data``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from boosterkit.errors import InputError
from boosterkit.pipeline import db
from boosterkit.pipeline.collation import import_collation, product_kind, sealed_product_code
from boosterkit.pipeline.mtgjson import import_mtgjson


@pytest.fixture(scope="module")
def src(any_data):
    """The world: its export, MTGJSON files and database (real where ``../shared`` is, else built)."""
    return any_data


@pytest.fixture(scope="module")
def export(src) -> list[dict]:
    return json.loads(src.sealed.read_text(encoding="utf-8"))


@pytest.fixture
def imported(src):
    con = db.connect(src.db, read_only=True)
    yield con
    con.close()


def test_every_product_sheet_and_card_is_stored(imported, export, src):
    assert export and (src.name != "real" or len(export) == 329)  # all of the real export
    stored = imported.execute(
        "SELECT count(*) FROM products WHERE source = 'sealed-data'"
    ).fetchone()[0]
    assert stored == len(export)
    for p in export:
        code = sealed_product_code(p["code"], p["set_code"])
        weights = imported.execute(
            "SELECT weight FROM product_variants WHERE product_code = ? ORDER BY variant_index",
            [code],
        ).fetchall()
        assert [w for (w,) in weights] == [b["weight"] for b in p["boosters"]], code
        sheets = dict(
            imported.execute(
                "SELECT sheet_name, total_weight FROM sheets WHERE product_code = ?", [code]
            ).fetchall()
        )
        assert sheets == {n: s["total_weight"] for n, s in p["sheets"].items()}, code
    n_refs = sum(len(s["cards"]) for p in export for s in p["sheets"].values())
    assert (
        imported.execute(
            "SELECT count(*) FROM sheet_cards sc JOIN products p ON p.code = sc.product_code "
            "WHERE p.source = 'sealed-data'"
        ).fetchone()[0]
        == n_refs
    )


def test_variant_slots_keep_the_source_order(imported, export):
    afr_set = next(p for p in export if p["code"] == "afr-set")
    for i, b in enumerate(afr_set["boosters"], start=1):
        rows = imported.execute(
            "SELECT sheet_name, count FROM variant_slots WHERE product_code = 'afr-set' "
            "AND variant_index = ? ORDER BY rowid",
            [i],
        ).fetchall()
        assert rows == list(b["sheets"].items())


@pytest.mark.parametrize(
    "code, set_code, kind, stored",
    [
        ("afr", "afr", "draft", "afr-draft"),
        ("afr-set", "afr", "set", "afr-set"),
        ("afr-collector", "afr", "collector", "afr-collector"),
        ("afr-arena", "afr", "arena", "afr-arena"),
        ("afr-theme-b", "afr", "theme", "afr-theme-b"),
        ("afr-theme-dungeons", "afr", "theme", "afr-theme-dungeons"),
        ("stx-jp", "stx", "draft", "stx-jp"),
        ("stx-set-jp", "stx", "set", "stx-set-jp"),
        ("iko-collector-jp", "iko", "collector", "iko-collector-jp"),
        ("sir-arena-1", "sir", "arena", "sir-arena-1"),
        ("one-jumpstart", "one", "jumpstart", "one-jumpstart"),
        ("5ed-starter", "5ed", "starter", "5ed-starter"),
    ],
)
def test_product_kind_and_code(code, set_code, kind, stored):
    assert product_kind(code, set_code) == kind
    assert sealed_product_code(code, set_code) == stored


def test_every_product_is_stored_with_its_kind(imported, export):
    for p in export:
        stored = sealed_product_code(p["code"], p["set_code"])
        assert imported.execute(
            "SELECT kind, source FROM products WHERE code = ?", [stored]
        ).fetchone() == (product_kind(p["code"], p["set_code"]), "sealed-data"), stored


def test_letter_suffix_resolves_to_the_number_without_it(imported, export):
    refs = [
        (p["code"], r)
        for p in export
        if p["set_code"] in ("znr", "khm", "stx", "mh2")
        for s in p["sheets"].values()
        for r in s["cards"]
        if re.match(r"^(znr|khm|stx|mh2):\d+[a-z](:|$)", r)
    ]
    assert refs, "the export names multi-part cards with a letter"
    for code, ref in refs:
        set_code, number = ref.split(":")[:2]
        product = sealed_product_code(code, code.split("-")[0])
        cid = imported.execute(
            "SELECT card_id FROM sheet_cards WHERE product_code = ? AND ref = ?", [product, ref]
        ).fetchone()[0]
        expected = imported.execute(
            "SELECT id FROM cards WHERE set_code = ? AND collector_number = ?",
            [set_code, number[:-1]],
        ).fetchone()
        assert expected is not None and cid == expected[0], ref


def test_unresolved_are_counted_kept_and_filled_by_a_later_import(mem_db, export, src):
    summary = import_collation(mem_db, src.sealed)
    n_refs = sum(len(s["cards"]) for p in export for s in p["sheets"].values())
    assert summary["products"] == len(export) and summary["sheet_cards"] == n_refs
    assert summary["unresolved"] == n_refs and summary["resolved"] == 0  # empty database
    assert len(summary["unresolved_examples"]) == 5
    for e in summary["unresolved_examples"]:
        product, sheet, ref = e.split()
        assert mem_db.execute(
            "SELECT card_id FROM sheet_cards WHERE product_code = ? AND sheet_name = ? AND ref = ?",
            [product, sheet, ref],
        ).fetchone() == (None,)
    # a later import of the cards fills the references it can
    afr = json.loads((src.mtgjson / "AFR.json").read_text())["data"]["cards"]
    numbers = {c["number"] for c in afr}
    expected = sum(
        1
        for p in export
        for s in p["sheets"].values()
        for r in s["cards"]
        if r.split(":")[0] == "afr" and re.sub(r"[a-z]$", "", r.split(":")[1]) in numbers
    )
    import_mtgjson(mem_db, [src.mtgjson / "AFR.json"])
    resolved = mem_db.execute(
        "SELECT count(*) FROM sheet_cards sc JOIN products p ON p.code = sc.product_code "
        "WHERE card_id IS NOT NULL AND sc.set_code = 'afr' AND p.source = 'sealed-data'"
    ).fetchone()[0]
    assert resolved == expected > 0


def test_reimport_is_idempotent(mem_db, src):
    path = src.sealed
    first = import_collation(mem_db, path)
    tables = ("products", "product_variants", "variant_slots", "sheets", "sheet_cards")
    before = {t: mem_db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}
    assert import_collation(mem_db, path) == first
    assert {t: mem_db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables} == before


def test_a_changed_reimport_stores_what_a_first_import_of_it_does(mem_db, built_sources, tmp_path):
    """Sheet cards are replaced by key (a card that stays is updated in place): a re-import
    of a changed file (a card gone, a weight changed, a card added) leaves every product
    table as a first import of that file into an empty database does, card ids included."""
    src = built_sources
    import_mtgjson(mem_db, [src.mtgjson / "AFR.json"])
    import_collation(mem_db, src.sealed)
    changed = json.loads(src.sealed.read_text(encoding="utf-8"))
    product = next(p for p in changed if p["code"] == "afr-set")
    first, second = list(product["sheets"].values())[:2]
    sheet, refs = first["cards"], list(first["cards"])
    del sheet[refs[0]]
    sheet[refs[1]] += 7
    sheet[next(r for r in second["cards"] if r not in sheet)] = 2  # resolved: it is replaced
    first["total_weight"] = sum(sheet.values())
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(changed), encoding="utf-8")
    import_collation(mem_db, path)
    fresh = db.connect(":memory:")
    try:
        import_mtgjson(fresh, [src.mtgjson / "AFR.json"])
        import_collation(fresh, path)
        for table in ("products", "product_variants", "variant_slots", "sheets", "sheet_cards"):
            query = f"SELECT * FROM {table} ORDER BY ALL"
            assert mem_db.execute(query).fetchall() == fresh.execute(query).fetchall(), table
    finally:
        fresh.close()


def _one_product(**changes) -> list[dict]:
    p = {
        "name": "Test",
        "code": "tst",
        "set_code": "tst",
        "set_name": "Test",
        "boosters": [{"sheets": {"common": 1}, "weight": 1}],
        "sheets": {"common": {"total_weight": 1, "cards": {"tst:1": 1}}},
    }
    p.update(changes)
    return [p]


@pytest.mark.parametrize(
    "data, message",
    [
        ({"not": "a list"}, "expected a JSON list"),
        (
            _one_product(sheets={"common": {"total_weight": 1, "cards": {"tst-1": 1}}}),
            "'tst-1' is not 'set:number",
        ),
        (_one_product(sheets={"common": {"total_weight": 1}}), "'cards' is missing"),
        (_one_product(boosters=[{"sheets": {"rare": 1}, "weight": 1}]), "undefined sheet"),
        (
            _one_product(sheets={"common": {"total_weight": 1, "cards": {"tst:1": -3}}}),
            "is -3, not from 1 to",
        ),
        ([{"code": "x"}], "no 'set_code' key"),
    ],
)
def test_malformed_exports_fail_cleanly(mem_db, tmp_path, data, message):
    bad = tmp_path / "sealed.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(InputError, match=message) as err:
        import_collation(mem_db, bad)
    assert str(bad) in str(err.value) and "\n" not in str(err.value)
    assert mem_db.execute("SELECT count(*) FROM products").fetchone()[0] == 0


@pytest.mark.parametrize(
    "folder, name, message",
    [
        (
            "scryfall",
            "cards/one.unique-cards.json",
            "Scryfall data, not a magic-sealed-data export: use `boosterkit sync --file`$",
        ),
        (
            "scryfall",
            "sets/sets.json",
            "Scryfall data, not a magic-sealed-data export: use `boosterkit sync --file`$",
        ),
        (
            "mtgjson",
            "MAFR.json",
            "an MTGJSON file, not a magic-sealed-data export: use `boosterkit import mtgjson`",
        ),
    ],
)
def test_other_sources_point_to_their_command(mem_db, src, folder, name, message):
    with pytest.raises(InputError, match=message):
        import_collation(mem_db, getattr(src, folder) / name)
    assert mem_db.execute("SELECT count(*) FROM products").fetchone()[0] == 0


def test_cli_json_equals_library(tmp_path, src, export):
    path = str(src.sealed)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "boosterkit.cli",
            "--db",
            str(tmp_path / "cli.duckdb"),
            "import",
            "collation",
            path,
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith(f"imported {len(export)} products")
    con = db.connect(":memory:")
    assert json.loads(proc.stdout) == import_collation(con, path)


def test_cached_export_replays_on_rebuild(db_file, tmp_path, src):
    from boosterkit.pipeline.rebuild import rebuild

    cache = tmp_path / "cache"
    con = db.connect(db_file)
    import_mtgjson(con, [src.mtgjson / "AFR.json"], cache=cache)
    import_collation(con, src.sealed, cache=cache)
    query = (
        "SELECT count(*), count(card_id), sum(weight) FROM sheet_cards sc JOIN products p "
        "ON p.code = sc.product_code WHERE p.source = 'sealed-data'"
    )
    before = con.execute(query).fetchone()
    rebuild(con, cache)
    assert con.execute(query).fetchone() == before
    con.close()
