"""Project data: booster slot rules, generic products, the minigame catalogue."""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent
