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


def card(set_code: str, number: int | str, rarity: str, released: str, *, type_line: str | None = None,
         colors: tuple[str, ...] | None = None, booster: bool = True, name: str | None = None,
         promo_types: tuple[str, ...] = (), full_art: bool = False, set_type: str = "expansion") -> dict[str, Any]:
    """One Scryfall card object (the fields boosterkit reads)."""
    n = int(str(number).split("-")[-1]) if str(number).split("-")[-1].isdigit() else 0
    colors = colors if colors is not None else (COLOURS[n % 5],)
    return {
        "object": "card",
        "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"boosterkit-fixture/{set_code}/{number}")),
        "oracle_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"boosterkit-oracle/{set_code}/{number}")),
        "name": name or f"{set_code.upper()} {rarity} {number}",
        "set": set_code, "set_name": f"Fixture {set_code.upper()}", "set_type": set_type,
        "collector_number": str(number), "lang": "en", "rarity": rarity, "layout": "normal",
        "type_line": type_line or "Creature — Fixture", "mana_cost": "{1}", "cmc": 1.0,
        "colors": list(colors), "color_identity": list(colors), "booster": booster,
        "finishes": ["nonfoil", "foil"], "promo_types": list(promo_types), "frame_effects": [],
        "full_art": full_art, "released_at": released,
    }


def _run(set_code: str, start: int, count: int, rarity: str, released: str, **kw: Any) -> list[dict]:
    return [card(set_code, n, rarity, released, **kw) for n in range(start, start + count)]


def play_set(code: str, released: str, *, commons: int = 81, uncommons: int = 100, rares: int = 60,
             mythics: int = 20, rare_duals: int = 0, common_duals: int = 0, basics: tuple[int, int] = (272, 10),
             full_art_basics: tuple[int, int] | None = None, borderless: tuple[int, dict[str, int]] | None = None,
             spg: tuple[int, int] | None = (19, 10), booster_fun: dict[str, int] | None = None) -> list[dict]:
    """A main set numbered 1… (commons, common duals, uncommons, rares, rare duals, mythics),
    basics at ``basics`` = (first number, count), optional full-art basics, borderless
    treatments (first number, {rarity: count}) and Special Guests (``spg`` numbers) released
    the same day, plus an older Special Guest that must never be drawn."""
    out: list[dict] = []
    n = 1
    for count, rarity, kw in ((commons, "common", {}), (common_duals, "common", {"type_line": "Land — Dual", "colors": ()}),
                              (uncommons, "uncommon", {}), (rares, "rare", {}),
                              (rare_duals, "rare", {"type_line": "Land — Surveil", "colors": ()}),
                              (mythics, "mythic", {})):
        out += _run(code, n, count, rarity, released, **kw)
        n += count
    for i in range(basics[1]):
        name, col = BASICS[i % 5]
        out.append(card(code, basics[0] + i, "common", released, type_line=f"Basic Land — {name}",
                        colors=(), name=name))
    if full_art_basics:
        for i in range(full_art_basics[1]):
            name, col = BASICS[i % 5]
            out.append(card(code, full_art_basics[0] + i, "common", released, full_art=True,
                            type_line=f"Basic Land — {name}", colors=(), name=name, booster=False))
    if borderless:
        n = borderless[0]
        for rarity, count in borderless[1].items():
            out += _run(code, n, count, rarity, released, booster=False, promo_types=("boosterfun",))
            n += count
    for rarity, count in (booster_fun or {}).items():  # boosterfun-marked copies, numbered on
        out += _run(code, 400 + len(out), count, rarity, released, promo_types=("boosterfun",))
    if spg:
        out += _run("spg", spg[0], spg[1], "mythic", released, booster=False, set_type="masterpiece")
        out.append(card("spg", 1, "mythic", "2023-11-17", booster=False, set_type="masterpiece"))
    return out


def write(path: Path, cards: list[dict]) -> Path:
    path.write_text(json.dumps(cards))
    return path
