"""``validate``'s checks of the players' side of a setup: dice and their re-rolls, the first
player, teams, roles and the players a step chose. Each adds the violations it finds to the
run's ``_Check`` (``minigames.validate``)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from boosterkit.minigames.initiative import initiative_order, tie_problems
from boosterkit.minigames.ops import team_members
from boosterkit.minigames.spec import AssignRoles, Roll

if TYPE_CHECKING:
    from boosterkit.minigames.engine import Setup
    from boosterkit.minigames.validate import _Check


def check_roles(c: _Check) -> None:
    """Every player holds exactly one of the game's roles, each role as many players as the
    game gives it (games with a ``roles`` step); no other game names roles."""

    given = c.data.get("roles") or {}
    if not any(isinstance(s, AssignRoles) for s in c.spec.steps or []):
        if given:
            c.add("roles", f"roles: {c.spec.name} gives no roles at setup")
        return
    players = [f"player-{i}" for i in range(1, c.data["players"] + 1)]
    names = [r.name for r in c.spec.roles]
    for p in players:
        if p not in given:
            c.add(
                "role-missing",
                f"roles: {p} has no role; every player takes one of {', '.join(names)}",
            )
        elif given[p] not in names:
            c.add("roles", f"roles: {p} is {given[p]!r}, not one of {', '.join(names)}")
    for p in sorted(set(given) - set(players)):
        c.add("roles", f"roles: {p} is not a player of this setup")
    held = Counter(given[p] for p in players if p in given)
    for role in c.spec.roles:
        if role.count is not None and held[role.name] != role.count:
            c.add(
                "role-count",
                f"roles: {held[role.name]} players are {role.name}; the card gives it to {role.count}",
            )


def check_chosen(c: _Check, exp: Setup) -> None:
    """``chosen`` names a player for each zone a step chose one for, and nothing else."""
    given = c.data.get("chosen") or {}
    players = [f"player-{i}" for i in range(1, c.data["players"] + 1)]
    for zone, who in given.items():
        if zone not in exp.chosen:
            c.add("chosen", f"chosen: no step of {c.spec.name} chooses a player for {zone!r}")
        elif who not in players:
            c.add("chosen", f"chosen: {zone!r} names {who!r}, not one of {', '.join(players)}")


def check_rolls(c: _Check, exp: Setup) -> None:
    rolls, first = c.data.get("rolls") or {}, c.data.get("first_player")
    roll_step = next((s for s in c.spec.steps or [] if isinstance(s, Roll)), None)
    players = [f"player-{i}" for i in range(1, c.data["players"] + 1)]
    if roll_step is None:
        if rolls:
            c.add("rolls", f"rolls: {c.spec.name} has no dice rolls at setup")
    else:
        faces = roll_step.die
        for p in players:
            v = rolls.get(p)
            if not isinstance(v, int) or isinstance(v, bool):
                c.add("roll-missing", f"rolls: no d{faces} roll for {p}")
            elif not 1 <= v <= faces:
                c.add("roll-range", f"rolls: {p} rolled {v}, outside 1–{faces} on a d{faces}")
        for p in rolls:
            if p not in players:
                c.add("rolls", f"rolls: {p} is not a player of this setup")
        if roll_step.ties == "reroll":
            _check_ties(c, players, rolls, c.data.get("tiebreaks") or {}, faces)
        elif c.data.get("tiebreaks"):
            c.add("roll-tie", f"tiebreaks: {c.spec.name} breaks no ties by rolling")
    _check_first(c, exp, players, rolls, first)


def _check_ties(
    c: _Check,
    players: list[str],
    rolls: dict[str, Any],
    tiebreaks: dict[str, list[int]],
    faces: int,
) -> None:
    """The card: "In case of a tie, the tied players roll again", and the new roll is their
    initiative: the rounds are replayed from the first rolls (``initiative.tie_problems``)."""

    keyed = {p: rolls[p] for p in players if isinstance(rolls.get(p), int)}
    for p in tiebreaks:
        if p not in keyed:
            c.add("roll-tie", f"tiebreaks: {p} is not a player with a roll")
    for p, rolled in tiebreaks.items():
        bad = [v for v in rolled if not 1 <= v <= faces]
        if bad:
            c.add("roll-range", f"tiebreaks: {p} rolled {bad[0]}, outside 1–{faces}")
    for problem in tie_problems(keyed, {p: v for p, v in tiebreaks.items() if p in keyed}, faces):
        c.add("roll-tie", problem)


def _check_first(
    c: _Check, exp: Setup, players: list[str], rolls: dict[str, Any], first: Any
) -> None:

    rule = c.spec.first_player.rule
    if rule in ("lowest_roll", "highest_roll"):
        valid = {p: v for p, v in rolls.items() if p in players and isinstance(v, int)}
        if valid:
            ties = {p: v for p, v in (c.data.get("tiebreaks") or {}).items() if p in valid}
            who = initiative_order(valid, ties, rule == "highest_roll")[0]
            if first != who:
                word = "lowest" if rule == "lowest_roll" else "highest"
                c.add(
                    "first-player",
                    f"first_player: {first} starts, but the {word} starting "
                    f"initiative (after re-rolls of ties) is {who}'s",
                )
    elif rule == "random_team":
        teams = _check_teams(c)
        if first not in teams:
            c.add("first-player", f"first_player: {first!r} is not one of {', '.join(teams)}")
    elif rule == "at_table":  # "Whoever went camping most recently": the table knows
        if first is not None and first not in players:
            c.add("first-player", f"first_player: {first!r} is not one of {', '.join(players)}")
    elif rule in ("random", "choice"):
        if first not in players:
            c.add("first-player", f"first_player: {first!r} is not one of {', '.join(players)}")
    elif first is not None:
        c.add(
            "first-player",
            f"first_player: {c.spec.name} names no first player at setup "
            f"({c.spec.first_player.text})",
        )


def _check_teams(c: _Check) -> list[str]:
    """A team game's ``teams`` (as ``deal`` names them when the file has none): the game's
    number of teams, ``team-1``…, each of one or more players, every player on exactly one.
    The team names, for the first player."""

    count, players = c.spec.players.teams or 2, c.data["players"]
    teams = c.data.get("teams") or team_members(count, players)
    names = [f"team-{t}" for t in range(1, count + 1)]
    if sorted(teams) != names:
        c.add("teams", f"teams: {', '.join(sorted(teams)) or 'none'}; {c.spec.name} has "
              f"{', '.join(names)}")  # fmt: skip
    seated = [p for m in teams.values() for p in m]
    everyone = [f"player-{i}" for i in range(1, players + 1)]
    for team, members in teams.items():
        if not members:
            c.add("teams", f"teams: {team} has no player; a team is one or more players")
    if sorted(seated) != sorted(everyone):
        twice = sorted({p for p in seated if seated.count(p) > 1})
        left = [p for p in everyone if p not in seated]
        stray = sorted(set(seated) - set(everyone))
        what = [f"{', '.join(twice)} on more than one team"] if twice else []
        what += [f"{', '.join(left)} on no team"] if left else []
        what += [f"{', '.join(stray)} not a player of this setup"] if stray else []
        c.add("teams", f"teams: {'; '.join(what)}")
    return names
