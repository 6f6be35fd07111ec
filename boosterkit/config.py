"""Configuration read from the environment: the only global state boosterkit has."""

from __future__ import annotations

import os
from pathlib import Path

from boosterkit import __version__

DEFAULT_API_URL = "https://api.scryfall.com"
USER_AGENT = f"boosterkit/{__version__} (+https://github.com/boosterkit/boosterkit)"


def api_url() -> str:
    """Scryfall base URL: ``SCRYFALL_API_URL`` or the public API, without trailing slash."""
    return os.environ.get("SCRYFALL_API_URL", DEFAULT_API_URL).rstrip("/")


def db_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The database file: the explicit path, else ``BOOSTERKIT_DB``, else the user data dir."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("BOOSTERKIT_DB")
    if env:
        return Path(env).expanduser()
    import platformdirs  # only here: --help and the catalogue never need it

    return Path(platformdirs.user_data_dir("boosterkit")) / "boosterkit.duckdb"


def cache_dir(database: Path) -> Path:
    """Where fetched files are kept, compressed: a folder next to the database."""
    return database.parent / (database.stem + ".cache")
