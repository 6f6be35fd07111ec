"""Generic products: overrides, bonus sheets from the card data, unresolved bonus sets,
sets without booster cards, eras (draft foil, minigames), and the sealed-data / MTGJSON
merge rule (VOW's colour balance)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import play_fixtures as pf
import pytest
from conftest import ROOT, shared_path
from helpers import run_cli

from boosterkit.errors import InputError
from boosterkit.generator import engine
from boosterkit.generator import generic as gen
from boosterkit.generator.products import list_products, resolve_product
from boosterkit.pipeline import db
from boosterkit.pipeline.sync import sync_file

VOW_FIXTURE = ROOT / "tests" / "fixtures" / "mtgjson" / "VOW.json"


def _load(tmp_path: Path, cards: list[dict], name: str = "t") -> Path:
    path = tmp_path / f"{name}.duckdb"
    with db.connect(path) as con:
        sync_file(con, pf.write(tmp_path / f"{name}.json", cards), cache=tmp_path / "cache")
    return path


def test_overrides_replace_named_groups_and_sheets():
    import datetime as dt

    g = gen.load_generic()
    template = next(r for r in g.for_set("blb", dt.date(2024, 8, 2)) if r.kind == "play")
    mkm = next(r for r in g.for_set("mkm", dt.date(2024, 2, 9)) if r.kind == "play")
    assert template.overridden_for is None and mkm.overridden_for == "mkm"
    assert [n for n, _ in mkm.pack] == [n for n, _ in template.pack]  # same groups, in order
    assert dict(mkm.pack)["uncommons"] == dict(template.pack)["uncommons"]
    assert dict(mkm.pack)["commons"] != dict(template.pack)["commons"]
    assert {"list_common_uncommon", "list_rare_mythic", "rare_dual_land"} <= set(mkm.sheets)
    assert mkm.sheets["rare_mythic"].groups[0].select.exclude_types == ("Land",)
    # every override is for a Play Booster set, each names its set once
    sets = [s for o in g.overrides for s in o.sets]
    assert len(sets) == len(set(sets)) and set(sets) == {
        "mkm",
        "otj",
        "mh3",
        "dsk",
        "fdn",
        "dft",
        "tdm",
        "eoe",
        "fin",
        "spm",
        "tla",
        "ecl",
        "msh",
        "hob",
    }


@pytest.mark.parametrize(
    "old, new, message",
    [
        (
            "      commons:\n        - {weight: 56,",
            "      common_slots:\n        - {weight: 56,",
            "no pack group 'common_slots' in the play template",
        ),
        (
            "set: spg\n        released_with_set: true",
            "set: spg\n        released_with_sets: true",
            "unknown key 'released_with_sets'",
        ),
        ("{set: big, numbers: [1-30]", "{set: big, numbers: [30-1]", "ends before it starts"),
        (
            "share: 18.5}\n          - {rarities: {uncommon: 1}, share: 60.7}",
            "share: 18.5}\n          - {rarities: {uncommon: 1}}",
            "give 'share' on every group or on none",
        ),
    ],
)
def test_bad_generic_yaml_fails_with_file_place_and_key(tmp_path, old, new, message):
    text = (gen.BOOSTERS_DIR / "generic.yaml").read_text()
    assert old in text
    bad = tmp_path / "generic.yaml"
    bad.write_text(text.replace(old, new, 1))
    with pytest.raises(InputError, match=message) as err:
        gen.load_generic(bad)
    assert str(bad) in str(err.value) and "\n" not in str(err.value)


def test_bonus_sets_not_loaded_stay_unresolved_and_name_their_sync(tmp_path, capsys):
    """MKM without `spg`/`plst` cards: the slots keep their place, unresolved; products says
    which sync brings them."""
    cards = [c for c in pf.mkm() if c["set"] == "mkm"]
    path = _load(tmp_path, cards)
    with db.connect(path, read_only=True) as con:
        (p,) = list_products(con, "mkm")
        product = resolve_product(con, "mkm", "play")
    assert p["unresolved_sets"] == {"plst": 2, "spg": 1}
    assert "boosterkit sync spg" in p["fill"] and "boosterkit sync plst" in p["fill"]
    guest = product.sheets["special_guest"].cards
    assert [(c.set, c.resolved, c.card_id) for c in guest] == [("spg", False, None)]
    cp = engine.compile_product(product)
    _, rows = engine.draw_batch(cp, 5, 1, 2000)
    assert {len(r) for r in rows} == {15}
    slot, resolved = (engine.PROTO_FIELDS.index(k) for k in ("slot", "resolved"))
    bonus = [
        cp.protos[x]
        for r in rows
        for x in r
        if cp.protos[x][slot] in ("special_guest", "list_common_uncommon", "list_rare_mythic")
    ]
    assert bonus and not any(b[resolved] for b in bonus)
    code, out, _ = run_cli(capsys, "--db", str(path), "products", "mkm")
    assert code == 0 and "fill with: boosterkit sync spg" in out


def test_cli_opens_mkm_play_boosters(tmp_path, capsys):
    """The README's last quick-start step on a set in MKM's published shape."""
    path = _load(tmp_path, pf.mkm())
    code, out, _ = run_cli(
        capsys,
        "--db",
        str(path),
        "open",
        "mkm",
        "-p",
        "play",
        "-n",
        "3",
        "--seed",
        "7",
        "--format",
        "jsonl",
    )
    packs = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [p["product"] for p in packs] == ["mkm-play-generic"] * 3
    for p in packs:
        items = p["items"]
        assert len(items) == 15 and sum(i["magic_back"] for i in items) == 14
        assert items[-1]["slot"] == "non_playable" and items[-1]["kind"] in (
            "token",
            "art_card",
            "ad",
        )
        assert sum(i["slot"] == "uncommon" for i in items) == 3 and items[13]["foil"]
    again, out2, _ = run_cli(
        capsys,
        "--db",
        str(path),
        "open",
        "mkm",
        "-p",
        "play",
        "-n",
        "3",
        "--seed",
        "7",
        "--format",
        "jsonl",
    )
    assert out2 == out  # same seed, same data: byte-identical


def test_set_whose_cards_are_not_booster_cards_says_why(tmp_path, capsys):
    """A pre-release snapshot: every card `booster: false`. Its main cards (here up to its
    last basic land, 281) are taken as booster cards, with a note (issue 18); a set with
    nothing to tell its main cards says why it has none (tests/test_generic_play_boosters.py)."""
    cards = [dict(c, booster=False) for c in pf.blb() if c["set"] == "blb"]
    path = _load(tmp_path, cards)
    with db.connect(path, read_only=True) as con:
        (listed,) = list_products(con, "blb")
    assert listed["code"] == "blb-play-generic" and listed["notes"][0].startswith(
        "every Magic card of blb is `booster: false` on Scryfall (a pre-release snapshot): "
        "its main cards, numbers 1–281 (up to its last basic land)"
    )
    code, out, err = run_cli(capsys, "--db", str(path), "open", "blb", "-p", "play", "--seed", "1")
    assert code == 0 and "Traceback" not in err and "blb-play-generic" in out


def _lci_cards() -> list[dict]:
    released = "2023-11-17"
    return pf.main_set("lci", released) + pf.basics("lci", 282, 10, released)


def test_lci_generic_draft_has_foils_and_set_booster_no_phantom_minigame(tmp_path):
    path = _load(tmp_path, _lci_cards())
    with db.connect(path, read_only=True) as con:
        products = {p["kind"]: p for p in list_products(con, "lci")}
        draft = resolve_product(con, "lci", "draft")
        set_booster = resolve_product(con, "lci", "set")
    assert set(products) == {"draft", "set"}
    assert "mlci" not in json.dumps(products)  # minigames ended before LCI
    assert [o.kind for e in set_booster.extras for o in e.options] == ["art_card", "token", "ad"]
    total = sum(v.weight for v in draft.variants)
    with_foil = sum(v.weight for v in draft.variants if "foil" in dict(v.slots))
    assert with_foil * 3 == total  # 1 in 3 (ELD to LCI)
    assert all(sum(n for s, n in v.slots if s in ("common", "foil")) == 10 for v in draft.variants)


def test_pre_eld_generic_draft_has_no_foil(tmp_path):
    path = _load(
        tmp_path, pf.main_set("m19", "2018-07-13") + pf.basics("m19", 261, 10, "2018-07-13")
    )
    with db.connect(path, read_only=True) as con:
        draft = resolve_product(con, "m19", "draft")
    assert [dict(v.slots) for v in draft.variants] == [
        {"common": 10, "uncommon": 3, "rare_mythic": 1, "basic": 1}
    ]


# --- precedence and merge: VOW -------------------------------------------------------------


def _vow_dbs(tmp_path: Path, mtgjson_files: list[Path]) -> list[Path]:
    """Databases with the real sealed-data export plus one MTGJSON VOW file each."""
    import shutil

    from boosterkit.pipeline.collation import import_collation
    from boosterkit.pipeline.mtgjson import import_mtgjson

    base = tmp_path / "sealed.duckdb"
    with db.connect(base) as con:
        import_collation(con, shared_path("boosters", "sealed_basic_data.json"))
    out = []
    for i, f in enumerate(mtgjson_files):
        path = tmp_path / f"vow{i}.duckdb"
        shutil.copy(base, path)
        with db.connect(path) as con:
            import_mtgjson(con, [f])
        out.append(path)
    return out


def _five_colour_share(product, seed: int, n: int) -> float:
    cp = engine.compile_product(product)
    _, rows = engine.draw_batch(cp, seed, 1, n)
    slot, colors = engine.PROTO_FIELDS.index("slot"), engine.PROTO_FIELDS.index("colors")
    full = 0
    for row in rows:
        seen = {
            cp.protos[x][colors][0]
            for x in row
            if cp.protos[x][slot] == "sfc_common_with_showcase" and len(cp.protos[x][colors]) == 1
        }
        full += seen == set("WUBRG")
    return full / n


@pytest.mark.slow
def test_vow_draft_takes_mtgjsons_colour_balance(tmp_path):
    """sealed-data wins VOW's draft booster (the more specific product: its own sheets and
    weights); its common sheet lacks the balance flag MTGJSON's file sets, and the union
    balances it: every pack has all five colours, as MID and NEO do."""
    data = json.loads(VOW_FIXTURE.read_text())
    del data["data"]["booster"]  # the same cards from an MTGJSON file without the booster key
    bare = tmp_path / "VOW-no-booster.json"
    bare.write_text(json.dumps(data))
    path, bare_path = _vow_dbs(tmp_path, [VOW_FIXTURE, bare])
    with db.connect(path, read_only=True) as con:
        products = {p["code"]: p for p in list_products(con, "vow")}
        draft = resolve_product(con, "vow")
        mtgjson = resolve_product(con, "vow", "vow-draft-mtgjson")
        raw = con.execute(
            "SELECT balance_colors FROM sheets WHERE product_code = 'vow-draft' "
            "AND sheet_name = 'sfc_common_with_showcase'"
        ).fetchone()[0]
    assert (draft.code, draft.source) == ("vow-draft", "sealed-data") and products["vow-draft"][
        "default"
    ]
    assert raw is False  # the export's own flag is kept as imported
    sheet = draft.sheets["sfc_common_with_showcase"]
    assert sheet.balance_colors and sum(c.resolved for c in sheet.cards) == 15
    assert sheet.total_weight == 270 and len(sheet.cards) == 97  # sealed-data's cards and weights
    assert len(mtgjson.sheets["sfcCommonWithShowcase"].cards) == 15
    listed = {s["name"]: s for s in products["vow-draft"]["sheets"]}
    assert listed["sfc_common_with_showcase"]["balance_colors"]  # `products` shows the merged flag
    n = 20_000
    assert _five_colour_share(draft, 911, n) == 1.0
    # Without MTGJSON's booster key there is no flag to merge: the export alone, unbalanced.
    with db.connect(bare_path, read_only=True) as con:
        alone = resolve_product(con, "vow")
    assert not alone.sheets["sfc_common_with_showcase"].balance_colors
    assert _five_colour_share(alone, 911, 5000) < 0.5  # 15 of 97 commons resolved: rarely all five


def test_union_matches_a_renamed_sheet_by_its_cards(mem_db):
    """Counterpart sheets under another name are matched by their cards (set + number)."""
    from boosterkit.pipeline.collation import write_products

    def product(code, source, sheet, balance, dup):
        cards = [
            {
                "ref": f"zzz:{n}",
                "set_code": "zzz",
                "collector_number": str(n),
                "foil": False,
                "weight": 1,
            }
            for n in range(1, 6)
        ]
        return {
            "code": code,
            "set_code": "zzz",
            "name": code,
            "kind": "draft",
            "source": source,
            "variants": [{"weight": 1, "slots": [(sheet, 2)]}],
            "sheets": [
                {
                    "name": sheet,
                    "foil": False,
                    "balance_colors": balance,
                    "allow_duplicates": dup,
                    "fixed": False,
                    "total_weight": 5,
                    "cards": cards,
                }
            ],
        }

    write_products(
        mem_db,
        [
            product("zzz-draft", "sealed-data", "commons", False, False),
            product("zzz-draft-mtgjson", "mtgjson", "commonSheet", True, True),
        ],
    )
    p = resolve_product(mem_db, "zzz")
    assert (
        p.code == "zzz-draft"
        and p.sheets["commons"].balance_colors
        and p.sheets["commons"].allow_duplicates
    )
    assert p.sheets["commons"].total_weight == 5 and len(p.variants) == 1


def test_union_rule_names_the_counterpart():
    from boosterkit.generator.products import counterpart

    assert counterpart("vow-draft") == "vow-draft-mtgjson"
    assert counterpart("vow-draft-mtgjson") == "vow-draft"
    assert counterpart("afr-arena") == "afr-arena-mtgjson"


def test_readme_documents_eras_and_precedence():
    readme = "\n".join(
        (ROOT / "docs" / name).read_text() for name in ("getting-started.md", "collation.md")
    )
    for needle in (
        "boosterkit sync mkm",
        "boosterkit products mkm",
        "boosterkit open mkm -p play",
        "generic with overrides",
        "balance_colors",
    ):
        assert needle in readme, needle
    doc = (gen.BOOSTERS_DIR / "README.md").read_text()
    for key in (
        "released_with_set",
        "any_booster_flag",
        "exclude_types",
        "numbers",
        "overrides",
        "only_sets",
    ):
        assert f"`{key}" in doc, key


def test_generic_templates_and_overrides_line_up():
    """Four templates; every override's set gets a product of the override's kind."""
    import datetime as dt

    g = gen.load_generic()
    kinds = Counter(r.kind for r in g.products)
    assert kinds == {"draft": 2, "set": 1, "play": 1}
    assert all(
        any(r.kind == o.kind and r.overridden_for == s for r in g.for_set(s, dt.date(2025, 1, 1)))
        for o in g.overrides
        for s in o.sets
    )
