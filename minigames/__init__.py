"""Minigames: the catalogue (data/minigames), the setup engine, sheets and validation."""
