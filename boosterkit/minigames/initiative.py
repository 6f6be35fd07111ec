"""Starting initiative from dice (Roll for Initiative, MAFR #5): "Each player then rolls a d20
to determine their initiative. In case of a tie, the tied players roll again. The player with
the lowest starting initiative goes first." Pure.

The ruling (issue 19, the card's natural reading): the new roll *is* the player's initiative.
Issue 30 settles what the card leaves open:

- **Up to as many players as the die has faces (20), no tie remains.** Round by round, the
  players whose roll ties another's roll again (only they); a player whose roll tied nobody
  keeps it (their initiative is determined), so a re-roll that lands on a kept initiative
  ties again and only the re-roller rolls again. Every round settles someone with a free
  value, so this ends (20 players: about 70 rolls in all at worst, on average).
- **Past 20 players** a d20 cannot give everyone a different initiative: the players tied at
  the *lowest* roll roll again, round by round, until one player holds it (the dice, not the
  seats, pick who goes first); other ties stand, and tied players share their initiative
  (the order lists them by seat).

A setup keeps each player's first roll (``rolls``) and their re-rolls in order
(``tiebreaks``): the last is their starting initiative, and the rounds follow from the values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence

#: Rounds of re-rolls at most: a bound that real dice never meet (20 players need one free
#: value hit at 1 in 20 a roll; missing it 1,000 times running has odds below 1e-22).
MAX_ROUNDS = 1000


class TieRounds:
    """Which players roll again in each round, given the values so far (one rule for the
    deal and for the check of a setup's re-rolls)."""

    def __init__(self, rolls: Mapping[str, int], faces: int) -> None:
        self.current = dict(rolls)
        self.all_differ = len(rolls) <= faces  # else only the lowest roll is rolled off
        self.unsettled = set(rolls)

    def tied(self) -> list[str]:
        """The players who roll again now, in seat order (none: done)."""
        seen = Counter(self.current.values())
        if self.all_differ:
            self.unsettled = {p for p in self.unsettled if seen[self.current[p]] > 1}
            return [p for p in self.current if p in self.unsettled]
        low = min(self.current.values(), default=0)
        return [p for p, v in self.current.items() if v == low] if seen[low] > 1 else []


def roll_ties(
    rolls: Mapping[str, int], roll: Callable[[], int], faces: int = 20
) -> dict[str, list[int]]:
    """The re-rolls of the tied players, round by round (``roll``: one die of ``faces``)."""
    rounds, again = TieRounds(rolls, faces), dict[str, list[int]]()
    for _ in range(MAX_ROUNDS):
        tied = rounds.tied()
        if not tied:
            break
        for p in tied:
            rounds.current[p] = roll()
            again.setdefault(p, []).append(rounds.current[p])
    return again


def starting(rolls: Mapping[str, int], tiebreaks: Mapping[str, Sequence[int]]) -> dict[str, int]:
    """Each player's starting initiative: their last roll."""
    return {p: (list(tiebreaks.get(p) or ()) or [v])[-1] for p, v in rolls.items()}


def initiative_order(
    rolls: Mapping[str, int], tiebreaks: Mapping[str, Sequence[int]], highest_first: bool = False
) -> list[str]:
    """Players in turn order: by starting initiative (lowest first, or highest with
    ``highest_first``); players sharing one (past 20 players) by seat."""
    start, sign = starting(rolls, tiebreaks), -1 if highest_first else 1
    return sorted(start, key=lambda p: (sign * start[p], _player_no(p)))


def _player_no(p: str) -> int:
    tail = p.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def tie_problems(
    rolls: Mapping[str, int], tiebreaks: Mapping[str, Sequence[int]], faces: int = 20
) -> list[str]:
    """What a setup's re-rolls break of the rule, one line each (none: they follow it):
    replays the rounds from the first rolls."""
    rounds = TieRounds(rolls, faces)
    used = dict.fromkeys(rolls, 0)
    for _ in range(MAX_ROUNDS):
        tied = rounds.tied()
        if not tied:
            break
        short = [p for p in tied if used[p] >= len(tiebreaks.get(p) or ())]
        if short:
            v = rounds.current[short[0]]
            group = [p for p in rolls if rounds.current[p] == v]
            path = "/".join(map(str, [rolls[short[0]], *list(tiebreaks.get(short[0]) or ())]))
            return [
                f"rolls: {' and '.join(group)} tied at {path}; the card has tied players roll again"
            ]
        for p in tied:
            rounds.current[p] = list(tiebreaks[p])[used[p]]
            used[p] += 1
    return [
        f"tiebreaks: {p} rolled again after "
        f"{'/'.join(map(str, [rolls[p], *list(again)[: used[p]]]))} without a tie; only "
        "tied players roll again"
        for p, again in tiebreaks.items()
        if p in used and used[p] < len(again)
    ]
