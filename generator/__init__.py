"""Booster products and seeded packs. ``open_packs`` is the entry point for fixtures."""
