"""Every rule of the three refereed games on hand-built cards; each test quotes the printed
card line it checks (MAFR #5 Roll for Initiative, MZNR/MKHM #1 Base Race, MAFR #4 Mimic Match)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from boosterkit.data import DATA_DIR
from boosterkit.errors import InputError
from boosterkit.generator.streams import Rng
from boosterkit.minigames.referee import RuleViolation, apply, legal_moves, new_game, result
from boosterkit.minigames.referee import base_race as br
from boosterkit.minigames.referee import mimic_match as mm
from boosterkit.minigames.referee import roll_for_initiative as rfi
from boosterkit.minigames.referee.common import card_from_item, stat


def item(
    uid: str,
    type_line: str | None = "Creature — Bear",
    colors: str = "",
    mv: float | None = 2,
    toughness: Any = None,
    loyalty: Any = None,
    name: str | None = None,
    **extra: Any,
) -> dict:
    """A setup item in the setup JSON's shape (plus toughness/loyalty, as a setup may carry)."""
    return {
        "uid": uid,
        "card_id": None,
        "name": name or f"Card {uid}",
        "set": "tst",
        "collector_number": "1",
        "rarity": "common",
        "foil": False,
        "slot": "common",
        "kind": "card",
        "magic_back": True,
        "resolved": True,
        "type_line": type_line,
        "colors": list(colors),
        "mana_value": mv,
        "layout": "normal",
        "toughness": toughness,
        "loyalty": loyalty,
        **extra,
    }


def card(*args: Any, **kwargs: Any):
    return card_from_item(item(*args, **kwargs))


def violation(state: Any, move: dict) -> RuleViolation:
    with pytest.raises(RuleViolation) as exc:
        apply(state, move)
    return exc.value


# --- Roll for Initiative -------------------------------------------------------------------


def rfi_setup(hands: list[list[dict]], rolls: list[int], first: str | None = None) -> dict:
    players = [f"player-{i}" for i in range(1, len(hands) + 1)]
    return {
        "minigame": "roll-for-initiative",
        "players": len(hands),
        "set": "tst",
        "product": "set",
        "seed": 11,
        "packs": [],
        "rolls": dict(zip(players, rolls)),
        "first_player": first,
        "notes": [],
        "zones": [
            {"name": f"{p} hand", "owner": p, "kind": "hand", "cards": h}
            for p, h in zip(players, hands)
        ],
    }


def play(state: Any, player: str, uid: str, *effects: dict, face_down: bool = False) -> Any:
    return apply(
        state, {"player": player, "card": uid, "face_down": face_down, "effects": list(effects)}
    )


def test_rfi_lowest_starting_initiative_goes_first_then_clockwise() -> None:
    # "The player with the lowest starting initiative goes first."
    s = new_game(
        rfi_setup(
            [[item("p1-1", colors="W")], [item("p1-2", colors="W")], [item("p1-3", colors="W")]],
            [9, 14, 3],
        )
    )
    assert s.to_move == 2
    s = play(s, "player-3", "p1-3", {"color": "W", "target": "player-3"})
    assert s.to_move == 0  # clockwise: player-3 → player-1


def test_rfi_tied_players_roll_again_and_the_new_roll_is_their_initiative() -> None:
    # "In case of a tie, the tied players roll again. The player with the lowest starting
    # initiative goes first." The setup keeps the first rolls and the re-rolls in tiebreaks;
    # the last roll is the starting initiative (issue 19: not the first roll kept).
    hands = [[item(f"p1-{k}", colors="W")] for k in range(1, 5)]
    setup = {
        **rfi_setup(hands, [12, 4, 4, 4]),
        "tiebreaks": {"player-2": [11], "player-3": [9, 2], "player-4": [9, 15]},
    }
    s = new_game(setup)
    assert s.table.players[s.to_move] == "player-3" and s.dice == (12, 11, 2, 15)
    # with empty hands the game ends at once: player-4's re-roll of 15 wins, not player-1's 12
    empty = rfi_setup([[], [], [], []], [12, 4, 4, 4])
    assert result(new_game({**empty, "tiebreaks": setup["tiebreaks"]}))["winner"] == "player-4"
    assert new_game({**setup, "first_player": "player-4"}).to_move == 3  # the setup says
    for bad in ({"first_player": "player-9"}, {"tiebreaks": {"player-2": ["9"]}}):
        with pytest.raises(InputError):
            new_game({**setup, **bad})


def test_rfi_white_and_black_count_at_the_end_in_front_of_the_target() -> None:
    # "White Card: At the end of the game, increase a player's roll by 2."
    # "Black Card: At the end of the game, decrease a player's roll by 2."
    # "Cards with effects that will be counted at the end of the game should be placed in
    # front of the target player."
    s = new_game(
        rfi_setup(
            [[item("p1-1", colors="W")], [item("p1-2", colors="B")]], [10, 12], first="player-1"
        )
    )
    s = play(s, "player-1", "p1-1", {"color": "W", "target": "player-1"})
    assert s.dice == (10, 12) and s.mods[0] == (("p1-1", 2),) and s.discard == ()
    s = play(s, "player-2", "p1-2", {"color": "B", "target": "player-1"})
    assert rfi.final(s) == (10, 12)
    res = result(s)
    assert res["winner"] == "player-2" and res["initiative"] == {"player-1": 10, "player-2": 12}


def test_rfi_blue_rerolls_another_die_and_keeps_only_a_lower_result() -> None:
    # "Blue Card: Reroll another player's die, but use the new result only if it's lower."
    hands = [
        [item("p1-1", colors="U"), item("p1-3", colors="U")],
        [item("p1-2", colors="U"), item("p1-4", colors="U")],
    ]
    s = new_game(rfi_setup(hands, [4, 12]))
    assert s.to_move == 0
    higher = play(s, "player-1", "p1-1", {"color": "U", "target": "player-2", "die": 17})
    assert higher.dice == (4, 12) and higher.discard == ("p1-1",)
    lower = play(s, "player-1", "p1-1", {"color": "U", "target": "player-2", "die": 5})
    assert lower.dice == (4, 5)
    v = violation(
        s, {"player": "player-1", "card": "p1-1", "effects": [{"color": "U", "target": "player-1"}]}
    )
    assert v.rule == "another-player" and v.cards == ["p1-1"]


def test_rfi_red_rerolls_another_die_which_must_be_used() -> None:
    # "Red Card: Reroll another player's die. They must use the new result."
    s = new_game(rfi_setup([[item("p1-1", colors="R")], [item("p1-2", colors="R")]], [4, 2]))
    s2 = play(s, "player-2", "p1-2", {"color": "R", "target": "player-1", "die": 19})
    assert s2.dice == (19, 2)
    assert (
        violation(
            s,
            {
                "player": "player-2",
                "card": "p1-2",
                "effects": [{"color": "R", "target": "player-2"}],
            },
        ).rule
        == "another-player"
    )


def test_rfi_green_rerolls_own_die_and_keeps_only_a_higher_result() -> None:
    # "Green Card: Reroll your own die, but use the new result only if it's higher."
    s = new_game(rfi_setup([[item("p1-1", colors="G")], [item("p1-2")]], [10, 15]))
    assert play(s, "player-1", "p1-1", {"color": "G", "die": 4}).dice == (10, 15)
    assert play(s, "player-1", "p1-1", {"color": "G", "die": 18}).dice == (18, 15)
    assert (
        violation(
            s,
            {
                "player": "player-1",
                "card": "p1-1",
                "effects": [{"color": "G", "target": "player-2"}],
            },
        ).rule
        == "own-die"
    )


def test_rfi_colourless_lets_every_player_reroll_and_use_the_result() -> None:
    # "Colorless Card: Each player may reroll their die. if they do, they must use the new result."
    hands = [[item("p1-1", "Artifact")], [item("p1-2")], [item("p1-3")]]
    s = new_game(rfi_setup(hands, [15, 8, 12], first="player-2"))
    s = play(s, "player-2", "p1-2")
    assert s.phase == "reroll" and s.to_move == 1  # the player of the card decides first
    assert violation(s, {"player": "player-2", "card": "p1-2"}).rule == "reroll-due"
    assert violation(s, {"player": "player-3", "reroll": True}).rule == "not-your-turn"
    s = apply(s, {"player": "player-2", "reroll": True, "die": 3})  # lower, still used
    s = apply(s, {"player": "player-3", "reroll": True, "die": 20})
    s = apply(s, {"player": "player-1", "reroll": True, "die": 1})
    assert s.dice == (1, 3, 20) and s.phase == "play" and s.to_move == 2  # after player-2
    kept = new_game(rfi_setup(hands, [15, 8, 12], first="player-2"))
    kept = play(kept, "player-2", "p1-2")
    for p in ("player-2", "player-3", "player-1"):
        kept = apply(kept, {"player": p, "reroll": False})
    assert kept.dice == (15, 8, 12)


def test_rfi_multicoloured_card_applies_each_colour_to_its_own_target() -> None:
    # "Multicolored Card: Apply the effects of each of the card's colors. Each effect can
    # target a different player."
    hands = [[item("p1-1", colors="WU")], [item("p1-2")], [item("p1-3")]]
    s = new_game(rfi_setup(hands, [5, 16, 9], first="player-1"))
    s2 = play(
        s,
        "player-1",
        "p1-1",
        {"color": "U", "target": "player-2", "die": 2},
        {"color": "W", "target": "player-1"},
    )
    assert s2.dice == (5, 2, 9) and s2.mods[0] == (("p1-1", 2),)
    v = violation(
        s, {"player": "player-1", "card": "p1-1", "effects": [{"color": "W", "target": "player-1"}]}
    )
    assert v.rule == "card-colours" and "WU" in v.message
    assert len([m for m in legal_moves(s) if not m["face_down"]]) == 3 * 2  # W any, U others


def test_rfi_multicoloured_effects_happen_in_the_order_the_player_chose() -> None:
    # "Multicolored Card: Apply the effects of each of the card's colors." The card names no
    # order, so the move's order is the table's (issue 19: a recorded game replays to what
    # happened), not WUBRG. "Blue Card: Reroll another player's die, but use the new result
    # only if it's lower." / "Red Card: Reroll another player's die. They must use the new
    # result."
    hands = [[item("p1-1", colors="UR")], [item("p1-2")]]
    s = new_game(rfi_setup(hands, [5, 10], first="player-1"))
    red = {"color": "R", "target": "player-2", "die": 15}
    blue = {"color": "U", "target": "player-2", "die": 12}
    red_first = rfi.apply_logged(s, {"player": "player-1", "card": "p1-1", "effects": [red, blue]})
    assert red_first[0].dice == (5, 12)  # 10 -> 15 (must use) -> 12 (lower: used)
    assert [e["color"] for e in red_first[1]["effects"]] == ["R", "U"]
    blue_first = play(s, "player-1", "p1-1", blue, red)
    assert blue_first.dice == (5, 15)  # 10 -> 12 (not lower: kept 10) -> 15 (must use)


def test_rfi_any_card_face_down_is_plus_or_minus_one_at_the_end() -> None:
    # "Any Card Played Face Down: At the end of the game, increase or decrease a player's die
    # roll by 1."
    s = new_game(rfi_setup([[item("p1-1", colors="R")], [item("p1-2")]], [7, 9]))
    s2 = play(s, "player-1", "p1-1", {"delta": -1, "target": "player-2"}, face_down=True)
    assert s2.mods[1] == (("p1-1", -1),) and rfi.final(s2) == (7, 8)
    assert (
        violation(
            s,
            {
                "player": "player-1",
                "card": "p1-1",
                "face_down": True,
                "effects": [{"delta": 2, "target": "player-2"}],
            },
        ).rule
        == "face-down"
    )


def test_rfi_card_not_in_hand_and_not_your_turn() -> None:
    # "On each player's turn, they play a card"
    s = new_game(rfi_setup([[item("p1-1", colors="W")], [item("p1-2", colors="W")]], [3, 9]))
    v = violation(
        s, {"player": "player-1", "card": "p1-2", "effects": [{"color": "W", "target": "player-1"}]}
    )
    assert v.rule == "card-not-in-hand" and v.cards == ["p1-2"]
    assert violation(s, {"player": "player-2", "card": "p1-2"}).rule == "not-your-turn"


def test_rfi_final_tie_is_rolled_off_by_the_tied_players() -> None:
    # "Play continues until all players are out of cards." … "who has the highest roll";
    # a tie: "In case of a tie, the tied players roll again."
    s = new_game(
        rfi_setup(
            [[item("p1-1", colors="W")], [item("p1-2", colors="W")], [item("p1-3", colors="B")]],
            [12, 12, 14],
            first="player-1",
        )
    )
    s = play(s, "player-1", "p1-1", {"color": "W", "target": "player-3"})
    s = play(s, "player-2", "p1-2", {"color": "W", "target": "player-2"})
    s = play(s, "player-3", "p1-3", {"color": "B", "target": "player-3"})
    assert rfi.final(s) == (12, 14, 14) and s.phase == "roll-off" and result(s) is None
    assert violation(s, {"roll_off": True, "dice": {"player-1": 20}}).rule == "not-tied"
    again = apply(s, {"roll_off": True, "dice": {"player-2": 6, "player-3": 6}})
    assert again.phase == "roll-off" and again.tied == (1, 2)
    done = apply(again, {"roll_off": True, "dice": {"player-2": 6, "player-3": 11}})
    assert result(done)["winner"] == "player-3" and result(done)["ended_by"] == "roll-off"
    assert violation(done, {"roll_off": True}).rule == "game-over"


def test_rfi_dice_not_given_come_from_the_seeded_stream() -> None:
    s = new_game(rfi_setup([[item("p1-1", colors="R")], [item("p1-2")]], [4, 2]))
    s = play(s, "player-2", "p1-2")  # colourless: decisions follow
    s1, logged = rfi.apply_logged(s, {"player": "player-2", "reroll": True})
    expected = Rng(11, "referee/roll-for-initiative").roll(20)
    assert logged == {"player": "player-2", "reroll": True, "die": expected}
    assert s1.dice[1] == expected and rfi.apply_logged(s, logged)[0].dice == s1.dice


# --- Base Race -----------------------------------------------------------------------------


def test_stat_reads_printed_toughness_and_loyalty() -> None:
    assert [stat("3"), stat("*"), stat("1+*"), stat("X"), stat(None), stat(5)] == [
        3,
        0,
        1,
        0,
        None,
        5,
    ]


def test_battle_creatures_higher_toughness_wins_tie_to_attacker() -> None:
    # "If both revealed cards are Creatures/Artifact Creatures, the card with the higher
    # toughness wins and remains face up; the loser is discarded. If they tie, the attacker wins."
    bear, ox = card("a", toughness=2), card("b", toughness=5)
    golem = card("c", "Artifact Creature — Golem", toughness=5)
    assert br.battle(bear, ox) == br.Battle(False, True, rule="toughness")
    assert br.battle(ox, bear) == br.Battle(True, False, rule="toughness")
    assert br.battle(ox, golem).attacker_stays and not br.battle(ox, golem).defender_stays
    assert br.battle(golem, ox).attacker_stays  # tie: the attacker wins


def test_battle_legendary_and_planeswalkers_beat_nonlegendary_creatures() -> None:
    # "Legendary Creatures/Planeswalkers always win against nonlegendary creatures. When they
    # battle each other, the higher toughness or loyalty wins. If they tie, the attacker wins."
    legend = card("l", "Legendary Creature — Human", toughness=5)  # a 2/5 legendary
    big = card("b", toughness=4)  # a 4/4
    tiny = card("t", "Legendary Creature — Elf", toughness=1)
    walker = card("w", "Legendary Planeswalker — Tyvar", mv=4, loyalty=3)
    assert br.battle(big, legend) == br.Battle(False, True, rule="legendary")
    assert br.battle(big, tiny).defender_stays and not br.battle(big, tiny).attacker_stays
    assert br.battle(walker, big).attacker_stays
    assert br.battle(legend, walker) == br.Battle(True, False, rule="toughness-or-loyalty")
    assert br.battle(walker, legend) == br.Battle(False, True, rule="toughness-or-loyalty")
    assert br.battle(walker, card("w2", "Legendary Planeswalker — X", loyalty=3)).attacker_stays


def test_battle_instant_sorcery_enchantment_discard_both() -> None:
    # "If either of the revealed cards is an Instant/Sorcery/Enchantment, discard both
    # revealed cards. (Other effects still happen.)"
    bear = card("a", toughness=9)
    for tl in (
        "Instant",
        "Sorcery",
        "Enchantment — Aura",
        "Enchantment Creature — Nymph",
        "Instant // Land",
        "Battle — Siege",
        None,
    ):
        spell = card("s", tl, toughness=3)
        assert br.battle(bear, spell) == br.Battle(False, False, rule="instant-sorcery-enchantment")
        assert br.battle(spell, bear) == br.Battle(False, False, rule="instant-sorcery-enchantment")
    # … an artifact's extra turn still happens
    relic = card("r", "Artifact — Equipment")
    assert br.battle(relic, card("s", "Sorcery")).extra_turn == "attacker"
    assert br.battle(card("s", "Sorcery"), relic).extra_turn == "defender"


def test_battle_artifacts_are_discarded_for_an_extra_turn() -> None:
    # "If one of the revealed cards is an Artifact, the player who owns it discards it and
    # takes an extra turn. If both revealed cards are Artifacts, only the attacker gets the
    # extra turn."
    relic, axe, bear = (
        card("r", "Artifact"),
        card("x", "Artifact — Equipment"),
        card("b", toughness=2),
    )
    assert br.battle(bear, relic) == br.Battle(True, False, extra_turn="defender", rule="artifact")
    assert br.battle(relic, bear) == br.Battle(False, True, extra_turn="attacker", rule="artifact")
    assert br.battle(relic, axe) == br.Battle(False, False, extra_turn="attacker", rule="artifact")


def test_battle_lands_lose_and_land_attacking_land_wins() -> None:
    # "When a Land is revealed in battle, its owner loses the game. When one Land attacks
    # another, the attacking land wins the game."
    swamp, forest = card("s", "Basic Land — Swamp", mv=0), card("f", "Basic Land — Forest", mv=0)
    bear, relic = card("b", toughness=2), card("r", "Artifact")
    assert br.battle(bear, swamp).winner == "attacker"
    assert br.battle(swamp, bear).winner == "defender"
    assert br.battle(relic, swamp).winner == "attacker"
    assert br.battle(swamp, forest) == br.Battle(
        True, True, winner="attacker", rule="land-attacks-land"
    )


def br_setup(one: list[dict] | None = None, two: list[dict] | None = None) -> dict:
    """Two grids: a basic land at grid position 1 (the back-left corner), bears elsewhere."""

    def grid(p: int, given: list[dict] | None) -> list[dict]:
        cards = [item(f"p{p}-1", "Basic Land — Forest", mv=0)]
        cards += [item(f"p{p}-{k}", toughness=2) for k in range(2, 13)]
        for c in given or []:
            cards[int(c["uid"].split("-")[1]) - 1] = c
        return cards

    return {
        "minigame": "base-race",
        "players": 2,
        "set": "tst",
        "product": "set",
        "seed": 3,
        "packs": [],
        "rolls": {},
        "first_player": None,
        "notes": [],
        "zones": [
            {
                "name": f"player-{p} grid",
                "owner": f"player-{p}",
                "kind": "grid",
                "rows": 3,
                "cols": 4,
                "cards": grid(p, g),
            }
            for p, g in ((1, one), (2, two))
        ],
    }


def test_base_race_board_faces_the_grids_and_starts_full() -> None:
    # "arranges them face down in a 4x3 grid opposite their opponent. The completed play area
    # should be 4x6 with no extra spaces."
    s = new_game(br_setup())
    assert s.board[br.index_of("a1")] == "p1-1" and s.board[br.index_of("d6")] == "p2-1"
    assert s.board[br.index_of("d3")] == "p1-12" and s.board[br.index_of("a4")] == "p2-12"
    assert None not in s.board
    moves = legal_moves(s)  # a full board: only the front rows can move, onto the enemy
    assert {m["player"] for m in moves} == {"player-1", "player-2"}  # first to finish starts
    assert all(m["to"][1] in "34" for m in moves) and len(moves) == 8


def test_base_race_movement_rules() -> None:
    # "each player moves one of their cards one space either vertically or horizontally—not
    # diagonally, and not onto a space occupied by another card they own."
    s = new_game(br_setup())
    v = violation(s, {"player": "player-1", "card": "p1-6", "to": "b3"})
    assert v.rule == "onto-own-card" and v.cards == ["p1-6", "p1-10"]
    assert violation(s, {"player": "player-1", "card": "p1-10", "to": "c4"}).rule == "one-space"
    assert violation(s, {"player": "player-1", "card": "p1-10", "to": "b5"}).rule == "one-space"
    assert violation(s, {"player": "player-1", "card": "p2-9", "to": "a3"}).rule == "not-your-card"
    assert (
        violation(s, {"player": "player-1", "card": "p9-9", "to": "a3"}).rule == "card-not-on-board"
    )
    s = apply(s, {"player": "player-2", "card": "p2-12", "to": "a3"})  # 2 vs 2: attacker wins
    assert s.board[br.index_of("a3")] == "p2-12" and s.board[br.index_of("a4")] is None
    assert "p2-12" in s.face_up and s.discard == ("p1-9",)
    assert violation(s, {"player": "player-2", "card": "p2-11", "to": "b3"}).rule == "not-your-turn"
    with pytest.raises(InputError):
        apply(s, {"player": "player-1", "card": "p1-10", "to": "e9"})


def test_base_race_artifact_owner_takes_an_extra_turn() -> None:
    # "If one of the revealed cards is an Artifact, the player who owns it discards it and
    # takes an extra turn." When is not on the card: Magic's rule, right after the turn that
    # earned it, so the defender takes it after the attacker's turn and then their own.
    s = new_game(br_setup(two=[item("p2-12", "Artifact", mv=1)]))
    s = apply(s, {"player": "player-1", "card": "p1-9", "to": "a4"})  # attacks the artifact
    assert s.board[br.index_of("a4")] == "p1-9" and s.to_move == 1 and s.on_extra
    s = apply(s, {"player": "player-2", "card": "p2-11", "to": "b3"})
    assert s.to_move == 1 and not s.on_extra and s.owed == ()  # the extra turn, then their own
    s = apply(s, {"player": "player-2", "card": "p2-10", "to": "c3"})
    assert s.to_move == 0
    # "You can use your turn to move a card safely onto an empty space."
    s = apply(s, {"player": "player-1", "card": "p1-5", "to": "a3"})
    assert s.board[br.index_of("a3")] == "p1-5" and s.board[br.index_of("a2")] is None
    assert s.event == "player-1 moves p1-5 a2 → a3" and s.to_move == 1


def test_base_race_an_extra_turn_earned_in_an_extra_turn_comes_first() -> None:
    # "the player who owns it discards it and takes an extra turn": the most recent extra
    # turn first, right after the turn that earned it (Magic's rule, docs/minigames.md). The
    # independent audit's game: player-2 attacks player-1's artifact (player-1 is owed an extra
    # turn); in it player-1 attacks player-2's artifact: player-2's extra turn comes next,
    # then player-1's own turn, then player-2's.
    s = new_game(
        br_setup(one=[item("p1-9", "Artifact", mv=1)], two=[item("p2-11", "Artifact", mv=1)])
    )
    s = apply(s, {"player": "player-2", "card": "p2-12", "to": "a3"})  # onto p1-9, an artifact
    assert (s.to_move, s.on_extra) == (0, True)
    s = apply(s, {"player": "player-1", "card": "p1-10", "to": "b4"})  # onto p2-11, an artifact
    assert (s.to_move, s.on_extra) == (1, True)  # player-2's extra turn, earned just now
    s = apply(s, {"player": "player-2", "card": "p2-10", "to": "c3"})
    assert (s.to_move, s.on_extra) == (0, False)  # player-1's own turn: player-2's came first
    s = apply(s, {"player": "player-1", "card": "p1-12", "to": "d4"})
    assert (s.to_move, s.on_extra) == (1, False)


def test_base_race_revealed_land_loses_and_game_ends() -> None:
    # "When a Land is revealed in battle, its owner loses the game."
    s = new_game(
        br_setup(two=[item("p2-12", "Basic Land — Swamp", mv=0), item("p2-1", toughness=2)])
    )
    s = apply(s, {"player": "player-1", "card": "p1-9", "to": "a4"})
    res = result(s)
    assert res["winner"] == "player-1" and res["ended_by"] == "land-revealed"
    assert violation(s, {"player": "player-2", "card": "p2-11", "to": "b3"}).rule == "game-over"
    # "When one Land attacks another, the attacking land wins the game."
    s = new_game(
        br_setup(
            one=[item("p1-9", "Basic Land — Plains", mv=0), item("p1-1", toughness=1)],
            two=[item("p2-12", "Basic Land — Swamp", mv=0), item("p2-1", toughness=2)],
        )
    )
    s = apply(s, {"player": "player-2", "card": "p2-12", "to": "a3"})
    assert result(s)["winner"] == "player-2" and result(s)["ended_by"] == "land-attacks-land"


def test_base_race_grid_needs_one_land_and_known_toughness() -> None:
    setup = br_setup(one=[item("p1-1", toughness=2)])
    with pytest.raises(InputError, match="one land"):
        new_game(setup)
    setup = br_setup()
    del setup["zones"][0]["cards"][4]["toughness"]
    with pytest.raises(InputError, match="database"):
        new_game(setup)


# --- Mimic Match ---------------------------------------------------------------------------


def test_is_match_colour_mana_value_colourless_and_mimics() -> None:
    # "If they share a color or mana value" … "Colorless cards can be matched with other
    # colorless cards, but mimics can only be matched with each other."
    red2, red5, blue2 = (
        card("a", colors="R", mv=2),
        card("b", colors="R", mv=5),
        card("c", colors="U", mv=2),
    )
    green3, gold = card("d", colors="G", mv=3), card("e", colors="UG", mv=6)
    rock1, rock4 = card("f", "Artifact", mv=1), card("g", "Artifact", mv=4)
    land1, land2 = card("h", "Basic Land — Swamp", mv=0), card("i", "Basic Land — Island", mv=0)
    zero = card("j", "Artifact", mv=0)
    assert mm.is_match(red2, red5) and mm.is_match(red2, blue2) and mm.is_match(gold, green3)
    assert not mm.is_match(red5, blue2) and not mm.is_match(green3, red2)
    assert mm.is_match(rock1, rock4) and not mm.is_match(rock4, green3)
    assert mm.is_match(land1, land2) and not mm.is_match(land1, zero)
    assert not mm.is_match(land1, rock1)
    # the mimics are whatever the setup says (a tagged card), not only lands
    assert mm.is_match(red2, red5, frozenset({"h", "i"}))
    assert not mm.is_match(red2, red5, frozenset({"a", "i"}))


def mm_setup(grid: list[dict], deck: list[dict], players: int = 2, first: str = "player-1") -> dict:
    return {
        "minigame": "mimic-match",
        "players": players,
        "set": "tst",
        "product": "set",
        "seed": 4,
        "packs": [],
        "rolls": {},
        "first_player": first,
        "notes": [],
        "zones": [
            {"name": "grid", "owner": None, "kind": "grid", "rows": 4, "cols": 4, "cards": grid},
            {"name": "deck", "owner": None, "kind": "deck", "cards": deck},
        ],
    }


def mm_grid() -> list[dict]:
    """Cells 1-2 match (red), 3-4 do not (green 3 / blue 5), 15-16 are the mimics."""
    cards = [
        item("p1-1", colors="R", mv=1),
        item("p1-2", colors="R", mv=4),
        item("p1-3", colors="G", mv=3),
        item("p1-4", colors="U", mv=5),
    ]
    cards += [item(f"p2-{k}", colors="W", mv=k) for k in range(1, 11)]
    cards += [item("p3-1", "Basic Land — Swamp", mv=0), item("p3-2", "Basic Land — Plains", mv=0)]
    return cards


def test_mimic_match_take_refill_and_go_again() -> None:
    # "If they share a color or mana value, you may reveal them, announce what matches and
    # take those cards, then take another turn." … "After a match has been made, replace the
    # empty spaces with two new cards from the deck, face down."
    s = new_game(
        mm_setup(
            mm_grid(),
            [item("p4-1", colors="B"), item("p4-2", colors="B"), item("p4-3", colors="B")],
        )
    )
    s = apply(s, {"player": "player-1", "cells": [2, 1], "take": True})
    assert s.collected[0] == ("p1-2", "p1-1") and s.to_move == 0
    assert s.grid[:2] == ("p4-1", "p4-2") and s.deck == ("p4-3",)
    # "Otherwise, leave them in place, and the next player takes their turn."
    s = apply(s, {"player": "player-1", "cells": [3, 4], "take": False})
    assert s.to_move == 1 and s.grid[2:4] == ("p1-3", "p1-4")
    # a match may be left ("you may reveal them")
    assert apply(s, {"player": "player-2", "cells": [1, 2], "take": False}).to_move == 0


def test_mimic_match_tampered_takes_fail() -> None:
    s = new_game(mm_setup(mm_grid(), []))
    v = violation(s, {"player": "player-1", "cells": [3, 4], "take": True})
    assert (
        v.rule == "not-a-match" and v.cards == ["p1-3", "p1-4"] and "G, mana value 3" in v.message
    )
    assert (
        violation(s, {"player": "player-1", "cells": [15, 5], "take": True}).rule == "not-a-match"
    )
    assert (
        violation(s, {"player": "player-2", "cells": [1, 2], "take": True}).rule == "not-your-turn"
    )
    assert violation(s, {"player": "player-1", "cells": [1, 1], "take": True}).rule == "two-cards"
    # "Deal 16 cards face down in a 4x4 grid": cell 17 is outside it, not an empty cell
    v = violation(s, {"player": "player-1", "cells": [1, 17], "take": True})
    assert str(v) == "cell-out-of-range: cell 17 is outside the grid (cells 1-16)"
    v = violation(
        s, {"player": "player-1", "cells": [1, 2], "take": True, "cards": ["p1-2", "p1-1"]}
    )
    assert v.rule == "cards-not-at-cells"


def test_mimic_match_empty_deck_leaves_holes_and_refill_can_be_entered() -> None:
    s = new_game(mm_setup(mm_grid(), []))
    s = apply(s, {"player": "player-1", "cells": [1, 2], "take": True})
    assert s.grid[:2] == (None, None)
    assert violation(s, {"player": "player-1", "cells": [1, 3], "take": False}).rule == "empty-cell"
    deck = [item("p4-1", colors="B"), item("p4-2", colors="B"), item("p4-3", colors="B")]
    s = new_game(mm_setup(mm_grid(), deck))
    s2 = apply(s, {"player": "player-1", "cells": [1, 2], "take": True, "refill": ["p4-3", "p4-1"]})
    assert s2.grid[:2] == ("p4-3", "p4-1") and s2.deck == ("p4-2",)
    v = violation(
        s, {"player": "player-1", "cells": [1, 2], "take": True, "refill": ["p1-3", "p4-1"]}
    )
    assert v.rule == "refill-not-from-deck"


def test_mimic_match_mimics_end_the_game_with_two_bonus_points() -> None:
    # "The game ends when a player reveals the two mimics" … "each player scores 1 point for
    # every card they collected. The player who uncovered the mimics … scores an additional
    # 2 points."
    s = new_game(mm_setup(mm_grid(), []))
    s = apply(s, {"player": "player-1", "cells": [3, 4], "take": False})
    s = apply(s, {"player": "player-2", "cells": [1, 2], "take": True})
    s = apply(s, {"player": "player-2", "cells": [15, 16], "take": True})
    res = result(s)
    assert res == {
        "finished": True,
        "winner": "player-2",
        "ended_by": "mimics-uncovered",
        "turns": 3,
        "scores": {"player-1": 0, "player-2": 6},
        "finder": "player-2",
    }


def test_mimic_match_tie_is_decided_by_the_finder() -> None:
    # "If there is a tie, the player who uncovered the mimics decides who wins!"
    s = new_game(mm_setup(mm_grid(), [], players=3))
    for cells in ([5, 6], [7, 8], [9, 10]):  # player-1 collects 6 cards
        s = apply(s, {"player": "player-1", "cells": cells, "take": True})
    s = apply(s, {"player": "player-1", "cells": [3, 4], "take": False})
    s = apply(s, {"player": "player-2", "cells": [15, 16], "take": True})  # 2 + 2 = 4
    assert s.phase == "over" and result(s)["winner"] == "player-1"
    s = new_game(mm_setup(mm_grid(), [], players=3))
    s = apply(s, {"player": "player-1", "cells": [5, 6], "take": True})
    s = apply(s, {"player": "player-1", "cells": [7, 8], "take": False})
    s = apply(s, {"player": "player-2", "cells": [15, 16], "take": True})  # 4 vs 2: no tie
    assert result(s)["winner"] == "player-2"
    s = new_game(mm_setup(mm_grid(), [], players=3))
    s = apply(s, {"player": "player-1", "cells": [5, 6], "take": True})
    s = apply(s, {"player": "player-1", "cells": [7, 8], "take": True})  # player-1: 4
    s = apply(s, {"player": "player-1", "cells": [3, 4], "take": False})
    s = apply(s, {"player": "player-2", "cells": [15, 16], "take": True})  # player-2: 4
    assert s.phase == "decide" and result(s) is None
    assert legal_moves(s) == [
        {"player": "player-2", "winner": "player-1"},
        {"player": "player-2", "winner": "player-2"},
    ]
    assert violation(s, {"player": "player-2", "winner": "player-3"}).rule == "not-tied"
    assert violation(s, {"player": "player-1", "winner": "player-1"}).rule == "not-your-turn"
    done = apply(s, {"player": "player-2", "winner": "player-1"})
    assert result(done)["winner"] == "player-1" and result(done)["ended_by"] == "finder-decided"


def test_mimic_match_needs_two_mimics() -> None:
    grid = mm_grid()
    grid[15] = item("p3-2", colors="B")
    with pytest.raises(InputError, match="two mimics"):
        new_game(mm_setup(grid, []))
    tagged = mm_grid()
    tagged[15] = item("p3-2", colors="B", tag="mimic")
    tagged[14]["tag"] = "mimic"
    assert new_game(mm_setup(tagged, [])).mimics == {"p3-1", "p3-2"}


def test_a_move_of_another_games_log_is_bad_input_before_any_rule() -> None:
    """A move with a field its game does not know is malformed (``play`` exit 2), even when it
    is not that player's turn: the shape is checked before the rules."""
    rfi_state = new_game(
        rfi_setup([[item("p1-1", colors="W")], [item("p1-2", colors="W")]], [3, 9])
    )  # player-1 to move
    mm_state = new_game(mm_setup(mm_grid(), []))  # player-1 to move
    for state, move in (
        (rfi_state, {"player": "player-2", "card": "p1-2", "to": "a1"}),
        (rfi_state, {"player": "player-2", "cells": [1, 2], "take": False}),
        (mm_state, {"player": "player-2", "card": "p1-1", "to": "b4"}),
        (mm_state, {"player": "player-2", "card": "p1-1", "face_down": True}),
    ):
        with pytest.raises(InputError, match="unknown field"):
            apply(state, move)


# --- move logs and their schema agree (issue 19) -------------------------------------------

MOVE_SCHEMA = json.loads((DATA_DIR / "moves.schema.json").read_text("utf-8"))


def schema_accepts(game: str, move: dict) -> bool:
    one = {"$ref": f"#/$defs/{game}", "$defs": MOVE_SCHEMA["$defs"]}
    return jsonschema.Draft202012Validator(one).is_valid(move)


def rfi_table() -> Any:
    hands = [[item("p1-1", colors="W"), item("p1-2", colors=""), item("p1-3", colors="G")]]
    return new_game(rfi_setup(hands + [[item("p1-4", colors="W")]], [5, 9], first="player-1"))


def test_optional_fields_of_a_move_are_optional_in_the_code_and_the_schema() -> None:
    # "Green Card: Reroll your own die": no target needed; a colourless card has no effect
    # to list; "Reroll" moves and looks may leave their die, cards and refill out.
    s = rfi_table()
    green = {"player": "player-1", "card": "p1-3", "effects": [{"color": "G"}]}
    colourless = {"player": "player-1", "card": "p1-2"}
    for move in (green, colourless):
        assert schema_accepts("roll-for-initiative", move)
        apply(s, move)
    s = apply(s, colourless)
    again = {"player": "player-1", "reroll": True}
    assert schema_accepts("roll-for-initiative", again)
    assert 1 <= rfi.apply_logged(s, again)[1]["die"] <= 20  # rolled from the seed
    look = {"player": "player-1", "cells": [1, 2], "take": False}
    assert schema_accepts("mimic-match", look)
    apply(new_game(mm_setup(mm_grid(), [])), look)


@pytest.mark.parametrize(
    ("game", "move", "message"),
    [
        (
            "roll-for-initiative",
            {"player": "player-1", "card": "p1-1",
             "effects": [{"color": "W", "target": "player-1", "die": 3}]},
            "W effect: 'die' does not apply (it re-rolls no die)",
        ),
        (
            "roll-for-initiative",
            {"player": "player-1", "card": "p1-1", "face_down": True,
             "effects": [{"delta": 1, "target": "player-2", "color": "W"}]},
            "face-down effect: 'color' does not apply (a card face down has no colour)",
        ),
        (
            "roll-for-initiative",
            {"player": "player-1", "card": "p1-1", "effects": [{"delta": 1, "target": "player-2"}]},
            "effect: 'delta' does not apply to a card played face up",
        ),
        (
            "roll-for-initiative",
            {"player": "player-1", "card": "p1-1", "reroll": True},
            "move: 'reroll' does not apply to a turn (it plays a card)",
        ),
        (
            "base-race",
            {"player": "player-1", "pass": True, "card": "p1-10"},
            "move: 'card' does not apply to a pass",
        ),
    ],
)  # fmt: skip
def test_a_field_that_does_not_apply_is_refused_by_the_code_and_the_schema(
    game: str, move: dict, message: str
) -> None:
    s = rfi_table() if game == "roll-for-initiative" else new_game(br_setup())
    v = violation(s, move)
    assert (v.rule, v.exit_code, str(v)) == ("not-applicable", 1, f"not-applicable: {message}")
    assert not schema_accepts(game, move)


def test_a_player_who_keeps_their_die_rolls_none() -> None:
    # "Colorless Card: Each player may reroll their die. if they do, they must use the new
    # result." A die on a player who does not re-roll does not apply.
    s = apply(rfi_table(), {"player": "player-1", "card": "p1-2"})
    keep = {"player": "player-1", "reroll": False, "die": 4}
    v = violation(s, keep)
    assert str(v) == "not-applicable: move: 'die' does not apply to a player who does not re-roll"
    assert not schema_accepts("roll-for-initiative", keep)
    assert schema_accepts("roll-for-initiative", {"player": "player-1", "reroll": False})


def test_a_cell_outside_the_grid_is_out_of_range_in_the_code_and_the_schema() -> None:
    # "Deal 16 cards face down in a 4x4 grid."
    move = {"player": "player-1", "cells": [0, 17], "take": False}
    assert not schema_accepts("mimic-match", move)
    assert violation(new_game(mm_setup(mm_grid(), [])), move).rule == "cell-out-of-range"
