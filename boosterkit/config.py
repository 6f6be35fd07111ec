"""Configuration read from the environment: the only global state boosterkit has."""

from __future__ import annotations

import os
from pathlib import Path

from boosterkit import __version__
from boosterkit.errors import InputError

DEFAULT_API_URL = "https://api.scryfall.com"
#: Where Scryfall's bulk files are (its ``download_uri`` links): the one other host followed.
DEFAULT_BULK_URL = "https://data.scryfall.io"
DEFAULT_MTGJSON_URL = "https://mtgjson.com/api/v5"
DEFAULT_FETCH_DEADLINE = 300.0
DEFAULT_DOWNLOAD_DEADLINE = 3600.0
DEFAULT_SYNC_DEADLINE = 1800.0
#: Seconds a write (sync, import, rebuild) waits for another process to let go of the file.
DEFAULT_LOCK_WAIT = 30.0
USER_AGENT = f"boosterkit/{__version__} (+https://github.com/boosterkit/boosterkit)"


def api_url() -> str:
    """Scryfall base URL: ``SCRYFALL_API_URL`` or the public API, without trailing slash."""
    return os.environ.get("SCRYFALL_API_URL", DEFAULT_API_URL).rstrip("/")


def bulk_url() -> str:
    """Origin of Scryfall's bulk files: ``SCRYFALL_BULK_URL`` or ``https://data.scryfall.io``."""
    return os.environ.get("SCRYFALL_BULK_URL", DEFAULT_BULK_URL).rstrip("/")


def mtgjson_url() -> str:
    """MTGJSON's per-set files: ``MTGJSON_API_URL`` or ``https://mtgjson.com/api/v5``."""
    return os.environ.get("MTGJSON_API_URL", DEFAULT_MTGJSON_URL).rstrip("/")


def _seconds(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not (0 < value < 10**7):
        raise InputError(f"{name}={raw!r}: expected a number of seconds above 0, e.g. {default:g}")
    return value


def fetch_deadline() -> float:
    """Seconds one fetch (a GET with its retries and waits) may take: ``BOOSTERKIT_FETCH_DEADLINE``, 300."""
    return _seconds("BOOSTERKIT_FETCH_DEADLINE", DEFAULT_FETCH_DEADLINE)


def sync_deadline() -> float:
    """Seconds all the fetches of one ``sync SET…`` may take: ``BOOSTERKIT_SYNC_DEADLINE``, 1800."""
    return _seconds("BOOSTERKIT_SYNC_DEADLINE", DEFAULT_SYNC_DEADLINE)


def lock_wait() -> float:
    """Seconds a write waits for another process (a ``serve``) to let go of the database:
    ``BOOSTERKIT_LOCK_WAIT``, 30."""
    return _seconds("BOOSTERKIT_LOCK_WAIT", DEFAULT_LOCK_WAIT)


def download_deadline() -> float:
    """Seconds one file download may take: ``BOOSTERKIT_DOWNLOAD_DEADLINE``, 3600."""
    return _seconds("BOOSTERKIT_DOWNLOAD_DEADLINE", DEFAULT_DOWNLOAD_DEADLINE)


#: The database name that asks for the bundled sample (``--db :sample:``,
#: ``BOOSTERKIT_DB=:sample:``, ``--boosterkit-db :sample:``): read-only, built on first use.
SAMPLE = ":sample:"


def db_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The database file: the explicit path, else ``BOOSTERKIT_DB``, else the user data dir
    (``Path(SAMPLE)`` when either names the sample)."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("BOOSTERKIT_DB")
    if env:
        return Path(env).expanduser()
    return default_db_path()


def default_db_path() -> Path:
    """The database of the user data folder: where ``sync`` and ``import`` write by default."""
    import platformdirs  # only here: --help and the catalogue never need it

    return Path(platformdirs.user_data_dir("boosterkit")) / "boosterkit.duckdb"


def is_configured(explicit: str | os.PathLike[str] | None = None) -> bool:
    """Whether a database was named (``explicit`` or ``BOOSTERKIT_DB``), not defaulted."""
    return bool(explicit) or bool(os.environ.get("BOOSTERKIT_DB"))


def sample_dir() -> Path:
    """Where the bundled sample's database is built on first use: the user cache folder."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("boosterkit")) / "sample"


def cache_dir(database: Path) -> Path:
    """Where fetched files are kept, compressed: a folder next to the database."""
    return database.parent / (database.stem + ".cache")
