"""``play``: a move log replayed from a setup that is checked first (``boosterkit play``,
``POST /play``).

The setup's shape and sizes are checked before anything is built from it (players within
the game's range, no more zone cards than its packs and outside additions can make), then it
gets the checks ``validate`` makes (a forged card stops the game before its first move), and
only then are the moves replayed. The answer is bounded: the state after each move only
when asked (``states``), and then for the first ``MAX_STATES`` moves; every move says which
of its dice were recorded in the log and which the referee drew.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from boosterkit.database import Database
from boosterkit.errors import InputError, escape_controls
from boosterkit.minigames.catalog import get_minigame
from boosterkit.minigames.engine import check_players
from boosterkit.minigames.referee.runner import Replay, replay
from boosterkit.minigames.setupfile import SetupFile, parse_setup
from boosterkit.minigames.spec import AddExternal

if TYPE_CHECKING:
    from boosterkit.database import DbLike
    from boosterkit.minigames.validate import Violation

#: States an answer carries when they are asked for (those after the first moves).
MAX_STATES = 1000
#: Basic land types an outside addition counts per player (Plains … Forest).
_BASIC_TYPES = 5


def check_sizes(data: SetupFile) -> None:
    """``InputError`` unless the setup's players are within its game's range and its zones
    hold no more cards than its packs and outside additions can make (checked on counts:
    nothing is built)."""
    spec = get_minigame(data["minigame"])
    check_players(spec, data["players"])
    items = sum(len(p["items"]) for p in data["packs"])
    outside = sum(s.per_type for s in spec.steps or [] if isinstance(s, AddExternal))
    most = items + outside * _BASIC_TYPES * data["players"]
    held = sum(len(z["cards"]) for z in data["zones"])
    if held > most:
        added = f" and the {most - items:,} basic lands {spec.name} adds" if most > items else ""
        raise InputError(
            f"setup.zones: {held:,} cards, more than the {items:,} of the packs{added}: "
            "not a setup of this game"
        )


def dice(given: Any, logged: Any, path: str = "") -> Iterator[tuple[str, bool]]:
    """Each die of a logged move (``die`` values, ``dice`` maps): its path in the move and
    whether the log recorded it (else the referee drew it)."""
    if isinstance(logged, Mapping):
        for key, value in logged.items():
            was = given.get(key) if isinstance(given, Mapping) else None
            at = f"{path}.{key}" if path else str(key)
            if key == "die" and isinstance(value, int):
                yield at, was is not None
            elif key == "dice" and isinstance(value, Mapping):
                for who in value:
                    yield f"{at}.{who}", isinstance(was, Mapping) and was.get(who) is not None
            else:
                yield from dice(was, value, at)
    elif isinstance(logged, list):
        for i, value in enumerate(logged):
            was = given[i] if isinstance(given, list) and i < len(given) else None
            yield from dice(was, value, f"{path}[{i}]")


@dataclass
class Played:
    """A checked setup and its replayed moves (``replay`` None when the setup is forged)."""

    setup: SetupFile
    violations: list[Violation] = field(default_factory=list)  # the setup's, as validate
    replay: Replay | None = None
    given: list[Mapping[str, Any]] = field(default_factory=list)  # the moves as sent
    states: bool = False

    @property
    def complete(self) -> bool:
        return self.replay is not None and self.replay.complete

    def _moves(self) -> list[dict[str, Any]]:
        assert self.replay is not None
        mod, out = self.replay.module, []
        for n, (m, s) in enumerate(zip(self.replay.moves, self.replay.states[1:]), 1):
            rolled = list(dice(self.given[n - 1], m))
            row: dict[str, Any] = {
                "move": n,
                "played": m,
                "event": s.event,
                "dice": {
                    "recorded": [p for p, kept in rolled if kept],
                    "drawn": [p for p, kept in rolled if not kept],
                },
            }
            if self.states and n <= MAX_STATES:
                row["state"] = mod.state_dict(s)
            out.append(row)
        return out

    def to_dict(self) -> dict[str, Any]:
        rep, data = self.replay, self.setup
        if rep is None:
            first = self.violations[0]
            return {
                "minigame": data["minigame"],
                "players": data["players"],
                "seed": data.get("seed"),
                "setup_valid": False,
                "setup_violations": [v.to_dict() for v in self.violations],
                "start": None,
                "moves": [],
                "end": None,
                "states": 0,
                "dice": {"recorded": 0, "drawn": 0},
                "complete": False,
                "result": None,
                "violation": {
                    "move": None,
                    "rule": first.rule,
                    "message": f"setup: {first}",
                    "cards": [escape_controls(first.card)] if first.card else [],
                },
            }
        moves = self._moves()
        recorded = sum(len(m["dice"]["recorded"]) for m in moves)
        drawn = sum(len(m["dice"]["drawn"]) for m in moves)
        last = rep.states[-1]
        return {
            "minigame": last.table.game,
            "players": len(last.table.players),
            "seed": last.table.seed,
            "setup_valid": True,
            "setup_violations": [],
            "start": rep.module.state_dict(rep.states[0]),
            "moves": moves,
            "end": rep.module.state_dict(last),
            "states": min(len(moves), MAX_STATES) if self.states else 0,
            "dice": {"recorded": recorded, "drawn": drawn},
            "complete": rep.complete,
            "result": rep.result,
            "violation": rep.violation.to_dict() if rep.violation else None,
        }

    def text(self) -> str:
        """The events (the state after each when asked), then the result or what is wrong."""
        if self.replay is None:
            lines = [f"the setup is not valid ({len(self.violations)} problems):"]
            lines += [f"  {v.rule}: {v.message}" for v in self.violations]
            first = self.violations[0]
            return "\n".join([*lines, f"not played: {first.rule}: {first.message}"]) + "\n"
        rep, mod = self.replay, self.replay.module
        out = ["start", mod.render(rep.states[0])]
        for n, s in enumerate(rep.states[1:], 1):
            out.append(f"move {n}: {s.event}")
            if self.states and n <= MAX_STATES:
                out.append(mod.render(s))
        if not self.states:
            out += ["end", mod.render(rep.states[-1])]
        out.append(rep.outcome())
        return "\n".join(out) + "\n"


def play(
    db: DbLike, setup: Any, moves: Iterable[Mapping[str, Any]], states: bool = False
) -> Played:
    """Check ``setup`` (sizes, then every check of ``validate``) and replay ``moves`` from it.

    Malformed or oversized input is an ``InputError``; a setup that breaks a rule is not
    played (``violations``); an illegal move stops the game (``replay.violation``).
    ``states``: the answer carries the state after each move (the first ``MAX_STATES``).
    """
    from boosterkit.minigames.referee import game_module
    from boosterkit.minigames.validate import validate_setup

    data = parse_setup(setup)
    game_module(data["minigame"])  # a game the referee plays
    check_sizes(data)
    given = list(moves)
    database = Database.of(db)
    checked = validate_setup(database, data)
    if not checked.valid:
        return Played(data, checked.violations, None, given, states)
    return Played(data, [], replay(data, given, database), given, states)
