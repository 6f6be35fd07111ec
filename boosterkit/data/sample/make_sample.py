"""Write the bundled sample (``mtgjson.json.gz``, ``sealed.json.gz``) from ``../shared``.

    python data/sample/make_sample.py [SHARED_SCRYFALL_FOLDER]

The default input is ``../shared/scryfall`` beside the repository. The sample is real data,
trimmed, never edited:

- ``mtgjson.json.gz``: one MTGJSON v5 file in AllPrintings' shape (``{"meta", "data":
  {CODE: set}}``) holding AFR (cards, tokens, booster sheets), the cards of The List
  (PLIST, its first numbering) that magic-sealed-data's AFR Set Booster names, and every
  minigame set (MAFR, MKHM, MZNR, MSTX, MMH2 and the nine of ``minigames-2025/``). Each set
  and card keeps only the keys ``boosterkit import mtgjson`` reads (``SET_KEYS``,
  ``CARD_KEYS``; foreign data: the names and type lines in the sheets' languages).
- ``sealed.json.gz``: taw/magic-sealed-data's AFR products, as the export has them.

Sources (``../shared/scryfall/SOURCES.md`` has each file's size and commit): the MTGJSON set
files are those of github.com/AUTRE04216/jsonSets (MTGJSON 5.2.0+20220425: AFR, PLIST and
the 2020-2021 minigame sets), the nine minigame sets of 2022-2024 those of
github.com/taw/magic-search-engine (MTGJSON 5.2.2+20251002), the products those of
github.com/taw/magic-sealed-data ``sealed_basic_data.json`` (commit 7847464, 2023-05-07).
Card data © Wizards of the Coast.

Output is deterministic (sorted sets, gzip without a time stamp). ``tests/test_sample.py``
checks that the committed files hold what this script writes, and that a database built
from them equals one built from the full files, for every row the sample holds.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT = Path(__file__).resolve().parents[3].parent / "shared" / "scryfall"
MTGJSON_FILE, SEALED_FILE = "mtgjson.json.gz", "sealed.json.gz"

#: The set with its cards, tokens and booster sheets; its sealed-data products come along.
SET = "AFR"
#: The minigame sets: those of 2020-2021 beside the set files, and the nine bare set objects.
MINIGAMES = ("MAFR", "MKHM", "MZNR", "MSTX", "MMH2")
MINIGAMES_2025 = "minigames-2025"
#: The set of The List in magic-sealed-data's first numbering (``plist:N``).
LIST = "PLIST"

#: Keys of a set object the importer reads.
SET_KEYS = (
    "baseSetSize", "booster", "cards", "code", "isOnlineOnly", "name", "parentCode",
    "releaseDate", "tokens", "type",
)  # fmt: skip
#: Keys of a card or token entry the importer reads (``pipeline/mtgjson_transform.py``).
CARD_KEYS = (
    "artist", "borderColor", "boosterTypes", "colorIdentity", "colors", "convertedManaCost",
    "faceName", "finishes", "foreignData", "frameEffects", "identifiers", "isFullArt",
    "isPromo", "language", "layout", "loyalty", "manaCost", "manaValue", "name", "number",
    "originalReleaseDate", "power", "promoTypes", "rarity", "setCode", "side", "text",
    "toughness", "type", "uuid", "watermark",
)  # fmt: skip
IDENTIFIER_KEYS = ("scryfallId", "scryfallOracleId", "mtgoId", "mtgoFoilId")
#: Foreign data kept: the names (and type lines) of the sheets' other languages.
FOREIGN_LANGUAGES = ("French", "Spanish")
FOREIGN_KEYS = ("language", "name", "type")


def _set_object(path: Path) -> dict[str, Any]:
    """The set object of an MTGJSON set file, or of a bare set object."""
    data = json.loads(path.read_text(encoding="utf-8"))
    found: dict[str, Any] = data["data"] if "data" in data else data
    return found


def _card(entry: dict[str, Any]) -> dict[str, Any]:
    out = {k: entry[k] for k in CARD_KEYS if k in entry}
    out["identifiers"] = {
        k: v for k, v in entry.get("identifiers", {}).items() if k in IDENTIFIER_KEYS
    }
    if "manaValue" in out:
        out.pop("convertedManaCost", None)  # the importer reads it only without manaValue
    foreign = [
        {k: f[k] for k in FOREIGN_KEYS if k in f}
        for f in entry.get("foreignData") or ()
        if f.get("language") in FOREIGN_LANGUAGES
    ]
    if foreign:
        out["foreignData"] = foreign
    else:
        out.pop("foreignData", None)
    return out


def trimmed(data: dict[str, Any], keep: Any = None) -> dict[str, Any]:
    """A set object with only the keys the importer reads (``keep``: the cards kept)."""
    out = {k: data[k] for k in SET_KEYS if k in data}
    for key in ("cards", "tokens"):
        out[key] = [_card(e) for e in data.get(key) or () if keep is None or keep(e)]
    return out


def list_numbers(products: list[dict[str, Any]]) -> set[str]:
    """The List's numbers (letter suffix dropped) that ``products`` reference."""
    refs = (ref for p in products for sheet in p["sheets"].values() for ref in sheet["cards"])
    return {re.sub(r"[a-z]$", "", r.split(":")[1]) for r in refs if r.startswith("plist:")}


def sample(shared: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the MTGJSON file, the sealed-data products) of the sample, from ``shared``."""
    sealed = json.loads((shared / "boosters" / "sealed_basic_data.json").read_text("utf-8"))
    products = [p for p in sealed if str(p["set_code"]).upper() == SET]
    numbers = list_numbers(products)
    folder = shared / "mtgjson"
    sets = {SET: trimmed(_set_object(folder / f"{SET}.json"))}
    sets[LIST] = trimmed(
        _set_object(folder / f"{LIST}.json"),
        lambda e: re.sub(r"[a-z]$", "", str(e["number"])) in numbers,
    )
    games = [folder / f"{c}.json" for c in MINIGAMES]
    games += sorted((folder / MINIGAMES_2025).glob("*.json"))
    for path in games:
        data = trimmed(_set_object(path))
        sets[data["code"]] = data
    meta = {
        "description": "boosterkit's bundled sample: MTGJSON v5 set data (5.2.0+20220425; the "
        "minigame sets of 2022-2024 5.2.2+20251002), trimmed to the keys boosterkit reads by "
        "data/sample/make_sample.py. Card data (c) Wizards of the Coast."
    }
    return {"meta": meta, "data": dict(sorted(sets.items()))}, products


def write(path: Path, value: Any) -> int:
    """Write ``value`` as compact JSON, gzip-compressed without a time stamp; the bytes written."""
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    packed = gzip.compress(raw, compresslevel=9, mtime=0)
    path.write_bytes(packed)
    return len(packed)


def main(shared: Path = DEFAULT, out: Path = HERE) -> None:
    mtgjson, products = sample(shared)
    for name, value in ((MTGJSON_FILE, mtgjson), (SEALED_FILE, products)):
        print(f"{out / name}: {write(out / name, value):,} bytes", file=sys.stderr)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT)
