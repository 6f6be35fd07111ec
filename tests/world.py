"""The built world: a small stand-in for the real data of ``../shared`` (``built_db``).

Five expansions with the codes, dates and booster shapes of the 2020–2021 sets the tests
deal from (AFR, KHM, ZNR, STX, MH2), each with its token set (``t<set>``) and minigame set
(``m<set>``: the games of ``data/minigames`` printed for it), as MTGJSON v5 set files, and a
magic-sealed-data export of their Draft and Set Boosters (and AFR's Collector Booster). The
MTGJSON files carry a Draft Booster too (``<set>-draft-mtgjson``). AFR also has an Arena
Booster (both sources) and two Theme Boosters, STX Japanese editions (``stx-jp``,
``stx-set-jp``).

The Set Boosters have the export's variants and weights (the common/uncommon split, a foil
basic in 15 %, a List card in 1 pack of 4) and its sheet names; each sheet holds a few cards
of every colour instead of a hundred. As in the real data, The List (``plist:N``) and STX's
Mystical Archive (``sta:N``) are referenced but not in the database, and the art cards
(``a<set>``) are not either. KHM has snow dual lands and modal double-faced gods, ZNR modal
double-faced lands, STX Lessons and a modal double-faced legend (its MTGJSON Draft Booster
draws an Archive card of STA, not in the files), MH2 a split card, a transforming werewolf
and a reprint sheet;
``SKHM.json`` (substitute cards, tokens only) lies beside the files and is not imported.

Card names are made up (``AFR Dawn Knight``), except the minigame cards (the games' names)
and basic lands; the rules text of a game is quoted only where a test reads it (``RULES``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from builders import (
    BASIC_TYPES,
    COLOURS,
    RANK,
    Card,
    Face,
    basic_land,
    card,
    modal,
    mtgjson_file,
    printing,
    sealed_product,
    set_booster_variants,
    sheet,
    token,
    weighted,
)


@dataclass(frozen=True)
class SetPlan:
    code: str
    name: str
    released: str
    set_type: str = "expansion"
    #: Set Booster sheets drawn once per pack beside the usual ones ("lesson", "sta" …)
    extras: tuple[str, ...] = ()
    showcase_sheet: str = "common_uncommon_showcase"
    wildcards: int = 2
    #: Draft Boosters with one double-faced card a pack, at uncommon or rare/mythic (ZNR)
    dfc_draft: bool = False


PLANS = (
    SetPlan("afr", "Adventures in the Forgotten Realms", "2021-07-23"),
    SetPlan("khm", "Kaldheim", "2021-02-05", showcase_sheet="snow_showcase_theme", wildcards=1),
    SetPlan("znr", "Zendikar Rising", "2020-09-25", dfc_draft=True),
    SetPlan("stx", "Strixhaven: School of Mages", "2021-04-23", extras=("lesson", "sta"),
            showcase_sheet="", wildcards=1),
    SetPlan("mh2", "Modern Horizons 2", "2021-06-18", set_type="draft_innovation",
            extras=("reprint_to_modern",), wildcards=1),
)  # fmt: skip
SETS = tuple(p.code for p in PLANS)

#: Rules text a test quotes, as printed on the card (MAFR #5, Roll for Initiative): a few
#: lines of each face, not the whole card. Other games get a made-up line per face.
RULES = {
    "roll-for-initiative": (
        "2+ players | 1+ packs | 5 minutes | d20\nGET READY:\nOpen a booster and remove all "
        "cards without _Magic_ card backs. Use an additional booster for groups of five players "
        "or more. Shuffle, then deal the same number of cards to each player. If there are extra "
        "cards after dealing, set them aside. Each player then rolls a d20 to determine their "
        "*initiative*. In case of a tie, the tied players roll again. The player with the lowest "
        "starting initiative goes first.",
        "*Red Card*: Reroll another player's die. They must use the new result.",
    ),
}

NOUNS = ("Knight", "Adept", "Warden", "Scout", "Hunter", "Sage", "Rogue", "Cleric")
WORDS = {"W": "Dawn", "U": "Tide", "B": "Dusk", "R": "Ember", "G": "Moss"}
SPELLS = ("Insight", "Ruin", "Strike", "Growth", "Blessing", "Gambit")
TREASURE = "When this enters, create a Treasure token."
DRAW = "Draw a card."

#: (rarity, name, colours, mana value, type line, text) of the cards every world set has.
Row = tuple[str, str, str, int, str, "str | None"]


def _rows() -> list[Row]:
    """Per colour three common creatures, a common instant and enchantment, an uncommon
    creature and instant, a legendary rare; colourless and multicoloured cards, nonbasic
    lands, Dragons (one with Treasure text), a legendary planeswalker."""
    rows: list[Row] = []
    for k, c in enumerate(COLOURS):
        w = WORDS[c]
        rows += [
            ("common", f"{w} {NOUNS[k + i]}", c, i + 1, f"Creature — {NOUNS[k + i]}", "Vigilance")
            for i in range(3)
        ]
        rows += [
            ("common", f"{w} {SPELLS[k]}", c, 1, "Instant", DRAW),
            ("common", f"{w} Ward", c, 2, "Enchantment", TREASURE),
        ]
    rows += [
        ("common", "Lantern", "", 2, "Artifact", DRAW),
        ("common", "Crossroads", "", 0, "Land", None),
    ]
    for k, c in enumerate(COLOURS):
        rows += [
            ("uncommon", f"Elder {NOUNS[k]}", c, 4, "Creature — Elder", "Vigilance"),
            ("uncommon", f"Quick {SPELLS[k]}", c, 1, "Instant", DRAW),
        ]
    rows += [
        ("uncommon", "Ember Stag", "RG", 3, "Creature — Elk", "Vigilance"),
        ("uncommon", "Tidal Vow", "WU", 2, "Instant", DRAW),
    ]
    rows += [
        ("rare", f"Legend {NOUNS[k]}", c, 5, "Legendary Creature — Hero", "Vigilance")
        for k, c in enumerate(COLOURS)
    ]
    rows += [
        ("rare", "Grave Dragon", "BG", 5, "Creature — Dragon", "Flying"),
        ("rare", "Idol", "", 3, "Artifact", DRAW),
        ("rare", "Citadel", "", 0, "Land", None),
        ("mythic", "Queen of Webs", "B", 4, "Legendary Planeswalker — Queen",
         "+1: Create a Treasure token."),
        ("mythic", "Hoard Dragon", "R", 6, "Creature — Dragon",
         "Flying. When this dies, create five Treasure tokens."),
        ("mythic", "Worldroot", "GW", 4, "Legendary Creature — Treefolk", "Vigilance"),
    ]  # fmt: skip
    return rows


def _own_cards(plan: SetPlan, start: int) -> list[Card]:
    """The set's own double-faced cards and lands, numbered from ``start``."""
    s, r, up = plan.code, plan.released, plan.code.upper()
    n = iter(range(start, start + 100))
    if s == "khm":  # snow dual lands and modal double-faced gods
        return [
            printing(s, next(n), f"{up} Snowfield {a}{b}", "common", "", 0,
                     f"Snow Land — {BASIC_TYPES[a]} {BASIC_TYPES[b]}", released=r)
            for a, b in ("WU", "UB", "BR", "RG", "GW")
        ] + [
            modal(s, next(n), Face(f"{up} Storm God", "Legendary Creature — God", ("R",),
                                   "{2}{R}", "Haste", "3", "3"),
                  Face(f"{up} Storm Hammer", "Legendary Artifact", ("R",), "{1}{R}"), 3,
                  rarity="mythic", released=r),
            modal(s, next(n), Face(f"{up} Frost God", "Legendary Creature — God", ("U",),
                                   "{1}{U}", None, "2", "2"),
                  Face(f"{up} Frost Crown", "Legendary Artifact", ("U",), "{U}"), 2,
                  rarity="uncommon", released=r),
        ]  # fmt: skip
    if s == "znr":  # modal double-faced spells and creatures with a land back
        return [
            modal(s, next(n), Face(f"{up} Skyclave Rite", "Sorcery", ("W",), "{1}{W}"),
                  Face(f"{up} Skyclave Ruin", "Land"), 2, rarity="uncommon", released=r),
            modal(s, next(n), Face(f"{up} Kor Pathfinder", "Creature — Kor", ("G",), "{2}{G}",
                                   None, "3", "2"),
                  Face(f"{up} Kor Trail", "Land"), 3, rarity="rare", released=r),
        ]  # fmt: skip
    if s == "mh2":  # a split card (two halves, one Magic back) and a transforming creature
        return [
            modal(s, next(n), Face(f"{up} Fire Half", "Instant", ("R",), "{1}{R}", DRAW),
                  Face(f"{up} Ice Half", "Instant", ("U",), "{1}{U}", DRAW), 4,
                  layout="split", colors=("R", "U"), rarity="uncommon", released=r),
            modal(s, next(n), Face(f"{up} Moonlit Shepherd", "Creature — Human Werewolf",
                                   ("G",), "{1}{G}", None, "2", "2"),
                  Face(f"{up} Moonrage Beast", "Creature — Werewolf", ("G",), None, None,
                       "4", "4"), 2, layout="transform", rarity="uncommon", released=r),
        ]  # fmt: skip
    if s == "stx":
        return [
            modal(s, next(n), Face(f"{up} Twin Adept", "Legendary Creature — Wizard", ("U",),
                                   "{1}{U}", None, "1", "3"),
                  Face(f"{up} Twin Scholar", "Legendary Creature — Wizard", ("R",), "{1}{R}",
                       None, "3", "1"), 2, rarity="mythic", released=r),
        ]  # fmt: skip
    return []


@dataclass
class WorldSet:
    """One expansion of the world: its cards by role, ready for sheets."""

    plan: SetPlan
    main: list[Card]  # the booster cards (numbered first)
    basics: list[Card]
    showcase: list[Card]  # showcase printings of some commons and uncommons (not in boosters)
    special: dict[str, list[Card]] = field(default_factory=dict)  # extra sheets' cards
    tokens: list[Card] = field(default_factory=list)

    def of(self, *rarities: str) -> list[Card]:
        return [c for c in self.main if c.rarity in rarities]

    @property
    def printed(self) -> list[Card]:
        """Every printing of the set itself (not the other sets a sheet draws from)."""
        extra = [c for cards in self.special.values() for c in cards]
        return (
            self.main
            + self.basics
            + self.showcase
            + [c for c in extra if c.set_code == self.plan.code]
        )


def world_set(plan: SetPlan) -> WorldSet:
    s, r, up = plan.code, plan.released, plan.code.upper()
    main = [printing(s, k, f"{up} {name}", rarity, colours, mv, type_line, text, released=r)
            for k, (rarity, name, colours, mv, type_line, text) in enumerate(_rows(), 1)]  # fmt: skip
    main += _own_cards(plan, len(main) + 1)
    n = len(main)
    basics = [basic_land(s, n + 1 + k, c, released=r) for k, c in enumerate(COLOURS * 2)]
    n += len(basics)
    picks = [c for c in main if c.rarity in ("common", "uncommon") and not c.faces][::4][:5]
    showcase = [
        replace(c, number=str(n + 1 + k), frame_effects=("showcase",), booster=False)
        for k, c in enumerate(picks)
    ]
    n += len(showcase)
    special: dict[str, list[Card]] = {}
    if "lesson" in plan.extras:
        special["lesson"] = [
            printing(s, n + 1 + k, f"{up} Lesson of {BASIC_TYPES[c]}", "common", c, 2,
                     "Sorcery — Lesson", DRAW, released=r)
            for k, c in enumerate(COLOURS)
        ]  # fmt: skip
        n += 5
    if "reprint_to_modern" in plan.extras:
        special["reprint_to_modern"] = [
            printing(s, n + 1 + k, f"{up} Returning {NOUNS[k]}", "uncommon", c, 2,
                     "Creature — Spirit", "Vigilance", released=r)
            for k, c in enumerate(COLOURS)
        ]  # fmt: skip
        n += 5
    if "sta" in plan.extras:  # the Mystical Archive: referenced, not in the database
        special["sta"] = [card("sta", k, rarity="rare") for k in range(1, 7)]
    tokens = [
        token(f"t{s}", 1, "Treasure", "Token Artifact — Treasure", released=r),
        token(f"t{s}", 2, "Soldier", "Token Creature — Soldier", colors=("W",), released=r,
              power="1", toughness="1"),
        token(f"t{s}", 3, "Spirit", "Token Creature — Spirit", released=r),
    ]  # fmt: skip
    return WorldSet(plan, main, basics, showcase, special, tokens)


def _rare_weight(c: Card) -> int:
    return 2 if c.rarity == "rare" else 1


def _foil_weight(c: Card) -> int:
    return {"common": 12, "uncommon": 6, "rare": 2, "mythic": 1}[c.rarity]


def the_list(count: int = 12) -> dict[str, int]:
    """The List as the export numbers it (``plist:N``): not in the world's database."""
    return {f"plist:{k}": 1 for k in range(1, count + 1)}


def _commons(ws: WorldSet) -> list[Card]:
    return [c for c in ws.of("common") if not c.faces]


def draft_booster(ws: WorldSet) -> dict[str, Any]:
    """The export's Draft Booster (code ``<set>``, stored as ``<set>-draft``); ZNR's holds one
    double-faced card a pack, as uncommon or as rare/mythic (the export's four variants)."""
    p, rares, uncommons = ws.plan, ws.of("rare", "mythic"), ws.of("uncommon")
    sheets = {
        "basic": sheet(weighted(ws.basics)),
        "common": sheet(weighted(_commons(ws)), balance_colors=True),
        "uncommon": sheet(weighted(uncommons)),
        "rare_mythic": sheet(weighted(rares, _rare_weight)),
        "foil": sheet(weighted(ws.main + ws.basics, _foil_weight, foil=True)),
    }
    base = {"basic": 1, "common": 10, "uncommon": 3, "rare_mythic": 1}
    foil = {"basic": 1, "common": 9, "foil": 1}
    variants = [(base, 2), ({**base, **foil}, 1)]
    if p.dfc_draft:
        for name, cards in (("uncommon", uncommons), ("rare_mythic", rares)):
            two = [c for c in cards if c.faces], [c for c in cards if not c.faces]
            sheets[f"dfc_{name}"] = sheet(weighted(two[0], _rare_weight))
            sheets[f"sfc_{name}"] = sheet(weighted(two[1], _rare_weight))
        rare_dfc = {"basic": 1, "common": 10, "sfc_uncommon": 3, "dfc_rare_mythic": 1}
        unc_dfc = {"basic": 1, "common": 10, "dfc_uncommon": 1, "sfc_uncommon": 2,
                   "sfc_rare_mythic": 1}  # fmt: skip
        variants = [(rare_dfc, 54), ({**rare_dfc, **foil}, 27)]
        variants += [(unc_dfc, 242), ({**unc_dfc, **foil}, 121)]
    return sealed_product(p.code, p.code, p.name, variants, sheets, p.name)


def set_booster(ws: WorldSet) -> dict[str, Any]:
    """The export's Set Booster (``<set>-set``): the real variants, small sheets."""
    p = ws.plan
    middle = {p.showcase_sheet: 1} if p.showcase_sheet else {}
    middle |= {"wildcard": p.wildcards, "rare_mythic": 1, "foil_with_showcase": 1}
    middle |= {name: 1 for name in p.extras}
    sheets: dict[str, dict[str, Any]] = {
        "basic": sheet(weighted(ws.basics)),
        "common": sheet(weighted(_commons(ws))),
        "uncommon": sheet(weighted(ws.of("uncommon"))),
        "wildcard": sheet(weighted(ws.main, lambda c: 4 - RANK[c.rarity])),
        "rare_mythic": sheet(weighted(ws.of("rare", "mythic"), _rare_weight)),
        "foil_with_showcase": sheet(
            weighted(ws.main + ws.basics + ws.showcase, _foil_weight, foil=True)
        ),
        "the_list": sheet(the_list()),
        "foil_basic": sheet(weighted(ws.basics, foil=True)),
    }
    if p.showcase_sheet:  # KHM's snow_showcase_theme: the showcase cards and the snow lands
        snow = [c for c in ws.main if c.type_line.startswith("Snow Land")]
        sheets[p.showcase_sheet] = sheet(weighted(ws.showcase + snow))
    for name in p.extras:
        sheets[name] = sheet(weighted(ws.special[name]))
    name = f"{p.name} Set Booster"
    return sealed_product(
        f"{p.code}-set", p.code, name, set_booster_variants(middle), sheets, p.name
    )


def collector_booster(ws: WorldSet) -> dict[str, Any]:
    """The export's Collector Booster (``<set>-collector``): foils and showcase cards."""
    p, rares = ws.plan, ws.of("rare", "mythic")
    slots = {"foil_basic": 1, "foil_common": 4, "foil_uncommon": 2, "foil_rare_mythic": 1,
             "common_uncommon_showcase": 2, "foil_rare_mythic_alt_art": 1}  # fmt: skip
    sheets = {
        "foil_basic": sheet(weighted(ws.basics, foil=True)),
        "foil_common": sheet(weighted(_commons(ws), foil=True)),
        "foil_uncommon": sheet(weighted(ws.of("uncommon"), foil=True)),
        "foil_rare_mythic": sheet(weighted(rares, _rare_weight, foil=True)),
        "common_uncommon_showcase": sheet(weighted(ws.showcase)),
        "foil_rare_mythic_alt_art": sheet(weighted(rares, _rare_weight, foil=True)),
    }
    name = f"{p.name} Collector Booster"
    return sealed_product(f"{p.code}-collector", p.code, name, [(slots, 1)], sheets, p.name)


def arena_booster(ws: WorldSet) -> dict[str, Any]:
    """The export's Arena Booster (``<set>-arena``): no basic land."""
    p = ws.plan
    sheets = {
        "common": sheet(weighted(_commons(ws)), balance_colors=True),
        "uncommon": sheet(weighted(ws.of("uncommon"))),
        "rare_mythic": sheet(weighted(ws.of("rare", "mythic"), _rare_weight)),
    }
    slots = {"common": 10, "uncommon": 3, "rare_mythic": 1}
    name = f"{p.name} Arena Booster"
    return sealed_product(f"{p.code}-arena", p.code, name, [(slots, 1)], sheets, p.name)


def theme_boosters(ws: WorldSet) -> list[dict[str, Any]]:
    """Two of the export's Theme Boosters (``<set>-theme-b``, ``<set>-theme-dungeons``):
    35 cards from sheets that allow duplicates."""
    p, out = ws.plan, []
    for suffix, pick in (
        ("b", lambda c: "B" in c.colors),
        ("dungeons", lambda c: c.mana_value >= 2),
    ):
        cards = [c for c in ws.main if pick(c)]
        sheets = {
            r: sheet(weighted([c for c in cards if c.rarity in rs]), allow_duplicates=True)
            for r, rs in (("common", ("common",)), ("uncommon", ("uncommon",)),
                          ("rare_mythic", ("rare", "mythic")))
        }  # fmt: skip
        variants = [({"uncommon": 10, "common": 24, "rare_mythic": 1}, 9),
                    ({"uncommon": 9, "common": 24, "rare_mythic": 2}, 1)]  # fmt: skip
        name = f"{p.name} Theme Booster {suffix.title()}"
        out.append(sealed_product(f"{p.code}-theme-{suffix}", p.code, name, variants, sheets))
    return out


def regional(product: dict[str, Any], suffix: str = "jp") -> dict[str, Any]:
    """The same product as a regional edition (``stx-jp``, ``stx-set-jp``)."""
    return {**product, "code": f"{product['code']}-{suffix}", "name": f"{product['name']} (JP)"}


def mtgjson_booster(ws: WorldSet) -> dict[str, Any]:
    """The set file's ``booster.default`` (MTGJSON's Draft Booster: ``<set>-draft-mtgjson``)."""

    def sheet_of(cards: list[Card], weight: Any = 1, **flags: Any) -> dict[str, Any]:
        w = {c.uuid(): int(weight(c) if callable(weight) else weight) for c in cards}
        return {**flags, "cards": w, "totalWeight": sum(w.values())}

    contents = {"basic": 1, "common": 10, "rareMythic": 1, "uncommon": 3}
    arena = {
        "boosters": [{"contents": {"common": 10, "rareMythic": 1, "uncommon": 3}, "weight": 1}],
        "boostersTotalWeight": 1,
        "name": f"{ws.plan.name} Arena Booster",
        "sheets": {
            "common": sheet_of(_commons(ws), foil=False, balanceColors=True),
            "uncommon": sheet_of(ws.of("uncommon"), foil=False),
            "rareMythic": sheet_of(ws.of("rare", "mythic"), _rare_weight, foil=False),
        },
    }
    default = {
        "boosters": [
            {"contents": contents, "weight": 2},
            {"contents": {**contents, "common": 9, "foil": 1}, "weight": 1},
        ],
        "boostersTotalWeight": 3,
        "sheets": {
            "basic": sheet_of(ws.basics, foil=False),
            "common": sheet_of(_commons(ws), foil=False, balanceColors=True),
            "uncommon": sheet_of(ws.of("uncommon"), foil=False),
            "rareMythic": sheet_of(ws.of("rare", "mythic"), _rare_weight, foil=False),
            "foil": sheet_of(ws.main + ws.basics, _foil_weight, foil=True),
        },
    }
    if "sta" in ws.plan.extras:  # the Mystical Archive: uuids of STA, a file not in the world
        archive = {c.uuid(): 1 for c in ws.special["sta"]}
        default["sheets"]["archive"] = {"cards": archive, "foil": False,
                                        "totalWeight": len(archive)}  # fmt: skip
        for b in default["boosters"]:
            b["contents"] = {**b["contents"], "common": b["contents"]["common"] - 1, "archive": 1}
    return {
        **({"arena": arena} if ws.plan.code == "afr" else {}),
        "default": default,
    }


def minigame_cards(parent: str, released: str) -> list[Card]:
    """The minigame cards printed for ``parent`` (the catalogue's printings), double-faced
    where Scryfall names two faces; their texts from ``RULES`` or made up."""
    from boosterkit.minigames.catalog import get_minigame, list_minigames

    out = []
    for game in list_minigames():
        spec = get_minigame(game["id"])
        for p in spec.printings:
            if p.parent != parent or not p.number:
                continue
            full = (spec.scryfall_names or [spec.name])[0]
            made_up = (f"{spec.name}: how to set up and play.", f"{spec.name}: how to win.")
            front, back = RULES.get(spec.id, made_up)
            names = full.split(" // ")
            kw: dict[str, Any] = {"text": f"{front}\n{back}"}
            if len(names) > 1:
                faces = (Face(names[0], "Card", text=front), Face(names[1], "Card", text=back))
                kw = {"faces": faces, "layout": "double_faced_token"}
            out.append(token(f"m{parent}", p.number, full, "Card", released=released, **kw))
    return sorted(out, key=lambda c: int(c.number))


@dataclass(frozen=True)
class WorldFiles:
    """Where ``write`` put the world's files."""

    folder: Path
    mtgjson: tuple[Path, ...]  # set files (AFR.json …) and minigame files (MAFR.json …)
    sealed: Path  # the magic-sealed-data export
    sets: tuple[WorldSet, ...]

    def set(self, code: str) -> WorldSet:
        return next(s for s in self.sets if s.plan.code == code)


def write(folder: Path) -> WorldFiles:
    """Write the world's MTGJSON files and magic-sealed-data export into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    files, products, built = [], [], []
    for plan in PLANS:
        ws = world_set(plan)
        built.append(ws)
        doc = mtgjson_file(plan.code, plan.name, plan.released, ws.printed, ws.tokens,
                           set_type=plan.set_type, booster=mtgjson_booster(ws),
                           base_size=len(ws.main) + len(ws.basics))  # fmt: skip
        files.append(_dump(folder / f"{plan.code.upper()}.json", doc))
        games = minigame_cards(plan.code, plan.released)
        mini = mtgjson_file(f"m{plan.code}", f"{plan.name} Minigames", plan.released, (), games,
                            set_type="funny", parent=plan.code)  # fmt: skip
        files.append(_dump(folder / f"M{plan.code.upper()}.json", mini))
        products += [draft_booster(ws), set_booster(ws)]
        if plan.code == "afr":
            products += [collector_booster(ws), arena_booster(ws), *theme_boosters(ws)]
        if plan.code == "stx":  # a Japanese edition of both: the English one is the default
            products += [regional(p) for p in products[-2:]]
    skhm = [token("skhm", k, "Double-Faced Substitute Card", "Card", released="2021-02-05")
            for k in (1, 2)]  # fmt: skip
    substitutes = mtgjson_file("skhm", "Kaldheim Substitute Cards", "2021-02-05", (), skhm,
                               set_type="token", parent="khm")  # fmt: skip
    _dump(folder / "SKHM.json", substitutes)  # beside the files, not in ``mtgjson``
    sealed = _dump(folder / "sealed_basic_data.json", products)
    return WorldFiles(folder, tuple(files), sealed, tuple(built))


def _dump(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def build_db(path: Path, files: WorldFiles) -> Path:
    """A DuckDB file at ``path`` holding the world, as ``real_db`` holds the real data."""
    from boosterkit.pipeline import db
    from boosterkit.pipeline.collation import import_collation
    from boosterkit.pipeline.mtgjson import import_mtgjson

    con = db.connect(path)
    try:
        import_mtgjson(con, list(files.mtgjson))
        import_collation(con, files.sealed)
    finally:
        con.close()
    return path
