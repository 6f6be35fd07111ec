"""The List in magic-sealed-data's old numbering (``plist:N``), resolved to Scryfall ids.

taw/magic-sealed-data's export before 2024 names The List's cards ``plist:N`` (MTGJSON's
historical set PLIST, numbers 1–727); Scryfall numbers the same cards in set ``plst`` after
their original printing (``AFR-123``), and the 2025 export does too (``plst:AFR-123``).
``data/boosters/plist.csv`` maps each PLIST number to the card's Scryfall id, so a
``plist:N`` reference resolves from an imported PLIST.json (by set and number, as any card)
and from a Scryfall sync of ``plst`` (by that id). A letter suffix (``108a``) drops.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from boosterkit.data import DATA_DIR
from boosterkit.errors import InputError

LIST_FILE = DATA_DIR / "boosters" / "plist.csv"
#: The set code magic-sealed-data gives The List before 2024, and Scryfall's.
OLD_LIST_SET = "plist"
LIST_SET = "plst"
#: What brings The List's cards: MTGJSON's PLIST.json (old numbering) or a Scryfall sync.
IMPORT_HINT = "boosterkit import mtgjson …/PLIST.json"
SYNC_HINT = f"boosterkit sync {LIST_SET}"

#: Joins giving ``pl.card_id``: the Scryfall id of an old-numbered List reference ``sc``
#: (``$list_numbers`` / ``$list_ids`` are ``list_params()``), when that card is loaded.
LIST_JOIN_SQL = f"""
    LEFT JOIN (SELECT unnest($list_numbers::VARCHAR[]) AS number,
                      unnest($list_ids::VARCHAR[]) AS card_id) pm
           ON sc.set_code = '{OLD_LIST_SET}'
          AND pm.number = regexp_replace(sc.collector_number, '[a-z]$', '')
    LEFT JOIN (SELECT id AS card_id FROM cards) pl ON pl.card_id = pm.card_id
"""


@functools.lru_cache(maxsize=4)
def _read(path: Path, version: tuple[int, int]) -> dict[str, str]:
    ids: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    body = [(i, line) for i, line in enumerate(lines, 1) if line and not line.startswith("#")]
    if not body or body[0][1] != "number,scryfall_id":
        raise InputError(f"{path}: expected the header line 'number,scryfall_id'")
    for i, line in body[1:]:
        m = re.fullmatch(r"(\d+),([0-9a-f-]{36})", line)
        if not m:
            raise InputError(f"{path}: line {i}: expected 'NUMBER,SCRYFALL_ID', got {line!r}")
        ids[m.group(1)] = m.group(2)
    return ids


def list_ids(path: Path | None = None) -> dict[str, str]:
    """PLIST number (as text, no suffix) → Scryfall id, read once per file version."""
    p = Path(path or LIST_FILE)
    st = p.stat()
    return _read(p, (st.st_mtime_ns, st.st_size))


def list_params() -> dict[str, list[str]]:
    """The named parameters ``LIST_JOIN_SQL`` reads."""
    ids = list_ids()
    return {"list_numbers": list(ids), "list_ids": list(ids.values())}


def known_number(number: str | None) -> bool:
    """Whether ``plist:number`` is in the table (``108a`` is 108)."""
    return re.sub(r"[a-z]$", "", number or "") in list_ids()


def list_fill(old_numbers: list[str | None], new_refs: bool) -> list[str]:
    """The commands that bring List cards: old-numbered ones known to the table come with
    PLIST.json or a ``plst`` sync; Scryfall-numbered ones (``plst:…``) with the sync only."""
    hints = [IMPORT_HINT, SYNC_HINT] if any(map(known_number, old_numbers)) else []
    if new_refs and SYNC_HINT not in hints:
        hints.append(SYNC_HINT)
    return hints
