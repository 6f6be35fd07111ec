"""Booster products and seeded packs. ``open_packs`` is the entry point for fixtures.

>>> packs = open_packs("afr", product="set", count=3, seed=7)  # doctest: +SKIP
>>> packs[0].items[0].uid  # doctest: +SKIP
'p1-1'

The entry points live in ``generator.packs`` and are re-exported here lazily, so importing
``boosterkit.generator`` (or its ``model``) costs nothing: numpy and DuckDB load on first use.
The product is resolved from the database once and kept compiled (``generator.cache``); the
packs are drawn by the pure engine (``generator.engine``) without touching it again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from boosterkit.generator.packs import BATCH, iter_packs, load_product, new_seed, open_packs

__all__ = ["BATCH", "iter_packs", "load_product", "new_seed", "open_packs"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from boosterkit.generator import packs

        return getattr(packs, name)
    raise AttributeError(f"module 'boosterkit.generator' has no attribute {name!r}")
