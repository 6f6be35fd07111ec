"""The setup ops that concern the players rather than the pools: dice (``roll``), roles
(``roles``) and a player's own discard (``discard``). Pure; dispatched by ``ops.OPS``."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from boosterkit.minigames.filters import describe, matches
from boosterkit.minigames.initiative import roll_ties, starting

if TYPE_CHECKING:
    from boosterkit.minigames.ops import State
    from boosterkit.minigames.spec import AssignRoles, Discard, Roll


def op_discard(s: State, step: Discard) -> None:
    """One player (at random among those who can; a replay: the file's) discards cards of
    the filter from their ``source`` zone to begin the shared ``zone``."""
    hands = {p: z for p in s.players if (z := s.zones.get(f"{p} {step.source}")) is not None}
    able = [
        p
        for p, z in hands.items()
        if sum(matches(c, step.filter, s.strict) for c in z.cards) >= step.count
    ]
    given = s.given.get(step.zone)
    if given in hands:
        who = given
    elif able:
        who = s.rng.choose(able)
    else:
        held = sum(matches(c, step.filter, s.strict) for z in hands.values() for c in z.cards)
        raise s.lacking(
            f"discarding {step.count} to begin the {step.zone}",
            step.count,
            held,
            step.filter,
            held=f"the {len(hands)} {step.source}s hold",
        )
    hand = hands[who]
    cands = [c for c in hand.cards if matches(c, step.filter, s.strict)] or list(hand.cards)
    taken = [cands.pop(s.rng.below(len(cands))) for _ in range(min(step.count, len(cands)))]
    hand.cards[:] = [c for c in hand.cards if all(c is not t for t in taken)]
    rule = replace(s.rules[hand.name][0], need=step.filter)
    what = f"{step.count} {describe(step.filter, step.count)} from a player's {step.source}"
    s.zone(step.zone, None, "discard", rule, what).cards.extend(taken)
    s.chosen[step.zone] = who
    s.notes.append(
        f"{who} discarded {step.count} {describe(step.filter, step.count)} to begin the "
        f"{step.zone}."
    )


def op_roles(s: State, step: AssignRoles) -> None:
    """Every player gets a role: each role its ``count`` players, the role without a count
    everyone left (``spec._roles_problem`` checked that this fits every allowed count)."""
    order = s.rng.shuffled(s.players)
    given: dict[str, str] = {}
    for role in (r for r in s.spec.roles if r.count is not None):
        for p in order[len(given) : len(given) + (role.count or 0)]:
            given[p] = role.name
    rest = next((r.name for r in s.spec.roles if r.count is None), None)
    for p in order[len(given) :]:
        if rest is None:
            raise s.fail(f"{len(s.players)} players, and the roles are for {len(given)}")
        given[p] = rest
    s.roles = {p: given[p] for p in s.players}
    how = (
        "at random"
        if step.method == "random"
        else "at random here (the card lets the table choose)"
    )
    s.notes.append(f"Roles, {how}: " + ", ".join(f"{p} {r}" for p, r in s.roles.items()) + ".")


def op_roll(s: State, step: Roll) -> None:
    """Everyone rolls; with ``ties: reroll`` the tied players roll again and the new roll is
    their initiative, round by round while any two tie (``minigames.initiative``)."""
    faces = step.die
    s.rolls = {p: s.rng.roll(faces) for p in s.players}
    s.notes.append(f"d{faces} rolls: " + ", ".join(f"{p} {v}" for p, v in s.rolls.items()) + ".")
    if step.ties != "reroll":
        return
    s.tiebreaks = roll_ties(s.rolls, lambda: s.rng.roll(faces), faces)
    if not s.tiebreaks:
        return
    shown = [
        f"{p} {'/'.join(map(str, [s.rolls[p], *again]))}"
        for p, again in list(s.tiebreaks.items())[:NOTE_PLAYERS]
    ]
    more = len(s.tiebreaks) - NOTE_PLAYERS
    s.notes.append(
        "Ties: the tied players rolled again, and the new roll is their initiative: "
        + ", ".join(shown)
        + (f"; and {more} more players" if more > 0 else "")
        + "."
    )
    start = list(starting(s.rolls, s.tiebreaks).values())
    left = sorted({v for v in start if start.count(v) > 1})
    if left:
        s.notes.append(
            f"More players than a d{faces} has faces: only the lowest roll was rolled off; "
            f"the ties at {', '.join(map(str, left))} stand (those players share that "
            "initiative)."
        )


#: Players whose re-rolls the notes spell out (the rest are counted).
NOTE_PLAYERS = 16
