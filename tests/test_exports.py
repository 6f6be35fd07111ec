"""Exports that import (issue 31): every deck, pack and product format, read back with its
target's own grammar (``exports_grammar.py``), gives the same cards, counts, sets, numbers and
foils; The List as Scryfall's ``plst``; what a format cannot hold is left out with one line."""

from __future__ import annotations

import importlib.util
import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

import exports_grammar as g
import pytest
from conftest import PKG, ROOT, SCRYFALL, shared_path
from helpers import run_cli

from boosterkit.formats import PACKS, POOLS
from boosterkit.generator.pools import open_pools, render_pool
from boosterkit.pipeline import db

# mtgdeck calls pyparsing by its old names, which warn
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

#: The deck formats and the reader of each.
DECKS = ("arena", "moxfield", "mtgo", "dek", "cockatrice", "xmage", "forge", "mtgjson")
SPLIT = ("split", "aftermath", "fuse")


@pytest.fixture(scope="module")
def list_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """AFR, KHM and STX with their tokens, The List (PLIST.json) and magic-sealed-data's
    products, imported as a user would."""
    from boosterkit.pipeline.collation import import_collation
    from boosterkit.pipeline.mtgjson import import_mtgjson

    files = [shared_path("mtgjson", f"{c}.json") for c in ("AFR", "KHM", "STX", "PLIST")]
    path = tmp_path_factory.mktemp("exports") / "list.duckdb"
    con = db.connect(path)
    try:
        import_mtgjson(con, files)
        import_collation(con, shared_path("boosters", "sealed_basic_data.json"))
    finally:
        con.close()
    return path


def _plst() -> dict[str, str]:
    """The committed table, read here on its own (Scryfall id → ``plst`` number)."""
    rows = (PKG / "data" / "boosters" / "plst_numbers.csv").read_text("utf-8").splitlines()
    body = [r for r in rows if r and not r.startswith("#")]
    assert body[0] == "scryfall_id,plst_number"
    return dict(r.split(",") for r in body[1:])


PLST = _plst()


def _name(card: dict[str, Any], split: str = " // ") -> str:
    if " // " not in card["name"]:
        return card["name"]
    return (
        card["name"].replace(" // ", split)
        if card["layout"] in SPLIT
        else card["name"].split(" // ")[0]
    )


def _scryfall(card: dict[str, Any]) -> tuple[str, str | None]:
    if card["set"] == "plist":
        return "plst", PLST.get(card["card_id"])
    return card["set"], card["collector_number"]


def expected(pool: dict[str, Any], fmt: str) -> Counter[Any]:
    """The pool's Magic cards as ``fmt``'s target names them, worked out from the pool rows."""
    out: Counter[Any] = Counter()
    for c in pool["cards"]:
        if not c["name"]:
            continue
        code, number = _scryfall(c)
        foil = c["foil"]
        if fmt == "arena":
            key = (
                (_name(c), None, None, False)
                if code in ("plst", "spg")
                else (_name(c), code, number, False)
            )
        elif fmt in ("moxfield", "forge"):
            key = (_name(c), code, number, foil)
        elif fmt == "mtgo":
            key = (_name(c, "/"), None, None, False)
        elif fmt == "dek":
            catid = c["mtgo_foil_id"] if foil and c["mtgo_foil_id"] else c["mtgo_id"]
            if catid is None:
                continue
            key = (_name(c, "/"), catid, True)
        elif fmt in ("cockatrice", "xmage"):
            if fmt == "xmage" and not number:
                continue
            key = (_name(c), code, number, False)
        else:  # mtgjson: MTGJSON's own set and number
            key = (_name(c), c["set"], c["collector_number"], foil)
        out[key] += c["count"]
    return out


READERS = {
    "arena": g.arena,
    "moxfield": lambda text: g.arena(text, " *F*"),
    "mtgo": g.mtgo_txt,
    "dek": g.mtgo_dek,
    "cockatrice": g.cockatrice,
    "xmage": g.xmage,
    "forge": g.forge,
    "mtgjson": g.mtgjson,
}


@pytest.mark.parametrize("set_code", ["afr", "khm", "stx"])
def test_50_pools_read_back_with_each_targets_grammar(list_db: Path, set_code: str) -> None:
    """50 seeded Set Booster pools of a set: every deck format, read back with its target's
    grammar, holds the pool's cards, counts, sets, numbers and foils (List cards included)."""
    data = open_pools(set_code, 50, 6, "set", 31, db=list_db)
    seen = Counter()
    for pool in data["pools"]:
        for fmt in DECKS:
            got = g.counted(READERS[fmt](render_pool(data, pool, fmt)))
            assert got == expected(pool, fmt), (fmt, pool["player"])
        seen.update(c["set"] for c in pool["cards"] for _ in range(c["count"]))
        seen["foil"] += sum(c["count"] for c in pool["cards"] if c["foil"])
    assert seen["plist"] > 10 and seen["foil"] > 100, seen  # List cards and foils were there


def test_the_list_is_plst_with_scryfalls_number(list_db: Path) -> None:
    """A List card loaded from PLIST.json (``plist`` 341 in the database) is written ``PLST``
    with Scryfall's number where it is known, else by name in ``PLST`` (never ``PLIST``)."""
    data = open_pools("afr", 20, 6, "set", 5, db=list_db)
    listed = [c for p in data["pools"] for c in p["cards"] if c["set"] == "plist"]
    known = [c for c in listed if c["card_id"] in PLST]
    assert known and len(known) < len(listed) + 1
    text = "".join(render_pool(data, p, "moxfield") for p in data["pools"])
    assert "(PLIST)" not in text
    for c in known:
        assert f"{_name(c)} (PLST) {PLST[c['card_id']]}" in text


def test_the_plst_table_is_what_the_script_derives_and_agrees_with_mtgjson() -> None:
    """``plst_numbers.csv`` is ``make_plst_numbers.py``'s output; every number it gives of a
    set whose MTGJSON file is in ../shared names the same card there."""
    spec = importlib.util.spec_from_file_location("mk", PKG / "data/boosters/make_plst_numbers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    root = shared_path()
    committed = (PKG / "data" / "boosters" / "plst_numbers.csv").read_text("utf-8")
    assert committed == module.plst_csv(root)
    names = {c["identifiers"]["scryfallId"]: c["name"] for c in
             json.loads(shared_path("mtgjson", "PLIST.json").read_text("utf-8"))["data"]["cards"]}  # fmt: skip
    checked = 0
    for code in ("AFR", "KHM", "ZNR", "STX", "MH2"):
        cards = json.loads(shared_path("mtgjson", f"{code}.json").read_text("utf-8"))["data"][
            "cards"
        ]
        by_number = {c["number"]: c["name"] for c in cards}
        for sid, number in PLST.items():
            s, _, n = number.partition("-")
            if s == code:
                assert by_number[n] == names[sid], (sid, number)
                checked += 1
    assert len(PLST) == 445 and checked >= 10


def _sets() -> set[str]:
    return {
        s["code"] for s in json.loads((SCRYFALL / "sets" / "sets.json").read_text("utf-8"))["data"]
    }


def _names(path: Path) -> set[str]:
    with db.connect(path, read_only=True) as con:
        rows = con.execute("SELECT name FROM cards").fetchall()
    return {n.split(" // ")[0].lower() for (n,) in rows} | {n.lower() for (n,) in rows}


def test_draftmancer_reads_100_packs(list_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``open -f draftmancer``: every line of 100 Set Boosters matches Draftmancer's line
    grammar, with Scryfall's set codes and card names; each pack's Magic cards are there, foils
    marked; what has no line is said on stderr."""
    from boosterkit.generator import iter_packs

    code, out, err = run_cli(capsys, "--db", str(list_db), "open", "afr", "-p", "set", "-n",
                             "100", "--seed", "8", "-f", "draftmancer")  # fmt: skip
    assert code == 0
    boosters = g.draftmancer_boosters(out)
    packs = list(iter_packs("afr", "set", 100, 8, db=list_db))
    assert len(boosters) == 100
    sets, names = _sets(), _names(list_db)
    for booster, pack in zip(boosters, packs):
        items = [it for it in pack.to_dict()["items"] if it["kind"] == "card" and it["resolved"]]
        want = Counter((_name(it), *_scryfall(it), it["foil"]) for it in items)
        assert g.counted(booster) == want
        assert all(c[2] in sets and c[1].lower() in names for c in booster), booster
    left = sum(len(p.to_dict()["items"]) for p in packs) - sum(len(b) for b in boosters)
    assert re.search(rf"draftmancer: left out {left} objects of the packs: ", err), err


def test_draftmancer_reads_the_products_custom_card_list(list_db: Path, capsys) -> None:
    """``products afr --export draftmancer`` (the default product, and the Set Booster with its
    List): Draftmancer's list grammar accepts every line; the layouts are the product's variants
    with their weights, each slot its sheet and count; sheet lines keep the sheet's weights."""
    from boosterkit.generator.cache import compiled_product

    sets, names = _sets(), _names(list_db)
    for product in (None, "afr-set"):
        args = ["products", "afr", "--export", "draftmancer"] + (["-p", product] if product else [])
        code, out, err = run_cli(capsys, "--db", str(list_db), *args)
        assert code == 0 and err.startswith("draftmancer: left out ")
        settings, sheets = g.draftmancer_list(out)
        compiled = compiled_product("afr", product, list_db).product
        assert [lay["weight"] for lay in settings["layouts"].values()] == [
            v.weight for v in compiled.variants
        ]
        for v, lay in zip(compiled.variants, settings["layouts"].values()):
            kept = [(s, n) for s, n in v.slots if s in compiled.sheets]
            assert [(s["sheets"][0], s["count"]) for s in lay["slots"]] == kept
        for name, lines in sheets.items():
            sheet = compiled.sheets[name]
            assert all(c[2] in sets and c[1].lower() in names and c[4] == sheet.foil for c in lines)
            weights: Counter[Any] = Counter()
            for c, w in zip(sheet.cards, sheet.weights):
                if c.kind == "card" and c.resolved:
                    row = {"name": c.name, "layout": c.layout, "set": c.set,
                           "collector_number": c.collector_number, "card_id": c.card_id}  # fmt: skip
                    weights[(_name(row), *_scryfall(row))] += w
            read = {(c[1], c[2], c[3]): c[0] for c in lines}
            unit = math.gcd(*weights.values())
            assert read == {k: w // unit for k, w in weights.items()}, name
        if product == "afr-set":
            plst = [c for c in sheets["the_list"]]
            assert len(plst) == 300 and all(c[2] == "plst" for c in plst)


# --- small pools: the samples of docs/formats.md, Special Guests, what is left out ---------


def _card(name: str, code: str, number: str, **kw: Any) -> dict[str, Any]:
    return {"count": kw.pop("count", 1), "name": name, "set": code, "collector_number": number,
            "foil": kw.pop("foil", False), "layout": kw.pop("layout", "normal"),
            "card_id": kw.pop("card_id", None), "mtgo_id": kw.pop("mtgo_id", None),
            "mtgo_foil_id": kw.pop("mtgo_foil_id", None), **kw}  # fmt: skip


#: A pool of real printings: two of a card, a foil, a showcase, a double-faced card, a split
#: card, a List card from PLIST.json, a Special Guest; a token and an art card beside them.
SAMPLE = {
    "set": "afr", "product": "afr-set", "seed": 7, "players": 1, "packs_per_player": 1,
    "pools": [{"player": 1, "cards": [
        _card("Arborea Pegasus", "afr", "2", count=2, mtgo_id=91506),
        _card("Lolth, Spider Queen", "afr", "112", foil=True, mtgo_id=91726),
        _card("Delina, Wild Mage", "afr", "318", mtgo_id=92126),
        _card("Valki, God of Lies // Tibalt, Cosmic Impostor", "khm", "114", layout="modal_dfc",
              mtgo_id=87474),
        _card("Fire // Ice", "mh2", "290", layout="split"),
        _card("Animate Dead", "plist", "420", card_id="4c732dc7-dd6b-4cc1-bbe0-ff3b1d2c7419"),
        _card("Swords to Plowshares", "spg", "19"),
    ], "others": [
        {"count": 1, "kind": "token", "name": "Skeleton", "set": "tafr", "collector_number": "6"},
        {"count": 1, "kind": "art_card", "name": "Lolth", "set": "aafr", "collector_number": "30"},
    ]}],
}  # fmt: skip


def test_the_sample_list_card_has_its_plst_number() -> None:
    assert PLST["4c732dc7-dd6b-4cc1-bbe0-ff3b1d2c7419"] == "EMA-78"


def _doc_blocks() -> dict[str, str]:
    text = (ROOT / "docs" / "formats.md").read_text("utf-8")
    return dict(re.findall(r"<!-- sample: ([a-z-]+) -->\n```[a-z]*\n(.*?)```\n", text, re.S))


@pytest.mark.parametrize("fmt", DECKS)
def test_each_deck_format_has_its_sample_in_the_docs(fmt: str) -> None:
    """docs/formats.md shows each format writing ``SAMPLE``; its reader takes it back whole
    (the Special Guest and The List card included)."""
    pool = SAMPLE["pools"][0]
    text = render_pool(SAMPLE, pool, fmt)
    assert _doc_blocks()[fmt] == text, f"docs/formats.md: the {fmt} sample is not what it writes"
    assert g.counted(READERS[fmt](text)) == expected(pool, fmt)


def test_the_docs_show_every_new_format() -> None:
    blocks = _doc_blocks()
    for fmt in (*DECKS, "draftmancer", "cubecobra", "products-draftmancer"):
        assert fmt in blocks, fmt
    assert set(DECKS) <= set(POOLS.names) and {"draftmancer", "cubecobra"} <= set(PACKS.names)


def test_what_a_format_cannot_hold_is_one_line() -> None:
    from boosterkit.generator.decks import left_out

    assert left_out(SAMPLE, "dek") == (
        "dek: left out 5 objects of the pools: 3 cards without an MTGO catalogue id (a .dek "
        "names each card by its CatID); 2 objects without a Magic back (tokens, art cards, "
        "ads, minigame cards)"
    )
    assert left_out(SAMPLE, "xmage").startswith("xmage: left out 2 objects of the pools: 2 ")
    assert left_out(SAMPLE, "text") is None


def test_a_deck_file_holds_one_pool(built_db: Path, capsys, tmp_path: Path) -> None:
    """Several players and no -o: one line naming -o DIR, exit 2; with -o, a file each, and
    the left-out line on stderr."""
    base = ["--db", str(built_db), "pool", "afr", "-n", "2", "--packs", "1", "--seed", "3"]
    code, out, err = run_cli(capsys, *base, "-f", "xmage")
    assert (code, out) == (2, "") and "write one file per player with -o DIR" in err
    assert err.count("\n") == 1
    code, _, err = run_cli(capsys, *base, "-f", "cockatrice", "-o", str(tmp_path / "d"))
    assert code == 0 and sorted(p.name for p in (tmp_path / "d").iterdir()) == [
        "pool-1.cod",
        "pool-2.cod",
    ]
    assert re.search(r"^cockatrice: left out \d+ objects of the pools: ", err, re.M)


def test_seeded_exports_are_byte_identical(built_db: Path, capsys) -> None:
    outs = []
    for _ in range(2):
        run = []
        for fmt in DECKS:
            run.append(run_cli(capsys, "--db", str(built_db), "pool", "afr", "-n", "1", "--seed",
                               "4", "-f", fmt)[1])  # fmt: skip
        for fmt in ("draftmancer", "cubecobra"):
            run.append(run_cli(capsys, "--db", str(built_db), "open", "afr", "-p", "set", "-n",
                               "5", "--seed", "4", "-f", fmt)[1])  # fmt: skip
        run.append(run_cli(capsys, "--db", str(built_db), "products", "afr", "--export",
                           "draftmancer")[1])  # fmt: skip
        outs.append(run)
    assert outs[0] == outs[1] and all(outs[0])


def test_cubecobra_csv_has_its_columns_finish_and_art_cards(list_db: Path, capsys) -> None:
    """``open -f cubecobra``: CubeCobra's export header; a row per named object (art cards
    and tokens too, when loaded), ``Finish`` Foil/Non-foil as the item's, the pack in Tags."""
    import csv
    import io

    from boosterkit.generator import iter_packs

    code, out, _ = run_cli(capsys, "--db", str(list_db), "open", "afr", "-p", "set", "-n", "20",
                           "--seed", "2", "-f", "cubecobra")  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == list(g_cubecobra_header())
    packs = list(iter_packs("afr", "set", 20, 2, db=list_db))
    want = Counter((it["name"], _scryfall(it)[0], _scryfall(it)[1] or "", "Foil" if it["foil"] else "Non-foil",
                    f"pack-{p.index}") for p in packs for it in p.to_dict()["items"] if it["name"] and it["resolved"])  # fmt: skip
    got = Counter(
        (r["Name"], r["Set"], r["Collector Number"], r["Finish"], r["Tags"]) for r in rows
    )
    assert got == want and any(r["Set"] == "tafr" for r in rows)
    assert {r["Finish"] for r in rows} == {"Foil", "Non-foil"}


def g_cubecobra_header() -> tuple[str, ...]:
    """CubeCobra's CSV export header (its cube export, in this order)."""
    return ("Name", "CMC", "Type", "Color", "Set", "Collector Number", "Rarity", "Color Category",
            "Status", "Finish", "Maybeboard", "Image URL", "Image Back URL", "Tags", "Notes",
            "MTGO ID")  # fmt: skip


@pytest.mark.parametrize(
    ("name", "args", "whole"),
    [
        (
            "draftmancer",
            ("open", "afr", "-p", "set", "-n", "2", "--seed", "7", "-f", "draftmancer"),
            True,
        ),
        (
            "cubecobra",
            ("open", "afr", "-p", "set", "-n", "1", "--seed", "7", "-f", "cubecobra"),
            False,
        ),
        (
            "products-draftmancer",
            ("products", "afr", "-p", "set", "--export", "draftmancer"),
            False,
        ),
    ],
)
def test_the_pack_and_product_samples_are_what_the_bundled_sample_writes(
    capsys, name: str, args: tuple[str, ...], whole: bool
) -> None:
    """docs/formats.md's pack and product samples are the commands it names, run on the
    bundled sample (the CSV and the card list: their first lines)."""
    code, out, _ = run_cli(capsys, "--db", ":sample:", *args)
    block = _doc_blocks()[name]
    assert code == 0 and (out == block if whole else out.startswith(block)), name
    if name == "draftmancer":
        assert len(g.draftmancer_boosters(block)) == 2
