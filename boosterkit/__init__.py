"""boosterkit: realistic, seeded Magic: The Gathering booster packs and minigame setups.

The installed package is one namespace: ``boosterkit.pipeline`` (Scryfall/MTGJSON → DuckDB),
``boosterkit.generator`` (products and packs), ``boosterkit.minigames`` (setups),
``boosterkit.cli`` (typer) and ``boosterkit.service`` (HTTP).
"""

__version__ = "0.1.0"
