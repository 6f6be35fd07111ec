"""MTGO catalogue ids (issue 31): kept at import from MTGJSON (``identifiers.mtgoId`` /
``mtgoFoilId``) and Scryfall (``mtgo_id`` / ``mtgo_foil_id``), migration 6 adding them to an
older database, so an MTGO ``.dek`` names each card by its ``CatID``."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import shared_path

from boosterkit.pipeline import db
from boosterkit.pipeline.mtgjson import import_mtgjson
from boosterkit.pipeline.mtgjson_transform import merge_printing
from boosterkit.pipeline.sync import sync_file


def test_mtgjson_identifiers_give_the_mtgo_ids() -> None:
    entry = {"identifiers": {"scryfallId": "x", "mtgoId": "91504", "mtgoFoilId": "91505"},
             "name": "+2 Mace", "setCode": "AFR", "number": "1"}  # fmt: skip
    card, _ = merge_printing([entry], in_booster=True, released_at=None)
    assert (card["mtgo_id"], card["mtgo_foil_id"]) == (91504, 91505)
    entry["identifiers"] = {"scryfallId": "x", "mtgoId": "not a number"}
    card, _ = merge_printing([entry], in_booster=True, released_at=None)
    assert (card["mtgo_id"], card["mtgo_foil_id"]) == (None, None)


def test_real_afr_import_keeps_each_cards_mtgo_id(tmp_path: Path) -> None:
    path = shared_path("mtgjson", "AFR.json")
    cards = json.loads(path.read_text(encoding="utf-8"))["data"]["cards"]
    want = {c["identifiers"]["scryfallId"]: int(c["identifiers"]["mtgoId"])
            for c in cards if "mtgoId" in c["identifiers"]}  # fmt: skip
    con = db.connect(tmp_path / "afr.duckdb")
    import_mtgjson(con, [path])
    got = dict(con.execute("SELECT id, mtgo_id FROM cards WHERE mtgo_id IS NOT NULL").fetchall())
    con.close()
    assert got == want and len(got) > 250
    assert (
        got[next(c["identifiers"]["scryfallId"] for c in cards if c["name"] == "+2 Mace")] == 91504
    )


def test_scryfall_cards_keep_mtgo_and_mtgo_foil_ids(tmp_path: Path) -> None:
    source = json.loads(shared_path("cards", "one.unique-cards.json").read_text(encoding="utf-8"))
    two = [dict(source[0], mtgo_foil_id=source[0]["mtgo_id"] + 1), source[1]]
    (tmp_path / "two.json").write_text(json.dumps(two), encoding="utf-8")
    con = db.connect(tmp_path / "one.duckdb")
    sync_file(con, tmp_path / "two.json", cache=tmp_path / "cache")
    rows = con.execute("SELECT id, mtgo_id, mtgo_foil_id FROM cards ORDER BY id").fetchall()
    con.close()
    want = sorted((c["id"], c["mtgo_id"], c.get("mtgo_foil_id")) for c in two)
    assert rows == want and rows[0][1] is not None


def test_a_version_5_database_gains_the_columns(tmp_path: Path) -> None:
    import duckdb

    old = duckdb.connect(str(tmp_path / "v5.duckdb"))
    for sql in db.MIGRATIONS[:5]:
        old.execute(sql)
    old.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', '5')")
    old.close()
    con = db.connect(tmp_path / "v5.duckdb")
    con.execute("INSERT INTO cards (id, name, set_code, collector_number, mtgo_id) "
                "VALUES ('x', 'Card', 'afr', '1', 91504)")  # fmt: skip
    got = con.execute("SELECT mtgo_id, mtgo_foil_id FROM cards").fetchall()
    version = db.schema_version(con)
    con.close()
    assert got == [(91504, None)] and version == db.SCHEMA_VERSION >= 6
