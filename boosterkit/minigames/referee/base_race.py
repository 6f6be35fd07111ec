"""Base Race (MZNR #1, MKHM #1), refereed from a dealt setup.

The board is the two 4×3 grids facing each other: squares ``a1``–``d6``, files a–d from
player-1's left, ranks 1–6 from player-1's back row. A player's grid is read in row order
from their own back-left corner: player-1's grid row 1 is rank 1, player-2's is rank 6
(seen from the other side of the table, so their column 1 is file d).

The card, as printed, is quoted beside the code that applies it. Rulings where it is silent:

- the setup names no first player ("The first player to finish their grid goes first"):
  either player may make the first move;
- an attacker that wins (or whose opponent's card is discarded) moves onto the square;
- a revealed card that stays on the board stays face up;
- an enchantment creature is an enchantment (both are discarded); an artifact creature is a
  creature, as the card says; a card of no type the card names (a battle, an unknown card)
  is discarded with the other card, as an instant would be;
- a player whose cards cannot move passes; if neither can, the game is a draw;
- when an owed extra turn is taken is not written on the card: Magic's own rule, the most
  recent extra turn first, right after the turn that earned it (``_after``): the attacker's
  at once, the defender's right after the attacker's turn, then their own (two in a row).
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
from boosterkit.minigames.referee.moves import Pass, Step, keys
from boosterkit.minigames.setupfile import SetupFile

GAME = "base-race"
FILES, RANKS = "abcd", 6
SPELLS = ("Instant", "Sorcery", "Enchantment")


def square(index: int) -> str:
    """``a1``… for a board index (rank * 4 + file)."""
    return f"{FILES[index % 4]}{index // 4 + 1}"


SQUARES = tuple(square(i) for i in range(24))
_INDEX = {name: i for i, name in enumerate(SQUARES)}


def index_of(name: Any) -> int:
    """The board index of a square name; ``InputError`` for anything else."""
    if isinstance(name, str) and name in _INDEX:
        return _INDEX[name]
    raise InputError(f"move: 'to' must be a square a1-d6, got {name!r}")


def _neighbours(index: int) -> list[int]:
    r, f = divmod(index, 4)
    out = []
    for dr, df in ((1, 0), (-1, 0), (0, 1), (0, -1)):  # "vertically or horizontally"
        if 0 <= r + dr < RANKS and 0 <= f + df < 4:
            out.append((r + dr) * 4 + f + df)
    return out


NEIGHBOURS = tuple(tuple(_neighbours(i)) for i in range(24))


# --- the battle ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Battle:
    """What a battle does: who keeps their card, who takes an extra turn, who wins the game.

    ``winner`` is ``"attacker"``/``"defender"`` when a land ends the game; ``extra_turn``
    names the side whose owner takes an extra turn; ``rule`` is the card line applied.
    """

    attacker_stays: bool
    defender_stays: bool
    extra_turn: str | None = None
    winner: str | None = None
    rule: str = ""


def _kind(card: Card) -> str:
    if card.has("Land"):
        return "land"
    if any(card.has(t) for t in SPELLS):
        return "spell"
    if card.has("Creature") or card.has("Planeswalker"):
        return "fighter"
    if card.has("Artifact"):
        return "artifact"
    return "spell"  # ruling: no type the card names (battle, unknown card) goes as a spell


def _rank(card: Card) -> tuple[int, int]:
    """(legendary creature or planeswalker?, toughness or loyalty)."""
    top = card.has("Planeswalker") or card.legendary
    value = card.toughness if card.has("Creature") else card.loyalty
    return (1 if top else 0), value or 0


def battle(attacker: Card, defender: Card) -> Battle:
    """The outcome of ``attacker`` moving onto ``defender`` (both revealed). Pure."""
    a, d = _kind(attacker), _kind(defender)
    if a == "land" and d == "land":  # "When one Land attacks another, the attacking land wins"
        return Battle(True, True, winner="attacker", rule="land-attacks-land")
    if "land" in (a, d):  # "When a Land is revealed in battle, its owner loses the game."
        return Battle(
            True, True, winner="defender" if a == "land" else "attacker", rule="land-revealed"
        )
    # "If one of the revealed cards is an Artifact, the player who owns it discards it and
    # takes an extra turn. If both revealed cards are Artifacts, only the attacker gets the
    # extra turn."
    extra = "attacker" if a == "artifact" else "defender" if d == "artifact" else None
    if "spell" in (a, d):  # "discard both revealed cards. (Other effects still happen.)"
        return Battle(False, False, extra_turn=extra, rule="instant-sorcery-enchantment")
    if extra:
        return Battle(a != "artifact", d != "artifact", extra_turn=extra, rule="artifact")
    ra, rd = _rank(attacker), _rank(defender)
    # "Legendary Creatures/Planeswalkers always win against nonlegendary creatures." and
    # "the card with the higher toughness wins … If they tie, the attacker wins."
    rule = "legendary" if ra[0] != rd[0] else ("toughness-or-loyalty" if ra[0] else "toughness")
    wins = ra >= rd
    return Battle(wins, not wins, rule=rule)


# --- the game -----------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    table: Table
    board: tuple[str | None, ...]  # 24 squares, rank * 4 + file
    owner: Mapping[str, int]
    kinds: Mapping[str, str]  # land | spell | fighter | artifact, by uid (static)
    face_up: frozenset[str] = frozenset()
    discard: tuple[str, ...] = ()
    to_move: int | None = None  # None: either player may start
    #: seats owed an extra turn, the most recent last (taken first: Magic's rule)
    owed: tuple[int, ...] = ()
    on_extra: bool = False  # the turn being taken is an extra turn
    regular: int | None = None  # whose regular turn comes once no extra turn is owed
    turns: int = 0
    passes: int = 0  # consecutive passes
    winner: int | None = None
    ended_by: str | None = None
    event: str = ""

    @property
    def over(self) -> bool:
        return self.ended_by is not None


def start(setup: SetupFile, con: Any = None) -> State:
    """The board at the first move; toughness and loyalty come from the database ``con``
    (or from ``toughness``/``loyalty`` fields on the setup's items)."""
    table = make_table(setup, GAME, con, need_stats=True, play_zones=lambda z: z.endswith(" grid"))
    if len(table.players) != 2:
        raise InputError(f"setup: {GAME} is for 2 players, the setup has {len(table.players)}")
    board: list[str | None] = [None] * 24
    owner: dict[str, int] = {}
    for seat, p in enumerate(table.players):
        for k, uid in enumerate(zone(table, f"{p} grid", 12)):
            r, c = divmod(k, 4)
            index = r * 4 + c if seat == 0 else (5 - r) * 4 + (3 - c)
            board[index] = uid
            owner[uid] = seat
    for uid in owner:
        card = table.cards[uid]
        if (card.has("Creature") and card.toughness is None) or (
            card.has("Planeswalker") and not card.has("Creature") and card.loyalty is None
        ):
            raise InputError(
                f"setup: {card.label} is not in the database, so its toughness or "
                "loyalty is unknown; import its set"
            )
    lands = [sum(1 for u in owner if owner[u] == s and table.cards[u].has("Land")) for s in (0, 1)]
    if lands != [1, 1]:
        raise InputError(f"setup: each Base Race grid holds one land, these hold {lands}")
    first = table.players.index(table.first_player) if table.first_player else None
    kinds = {u: _kind(table.cards[u]) for u in owner}
    return State(table=table, board=tuple(board), owner=owner, kinds=kinds, to_move=first)


def _moves_of(state: State, seat: int) -> list[dict[str, Any]]:
    me, board, owner = state.table.players[seat], state.board, state.owner
    out = []
    for i, uid in enumerate(board):
        if uid is None or owner[uid] != seat:
            continue
        for j in NEIGHBOURS[i]:
            other = board[j]
            if other is None or owner[other] != seat:
                out.append({"player": me, "card": uid, "to": SQUARES[j]})
    return out


def legal_moves(state: State) -> list[dict[str, Any]]:
    """Every legal move of the player to move (of both players before the first move)."""
    if state.over:
        return []
    seats = (0, 1) if state.to_move is None else (state.to_move,)
    out = [m for s in seats for m in _moves_of(state, s)]
    if not out and state.to_move is not None:
        return [{"player": state.table.players[state.to_move], "pass": True}]
    return out


def _after(state: State, seat: int, gained: str | None) -> dict[str, Any]:
    """Who moves after ``seat`` (and ``gained``, the battle side owed an extra turn): the
    most recently owed extra turn first, right after the turn that earned it; then the
    regular turns go on alternating (after an extra turn, the regular turn it interrupted)."""
    owed = state.owed + ((seat if gained == "attacker" else 1 - seat,) if gained else ())
    regular = state.regular if state.on_extra and state.regular is not None else 1 - seat
    if owed:
        return {"owed": owed[:-1], "to_move": owed[-1], "on_extra": True, "regular": regular}
    return {"owed": (), "to_move": regular, "on_extra": False, "regular": regular}


def apply(state: State, move: Mapping[str, Any]) -> State:
    """The state after ``move``; ``RuleViolation`` if it is illegal."""
    only(move, keys(Step, Pass))
    if state.over:
        raise RuleViolation("game-over", "the game is over; no more moves")
    players = state.table.players
    seat = state.table.seat(need(move, "player", str))
    if state.to_move is not None and seat != state.to_move:
        raise RuleViolation("not-your-turn", f"it is {players[state.to_move]}'s turn")
    if "pass" in move:
        not_applicable(move, keys(Pass), "move", "to a pass")
        if move["pass"] is not True:
            raise InputError("move: 'pass' is true (a player who moves names a card and 'to')")
        if _moves_of(state, seat):
            raise RuleViolation("must-move", f"{players[seat]} has a legal move and cannot pass")
        passes = state.passes + 1
        state = evolve(
            state,
            passes=passes,
            turns=state.turns + 1,
            event=f"{players[seat]} cannot move and passes",
        )
        if passes >= 2:
            return evolve(state, ended_by="no-moves")
        return evolve(state, **_after(state, seat, None))
    uid = need(move, "card", str)
    to = index_of(move.get("to"))
    if uid not in state.board:
        raise RuleViolation("card-not-on-board", f"{_label(state, uid)} is not on the board", [uid])
    if state.owner[uid] != seat:
        raise RuleViolation("not-your-card", f"{uid} belongs to {players[state.owner[uid]]}", [uid])
    at = state.board.index(uid)
    if to not in NEIGHBOURS[at]:  # "one space either vertically or horizontally"
        raise RuleViolation(
            "one-space",
            f"{uid} on {square(at)} cannot reach {square(to)}: "
            "one space, vertically or horizontally",
            [uid],
        )
    target = state.board[to]
    if target is not None and state.owner[target] == seat:  # "not onto … another card they own"
        raise RuleViolation(
            "onto-own-card",
            f"{square(to)} holds {_label(state, target)}, {players[seat]}'s own card",
            [uid, target],
        )
    if target is None:  # "move a card safely onto an empty space"
        board = list(state.board)
        board[at], board[to] = None, uid
        return evolve(
            state,
            board=tuple(board),
            turns=state.turns + 1,
            passes=0,
            event=f"{players[seat]} moves {uid} {SQUARES[at]} → {SQUARES[to]}",
            **_after(state, seat, None),
        )
    return _battle(evolve(state, turns=state.turns + 1, passes=0), seat, uid, target, at, to)


def _battle(state: State, seat: int, uid: str, target: str, at: int, to: int) -> State:
    cards, players = state.table.cards, state.table.players
    out = battle(cards[uid], cards[target])
    board, gone = list(state.board), []
    if not out.attacker_stays:
        board[at] = None
        gone.append(uid)
    if not out.defender_stays:
        board[to] = None
        gone.append(target)
        if out.attacker_stays:
            board[at], board[to] = None, uid
    face_up = state.face_up | {c for c in (uid, target) if c not in gone}
    text = (
        f"{players[seat]} attacks {cards[target].label} on {square(to)} with "
        f"{cards[uid].label}: {out.rule}"
    )
    text += f"; discarded {', '.join(gone)}" if gone else ""
    state = evolve(
        state, board=tuple(board), face_up=face_up, discard=state.discard + tuple(gone), event=text
    )
    if out.winner:
        win = seat if out.winner == "attacker" else 1 - seat
        return evolve(
            state, winner=win, ended_by=out.rule, to_move=None, event=f"{text}; {players[win]} wins"
        )
    if out.extra_turn:
        who = seat if out.extra_turn == "attacker" else 1 - seat
        text += f"; {players[who]} takes an extra turn"
    return evolve(state, event=text, **_after(state, seat, out.extra_turn))


def _label(state: State, uid: str) -> str:
    card = state.table.cards.get(uid)
    return card.label if card else uid


def result(state: State) -> dict[str, Any] | None:
    """None while the game goes on; else the winner (None for a draw) and how it ended."""
    if not state.over:
        return None
    players = state.table.players
    left = {
        p: sum(1 for u in state.board if u and state.owner[u] == s) for s, p in enumerate(players)
    }
    return {
        "finished": True,
        "winner": None if state.winner is None else players[state.winner],
        "ended_by": state.ended_by,
        "turns": state.turns,
        "cards_left": left,
    }


def state_dict(state: State) -> dict[str, Any]:
    """The board as JSON: each occupied square's card, owner and whether it is face up."""
    players = state.table.players
    board = {
        square(i): {"card": u, "owner": players[state.owner[u]], "face_up": u in state.face_up}
        for i, u in enumerate(state.board)
        if u
    }
    return {
        "to_move": None if state.over or state.to_move is None else players[state.to_move],
        "board": board,
        "discard": list(state.discard),
        "turns": state.turns,
    }


def render(state: State) -> str:
    """The board, rank 6 on top: ``1`` / ``2`` for each player's face-down cards, the card
    name (shortened) for face-up ones."""
    lines = []
    for r in range(RANKS - 1, -1, -1):
        cells = []
        for f in range(4):
            u = state.board[r * 4 + f]
            if u is None:
                cells.append(".".center(14))
            else:
                who = str(state.owner[u] + 1)
                name = (state.table.cards[u].name or u)[:11] if u in state.face_up else "?"
                cells.append(f"{who}:{name}".center(14))
        lines.append(f"  {r + 1} " + "".join(cells).rstrip())
    lines.append("    " + "".join(f.center(14) for f in FILES).rstrip())
    return "\n".join(lines)


# --- policies (simulation) ---------------------------------------------------------------

_STEPS = tuple(
    tuple(abs(i // 4 - j // 4) + abs(i % 4 - j % 4) for j in range(24)) for i in range(24)
)


def _distance(opponents: list[int], index: int) -> int:
    """Steps from square ``index`` to the nearest of the ``opponents``' squares."""
    steps = _STEPS[index]
    return min((steps[o] for o in opponents), default=0)


class _Near(dict[int, int]):
    """Square → steps to the nearest of ``opponents``, computed when first asked."""

    def __init__(self, opponents: list[int]) -> None:
        super().__init__()
        self.opponents = opponents

    def __missing__(self, index: int) -> int:
        value = self[index] = _distance(self.opponents, index)
        return value


def _score(state: State, pos: Mapping[str, int], near: dict[int, int], uid: str, to: int) -> float:
    """The greedy player's value of moving ``uid`` to square ``to``, from its own cards and
    the face-up ones. ``pos``: the mover's cards' squares; ``near``: the distance from a
    square to the nearest opponent card (filled as needed)."""
    kind = state.kinds[uid]
    at = pos[uid]
    target = state.board[to]
    # a land alone can only win by attacking (while other cards are left to fight, the land
    # keeps away from the opponent's cards)
    alone = kind == "land" and len(pos) == 1
    if target is None:  # close in on the opponent's cards
        closer = near[at] - near[to]
        return -10.0 - closer if kind == "land" and not alone else 1.0 + closer
    if kind == "land":
        return 50.0 if alone else -100.0
    if target in state.face_up:
        out = battle(state.table.cards[uid], state.table.cards[target])
        return 30.0 if out.attacker_stays else -5.0
    if kind == "fighter":
        top, value = _rank(state.table.cards[uid])
        return 5.0 + 10 * top + value
    return 4.0 if kind == "artifact" else 3.0


def choose(state: State, policy: str, rng: Rng) -> dict[str, Any]:
    """A move by ``policy``: ``random`` (uniform over legal moves) or ``greedy`` (attack with
    the strongest card, never with the land; otherwise close in on the opponent's cards
    while the land keeps away)."""
    seat = state.to_move
    if seat is None:  # "The first player to finish their grid goes first."
        seat = rng.below(2)
        state = evolve(state, to_move=seat)
    if policy == "random":
        return rng.choose(legal_moves(state))
    board = state.board
    pos = {u: i for i, u in enumerate(board) if u is not None and state.owner[u] == seat}
    near = _Near([i for i, u in enumerate(board) if u is not None and state.owner[u] != seat])
    best, options = None, []
    for uid, at in pos.items():  # the legal moves, scored without building each one
        for to in NEIGHBOURS[at]:
            there = board[to]
            if there is not None and state.owner[there] == seat:
                continue
            score = _score(state, pos, near, uid, to)
            if best is None or score > best:
                best, options = score, [(uid, to)]
            elif score == best:
                options.append((uid, to))
    if not options:
        return {"player": state.table.players[seat], "pass": True}
    uid, to = rng.choose(options)  # in legal_moves' order: board order, then NEIGHBOURS
    return {"player": state.table.players[seat], "card": uid, "to": SQUARES[to]}
