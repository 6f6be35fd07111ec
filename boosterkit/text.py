"""Words for messages and summaries."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 set``, ``2 sets``, ``1,024 sheet cards`` (``many``: an irregular plural)."""
    return f"{n:,} {word if n == 1 else many or word + 's'}"
