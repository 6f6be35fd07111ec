"""Replaying a move log (``replay``) and simulating many games (``simulate``).

``simulate`` deals setup *i* (1-based) with the seed ``pack_key(seed, i)`` and plays it with
a policy drawing from ``Rng(setup seed, "referee/policy/<policy>")``; the game's own dice
come from ``Rng(setup seed, "referee/<game>")``. Every log it writes replays to the same
result: the moves are written with the dice they used.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boosterkit.cache import Cache
from boosterkit.database import Database
from boosterkit.errors import InputError, json_reason
from boosterkit.generator.rng import pack_key
from boosterkit.generator.streams import Rng
from boosterkit.jobs import PARTS_PER_WORKER, check_jobs, map_parts, split, workers_for
from boosterkit.minigames.engine import SetupError
from boosterkit.minigames.referee import GAMES, POLICIES, apply_logged, game_module, new_game
from boosterkit.minigames.referee.common import CardStats, RuleViolation
from boosterkit.minigames.setupfile import SetupFile
from boosterkit.serialize import to_json
from boosterkit.text import plural

if TYPE_CHECKING:
    from boosterkit.database import DbLike
    from boosterkit.minigames.engine import SetupError

#: Moves after which ``simulate`` stops a game that has not ended (reported as unfinished).
MAX_MOVES = 2000


def read_moves(text: str, where: str = "moves") -> list[dict[str, Any]]:
    """The records of a JSON Lines move log (blank lines skipped); ``InputError`` naming the
    line for anything that is not a JSON object."""
    moves = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: line {n}: not valid JSON ({exc})") from exc
        except (RecursionError, ValueError) as exc:  # an integer of more than 4,300 digits too
            raise InputError(f"{where}: line {n}: not a move: {json_reason(exc)}") from None
        if not isinstance(record, dict):
            raise InputError(f"{where}: line {n}: a move is a JSON object")
        moves.append(record)
    return moves


@dataclass
class Replay:
    """A replayed move log: the states after each move, the result or the illegal move."""

    setup: Any  # as given (``new_game`` read it)
    states: list[Any]  # the state before the first move, then after each legal move
    moves: list[dict[str, Any]] = field(default_factory=list)  # as logged
    violation: RuleViolation | None = None

    @property
    def module(self) -> Any:
        return GAMES[self.states[0].table.game]

    @property
    def result(self) -> dict[str, Any] | None:
        return None if self.violation else self.module.result(self.states[-1])

    @property
    def complete(self) -> bool:
        """A complete legal game: every move legal and the game over."""
        return self.violation is None and self.result is not None

    def to_dict(self) -> dict[str, Any]:
        mod, last = self.module, self.states[-1]
        return {
            "minigame": last.table.game,
            "players": len(last.table.players),
            "seed": last.table.seed,
            "start": mod.state_dict(self.states[0]),
            "moves": [
                {"move": n, "played": m, "event": s.event, "state": mod.state_dict(s)}
                for n, (m, s) in enumerate(zip(self.moves, self.states[1:]), 1)
            ],
            "complete": self.complete,
            "result": self.result,
            "violation": self.violation.to_dict() if self.violation else None,
        }

    def text(self) -> str:
        """The state after each move, then the result (or the illegal move)."""
        mod = self.module
        out = ["start", mod.render(self.states[0])]
        for n, s in enumerate(self.states[1:], 1):
            out += [f"move {n}: {s.event}", mod.render(s)]
        out.append(self.outcome())
        return "\n".join(out) + "\n"

    def outcome(self) -> str:
        """The last line of the text: the illegal move, the result, or a game not over."""
        if self.violation:
            v = self.violation
            cards = f" [{', '.join(v.cards)}]" if v.cards else ""
            return f"illegal move {v.move}: {v.rule}: {v.message}{cards}"
        if self.result:
            return describe_result(self.result)
        return f"the game is not over after {plural(len(self.moves), 'move')}"


def describe_result(res: Mapping[str, Any]) -> str:
    """One line: who won, how, after how many turns."""
    who = f"{res['winner']} wins" if res.get("winner") else "a draw"
    line = f"result: {who} ({res['ended_by']}) after {plural(res['turns'], 'turn')}"
    for key in ("initiative", "scores"):
        if key in res:
            line += f"; {key}: " + ", ".join(f"{p} {v}" for p, v in res[key].items())
    return line


def replay(setup: Any, moves: Iterable[Mapping[str, Any]], con: Any = None) -> Replay:
    """Play ``moves`` from ``setup``, stopping at the first illegal move (kept in
    ``violation`` with its 1-based move number). Malformed input is an ``InputError``.

    ``con``: where Base Race reads toughness and loyalty: a ``Database`` (opened only if the
    game reads it), a connection or a ``CardStats``; None for the games that read nothing."""
    if isinstance(con, Database):
        with con.session() as lazy:
            return replay(setup, moves, lazy)
    state = new_game(setup, con)
    rep = Replay(setup=setup, states=[state])
    for n, move in enumerate(moves, 1):
        try:
            state, logged = apply_logged(state, move)
        except RuleViolation as exc:
            exc.move = n
            rep.violation = exc
            break
        except InputError as exc:
            raise InputError(f"move {n}: {exc}") from exc
        rep.states.append(state)
        rep.moves.append(logged)
    return rep


# --- simulation ---------------------------------------------------------------------------


def game_seed(seed: int, index: int) -> int:
    """The seed of setup ``index`` (1-based) of a simulation run with ``seed``."""
    return pack_key(seed, index)


@dataclass
class Game:
    """One simulated game: its index, setup (JSON), logged moves and result."""

    index: int
    seed: int
    setup: SetupFile
    moves: list[dict[str, Any]]
    result: dict[str, Any]


def play_out(
    setup: SetupFile, policy: str, con: Any = None, max_moves: int = MAX_MOVES
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Play ``setup`` (a setup file, as ``Setup.to_dict()`` gives it) to the end with
    ``policy``: the logged moves and the result (``{"finished": false, "ended_by":
    "move-limit"}`` after ``max_moves``)."""
    mod = game_module(setup["minigame"])
    state = mod.start(setup, con)
    rng = Rng(state.table.seed, f"referee/policy/{policy}")
    moves: list[dict[str, Any]] = []
    res = mod.result(state)
    while res is None and len(moves) < max_moves:
        state, logged = apply_logged(state, mod.choose(state, policy, rng))
        moves.append(logged)
        res = mod.result(state)
    if res is None:
        res = {"finished": False, "winner": None, "ended_by": "move-limit", "turns": state.turns}
    return moves, res


def simulate_games(
    db: DbLike,
    game: str,
    players: int,
    set_code: str | None = None,
    product: str | None = None,
    seed: int = 0,
    games: int = 100,
    policy: str = "random",
    max_moves: int = MAX_MOVES,
) -> Iterator[Game | SetupError]:
    """Each simulated game in order, or the error of a setup that could not be dealt (with
    the set and product its packs were opened as). ``db`` as ``deal`` takes it; a path or a
    connection keeps what it derives in a cache of the run's own."""
    mod = _check_run(game, policy, games)
    run = _Run(Database.of(db, cache=Cache()), mod.GAME, players, set_code, product, seed, policy,
               max_moves)  # fmt: skip
    yield from _games(run, range(1, games + 1))


def _check_run(game: str, policy: str, games: int) -> Any:
    """The game's module, once ``policy`` and ``games`` are checked."""
    mod = game_module(game)
    if policy not in POLICIES:
        raise InputError(f"policy: {policy!r} is not one of {', '.join(POLICIES)}", field="policy")
    if games < 1:
        raise InputError(f"games: {games} is out of range (at least 1)", field="games")
    return mod


@dataclass(frozen=True)
class _Run:
    """What every part of a simulation knows (a worker process's ``db`` is the file)."""

    db: Database | Path
    game: str
    players: int
    set_code: str | None
    product: str | None
    seed: int
    policy: str
    max_moves: int
    log_dir: Path | None = None
    width: int = 4  # digits of the log files' game numbers


def _handle(db: Database | Path) -> Database:
    return Database.of(db, cache=Cache())


def _opened(run: _Run) -> _Run:
    """``run`` with its database a handle, kept for all its parts (a worker process
    receives the file)."""
    return run if isinstance(run.db, Database) else dataclasses.replace(run, db=_handle(run.db))


def _games(run: _Run, indices: range) -> Iterator[Game | SetupError]:
    """The games ``indices`` of ``run`` in order (a setup not dealt: its error)."""
    from boosterkit.minigames import SetupError, deal

    database = _handle(run.db)
    with database.session() as con:
        stats = CardStats(con)  # Base Race's toughness, read once per set
        for i in indices:
            s = game_seed(run.seed, i)
            try:
                # the rules text and card facts are kept with the product: read once for all
                setup = deal(database, run.game, run.players, run.set_code, run.product, s)
            except SetupError as exc:
                yield exc
                continue
            data = setup.to_dict()  # the setup file itself: the referee reads it as it is
            moves, res = play_out(data, run.policy, stats, run.max_moves)
            yield Game(i, s, data, moves, res)


def _percentile(values: list[int], p: float) -> int | None:
    """Nearest-rank percentile of sorted ``values``."""
    if not values:
        return None
    return values[max(0, math.ceil(p / 100 * len(values)) - 1)]


def write_game(log_dir: Path, game: Game, width: int) -> None:
    """``game-NNNN.setup.json`` and ``game-NNNN.moves.jsonl`` in ``log_dir``."""
    stem = log_dir / f"game-{game.index:0{width}d}"
    Path(f"{stem}.setup.json").write_text(to_json(game.setup, indent=None) + "\n", encoding="utf-8")
    lines = "".join(to_json(m, indent=None) + "\n" for m in game.moves)
    Path(f"{stem}.moves.jsonl").write_text(lines, encoding="utf-8")


@dataclass
class _Tally:
    """What ``simulate`` counts while the games are played."""

    turns: list[int] = field(default_factory=list)  # of finished games
    wins: dict[str, int] = field(default_factory=dict)  # winner (or "draw") → games
    ended: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)  # setups that could not be dealt
    setup: dict[str, Any] = field(default_factory=dict)  # set and product actually dealt

    def refused(self, exc: SetupError) -> None:
        self.failures.append(str(exc))
        if not self.setup and exc.product is not None:  # until a game is dealt
            self.setup = {"set": exc.set_code, "product": exc.product}

    def add(self, game: Game) -> None:
        res = game.result
        if not self.turns and not self.ended:  # the first game dealt says what was dealt
            self.setup = {"set": game.setup.get("set"), "product": game.setup.get("product")}
        self.ended[res["ended_by"]] = self.ended.get(res["ended_by"], 0) + 1
        if res["finished"]:
            self.turns.append(res["turns"])
            key = res["winner"] or "draw"
            self.wins[key] = self.wins.get(key, 0) + 1

    def merge(self, later: _Tally) -> None:
        """Add the tally of the games after these (as if ``add`` and ``refused`` had gone on)."""
        if not self.ended and (later.ended or not self.setup):  # no game dealt here yet
            self.setup = later.setup or self.setup
        self.turns += later.turns
        for mine, theirs in ((self.wins, later.wins), (self.ended, later.ended)):
            for key, n in theirs.items():
                mine[key] = mine.get(key, 0) + n
        self.failures += later.failures

    def stats(self, players: int) -> dict[str, Any]:
        turns, n = sorted(self.turns), len(self.turns)
        return {
            "finished": n,
            "win_share": {
                f"player-{i}": round(self.wins.get(f"player-{i}", 0) / n, 4) if n else None
                for i in range(1, players + 1)
            },
            "draws": self.wins.get("draw", 0),
            "turns": {
                "mean": round(sum(turns) / n, 2) if n else None,
                "min": turns[0] if n else None,
                "p10": _percentile(turns, 10),
                "p50": _percentile(turns, 50),
                "p90": _percentile(turns, 90),
                "max": turns[-1] if n else None,
            },
            "ended_by": dict(sorted(self.ended.items())),
            "setup_failures": {
                "count": len(self.failures),
                "first": self.failures[0] if self.failures else None,
            },
        }


def _none_dealt(run: _Run, tally: _Tally) -> None:
    """A run that could deal no setup: nothing to play or replay, so it fails, saying why
    (a bad ``--log`` is still the first thing said)."""

    if run.log_dir is not None:
        _check_log_dir(run.log_dir)
    raise SetupError(
        f"simulate: none of the {len(tally.failures)} setups could be dealt, so no game was "
        f"played: {tally.failures[0]}"
    )


def _check_log_dir(log_dir: Path) -> None:
    """``_log_dir``'s refusal of a folder that cannot be made, without making it."""
    at = log_dir
    while not at.exists() and at != at.parent:
        at = at.parent
    if at.exists() and not at.is_dir():
        raise InputError(f"log: {log_dir}: cannot create: Not a directory", field="log")


def _log_dir(log_dir: str | Path) -> Path:
    out = Path(log_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(
            f"log: {log_dir}: cannot create: {exc.strerror or exc}", field="log"
        ) from exc
    return out


#: Games that repay a worker process's start (``simulate``'s ``jobs``): fewer stay in this
#: process (a worker starts in about 0.5 s; 400 games take about 1 s).
SIMULATE_LEAST = 400


def simulate(
    db: DbLike,
    game: str,
    players: int,
    set_code: str | None = None,
    product: str | None = None,
    seed: int = 0,
    games: int = 100,
    policy: str = "random",
    log_dir: str | Path | None = None,
    max_moves: int = MAX_MOVES,
    *,
    jobs: int = 1,
    least: int | None = None,
) -> dict[str, Any]:
    """Deal and play ``games`` games; statistics of how they went (``db`` as
    ``simulate_games`` takes it).

    ``log_dir``: write each setup and move log there (``game-NNNN.setup.json``,
    ``game-NNNN.moves.jsonl``, and ``results.jsonl``), so ``boosterkit play`` replays them;
    the folder is made once the first setup is dealt (bad arguments leave nothing behind).
    ``jobs``: processes (0: one per core) playing parts of the games, their tallies merged
    in order: the same statistics and logs for any ``jobs``. A worker only for each ``least``
    games (default ``SIMULATE_LEAST``), and only for a database file (workers open it).
    """

    mod, jobs = _check_run(game, policy, games), check_jobs(jobs)
    database = Database.of(db, cache=Cache())
    shared = database.shared_file
    workers = 1 if shared is None else workers_for(jobs, games, least or SIMULATE_LEAST)
    where = database if shared is None or workers == 1 else shared  # a worker opens the file
    run = _Run(where, mod.GAME, players, set_code, product, seed, policy, max_moves,
               None if log_dir is None else Path(log_dir), max(4, len(str(games))))  # fmt: skip
    tally, results = _Tally(), []
    parts = split(games, workers * PARTS_PER_WORKER if workers > 1 else 1)
    for part_tally, part_results in map_parts(_play_part, run, parts, workers, _opened):
        tally.merge(part_tally)
        results += part_results
    if games and len(tally.failures) == games:
        _none_dealt(run, tally)
    out_dir = None
    if run.log_dir is not None:
        out_dir = _log_dir(run.log_dir)
        (out_dir / "results.jsonl").write_text("".join(r + "\n" for r in results), encoding="utf-8")
    return {
        "minigame": mod.GAME,
        "players": players,
        "set": tally.setup.get("set", set_code),
        "product": tally.setup.get("product", product),
        "seed": seed,
        "policy": policy,
        "games": games,
        "dealt": games - len(tally.failures),
        **tally.stats(players),
        "log": str(out_dir) if out_dir is not None else None,
    }


def _play_part(run: _Run, indices: range) -> tuple[_Tally, list[str]]:
    """The games ``indices`` of ``run`` played (and logged): their tally and result lines."""
    tally, results, out_dir = _Tally(), [], None
    for g in _games(run, indices):
        if not isinstance(g, Game):
            tally.refused(g)
            continue
        tally.add(g)
        if run.log_dir is not None:
            out_dir = out_dir or _log_dir(run.log_dir)
            write_game(out_dir, g, run.width)
            results.append(
                to_json({"game": g.index, "seed": g.seed, "result": g.result}, indent=None)
            )
    return tally, results


def stats_text(stats: Mapping[str, Any]) -> str:
    """The statistics of ``simulate`` for people."""
    s = stats
    head = (
        f"{s['minigame']}: {s['players']} players, {str(s['set']).upper()} "
        f"({s['product'] or 'default'} boosters), seed {s['seed']}, policy {s['policy']}"
    )
    lines = [head, f"games: {s['games']} dealt: {s['dealt']} finished: {s['finished']}"]
    if s["finished"]:
        shares = ", ".join(f"{p} {v:.1%}" for p, v in s["win_share"].items())
        lines.append(f"win share: {shares}" + (f"; draws {s['draws']}" if s["draws"] else ""))
        t = s["turns"]
        lines.append(
            f"turns: mean {t['mean']}, min {t['min']}, p10 {t['p10']}, median "
            f"{t['p50']}, p90 {t['p90']}, max {t['max']}"
        )
    lines.append("ended by: " + ", ".join(f"{k} {v}" for k, v in s["ended_by"].items()))
    if s["setup_failures"]["count"]:
        f = s["setup_failures"]
        lines.append(f"setups not dealt: {f['count']} (first: {f['first']})")
    if s["log"]:
        lines.append(f"logs: {s['log']} (replay one with `boosterkit play`)")
    return "\n".join(lines) + "\n"
