"""Synthetic sets in the published shape of a Play Booster set, as Scryfall card objects.

There is no real card data for MKM, OTJ, DFT … in ../shared, so the tests build small sets
with the published counts (81 commons, 100 uncommons, 60 rares, 20 mythics, 10 rare duals,
basics, Special Guests released the same day …; research play-boosters.md §2–§3) and load
them through the real pipeline (``sync_file``). Names and ids are made up; every field the
pipeline reads has Scryfall's name and type.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

COLOURS = ("W", "U", "B", "R", "G")
BASICS = (("Plains", "W"), ("Island", "U"), ("Swamp", "B"), ("Mountain", "R"), ("Forest", "G"))


def card(
    set_code: str,
    number: int | str,
    rarity: str,
    released: str,
    *,
    type_line: str | None = None,
    colors: tuple[str, ...] | None = None,
    booster: bool = True,
    name: str | None = None,
    promo_types: tuple[str, ...] = (),
    full_art: bool = False,
    set_type: str = "expansion",
) -> dict[str, Any]:
    """One Scryfall card object (the fields boosterkit reads)."""
    n = int(str(number).split("-")[-1]) if str(number).split("-")[-1].isdigit() else 0
    colors = colors if colors is not None else (COLOURS[n % 5],)
    return {
        "object": "card",
        "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"boosterkit-fixture/{set_code}/{number}")),
        "oracle_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"boosterkit-oracle/{set_code}/{number}")),
        "name": name or f"{set_code.upper()} {rarity} {number}",
        "set": set_code,
        "set_name": f"Fixture {set_code.upper()}",
        "set_type": set_type,
        "collector_number": str(number),
        "lang": "en",
        "rarity": rarity,
        "layout": "normal",
        "type_line": type_line or "Creature — Fixture",
        "mana_cost": "{1}",
        "cmc": 1.0,
        "colors": list(colors),
        "color_identity": list(colors),
        "booster": booster,
        "finishes": ["nonfoil", "foil"],
        "promo_types": list(promo_types),
        "frame_effects": [],
        "full_art": full_art,
        "released_at": released,
    }


LAND = {"type_line": "Land — Dual", "colors": ()}
BONUS = {"booster": False, "set_type": "masterpiece"}


def run(set_code: str, start: int, count: int, rarity: str, released: str, **kw: Any) -> list[dict]:
    """``count`` cards numbered from ``start``."""
    return [card(set_code, n, rarity, released, **kw) for n in range(start, start + count)]


def basics(set_code: str, start: int, count: int, released: str, **kw: Any) -> list[dict]:
    out = []
    for i in range(count):
        name, _ = BASICS[i % 5]
        out.append(
            card(
                set_code,
                start + i,
                "common",
                released,
                type_line=f"Basic Land — {name}",
                colors=(),
                name=f"{name} {start + i}",
                **kw,
            )
        )
    return out


def main_set(
    code: str,
    released: str,
    *,
    commons: int = 81,
    uncommons: int = 100,
    rares: int = 60,
    mythics: int = 20,
    start: int = 1,
) -> list[dict]:
    """Commons, uncommons, rares, mythics numbered on from ``start``."""
    out: list[dict] = []
    for count, rarity in (
        (commons, "common"),
        (uncommons, "uncommon"),
        (rares, "rare"),
        (mythics, "mythic"),
    ):
        out += run(code, start, count, rarity, released)
        start += count
    return out


def guests(start: int, count: int, released: str) -> list[dict]:
    """Special Guests released with a set (all mythic, PB §3), ``booster: false``."""
    return run("spg", start, count, "mythic", released, **BONUS)


MKM, OTJ, BLB, DSK, FDN, DFT, EOE, FIN, TDM = (
    "2024-02-09",
    "2024-04-19",
    "2024-08-02",
    "2024-09-27",
    "2024-11-15",
    "2025-02-14",
    "2025-08-01",
    "2025-06-13",
    "2025-04-11",
)


#: MKM's List by Scryfall `plst` number (generic.yaml): 30 C/U, then 10 R/M.
MKM_LIST = (
    "2X2-17 APC-117 ARB-68 C16-47 CLB-85 DDU-50 DIS-173 DIS-33 DKA-143 DKA-4 DOM-130 ELD-107 "
    "HOU-149 ISD-183 JOU-153 KLD-221 M14-213 MBS-10 MH2-191 MH2-46 ONS-272 RAV-277 RNA-182 "
    "SOI-262 SOM-96 STX-220 UMA-138 UMA-247 VOW-207 XLN-91 "
    "C21-19 DST-40 M20-167 MH1-21 MRD-99 ONS-89 RTR-140 SOM-98 STX-64 WAR-54"
).split()


def mkm() -> list[dict]:
    """81 C, 100 U, 60 R, 20 M, 10 rare surveil lands, 10 basics; SPG 19–28; 37 of the 40
    List cards as `plst` (3 are not in Scryfall, PB §3; 8 C, 21 U, then 6 R, 2 M), 6 of
    them with an older release date, and one `plst` card of MKM's date not on its List."""
    out = main_set("mkm", MKM) + run(
        "mkm", 262, 10, "rare", MKM, type_line="Land — Surveil", colors=()
    )
    out += basics("mkm", 272, 10, MKM) + guests(19, 10, MKM)
    rarities = ["common"] * 8 + ["uncommon"] * 22 + ["rare"] * 7 + ["mythic"] * 3
    for i, (number, rarity) in enumerate(zip(MKM_LIST, rarities)):
        if number in ("UMA-247", "STX-64", "M20-167"):  # not found as `plst` (PB §3)
            continue
        released = "2019-11-07" if i in (3, 10, 17, 24, 31, 35) else MKM  # six keep an older one
        out.append(card("plst", number, rarity, released, **BONUS))
    out.append(card("plst", "ZNR-1", "rare", MKM, **BONUS))
    return out


def otj() -> list[dict]:
    """71 C + 10 common desert duals, 100 U, 60 R, 20 M, basics; OTP 1–65 (20 U, 30 R, 15 M)
    and 66–80 (Collector-only); Big Score 1–30 and 31–40 (not in Play Boosters); SPG 29–38."""
    out = main_set("otj", OTJ, commons=71) + run("otj", 252, 10, "common", OTJ, **LAND)
    out += basics("otj", 272, 10, OTJ) + guests(29, 10, OTJ)
    for start, count, rarity in (
        (1, 20, "uncommon"),
        (21, 30, "rare"),
        (51, 15, "mythic"),
        (66, 15, "mythic"),
    ):
        out += run("otp", start, count, rarity, OTJ, **BONUS)
    out += run("big", 1, 40, "mythic", OTJ, **BONUS)
    return out


def blb() -> list[dict]:
    """The plain template: 81 C, 100 U, 60 R, 20 M, basics; SPG 54–63 (and MKM's, older)."""
    return main_set("blb", BLB) + basics("blb", 272, 10, BLB) + guests(54, 10, BLB)


def dsk() -> list[dict]:
    """71 C + 10 common duals, 100 U, 60 R, 20 M; 10 basics + 5 full-art manor basics;
    Booster Fun (promo type `boosterfun`) 53 R, 18 M, booster true; SPG 64–73."""
    out = main_set("dsk", DSK, commons=71) + run("dsk", 252, 10, "common", DSK, **LAND)
    out += basics("dsk", 277, 10, DSK) + basics("dsk", 272, 5, DSK, full_art=True)
    out += run("dsk", 300, 53, "rare", DSK, promo_types=("boosterfun",))
    out += run("dsk", 353, 18, "mythic", DSK, promo_types=("boosterfun",))
    return out + guests(64, 10, DSK) + guests(200, 1, DSK)  # the last: same day, outside DM's range


def fdn() -> list[dict]:
    """Main 1–271 (78 C, 100 U, 60 R, 20 M, duals in 259–271 but 262/264/267, which are
    commons), basics 272–281, character lands 282–291, borderless 292–361; SPG 74–83 and a
    Special Guest of the same day outside that range (never drawn)."""
    out = main_set("fdn", FDN, commons=78)
    out += [
        card("fdn", n, "common", FDN, **LAND)
        for n in (259, 260, 261, 263, 265, 266, 268, 269, 270, 271)
    ]
    out += [card("fdn", n, "common", FDN) for n in (262, 264, 267)]
    out += basics("fdn", 272, 10, FDN) + basics("fdn", 282, 10, FDN, full_art=True, booster=False)
    n = 292
    for rarity, count in (("common", 2), ("uncommon", 8), ("rare", 45), ("mythic", 15)):
        out += run("fdn", n, count, rarity, FDN, booster=False, promo_types=("boosterfun",))
        n += count
    return out + guests(74, 10, FDN) + guests(150, 1, FDN)


def dft() -> list[dict]:
    """Main 1–261 (81 C, 100 U, 60 R, 20 M), common duals 262–271, full-art basics 272–276,
    basics 277–291, borderless 292–375 (20 C, 23 U, 28 R, 13 M); SPG 84–93."""
    out = main_set("dft", DFT) + run("dft", 262, 10, "common", DFT, **LAND)
    out += basics("dft", 272, 5, DFT, full_art=True, booster=False) + basics("dft", 277, 15, DFT)
    n = 292
    for rarity, count in (("common", 20), ("uncommon", 23), ("rare", 28), ("mythic", 13)):
        out += run("dft", n, count, rarity, DFT, booster=False, promo_types=("boosterfun",))
        n += count
    return out + guests(84, 10, DFT)


def eoe() -> list[dict]:
    """Main 1–261, celestial basics 262–266, basics 267–276, viewport 277–286 (5 R, 5 M),
    triumphant 287–302 (12 R, 4 M), surreal 303–316 (10 R, 4 M); Stellar Sights `eos` 1–45
    (30 R, 15 M) and 46–50 (Collector-only); SPG 119–128."""
    out = (
        main_set("eoe", EOE)
        + basics("eoe", 262, 5, EOE, full_art=True)
        + basics("eoe", 267, 10, EOE)
    )
    for start, count, rarity in (
        (277, 5, "rare"),
        (282, 5, "mythic"),
        (287, 12, "rare"),
        (299, 4, "mythic"),
        (303, 10, "rare"),
        (313, 4, "mythic"),
    ):
        out += run("eoe", start, count, rarity, EOE, booster=False)
    for start, count, rarity in ((1, 30, "rare"), (31, 15, "mythic"), (46, 5, "mythic")):
        out += run("eos", start, count, rarity, EOE, **BONUS)
    return out + guests(119, 10, EOE)


def fin() -> list[dict]:
    """Main 1–293 (71 C + 10 duals, 110 U, 80 R, 22 M), basics 294–309, Booster Fun 310–405
    and 577; Through the Ages `fca` 1–64 (17 U, 32 R, 15 M) and 65–66."""
    out = main_set("fin", FIN, commons=71, uncommons=0, rares=0, mythics=0)
    out += run("fin", 72, 10, "common", FIN, **LAND) + run("fin", 82, 110, "uncommon", FIN)
    out += run("fin", 192, 80, "rare", FIN) + run("fin", 272, 22, "mythic", FIN)
    out += basics("fin", 294, 16, FIN)
    for start, count, rarity in (
        (310, 5, "rare"),
        (315, 5, "rare"),
        (320, 4, "mythic"),
        (324, 10, "common"),
        (334, 30, "uncommon"),
        (364, 10, "rare"),
        (374, 20, "uncommon"),
        (394, 8, "rare"),
        (402, 4, "mythic"),
        (577, 1, "mythic"),
    ):
        out += run("fin", start, count, rarity, FIN, booster=False)
    for start, count, rarity in (
        (1, 17, "uncommon"),
        (18, 32, "rare"),
        (50, 15, "mythic"),
        (65, 2, "mythic"),
    ):
        out += run("fca", start, count, rarity, FIN, **BONUS)
    return out


def tdm() -> list[dict]:
    """Main 1–249 (81 C, 100 U, 60 R, 8 M) + 250–271 (10 common duals, 12 M), full-art basics
    272–276, basics 277–291, showcase 292–326 (10 C, 15 U, 6 R, 4 M), clan 327–376 (40 R,
    10 M), reversible 377–382 (3 R, 3 M), borderless 383–398 (15 R, 1 M); SPG 104–118."""
    out = main_set("tdm", TDM, mythics=8) + run("tdm", 250, 10, "common", TDM, **LAND)
    out += run("tdm", 260, 12, "mythic", TDM)
    out += basics("tdm", 272, 5, TDM, full_art=True, booster=False) + basics("tdm", 277, 15, TDM)
    n = 292
    for rarity, count in (
        ("common", 10),
        ("uncommon", 15),
        ("rare", 6),
        ("mythic", 4),
        ("rare", 40),
        ("mythic", 10),
        ("rare", 3),
        ("mythic", 3),
        ("rare", 15),
        ("mythic", 1),
    ):
        out += run("tdm", n, count, rarity, TDM, booster=False)
        n += count
    return out + guests(104, 15, TDM)


#: Later sets (PB §2.11); the dates of MSH and HOB are made up (any date from EOE on).
SPM, TLA, ECL, MSH, HOB = "2025-09-26", "2025-11-21", "2026-01-23", "2026-06-26", "2026-09-25"


def later(code: str, released: str) -> list[dict]:
    """SPM, TLA, MSH, HOB as their overrides read them: 71 C + 10 common duals, 100 U, 60 R,
    20 M, 15 basics."""
    out = main_set(code, released, commons=71) + run(code, 252, 10, "common", released, **LAND)
    return out + basics(code, 272, 15, released)


def ecl() -> list[dict]:
    """81 C, 100 U, 60 R, 20 M, 10 basics + 5 full-art basics; 20 SPG released with it
    (129–148, its range) and one more of its date outside the range (never drawn)."""
    out = (
        main_set("ecl", ECL)
        + basics("ecl", 262, 10, ECL)
        + basics("ecl", 272, 5, ECL, full_art=True)
    )
    return out + guests(129, 20, ECL) + guests(180, 1, ECL)


def write(path: Path, cards: list[dict]) -> Path:
    path.write_text(json.dumps(cards))
    return path
