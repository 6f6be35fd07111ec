"""The July 2025 magic-sealed-data export (issue 18): a file of one product, a folder of
them in one transaction, ``sheet_order`` and ``source_set_codes``; a real product beats the
generic one; the Play Boosters of MKM, OTJ, BLB and DSK open with the export's rates,
checked against the published ones (research play-boosters.md) where they agree.

The shared data has no MKM, OTJ, BLB or DSK cards: their items stay unresolved in their
true places (set and collector number known), which is what the rates below count. Each
rate: 20,000 packs of a fixed seed, the count within 4 binomial standard deviations."""

from __future__ import annotations

import json
import math
import shutil
from collections import Counter
from pathlib import Path

import play_fixtures as pf
import pytest
from conftest import shared_path
from helpers import run_cli

from boosterkit.errors import InputError
from boosterkit.generator import engine
from boosterkit.generator.products import list_products, resolve_product
from boosterkit.pipeline import db
from boosterkit.pipeline.collation import import_collation
from boosterkit.pipeline.sync import sync_file

N = 20_000


def _product(code: str, set_code: str, **changes) -> dict:
    """One product object as the split export writes it (``sheet_order`` on each variant)."""
    p = {
        "name": f"{set_code.upper()} Play Booster",
        "code": code,
        "set_code": set_code,
        "set_name": set_code.upper(),
        "boosters": [
            {
                "sheets": {"common": 2, "rare": 1},
                "weight": 1,
                "sheet_order": ["common", "rare"],
            }
        ],
        "sheets": {
            "common": {"total_weight": 2, "cards": {f"{set_code}:1": 1, f"{set_code}:2": 1}},
            "rare": {"total_weight": 1, "cards": {f"{set_code}:3": 1}},
        },
        "source_set_codes": [set_code.upper(), "SPG"],
    }
    p.update(changes)
    return p


def _write(path: Path, data) -> Path:
    path.write_text(json.dumps(data))
    return path


def _counts(con) -> tuple[int, ...]:
    return tuple(
        con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
        for t in ("products", "product_variants", "variant_slots", "sheets", "sheet_cards")
    )


def test_a_single_product_file_a_list_file_and_a_folder(mem_db, tmp_path: Path) -> None:
    folder = tmp_path / "export"
    folder.mkdir()
    _write(folder / "aaa-play.json", _product("aaa-play", "aaa"))
    _write(folder / "bbb-play.json", _product("bbb-play", "bbb"))
    (folder / "notes.txt").write_text("not an export")  # only .json / .json.gz are read
    one = import_collation(mem_db, folder / "aaa-play.json")
    assert (one["files"], one["products"], one["sheet_cards"]) == (1, 1, 3)
    both = import_collation(mem_db, folder)
    assert (both["files"], both["products"]) == (2, 2)
    assert both["source_sets_missing"] == ["aaa", "bbb", "spg"]
    assert both["fill"] == ["boosterkit sync aaa", "boosterkit sync bbb", "boosterkit sync spg"]
    listed = _write(tmp_path / "list.json", [_product("ccc-play", "ccc")])
    assert import_collation(mem_db, listed)["products"] == 1
    rows = mem_db.execute("SELECT code, kind, source_sets FROM products ORDER BY code").fetchall()
    assert rows == [
        ("aaa-play", "play", ["aaa", "spg"]),
        ("bbb-play", "play", ["bbb", "spg"]),
        ("ccc-play", "play", ["ccc", "spg"]),
    ]


def test_one_bad_file_fails_the_whole_folder_naming_it(mem_db, tmp_path: Path) -> None:
    folder = tmp_path / "export"
    folder.mkdir()
    _write(folder / "aaa-play.json", _product("aaa-play", "aaa"))
    bad = _write(folder / "zzz-play.json", _product("zzz-play", "zzz", sheets={}))
    with pytest.raises(InputError) as err:
        import_collation(mem_db, folder)
    assert str(err.value).startswith(f"{bad} (zzz-play): booster variant 1 draws undefined")
    assert _counts(mem_db) == (0, 0, 0, 0, 0)  # nothing of the good file either
    _write(folder / "zzz-play.json", _product("aaa-play", "aaa"))
    with pytest.raises(InputError, match="zzz-play.json: product aaa-play is given twice"):
        import_collation(mem_db, folder)
    for f in folder.iterdir():
        f.unlink()
    with pytest.raises(InputError, match="a folder without .json or .json.gz files"):
        import_collation(mem_db, folder)


def test_sheet_order_decides_the_order_of_a_pack(mem_db, tmp_path: Path) -> None:
    """In the 2025 export `sheet_order` always lists a variant's sheets in the order of its
    `sheets` keys; where it differs, it is the pack's order."""
    variant = {"sheets": {"common": 2, "rare": 1}, "weight": 1, "sheet_order": ["rare", "common"]}
    import_collation(
        mem_db, _write(tmp_path / "p.json", _product("aaa-play", "aaa", boosters=[variant]))
    )
    product = resolve_product(mem_db, "aaa", "play")
    assert product.variants[0].slots == (("rare", 1), ("common", 2))
    _, rows = engine.draw_batch(engine.compile_product(product), 1, 1, 5)
    cp = engine.compile_product(product)
    slot = engine.PROTO_FIELDS.index("slot")
    assert all([cp.protos[x][slot] for x in r] == ["rare", "common", "common"] for r in rows)
    variant["sheet_order"] = ["rare"]
    with pytest.raises(InputError, match=r"variant 1: 'sheet_order' is not a list of exactly"):
        import_collation(
            mem_db, _write(tmp_path / "p.json", _product("aaa-play", "aaa", boosters=[variant]))
        )


def test_a_single_product_file_beats_the_generic_play_booster(tmp_path: Path, capsys) -> None:
    """A set nobody modelled (made-up cards, released 2025): the generic Play Booster until
    a one-product file of the export is imported; then that product, as `open` shows."""
    path = tmp_path / "t.duckdb"
    cards = pf.main_set("zzp", "2025-05-02") + pf.basics("zzp", 262, 10, "2025-05-02")
    with db.connect(path) as con:
        sync_file(con, pf.write(tmp_path / "zzp.json", cards), cache=tmp_path / "cache")
        assert resolve_product(con, "zzp").code == "zzp-play-generic"
        sheets = {
            "common": {"total_weight": 81, "cards": {f"zzp:{n}": 1 for n in range(1, 82)}},
            "uncommon": {"total_weight": 100, "cards": {f"zzp:{n}": 1 for n in range(82, 182)}},
            "rare": {"total_weight": 80, "cards": {f"zzp:{n}": 1 for n in range(182, 262)}},
            "land": {"total_weight": 10, "cards": {f"zzp:{n}": 1 for n in range(262, 272)}},
        }
        variant = {"sheets": {"land": 1, "common": 9, "uncommon": 3, "rare": 1}, "weight": 1}
        export = _write(
            tmp_path / "zzp-play.json",
            _product(
                "zzp-play", "zzp", boosters=[variant], sheets=sheets, source_set_codes=["zzp"]
            ),
        )
        import_collation(con, export)
        listed = {p["code"]: p for p in list_products(con, "zzp")}
        assert listed["zzp-play"]["default_for_set"] and listed["zzp-play"]["unresolved"] == 0
        assert "zzp-play-generic" not in listed  # a real product of the kind: no generic one
    code, out, _ = run_cli(
        capsys, "--db", str(path), "open", "zzp", "-p", "play", "--seed", "1", "--json"
    )
    (pack,) = json.loads(out)
    assert code == 0 and pack["product"] == "zzp-play" and len(pack["items"]) >= 14


# --- the shared export ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def export_db(tmp_path_factory) -> Path:
    """The README's AFR data and the 2023 export, then the whole 2025 folder over them."""
    from boosterkit.pipeline.mtgjson import import_mtgjson

    path = tmp_path_factory.mktemp("sealed2025") / "t.duckdb"
    with db.connect(path) as con:
        import_mtgjson(
            con, [shared_path("mtgjson", f) for f in ("AFR.json", "MAFR.json", "PLIST.json")]
        )
        import_collation(con, shared_path("boosters", "sealed_basic_data.json"))
        summary = import_collation(con, shared_path("boosters", "sealed-2025-07"))
    kept = {k["code"] for k in summary["kept"]}  # their 2023 sheets resolve more here
    assert summary["files"] == 532 and summary["products"] + len(kept) == 532
    assert "afr-set" in kept and "mkm-play" not in kept
    return path


def _packs(con, set_code: str, seed: int):
    product = resolve_product(con, set_code, "play")
    cp = engine.compile_product(product)
    _, rows = engine.draw_batch(cp, seed, 1, N)
    f = {k: [t[i] for t in cp.protos] for i, k in enumerate(engine.PROTO_FIELDS)}
    return product, rows, f


def _share_ok(count: int, p: float) -> bool:
    return abs(count - N * p) <= 4 * math.sqrt(N * p * (1 - p))


def _with(rows, f, sets: set[str]) -> int:
    """Packs holding at least one item of these sets."""
    return sum(1 for r in rows if any(f["set"][x] in sets for x in r))


@pytest.mark.slow
def test_the_2025_play_boosters_open_with_the_export_rates(export_db: Path) -> None:
    with db.connect(export_db, read_only=True) as con:
        opened = {s: _packs(con, s, 1800 + i) for i, s in enumerate(("mkm", "otj", "blb", "dsk"))}
    for set_code, (product, rows, f) in opened.items():
        assert (product.code, product.source) == (f"{set_code}-play", "sealed-data")
        magic = [sum(1 for x in r if f["magic_back"][x] and f["kind"][x] == "card") for r in rows]
        assert set(magic) == {14}, set_code  # 14 Magic cards in every pack
        land = [
            x
            for r in rows
            for x in r
            if f["slot"][x] in ("basic", "foil_basic", "land", "foil_land")
        ]
        assert len(land) == N and _share_ok(sum(f["foil"][x] for x in land), 0.2), set_code
    # MKM (PB §1, §2.1): the 7th common is The List in 12.5 %: List cards (plst) 9.38 + 1.56 %,
    # Special Guests 1.56 %. The export agrees.
    _, rows, f = opened["mkm"]
    assert _share_ok(_with(rows, f, {"plst"}), 0.09375 + 0.015625)
    assert _share_ok(_with(rows, f, {"spg"}), 1 / 64)
    # OTJ (PB §2.2): Breaking News in every pack (agrees). The List in 1 of 5 packs, as
    # published, but the export spreads it evenly over its 40 cards: Special Guests 5 % of
    # packs (published 1 in 64) and Big Score 15 % (published 1/5 - 1/64 = 18.4 %). The
    # export's figures are kept (README), not "corrected".
    _, rows, f = opened["otj"]
    assert all(sum(1 for x in r if f["set"][x] == "otp") == 1 for r in rows)
    assert _share_ok(_with(rows, f, {"big", "spg"}), 1 / 5)
    guests = _with(rows, f, {"spg"})
    assert _share_ok(guests, 0.05) and not _share_ok(guests, 1 / 64)
    big = _with(rows, f, {"big"})
    assert _share_ok(big, 0.15) and not _share_ok(big, 1 / 5 - 1 / 64)
    # BLB, DSK (PB §2.4, §2.5): Special Guests replace a common in 1 of 64 (BLB's export
    # gives 1.5 %, within the test's reach of 1/64), never The List.
    for set_code in ("blb", "dsk"):
        _, rows, f = opened[set_code]
        assert _share_ok(_with(rows, f, {"spg"}), 1 / 64), set_code
        assert not _with(rows, f, {"plst", "plist"})


def test_the_newer_export_replaces_by_code_but_not_what_resolves_less(
    export_db: Path, capsys
) -> None:
    """Imported after the 2023 export, the 2025 one replaces each product of the same code,
    but for those whose stored sheets resolve more cards (issue 33): AFR's Set Booster would
    name The List in Scryfall's numbering (plst:AFR-…), which PLIST.json does not resolve, so
    the 2023 one, whose plist:N it resolves, is kept."""
    with db.connect(export_db, read_only=True) as con:
        sets = Counter(
            s
            for (s,) in con.execute(
                "SELECT set_code FROM sheet_cards WHERE product_code = 'afr-set' "
                "AND sheet_name = 'the_list'"
            ).fetchall()
        )
        afr = {p["code"]: p for p in list_products(con, "afr")}
    assert sets == {"plist": 300}
    assert afr["afr-set"]["unresolved"] == 0
    code, out, _ = run_cli(capsys, "--db", str(export_db), "products", "mkm")
    assert code == 0 and out.startswith("mkm-play  [play, sealed-data, default, set default]")


def test_cli_imports_the_folder(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "few"
    folder.mkdir()
    for name in ("mkm-play.json", "otj-play.json", "blb-play.json"):
        shutil.copy(shared_path("boosters", "sealed-2025-07", name), folder / name)
    code, _, err = run_cli(
        capsys, "--db", str(tmp_path / "t.duckdb"), "import", "collation", str(folder)
    )
    assert code == 0 and err.startswith("imported 3 products from 3 files, ")
    assert "fill with: boosterkit sync mkm, " in err and "\n" not in err.strip()
