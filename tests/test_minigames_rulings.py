"""Setups the card can be played from (issue 19 §1): each test quotes the GET READY line of
the card it enforces (MTGJSON MMH2, MZNR, MSTX, MKHM, MAFR minigame files). Unit tests deal
hand-built packs through the pure engine; the real-data ones deal the shared sets."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from helpers import schema_checked_deal as deal

from boosterkit.generator.model import Item, Pack
from boosterkit.minigames import SetupError, validate_setup
from boosterkit.minigames.catalog import get_minigame
from boosterkit.minigames.engine import build_setup
from boosterkit.minigames.filters import is_nmb, matches
from boosterkit.pipeline import db

COLOURS = "WUBRG"


def magic(uid: str, type_line: str = "Creature — Squirrel", colors: str = "G", **kw) -> Item:
    fields = {
        "card_id": None,
        "name": f"Card {uid}",
        "set": "tst",
        "collector_number": uid.split("-")[1],
        "rarity": "common",
        "foil": False,
        "slot": "common",
        "kind": "card",
        "magic_back": True,
        "resolved": True,
        "type_line": type_line,
        "colors": tuple(colors),
        "mana_value": 2.0,
        "layout": "normal",
    }
    return Item(uid=uid, **{**fields, **kw})


def other(uid: str, kind: str) -> Item:
    return magic(uid, type_line=None, colors="", kind=kind, magic_back=False, rarity=None)


def pack(n: int, items: list[Item]) -> Pack:
    return Pack(set="tst", product="set", seed=0, index=n, variant=0, items=items)


def squirrel_packs(size: int) -> list[Pack]:
    """Two packs of ``size`` Magic cards each, an art card and a token."""
    return [
        pack(
            n,
            [magic(f"p{n}-{k}", colors=COLOURS[k % 5]) for k in range(1, size + 1)]
            + [other(f"p{n}-{size + 1}", "art_card"), other(f"p{n}-{size + 2}", "token")],
        )
        for n in (1, 2)
    ]


# --- Foraging Squirrels (MMH2 #2) ---------------------------------------------------------


def test_the_squirrel_is_always_in_the_grid_when_the_packs_hold_more_than_25() -> None:
    # "Select one art card and shuffle it in with the rest of the cards, which represent the
    # food. Deal the cards face up in a 5x5 grid." The squirrel is the game: 2 x 16 cards
    # make 33 with it, and it lies on every one of the 25 cells about equally often.
    spec = get_minigame("foraging-squirrels")
    cells: Counter[int] = Counter()
    for seed in range(500):
        setup = build_setup(spec, squirrel_packs(16), 2, seed, set_code="tst", product="set")
        grid = setup.zone("grid")
        held = [k for k, c in enumerate(grid.cards) if grid.tags.get(c.uid) == "squirrel"]
        assert len(held) == 1 and len(grid.cards) == 25
        assert len(setup.zone("unused").cards) == 33 - 25
        cells[held[0]] += 1
    assert set(cells) == set(range(25))
    assert max(cells.values()) < 45  # 20 expected per cell; P(any cell >= 45) < 1e-6


def test_a_squirrel_setup_that_fits_the_grid_deals_as_before() -> None:
    """24 food cards and the squirrel fill the grid exactly: nothing is moved."""
    spec = get_minigame("foraging-squirrels")
    setup = build_setup(spec, squirrel_packs(12), 2, 7, set_code="tst", product="set")
    assert setup.zone("unused").cards == []
    assert not any("took a random place" in n for n in setup.notes)


def test_validate_refuses_a_squirrel_left_out_of_the_grid(con) -> None:
    # "Deal the cards face up in a 5x5 grid": the art card is one of them.
    spec = get_minigame("foraging-squirrels")
    setup = build_setup(spec, squirrel_packs(16), 2, 3, set_code="tst", product="set")
    data = setup.to_dict()
    for p in data["packs"]:
        p["seed"] = None  # packs typed in by hand: checked by their cards, not re-opened
    assert validate_setup(con, data).valid
    grid, unused = (next(z for z in data["zones"] if z["name"] == n) for n in ("grid", "unused"))
    k = next(i for i, d in enumerate(grid["cards"]) if d.get("tag") == "squirrel")
    squirrel = grid["cards"][k]
    grid["cards"][k], unused["cards"][0] = unused["cards"][0], squirrel
    messages = [v.message for v in validate_setup(con, data).violations]
    assert messages == [
        f"card {squirrel['uid']}: the squirrel is not in the grid; the card always has it there"
    ]


@pytest.fixture(scope="module")
def con(built_db: Path):
    c = db.connect(built_db, read_only=True)
    yield c
    c.close()


def base_race_packs(basics: int) -> list[Pack]:
    """Three packs of 11 creatures; the first ``basics`` packs also hold a Forest."""
    out = []
    for n in (1, 2, 3):
        items = [magic(f"p{n}-{k}") for k in range(1, 12)]
        if n <= basics:
            items.append(magic(f"p{n}-12", type_line="Basic Land — Forest", colors=""))
        out.append(pack(n, items))
    return out


@pytest.mark.parametrize(("basics", "held"), [(0, "0 basic lands"), (1, "1 basic land")])
def test_a_base_race_refusal_counts_the_basic_lands_the_packs_hold(basics, held) -> None:
    # "Open three packs, give one basic land to each player": the refusal says how many the
    # packs held, not one more.
    with pytest.raises(SetupError) as err:
        build_setup(
            get_minigame("base-race"), base_race_packs(basics), 2, 0, set_code="tst", product="set"
        )
    assert str(err.value).startswith(
        f"Base Race: giving each of the 2 players 1 basic land: the 3 packs opened hold {held}, "
        "and 2 are needed; try another seed"
    )


def test_a_squirrel_refusal_does_not_count_the_art_card_among_the_food() -> None:
    # "Open both packs and remove all cards without Magic card backs. Select one art card and
    # shuffle it in": 2 x 11 food cards and the squirrel are 23 of the 25 the grid needs.
    with pytest.raises(SetupError) as err:
        build_setup(
            get_minigame("foraging-squirrels"), squirrel_packs(11), 2, 0, set_code="tst",
            product="set",
        )  # fmt: skip
    assert str(err.value).startswith(
        "Foraging Squirrels: laying out the grid (5 x 5, 25 cards): the 2 packs opened hold 22 "
        "cards once the cards without a Magic back are taken out (1 art card put back makes "
        "23), and 25 are needed"
    )


# --- Winchester Draft (MSTX #4, MMH2 #1) ----------------------------------------------------


@pytest.mark.parametrize("set_code", ["znr", "khm", "mh2"])
def test_winchester_draft_removes_only_basic_lands_ads_and_tokens(any_con, set_code) -> None:
    # "Open six packs, remove all basic lands, ads, and tokens, and then shuffle the remaining
    # cards together into a stack": double-faced cards and art cards stay in the draft.
    kept: Counter[str] = Counter()
    dealt = 0
    for seed in range(40):  # The List is not in the database: some seeds are refused
        try:
            setup = deal(any_con, "winchester-draft", 2, set_code, seed=seed)
        except SetupError:
            continue
        dealt += 1
        removed = setup.zone("removed").cards
        assert all(
            c.kind in ("ad", "token", "emblem", "minigame") or matches(c, "basic_land")
            for c in removed
        )
        drafted = [c for z in setup.zones if z.kind in ("pile", "deck") for c in z.cards]
        assert len(drafted) + len(removed) == sum(len(p.items) for p in setup.packs)
        kept.update("double-faced" if is_nmb(c, True) and c.kind == "card" else c.kind
                    for c in drafted)  # fmt: skip
        assert not setup.strict_backs
    assert dealt >= 5
    assert kept["double-faced" if set_code != "mh2" else "art_card"] > 0, kept


@pytest.fixture(scope="module")
def any_con(any_db: Path):
    c = db.connect(any_db, read_only=True)
    yield c
    c.close()


# --- Careful Study (MKHM #4, MSTX #3) -------------------------------------------------------


def one_pack() -> list[Pack]:
    return [pack(1, [magic(f"p1-{k}", colors=COLOURS[k % 5]) for k in range(1, 13)])]


@pytest.mark.slow
def test_careful_study_picks_the_starting_team_with_a_fair_coin() -> None:
    # "Split up into two teams of one or more players. Randomly determine which team goes
    # first": at 5 players the bigger team (3 players) starts about half the time, not 3 in 5.
    spec = get_minigame("careful-study")
    starts: Counter[str] = Counter()
    for seed in range(2000):
        setup = build_setup(spec, one_pack(), 5, seed, set_code="tst", product="set")
        assert setup.teams == {
            "team-1": ["player-1", "player-3", "player-5"],
            "team-2": ["player-2", "player-4"],
        }
        starts[setup.first_player] += 1
    assert set(starts) == {"team-1", "team-2"}
    # the bound is 35-65 %; a fair coin over 2000 seeds is within 46.5-53.5 % (3.1 sd)
    assert 0.465 < starts["team-1"] / 2000 < 0.535, starts


def test_careful_study_setups_name_the_teams_and_the_team_that_starts(con) -> None:
    # "Split up into two teams of one or more players. … Each team then picks a card"
    setup = deal(con, "careful-study", 3, "khm", seed=4)
    data = setup.to_dict()
    assert data["teams"] == {"team-1": ["player-1", "player-3"], "team-2": ["player-2"]}
    assert data["first_player"] in ("team-1", "team-2")
    assert f"{data['first_player']} starts." in data["notes"]
    assert validate_setup(con, data, exact=True).valid
    # any split into two teams of one or more players is the card's; others are named
    data["teams"] = {"team-1": ["player-1"], "team-2": ["player-2", "player-3"]}
    assert validate_setup(con, data).valid
    for teams, message in [
        (
            {"team-1": ["player-1", "player-2", "player-3"], "team-2": []},
            "teams: team-2 has no player; a team is one or more players",
        ),
        (
            {"team-1": ["player-1", "player-2"], "team-2": ["player-2"]},
            "teams: player-2 on more than one team; player-3 on no team",
        ),
    ]:
        data["teams"] = teams
        assert [v.message for v in validate_setup(con, data).violations] == [message]
    data["teams"] = {"team-1": ["player-1"], "team-2": ["player-2", "player-3"]}
    data["first_player"] = "player-1"
    assert [v.message for v in validate_setup(con, data).violations] == [
        "first_player: 'player-1' is not one of team-1, team-2"
    ]
