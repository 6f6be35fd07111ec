"""A folder laid out like ``../shared/scryfall`` holding built files (``built_scryfall``).

The files the Scryfall-side tests read, in Scryfall's formats, from ``tests/builders.py``:

- ``sets/sets.json``: the set list (a list object) with the families of the sets below, the
  world's sets (``tests/world.py``) and the sets of ``tests/fixtures/mtgjson_sync`` (their
  Scryfall ids); ``sets/set-cmm.json`` one set object; ``sets/sets-page{1,2}.json`` a
  paginated pair of 10 sets each;
- ``cards/<set>.unique-cards.json``: arrays of card objects: ONE (266 cards and one printing
  of each basic land, 272–276), MOM, BRO, LTR, WOE with WOT (181 + 12: two search pages);
  double-faced cards keep their colours and images on their faces, as Scryfall's do;
  ``cards/single-card.json`` one card object (a printing of the world's MH2, so MTGJSON's
  MH2.json holds it too), ``cards/rulings-single-card.json`` a list of rulings;
- ``search/one-set-search-page1.json`` the first page (175) of a ONE search,
  ``search/forests-page{1,2}.json`` a search of 20 Forests in two pages;
- ``errors/validation_error-parse-mana.json`` an error object;
- ``fixtures/mtg_ssm/cards.json`` cards of every layout the kinds depend on.

Names, ids and texts are made up; the counts are the tests' own (read from these files).
"""

from __future__ import annotations

import importlib.util
import json
import uuid
from pathlib import Path
from typing import Any

import world
from builders import COLOURS, NS, Card, Face, basic_land, modal, printing

#: (code, name, set type, released, parent, cards built) of the sets with a card file.
CARD_SETS = (
    ("one", "Phyrexia: All Will Be One", "expansion", "2023-02-03", None, 266),
    ("mom", "March of the Machine", "expansion", "2023-04-21", None, 80),
    ("bro", "The Brothers' War", "expansion", "2022-11-18", None, 40),
    ("ltr", "The Lord of the Rings: Tales of Middle-earth", "expansion", "2023-06-23", None, 60),
    ("woe", "Wilds of Eldraine", "expansion", "2023-09-08", None, 181),
    ("wot", "Wilds of Eldraine: Enchanting Tales", "masterpiece", "2023-09-08", "woe", 12),
)
#: child suffixes → set type, for each family: t<set> tokens, a<set> art series, …
CHILDREN = {
    "one": (("tone", "token"), ("mone", "minigame"), ("aone", "memorabilia"),
            ("onc", "commander"), ("tonc", "token", "onc")),
    "mom": (("tmom", "token"), ("moc", "commander"), ("tmoc", "token", "moc"),
            ("amom", "memorabilia"), ("pmom", "promo"), ("mul", "masterpiece"),
            ("tmul", "token", "mul")),
    "bro": (("tbro", "token"), ("mbro", "minigame"), ("brr", "masterpiece")),
    "ltr": (("tltr", "token"), ("mltr", "minigame"), ("ltc", "commander")),
    "woe": (("twoe", "token"), ("woc", "commander"), ("twoc", "token", "woc"),
            ("awoe", "memorabilia")),
    "mkm": (("tmkm", "token"), ("amkm", "memorabilia"), ("mkc", "commander"),
            ("tmkc", "token", "mkc"), ("pmkm", "promo"), ("clu", "draft_innovation"),
            ("fclu", "memorabilia", "clu")),
    "clb": (("mclb", "minigame"),),
}  # fmt: skip
OTHER_SETS = (
    ("clb", "Commander Legends: Battle for Baldur's Gate", "draft_innovation", "2022-06-10", None),
    ("cmm", "Commander Masters", "masters", "2023-08-04", None),
    ("etx", "Eternal Fixture Cards", "eternal", "2024-03-08", None),
)


def set_object(
    code: str, name: str, set_type: str, released: str, parent: str | None = None,
    card_count: int = 0, set_id: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """A Scryfall set object."""
    sid = set_id or str(uuid.uuid5(NS, f"set:{code}"))
    obj: dict[str, Any] = {
        "object": "set",
        "id": sid,
        "code": code,
        "name": name,
        "uri": f"https://api.scryfall.com/sets/{sid}",
        "search_uri": f"https://api.scryfall.com/cards/search?q=e%3A{code}&unique=prints",
        "released_at": released,
        "set_type": set_type,
        "card_count": card_count,
        "digital": False,
        "nonfoil_only": False,
        "foil_only": False,
        "icon_svg_uri": f"https://svgs.scryfall.io/sets/{code}.svg",
    }
    if parent:
        obj["parent_set_code"] = parent
    return obj


def _fixture_sets() -> dict[str, tuple[str, str, str, str]]:
    """The sets of ``tests/fixtures/mtgjson_sync`` (its ``build.py`` names their ids)."""
    path = Path(__file__).parent / "fixtures" / "mtgjson_sync" / "build.py"
    spec = importlib.util.spec_from_file_location("mtgjson_sync_build", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.SETS)


def set_list() -> list[dict[str, Any]]:
    """Every set of the built set list, parents before their children."""
    out = [
        set_object(c, n, t, r, p, k + (5 if c == "one" else 0)) for c, n, t, r, p, k in CARD_SETS
    ]
    for code, (sid, name, set_type, released) in _fixture_sets().items():
        out.append(set_object(code, name, set_type, released, set_id=sid))
    out += [set_object(*s) for s in OTHER_SETS]
    for plan in world.PLANS:
        out.append(set_object(plan.code, plan.name, plan.set_type, plan.released))
        out += [set_object(f"{k}{plan.code}", f"{plan.name} {what}", t, plan.released, plan.code)
                for k, what, t in (("t", "Tokens", "token"), ("m", "Minigames", "minigame"),
                                   ("a", "Art Series", "memorabilia"))]  # fmt: skip
    known = {s["code"]: s for s in out}
    for parent, children in CHILDREN.items():
        for code, set_type, *via in children:
            if code not in known:
                up = known[via[0] if via else parent]
                s = set_object(code, f"{known[parent]['name']} {set_type.title()}", set_type,
                               up["released_at"], via[0] if via else parent)  # fmt: skip
                known[code] = s
                out.append(s)
    return out


NOUNS = ("Golem", "Phyrexian", "Knight", "Faerie", "Hobbit", "Elf", "Construct", "Angel")


def set_cards(code: str, name: str, set_type: str, released: str, count: int) -> list[Card]:
    """``count`` cards of a set: every rarity, colour and main card type, a multicoloured
    card in 7, a colourless one in 11, a land in 13, a transform card in 6 (MOM) or 17;
    ONE adds one printing of each basic land (272–276)."""
    out: list[Card] = []
    up, booster = code.upper(), set_type == "expansion"
    for i in range(1, count + 1):
        rarity = ("common",) * 9 + ("uncommon",) * 6 + ("rare",) * 4 + ("mythic",)
        r = rarity[i % 20]
        colours = COLOURS[i % 5] + (COLOURS[(i + 1) % 5] if i % 7 == 0 else "")
        colours = "" if i % 11 == 0 else colours
        mv = 1 + i % 6
        kinds = ("Creature — " + NOUNS[i % 8], "Instant", "Sorcery", "Enchantment", "Artifact")
        type_line = "Land" if i % 13 == 0 else kinds[i % 5]
        if r in ("rare", "mythic") and "Creature" in type_line:
            type_line = "Legendary " + type_line
        card_name = f"{up} {world.WORDS.get(colours[:1], 'Grey')} {NOUNS[i % 8]} {i}"
        kw: dict[str, Any] = {"released": released, "booster": booster, "artist": f"Artist {i % 9}"}
        if i % (6 if code == "mom" else 17) == 0 and type_line != "Land":
            c = colours or "W"
            front = Face(card_name, f"Creature — {NOUNS[i % 8]}", tuple(c), f"{{{mv}}}", "Ward 1",
                         str(mv), str(mv))  # fmt: skip
            back = Face(f"{card_name} Ascended", f"Creature — {NOUNS[i % 8]} Horror", tuple(c),
                        None, "Flying", str(mv + 1), str(mv + 1))  # fmt: skip
            out.append(modal(code, i, front, back, mv, layout="transform", rarity=r, **kw))
            continue
        text = "Flying" if "Creature" in type_line else world.DRAW
        out.append(printing(code, i, card_name, r, colours, mv, type_line, text, **kw))
    if code == "one":
        out += [basic_land(code, 272 + k, c, released=released) for k, c in enumerate(COLOURS)]
    return out


def card_files() -> dict[str, list[dict[str, Any]]]:
    """File name → the Scryfall card objects it holds (WOE and WOT share one file)."""
    names = {s["code"]: s for s in set_list()}
    files: dict[str, list[dict[str, Any]]] = {}
    for code, name, set_type, released, _, count in CARD_SETS:
        cards = set_cards(code, name, set_type, released, count)
        objs = [c.scryfall(name, set_type, names[code]["id"]) for c in cards]
        files.setdefault("woe+wot" if code in ("woe", "wot") else code, []).extend(objs)
    return files


def single_card() -> dict[str, Any]:
    """A printing of the world's MH2 (a rare land), as Scryfall's single-card answer."""
    mh2 = next(p for p in world.PLANS if p.code == "mh2")
    card = next(
        c for c in world.world_set(mh2).main if c.type_line == "Land" and c.rarity == "rare"
    )
    return card.scryfall(mh2.name, mh2.set_type)


def layouts() -> list[dict[str, Any]]:
    """One card of each layout the derived kind depends on (mtg_ssm's format samples)."""
    base = {"released": "2020-01-01", "booster": False}
    out = [
        printing("ssm", 1, "Sample Bear", "common", "G", 2, "Creature — Bear", None, **base),
        printing("tssm", 1, "Sample Token", "common", "", 0, "Token Creature — Spirit", None,
                 layout="token", **base),
        printing("ossm", 1, "Sample Plane", "common", "", 0, "Plane — Sample", None,
                 layout="planar", **base),
        printing("ossm", 2, "Sample Scheme", "common", "", 0, "Scheme", None, layout="scheme",
                 **base),
        modal("ssm", 2, Face("Sample Day", "Creature — Human", ("W",), "{W}", None, "1", "1"),
              Face("Sample Night", "Creature — Werewolf", ("W",), None, None, "2", "2"), 1,
              layout="transform", **base),
        modal("sld", 3, Face("Sample Left", "Creature — Elf", ("G",), "{G}", None, "1", "1"),
              Face("Sample Right", "Creature — Elf", ("G",), "{G}", None, "1", "1"), 1,
              layout="reversible_card", **base),
    ]  # fmt: skip
    types = {"tssm": "token", "ossm": "memorabilia"}
    return [c.scryfall("Samples", types.get(c.set_code, "expansion")) for c in out]


def write(folder: Path) -> Path:
    """Write the folder; returns it (use it where a test used ``../shared/scryfall``)."""
    sets = set_list()
    cards = card_files()
    one = cards["one"]
    page1 = "https://api.scryfall.com/sets?page=2"
    search_next = "https://api.scryfall.com/cards/search?order=name&page=2&q=set%3Aone&unique=cards"
    rulings = [{"object": "ruling", "oracle_id": one[0]["oracle_id"], "source": "wotc",
                "published_at": "2023-02-03", "comment": f"Ruling {k} on this card."}
               for k in (1, 2)]  # fmt: skip
    forests = [
        basic_land("sld", 100 + k, "G", released="2022-01-01").scryfall("Secret Lair", "box")
        for k in range(20)
    ]
    content: dict[str, Any] = {
        "sets/sets.json": {"object": "list", "has_more": False, "data": sets},
        "sets/set-cmm.json": next(s for s in sets if s["code"] == "cmm"),
        "sets/sets-page1.json": {"object": "list", "has_more": True, "next_page": page1,
                                 "data": sets[:10]},
        "sets/sets-page2.json": {"object": "list", "has_more": False, "data": sets[10:20]},
        "cards/single-card.json": single_card(),
        "cards/rulings-single-card.json": {"object": "list", "has_more": False, "data": rulings},
        "search/one-set-search-page1.json": {"object": "list", "total_cards": len(one),
                                             "has_more": True, "next_page": search_next,
                                             "data": one[:175]},
        "search/forests-page1.json": {"object": "list", "has_more": True, "total_cards": 20,
                                      "next_page": "https://api.scryfall.com/cards/search?some_args=stuff",
                                      "data": forests[:10]},
        "search/forests-page2.json": {"object": "list", "has_more": False, "total_cards": 20,
                                      "data": forests[10:]},
        "errors/validation_error-parse-mana.json": {
            "object": "error", "status": 422, "code": "validation_error",
            "details": "The string fragment(s) “TFF” could not be understood as part of mana cost.",
        },
        "fixtures/mtg_ssm/cards.json": layouts(),
    }  # fmt: skip
    content |= {f"cards/{name}.unique-cards.json": objs for name, objs in cards.items()}
    for name, data in content.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return folder
