"""Write ``plist.csv`` (The List's first numbering → Scryfall id) from MTGJSON's PLIST.json.

    python data/boosters/make_plist.py [PLIST.json] > data/boosters/plist.csv

The default input is ``../shared/scryfall/mtgjson/PLIST.json`` beside the repository.
Only the number and the Scryfall id of each card are written: a number → id table, no card
data. Faces of one card (``side`` a/b) share their number and id; a number with two ids is
an error. ``tests/test_plist.py`` checks that the committed file is what this script writes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SOURCE = (
    "github.com/AUTRE04216/jsonSets PLIST.json at commit 3c2281531ccc0b25f11d36e40ed1831400e78108"
)
DEFAULT = Path(__file__).resolve().parents[3].parent / "shared/scryfall/mtgjson/PLIST.json"

HEADER = f"""\
# The List in its first numbering (MTGJSON set PLIST, 1-727), each number with the Scryfall id
# of that card, which is its printing in Scryfall's set `plst` (numbered there AFR-123 and
# the like). taw/magic-sealed-data's export before 2024 names these cards `plist:N`; this
# table resolves them from a Scryfall sync of `plst` as well as from an imported PLIST.json.
# Source: {SOURCE}
# (MTGJSON 5.2.0+20220425), field identifiers.scryfallId by number. Written by
# data/boosters/make_plist.py; tests/test_plist.py checks it against that file.
number,scryfall_id
"""


def plist_rows(path: Path) -> list[tuple[int, str]]:
    """(number, Scryfall id) of every card of the PLIST.json at ``path``, by number."""
    cards = json.loads(path.read_text(encoding="utf-8"))["data"]["cards"]
    ids: dict[int, str] = {}
    for card in cards:
        number, sid = int(card["number"]), card["identifiers"]["scryfallId"]
        if ids.setdefault(number, sid) != sid:
            raise SystemExit(f"{path}: number {number} has two Scryfall ids")
    return sorted(ids.items())


def plist_csv(path: Path) -> str:
    """The text of ``plist.csv`` for the PLIST.json at ``path``."""
    return HEADER + "".join(f"{n},{sid}\n" for n, sid in plist_rows(path))


if __name__ == "__main__":
    sys.stdout.write(plist_csv(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT))
