"""Mimic Match (MAFR #4, MCLB #2), refereed from a dealt setup.

Cells are numbered 1–16 in the grid's row order (the setup's order). The mimics are the two
lands in the grid and deck (the only lands the setup puts back; a card tagged ``mimic`` counts
too). The card, as printed, is quoted beside the code. Rulings where it is silent:

- "you may reveal them": a player who sees a match may leave it (``take: false``);
- refills come from the top of the setup's deck, first card into the lower-numbered hole,
  unless the move records the cards the table actually drew (``refill``); an empty deck
  leaves the holes empty;
- a tie is settled by a move of the mimic finder ("the player who uncovered the mimics
  decides who wins"), choosing among the tied players;
- a card not in the database counts as colourless with no mana value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from boosterkit.errors import InputError
from boosterkit.generator.streams import Rng
from boosterkit.minigames.referee.common import (
    Card,
    RuleViolation,
    Table,
    evolve,
    make_table,
    need,
    not_applicable,
    only,
    zone,
)
from boosterkit.minigames.referee.moves import Decide, Look, keys
from boosterkit.minigames.setupfile import SetupFile

GAME = "mimic-match"
MIMIC_BONUS = 2  # "scores an additional 2 points"


def is_match(a: Card, b: Card, mimics: frozenset[str] | None = None) -> bool:
    """Whether two cards match: "If they share a color or mana value"; "Colorless cards can
    be matched with other colorless cards, but mimics can only be matched with each other."

    ``mimics``: the mimics' uids (default: every land is a mimic, as in a dealt setup).
    """
    ma = a.uid in mimics if mimics is not None else a.has("Land")
    mb = b.uid in mimics if mimics is not None else b.has("Land")
    if ma or mb:
        return ma and mb
    if not a.colors and not b.colors:
        return True
    if set(a.colors) & set(b.colors):
        return True
    return a.mana_value is not None and a.mana_value == b.mana_value


def why_not(a: Card, b: Card) -> str:
    """Words for a failed match: each card's colours and mana value."""

    def desc(c: Card) -> str:
        mv = "no mana value" if c.mana_value is None else f"mana value {c.mana_value:g}"
        return f"{c.label}: {''.join(c.colors) or 'colourless'}, {mv}"

    return f"{desc(a)}; {desc(b)}"


@dataclass(frozen=True)
class State:
    table: Table
    grid: tuple[str | None, ...]
    deck: tuple[str, ...]
    mimics: frozenset[str]
    collected: tuple[tuple[str, ...], ...]
    seen: tuple[frozenset[str], ...]  # the cards each player has looked at
    to_move: int = 0
    phase: str = "look"  # look | decide (the finder settles a tie) | over
    finder: int | None = None
    tied: tuple[int, ...] = ()
    winner: int | None = None
    ended_by: str | None = None
    turns: int = 0
    event: str = ""


def start(setup: SetupFile, con: Any = None) -> State:
    """The game at the first turn, from a setup dealt by ``minigames.deal``."""
    table = make_table(setup, GAME, play_zones=lambda z: z in ("grid", "deck"))
    grid, deck = zone(table, "grid"), table.zones.get("deck", ())
    if len(grid) < 2:
        raise InputError("setup: the Mimic Match grid needs at least 2 cards")
    tagged = {u for u in grid + deck if table.items[u].get("tag") == "mimic"}
    mimics = frozenset(tagged or {u for u in grid + deck if table.cards[u].has("Land")})
    if len(mimics) != 2:
        raise InputError(
            f"setup: Mimic Match has two mimics (lands) among the grid and deck; "
            f"this setup has {len(mimics)}"
        )
    first = table.players.index(table.first_player) if table.first_player else 0
    n = len(table.players)
    return State(
        table=table,
        grid=tuple(grid),
        deck=tuple(deck),
        mimics=mimics,
        collected=tuple(() for _ in range(n)),
        seen=tuple(frozenset() for _ in range(n)),
        to_move=first,
    )


def scores(state: State) -> tuple[int, ...]:
    """ "1 point for every card they collected", +2 for the mimic finder."""
    return tuple(
        len(c) + (MIMIC_BONUS if i == state.finder else 0) for i, c in enumerate(state.collected)
    )


def _cell(state: State, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(f"move: a cell is a number 1-{len(state.grid)}, got {value!r}")
    if not 1 <= value <= len(state.grid):
        raise RuleViolation(
            "cell-out-of-range", f"cell {value} is outside the grid (cells 1-{len(state.grid)})"
        )
    if state.grid[value - 1] is None:
        raise RuleViolation("empty-cell", f"cell {value} holds no card")
    return value - 1


def _filled(state: State) -> dict[int, str]:
    """The grid's cards by 0-based cell, holes left out."""
    return {k: u for k, u in enumerate(state.grid) if u is not None}


def _refill(state: State, holes: list[int], given: Any) -> tuple[list[str | None], tuple[str, ...]]:
    """ "replace the empty spaces with two new cards from the deck, face down." """
    grid, deck = list(state.grid), list(state.deck)
    count = min(len(holes), len(deck))
    if given is None:
        drawn = deck[:count]
    else:
        if not isinstance(given, list) or not all(isinstance(u, str) for u in given):
            raise InputError("move: 'refill' is a list of card uids")
        if len(given) != count or len(set(given)) != count or not set(given) <= set(deck):
            raise RuleViolation(
                "refill-not-from-deck",
                f"the holes take {count} cards from "
                f"the deck; {', '.join(given) or 'none'} are not that",
                given,
            )
        drawn = list(given)
    for hole in holes:
        grid[hole] = None
    for hole, uid in zip(sorted(holes), drawn):
        grid[hole] = uid
    return grid, tuple(u for u in deck if u not in drawn)


def _looked(state: State, move: Mapping[str, Any]) -> tuple[int, int, str, str]:
    """The two cells (0-based) a look names and their cards; an error unless they are two
    different filled cells holding the ``cards`` the move may list."""
    not_applicable(move, keys(Look), "move", "to a look at two cards")
    cells = need(move, "cells", list)
    if len(cells) != 2:
        raise InputError("move: 'cells' names two cells")
    i, j = (_cell(state, c) for c in cells)
    if i == j:
        raise RuleViolation("two-cards", "a turn looks at two different cards")
    at = _filled(state)  # _cell found both cells filled
    a, b = at[i], at[j]
    if "cards" in move and move["cards"] != [a, b]:
        raise RuleViolation(
            "cards-not-at-cells",
            f"cells {i + 1} and {j + 1} hold {a} and {b}, not {move['cards']}",
            [a, b],
        )
    return i, j, a, b


def _look(state: State, seat: int, move: Mapping[str, Any]) -> State:
    """The state after ``seat`` looks at two cards: left in place (the next player's turn)
    or taken as a match."""
    i, j, a, b = _looked(state, move)
    take = need(move, "take", bool)
    seen = list(state.seen)
    seen[seat] = seen[seat] | {a, b}
    if not take:  # "Otherwise, leave them in place, and the next player takes their turn."
        return evolve(
            state,
            seen=tuple(seen),
            turns=state.turns + 1,
            to_move=(seat + 1) % len(state.collected),
            event=f"{state.table.players[seat]} looks at cells {i + 1} and {j + 1}",
        )
    return _take(state, seat, (i, j), (a, b), move, tuple(seen))


def _take(
    state: State,
    seat: int,
    cells: tuple[int, int],
    pair: tuple[str, str],
    move: Mapping[str, Any],
    seen: tuple[frozenset[str], ...],
) -> State:
    """The state after ``seat``, having looked (``seen``), takes the ``pair`` of cards at
    ``cells``: the game ends if they are the mimics, else the holes are refilled; an error
    if they do not match."""
    (i, j), (a, b) = cells, pair
    cards, who = state.table.cards, state.table.players[seat]
    turns = state.turns + 1
    if not is_match(cards[a], cards[b], state.mimics):
        raise RuleViolation(
            "not-a-match",
            f"{a} and {b} share no colour or mana value, or "
            f"only one is a mimic ({why_not(cards[a], cards[b])})",
            [a, b],
        )
    collected = list(state.collected)
    collected[seat] = collected[seat] + (a, b)
    if {a, b} == state.mimics:  # "The game ends when a player reveals the two mimics"
        grid = tuple(None if k in (i, j) else u for k, u in enumerate(state.grid))
        return _end(
            evolve(
                state,
                seen=seen,
                turns=turns,
                collected=tuple(collected),
                finder=seat,
                grid=grid,
                event=f"{who} uncovers the mimics {a} and {b}",
            )
        )
    refilled, deck = _refill(state, [i, j], move.get("refill"))
    return evolve(
        state,
        seen=seen,
        turns=turns,
        collected=tuple(collected),
        grid=tuple(refilled),
        deck=deck,  # "then take another turn"
        event=f"{who} takes {cards[a].label} and {cards[b].label}",
    )


def _end(state: State) -> State:
    points = scores(state)
    top = max(points)
    tied = tuple(i for i, p in enumerate(points) if p == top)
    if len(tied) == 1:
        return evolve(state, phase="over", winner=tied[0], ended_by="mimics-uncovered")
    # "If there is a tie, the player who uncovered the mimics decides who wins!"
    return evolve(state, phase="decide", tied=tied, to_move=state.finder)


def apply(state: State, move: Mapping[str, Any]) -> State:
    """The state after ``move``; ``RuleViolation`` if it is illegal."""
    only(move, keys(Look, Decide))  # shape before rules
    if state.phase == "over":
        raise RuleViolation("game-over", "the game is over; no more moves")
    players = state.table.players
    seat = state.table.seat(need(move, "player", str))
    if seat != state.to_move:
        raise RuleViolation("not-your-turn", f"it is {players[state.to_move]}'s turn")
    if state.phase == "decide":
        not_applicable(move, keys(Decide), "move", "to the finder's decision of a tie")
        chosen = state.table.seat(need(move, "winner", str), "winner")
        if chosen not in state.tied:
            names = ", ".join(players[t] for t in state.tied)
            raise RuleViolation(
                "not-tied",
                f"the finder chooses among the tied players ({names}), not {players[chosen]}",
            )
        return evolve(
            state,
            phase="over",
            winner=chosen,
            ended_by="finder-decided",
            event=f"{players[seat]} decides the tie: {players[chosen]} wins",
        )
    if "winner" in move:
        raise RuleViolation("no-tie", "only the mimic finder decides, and only a tie")
    return _look(state, seat, move)


def legal_moves(state: State) -> list[dict[str, Any]]:
    """Every legal move: look at any two cards and leave them, or take a match."""
    if state.phase == "over":
        return []
    me = state.table.players[state.to_move]
    if state.phase == "decide":
        return [{"player": me, "winner": state.table.players[t]} for t in state.tied]
    cards = state.table.cards
    at = _filled(state)
    full = list(at)
    out = []
    for x, i in enumerate(full):
        for j in full[x + 1 :]:
            out.append({"player": me, "cells": [i + 1, j + 1], "take": False})
            if is_match(cards[at[i]], cards[at[j]], state.mimics):
                out.append({"player": me, "cells": [i + 1, j + 1], "take": True})
    return out


def result(state: State) -> dict[str, Any] | None:
    """None while the game goes on; else the winner, the scores and who found the mimics."""
    if state.phase != "over":
        return None
    players = state.table.players
    return {
        "finished": True,
        "winner": players[state.winner] if state.winner is not None else None,
        "ended_by": state.ended_by,
        "turns": state.turns,
        "scores": dict(zip(players, scores(state))),
        "finder": players[state.finder] if state.finder is not None else None,
    }


def state_dict(state: State) -> dict[str, Any]:
    """The grid (null for a hole), the deck size, collected cards and whose turn it is."""
    players = state.table.players
    return {
        "phase": state.phase,
        "to_move": None if state.phase == "over" else players[state.to_move],
        "grid": list(state.grid),
        "deck": len(state.deck),
        "collected": {p: list(c) for p, c in zip(players, state.collected)},
        "scores": dict(zip(players, scores(state))),
        "turns": state.turns,
    }


def render(state: State) -> str:
    """The grid (``..`` for a hole), the deck and the cards each player holds."""
    cols, lines = 4, []
    for r in range(0, len(state.grid), cols):
        lines.append(
            "  " + " ".join((u or "..").ljust(7) for u in state.grid[r : r + cols]).rstrip()
        )
    got = ", ".join(f"{p} {len(c)}" for p, c in zip(state.table.players, state.collected))
    points = ", ".join(f"{p} {n}" for p, n in zip(state.table.players, scores(state)))
    nxt = "" if state.phase == "over" else f"; next: {state.table.players[state.to_move]}"
    nxt += " (decides the tie)" if state.phase == "decide" else ""
    lines.append(f"  deck {len(state.deck)}; collected: {got}; points: {points}{nxt}")
    return "\n".join(lines)


# --- policies (simulation) ---------------------------------------------------------------


def _take_mimics(state: State, seat: int) -> bool:
    """Greedy takes the mimics when that wins (or ties) or nothing else is left to draw."""
    points = scores(state)
    best_other = max((p for i, p in enumerate(points) if i != seat), default=0)
    return points[seat] + 2 + MIMIC_BONUS >= best_other or not state.deck


def choose(state: State, policy: str, rng: Rng) -> dict[str, Any]:
    """A move by ``policy``: ``random`` looks at two random cards and takes a match;
    ``greedy`` remembers what it has seen, takes known pairs, and looks at an unseen card
    first (then at a remembered card that matches it)."""
    seat, cards = state.to_move, state.table.cards
    me = state.table.players[seat]
    if state.phase == "decide":
        return {
            "player": me,
            "winner": me if seat in state.tied else state.table.players[rng.choose(state.tied)],
        }
    at = _filled(state)
    full = list(at)

    def look(i: int, j: int) -> dict[str, Any]:
        a, b = at[i], at[j]
        match = is_match(cards[a], cards[b], state.mimics)
        if match and {a, b} == state.mimics and policy == "greedy":
            match = _take_mimics(state, seat)
        return {"player": me, "cells": [i + 1, j + 1], "take": match}

    if policy == "random":
        i = rng.choose(full)
        return look(i, rng.choose([k for k in full if k != i]))
    known = [k for k in full if at[k] in state.seen[seat]]
    for x, i in enumerate(known):
        for j in known[x + 1 :]:
            pair = {at[i], at[j]}
            if is_match(cards[at[i]], cards[at[j]], state.mimics) and (
                pair != state.mimics or _take_mimics(state, seat)
            ):
                return look(i, j)
    unseen = [k for k in full if k not in known]
    i = rng.choose(unseen or full)
    for j in known:
        if j != i and is_match(cards[at[i]], cards[at[j]], state.mimics):
            return look(i, j)
    rest = [k for k in (unseen or full) if k != i] or [k for k in full if k != i]
    return look(i, rng.choose(rest))
