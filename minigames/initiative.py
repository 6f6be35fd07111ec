"""Starting initiative from dice (Roll for Initiative, MAFR #5): "Each player then rolls a d20
to determine their initiative. In case of a tie, the tied players roll again." Pure.

The ruling (issue 19, the card's natural reading): the new roll *is* the player's initiative.
Rounds: every player whose initiative equals another's rolls again (only they), and again
while any two are tied, at most ``TIE_ROUNDS`` rounds (a d20 cannot tell apart more than 20
players, and 12 need 8 rounds on average); ties left after that are ordered by player
number. A setup keeps each player's first roll (``rolls``) and their re-rolls in order
(``tiebreaks``): the last is their starting initiative, and the rounds follow from the values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence

#: Rounds of re-rolls at most (6 players are untied after 6 rounds 99 times in 100).
TIE_ROUNDS = 10


def _tied(current: Mapping[str, int]) -> list[str]:
    seen = Counter(current.values())
    return [p for p, v in current.items() if seen[v] > 1]


def roll_ties(rolls: Mapping[str, int], roll: Callable[[], int]) -> dict[str, list[int]]:
    """The re-rolls of the tied players, round by round (``roll``: one die)."""
    current, again = dict(rolls), dict[str, list[int]]()
    for _ in range(TIE_ROUNDS):
        tied = _tied(current)
        if not tied:
            break
        for p in tied:
            current[p] = roll()
            again.setdefault(p, []).append(current[p])
    return again


def starting(rolls: Mapping[str, int], tiebreaks: Mapping[str, Sequence[int]]) -> dict[str, int]:
    """Each player's starting initiative: their last roll."""
    return {p: (list(tiebreaks.get(p) or ()) or [v])[-1] for p, v in rolls.items()}


def initiative_order(
    rolls: Mapping[str, int], tiebreaks: Mapping[str, Sequence[int]], highest_first: bool = False
) -> list[str]:
    """Players in turn order: by starting initiative (lowest first, or highest with
    ``highest_first``), ties left after ``TIE_ROUNDS`` rounds by player number."""
    start, sign = starting(rolls, tiebreaks), -1 if highest_first else 1
    return sorted(start, key=lambda p: (sign * start[p], _player_no(p)))


def _player_no(p: str) -> int:
    tail = p.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def tie_problems(rolls: Mapping[str, int], tiebreaks: Mapping[str, Sequence[int]]) -> list[str]:
    """What a setup's re-rolls break of the rule, one line each (none: they follow it):
    replays the rounds from the first rolls."""
    history = {p: [v] for p, v in rolls.items()}
    out: list[str] = []
    for _ in range(TIE_ROUNDS):
        current = {p: h[-1] for p, h in history.items()}
        tied = _tied(current)
        if not tied:
            break
        short = [p for p in tied if len(history[p]) > len(tiebreaks.get(p) or ())]
        if short:
            group = [p for p in tied if current[p] == current[short[0]]]
            path = "/".join(map(str, history[short[0]]))
            out.append(
                f"rolls: {' and '.join(group)} tied at {path}; the card has tied players roll again"
            )
            return out
        for p in tied:
            history[p].append(list(tiebreaks[p])[len(history[p]) - 1])
    for p, again in tiebreaks.items():
        if p in history and len(history[p]) - 1 < len(again):
            out.append(
                f"tiebreaks: {p} rolled again after {'/'.join(map(str, history[p]))} without "
                "a tie; only tied players roll again"
            )
    return out
