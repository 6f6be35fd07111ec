"""Products: listing, precedence, extras from data/, generic products, YAML checks, CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import shared_path

from boosterkit.errors import InputError, NotFoundError
from boosterkit.generator import extras as ex
from boosterkit.generator import generic as gen
from boosterkit.generator import open_packs
from boosterkit.generator.products import fill_hints, list_products, resolve_product
from boosterkit.pipeline import db


def _export(built_world, code: str) -> dict:
    """The product ``code`` of the built world's magic-sealed-data export."""
    return next(p for p in json.loads(built_world.sealed.read_text()) if p["code"] == code)


@pytest.fixture(scope="module")
def one_file(built_scryfall) -> Path:
    """ONE as a Scryfall unique-cards file (built): a set with no collation data at all."""
    return built_scryfall / "cards" / "one.unique-cards.json"


@pytest.fixture(scope="module")
def one_db(one_file: Path, tmp_path_factory):
    from boosterkit.pipeline.sync import sync_file

    path = tmp_path_factory.mktemp("one") / "one.duckdb"
    con = db.connect(path)
    sync_file(con, one_file, cache=path.parent / "cache")
    yield con
    con.close()


def _minigame_share(product) -> Fraction:
    """The share of ALL packs whose token/ad slot is a minigame, from the compiled weights."""
    total = sum(v.weight for v in product.variants)
    slot = next(e for e in product.extras if e.name == "token_ad")
    with_slot = sum(
        v.weight
        for v in product.variants
        if not {s for s, c in v.slots if c} & set(slot.unless_sheets)
    )
    mg = sum(o.weight for o in slot.options if o.kind == "minigame")
    return Fraction(with_slot, total) * Fraction(mg, sum(o.weight for o in slot.options))


def test_precedence_and_defaults(con):
    products = {p["code"]: p for p in list_products(con, "AFR")}
    assert {
        "afr-draft",
        "afr-set",
        "afr-collector",
        "afr-draft-mtgjson",
        "afr-arena-mtgjson",
    } <= set(products)
    assert products["afr-draft"]["default"] and not products["afr-draft-mtgjson"]["default"]
    assert products["afr-arena"]["default"] and not products["afr-arena-mtgjson"]["default"]
    assert products["afr-theme-b"]["default"]  # shortest code among the theme boosters
    defaults = Counter(p["kind"] for p in products.values() if p["default"])
    assert set(defaults.values()) == {1}
    assert [c for c, p in products.items() if p["default_for_set"]] == ["afr-draft"]
    assert not any(
        p["source"] == "generic" for p in products.values()
    )  # the export covers draft and set


def test_english_edition_is_the_default_before_a_regional_one(con):
    """STX has `stx-draft` and the shorter `stx-jp` (Japanese Draft Booster), both kind draft."""
    products = {p["code"]: p for p in list_products(con, "stx")}
    assert products["stx-jp"]["kind"] == products["stx-draft"]["kind"] == "draft"
    assert products["stx-draft"]["default"] and not products["stx-jp"]["default"]
    assert products["stx-set"]["default"] and not products["stx-set-jp"]["default"]
    assert resolve_product(con, "stx").code == "stx-draft"


def test_resolve_by_kind_code_and_default(con):
    assert resolve_product(con, "afr").code == "afr-draft"
    assert resolve_product(con, "afr", "set").code == "afr-set"
    assert resolve_product(con, "AFR", "afr-draft-mtgjson").source == "mtgjson"
    # an unknown name: the nearest few and the command that lists them, never the list
    with pytest.raises(NotFoundError) as err:
        resolve_product(con, "afr", "booster-box")
    assert str(err.value) == (
        "unknown product 'booster-box' of afr (its products: `boosterkit products afr`)"
    )
    with pytest.raises(NotFoundError, match=r"unknown product 'sett' of afr — did you mean set\?"):
        resolve_product(con, "afr", "sett")
    with pytest.raises(NotFoundError) as err:
        resolve_product(con, "zzz9")
    assert str(err.value).startswith("unknown set 'zzz9' (loaded sets: `boosterkit sets`")
    with pytest.raises(NotFoundError, match=r"unknown set 'afx' — did you mean afr\? \("):
        resolve_product(con, "afx")
    # a token set has cards but no products of its own: say so, do not list "none"
    with pytest.raises(NotFoundError, match="set 'tafr' has no booster products") as err:
        resolve_product(con, "tafr")
    assert "products: none" not in str(err.value)


def test_sheets_carry_card_facts_and_unresolved_references(con, built_world):
    p = resolve_product(con, "afr", "set")
    rare = p.sheets["rare_mythic"]
    export = _export(built_world, "afr-set")["sheets"]
    source = export["rare_mythic"]["cards"]
    assert all(c.resolved and c.rarity in ("rare", "mythic") and c.set == "afr" for c in rare.cards)
    assert {f"{c.set}:{c.collector_number}": w for c, w in zip(rare.cards, rare.weights)} == source
    row = con.execute(
        "SELECT name, type_line, mana_value FROM cards WHERE id = ?", [rare.cards[0].card_id]
    ).fetchone()
    assert (rare.cards[0].name, rare.cards[0].type_line, rare.cards[0].mana_value) == row
    the_list = p.sheets["the_list"]  # plist cards are not in the database
    assert len(the_list.cards) == len(export["the_list"]["cards"]) > 0
    assert all(
        not c.resolved
        and c.card_id is None
        and c.set == "plist"
        and c.magic_back
        and c.kind == "card"
        and c.collector_number
        for c in the_list.cards
    )


def test_set_booster_extras(con):
    p = resolve_product(con, "afr", "set")
    art, token_ad = p.extras
    assert (art.name, art.position, token_ad.position) == ("art_card", "first", "last")
    assert art.options[0].set_code == "aafr" and art.options[0].cards == ()  # not loaded
    assert art.options[0].gold_stamped_per_mille == 50
    assert token_ad.unless_sheets == ("the_list",)
    kinds = {o.kind: o for o in token_ad.options}
    assert len(kinds["minigame"].cards) == 5 and all(
        c.kind == "minigame" for c in kinds["minigame"].cards
    )
    assert (
        len(kinds["token"].cards)
        == con.execute("SELECT count(*) FROM cards WHERE set_code = 'tafr'").fetchone()[0]
    )
    assert _minigame_share(p) == Fraction(5, 100)  # of ALL packs (settings.minigame_share)


@pytest.mark.slow
def test_afr_set_boosters_have_14_objects_and_5_percent_minigames(con):
    n = 6000
    packs = open_packs("afr", "set", count=n, seed=20240101, db=con)
    sizes = Counter(len(p.items) for p in packs)
    assert sizes == {14: n}
    minigames = sum(1 for p in packs if p.items[-1].kind == "minigame")
    # binomial(6000, 0.05): sd = 16.9; 4 sd either side
    assert abs(minigames - 0.05 * n) < 4 * (n * 0.05 * 0.95) ** 0.5
    for p in packs[:500]:
        magic = sum(1 for i in p.items if i.magic_back)
        list_card = any(i.slot == "the_list" for i in p.items)
        assert p.items[0].kind == "art_card"
        assert magic == (13 if list_card else 12)


def test_listing_says_which_sync_fills_missing_extras(con, built_world):
    p = next(x for x in list_products(con, "afr") if x["code"] == "afr-set")
    assert "boosterkit sync afr (brings aafr)" in p["fill"]
    assert p["missing_extra_sets"] == ["aafr"]
    listed = len(_export(built_world, "afr-set")["sheets"]["the_list"]["cards"])
    assert p["unresolved"] == listed and p["unresolved_sets"] == {"plist": listed}
    assert (
        len(p["variants"])
        == con.execute(
            "SELECT count(*) FROM product_variants WHERE product_code = 'afr-set'"
        ).fetchone()[0]
    )
    total = sum(v["weight"] for v in p["variants"])
    assert all(v["percent"] == round(100 * v["weight"] / total, 4) for v in p["variants"])
    assert abs(sum(v["percent"] for v in p["variants"]) - 100) < 1e-3  # 24 roundings of ≤ 5e-5


def test_generic_products_for_a_set_without_collation(one_db, one_file):
    cards = json.loads(one_file.read_text())
    products = {p["code"]: p for p in list_products(one_db, "one")}
    assert set(products) == {
        "one-draft-generic",
        "one-set-generic",
    }  # released 2023: no play booster
    assert all(p["source"] == "generic" for p in products.values())
    draft = resolve_product(one_db, "one")
    assert draft.code == "one-draft-generic" and draft.variants[0].slots == (
        ("common", 10),
        ("uncommon", 3),
        ("rare_mythic", 1),
        ("basic", 1),
    )
    in_booster = [c for c in cards if c["booster"] and "Basic" not in c["type_line"]]
    for sheet, rarities in (
        ("common", {"common"}),
        ("uncommon", {"uncommon"}),
        ("rare_mythic", {"rare", "mythic"}),
    ):
        expect = {c["id"] for c in in_booster if c["rarity"] in rarities}
        assert {c.card_id for c in draft.sheets[sheet].cards} == expect
    rm = draft.sheets["rare_mythic"]
    assert {(c.rarity, w) for c, w in zip(rm.cards, rm.weights)} == {("rare", 2), ("mythic", 1)}
    assert draft.sheets["common"].balance_colors
    basics = {c["id"] for c in cards if c["type_line"].startswith("Basic Land")}
    assert {c.card_id for c in draft.sheets["basic"].cards} == basics
    token = draft.extras[0].options[0]
    assert (token.kind, token.set_code, token.cards) == ("token", "tone", ())


def test_generic_set_booster_shares(one_db):
    p = resolve_product(one_db, "one", "set")
    wc = p.sheets["wildcard"]
    by_rarity = Counter()
    for c, w in zip(wc.cards, wc.weights):
        by_rarity["rm" if c.rarity in ("rare", "mythic") else c.rarity] += w
    total = sum(by_rarity.values())
    assert (
        Fraction(by_rarity["common"], total),
        Fraction(by_rarity["uncommon"], total),
        Fraction(by_rarity["rm"], total),
    ) == (Fraction(700, 1000), Fraction(175, 1000), Fraction(125, 1000))
    assert p.sheets["foil"].foil and p.sheets["foil_basic"].foil
    weights = Counter()
    for v in p.variants:
        weights[dict(v.slots).get("uncommon", 0)] += v.weight
    total = sum(weights.values())
    assert Fraction(weights[6], total) == Fraction(2, 100)
    assert Fraction(weights[1], total) == Fraction(35, 100)
    assert all(sum(c for _, c in v.slots) == 12 for v in p.variants)
    assert _minigame_share(p) == Fraction(5, 100)


def test_fill_hints_one_line_per_sync_command(one_db):
    products = {p["code"]: p for p in list_products(one_db, "one")}
    assert products["one-set-generic"]["missing_extra_sets"] == ["aone", "mone", "tone"]
    assert products["one-set-generic"]["fill"] == ["boosterkit sync one (brings aone, mone, tone)"]
    assert products["one-draft-generic"]["fill"] == ["boosterkit sync one (brings tone)"]


def test_one_sync_is_named_once_for_the_set_and_its_child_sets() -> None:
    """`products one` printed "fill with: boosterkit sync one (brings tone)" and then
    "fill with: boosterkit sync one": one command, said once (issue 34)."""
    assert fill_hints("one", ["one", "tone", "dmu"]) == [
        "boosterkit sync one (brings one, tone)",
        "boosterkit sync dmu",
    ]
    assert fill_hints("one", ["tone", "one", "aone"]) == [
        "boosterkit sync one (brings one, tone, aone)"
    ]
    assert fill_hints("one", ["one"]) == ["boosterkit sync one"]


@pytest.mark.parametrize(
    "released, kinds",
    [
        ("2019-01-25", {"draft"}),
        ("2021-07-23", {"draft", "set"}),
        ("2024-08-02", {"play"}),
        (None, {"draft"}),
    ],
)
def test_generic_eras(released, kinds):
    import datetime as dt

    day = dt.date.fromisoformat(released) if released else None
    assert {r.kind for r in gen.load_generic().for_set("xyz", day)} == kinds


def test_nonmagic_rules_by_kind_and_era():
    import datetime as dt

    rules = ex.load_nonmagic()
    assert rules.rule_for("set", dt.date(2021, 7, 23)).name == "set-booster-2020-2023"
    assert rules.rule_for("draft", dt.date(2021, 7, 23)).name == "draft-booster-since-bfz"
    assert rules.rule_for("play", dt.date(2024, 8, 2)).name == "play-booster-mkm-to-fdn"
    kinds = {
        d: [o.kind for o in rules.rule_for("play", d).slots[0].options]
        for d in (dt.date(2024, 2, 9), dt.date(2025, 2, 14), dt.date(2025, 8, 1))
    }
    assert kinds == {
        dt.date(2024, 2, 9): ["token", "art_card", "ad"],  # WPN
        dt.date(2025, 2, 14): ["token", "art_card"],  # no ads from DFT (mtgrocks)
        dt.date(2025, 8, 1): ["token"],
    }  # no ads or art cards from EOE (Wizards)
    assert rules.rule_for("collector", dt.date(2021, 7, 23)).slots == ()
    assert rules.rule_for("arena", dt.date(2021, 7, 23)) is None


def test_minigame_share_setting(tmp_path):
    text = (
        (ex.BOOSTERS_DIR / "nonmagic.yaml")
        .read_text()
        .replace("minigame_share: all_packs", "minigame_share: token_ad_slot")
    )
    alt = tmp_path / "nonmagic.yaml"
    alt.write_text(text)
    rule = ex.load_nonmagic(alt).rule_for("set", __import__("datetime").date(2021, 7, 23))
    variants = [(3, (("common", 1),)), (1, (("common", 1), ("the_list", 1)))]
    slots = ex.compile_extras(
        rule,
        "afr",
        variants,
        {"common": {"afr"}, "the_list": {"plist"}},
        {},
        set(),
        "token_ad_slot",
    )
    opts = slots[1].options
    assert Fraction(opts[0].weight, sum(o.weight for o in opts)) == Fraction(5, 100)
    slots = ex.compile_extras(
        rule, "afr", variants, {"common": {"afr"}, "the_list": {"plist"}}, {}, set(), "all_packs"
    )
    opts = slots[1].options
    assert Fraction(opts[0].weight, sum(o.weight for o in opts)) == Fraction(5, 75)


@pytest.mark.parametrize(
    "loader, name, old, new, message",
    [
        (
            ex.load_nonmagic,
            "nonmagic.yaml",
            "gold_stamped_percent: 5}",
            "gold_stamp_percent: 5}",
            "unknown key 'gold_stamp_percent'",
        ),
        (
            ex.load_nonmagic,
            "nonmagic.yaml",
            "minigame_share: all_packs",
            "minigame_share: half",
            "minigame_share: 'half' is not one of",
        ),
        (
            gen.load_generic,
            "generic.yaml",
            "balance_colors: true}",
            "balance_colour: true}",
            "unknown key 'balance_colour'",
        ),
        (
            gen.load_generic,
            "generic.yaml",
            "rare_mythic: 1, basic: 1}",
            "rare_mythic: 1, basics: 1}",
            "unknown key 'basics'",
        ),
    ],
)
def test_unknown_keys_fail_with_file_and_key(tmp_path, loader, name, old, new, message):
    text = (ex.BOOSTERS_DIR / name).read_text()
    assert old in text
    bad = tmp_path / name
    bad.write_text(text.replace(old, new, 1))
    with pytest.raises(InputError, match=message) as err:
        loader(bad)
    assert str(bad) in str(err.value)


def test_cli_json_equals_library(built_db, con):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "boosterkit.cli",
            "--db",
            str(built_db),
            "products",
            "afr",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert listed == json.loads(json.dumps(list_products(con, "afr")))
    assert listed and all(
        {"code", "set_code", "kind", "source"} <= set(p) and p["set_code"] == "afr" for p in listed
    )
    text = subprocess.run(
        [sys.executable, "-m", "boosterkit.cli", "--db", str(built_db), "products", "afr"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert (
        "afr-set  [set, sealed-data, default]" in text
        and "fill with: boosterkit sync afr (brings aafr)" in text
    )


def test_cli_set_without_products_says_so(built_scryfall, tmp_path):
    from boosterkit.pipeline.sync import sync_file

    path = tmp_path / "woe.duckdb"
    cards = built_scryfall / "cards" / "woe+wot.unique-cards.json"
    wot = sum(c["set"] == "wot" for c in json.loads(cards.read_text()))
    with db.connect(path) as con:  # wot: the Enchanting Tales bonus sheet, no commons
        sync_file(con, cards, cache=tmp_path / "cache")
        assert list_products(con, "wot") == []
    run = [sys.executable, "-m", "boosterkit.cli", "--db", str(path), "products", "WOT"]
    text = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    assert text.startswith(f"wot: no products: none of its {wot} cards is marked for boosters")
    assert len(text.strip().splitlines()) == 1
    assert (
        json.loads(
            subprocess.run([*run, "--json"], capture_output=True, text=True, check=True).stdout
        )
        == []
    )


def test_a_known_set_without_cards_names_the_sync(built_scryfall, tmp_path):
    """A set from the set list (``sync --sets``) with no cards loaded yet: `products` and
    `open` say so and name the command that loads it, not a shortage of commons."""
    from boosterkit.pipeline.sync import sync_file

    path = tmp_path / "sets.duckdb"
    with db.connect(path) as con:
        sync_file(con, built_scryfall / "sets" / "sets.json", cache=tmp_path / "cache")
    run = [sys.executable, "-m", "boosterkit.cli", "--db", str(path)]
    text = subprocess.run(
        [*run, "products", "WOE"], capture_output=True, text=True, check=True
    ).stdout
    assert text.strip() == (
        "woe: no products: no cards of it are loaded yet; run `boosterkit sync woe`"
    )
    opened = subprocess.run([*run, "open", "woe"], capture_output=True, text=True)
    assert opened.returncode != 0 and opened.stdout == ""
    assert opened.stderr.strip().splitlines() == [
        "boosterkit: error: set 'woe' has no booster products: no cards of it are loaded yet; "
        "run `boosterkit sync woe`"
    ]


def test_cli_unknown_set(built_db):
    proc = subprocess.run(
        [sys.executable, "-m", "boosterkit.cli", "--db", str(built_db), "products", "nope"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and proc.stderr.startswith("boosterkit: error: unknown set 'nope'")


def test_minigame_dropped_only_when_the_set_list_proves_it_absent():
    import datetime as dt

    rules = ex.load_nonmagic()
    rule = rules.rule_for("set", dt.date(2023, 2, 10))
    variants = [(1, (("common", 1),))]
    kept = ex.compile_extras(rule, "one", variants, {"common": {"one"}}, {}, set(), "all_packs")
    dropped = ex.compile_extras(
        rule, "one", variants, {"common": {"one"}}, {}, {"mone"}, "all_packs"
    )
    assert [o.kind for o in kept[1].options] == ["minigame", "token", "ad"]
    assert [o.kind for o in dropped[1].options] == ["token", "ad"]
    assert [o.weight for o in dropped[1].options] == [9, 1]


@pytest.mark.parametrize("set_code", ["woe", "lci", "mom"])
def test_no_minigame_for_sets_that_had_none(set_code):
    """`only_sets` (the sets with a Scryfall minigame set): never an invented `mlci`."""
    import datetime as dt

    rule = ex.load_nonmagic().rule_for("set", dt.date(2023, 11, 17))
    slots = ex.compile_extras(
        rule, set_code, [(1, (("common", 1),))], {"common": {set_code}}, {}, set(), "all_packs"
    )
    assert [o.kind for o in slots[1].options] == ["token", "ad"]


def test_minigame_set_list_matches_scryfall():
    """The data list is exactly the parents of Scryfall's minigame sets (sets.json)."""
    import datetime as dt

    sets = json.loads(shared_path("sets", "sets.json").read_text())["data"]
    parents = {s["parent_set_code"] for s in sets if s["set_type"] == "minigame"}
    rule = ex.load_nonmagic().rule_for("set", dt.date(2021, 7, 23))
    option = next(o for o in rule.slots[1].options if o.kind == "minigame")
    assert set(option.only_sets) == parents
