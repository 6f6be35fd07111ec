"""Sealed events (issue 32): mixed and chaos pools, duplicate sealed, a league's week,
registration sheets, and ``pool check`` of a registered deck against its seeded pool."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from helpers import run_cli as run

from boosterkit.errors import InputError
from boosterkit.generator.deckcheck import read_deck
from boosterkit.generator.decks import TARGETS, deck_cards
from boosterkit.generator.events import event_spec, open_event, parse_pool_args, pool_args
from boosterkit.generator.pools import open_pools
from boosterkit.serialize import to_json

MIXED = "afr:3,stx:3"


def _products(pool: dict) -> list[str]:
    return [p["product"] for p in pool["packs"]]


def test_a_mixed_pool_is_each_sets_packs_at_their_places(built_db: Path) -> None:
    data = open_event(event_spec(None, MIXED), 4, 7, db=built_db)
    assert data["spec"] == MIXED and data["packs_per_player"] == 6
    for pool in data["pools"]:
        assert _products(pool) == ["afr-draft"] * 3 + ["stx-draft"] * 3
        assert [p["index"] for p in pool["packs"]] == [1, 2, 3, 4, 5, 6]
        assert pool["contents"] == "3 afr-draft + 3 stx-draft"
    # Pack j of a pool is pack j of its product under the pool seed, whatever the others are:
    afr = open_pools("afr", 4, 6, None, 7, db=built_db)
    stx = open_pools("stx", 4, 6, None, 7, db=built_db)
    for mixed, a, s in zip(data["pools"], afr["pools"], stx["pools"]):
        assert mixed["packs"] == a["packs"][:3] + s["packs"][3:]
    plain = open_event(event_spec(None, "afr:6"), 4, 7, db=built_db)
    assert [p["packs"] for p in plain["pools"]] == [p["packs"] for p in afr["pools"]]
    assert [p["cards"] for p in plain["pools"]] == [p["cards"] for p in afr["pools"]]


def test_a_league_adds_a_pack_a_week_and_prints_only_it(built_db: Path) -> None:
    week3 = open_event(event_spec(None, "afr:3"), 2, 5, db=built_db)
    week4 = open_event(event_spec(None, "afr:4"), 2, 5, db=built_db)
    only4 = open_event(event_spec(None, "afr:4", only_pack=4), 2, 5, db=built_db)
    for p3, p4, new in zip(week3["pools"], week4["pools"], only4["pools"]):
        assert p4["packs"][:3] == p3["packs"]  # earlier weeks' packs unchanged
        assert new["packs"] == [p4["packs"][3]]  # this week's pack alone
        assert sum(c["count"] for c in new["cards"]) == sum(
            1 for it in p4["packs"][3]["items"] if it["kind"] == "card"
        )
        assert new["contents"] == "pack 4 of 4 afr-draft"


def test_chaos_draws_each_packs_set_from_the_list(built_db: Path) -> None:
    sets = ["afr", "stx", "khm", "znr"]
    event = event_spec(None, 6, chaos=",".join(sets))
    data = open_event(event, 8, 3, db=built_db)
    drawn = [p["set"] for pool in data["pools"] for p in pool["packs"]]
    assert set(drawn) <= set(sets) and len(set(drawn)) > 1
    assert len({tuple(_products(pool)) for pool in data["pools"]}) > 1  # each pool its own draw
    assert open_event(event, 8, 3, db=built_db) == data  # seeded
    assert open_event(event, 8, 4, db=built_db) != data
    assert pool_args(data, 2) == ["--chaos", "afr,stx,khm,znr", "--packs", "6", "--seed", "3",
                                  "--player", "2"]  # fmt: skip


def test_duplicate_sealed_gives_every_player_the_same_pool(built_db: Path) -> None:
    data = open_event(event_spec("afr", 6, duplicate=True), 5, 9, db=built_db)
    first = data["pools"][0]
    assert [p["player"] for p in data["pools"]] == [1, 2, 3, 4, 5]
    assert all(p["cards"] == first["cards"] and p["seed"] == first["seed"] for p in data["pools"])
    assert first["packs"] == open_pools("afr", 1, 6, None, 9, db=built_db)["pools"][0]["packs"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--packs", "afr:x"], "--packs afr:x: 'x' is not a number of packs"),
        (["--packs", "afr"], "'afr' is not SET:N or SET/PRODUCT:N"),
        (["--packs", "afr:30,stx:30"], "--packs 60 is out of range (1 to 36)"),
        (["--packs", "6"], "give a SET, or a spec of sets with --packs"),
        (["--packs", "afr:6", "--only-pack", "7"], "--only-pack 7 is not one of the pool's packs"),
        (["--chaos", "afr,stx", "--packs", "afr:3"], "--packs with chaos, a number of packs"),
        (["--packs", "afr:3,xyz:3"], "--packs xyz:3: unknown set"),
    ],
)
def test_a_bad_event_is_one_line_and_exit_2(capsys, built_db: Path, args, says) -> None:
    code, out, err = run(capsys, "--db", str(built_db), "pool", "-n", "2", "--seed", "1", *args)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert says in err, err


def test_the_cli_event_is_the_library_event(capsys, built_db: Path) -> None:
    code, out, _ = run(capsys, "--db", str(built_db), "pool", "--packs", MIXED, "-n", "3",
                       "--seed", "4", "--json")  # fmt: skip
    assert (
        code == 0 and out == to_json(open_event(event_spec(None, MIXED), 3, 4, db=built_db)) + "\n"
    )
    code, out, _ = run(capsys, "--db", str(built_db), "pool", "afr", "-n", "2", "--packs", "3",
                       "--seed", "4", "-f", "text")  # fmt: skip
    assert code == 0 and out.startswith("Player 1 of 2: 3 × afr-draft (event seed 4)")


def test_the_registration_sheet_lists_each_card_with_its_count(capsys, built_db: Path) -> None:
    data = open_event(event_spec(None, MIXED), 2, 6, db=built_db)
    code, out, _ = run(capsys, "--db", str(built_db), "pool", "--packs", MIXED, "-n", "2",
                       "--seed", "6", "-f", "registration-csv", "--event", "Store sealed")  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == sum(len(p["cards"]) for p in data["pools"])
    for pool in data["pools"]:
        mine = [r for r in rows if r["player"] == str(pool["player"])]
        assert [int(r["in_pool"]) for r in mine] == [c["count"] for c in pool["cards"]]
        assert {r["played"] for r in mine} == {""} and {r["event"] for r in mine} == {
            "Store sealed"
        }
        assert {r["pool_seed"] for r in mine} == {str(pool["seed"])}
    code, page, _ = run(capsys, "--db", str(built_db), "pool", "--packs", MIXED, "-n", "2",
                        "--seed", "6", "-f", "registration-html")  # fmt: skip
    assert code == 0 and page.count('<section class="reg">') == 2
    assert "boosterkit pool check DECK --packs afr:3,stx:3 --seed 6 --player 2" in page


EVENT = {"set": "afr", "product": "afr-draft", "seed": 1, "players": 1, "packs_per_player": 36}


def _pool_of(sizes: dict[str, int]) -> dict:
    """A pool of made-up cards, ``sizes[section]`` of each (the layout reads names and counts)."""
    cards = [{"name": f"{section} card {k:03d}", "set": "afr", "collector_number": str(k),
              "count": 1 + k % 2, "foil": False, "section": section}
             for section, n in sizes.items() for k in range(n)]  # fmt: skip
    return {"player": 1, "seed": 1, "cards": cards, "contents": "made up"}


def test_a_long_registration_sheet_runs_over_pages_in_order() -> None:
    from boosterkit.generator.registration import NEXT_ROWS, registration_html

    sizes = {"White": 40, "Blue": 40, "Black": 40, "Red": 40, "Green": 150, "Lands": 12}
    pool = _pool_of(sizes)
    page = registration_html({**EVENT, "pools": [pool]})
    for c in pool["cards"]:  # every card once, in the pool's order
        assert page.count(f"<td>{c['name']}</td>") == 1
    names = [c["name"] for c in pool["cards"]]
    assert sorted(names, key=page.index) == names
    pages = page.count('<div class="cols')
    assert pages > 2 and f"page {pages} of {pages}" in page and page.count("Player signature") == 1
    assert page.index("Player signature") > page.index(names[-1])
    for section, n in sizes.items():  # a table longer than a column, and only it, continues
        parts = page.count(f"{section} ({sum(1 + k % 2 for k in range(n))}")
        assert (parts > 1) == (n > NEXT_ROWS), section
    one = registration_html({**EVENT, "pools": [_pool_of({"White": 20, "Red": 20})]})
    assert one.count('<div class="cols') == 1 and "page 1 of" not in one


def _main_deck(pool: dict, extra: str | None = None) -> str:
    """An Arena deck list built from ``pool``: 23 of its cards and 17 basics, the rest in
    the sideboard (``extra``: one more card, named in the main deck)."""
    cards = [
        (c["name"], c["count"]) for c in pool["cards"] if c["name"] and c["section"] != "Lands"
    ]
    main, side, n = [], [], 0
    for name, count in cards:
        take = min(count, 23 - n)
        if take:
            main.append(f"{take} {name}")
            n += take
        if count - take:
            side.append(f"{count - take} {name}")
    main.append("17 Plains")
    if extra:
        main.append(f"1 {extra}")
    return "Deck\n" + "\n".join(main) + "\n\nSideboard\n" + "\n".join(side) + "\n"


def test_a_registered_deck_checks_against_its_pool(capsys, built_db: Path, tmp_path) -> None:
    data = open_event(event_spec(None, MIXED), 3, 8, db=built_db)
    pool = data["pools"][2]
    deck = tmp_path / "deck.txt"
    deck.write_text(_main_deck(pool))
    args = ["--db", str(built_db), "pool", "check", str(deck), "--packs", MIXED, "--seed", "8"]
    code, out, err = run(capsys, *args, "--player", "3")
    assert code == 0 and "the pool supplies every card" in out, out + err
    code, out, _ = run(capsys, *args, "--player", "2")  # another player's pool: not these cards
    assert code == 1 and "the pool cannot supply" in out
    stranger = next(c["name"] for p in data["pools"][:2] for c in p["cards"]
                    if c["name"] and c["name"] not in {x["name"] for x in pool["cards"]})  # fmt: skip
    deck.write_text(_main_deck(pool, extra=stranger))
    code, out, _ = run(capsys, *args, "--player", "3", "--json")
    result = json.loads(out)
    assert code == 1 and not result["valid"]
    assert result["missing"] == [{"name": stranger, "deck": 1, "pool": 0}]


def test_the_deck_file_can_name_its_pool(capsys, built_db: Path, tmp_path) -> None:
    data = open_event(event_spec(None, MIXED), 2, 8, db=built_db)
    line = "boosterkit pool check DECK " + " ".join(pool_args(data, 2))
    deck = tmp_path / "deck.txt"
    deck.write_text(f"// {line}\n" + _main_deck(data["pools"][1]))
    code, out, err = run(capsys, "--db", str(built_db), "pool", "check", str(deck))
    assert code == 0, out + err
    assert parse_pool_args(pool_args(data, 2)) == {"packs": MIXED, "seed": 8, "player": 2}
    code, out, err = run(capsys, "--db", str(built_db), "pool", "check", str(deck),
                         "--player", "1")  # fmt: skip
    assert code == 1  # an option wins over the file's line
    deck.write_text(_main_deck(data["pools"][1]))
    code, out, err = run(capsys, "--db", str(built_db), "pool", "check", str(deck))
    assert code == 2 and "which pool? give --seed, --player" in err and out == ""


@pytest.mark.parametrize("fmt", ["arena", "moxfield", "mtgo", "dek", "cockatrice", "xmage",
                                 "forge", "mtgjson", "decklist"])  # fmt: skip
def test_every_deck_format_pool_writes_reads_back(capsys, built_db: Path, tmp_path, fmt) -> None:
    data = open_pools("stx", 1, 6, None, 2, db=built_db)
    code, out, _ = run(capsys, "--db", str(built_db), "pool", "stx", "-n", "1", "--seed", "2",
                       "-f", fmt)  # fmt: skip
    assert code == 0
    deck = read_deck(out, fmt)
    written, _ = deck_cards(data["pools"][0], TARGETS[fmt])
    want: dict[str, int] = {}
    for c in written:
        key = c.name.split("/")[0].strip().casefold()
        want[key] = want.get(key, 0) + c.count
    assert not deck.main and dict(deck.side) == want


def test_a_deck_that_is_no_deck_list_is_refused(tmp_path) -> None:
    with pytest.raises(InputError, match=r"line 2: 'not a card line' is not a deck line"):
        read_deck("Deck\nnot a card line\n", "x.txt")
    with pytest.raises(InputError, match="not valid XML"):
        read_deck("<Deck><Cards", "x.dek")
    deck = read_deck("4 Fire // Ice\n2 Fire/Ice\nSB: 1 [STX:30] Bury in Books\n", "x")
    assert deck.main == {"fire": 6} and deck.side == {"bury in books": 1}


def test_the_service_opens_the_event_and_checks_a_deck(built_db: Path) -> None:
    from fastapi.testclient import TestClient

    from boosterkit.service.app import create_app

    body = {"packs": MIXED, "players": 2, "seed": 5}
    with TestClient(create_app(built_db), base_url="http://127.0.0.1") as client:
        got = client.post("/pool", json=body)
        assert got.status_code == 200
        assert got.text == to_json(open_event(event_spec(None, MIXED), 2, 5, db=built_db)) + "\n"
        csv_answer = client.post("/pool", json={**body, "format": "registration-csv"})
        assert csv_answer.headers["content-type"].startswith("text/csv")
        bad = client.post("/pool", json={**body, "packs": "afr:x"})
        assert bad.status_code == 422 and "is not a number of packs" in bad.text
        pool = json.loads(got.text)["pools"][1]
        check = {"deck": _main_deck(pool), "packs": MIXED, "seed": 5, "player": 2}
        answer = client.post("/pool/check", json=check).json()
        assert answer["valid"] and answer["missing"] == []
        answer = client.post("/pool/check", json={**check, "player": 1}).json()
        assert not answer["valid"] and answer["missing"]
