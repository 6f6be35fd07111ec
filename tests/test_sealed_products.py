"""Sealed products (issue 32): MTGJSON's sealed-content data imported, listed by ``products``
and opened by ``open SET --product NAME`` as the packs and cards each product holds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import shared_path
from helpers import run_cli as run

from boosterkit.errors import InputError
from boosterkit.pipeline import db

AFR_BUNDLE = "Adventures in the Forgotten Realms Bundle"


def _afr_yaml() -> dict:
    return yaml.safe_load(shared_path("mtgjson", "sealed-contents", "AFR.yaml").read_text())


@pytest.fixture(scope="module")
def sealed_db(real_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of ``real_db`` with every shared sealed-contents file imported."""
    from boosterkit.pipeline.sealed_contents import import_sealed_contents

    path = tmp_path_factory.mktemp("sealed") / "sealed.duckdb"
    shutil.copy(real_db, path)
    con = db.connect(path)
    try:
        import_sealed_contents(con, [shared_path("mtgjson", "sealed-contents")])
    finally:
        con.close()
    return path


def _open_json(capsys, path: Path, *args: str) -> tuple[list[dict], str]:
    code, out, err = run(capsys, "--db", str(path), "open", *args, "-f", "json")
    assert code == 0, err
    return json.loads(out), err


def test_a_bundle_opens_into_the_packs_and_promo_its_contents_list(capsys, sealed_db: Path) -> None:
    contents = _afr_yaml()["products"][AFR_BUNDLE]
    (boosters,) = contents["sealed"]
    (promo,) = contents["card"]
    packs, err = _open_json(capsys, sealed_db, "afr", "--product", "Bundle", "--seed", "7")
    drafts = [p for p in packs if p["product"] == "afr-draft"]
    assert len(drafts) == boosters["count"] and len(packs) == boosters["count"] + 1
    assert [p["index"] for p in packs] == list(range(1, len(packs) + 1))
    (loose,) = [p for p in packs if p["product"] == AFR_BUNDLE]
    (card,) = loose["items"]
    assert (card["name"], card["set"], card["collector_number"], card["foil"]) == (
        promo["name"], promo["set"], str(promo["number"]), promo["foil"],
    )  # fmt: skip
    assert card["resolved"] and card["slot"] == "promo"
    # What was not opened is said, with why: the land pack (a deck), the spindown (no card).
    for thing in [*contents["deck"], *contents["other"]]:
        assert thing["name"] in err
    assert "boosterkit has no deck lists" in err
    again, _ = _open_json(capsys, sealed_db, "afr", "-p", AFR_BUNDLE, "--seed", "7")
    assert again == packs  # the full name gives the same product, seeded: the same packs


def test_a_box_is_the_first_packs_of_its_seed(capsys, sealed_db: Path) -> None:
    """Each pack of a box is its own seeded pack: the box is ``open -n 36`` of its booster."""
    (inner,) = _afr_yaml()["products"]["Adventures in the Forgotten Realms Draft Booster Box"][
        "sealed"
    ]
    box, _ = _open_json(capsys, sealed_db, "afr", "-p", "draft booster box", "--seed", "11")
    plain, _ = _open_json(capsys, sealed_db, "afr", "-p", "draft", "-n", str(inner["count"]),
                          "--seed", "11")  # fmt: skip
    assert box == plain and len(box) == inner["count"]
    two, _ = _open_json(capsys, sealed_db, "afr", "-p", "draft booster box", "-n", "2",
                        "--seed", "11")  # fmt: skip
    assert two[: len(box)] == box and len(two) == 2 * len(box)
    other, _ = _open_json(capsys, sealed_db, "afr", "-p", "draft booster box", "--seed", "12")
    assert other != box


def test_a_gift_bundle_mixes_products_and_a_case_holds_its_boxes(capsys, sealed_db: Path) -> None:
    products = _afr_yaml()["products"]
    gift = products["Adventures in the Forgotten Realms Gift Bundle"]
    packs, _ = _open_json(capsys, sealed_db, "afr", "-p", "gift bundle", "--seed", "3")
    want = {f"afr-{'collector' if 'Collector' in s['name'] else 'draft'}": s["count"]
            for s in gift["sealed"]}  # fmt: skip
    got = {code: sum(p["product"] == code for p in packs) for code in want}
    assert got == want
    case = products["Adventures in the Forgotten Realms Set Booster Box Case"]["sealed"][0]
    box = products[case["name"]]["sealed"][0]
    packs, _ = _open_json(capsys, sealed_db, "afr", "-p", "set booster box case", "--seed", "3")
    assert len(packs) == case["count"] * box["count"]
    assert {p["product"] for p in packs} == {"afr-set"}


def test_what_cannot_be_opened_says_so(capsys, sealed_db: Path) -> None:
    contents = _afr_yaml()["products"]["Adventures in the Forgotten Realms Prerelease Pack"]
    packs, err = _open_json(capsys, sealed_db, "afr", "-p", "prerelease pack", "--seed", "5")
    assert len(packs) == contents["sealed"][0]["count"]
    assert "no booster product in the database: afr prerelease" in err
    code, out, err = run(capsys, "--db", str(sealed_db), "open", "afr", "-p", "Welcome Booster")
    assert code == 0 and out == "" and "nothing boosterkit opens" in err


def test_products_lists_the_sealed_products(capsys, sealed_db: Path) -> None:
    names = set(_afr_yaml()["products"])
    code, out, _ = run(capsys, "--db", str(sealed_db), "products", "afr")
    assert code == 0 and "Sealed products (" in out
    assert all(name in out for name in names)
    code, out, _ = run(capsys, "--db", str(sealed_db), "products", "afr", "--sealed", "--json")
    listed = json.loads(out)
    assert {p["name"] for p in listed} == names
    by_name = {p["name"]: p for p in listed}
    assert by_name[AFR_BUNDLE]["packs"] == {"afr-draft": 10} and by_name[AFR_BUNDLE]["opens"]
    assert not by_name["2021 Arena Starter Kit"]["opens"]


def test_an_unknown_product_names_the_sealed_ones(capsys, sealed_db: Path) -> None:
    code, _, err = run(capsys, "--db", str(sealed_db), "open", "afr", "-p", "Bundel of joy")
    assert code == 2 and "products afr --sealed" in err and "Traceback" not in err
    code, _, err = run(capsys, "--db", str(sealed_db), "open", "afr", "-p", "booster box")
    assert code == 2 and "several sealed products" in err  # draft, set, collector, theme


def _write_yaml(path: Path, products: dict) -> Path:
    path.write_text(yaml.safe_dump({"code": "afr", "products": products}))
    return path


@pytest.fixture()
def built_copy(built_db: Path, tmp_path: Path) -> Path:
    path = tmp_path / "built.duckdb"
    shutil.copy(built_db, path)
    return path


def test_variable_contents_are_drawn_from_the_seed(capsys, built_copy: Path, tmp_path) -> None:
    one = {"pack": [{"code": "draft", "set": "afr"}]}
    five = {"sealed": [{"name": "Draft Pack", "set": "afr", "count": 5}]}
    f = _write_yaml(tmp_path / "afr.yaml", {
        "Draft Pack": one,
        "Mystery Kit": {"variable": [{"configs": [one, five]}]},
    })  # fmt: skip
    code, _, err = run(capsys, "--db", str(built_copy), "import", "sealed-contents", str(f))
    assert code == 0, err
    sizes = set()
    for seed in range(1, 9):
        packs, _ = _open_json(capsys, built_copy, "afr", "-p", "mystery kit", "--seed", str(seed))
        again, _ = _open_json(capsys, built_copy, "afr", "-p", "mystery kit", "--seed", str(seed))
        assert packs == again
        sizes.add(len(packs))
    assert sizes == {1, 5}


def test_bad_contents_files_are_refused_whole(capsys, built_copy: Path, tmp_path) -> None:
    good = _write_yaml(tmp_path / "good.yaml", {"Draft Pack": {"pack": [{"code": "draft"}]}})
    bad = _write_yaml(tmp_path / "bad.yaml", {"Odd": {"boxes": [{"code": "draft"}]}})
    code, _, err = run(capsys, "--db", str(built_copy), "import", "sealed-contents",
                       str(good), str(bad))  # fmt: skip
    assert code == 2 and "bad.yaml: Odd: unknown contents key 'boxes'" in err
    con = db.connect(built_copy, read_only=True)
    try:
        assert db.scalar(con, "SELECT count(*) FROM sealed_products") == 0  # nothing half-done
    finally:
        con.close()
    loop = _write_yaml(tmp_path / "loop.yaml", {"A": {"sealed": [{"name": "A", "count": 1}]}})
    code, _, err = run(capsys, "--db", str(built_copy), "import", "sealed-contents", str(loop))
    assert code == 0
    code, _, err = run(capsys, "--db", str(built_copy), "open", "afr", "-p", "A")
    assert code == 2 and "nested more than" in err


def test_mtgjson_set_files_with_contents_import_too(built_copy: Path, tmp_path: Path) -> None:
    from boosterkit.pipeline.sealed_contents import import_sealed_contents, read_file

    entry = {"name": "Test Draft Booster Box", "uuid": "x",
             "contents": {"sealed": [{"name": "Test Draft Booster Pack", "count": 36}]}}  # fmt: skip
    f = tmp_path / "AFR.json"
    f.write_text(json.dumps({"data": {"code": "AFR", "sealedProduct": [entry, {"name": "Bare"}]}}))
    rows, bare = read_file(f)
    assert [(r.set_code, r.name, r.source) for r in rows] == [("afr", entry["name"], "mtgjson")]
    assert bare == 1
    con = db.connect(built_copy)
    try:
        summary = import_sealed_contents(con, [f])
    finally:
        con.close()
    assert summary["products"] == 1 and summary["without_contents"] == 1
    with pytest.raises(InputError, match="not an MTGJSON set file"):
        (tmp_path / "x.json").write_text("[1]")
        read_file(tmp_path / "x.json")


def test_a_pool_of_sealed_products(capsys, sealed_db: Path, tmp_path: Path) -> None:
    """A prerelease pack per player, by spec or as the product of a count; a pool holds 36
    packs at most, whatever product holds them; the registration line quotes the spec."""
    base = ["--db", str(sealed_db), "pool", "-n", "2", "--seed", "4", "--json"]
    code, out, err = run(capsys, *base, "--packs", "afr/prerelease pack:1,stx:1")
    data = json.loads(out)
    kit = _afr_yaml()["products"]["Adventures in the Forgotten Realms Prerelease Pack"]
    places = len(kit["pack"]) + kit["sealed"][0]["count"] + 1  # its promo pack keeps a place
    assert code == 0 and data["packs_per_player"] == places, err
    for pool in data["pools"]:
        assert [p["product"] for p in pool["packs"]] == ["afr-draft"] * 6 + ["stx-draft"]
        assert [p["index"] for p in pool["packs"]] == list(range(2, places + 1))
    code, out, _ = run(capsys, *base, "afr", "-p", "prerelease pack", "--packs", "1")
    assert code == 0 and [p["packs"] for p in json.loads(out)["pools"]] == [
        p["packs"][:-1] for p in data["pools"]
    ]
    code, out, err = run(capsys, *base, "--packs", "afr/draft booster box:1,stx:1")
    assert code == 2 and "stx:1: more than the 36 packs a pool holds after its first 36" in err
    code, out, err = run(capsys, *base, "--packs", "stx:1,afr/draft booster box:1")
    assert code == 2 and "afr/draft booster box:1: more than the 36 packs a pool holds after" in err
    code, out, err = run(capsys, *base, "--packs", "afr/prerelease pack:1", "--only-pack", "8")
    assert code == 2 and "--only-pack 8 is not one of the pool's packs (1 to 7)" in err
    code, _, _ = run(capsys, *base[:-1], "--packs", "afr/prerelease pack:1,stx:1",
                     "-f", "registration-html", "-o", str(tmp_path))  # fmt: skip
    line = "boosterkit pool check DECK --packs 'afr/prerelease pack:1,stx:1' --seed 4 --player 2"
    assert code == 0 and line in (tmp_path / "pool-2.html").read_text().replace("&#x27;", "'")
    deck = tmp_path / "deck.txt"  # the line, copied to the deck file, names the pool again
    cards = [c for c in data["pools"][1]["cards"] if c["name"] and c["section"] != "Lands"]
    deck.write_text(f"// {line}\n" + "".join(f"{c['count']} {c['name']}\n" for c in cards))
    code, out, err = run(capsys, "--db", str(sealed_db), "pool", "check", str(deck), "--json")
    assert json.loads(out)["player"] == 2 and json.loads(out)["missing"] == [], err


def test_the_service_lists_and_counts_sealed_products(capsys, sealed_db: Path) -> None:
    """``GET /sets/afr/sealed`` is ``products afr --sealed --json``; ``POST /pool``'s limit of
    packs a request opens holds for the packs a sealed product holds, not the products
    named (32 boxes are 1,152 packs)."""
    from fastapi.testclient import TestClient

    from boosterkit.service.app import create_app

    code, out, _ = run(capsys, "--db", str(sealed_db), "products", "afr", "--sealed", "--json")
    with TestClient(create_app(sealed_db), base_url="http://127.0.0.1") as client:
        listed = client.get("/sets/afr/sealed")
        assert code == 0 and listed.status_code == 200 and listed.text == out
        body = {"packs": "afr/draft booster box:1", "seed": 1}
        over = client.post("/pool", json={**body, "players": 32})
        assert over.status_code in (400, 422), over.text
        assert "32 players × 36 packs is more than the 360 packs one request opens" in over.text
        kit = client.post("/pool", json={**body, "players": 2, "packs": "afr/bundle:1"})
        assert kit.status_code == 200 and kit.json()["packs_per_player"] == 11
