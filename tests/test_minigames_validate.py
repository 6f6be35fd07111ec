"""``validate_setup``: dealt setups pass; each kind of tampering fails with its own message."""

from __future__ import annotations

import copy

import pytest
from helpers import schema_checked_deal as deal

from boosterkit.errors import InputError
from boosterkit.minigames import validate_setup


@pytest.fixture(scope="module")
def rfi(con) -> dict:
    """Roll for Initiative, 5 players, AFR Set Boosters, seed 2 (two packs)."""
    return deal(con, "roll-for-initiative", 5, "afr", seed=2).to_dict()


def _zone(data: dict, name: str) -> dict:
    return next(z for z in data["zones"] if z["name"] == name)


def _rules(con, data: dict) -> dict[str, list[str]]:
    verdict = validate_setup(con, data)
    assert not verdict.valid
    out: dict[str, list[str]] = {}
    for v in verdict.violations:
        out.setdefault(v.rule, []).append(v.message)
    return out


def test_untouched_setup_is_valid(con, rfi: dict) -> None:
    verdict = validate_setup(con, rfi)
    assert verdict.valid and verdict.to_dict() == {"valid": True, "violations": []}


def test_moved_card_breaks_equal_hands(con, rfi: dict) -> None:
    data = copy.deepcopy(rfi)
    card = _zone(data, "player-1 hand")["cards"].pop()
    _zone(data, "player-2 hand")["cards"].append(card)
    rules = _rules(con, data)
    assert set(rules) == {"zone-count"}
    assert any(
        "zone 'player-1 hand': 3 cards; the rules give 4 (equal shares" in m
        for m in rules["zone-count"]
    )
    assert any("'player-2 hand': 5 cards" in m for m in rules["zone-count"])


def test_duplicated_card(con, rfi: dict) -> None:
    data = copy.deepcopy(rfi)
    hand2 = _zone(data, "player-2 hand")["cards"]
    lost = hand2.pop()
    dup = _zone(data, "player-1 hand")["cards"][0]
    hand2.append(copy.deepcopy(dup))
    rules = _rules(con, data)
    assert rules["card-duplicated"] == [
        f"zone 'player-2 hand': card {dup['uid']} ({dup['name']}) appears more than once "
        "(also in 'player-1 hand')"
    ]
    assert any(lost["uid"] in m and "is in no zone" in m for m in rules["card-missing"])


def test_token_in_a_hand(con, rfi: dict) -> None:
    data = copy.deepcopy(rfi)
    removed = _zone(data, "removed")["cards"]
    token = next(c for c in removed if c["kind"] in ("token", "emblem"))
    hand = _zone(data, "player-3 hand")["cards"]
    swapped = hand.pop()
    removed.remove(token)
    removed.append(swapped)
    hand.append(token)
    rules = _rules(con, data)
    assert (
        f"zone 'player-3 hand': card {token['uid']} ({token['name']}) is one of the cards "
        "without a Magic back the rules remove"
    ) in rules["card-not-allowed"]
    assert any(swapped["uid"] in m and "zone 'removed'" in m for m in rules["card-not-allowed"])


def test_flags_in_the_file_are_not_trusted(con, rfi: dict) -> None:
    """A token disguised as a Magic card (kind/magic_back edited) is still caught."""
    data = copy.deepcopy(rfi)
    removed = _zone(data, "removed")["cards"]
    token = next(c for c in removed if c["kind"] in ("token", "emblem") and c["card_id"])
    for pack in data["packs"]:
        for item in pack["items"]:
            if item["uid"] == token["uid"]:
                item.update(kind="card", magic_back=True)
    token.update(kind="card", magic_back=True)
    hand = _zone(data, "player-4 hand")["cards"]
    removed.remove(token)
    removed.append(hand.pop())
    hand.append(token)
    assert any(
        token["uid"] in m and "without a Magic back" in m
        for m in _rules(con, data)["card-not-allowed"]
    )


def test_wrong_grid(con) -> None:
    data = deal(con, "mimic-match", 2, "afr", seed=3).to_dict()
    grid = _zone(data, "grid")
    grid["rows"], grid["cols"] = 2, 8
    assert _rules(con, data)["grid-shape"] == [
        "zone 'grid': a 8x2 grid (cols x rows); the rules need 4x4"
    ]
    data = deal(con, "mimic-match", 2, "afr", seed=3).to_dict()
    moved = _zone(data, "grid")["cards"].pop()
    _zone(data, "deck")["cards"].append(moved)
    rules = _rules(con, data)
    assert "zone 'grid': 15 cards do not fill a 4x4 grid" in rules["grid-shape"]


def test_wrong_pack_count(con, rfi: dict) -> None:
    data = copy.deepcopy(rfi)
    data["packs"].pop()
    for z in data["zones"]:
        z["cards"] = [c for c in z["cards"] if c["uid"].startswith("p1-")]
    assert _rules(con, data) == {
        "pack-count": ["packs: 1 listed; Roll for Initiative at 5 players uses 2"]
    }


def test_reroll_of_ties_missing(con, rfi: dict) -> None:
    data = copy.deepcopy(rfi)
    first = data["first_player"]
    other = next(p for p in data["rolls"] if p != first)
    data["rolls"][other] = data["rolls"][first]
    data["tiebreaks"] = {p: v for p, v in data["tiebreaks"].items() if p not in (first, other)}
    rules = _rules(con, data)
    pair = sorted([first, other], key=lambda p: int(p.split("-")[1]))
    assert rules["roll-tie"] == [
        f"rolls: {pair[0]} and {pair[1]} tied at {data['rolls'][first]}; "
        "the card has tied players roll again"
    ]


def test_roll_offs_follow_the_card(con, rfi: dict) -> None:
    """Seed 2 has player-2 and player-5 tied at 12; they roll again (16, 19), and those are
    their initiatives. "In case of a tie, the tied players roll again." """
    assert rfi["rolls"]["player-2"] == rfi["rolls"]["player-5"] == 12
    assert set(rfi["tiebreaks"]) == {"player-2", "player-5"}
    data = copy.deepcopy(rfi)  # a roll-off that ties again is not a broken tie
    data["tiebreaks"]["player-5"] = list(data["tiebreaks"]["player-2"])
    assert _rules(con, data)["roll-tie"] == [
        f"rolls: player-2 and player-5 tied at 12/{data['tiebreaks']['player-2'][0]}; the card "
        "has tied players roll again"
    ]
    data = copy.deepcopy(rfi)  # an untied player may not roll again
    data["tiebreaks"]["player-1"] = [3]
    assert _rules(con, data)["roll-tie"] == [
        "tiebreaks: player-1 rolled again after 20 without a tie; only tied players roll again"
    ]
    data = copy.deepcopy(rfi)  # one tied player stops while the other rolls on
    data["tiebreaks"]["player-5"] = [data["tiebreaks"]["player-2"][0], 4]
    assert "roll-tie" in _rules(con, data)


def test_rolls_and_first_player(con, rfi: dict) -> None:
    data = copy.deepcopy(rfi)
    data["rolls"]["player-1"] = 21
    del data["rolls"]["player-2"]
    rules = _rules(con, data)
    assert rules["roll-range"] == ["rolls: player-1 rolled 21, outside 1–20 on a d20"]
    assert rules["roll-missing"] == ["rolls: no d20 roll for player-2"]
    data = copy.deepcopy(rfi)
    lowest = min(data["rolls"], key=data["rolls"].get)
    data["first_player"] = next(p for p in data["rolls"] if p != lowest)
    assert _rules(con, data)["first-player"][0].endswith(
        f"but the lowest starting initiative (after re-rolls of ties) is {lowest}'s"
    )


def test_own_pack_games_keep_each_pack_with_its_player(con) -> None:
    data = deal(con, "strictly-better", 3, "znr", seed=6).to_dict()
    h1, h2 = _zone(data, "player-1 hand")["cards"], _zone(data, "player-2 hand")["cards"]
    a, b = h1.pop(), h2.pop()
    h1.append(b)
    h2.append(a)
    msgs = _rules(con, data)["card-not-allowed"]
    assert (
        f"zone 'player-1 hand': card {b['uid']} ({b['name']}) comes from pack 2, not this "
        "player's own pack 1" in msgs
    )


def test_outside_additions_are_checked(con) -> None:
    data = deal(con, "mini-master", 2, "afr", seed=2).to_dict()
    lib = _zone(data, "player-1 library")["cards"]
    plains = next(c for c in lib if c["uid"].startswith("x") and c["name"] == "Plains")
    lib.remove(plains)
    rules = _rules(con, data)
    assert "zone 'player-1 library': 26 cards; the rules give 27" in rules["zone-count"][0]
    assert rules["external"][0].startswith("zone 'player-1 library': outside additions")
    # Outside cards are only allowed where the game adds them.
    data = deal(con, "strictly-better", 3, "znr", seed=6).to_dict()
    _zone(data, "player-1 hand")["cards"].append(copy.deepcopy(plains))
    assert _rules(con, data)["card-foreign"] == [
        f"zone 'player-1 hand': card {plains['uid']} (Plains) is not from the listed packs"
    ]


def test_a_token_stripped_of_its_id_is_caught_by_reopening_the_packs(con, rfi: dict) -> None:
    """Without a card_id only the file's kind is left; the seeded packs are opened again,
    so a token re-labelled as an unidentified Magic card still fails."""
    data = copy.deepcopy(rfi)
    removed = _zone(data, "removed")["cards"]
    token = next(c for c in removed if c["kind"] in ("token", "emblem") and c["card_id"])
    for item in [i for p in data["packs"] for i in p["items"]] + [token]:
        if item["uid"] == token["uid"]:
            item.update(card_id=None, kind="card", magic_back=True)
    hand = _zone(data, "player-2 hand")["cards"]
    removed.remove(token)
    removed.append(hand.pop())
    hand.append(token)
    n = token["uid"][1:].split("-")[0]
    assert _rules(con, data)["pack-contents"] == [
        f"pack {n} (afr-set seed 2, pack {n}): item {token['uid']} ({token['name']}) differs "
        f"from what the seed opens ({token['uid']} ({token['name']})) in card_id, kind, "
        "magic_back"
    ]


def test_pack_contents_must_be_what_the_seed_opens(con, rfi: dict) -> None:
    data = copy.deepcopy(rfi)
    data["packs"][0]["items"].pop()  # the zones are untouched: only the pack changed
    rules = _rules(con, data)
    assert rules["pack-contents"] == [
        f"pack 1 (afr-set seed 2, pack 1): {len(rfi['packs'][0]['items']) - 1} items listed; "
        f"the seed opens {len(rfi['packs'][0]['items'])}"
    ]
    data = copy.deepcopy(rfi)
    data["packs"][1]["seed"] = 3
    assert _rules(con, data)["pack-contents"][0].startswith(
        "pack 2 (afr-set seed 3, pack 2): item p2-"
    )


def test_a_product_cache_gives_the_same_verdicts(con, rfi: dict) -> None:
    from boosterkit.cache import Cache
    from boosterkit.database import Database

    cache = Cache()
    tampered = copy.deepcopy(rfi)
    tampered["packs"][1]["seed"] = 3
    for data in (rfi, tampered, rfi):
        assert (
            validate_setup(Database.of(con, cache=cache), data).to_dict()
            == validate_setup(con, data).to_dict()
        )
    # afr-set built once; 7 uses: 4 re-opens (the tampered setup's packs are two seeded runs)
    # and, per validation, one look-up of the card rows kept with the product
    built = cache.counts("product")
    assert built.misses + built.loads == 1 and built.hits == 6


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"players": 0}, "setup.players: expected at least 1, got 0"),
        ({"seed": -1}, "setup.seed: expected an integer from 0 to 18446744073709551615"),
        ({"minigame": "demon-due"}, "unknown minigame 'demon-due' — did you mean demons-due?"),
    ],
)
def test_impossible_values_are_input_errors(con, rfi: dict, edit: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        validate_setup(con, {**rfi, **edit})


def test_malformed_zone_and_pack_fields_are_input_errors(con, rfi: dict) -> None:
    data = copy.deepcopy(rfi)
    data["zones"][0]["kind"] = ["hand"]
    with pytest.raises(InputError, match=r"setup.zones\[0\].kind: expected a string"):
        validate_setup(con, data)
    data = copy.deepcopy(rfi)
    data["packs"][1]["seed"] = "two"
    with pytest.raises(InputError, match=r"setup.packs\[1\].seed: expected int"):
        validate_setup(con, data)


def test_unknown_card_and_zone(con, rfi: dict) -> None:
    data = copy.deepcopy(rfi)
    card = _zone(data, "player-5 hand")["cards"][0]
    card["card_id"] = "00000000-0000-0000-0000-000000000000"
    data["zones"].append({"name": "pocket", "owner": None, "kind": "pile", "cards": []})
    rules = _rules(con, data)
    assert "card-unknown" in rules and "card-mismatch" in rules
    assert rules["zone-unknown"][0].startswith("zone 'pocket': not a zone of Roll for Initiative")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "setup: expected a JSON object"),
        ({"minigame": "roll-for-initiative"}, "setup.players: missing"),
        (
            {
                "minigame": "x",
                "players": "5",
                "set": "afr",
                "seed": 1,
                "packs": [],
                "zones": [],
                "rolls": {},
            },
            "setup.players: expected int",
        ),
        (
            {
                "minigame": "chess",
                "players": 2,
                "set": "afr",
                "seed": 1,
                "packs": [],
                "zones": [],
                "rolls": {},
            },
            "setup.minigame: unknown minigame 'chess'",
        ),
        (
            {
                "minigame": "roil-royale",
                "players": 2,
                "set": "afr",
                "seed": 1,
                "packs": [{"items": [{"name": "x"}]}],
                "zones": [],
                "rolls": {},
            },
            r"setup.packs\[0\].items\[0\]: an item is an object with a string uid",
        ),
    ],
)
def test_malformed_input_is_an_input_error(con, data, message: str) -> None:
    with pytest.raises(InputError, match=message):
        validate_setup(con, data)


def test_a_setup_dealt_by_hand_with_only_ids_validates(con) -> None:
    """Organizers may write a setup by hand: uids and card_ids, no seed, no flags."""
    full = deal(con, "strictly-better", 4, "khm", seed=2).to_dict()

    def slim(items: list[dict]) -> list[dict]:
        return [{"uid": i["uid"], "card_id": i["card_id"], "kind": i["kind"]} for i in items]

    data = {
        "minigame": "strictly-better",
        "players": 4,
        "first_player": "player-2",
        "packs": [{"items": slim(p["items"])} for p in full["packs"]],
        "zones": [{**z, "cards": slim(z["cards"])} for z in full["zones"]],
    }
    assert validate_setup(con, data).valid
    data["zones"][1]["cards"].append(data["zones"][0]["cards"].pop())  # an ad into a hand
    assert {v.rule for v in validate_setup(con, data).violations} >= {"card-not-allowed"}
