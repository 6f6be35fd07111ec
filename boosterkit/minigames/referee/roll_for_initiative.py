"""Roll for Initiative (MAFR #5, MCLB #1), refereed from a dealt setup.

The card, as printed: "On each player's turn, they play a card to modify a player's
initiative … Cards with effects that will be counted at the end of the game should be placed
in front of the target player. All other cards go into the discard pile." The colour lines
are quoted beside the code that applies them. Rulings where the card is silent:

- turns go clockwise (seat order) from the player with the lowest starting roll;
- a multicoloured card's effects happen in the order the move lists them, the order the
  player chose at the table ("Apply the effects of each of the card's colors" names no
  order; a recorded game must replay to what happened);
- a colourless card played face up asks every player in turn, from the one who played it,
  whether to re-roll (one ``reroll`` move each);
- a final tie is settled as the card settles a tie for the starting roll: "In case of a
  tie, the tied players roll again" (a ``roll_off`` move; again while they tie).

A move that re-rolls may carry the observed ``die``; otherwise the die comes from the
seeded stream ``referee/roll-for-initiative`` of the setup's seed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import product
from typing import Any

from boosterkit.errors import InputError
from boosterkit.generator.streams import Rng
from boosterkit.minigames.initiative import initiative_order, starting
from boosterkit.minigames.referee.common import (
    RuleViolation,
    Table,
    die_value,
    evolve,
    make_table,
    need,
    not_applicable,
    only,
    roll,
)
from boosterkit.minigames.referee.moves import (
    EndEffect,
    FaceDownEffect,
    FaceDownTurn,
    GreenEffect,
    Keep,
    Reroll,
    RerollEffect,
    RollOff,
    Turn,
    keys,
)
from boosterkit.minigames.setupfile import SetupFile

GAME = "roll-for-initiative"
STREAM = f"referee/{GAME}"
WUBRG = "WUBRG"
END_OF_GAME = {"W": 2, "B": -2}  # "At the end of the game, increase/decrease a player's roll by 2"


@dataclass(frozen=True)
class State:
    table: Table
    hands: tuple[tuple[str, ...], ...]
    dice: tuple[int, ...]
    mods: tuple[tuple[tuple[str, int], ...], ...]  # (card, ±n) in front of each player
    discard: tuple[str, ...] = ()
    to_move: int = 0
    phase: str = "play"  # play | reroll (colourless card) | roll-off | over
    pending: tuple[int, ...] = ()  # seats still to decide on a colourless re-roll
    played_by: int = 0  # who played the colourless card being resolved
    tied: tuple[int, ...] = ()
    counter: int = 0  # draws used from the seeded stream
    turns: int = 0
    winner: int | None = None
    ended_by: str | None = None
    event: str = ""


def start(setup: SetupFile, con: Any = None) -> State:
    """The game at its first turn, from a setup dealt by ``minigames.deal``."""
    table = make_table(setup, GAME, play_zones=lambda z: z.endswith(" hand"))
    hands = []
    for p in table.players:
        if f"{p} hand" not in table.zones:
            raise InputError(f"setup: {GAME} needs a zone '{p} hand'")
        hands.append(table.zones[f"{p} hand"])
    for p in table.players:
        value = table.rolls.get(p)
        if not isinstance(value, int) or not 1 <= value <= 20:
            raise InputError(f"setup: rolls needs a d20 result (1-20) for {p}, got {value!r}")
    for p, again in table.tiebreaks.items():
        if not all(isinstance(v, int) and 1 <= v <= 20 for v in again):
            raise InputError(f"setup: tiebreaks of {p} are d20 results (1-20), got {list(again)}")
    # "In case of a tie, the tied players roll again": the new roll is their initiative.
    # "The player with the lowest starting initiative goes first."
    rolls = {p: table.rolls[p] for p in table.players}
    start = starting(rolls, table.tiebreaks)
    dice = [start[p] for p in table.players]
    first = table.first_player or initiative_order(rolls, table.tiebreaks)[0]
    state = State(
        table=table,
        hands=tuple(hands),
        dice=tuple(dice),
        mods=tuple(() for _ in hands),
        to_move=table.players.index(first),
    )
    return state if any(hands) else _finish(state)


def final(state: State) -> tuple[int, ...]:
    """Each player's modified roll: the die plus the effects in front of them."""
    return tuple(d + sum(x for _, x in m) for d, m in zip(state.dice, state.mods))


def _finish(state: State) -> State:
    """ "Once everyone is out of cards, check to see who has the highest roll." """
    values = final(state)
    top = max(values)
    tied = tuple(i for i, v in enumerate(values) if v == top)
    if len(tied) == 1:
        return evolve(state, phase="over", winner=tied[0], ended_by="highest-initiative")
    return evolve(state, phase="roll-off", tied=tied, to_move=tied[0])


def _next_turn(state: State, after: int) -> State:
    """The next player clockwise who still has cards, or the end of the game."""
    n = len(state.hands)
    for k in range(1, n + 1):
        seat = (after + k) % n
        if state.hands[seat]:
            return evolve(state, phase="play", to_move=seat, pending=())
    return _finish(evolve(state, pending=()))


def _die(state: State, given: Any, what: str) -> tuple[int, State]:
    if given is not None:
        return die_value(given, 20, what), state
    value, counter = roll(state.table.seed, STREAM, state.counter, 20)
    return value, evolve(state, counter=counter)


def _target(state: State, effect: Mapping[str, Any], color: str) -> int:
    return state.table.seat(need(effect, "target", str, f"{color} effect"), f"{color} target")


def _effect(
    state: State, seat: int, effect: Mapping[str, Any], card: str
) -> tuple[State, dict[str, Any], str]:
    """Apply one colour's effect; the state, the effect as logged, and what happened."""
    color, players = effect["color"], state.table.players
    only(effect, keys(EndEffect, RerollEffect, GreenEffect), f"{color} effect")
    if color in END_OF_GAME:
        not_applicable(effect, keys(EndEffect), f"{color} effect", "(it re-rolls no die)")
        t = _target(state, effect, color)
        mods = list(state.mods)
        mods[t] = mods[t] + ((card, END_OF_GAME[color]),)
        return (
            evolve(state, mods=tuple(mods)),
            {"color": color, "target": players[t]},
            f"{color}: {players[t]} {END_OF_GAME[color]:+d} at the end",
        )
    if color == "G":  # "Reroll your own die, but use the new result only if it's higher."
        t = _target(state, effect, color) if "target" in effect else seat
        if t != seat:
            raise RuleViolation(
                "own-die", f"green re-rolls the player's own die, not {players[t]}'s", [card]
            )
    else:  # U: "Reroll another player's die" / R: "Reroll another player's die."
        t = _target(state, effect, color)
        if t == seat:
            raise RuleViolation(
                "another-player",
                f"{'blue' if color == 'U' else 'red'} "
                f"re-rolls another player's die, not {players[seat]}'s own",
                [card],
            )
    new, state = _die(state, effect.get("die"), f"{color} effect")
    old = state.dice[t]
    keep = {"U": new < old, "R": True, "G": new > old}[color]  # lower / must use / higher
    dice = list(state.dice)
    dice[t] = new if keep else old
    how = "must use" if color == "R" else "kept" if keep else "not kept"
    return (
        evolve(state, dice=tuple(dice)),
        {"color": color, "target": players[t], "die": new},
        f"{color}: {players[t]} re-rolls {old} → {new} ({how})",
    )


def _play(state: State, move: Mapping[str, Any]) -> tuple[State, dict[str, Any]]:
    not_applicable(move, keys(Turn, FaceDownTurn), "move", "to a turn (it plays a card)")
    seat = state.to_move
    card = need(move, "card", str)
    if card not in state.hands[seat]:
        raise RuleViolation(
            "card-not-in-hand",
            f"{_label(state, card)} is not in {state.table.players[seat]}'s hand",
            [card],
        )
    face_down = move.get("face_down", False)
    if not isinstance(face_down, bool):
        raise InputError("move: 'face_down' must be true or false")
    effects = move.get("effects", [])
    if not isinstance(effects, list) or not all(isinstance(e, Mapping) for e in effects):
        raise InputError("move: 'effects' must be a list of objects")
    hands = list(state.hands)
    hands[seat] = tuple(c for c in hands[seat] if c != card)
    state = evolve(state, hands=tuple(hands), turns=state.turns + 1)
    who = state.table.players[seat]
    if face_down:
        return _play_face_down(state, seat, card, effects)
    colors = [c for c in WUBRG if c in state.table.cards[card].colors]
    for e in effects:
        only(e, keys(FaceDownEffect, EndEffect, RerollEffect), "effect")
        not_applicable(e, keys(RerollEffect), "effect", "to a card played face up")
    given = [need(e, "color", str, "effect") for e in effects]
    if sorted(given) != sorted(colors):
        shown = "".join(colors) or "colourless"
        raise RuleViolation(
            "card-colours",
            f"{_label(state, card)} is {shown}; the move applies {''.join(given) or 'no colour'}",
            [card],
        )
    if not colors:  # "Colorless Card: Each player may reroll their die."
        n = len(state.hands)
        state = evolve(
            state,
            phase="reroll",
            pending=tuple((seat + k) % n for k in range(n)),
            played_by=seat,
            discard=state.discard + (card,),
            event=f"{who} plays {_label(state, card)}, colourless: each player may re-roll",
        )
        state = evolve(state, to_move=state.pending[0])
        return state, _log(who, card, False, [])
    logged, said, at_end = [], [], False
    for effect in effects:  # "Apply the effects of each of the card's colors.": as listed
        color = effect["color"]
        state, entry, text = _effect(state, seat, effect, card)
        logged.append(entry)
        said.append(text)
        at_end = at_end or color in END_OF_GAME
    if not at_end:
        state = evolve(state, discard=state.discard + (card,))
    state = evolve(state, event=f"{who} plays {_label(state, card)}: " + "; ".join(said))
    return _next_turn(state, seat), _log(who, card, False, logged)


def _play_face_down(
    state: State, seat: int, card: str, effects: list[Any]
) -> tuple[State, dict[str, Any]]:
    """ "Any Card Played Face Down: … increase or decrease a player's die roll by 1." """
    who = state.table.players[seat]
    if len(effects) != 1:
        raise RuleViolation(
            "face-down", "a card played face down has one effect: ±1 to one player", [card]
        )
    only(effects[0], keys(FaceDownEffect, EndEffect, RerollEffect), "face-down effect")
    not_applicable(
        effects[0], keys(FaceDownEffect), "face-down effect", "(a card face down has no colour)"
    )
    delta = need(effects[0], "delta", int, "face-down effect")
    if delta not in (1, -1):
        raise RuleViolation(
            "face-down", f"a card played face down gives +1 or -1, not {delta:+d}", [card]
        )
    t = _target(state, effects[0], "face-down")
    mods = list(state.mods)
    mods[t] = mods[t] + ((card, delta),)
    state = evolve(
        state,
        mods=tuple(mods),
        event=f"{who} plays {card} face down: {state.table.players[t]} {delta:+d} at the end",
    )
    logged = [{"delta": delta, "target": state.table.players[t]}]
    return _next_turn(state, seat), _log(who, card, True, logged)


def _log(player: str, card: str, face_down: bool, effects: list[dict[str, Any]]) -> dict[str, Any]:
    return {"player": player, "card": card, "face_down": face_down, "effects": effects}


def _reroll(state: State, move: Mapping[str, Any]) -> tuple[State, dict[str, Any]]:
    not_applicable(move, keys(Reroll, Keep), "move", "to a re-roll decision")
    seat = state.to_move
    who = state.table.players[seat]
    choice = need(move, "reroll", bool)
    logged: dict[str, Any] = {"player": who, "reroll": choice}
    if choice:  # "if they do, they must use the new result"
        new, state = _die(state, move.get("die"), "reroll")
        dice = list(state.dice)
        old, dice[seat] = dice[seat], new
        state = evolve(state, dice=tuple(dice), event=f"{who} re-rolls {old} → {new}")
        logged["die"] = new
    elif "die" in move:
        not_applicable(move, keys(Keep), "move", "to a player who does not re-roll")
    else:
        state = evolve(state, event=f"{who} keeps {state.dice[seat]}")
    pending = state.pending[1:]
    if pending:
        return evolve(state, pending=pending, to_move=pending[0]), logged
    return _next_turn(state, state.played_by), logged  # clockwise from who played the card


def _roll_off(state: State, move: Mapping[str, Any]) -> tuple[State, dict[str, Any]]:
    not_applicable(move, keys(RollOff), "move", "to a roll-off")
    if move.get("roll_off") is not True:
        raise InputError("move: 'roll_off' must be true")
    given = move.get("dice") or {}
    if not isinstance(given, Mapping):
        raise InputError("move: 'dice' must map players to their d20")
    names = [state.table.players[i] for i in state.tied]
    for p in given:
        if p not in names:
            raise RuleViolation("not-tied", f"{p} is not in the roll-off ({', '.join(names)})")
    rolled = {}
    for p in names:
        rolled[p], state = _die(state, given.get(p), f"roll-off {p}")
    top = max(rolled.values())
    tied = tuple(state.table.players.index(p) for p in names if rolled[p] == top)
    text = "roll-off: " + ", ".join(f"{p} {v}" for p, v in rolled.items())
    logged = {"roll_off": True, "dice": rolled}
    if len(tied) == 1:
        return evolve(state, phase="over", winner=tied[0], ended_by="roll-off", event=text), logged
    return evolve(state, tied=tied, to_move=tied[0], event=text + " (tied again)"), logged


def apply(state: State, move: Mapping[str, Any]) -> State:
    """The state after ``move``; ``RuleViolation`` if it is illegal, ``InputError`` if it is
    malformed."""
    return apply_logged(state, move)[0]


def apply_logged(state: State, move: Mapping[str, Any]) -> tuple[State, dict[str, Any]]:
    """``apply`` and the move as it is logged: every die it rolled written in."""
    only(move, keys(Turn, FaceDownTurn, Reroll, Keep, RollOff))
    if state.phase == "over":  # (the shape is checked first: another game's log is bad input)
        raise RuleViolation("game-over", "the game is over; no more moves")
    if state.phase == "roll-off":
        if "roll_off" not in move:
            raise RuleViolation(
                "roll-off-due",
                "the highest rolls tie: the tied players roll again (a roll_off move)",
            )
        return _roll_off(state, move)
    player = need(move, "player", str)
    seat = state.table.seat(player)
    if seat != state.to_move:
        raise RuleViolation(
            "not-your-turn",
            f"it is {state.table.players[state.to_move]}'s "
            f"{'decision' if state.phase == 'reroll' else 'turn'}, not {player}'s",
        )
    if state.phase == "reroll":
        if "reroll" not in move:
            raise RuleViolation(
                "reroll-due", f"{player} first decides whether to re-roll (colourless card)"
            )
        return _reroll(state, move)
    return _play(state, move)


def _label(state: State, uid: str) -> str:
    card = state.table.cards.get(uid)
    return card.label if card else uid


def legal_moves(state: State) -> list[dict[str, Any]]:
    """Every legal move (re-rolls without their die, which is rolled when applied)."""
    players = state.table.players
    if state.phase == "over":
        return []
    if state.phase == "roll-off":
        return [{"roll_off": True}]
    me = players[state.to_move]
    if state.phase == "reroll":
        return [{"player": me, "reroll": True}, {"player": me, "reroll": False}]
    others = [p for p in players if p != me]
    out: list[dict[str, Any]] = []
    for card in state.hands[state.to_move]:
        colors = [c for c in WUBRG if c in state.table.cards[card].colors]
        options = [players if c in END_OF_GAME else others if c in "UR" else [me] for c in colors]
        for targets in product(*options):
            effects = [{"color": c, "target": t} for c, t in zip(colors, targets)]
            out.append({"player": me, "card": card, "face_down": False, "effects": effects})
        for t in players:
            for delta in (1, -1):
                out.append(
                    {
                        "player": me,
                        "card": card,
                        "face_down": True,
                        "effects": [{"delta": delta, "target": t}],
                    }
                )
    return out


def result(state: State) -> dict[str, Any] | None:
    """None while the game goes on; else the winner, how it ended and every initiative."""
    if state.phase != "over":
        return None
    players, values = state.table.players, final(state)
    return {
        "finished": True,
        "winner": players[state.winner] if state.winner is not None else None,
        "ended_by": state.ended_by,
        "turns": state.turns,
        "initiative": dict(zip(players, values)),
        "dice": dict(zip(players, state.dice)),
    }


def state_dict(state: State) -> dict[str, Any]:
    """The state as JSON: whose move, dice, effects in front of each player, hands."""
    players = state.table.players
    return {
        "phase": state.phase,
        "to_move": None if state.phase == "over" else players[state.to_move],
        "dice": dict(zip(players, state.dice)),
        "in_front": {
            p: [{"card": c, "delta": d} for c, d in m] for p, m in zip(players, state.mods)
        },
        "initiative": dict(zip(players, final(state))),
        "hands": {p: list(h) for p, h in zip(players, state.hands)},
        "discard": list(state.discard),
        "turns": state.turns,
    }


def render(state: State) -> str:
    """Two lines: each player's die, end-of-game effects and cards left; who is next."""
    parts = []
    for p, d, m, h in zip(state.table.players, state.dice, state.mods, state.hands):
        extra = sum(x for _, x in m)
        parts.append(
            f"{p} {d}{f' {extra:+d}' if extra else ''} ({len(h)} card{'' if len(h) == 1 else 's'})"
        )
    nxt = "" if state.phase == "over" else f"; next: {state.table.players[state.to_move]}"
    phase = {"reroll": " (colourless re-roll decision)", "roll-off": " (roll-off)"}.get(
        state.phase, ""
    )
    return "  " + ", ".join(parts) + nxt + phase


# --- policies (simulation) ---------------------------------------------------------------


def _effect_gain(
    state: State, seat: int, color: str, target: int, values: tuple[int, ...]
) -> float:
    """Expected gain in the mover's lead from one colour's effect on ``target``."""
    d = state.dice[target]
    lead = 0.01 * values[target] if target != seat else 0.0  # aim at the leader
    if color in END_OF_GAME:
        return END_OF_GAME[color] * (1 if target == seat else -1) + lead
    if color == "G":
        return (20 - d) * (21 - d) / 40
    if color == "U":
        return (d - 1) * d / 40 + lead
    return d - 10.5 + lead


def _greedy(state: State) -> dict[str, Any]:
    """The card and targets that most raise the mover's lead in expectation; face down +1 on
    itself (a sure +1) when no face-up play beats that."""
    seat, players = state.to_move, state.table.players
    values = final(state)
    others = [i for i in range(len(players)) if i != seat]
    best: tuple[float, dict[str, Any]] | None = None
    for card in state.hands[seat]:
        colors = [c for c in WUBRG if c in state.table.cards[card].colors]
        gain, effects = 0.0, []
        for c in colors:
            options = range(len(players)) if c in END_OF_GAME else others if c in "UR" else [seat]
            t = max(options, key=lambda i, c=c: _effect_gain(state, seat, c, i, values))
            gain += _effect_gain(state, seat, c, t, values)
            effects.append({"color": c, "target": players[t]})
        move = {"player": players[seat], "card": card, "face_down": False, "effects": effects}
        if not colors or gain < 1:
            gain, move = (
                1.0,
                {
                    "player": players[seat],
                    "card": card,
                    "face_down": True,
                    "effects": [{"delta": 1, "target": players[seat]}],
                },
            )
        if best is None or gain > best[0]:
            best = (gain, move)
    if best is None:
        raise ValueError(f"greedy: {players[seat]} holds no card to play")
    return best[1]


def _random(state: State, rng: Rng) -> dict[str, Any]:
    """A random card, face up or face down at even odds, each effect on a random target it
    may have (drawn directly: a table of many players has too many moves to list)."""
    seat, players = state.to_move, state.table.players
    me, card = players[seat], rng.choose(state.hands[seat])
    if rng.below(2):
        return {
            "player": me,
            "card": card,
            "face_down": True,
            "effects": [{"delta": rng.choose((1, -1)), "target": rng.choose(players)}],
        }
    others = [p for p in players if p != me]
    effects = [
        {
            "color": c,
            "target": rng.choose(players if c in END_OF_GAME else others if c in "UR" else [me]),
        }
        for c in WUBRG
        if c in state.table.cards[card].colors
    ]
    return {"player": me, "card": card, "face_down": False, "effects": effects}


def choose(state: State, policy: str, rng: Rng) -> dict[str, Any]:
    """A move by ``policy``: ``random`` (a random card, face up or down, random targets; a
    coin decides a colourless re-roll) or ``greedy`` (the play that most raises the mover's
    lead in expectation; re-roll a die of 10 or less)."""
    if state.phase == "roll-off":
        return {"roll_off": True}
    if state.phase == "reroll":
        die = state.dice[state.to_move]
        again = bool(rng.below(2)) if policy == "random" else die <= 10
        return {"player": state.table.players[state.to_move], "reroll": again}
    return _random(state, rng) if policy == "random" else _greedy(state)
