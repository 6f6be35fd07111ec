"""An independent referee for Roll for Initiative, Base Race and Mimic Match, written by the
issue-30 audit from the printed card text (MAFR #5, MZNR/MKHM #1, MAFR #4) and the rulings
in docs/minigames.md "Rules and rulings"; it imports nothing from boosterkit. Card facts come
from the DuckDB database (cards, card_faces) given to ``use``.

``tests/test_referee_independent.py`` replays ``simulate`` logs through it and requires the
same results as boosterkit's referee (``replay_folder``).
"""

from __future__ import annotations

import glob
import json
import os
import re

_con = None
_cache: dict = {}


def use(con) -> None:
    """Read card facts from ``con`` (a DuckDB connection) from now on."""
    global _con
    _con = con
    _cache.clear()


FRONT_LAYOUTS = {"modal_dfc", "transform", "flip", "meld"}


class Illegal(Exception):
    pass


def card(c: dict) -> dict:
    """Facts of a setup card, from the database (front face of a double-faced card; both
    halves' colours of a split card, its combined mana value)."""
    cid = c.get("card_id")
    if cid in _cache:
        return _cache[cid]
    r = (
        _con.execute(
            "select name, type_line, layout, colors, mana_value, toughness, loyalty from cards where id=?",
            [cid],
        ).fetchone()
        if cid
        else None
    )
    if r is None:
        f = dict(
            name=c.get("name"),
            types="",
            colors=set(),
            mv=None,
            tough=None,
            loyal=None,
            legendary=False,
        )
    else:
        name, tl, layout, colors, mv, tough, loy = r
        colors = set(colors or [])
        front = (tl or "").split(" // ")[0]
        if layout in FRONT_LAYOUTS:
            fr = _con.execute(
                "select type_line, colors, toughness, loyalty from card_faces where card_id=? and face_index=0",
                [cid],
            ).fetchone()
            if fr:
                front, colors, tough, loy = fr[0], set(fr[1] or []), fr[2], fr[3]
        f = dict(
            name=name,
            types=front.split("—")[0],
            colors=colors,
            mv=mv,
            tough=num(tough),
            loyal=num(loy),
            legendary="Legendary" in front.split("—")[0],
        )
    _cache[cid] = f
    return f


def num(s):
    if s is None:
        return None
    m = re.match(r"\d+", str(s))
    return int(m.group()) if m else 0


def zone(setup, name):
    return [z for z in setup["zones"] if z["name"] == name][0]


# ---------------------------------------------------------------- Roll for Initiative ----
def rfi(setup, moves):
    players = [f"player-{i}" for i in range(1, setup["players"] + 1)]
    rolls, tb = setup["rolls"], setup.get("tiebreaks") or {}
    die = {p: (tb[p][-1] if tb.get(p) else rolls[p]) for p in players}
    hands = {p: [c["uid"] for c in zone(setup, f"{p} hand")["cards"]] for p in players}
    cards = {c["uid"]: c for p in players for c in zone(setup, f"{p} hand")["cards"]}
    delta = {p: 0 for p in players}
    # "The player with the lowest starting initiative goes first"; clockwise = seat order
    first = setup["first_player"]
    assert first == min(players, key=lambda p: die[p]), "first player is not the lowest initiative"
    seat = players.index(first)
    turns = 0
    pending_reroll: list[str] = []
    i = 0
    moves = list(moves)
    while any(hands.values()):
        if i >= len(moves):
            raise Illegal("log ends before the game")
        m = moves[i]
        i += 1
        if pending_reroll:
            p = pending_reroll.pop(0)
            if m.get("player") != p or "reroll" not in m:
                raise Illegal(f"move {i}: {p} owes a colourless re-roll answer")
            if m["reroll"]:
                d = m["die"]
                chk(d)
                die[p] = d  # "if they do, they must use the new result"
            continue
        p = players[seat]
        if m.get("player") != p:
            raise Illegal(f"move {i}: not {m.get('player')}'s turn ({p})")
        uid = m["card"]
        if uid not in hands[p]:
            raise Illegal(f"move {i}: {uid} not in {p}'s hand")
        hands[p].remove(uid)
        turns += 1
        if m.get("face_down"):
            (e,) = m["effects"]
            if e["delta"] not in (1, -1) or e["target"] not in players:
                raise Illegal(f"move {i}: face-down effect {e}")
            delta[e["target"]] += e["delta"]
        else:
            cols = card(cards[uid])["colors"]
            effs = m.get("effects") or []
            if not cols:
                if effs:
                    raise Illegal(f"move {i}: colourless card with effects")
                # "Each player may reroll their die": each in turn from the player who played it
                pending_reroll = players[seat:] + players[:seat]
            else:
                if sorted(e["color"] for e in effs) != sorted(cols):
                    raise Illegal(f"move {i}: effects {effs} != card colours {sorted(cols)}")
                for e in effs:  # in the order the player listed them
                    c, t = e["color"], e.get("target", p)
                    if t not in players:
                        raise Illegal(f"move {i}: target {t}")
                    if c == "W":
                        delta[t] += 2
                    elif c == "B":
                        delta[t] -= 2
                    elif c == "U":
                        if t == p:
                            raise Illegal(f"move {i}: blue targets another player")
                        d = e["die"]
                        chk(d)
                        if d < die[t]:
                            die[t] = d
                    elif c == "R":
                        if t == p:
                            raise Illegal(f"move {i}: red targets another player")
                        d = e["die"]
                        chk(d)
                        die[t] = d
                    elif c == "G":
                        if t != p:
                            raise Illegal(f"move {i}: green re-rolls your own die")
                        d = e["die"]
                        chk(d)
                        if d > die[p]:
                            die[p] = d
        seat = (seat + 1) % len(players)
        if pending_reroll:
            continue
    # trailing re-roll answers after the last card
    while pending_reroll:
        if i >= len(moves):
            raise Illegal("log ends before the re-rolls")
        m = moves[i]
        i += 1
        p = pending_reroll.pop(0)
        if m.get("player") != p or "reroll" not in m:
            raise Illegal(f"move {i}: {p} owes a re-roll answer")
        if m["reroll"]:
            chk(m["die"])
            die[p] = m["die"]
    init = {p: die[p] + delta[p] for p in players}
    top = max(init.values())
    tied = [p for p in players if init[p] == top]
    ended = "highest-initiative"
    while len(tied) > 1:  # "In case of a tie, the tied players roll again"
        if i >= len(moves):
            raise Illegal("log ends before the roll-off")
        m = moves[i]
        i += 1
        if not m.get("roll_off"):
            raise Illegal(f"move {i}: a roll-off is due")
        dice = m["dice"]
        if sorted(dice) != sorted(tied):
            raise Illegal(f"move {i}: roll-off by {sorted(dice)}, tied {tied}")
        for d in dice.values():
            chk(d)
        hi = max(dice.values())
        tied = [p for p in tied if dice[p] == hi]
        ended = "roll-off"
    if i != len(moves):
        raise Illegal(f"{len(moves) - i} moves after the end")
    return dict(winner=tied[0], ended_by=ended, turns=turns, initiative=init, dice=die)


def chk(d):
    if not (isinstance(d, int) and 1 <= d <= 20):
        raise Illegal(f"die {d}")


# ---------------------------------------------------------------- Base Race --------------
FILES = "abcd"


def square(player, k):
    if player == "player-1":
        return f"{FILES[k % 4]}{1 + k // 4}"
    return f"{FILES[3 - k % 4]}{6 - k // 4}"


def kind(f):
    t = f["types"]
    if "Land" in t:
        return "land"
    if any(w in t for w in ("Instant", "Sorcery", "Enchantment")):
        return "spell"  # "discard both revealed cards"; an enchantment creature is an enchantment
    if "Creature" in t:
        return "creature"
    if "Planeswalker" in t:
        return "planeswalker"
    if "Artifact" in t:
        return "artifact"
    return "spell"  # a type the card does not name: discarded as an instant would be


def base_race(setup, moves):
    board = {}  # square -> uid
    owner, facts = {}, {}
    for p in ("player-1", "player-2"):
        z = zone(setup, f"{p} grid")
        for k, c in enumerate(z["cards"]):
            board[square(p, k)] = c["uid"]
            owner[c["uid"]] = p
            facts[c["uid"]] = card(c)
    pos = {u: s for s, u in board.items()}
    other = {"player-1": "player-2", "player-2": "player-1"}
    extras: list[str] = []  # owed extra turns, the most recent first (Magic's rule)
    normal_next = None  # who takes the next normal turn (None: either may start)
    turns = 0
    passes = 0
    for i, m in enumerate(moves, 1):
        p = m["player"]
        if extras:
            due = extras.pop(0)
        else:
            due = normal_next or p
            normal_next = other[due]
        if p != due:
            raise Illegal(f"move {i}: {p} moved, {due} was due")
        if "pass" in m:
            if legal_moves(board, owner, pos, p):
                raise Illegal(f"move {i}: {p} passes with a legal move")
            passes += 1
            if passes == 2:
                rest = len(moves) - i
                if rest:
                    raise Illegal(f"{rest} moves after the end")
                return dict(
                    winner=None, ended_by="no-moves", turns=turns, cards_left=left(owner, pos)
                )
            continue
        passes = 0
        u, to = m["card"], m["to"]
        if owner.get(u) != p or u not in pos:
            raise Illegal(f"move {i}: {u} is not {p}'s card on the board")
        fr = pos[u]
        if not adjacent(fr, to):
            raise Illegal(f"move {i}: {fr}->{to} is not one space orthogonally")
        turns += 1
        if to not in board:
            del board[fr]
            board[to] = u
            pos[u] = to
        else:
            d = board[to]
            if owner[d] == p:
                raise Illegal(f"move {i}: onto own card")
            a_f, d_f = facts[u], facts[d]
            ka, kd = kind(a_f), kind(d_f)
            # "When a Land is revealed in battle, its owner loses the game. When one Land attacks
            # another, the attacking land wins the game."
            if ka == "land" and kd == "land":
                return end(moves, i, p, "land-attacks-land", turns, owner, pos)
            if ka == "land":
                return end(moves, i, other[p], "land-revealed", turns, owner, pos)
            if kd == "land":
                return end(moves, i, p, "land-revealed", turns, owner, pos)
            gone = set()
            extra = []
            if ka == "spell" or kd == "spell":
                gone = {u, d}
                # "(Other effects still happen.)": an artifact's owner takes its extra turn
                if ka == "artifact" and kd == "artifact":
                    extra = [p]
                elif ka == "artifact":
                    extra = [p]
                elif kd == "artifact":
                    extra = [other[p]]
            elif ka == "artifact" or kd == "artifact":
                if ka == "artifact" and kd == "artifact":
                    gone = {u, d}
                    extra = [p]  # "only the attacker gets the extra turn"
                elif ka == "artifact":
                    gone = {u}
                    extra = [p]
                else:
                    gone = {d}
                    extra = [other[p]]
            else:  # creature / planeswalker battle
                gone = {battle(a_f, d_f, ka, kd, u, d)}
            for g in gone:
                del board[pos[g]]
                del pos[g]
            if u not in gone and d in gone:
                del board[fr]
                board[to] = u
                pos[u] = to
            # Magic's rule: the most recent extra turn first, right after the turn that earned it
            extras[:0] = extra
    raise Illegal("log ends before the game")


def battle(a, d, ka, kd, ua, ud):
    """The loser's uid. Creatures: higher toughness wins, a tie the attacker. Legendary
    creatures/planeswalkers beat nonlegendary creatures; among them toughness or loyalty."""
    big_a = ka == "planeswalker" or a["legendary"]
    big_d = kd == "planeswalker" or d["legendary"]
    if big_a and not big_d:
        return ud
    if big_d and not big_a:
        return ua
    va = (a["loyal"] if ka == "planeswalker" else a["tough"]) or 0
    vd = (d["loyal"] if kd == "planeswalker" else d["tough"]) or 0
    return ud if va >= vd else ua


def adjacent(a, b):
    if not re.fullmatch(r"[a-d][1-6]", b or ""):
        return False
    return abs(ord(a[0]) - ord(b[0])) + abs(int(a[1]) - int(b[1])) == 1


def legal_moves(board, owner, pos, p):
    for u, s in pos.items():
        if owner[u] != p:
            continue
        for f, r in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            t = f"{chr(ord(s[0]) + f)}{int(s[1]) + r}"
            if re.fullmatch(r"[a-d][1-6]", t) and not (t in board and owner[board[t]] == p):
                return True
    return False


def left(owner, pos):
    return {p: sum(1 for u in pos if owner[u] == p) for p in ("player-1", "player-2")}


def end(moves, i, winner, how, turns, owner, pos):
    if len(moves) != i:
        raise Illegal(f"{len(moves) - i} moves after the end")
    return dict(winner=winner, ended_by=how, turns=turns, cards_left=left(owner, pos))


# ---------------------------------------------------------------- Mimic Match ------------
def mimic_match(setup, moves):
    players = [f"player-{i}" for i in range(1, setup["players"] + 1)]
    grid = [c["uid"] for c in zone(setup, "grid")["cards"]]
    deck = [c["uid"] for c in zone(setup, "deck")["cards"]]
    allc = {c["uid"]: c for z in ("grid", "deck") for c in zone(setup, z)["cards"]}
    tagged = {u for u, c in allc.items() if c.get("tag") == "mimic"}
    mimics = tagged or {u for u, c in allc.items() if "Land" in card(c)["types"]}
    assert len(mimics) == 2, mimics
    cells = list(grid)
    got = {p: [] for p in players}
    seat = players.index(setup["first_player"])
    turns = 0
    for i, m in enumerate(moves, 1):
        p = players[seat]
        if "winner" in m:
            raise Illegal(f"move {i}: no tie to settle")
        if m["player"] != p:
            raise Illegal(f"move {i}: not {m['player']}'s turn ({p})")
        a, b = m["cells"]
        if (
            a == b
            or not (1 <= a <= 16 and 1 <= b <= 16)
            or cells[a - 1] is None
            or cells[b - 1] is None
        ):
            raise Illegal(f"move {i}: cells {a},{b}")
        ua, ub = cells[a - 1], cells[b - 1]
        if "cards" in m and m["cards"] != [ua, ub]:
            raise Illegal(f"move {i}: cards {m['cards']} are not at the cells")
        turns += 1
        if m.get("take"):
            if not matches(allc[ua], allc[ub], mimics):
                raise Illegal(f"move {i}: {ua},{ub} do not match")
            got[p] += [ua, ub]
            if {ua, ub} == mimics:
                scores = {q: len(got[q]) + (2 if q == p else 0) for q in players}
                top = max(scores.values())
                tied = [q for q in players if scores[q] == top]
                rest = moves[i:]
                if len(tied) == 1:
                    if rest:
                        raise Illegal(f"{len(rest)} moves after the end")
                    return dict(
                        winner=tied[0],
                        ended_by="mimics-uncovered",
                        turns=turns,
                        scores=scores,
                        finder=p,
                    )
                # "If there is a tie, the player who uncovered the mimics decides who wins!"
                if (
                    len(rest) != 1
                    or rest[0].get("player") != p
                    or rest[0].get("winner") not in tied
                ):
                    raise Illegal(f"move {i + 1}: the finder {p} must choose among {tied}")
                return dict(
                    winner=rest[0]["winner"],
                    ended_by="finder-decided",
                    turns=turns,
                    scores=scores,
                    finder=p,
                )
            # "replace the empty spaces with two new cards from the deck, face down"
            holes = sorted([a, b])
            refill = m.get("refill")
            for h in holes:
                if deck:
                    nxt = deck.pop(0)
                    if refill is not None:
                        want = refill[holes.index(h)] if holes.index(h) < len(refill) else None
                        if want != nxt:
                            if want in deck:
                                deck.remove(want)
                                deck.insert(0, nxt)
                                nxt = want
                            else:
                                raise Illegal(f"move {i}: refill {want} not from the deck")
                    cells[h - 1] = nxt
                else:
                    cells[h - 1] = None
            continue  # "then take another turn"
        seat = (seat + 1) % len(players)
    raise Illegal("log ends before the game")


def matches(a, b, mimics):
    ua, ub = a["uid"], b["uid"]
    if ua in mimics or ub in mimics:
        return ua in mimics and ub in mimics  # "mimics can only be matched with each other"
    fa, fb = card(a), card(b)
    if fa["colors"] & fb["colors"]:
        return True
    if not fa["colors"] and not fb["colors"]:
        return True  # "Colorless cards can be matched with other colorless cards"
    return fa["mv"] is not None and fa["mv"] == fb["mv"]


GAMES = {"roll-for-initiative": rfi, "base-race": base_race, "mimic-match": mimic_match}


def compare(mine, theirs):
    diffs = []
    for k, v in mine.items():
        if k == "dice" and "dice" not in theirs:
            continue
        if theirs.get(k) != v:
            diffs.append(f"{k}: mine {v} theirs {theirs.get(k)}")
    if not theirs.get("finished", True):
        diffs.append("theirs unfinished")
    return diffs


def replay_folder(folder) -> tuple[int, list[str]]:
    """Replay every logged game of ``folder`` (``simulate --log``): how many, and each
    disagreement with its ``results.jsonl`` in one line."""
    res = {}
    for line in open(os.path.join(folder, "results.jsonl")):
        r = json.loads(line)
        res[r["game"]] = r["result"]
    out, games = [], sorted(glob.glob(os.path.join(folder, "game-*.setup.json")))
    for sf in games:
        n = int(re.search(r"game-(\d+)", sf).group(1))
        setup = json.load(open(sf))
        moves = [
            json.loads(x) for x in open(sf.replace(".setup.json", ".moves.jsonl")) if x.strip()
        ]
        try:
            diffs = compare(GAMES[setup["minigame"]](setup, moves), res[n])
        except Illegal as e:
            diffs = [f"illegal by the independent referee: {e}"]
        if diffs:
            out.append(f"{sf}: " + "; ".join(diffs))
    return len(games), out
