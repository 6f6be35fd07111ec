"""Minigames: the catalogue (data/minigames), the setup engine, sheets and validation.

Library entry points: ``list_minigames()``, ``deal(con, game, players, …) -> Setup``
(``minigames.dealer``), ``validate_setup(con, data) -> Validation`` and
``render_sheet(setup, fmt) -> str``. They are re-exported here lazily: listing the
catalogue loads neither numpy nor DuckDB.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from boosterkit.minigames.catalog import Minigame, get_minigame, list_minigames
    from boosterkit.minigames.dealer import deal, default_set, summary
    from boosterkit.minigames.engine import Setup, SetupError, Zone, build_setup, check_players
    from boosterkit.minigames.lookup import basic_lands
    from boosterkit.minigames.sheets import render_sheet
    from boosterkit.minigames.validate import Validation, Violation, validate_setup

#: Public name -> the module defining it.
_EXPORTS = {
    "Minigame": "catalog", "get_minigame": "catalog", "list_minigames": "catalog",
    "basic_lands": "lookup", "deal": "dealer", "default_set": "dealer", "summary": "dealer",
    "Setup": "engine", "SetupError": "engine", "Zone": "engine", "build_setup": "engine",
    "check_players": "engine", "render_sheet": "sheets",
    "Validation": "validate", "Violation": "validate", "validate_setup": "validate",
}  # fmt: skip

__all__ = [
    "Minigame",
    "Setup",
    "SetupError",
    "Validation",
    "Violation",
    "Zone",
    "basic_lands",
    "build_setup",
    "check_players",
    "deal",
    "default_set",
    "get_minigame",
    "list_minigames",
    "render_sheet",
    "summary",
    "validate_setup",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'boosterkit.minigames' has no attribute {name!r}")
    return getattr(importlib.import_module(f"boosterkit.minigames.{module}"), name)
