"""Small sets that reproduce what real card data does to generic products (issue 18).

The shared data has no DFT, EOE, MH3, TLA or HOB card files, and no MTGJSON VOW file, so
each situation is built here from ``play_fixtures`` (Scryfall card objects with made-up
names and ids, the fields the pipeline reads):

- ``dft_one_per_name``/``eoe_one_per_name``: a one-printing-per-name dump (Scryfall's
  ``unique=cards``): the full-art (DFT 272–276) or celestial (EOE 262–266) basics share
  their names with the regular basics, so they are absent;
- ``mh3``: the land slot's basics are ``booster: false`` (bundle printings); only
  Snow-Covered Wastes (309) is a booster basic; Special Guests 39–48 carry an earlier
  release date than the set;
- ``snapshot``: a pre-release set, every card ``booster: false`` (TLA, HOB);
- ``vow_mtgjson``: MTGJSON's VOW booster sheet ``sfcCommon`` (the 90 commons, balanced)
  for the cards of magic-sealed-data's ``sfc_common_with_showcase`` (those 90 and the 7
  showcase versions of 7 of them).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import play_fixtures as pf


def dft_one_per_name() -> list[dict]:
    return [c for c in pf.dft() if not (c["set"] == "dft" and 272 <= _n(c) <= 276)]


def eoe_one_per_name() -> list[dict]:
    return [c for c in pf.eoe() if not (c["set"] == "eoe" and 262 <= _n(c) <= 266)]


def _n(card: dict) -> int:
    number = card["collector_number"]
    return int(number) if number.isdigit() else -1


MH3, MH3_SPG = "2024-06-14", "2024-06-07"


def mh3() -> list[dict]:
    """Main 1–261 (80 C, 101 U, 60 R, 20 M), new-to-Modern 262–303 (20 U, 18 R, 4 M),
    full-art Eldrazi basics 304–308 and basics 310–319 `booster: false`, Snow-Covered
    Wastes 309 `booster: true`; SPG 39–48 of an earlier date; Commander mythics `m3c` 1–16."""
    out = pf.main_set("mh3", MH3, commons=80, uncommons=101, rares=60, mythics=20)
    for start, count, rarity in ((262, 20, "uncommon"), (282, 18, "rare"), (300, 4, "mythic")):
        out += pf.run("mh3", start, count, rarity, MH3)
    out += pf.basics("mh3", 304, 5, MH3, full_art=True, booster=False)
    out.append(
        pf.card(
            "mh3", 309, "common", MH3, type_line="Basic Snow Land", colors=(),
            name="Snow-Covered Wastes",
        )
    )  # fmt: skip
    out += pf.basics("mh3", 310, 10, MH3, booster=False)
    out += pf.guests(39, 10, MH3_SPG) + pf.run("m3c", 1, 16, "mythic", MH3, **pf.BONUS)
    return out


def snapshot(code: str, released: str) -> list[dict]:
    """A pre-release set as Scryfall shows it: the override's shape (71 C + 10 common duals
    252–261, 100 U, 60 R, 20 M, basics 272–286), treatments 287–300, all `booster: false`."""
    cards = pf.later(code, released) + pf.run(code, 287, 14, "rare", released)
    return [dict(c, booster=False) for c in cards]


def set_object(code: str, released: str, printed_size: int | None) -> dict[str, Any]:
    """A Scryfall set object (the fields boosterkit reads)."""
    return {
        "object": "set", "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"boosterkit-set/{code}")),
        "code": code, "name": f"Fixture {code.upper()}", "set_type": "expansion",
        "released_at": released, "card_count": 314, "printed_size": printed_size,
        "digital": False, "parent_set_code": None,
    }  # fmt: skip


def vow_mtgjson(sealed_vow: dict, path: Path) -> Path:
    """An MTGJSON VOW file for the cards of the sealed-data ``vow`` draft sheet
    ``sfc_common_with_showcase`` (weights 3 and 2: the 90 commons; weight 1: the 7
    showcase versions of the 7 commons of weight 2, named as those, in the same order),
    with the booster sheet ``sfcCommon``: the 90 commons, ``balanceColors``."""
    sheet = sealed_vow["sheets"]["sfc_common_with_showcase"]["cards"]
    numbers = {w: [r.split(":")[1] for r, x in sheet.items() if x == w] for w in (1, 2, 3)}
    commons = numbers[3] + numbers[2]
    names = {n: f"Crimson Vow Fixture Common {n}" for n in commons}
    colors = {n: "WUBRG"[i % 5] for i, n in enumerate(commons)}
    for show, of in zip(numbers[1], numbers[2]):
        names[show], colors[show] = names[of], colors[of]
    cards = [_mtgjson_card(n, names[n], colors[n]) for n in [*commons, *numbers[1]]]
    sfc = {c["uuid"]: 1 for c in cards if c["number"] in commons}
    data = {
        "meta": {"date": "2022-04-25", "version": "5.2.0+20220425"},
        "data": {
            "baseSetSize": 277, "code": "VOW", "name": "Innistrad: Crimson Vow",
            "releaseDate": "2021-11-19", "type": "expansion", "cards": cards, "tokens": [],
            "booster": {"default": {
                "boosters": [{"contents": {"sfcCommon": 10}, "weight": 1}],
                "boostersTotalWeight": 1,
                "sheets": {"sfcCommon": {"balanceColors": True, "foil": False,
                                         "totalWeight": len(sfc), "cards": sfc}},
            }},
        },
    }  # fmt: skip
    path.write_text(json.dumps(data))
    return path


def _mtgjson_card(number: str, name: str, color: str) -> dict[str, Any]:
    key = f"boosterkit-fixture/vow/{number}"
    return {
        "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, key + "/uuid")),
        "identifiers": {"scryfallId": str(uuid.uuid5(uuid.NAMESPACE_URL, key))},
        "name": name, "number": number, "setCode": "VOW", "rarity": "common",
        "layout": "normal", "type": "Creature — Fixture", "types": ["Creature"],
        "colors": [color], "colorIdentity": [color], "manaValue": 2.0, "manaCost": "{1}",
        "boosterTypes": ["draft"], "finishes": ["nonfoil", "foil"],
    }  # fmt: skip
