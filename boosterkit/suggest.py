""" "Did you mean …?" for an unknown name: the closest few by edit distance, never the list."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

#: How many suggestions a message names at most.
MAX_SUGGESTIONS = 3


def distance(a: str, b: str) -> int:
    """Levenshtein distance: insertions, deletions and substitutions from ``a`` to ``b``."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def fold(text: str) -> str:
    """Lower case, no accents, only letters, digits and single hyphens."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    words = "".join(c if c.isalnum() else " " for c in plain).split()
    return "-".join(words)


def _windows(spelling: str, words: int) -> list[str]:
    """The spelling, and each run of ``words`` consecutive words of it (a part of a name)."""
    parts = spelling.split("-")
    runs = ["-".join(parts[i : i + words]) for i in range(len(parts) - words + 1)]
    return [spelling, *runs]


def closest(word: str, choices: Iterable[tuple[str, str]]) -> list[str]:
    """The suggestions whose spellings are nearest to ``word``: ``choices`` are (spelling,
    suggestion) pairs (a code and each name of a thing, all naming its code). Near means at
    most a third of the letters differ (one for short words), from the whole spelling or, for
    a word of 4 letters or more, from as many words of it ("forgoten realms"); of those, the
    nearest few."""
    wanted = fold(word)
    words = wanted.count("-") + 1
    best: dict[str, int] = {}
    for spelling, suggestion in choices:
        s = fold(spelling)
        if not s or not wanted:
            continue
        parts = _windows(s, words) if len(wanted) >= 4 else [s]
        d = min(distance(wanted, part) for part in parts)
        if d <= max(1, len(wanted) // 3):
            best[suggestion] = min(d, best.get(suggestion, d))
    if not best:
        return []
    nearest = min(best.values())
    return sorted((s for s, d in best.items() if d == nearest), key=str)[:MAX_SUGGESTIONS]


def did_you_mean(suggestions: list[str]) -> str:
    """`` — did you mean afr?`` (or ``afr or afc``, ``a, b or c``); empty without any."""
    if not suggestions:
        return ""
    if len(suggestions) == 1:
        return f" — did you mean {suggestions[0]}?"
    return f" — did you mean {', '.join(suggestions[:-1])} or {suggestions[-1]}?"


def unknown(
    what: str, name: str, choices: Iterable[tuple[str, str]], listing: str, where: str = ""
) -> str:
    """One line: ``unknown set 'afx' — did you mean afr? (all sets: boosterkit sets)``;
    ``where`` follows the name (``unknown product 'colector' of afr — …``)."""
    hint = did_you_mean(closest(name, choices))
    return f"unknown {what} {name!r}{where}{hint} ({listing})"
