"""An independent line-by-line check of minigame setups against each card's printed GET READY
text, written by the issue-30 audit. It reads only a setup's JSON (``deal --json``) and card
facts from the DuckDB database given to ``use`` (cards table); it imports nothing of
boosterkit. ``check(setup)`` lists (rule, message) for every printed line a setup breaks.
``tests/test_minigames_independent.py`` runs it over dealt setups of all 28 games.
"""

from __future__ import annotations

import collections

# layouts whose back is not a Magic card back (another face, or no Magic back at all)
NON_MAGIC_BACK_LAYOUTS = {
    "transform",
    "modal_dfc",
    "meld",
    "reversible_card",
    "double_faced_token",
    "art_series",
    "token",
    "emblem",
}
NMB_KINDS = {"token", "art_card", "minigame", "ad", "emblem", "other"}
BASIC_NAMES = {"Plains", "Island", "Swamp", "Mountain", "Forest"}

# ---- what each card says ------------------------------------------------------------------
# games whose card removes/sets aside "cards without Magic (card) backs"
REMOVES_NMB = {
    "base-race",
    "booster-sleuth",
    "careful-study",
    "day-vs-night",
    "demons-due",
    "find-the-assassin",
    "foraging-squirrels",
    "into-the-story-assassin-edition",
    "mimic-match",
    "mini-master",
    "mishras-manufactory",
    "roil-royale",
    "roll-for-initiative",
    "sharkeys-tithe",
    "strictly-better",
    "telepathic-transmission",
    "totally-lost-in-translation",
    "urzas-blueprints",
    "vampire-wedding-planner",
}
# zones that lie face down at setup (from the printed text)
FACE_DOWN = {
    "base-race": lambda z: z["kind"] == "grid",  # "arranges them face down in a 4x3 grid"
    "beyond-booster-blitz": lambda z: z["kind"] == "pile",  # "three face-down piles"
    "booster-blitz": lambda z: z["kind"] == "pile",  # "four face-down piles"
    "careful-study": lambda z: z["kind"] == "selected",  # "puts it face down on the table"
    "cyber-simulacrum": lambda z: z["kind"] == "hand",  # "Deal one card face down to each player"
    "demons-due": lambda z: z["kind"] == "deck",  # "their face-down deck"
    "find-the-assassin": lambda z: z["kind"] == "pile",  # "turn the two piles face down"
    "into-the-story-assassin-edition": lambda z: (
        z["kind"] == "pile"
    ),  # "place each of them face down"
    "into-the-story-horror-edition": lambda z: (
        z["kind"] == "pile"
    ),  # "place each of them face down"
    "look-at-us-were-r-d": lambda z: z["kind"] == "deck",  # shuffled pack, cards drawn at random
    "mimic-match": lambda z: z["kind"] in ("grid", "deck"),  # "Deal 16 cards face down"
    "mini-master": lambda z: z["kind"] == "deck",  # a Magic library
    "mishras-manufactory": lambda z: z["kind"] == "deck",  # the deck the belt is revealed from
    "roil-royale": lambda z: z["name"] == "table",  # "place all the cards face down"
    "sharkeys-tithe": lambda z: z["kind"] == "deck",  # "their face-down deck"
    "totally-lost-in-translation": lambda z: z["kind"] == "deck",  # "a face down deck"
    "urzas-blueprints": lambda z: z["kind"] == "deck",  # "Shuffle the remaining cards into a deck"
    "vampire-wedding-planner": lambda z: z["kind"] == "deck",  # face-down stack
    "winchester-draft": lambda z: z["kind"] == "deck",  # "Place the stack face down"
}
# zones whose cards the card lets a player put face down later
LATER_FACE_DOWN = {
    "roll-for-initiative": lambda z: z["kind"] == "hand",  # "Any Card Played Face Down"
    "day-vs-night": lambda z: z["kind"] == "hand",  # "place their picked cards in a face down row"
    "strictly-better": lambda z: (
        z["kind"] == "hand"
    ),  # "secretly submit a card" ... "reveal each card"
    "demons-due": lambda z: z["kind"] == "deck",  # "place two cards ... face down"
    "sharkeys-tithe": lambda z: z["kind"] == "deck",
}

_con = None
_facts: dict[str, dict] = {}


def use(connection) -> None:
    """Read card facts from ``connection`` (a DuckDB connection) from now on."""
    global _con
    _con = connection
    _facts.clear()


def con():
    return _con


def fact(card_id):
    if card_id is None:
        return None
    if card_id not in _facts:
        r = (
            con()
            .execute(
                "select name, type_line, layout, kind, colors, mana_value, rarity, watermark, toughness, loyalty "
                "from cards where id = ?",
                [card_id],
            )
            .fetchone()
        )
        if r is None:
            _facts[card_id] = None
        else:
            name, tl, layout, kind, colors, mv, rarity, wm, tough, loy = r
            front = (tl or "").split(" // ")[0]
            _facts[card_id] = dict(
                name=name,
                type_line=tl,
                front=front,
                layout=layout,
                kind=kind,
                colors=list(colors or []),
                mv=mv,
                rarity=rarity,
                watermark=wm,
                nmb=(kind != "card")
                or layout in ("token", "emblem", "double_faced_token", "art_series"),
                dfc=layout in NON_MAGIC_BACK_LAYOUTS and kind == "card",
                land="Land" in front.split("—")[0],
                basic="Basic" in front.split("—")[0] and "Land" in front.split("—")[0],
                creature="Creature" in front.split("—")[0],
                planeswalker="Planeswalker" in front.split("—")[0],
            )
    return _facts[card_id]


class Ctx:
    def __init__(self, d):
        self.d = d
        self.game = d["minigame"]
        self.n = d["players"]
        self.players = [f"player-{i}" for i in range(1, self.n + 1)]
        self.items = {}
        self.pack_of = {}
        for p in d["packs"]:
            for it in p["items"]:
                self.items[it["uid"]] = it
                self.pack_of[it["uid"]] = p["index"]
        self.zones = d["zones"]
        self.v: list[tuple[str, str]] = []

    def bad(self, rule, msg):
        self.v.append((rule, msg))

    def zone(self, name):
        zs = [z for z in self.zones if z["name"] == name]
        if len(zs) != 1:
            self.bad("zone", f"expected one zone named {name!r}, found {len(zs)}")
            return None
        return zs[0]

    def zones_of(self, pred):
        return [z for z in self.zones if pred(z)]

    # --- card facts (from the database, never from the setup) ----------------------------
    def f(self, c):
        """Facts of a zone card: from the database by card_id; items without one (art cards,
        unresolved references) by their pack kind."""
        it = self.items.get(c["uid"], c)
        fa = fact(it.get("card_id"))
        if fa is None:
            k = it.get("kind")
            return dict(
                name=it.get("name"),
                type_line=None,
                nmb=k in NMB_KINDS,
                dfc=False,
                land=False,
                basic=False,
                creature=False,
                planeswalker=False,
                colors=[],
                mv=None,
                rarity=None,
                watermark=None,
                unknown=(k == "card"),
                kind=k,
                front="",
                layout=None,
            )
        fa = dict(fa)
        fa["unknown"] = False
        if it.get("kind") in NMB_KINDS:
            fa["nmb"] = True
        return fa

    def magic(self, c):
        fa = self.f(c)
        return not fa["nmb"]

    def label(self, c):
        fa = self.f(c)
        return f"{c['uid']} ({fa.get('name') or fa.get('kind')})"


# ---- generic checks ------------------------------------------------------------------------


def check_conservation(x: Ctx, externals_ok=lambda c: False):
    seen = collections.Counter()
    for z in x.zones:
        for c in z["cards"]:
            seen[c["uid"]] += 1
            if c["uid"] in x.items:
                it = x.items[c["uid"]]
                for k in ("card_id", "name", "kind", "foil"):
                    if it.get(k) != c.get(k):
                        x.bad(
                            "card-mismatch",
                            f"{c['uid']} in {z['name']}: {k} {c.get(k)!r} != pack's {it.get(k)!r}",
                        )
            elif not (c.get("external") and externals_ok(c)):
                x.bad(
                    "foreign-card",
                    f"{c['uid']} in {z['name']} is not from the packs and not a declared addition",
                )
    for uid, k in seen.items():
        if k > 1:
            x.bad("duplicate", f"{uid} lies in {k} zones")
    for uid in x.items:
        if uid not in seen:
            x.bad(
                "lost", f"{uid} ({x.items[uid].get('name') or x.items[uid]['kind']}) is in no zone"
            )


def check_face_down(x: Ctx):
    g = x.game
    strict = x.d.get("strict_backs")
    dfc_ok = (not strict) and g not in REMOVES_NMB

    def scan(pred, what):
        for z in x.zones_of(pred):
            for c in z["cards"]:
                fa = x.f(c)
                if fa["nmb"]:
                    x.bad(
                        "face-down",
                        f"{what} zone {z['name']!r}: {x.label(c)} has no Magic back ({fa.get('kind')})",
                    )
                elif fa["dfc"] and not dfc_ok:
                    x.bad(
                        "face-down-dfc" if what == "face-down" else "later-face-down-dfc",
                        f"{what} zone {z['name']!r}: {x.label(c)} is double-faced ({fa['layout']}), its back shows"
                        f" (strict_backs={strict}, card removes cards without Magic backs={g in REMOVES_NMB})",
                    )

    if g in FACE_DOWN:
        scan(FACE_DOWN[g], "face-down")
    if g in LATER_FACE_DOWN:
        scan(LATER_FACE_DOWN[g], "may-lie-face-down")


def check_packs(x: Ctx, expected):
    got = len(x.d["packs"])
    if got != expected:
        x.bad("packs", f"{got} packs opened, the card says {expected}")
    idx = sorted(p["index"] for p in x.d["packs"])
    if idx != list(range(1, got + 1)):
        x.bad("packs", f"pack indexes {idx}")


def own_pack_owner(x: Ctx):
    """Pack i belongs to player-i (games with a pack per player)."""
    return {i: f"player-{i}" for i in range(1, x.n + 1)}


def check_first_random(x: Ctx, choices=None):
    fp = x.d.get("first_player")
    choices = choices or x.players
    if fp not in choices:
        x.bad(
            "first-player",
            f"first_player {fp!r}: the card says to determine it at random among {choices[:3]}...",
        )


def check_first_none(x: Ctx, why):
    fp = x.d.get("first_player")
    if fp is not None:
        x.bad("first-player", f"first_player {fp!r}, but the card says: {why}")


def no_nmb(x, z):
    for c in z["cards"]:
        if not x.magic(c):
            x.bad(
                "nmb-in-play",
                f"zone {z['name']!r} holds {x.label(c)}, a card without a Magic back the card removes",
            )


def removed_exactly(x, zones, pred, what):
    """Every pack item satisfying pred is in one of ``zones`` (the removed/set-aside ones) and
    nothing else is there."""
    names = {z["name"] for z in zones}
    where = {}
    for z in x.zones:
        for c in z["cards"]:
            where[c["uid"]] = z["name"]
    for uid, _it in x.items.items():
        c = {"uid": uid}
        if pred(c) and where.get(uid) not in names:
            x.bad(
                "not-removed",
                f"{x.label(c)} should be removed ({what}) but lies in {where.get(uid)!r}",
            )
    for z in zones:
        for c in z["cards"]:
            if not pred(c):
                x.bad("removed-wrongly", f"{x.label(c)} is in {z['name']!r} but is not {what}")


# ---- per game ------------------------------------------------------------------------------


def g_base_race(x: Ctx):
    check_packs(x, 3)
    check_conservation(x)
    grids = [x.zone(f"{p} grid") for p in x.players]
    if None in grids:
        return
    for p, z in zip(x.players, grids):
        if z["owner"] != p:
            x.bad("owner", f"{z['name']} owner {z['owner']}")
        if {z.get("rows"), z.get("cols")} != {3, 4}:
            x.bad("grid", f"{z['name']} is {z.get('rows')}x{z.get('cols')}, the card says 4x3")
        if len(z["cards"]) != 12:
            x.bad(
                "grid", f"{z['name']} holds {len(z['cards'])} cards, 12 needed (1 basic land + 11)"
            )
        basics = [c for c in z["cards"] if x.f(c)["basic"]]
        lands = [c for c in z["cards"] if x.f(c)["land"]]
        if len(basics) != 1 or len(lands) != 1:
            x.bad(
                "base",
                f"{z['name']}: {len(basics)} basic lands, {len(lands)} lands; the card gives one basic land",
            )
        for c in z["cards"]:
            if x.f(c)["unknown"]:
                x.bad("unknown", f"{z['name']}: {c['uid']} is a card the database lacks")
        no_nmb(x, z)
    if len({z.get("cols") for z in grids}) != 1:
        x.bad("grid", "the two grids do not make a 4x6 area")
    # every remaining land and every NMB is removed (not dealt)
    grid_uids = {c["uid"] for z in grids for c in z["cards"]}
    for uid in x.items:
        c = {"uid": uid}
        fa = x.f(c)
        if (fa["land"] or fa["nmb"]) and uid not in grid_uids:
            zn = [z["name"] for z in x.zones if any(cc["uid"] == uid for cc in z["cards"])]
            if zn and zn[0] != "removed":
                x.bad("not-removed", f"{x.label(c)} (land or NMB) lies in {zn[0]!r}, not removed")
    check_first_none(x, '"The first player to finish their grid goes first."')


def _blitz(x: Ctx, packs_each, piles):
    check_packs(x, packs_each * x.n)
    check_conservation(x)
    for i, p in enumerate(x.players):
        own = set(range(i * packs_each + 1, (i + 1) * packs_each + 1))
        ps = [x.zone(f"{p} pile {k}") for k in range(1, piles + 1)]
        if None in ps:
            continue
        if len(x.zones_of(lambda z, p=p: z["owner"] == p and z["kind"] == "pile")) != piles:
            x.bad(
                "piles",
                f"{p} has {len(x.zones_of(lambda z, p=p: z['owner'] == p and z['kind'] == 'pile'))} piles, the card says {piles}",
            )
        for z in ps:
            if len(z["cards"]) != 3:
                x.bad("piles", f"{z['name']} holds {len(z['cards'])} cards, the card says three")
            no_nmb(x, z)
            for c in z["cards"]:
                if x.pack_of.get(c["uid"]) not in own:
                    x.bad(
                        "own-pack",
                        f"{z['name']}: {x.label(c)} is not from {p}'s own pack(s) {sorted(own)}",
                    )
    check_first_random(x)


def g_booster_blitz(x):
    _blitz(x, 1, 4)


def g_beyond_booster_blitz(x):
    _blitz(x, 2, 3)


def g_booster_sleuth(x: Ctx):
    check_packs(x, 2)
    check_conservation(x)
    sk = x.d.get("first_player")
    if sk not in x.players:
        x.bad("first-player", f"Secretkeeper/first player {sk!r}")
        return
    det = [p for p in x.players if p != sk][0]
    m = x.zone(f"{sk} mystery card")
    cl = x.zone(f"{det} clues")
    if m is None or cl is None:
        return
    if len(m["cards"]) != 1:
        x.bad("mystery", f"mystery card zone holds {len(m['cards'])}")
    used = m["cards"] + cl["cards"]
    packs = {x.pack_of.get(c["uid"]) for c in used}
    if len(packs) != 1:
        x.bad("pack", f"mystery and clues come from packs {packs}: the Secretkeeper opens a pack")
    pk = packs.pop() if len(packs) == 1 else None
    expect = {
        u
        for u, it in x.items.items()
        if x.pack_of[u] == pk and not x.f({"uid": u})["land"] and not x.f({"uid": u})["nmb"]
    }
    if {c["uid"] for c in used} != expect:
        x.bad(
            "clues",
            f"mystery+clues {len(used)} cards != the pack's {len(expect)} non-land Magic cards",
        )
    for c in used:
        if x.f(c)["land"]:
            x.bad("land", f"{x.label(c)} is a land: the Secretkeeper removes lands")


def g_careful_study(x: Ctx):
    check_packs(x, 1)
    check_conservation(x)
    teams = x.d.get("teams") or {}
    if len(teams) != 2:
        x.bad("teams", f"{len(teams)} teams, the card says two")
    members = [p for t in teams.values() for p in t]
    if sorted(members) != sorted(x.players) or any(len(t) < 1 for t in teams.values()):
        x.bad(
            "teams", f"teams {teams} do not split the {x.n} players into two teams of one or more"
        )
    check_first_random(x, list(teams))
    cards = []
    for t in teams:
        z = x.zone(f"{t} card")
        if z is None:
            continue
        if len(z["cards"]) != 1:
            x.bad("card", f"{z['name']} holds {len(z['cards'])}")
        for c in z["cards"]:
            fa = x.f(c)
            if fa["land"] or fa["nmb"]:
                x.bad("card", f"{z['name']}: {x.label(c)} is a land or has no Magic back")
            cards.append(c["uid"])


def g_cyber_simulacrum(x: Ctx):
    check_packs(x, 1)
    check_conservation(x)
    for p in x.players:
        z = x.zone(f"{p} card")
        if z is None:
            continue
        if len(z["cards"]) != 1:
            x.bad("deal", f"{z['name']} holds {len(z['cards'])}, the card deals one")
        for c in z["cards"]:
            fa = x.f(c)
            if fa["nmb"]:
                x.bad("removed", f"{z['name']}: {x.label(c)} (ad/token/art card) should be removed")
    # ads, tokens, art cards removed; all others dealt or set aside
    rem = x.zone("removed")
    if rem:
        for c in rem["cards"]:
            if not x.f(c)["nmb"]:
                x.bad(
                    "removed-wrongly", f"{x.label(c)} removed but is not an ad, token or art card"
                )
    check_first_random(x)


def g_day_vs_night(x: Ctx):
    check_packs(x, x.n)
    check_conservation(x)
    roles = x.d.get("roles") or {}
    if sorted(roles.values()) != ["Day", "Night"] or sorted(roles) != sorted(x.players):
        x.bad("roles", f"roles {roles}: one player Day, the other Night")
    for i, p in enumerate(x.players, 1):
        z = x.zone(f"{p} hand")
        if z is None:
            continue
        exp = {u for u in x.items if x.pack_of[u] == i and x.magic({"uid": u})}
        if x.d.get("strict_backs"):
            exp = {u for u in exp if not x.f({"uid": u})["dfc"]}
        got = {c["uid"] for c in z["cards"]}
        if got != exp:
            x.bad("hand", f"{z['name']}: {len(got)} cards, own pack's Magic cards are {len(exp)}")
    check_first_none(x, "cards are revealed simultaneously")


def _own_deck(x: Ctx, zname):
    check_packs(x, x.n)
    check_conservation(x)
    for i, p in enumerate(x.players, 1):
        z = x.zone(f"{p} {zname}")
        if z is None:
            continue
        exp = {u for u in x.items if x.pack_of[u] == i and x.magic({"uid": u})}
        if x.d.get("strict_backs"):
            exp = {u for u in exp if not x.f({"uid": u})["dfc"]}
        got = {c["uid"] for c in z["cards"] if not c.get("external")}
        if got != exp:
            x.bad(
                "deck", f"{z['name']}: {sorted(got ^ exp)} differ from {p}'s own pack's Magic cards"
            )
        no_nmb(x, z)


def g_demons_due(x: Ctx):
    _own_deck(x, "deck")
    check_first_none(x, "players reveal simultaneously")


def g_sharkeys_tithe(x: Ctx):
    _own_deck(x, "deck")
    check_first_none(x, "players reveal simultaneously")


def g_mini_master(x: Ctx):
    def basics_ok(c):
        return c["uid"].startswith("x") and c.get("name") in BASIC_NAMES

    check_packs(x, x.n)
    check_conservation(x, basics_ok)
    for i, p in enumerate(x.players, 1):
        z = x.zone(f"{p} library")
        if z is None:
            continue
        exp = {u for u in x.items if x.pack_of[u] == i and x.magic({"uid": u})}
        if x.d.get("strict_backs"):  # "sets aside any cards without Magic card backs"
            exp = {u for u in exp if not x.f({"uid": u})["dfc"]}
        got = {c["uid"] for c in z["cards"] if not c.get("external")}
        if got != exp:
            x.bad("deck", f"{z['name']}: pack part differs from {p}'s own pack's Magic cards")
        ext = [c for c in z["cards"] if c.get("external")]
        cnt = collections.Counter(c["name"] for c in ext)
        if cnt != collections.Counter({b: 3 for b in BASIC_NAMES}):
            x.bad("basics", f"{z['name']}: added basics {dict(cnt)}; the card adds three of each")
        for c in ext:
            fa = fact(c.get("card_id"))
            if fa is None or not fa["basic"] or fa["name"] != c["name"]:
                x.bad("basics", f"{c['uid']} {c.get('name')} is not a basic land in the database")
            if not c["uid"].startswith(f"x{i}-"):
                x.bad("basics", f"{c['uid']} in {p}'s library")
        no_nmb(x, z)
    check_first_random(x)


def g_dominarioes(x: Ctx):
    check_packs(x, 1)
    check_conservation(x)
    s = x.zone("starting card")
    h = x.zone("player-1 hand")
    if s is None or h is None:
        return
    if len(s["cards"]) != 1:
        x.bad("start", f"starting card zone holds {len(s['cards'])}")
    for z in (s, h):
        for c in z["cards"]:
            fa = x.f(c)
            if fa["basic"] or fa["nmb"]:
                x.bad(
                    "removed",
                    f"{z['name']}: {x.label(c)} is a basic land, ad, token or card without a Magic back",
                )
    rem = x.zone("removed")
    for c in (rem or {"cards": []})["cards"]:
        fa = x.f(c)
        if not (fa["basic"] or fa["nmb"]):
            x.bad("removed-wrongly", f"{x.label(c)} removed, not a basic land/ad/token")


def _piles(x: Ctx, spec: dict, face_down=True):
    """spec: zone name -> predicate on facts; every remaining card goes to exactly one pile."""
    for name, pred in spec.items():
        z = x.zone(name)
        if z is None:
            continue
        for c in z["cards"]:
            fa = x.f(c)
            if fa["unknown"]:
                x.bad("unknown", f"{name}: {c['uid']} is unknown to the database, cannot be sorted")
            elif not pred(fa):
                x.bad(
                    "pile",
                    f"{name}: {x.label(c)} ({fa['type_line']}, {fa['layout']}) does not belong there",
                )


def g_find_the_assassin(x: Ctx):
    check_packs(x, 2)
    check_conservation(x)
    _piles(
        x,
        {
            "creatures": lambda f: f["creature"] and not f["nmb"],
            "noncreatures": lambda f: not f["creature"] and not f["nmb"],
        },
    )
    removed_exactly(
        x,
        x.zones_of(lambda z: z["kind"] == "removed"),
        lambda c: x.f(c)["nmb"] or (x.d["strict_backs"] and x.f(c)["dfc"]),
        "without a Magic back",
    )
    check_first_random(x)


def g_itsa(x: Ctx):
    check_packs(x, 2 * x.n)
    check_conservation(x)
    _piles(
        x,
        {
            "creatures": lambda f: f["creature"] and not f["nmb"],
            "lands": lambda f: f["land"] and not f["creature"] and not f["nmb"],
            "other noncreature": lambda f: not f["creature"] and not f["land"] and not f["nmb"],
        },
    )
    removed_exactly(
        x,
        x.zones_of(lambda z: z["kind"] == "removed"),
        lambda c: x.f(c)["nmb"] or (x.d["strict_backs"] and x.f(c)["dfc"]),
        "without a Magic back",
    )


def g_itsh(x: Ctx):
    check_packs(x, x.n)
    check_conservation(x)
    _piles(
        x,
        {
            "double-faced": lambda f: f["dfc"] and not f["nmb"],
            "creatures and planeswalkers": lambda f: (
                not f["dfc"] and (f["creature"] or f["planeswalker"]) and not f["nmb"]
            ),
            "lands": lambda f: not f["dfc"] and f["land"] and not f["creature"] and not f["nmb"],
            "other noncreature": lambda f: (
                not f["dfc"]
                and not f["creature"]
                and not f["planeswalker"]
                and not f["land"]
                and not f["nmb"]
            ),
        },
    )
    removed_exactly(
        x,
        x.zones_of(lambda z: z["kind"] == "removed"),
        lambda c: x.f(c)["nmb"],
        "an ad, token or art card",
    )


def g_look_at_us(x: Ctx):
    check_packs(x, 1)
    check_conservation(x)
    roles = x.d.get("roles") or {}
    cnt = collections.Counter(roles.values())
    if (
        sorted(roles) != sorted(x.players)
        or cnt.get("artist") != 1
        or cnt.get("writer") != 1
        or cnt.get("designer") != x.n - 2
    ):
        x.bad(
            "roles", f"roles {dict(cnt)}: one artist, one writer, the remaining {x.n - 2} designers"
        )
    z = x.zone("pack")
    if z:
        no_nmb(x, z)


def g_magic_and_minions(x: Ctx):
    check_packs(x, 2)
    check_conservation(x)
    enc = x.zones_of(lambda z: z["name"].endswith(" encounters"))
    if len(enc) != 1:
        x.bad("dm", f"{len(enc)} DM hands")
        return
    dm = enc[0]["owner"]
    if dm not in x.players:
        x.bad("dm", f"DM {dm!r}")
    if len(enc[0]["cards"]) != 6:
        x.bad("dm", f"DM's hand {len(enc[0]['cards'])}, the card says 6")
    dm_pack = {x.pack_of.get(c["uid"]) for c in enc[0]["cards"]}
    if len(dm_pack) != 1:
        x.bad("dm", f"DM's hand from packs {dm_pack}: one booster")
    for c in enc[0]["cards"]:
        fa = x.f(c)
        if fa["land"] or fa["nmb"] or fa["unknown"]:
            x.bad("dm", f"DM hand: {x.label(c)} is not a non-land Magic card")
    others = [p for p in x.players if p != dm]
    act_packs = set()
    for p in others:
        z = x.zone(f"{p} actions")
        if z is None:
            continue
        if len(z["cards"]) != 4:
            x.bad("actions", f"{z['name']} holds {len(z['cards'])}, the card deals 4")
        for c in z["cards"]:
            fa = x.f(c)
            act_packs.add(x.pack_of.get(c["uid"]))
            if fa["land"] or fa["nmb"] or fa["unknown"]:
                x.bad("actions", f"{z['name']}: {x.label(c)} is not a non-land Magic card")
    if len(act_packs) != 1 or act_packs & dm_pack:
        x.bad("actions", f"actions from packs {act_packs}, DM's from {dm_pack}: a second booster")
    if x.d.get("first_player") not in (dm, None):
        x.bad("dm", f"first_player {x.d.get('first_player')} is not the DM {dm}")


def g_mimic_match(x: Ctx):
    check_packs(x, x.n)
    check_conservation(x)
    grid, deck = x.zone("grid"), x.zone("deck")
    if grid is None or deck is None:
        return
    if (grid.get("rows"), grid.get("cols")) != (4, 4) or len(grid["cards"]) != 16:
        x.bad(
            "grid",
            f"grid {grid.get('rows')}x{grid.get('cols')} with {len(grid['cards'])} cards: 16 in a 4x4 grid",
        )
    inplay = grid["cards"] + deck["cards"]
    lands = [c for c in inplay if x.f(c)["land"]]
    tagged = [c for c in inplay if c.get("tag") == "mimic"]
    if len(lands) != 2:
        x.bad("mimics", f"{len(lands)} lands in grid+deck: two lands go back as mimics")
    if {c["uid"] for c in tagged} != {c["uid"] for c in lands}:
        x.bad(
            "mimics",
            f"tagged mimics {[c['uid'] for c in tagged]} != lands {[c['uid'] for c in lands]}",
        )
    for c in inplay:
        if x.f(c)["unknown"]:
            x.bad("unknown", f"{c['uid']} in play is unknown to the database")
    # every non-land Magic card of the packs is in play (or removed as a DFC under strict backs)
    strict = x.d.get("strict_backs")
    uids = {c["uid"] for c in inplay}
    for u in x.items:
        fa = x.f({"uid": u})
        if not fa["land"] and not fa["nmb"] and not (strict and fa["dfc"]) and u not in uids:
            x.bad(
                "lost",
                f"{x.label({'uid': u})} is a non-land Magic card but not in the grid or deck",
            )
    check_first_random(x)


def g_mishras(x: Ctx):
    check_packs(x, x.n)
    check_conservation(x)
    row, deck = x.zone("conveyor"), x.zone("deck")
    if row is None or deck is None:
        return
    if len(row["cards"]) != 4:
        x.bad("conveyor", f"conveyor holds {len(row['cards'])}, the card reveals four")
    for z in (row, deck):
        no_nmb(x, z)
    check_first_random(x)


def g_roil(x: Ctx):
    check_packs(x, 1)
    check_conservation(
        x,
        lambda c: (
            c["uid"].startswith("x0-") and fact(c.get("card_id")) and fact(c["card_id"])["basic"]
        ),
    )
    t = x.zone("table")
    if t is None:
        return
    no_nmb(x, t)
    basics = [c for c in t["cards"] if x.f(c)["basic"]]
    if len(basics) != 1:
        x.bad(
            "ruins",
            f"table holds {len(basics)} basic lands: 'The basic land is the location of the ruins'",
        )
    # every Magic card of the pack is on the table ("place all the cards face down")
    tu = {c["uid"] for c in t["cards"]}
    for u in x.items:
        fa = x.f({"uid": u})
        if (
            not fa["nmb"]
            and not (x.d["strict_backs"] and fa["dfc"])
            and u not in tu
            and not fa["basic"]
        ):
            x.bad(
                "table",
                f"{x.label({'uid': u})} is not on the table: 'place all the cards face down'",
            )
    check_first_none(x, "Whoever went camping most recently goes first.")


def g_rfi(x: Ctx):
    check_packs(x, 1 if x.n < 5 else 2)
    check_conservation(x)
    hands = [x.zone(f"{p} hand") for p in x.players]
    if None in hands:
        return
    sizes = {len(z["cards"]) for z in hands}
    if len(sizes) != 1:
        x.bad("deal", f"hand sizes {sizes}: 'deal the same number of cards to each player'")
    k = sizes.pop() if len(sizes) == 1 else 0
    if k == 0:
        x.bad("deal", "no cards dealt")
    for z in hands:
        no_nmb(x, z)
    aside = x.zone("set aside")
    if aside is not None:
        if len(aside["cards"]) >= x.n:
            x.bad(
                "deal",
                f"{len(aside['cards'])} cards set aside with {x.n} players: another round could be dealt",
            )
        no_nmb(x, aside)
    rolls = x.d.get("rolls") or {}
    tb = x.d.get("tiebreaks") or {}
    if sorted(rolls) != sorted(x.players):
        x.bad("rolls", "not every player rolled")
        return
    for p, r in list(rolls.items()) + [(p, r) for p, rs in tb.items() for r in rs]:
        if not (isinstance(r, int) and 1 <= r <= 20):
            x.bad("rolls", f"{p} rolled {r}, not a d20")
    final = {p: (tb[p][-1] if tb.get(p) else rolls[p]) for p in x.players}
    first_counts = collections.Counter(rolls.values())
    for p in x.players:
        tied0 = first_counts[rolls[p]] > 1
        if tied0 and not tb.get(p):
            x.bad("tie", f"{p}'s first roll {rolls[p]} tied, but {p} did not roll again")
        if tb.get(p) and not tied0:
            x.bad("tie", f"{p}'s first roll {rolls[p]} tied nobody, yet {p} rolled again {tb[p]}")
    fc = collections.Counter(final.values())
    ties = {v: [p for p in x.players if final[p] == v] for v, n in fc.items() if n > 1}
    if ties and x.n <= 20:
        x.bad("tie-left", f"ties remain: {ties}: 'In case of a tie, the tied players roll again'")
    low = min(final.values())
    lowest = [p for p in x.players if final[p] == low]
    if x.d.get("first_player") not in lowest or len(lowest) > 1:
        x.bad(
            "first-player",
            f"first_player {x.d.get('first_player')}, lowest initiative {low} held by {lowest}",
        )
    # a re-roll that lands on another player's current value: does that player roll too?
    # (reported as a reading, not a violation: see report)


def g_strictly_better(x: Ctx):
    check_packs(x, x.n)
    check_conservation(x)
    for i, p in enumerate(x.players, 1):
        z = x.zone(f"{p} hand")
        if z is None:
            continue
        exp = {u for u in x.items if x.pack_of[u] == i and x.magic({"uid": u})}
        if x.d.get("strict_backs"):  # "removes any cards without Magic backs"
            exp = {u for u in exp if not x.f({"uid": u})["dfc"]}
        got = {c["uid"] for c in z["cards"]}
        if got != exp:
            x.bad("hand", f"{z['name']}: not {p}'s own pack's Magic cards")
    check_first_random(x)


def g_telepathic(x: Ctx):
    check_packs(x, 2)
    check_conservation(x)
    hands = [x.zone(f"{p} hand") for p in x.players]
    disc = x.zone("discard pile")
    if None in hands or disc is None:
        return
    chosen = (x.d.get("chosen") or {}).get("discard pile")
    if chosen not in x.players:
        x.bad("chosen", f"the player who discards is {chosen!r}")
        return
    if len(disc["cards"]) != 1 or not all(x.f(c)["land"] for c in disc["cards"]):
        x.bad("discard", f"discard pile {[x.label(c) for c in disc['cards']]}: one land")
    dealt = {
        p: len(z["cards"]) + (len(disc["cards"]) if p == chosen else 0)
        for p, z in zip(x.players, hands)
    }
    if max(dealt.values()) - min(dealt.values()) > 1:
        x.bad("deal", f"dealt {dealt}: 'as evenly as possible'")
    for z in hands:
        no_nmb(x, z)
    # the land came from the chosen player's hand: its pack position was dealt to them — not
    # observable; check at least that no one is dealt cards and everything Magic is in play
    inplay = {c["uid"] for z in hands for c in z["cards"]} | {c["uid"] for c in disc["cards"]}
    for u in x.items:
        if x.magic({"uid": u}) and u not in inplay:
            x.bad("lost", f"{x.label({'uid': u})} is a Magic card not dealt")


def g_tlit(x: Ctx):
    check_packs(x, 3)
    check_conservation(x)
    d = x.zone("deck")
    if d:
        no_nmb(x, d)
        strict = x.d["strict_backs"]
        exp = {
            u for u in x.items if x.magic({"uid": u}) and not (strict and x.f({"uid": u})["dfc"])
        }
        if {c["uid"] for c in d["cards"]} != exp:
            x.bad("deck", "the deck is not every Magic card of the three packs")
    check_first_random(x)


def g_urzas(x: Ctx):
    check_packs(x, x.n)
    check_conservation(x)
    for p in x.players:
        z = x.zone(f"{p} hand")
        if z and len(z["cards"]) != 5:
            x.bad("deal", f"{z['name']} holds {len(z['cards'])}, the card deals five")
        if z:
            no_nmb(x, z)
    d = x.zone("deck")
    if d:
        no_nmb(x, d)
    check_first_random(x)


def g_vwp(x: Ctx):
    check_packs(x, x.n)
    check_conservation(x)
    for i, p in enumerate(x.players, 1):
        t = x.zone(f"{p} theme")
        h = x.zone(f"{p} hand")
        if t:
            if len(t["cards"]) != 1:
                x.bad("theme", f"{t['name']} holds {len(t['cards'])}")
            for c in t["cards"]:
                fa = x.f(c)
                if x.pack_of.get(c["uid"]) != i:
                    x.bad("theme", f"{t['name']}: {x.label(c)} not from {p}'s own pack")
                if fa["land"] or not fa["colors"] or fa["nmb"]:
                    x.bad("theme", f"{t['name']}: {x.label(c)} is a land or colourless")
        if h and len(h["cards"]) != 4:
            x.bad("deal", f"{h['name']} holds {len(h['cards'])}, 4 dealt")
    disc = x.zone("discard")
    if disc and len(disc["cards"]) != 1:
        x.bad("discard", f"discard holds {len(disc['cards'])}, one card flipped")
    for z in x.zones_of(lambda z: z["kind"] in ("hand", "deck", "discard", "selected")):
        no_nmb(x, z)
    check_first_random(x)


def g_winchester(x: Ctx):
    check_packs(x, 6)
    check_conservation(x)
    piles = [x.zone(f"pile {k}") for k in range(1, 5)]
    stack = x.zone("stack")
    if None in piles or stack is None:
        return
    for z in piles:
        if len(z["cards"]) != 1:
            x.bad(
                "piles", f"{z['name']} holds {len(z['cards'])}: the top four cards start four piles"
            )
    for z in piles + [stack]:
        for c in z["cards"]:
            fa = x.f(c)
            if fa["basic"] or fa["nmb"]:
                x.bad(
                    "removed",
                    f"{z['name']}: {x.label(c)} is a basic land/ad/token/card without a Magic back",
                )
    for u in x.items:
        fa = x.f({"uid": u})
        inplay = any(c["uid"] == u for z in piles + [stack] for c in z["cards"])
        if not fa["basic"] and not fa["nmb"] and not inplay:
            x.bad("lost", f"{x.label({'uid': u})} should be in the stack or piles")
    check_first_random(x)


def g_foraging(x: Ctx):
    check_packs(x, 2)
    check_conservation(x)
    g = x.zone("grid")
    if g is None:
        return
    if (g.get("rows"), g.get("cols")) != (5, 5) or len(g["cards"]) != 25:
        x.bad("grid", f"grid {g.get('rows')}x{g.get('cols')} {len(g['cards'])} cards: 5x5")
    arts = [
        c
        for c in g["cards"]
        if x.f(c).get("kind") == "art_card" or x.items.get(c["uid"], {}).get("kind") == "art_card"
    ]
    if len(arts) != 1:
        x.bad("squirrel", f"{len(arts)} art cards in the grid: select one art card")
    for c in g["cards"]:
        fa = x.f(c)
        if fa["nmb"] and c not in arts:
            x.bad("nmb-in-play", f"grid: {x.label(c)} has no Magic back")
    check_first_random(x)


def g_monster(x: Ctx):
    x.bad("dealt", "Monster of the Week dealt: not expected with this database")


CHECKS = {
    "base-race": g_base_race,
    "beyond-booster-blitz": g_beyond_booster_blitz,
    "booster-blitz": g_booster_blitz,
    "booster-sleuth": g_booster_sleuth,
    "careful-study": g_careful_study,
    "cyber-simulacrum": g_cyber_simulacrum,
    "day-vs-night": g_day_vs_night,
    "demons-due": g_demons_due,
    "dominarioes": g_dominarioes,
    "find-the-assassin": g_find_the_assassin,
    "foraging-squirrels": g_foraging,
    "into-the-story-assassin-edition": g_itsa,
    "into-the-story-horror-edition": g_itsh,
    "look-at-us-were-r-d": g_look_at_us,
    "magic-and-minions": g_magic_and_minions,
    "mimic-match": g_mimic_match,
    "mini-master": g_mini_master,
    "mishras-manufactory": g_mishras,
    "monster-of-the-week": g_monster,
    "roil-royale": g_roil,
    "roll-for-initiative": g_rfi,
    "sharkeys-tithe": g_sharkeys_tithe,
    "strictly-better": g_strictly_better,
    "telepathic-transmission": g_telepathic,
    "totally-lost-in-translation": g_tlit,
    "urzas-blueprints": g_urzas,
    "vampire-wedding-planner": g_vwp,
    "winchester-draft": g_winchester,
}


def check(d) -> list[tuple[str, str]]:
    x = Ctx(d)
    CHECKS[x.game](x)
    check_face_down(x)
    return x.v
