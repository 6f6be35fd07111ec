"""Generic Play Boosters without holes (issue 18): an empty choice gives its weight to the
other choices of its slot (14 Magic cards + 1 non-playable in every pack), MH3's land slot
and new-to-Modern slot, Special Guests by collector number, sets whose cards are all
``booster: false``, OTJ's Breaking News in the foil wildcard, VOW's balance flag from a
sheet with the same commons plus their showcase versions.

The sets are the small builders of ``tests/holes_fixtures.py``. Rates: 20,000 packs of a
fixed seed; a count within 4 binomial standard deviations of the published share."""

from __future__ import annotations

import datetime as dt
import json
import math
from collections import Counter
from fractions import Fraction
from pathlib import Path

import holes_fixtures as hf
import play_fixtures as pf
import pytest
from conftest import shared_path
from helpers import run_cli

from boosterkit.cli.products import product_text
from boosterkit.generator import engine
from boosterkit.generator import generic as gen
from boosterkit.generator.products import list_products, resolve_product
from boosterkit.pipeline import db
from boosterkit.pipeline.collation import import_collation
from boosterkit.pipeline.mtgjson import import_mtgjson
from boosterkit.pipeline.sync import sync_file

N = 20_000


def near(count: int, p: float, n: int = N) -> bool:
    return abs(count - n * p) <= 4 * math.sqrt(n * p * (1 - p))


def test_an_empty_choice_gives_its_weight_to_the_other_choices_of_its_group() -> None:
    """DFT's land slot (PB §2.7): duals 50, basics 37.5, full-art basics 12.5 (20 % foil
    each). Without full-art basics the 12.5 % go to the others in proportion."""
    rule = next(
        r for r in gen.load_generic().for_set("dft", dt.date(2025, 2, 14)) if r.kind == "play"
    )
    present = set(rule.sheets) - {"full_art_basic", "foil_full_art_basic"}
    land = Counter()
    for weight, slots in gen.variants(rule, present):
        assert sum(n for _, n in slots) == 14  # every variant keeps its 14 Magic cards
        land.update({s: weight for s, _ in slots if "basic" in s or "dual" in s})
    total = sum(land.values())
    assert {k: Fraction(v, total) for k, v in land.items()} == {
        "common_dual": Fraction(80, 175),  # 40 / 87.5
        "foil_common_dual": Fraction(20, 175),
        "basic": Fraction(60, 175),
        "foil_basic": Fraction(15, 175),
    }
    assert gen.empty_choices(rule, present) == [
        "land: foil_full_art_basic, full_art_basic select no card of this set; their 12.5 % "
        "of packs go to the group's other choices, in proportion"
    ]
    alone = {"common", "uncommon", "rare_mythic", "wildcard", "foil", "special_guest"}
    assert gen.empty_choices(rule, alone)[0].endswith("have no other choice: the group is left out")


@pytest.fixture(scope="module")
def holes(tmp_path_factory):
    d = tmp_path_factory.mktemp("holes")
    sets = {"object": "list", "has_more": False, "data": [
        hf.set_object("tla", pf.TLA, None), hf.set_object("hob", pf.HOB, 286),
    ]}  # fmt: skip
    cards = (
        hf.dft_one_per_name()
        + hf.eoe_one_per_name()
        + hf.mh3()
        + hf.snapshot("tla", pf.TLA)
        + hf.snapshot("hob", pf.HOB)
        + pf.otj()
    )
    path = d / "holes.duckdb"
    con = db.connect(path)
    sync_file(con, pf.write(d / "sets.json", sets), cache=d / "cache")
    sync_file(con, pf.write(d / "cards.json", cards), cache=d / "cache")
    yield con, path
    con.close()


def _open(con, set_code: str, seed: int, n: int = N):
    product = resolve_product(con, set_code, "play")
    cp = engine.compile_product(product)
    _, rows = engine.draw_batch(cp, seed, 1, n)
    f = {k: [t[i] for t in cp.protos] for i, k in enumerate(engine.PROTO_FIELDS)}
    return product, rows, f


def _fourteen_and_one(rows, f) -> bool:
    return all(
        len(r) == 15 and sum(1 for x in r if f["magic_back"][x] and f["kind"][x] == "card") == 14
        for r in rows
    )


@pytest.mark.slow
@pytest.mark.parametrize("set_code", ["dft", "eoe"])
def test_dft_and_eoe_without_their_special_basics_are_14_plus_1(holes, set_code) -> None:
    con, _ = holes
    product, rows, f = _open(con, set_code, 1810, 10_000)
    assert product.source == "generic" and _fourteen_and_one(rows, f)  # 10,000 of 10,000
    lands = Counter(f["slot"][x] for r in rows for x in r if f["slot"][x] != "common" and (
        "basic" in f["slot"][x] or "dual" in f["slot"][x]))  # fmt: skip
    assert sum(lands.values()) == 10_000
    if set_code == "dft":  # duals 50 : basics 37.5 of 87.5, 20 % foil each
        assert near(lands["common_dual"] + lands["foil_common_dual"], 50 / 87.5, 10_000)
        assert near(lands["foil_common_dual"] + lands["foil_basic"], 0.2, 10_000)
    else:  # EOE: basics only (PB §2.10), the celestial 20 % to the default basics
        assert set(lands) == {"basic", "foil_basic"} and near(lands["foil_basic"], 0.2, 10_000)
    (listed,) = list_products(con, set_code)
    assert any("select no card of this set" in note for note in listed["notes"])
    assert "\n  note: land: " in product_text(listed)  # as `boosterkit products` prints it


@pytest.mark.slow
def test_mh3_land_slot_new_to_modern_and_special_guests(holes) -> None:
    """PB §2.3: a land in 50 % of packs (basics 2/3, full-art Eldrazi basics 1/3, 40 % of
    them foil), never Snow-Covered Wastes; one new-to-Modern card a pack, U 75 : R 21.3 :
    M 2.3; Special Guests (`spg` 39–48, dated a week before the set) in 1 of 64."""
    con, _ = holes
    product, rows, f = _open(con, "mh3", 1811)
    assert product.name.endswith("(generic, MH3's published slots)") and _fourteen_and_one(rows, f)
    land = [x for r in rows for x in r if f["slot"][x] in (
        "basic", "foil_basic", "full_art_basic", "foil_full_art_basic")]  # fmt: skip
    assert 0.35 * N < len(land) < 0.65 * N and near(len(land), 0.5)
    assert "Snow-Covered Wastes" not in {f["name"][x] for x in land}
    full_art = sum(1 for x in land if 304 <= int(f["collector_number"][x]) <= 308)
    assert near(full_art, 1 / 3, len(land)) and near(
        sum(f["foil"][x] for x in land), 0.4, len(land)
    )
    ntm = [[x for x in r if f["slot"][x] == "new_to_modern"] for r in rows]
    assert all(len(r) == 1 and 262 <= int(f["collector_number"][r[0]]) <= 303 for r in ntm)
    rarity = Counter(f["rarity"][r[0]] for r in ntm)
    for r, share in (("uncommon", 75), ("rare", 21.3), ("mythic", 2.3)):
        assert near(rarity[r], share / 98.6), (r, rarity)
    guests = [x for r in rows for x in r if f["slot"][x] == "special_guest"]
    assert near(len(guests), 1 / 64) and all(f["resolved"][x] for x in guests)
    assert {int(f["collector_number"][x]) for x in guests} <= set(range(39, 49))
    commons = [sum(1 for x in r if f["slot"][x] == "common") for r in rows]
    assert Counter(commons).keys() <= {5, 6, 7}  # 5-6 commons, and the land slot's common


@pytest.mark.slow
@pytest.mark.parametrize(("set_code", "last", "how"), [
    ("tla", 286, "up to its last basic land"), ("hob", 286, "its printed size")])  # fmt: skip
def test_sets_whose_cards_are_all_booster_false_get_products(holes, set_code, last, how) -> None:
    """TLA (Scryfall has no printed size) and HOB: every card `booster: false`. The generic
    products take the main cards, numbers 1 to the printed size or the last basic land;
    the treatments after them (287–300) never come; the override's rates hold."""
    con, _ = holes
    product, rows, f = _open(con, set_code, 1812)
    assert product.notes[0] == (
        f"every Magic card of {set_code} is `booster: false` on Scryfall (a pre-release "
        f"snapshot): its main cards, numbers 1–{last} ({how}), are taken as its booster cards"
    )
    assert _fourteen_and_one(rows, f)
    numbers = {int(f["collector_number"][x]) for r in rows for x in r if f["kind"][x] == "card"}
    assert max(numbers) <= last
    rares = Counter(f["rarity"][x] for r in rows for x in r if f["slot"][x] == "rare_mythic")
    rare, mythic = (85.4, 12.6) if set_code == "tla" else (87.0, 11.1)
    assert near(rares["mythic"], mythic / (rare + mythic))


def test_a_bonus_sheet_set_still_says_why_it_has_no_products(tmp_path: Path, capsys) -> None:
    """All `booster: false`, no basic land and no printed size (a bonus sheet such as WOT):
    nothing tells its main cards, so no product, in one line."""
    cards = [dict(c, booster=False) for c in pf.main_set("zzb", "2025-05-02")]
    path = tmp_path / "t.duckdb"
    with db.connect(path) as con:
        sync_file(con, pf.write(tmp_path / "c.json", cards), cache=tmp_path / "cache")
        assert list_products(con, "zzb") == []
    code, out, _ = run_cli(capsys, "--db", str(path), "products", "zzb")
    assert code == 0 and out.startswith(f"zzb: no products: none of its {len(cards)} cards is")
    assert "neither its printed size nor a basic land" in out and len(out.splitlines()) == 1


@pytest.mark.slow
def test_otj_foil_wildcard_holds_breaking_news(holes) -> None:
    """ESTIMATE (generic.yaml): Breaking News (otp 1–65) is 8.1 % of foil wildcards, U 5.1 :
    R-M 3.0 (DM: "can include … OTP cards"); never the Collector-only 66–80."""
    con, _ = holes
    _, rows, f = _open(con, "otj", 1813)
    foil = [x for r in rows for x in r if f["slot"][x] == "foil"]
    assert len(foil) == N and all(f["foil"][x] for x in foil)
    news = [x for x in foil if f["set"][x] == "otp"]
    assert near(len(news), 0.081) and max(int(f["collector_number"][x]) for x in news) <= 65
    uncommon = sum(1 for x in news if f["rarity"][x] == "uncommon")
    assert near(uncommon, 5.1 / 8.1, len(news))


@pytest.mark.slow
def test_vow_sheet_of_the_commons_and_their_showcase_versions_takes_the_balance(
    tmp_path: Path,
) -> None:
    """The real sealed-data VOW draft booster and MTGJSON's sheet `sfcCommon` (the 90 commons,
    balanced) whose name and cards differ from `sfc_common_with_showcase` (those 90 and 7
    showcase versions): the union gives it the flag; the foil sheet, a superset holding
    other cards too, does not. Balanced in >= 99 % of 20,000 packs (all five colours)."""
    export = json.loads(shared_path("boosters", "sealed_basic_data.json").read_text())
    (vow,) = [p for p in export if p["code"] == "vow"]
    path = tmp_path / "vow.duckdb"
    with db.connect(path) as con:
        import_collation(con, pf.write(tmp_path / "vow.json", vow))  # one product object
        import_mtgjson(con, [hf.vow_mtgjson(vow, tmp_path / "VOW.json")])
        draft = resolve_product(con, "vow")
    assert (draft.code, draft.source) == ("vow-draft", "sealed-data")
    sheet = draft.sheets["sfc_common_with_showcase"]
    assert sheet.balance_colors and len(sheet.cards) == 97 and all(c.resolved for c in sheet.cards)
    assert not draft.sheets["foil_with_showcase"].balance_colors
    cp = engine.compile_product(draft)
    _, rows = engine.draw_batch(cp, 1814, 1, N)
    slot, colors = engine.PROTO_FIELDS.index("slot"), engine.PROTO_FIELDS.index("colors")
    full = sum(
        {cp.protos[x][colors][0] for x in r if cp.protos[x][slot] == "sfc_common_with_showcase"}
        == set("WUBRG")
        for r in rows
    )
    assert full >= 0.99 * N
