"""``boosterkit pool`` / ``POST /pool`` / ``generator.pools`` on the built AFR."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from helpers import run_cli as run

from boosterkit.errors import InputError
from boosterkit.generator import open_packs
from boosterkit.generator.pools import (
    SECTIONS,
    TYPES,
    deck_name,
    decklist,
    open_pools,
    pool_seed,
    render_pools,
)  # fmt: skip
from boosterkit.service.app import create_app

DECK_LINE = re.compile(r"^(\d+) (.+) \(([A-Z0-9]+)\) (\S+)$")


def test_pool_i_depends_only_on_seed_and_i(built_db: Path) -> None:
    three = open_pools("afr", 3, 6, seed=99, db=built_db)
    two = open_pools("afr", 2, 6, seed=99, db=built_db)
    assert three["pools"][1] == two["pools"][1]
    assert three["pools"][0]["seed"] == pool_seed(99, 1) != three["pools"][1]["seed"]
    packs = [p.to_dict() for p in open_packs("afr", None, 6, pool_seed(99, 3), db=built_db)]
    assert three["pools"][2]["packs"] == packs
    assert three["product"] == "afr-draft" and three["packs_per_player"] == 6


def test_pool_cards_are_counted_and_sorted(built_db: Path) -> None:
    pool = open_pools("afr", 1, 6, seed=3, db=built_db)["pools"][0]
    magic = [i for p in pool["packs"] for i in p["items"] if i["kind"] == "card"]
    assert sum(e["count"] for e in pool["cards"]) == len(magic) == 6 * 15
    others = [i for p in pool["packs"] for i in p["items"] if i["kind"] != "card"]
    assert sum(o["count"] for o in pool["others"]) == len(others)
    keys = [
        (
            SECTIONS.index(e["section"]),
            TYPES.index(e["type"]) if e["type"] in TYPES else 9,
            e["mana_value"],
        )
        for e in pool["cards"]
    ]
    assert keys == sorted(keys)
    white = [e for e in pool["cards"] if e["section"] == "White"]
    assert white and all(e["colors"] == ["W"] and "Land" not in e["type_line"] for e in white)
    assert all("Land" in e["type_line"] for e in pool["cards"] if e["section"] == "Lands")


def test_decklist_imports_as_a_sideboard(built_db: Path) -> None:
    pool = open_pools("afr", 1, 3, seed=8, db=built_db)["pools"][0]
    text = decklist(pool)
    head, _, side = text.partition("\nSideboard\n")
    assert head == "Deck\n"
    lines = side.splitlines()
    parsed = [DECK_LINE.match(x) for x in lines]
    assert lines and all(parsed)
    assert sum(int(m[1]) for m in parsed) == sum(e["count"] for e in pool["cards"] if e["name"])
    names = {deck_name(e["name"], e["layout"]) for e in pool["cards"] if e["name"]}
    assert {m[2] for m in parsed} == names and {m[3] for m in parsed} == {"AFR"}


def test_deck_names_follow_arena() -> None:
    assert deck_name("Fire // Ice", "split") == "Fire // Ice"
    assert (
        deck_name("Valki, God of Lies // Tibalt, Cosmic Impostor", "modal_dfc")
        == "Valki, God of Lies"
    )
    assert deck_name("Bonecrusher Giant // Stomp", "adventure") == "Bonecrusher Giant"
    assert deck_name("Lolth, Spider Queen", "normal") == "Lolth, Spider Queen"


def test_double_faced_cards_import_by_front_name(built_db: Path) -> None:
    """ZNR draft boosters carry a double-faced card in every pack."""
    pool = open_pools("znr", 1, 6, seed=2, db=built_db)["pools"][0]
    dfcs = [e for e in pool["cards"] if e["name"] and " // " in e["name"]]
    assert dfcs and all(e["layout"] == "modal_dfc" for e in dfcs)
    text = decklist(pool)
    for e in dfcs:
        front = e["name"].split(" // ")[0]
        assert f" {front} (ZNR) {e['collector_number']}" in text and e["name"] not in text


def test_cli_json_equals_library_and_files_per_player(
    capsys, built_db: Path, tmp_path: Path
) -> None:
    args = ["--db", str(built_db), "pool", "afr", "--players", "3", "--packs", "3", "--seed", "4"]
    code, out, _ = run(capsys, *args, "--json")
    assert code == 0 and json.loads(out) == open_pools("afr", 3, 3, seed=4, db=built_db)
    code, _, err = run(capsys, *args, "-f", "decklist", "-o", str(tmp_path / "lists"))
    files = sorted((tmp_path / "lists").iterdir())
    assert code == 0 and [f.name for f in files] == ["pool-1.txt", "pool-2.txt", "pool-3.txt"]
    assert "wrote 3 files" in err
    lib = open_pools("afr", 3, 3, seed=4, db=built_db)
    assert files[1].read_text() == decklist(lib["pools"][1])
    code, out, _ = run(capsys, *args, "-f", "html")
    assert code == 0 and out.count('<section class="pool">') == 3 and "break-after:page" in out
    code, out, _ = run(capsys, *args, "-f", "md")
    assert code == 0 and out.count("# Player ") == 3 and "## White" in out


@pytest.mark.parametrize("args, words", [
    (["--players", "0"], "--players 0 is out of range"),
    (["--players", "2", "--packs", "99"], "--packs 99 is out of range"),
])  # fmt: skip
def test_cli_bad_input(capsys, built_db: Path, args, words) -> None:
    code, out, err = run(capsys, "--db", str(built_db), "pool", "afr", *args, "--seed", "1")
    assert code == 2 and out == "" and words in err and len(err.splitlines()) == 1
    with pytest.raises(InputError):
        open_pools("afr", 1, 0, seed=1, db=built_db)


def test_http_pool_equals_cli(capsys, built_db: Path) -> None:
    with TestClient(create_app(built_db), base_url="http://127.0.0.1") as client:
        body = {"set": "afr", "players": 2, "packs": 3, "seed": 12}
        r = client.post("/pool", json=body)
        _, out, _ = run(capsys, "--db", str(built_db), "pool", "afr", "--players", "2",
                        "--packs", "3", "--seed", "12", "-f", "json")  # fmt: skip
        assert r.status_code == 200 and r.text == out
        r = client.post("/pool", json={**body, "format": "decklist"})
        lib = open_pools("afr", 2, 3, seed=12, db=built_db)
        assert r.status_code == 200 and r.text == render_pools(lib, "decklist")
        r = client.post("/pool", json={**body, "players": 20, "packs": 36})
        assert r.status_code == 422 and "at most 360" in r.json()["error"]
        r = client.post("/pool", json={**body, "set": "zzz"})
        assert r.status_code == 404


def test_the_treatment_and_type_of_each_printing(real_db: Path) -> None:
    """Real AFR Set Boosters hold showcase and borderless printings: each pool
    line names its treatment (Manticore #113 and its showcase #314 read apart, never "1
    Manticore / 1 Manticore"), and lands are typed Land, not Other."""
    data = open_pools("afr", 8, 6, "afr-set", seed=5, db=real_db)
    cards = [c for p in data["pools"] for c in p["cards"] if c["section"] != "Unresolved"]
    seen = {w for c in cards for w in c["treatment"]}
    assert {"showcase", "borderless"} <= seen, seen
    text = render_pools(data, "text")
    for c in cards:
        marks = c["treatment"] + (["foil"] if c["foil"] else [])
        marks = [f"#{c['collector_number']}", *marks] if c["numbered"] else marks
        label = f"{c['name']} ({', '.join(marks)})" if marks else c["name"]
        assert f"{c['count']} {label}  [" in text, label
    lands = [c for c in cards if c["section"] == "Lands"]
    assert lands and all(c["type"] == "Land" for c in lands)
    assert not any(c["type"] == "Other" for c in cards)
    for pool in data["pools"]:  # no two lines of a pool read alike
        lines = [x.split("  [")[0].split(" ", 3)[3] for x in render_pools({**data, "pools": [pool]}, "text")
                 .splitlines() if x.startswith("  ") and "  [" in x]  # fmt: skip
        assert len(lines) == len(set(lines)), sorted(x for x in lines if lines.count(x) > 1)
