"""The commands that bring cards a database lacks (``boosterkit sync SET``, MTGJSON's PLIST.json
for The List's old numbering): what a refusal, an import summary or a product listing says
to run. Pure: reads no database."""

from __future__ import annotations

import shlex

from boosterkit.pipeline import thelist

__all__ = ["fill_hints"]


def fill_hints(
    set_code: str, missing_sets: list[str], list_numbers: list[str | None] | None = None
) -> list[str]:
    """One hint per command that would bring ``missing_sets`` (cards of ``set_code``'s
    products not in the database): child sets (``a``/``t``/``m`` + set) come with the set's
    sync; The List in magic-sealed-data's old numbering (``plist``) with MTGJSON's
    PLIST.json or a sync of ``plst`` (``pipeline.thelist``). ``list_numbers``: the missing
    ``plist`` numbers, when known; none of them in the table, no hint for them."""
    children: list[str] = []
    others: list[str] = []
    lists: list[str] = []
    for s in dict.fromkeys(missing_sets):
        if s == thelist.OLD_LIST_SET:
            lists += thelist.list_fill(list_numbers if list_numbers is not None else ["1"], False)
        elif s != set_code and s[1:] == set_code and s[0] in "atm":
            children.append(s)
        elif s != "?":
            others.append(s)
    others.sort(key=lambda x: x != set_code)  # the set's own sync first
    # set codes come from the data: quoted, so a hostile one cannot make a command of itself
    hints = []
    if children:  # one command brings the set's missing cards and its child sets
        brought = [set_code] * (set_code in others) + children
        others = [s for s in others if s != set_code]
        hints = [f"boosterkit sync {shlex.quote(set_code)} (brings {', '.join(brought)})"]
    return list(
        dict.fromkeys(hints + [f"boosterkit sync {shlex.quote(s)}" for s in others] + lists)
    )
