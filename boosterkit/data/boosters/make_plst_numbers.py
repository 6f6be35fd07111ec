"""Write ``plst_numbers.csv`` (a List card's Scryfall id → its number in Scryfall's ``plst``).

    python data/boosters/make_plst_numbers.py [SHARED_SCRYFALL_FOLDER] > data/boosters/plst_numbers.csv

Scryfall numbers The List after each card's original printing (``AFR-123``); MTGJSON's
PLIST.json (the first numbering, 1-727) gives each card's Scryfall id but not that number.
The two exports of taw/magic-sealed-data in ``../shared/scryfall/boosters`` name the same
List sheets in both numberings (``plist:N`` before 2024, ``plst:SET-NUM`` in July 2025), so a
card's Scryfall number is a ``plst`` reference (1) of one of the sets the card was printed in
(PLIST.json ``printings``), (2) in every 2025 sheet whose older version holds the card and in
none whose older version does not; (3) a number that is some card's only candidate is no other
card's. Only the cards left with exactly one number are written (no guess): the others are
exported as ``plst`` without a number, which Draftmancer and Moxfield match by name in the set.
``tests/test_exports.py`` checks the committed file is what this script writes, and every number
it gives of a set whose MTGJSON file is in ``../shared`` against that file's card.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

DEFAULT = Path(__file__).resolve().parents[3].parent / "shared" / "scryfall"
HEADER = """\
# Scryfall's number in set `plst` (The List, numbered after the original printing) of the
# cards of MTGJSON's PLIST.json (AUTRE04216/jsonSets, commit 3c2281531ccc0b25f11d36e40ed1831400e78108),
# by Scryfall id: the cards whose number the two taw/magic-sealed-data exports of ../shared
# (sealed_basic_data.json, plist:N; sealed-2025-07, plst:SET-NUM) pin down. Written by
# data/boosters/make_plst_numbers.py; tests/test_exports.py checks it.
scryfall_id,plst_number
"""


def _list_sheets(products: list[dict[str, Any]], prefix: str) -> dict[tuple[str, str], set[str]]:
    """(product, sheet) → the List references of that sheet, without ``prefix``."""
    out: dict[tuple[str, str], set[str]] = {}
    for p in products:
        for name, sheet in p["sheets"].items():
            refs = {r[len(prefix) :] for r in sheet["cards"] if r.startswith(prefix)}
            if refs:
                out[(p["code"], name)] = refs
    return out


def _candidates(root: Path) -> tuple[dict[str, set[str]], dict[str, str]]:
    """PLIST number → its possible ``plst`` numbers; PLIST number → Scryfall id."""
    old_products = json.loads((root / "boosters" / "sealed_basic_data.json").read_text("utf-8"))
    new_products = [json.loads(f.read_text("utf-8"))
                    for f in sorted((root / "boosters" / "sealed-2025-07").glob("*.json"))]  # fmt: skip
    old = {k: {re.sub("[a-z]$", "", r) for r in v}
           for k, v in _list_sheets(old_products, "plist:").items()}  # fmt: skip
    new = _list_sheets(new_products, "plst:")
    both = sorted(set(old) & set(new))
    every_new = set().union(*new.values())
    plist = json.loads((root / "mtgjson" / "PLIST.json").read_text("utf-8"))["data"]["cards"]
    cand: dict[str, set[str]] = {}
    ids: dict[str, str] = {}
    for card in plist:
        n = re.sub("[a-z]$", "", card["number"])
        ids[n] = card["identifiers"]["scryfallId"]
        sets = set(card.get("printings") or []) - {"PLIST"}
        found = {r for r in every_new if r.split("-", 1)[0] in sets}
        for key in both:
            found = found & new[key] if n in old[key] else found - new[key]
        cand[n] = found
    return cand, ids


def _settle(cand: dict[str, set[str]]) -> dict[str, str]:
    """The numbers each left with one candidate, once taken numbers are struck from others."""
    while True:
        taken = {next(iter(s)) for s in cand.values() if len(s) == 1}
        changed = False
        for n, s in cand.items():
            if len(s) > 1 and s & taken:
                cand[n] = s - taken
                changed = True
        if not changed:
            return {n: next(iter(s)) for n, s in cand.items() if len(s) == 1}


def plst_numbers(root: Path) -> dict[str, str]:
    """Scryfall id → ``plst`` number, for the cards the exports pin down."""
    cand, ids = _candidates(root)
    return {ids[n]: number for n, number in _settle(cand).items()}


def plst_csv(root: Path) -> str:
    """The text of ``plst_numbers.csv``."""
    rows = sorted(plst_numbers(root).items())
    return HEADER + "".join(f"{sid},{number}\n" for sid, number in rows)


if __name__ == "__main__":
    sys.stdout.write(plst_csv(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT))
