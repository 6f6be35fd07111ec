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


def _url(name: str, default: str) -> str:
    """The URL in the environment variable ``name`` (else ``default``), without trailing
    slash; one that cannot be parsed (``http://[::1``) is an ``InputError`` (a URL without
    a scheme fails at its first request, naming the variable)."""
    from urllib.parse import urlsplit

    raw = os.environ.get(name, default)
    try:
        urlsplit(raw).port  # noqa: B018 (a port that is not a number raises here)
    except ValueError as exc:
        raise InputError(f"{name}={raw!r}: not a URL ({exc}), e.g. {default}") from None
    return raw.rstrip("/")


def api_url() -> str:
    """Scryfall base URL: ``SCRYFALL_API_URL`` or the public API, without trailing slash."""
    return _url("SCRYFALL_API_URL", DEFAULT_API_URL)


def bulk_url() -> str:
    """Origin of Scryfall's bulk files: ``SCRYFALL_BULK_URL`` or ``https://data.scryfall.io``."""
    return _url("SCRYFALL_BULK_URL", DEFAULT_BULK_URL)


def mtgjson_url() -> str:
    """MTGJSON's per-set files: ``MTGJSON_API_URL`` or ``https://mtgjson.com/api/v5``."""
    return _url("MTGJSON_API_URL", DEFAULT_MTGJSON_URL)


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

#: The longest name of one file or folder most file systems take (Linux ``NAME_MAX``).
NAME_MAX = 255
#: What DuckDB adds to a database's name for its write-ahead log.
WAL_SUFFIX = ".wal"


def user_path(raw: str | os.PathLike[str], given: str) -> Path:
    """``raw`` (from ``given``: ``--db``, ``BOOSTERKIT_DB``) with ``~`` expanded; a ``~user``
    that does not exist or a name longer than ``NAME_MAX`` bytes is an ``InputError``."""
    try:
        path = Path(raw).expanduser()
    except RuntimeError:  # Path.expanduser: "Could not determine home directory."
        raise InputError(
            f"{given} {str(raw)!r}: {str(raw).split('/')[0]!r} is no user's home folder; "
            "give the path in full"
        ) from None
    for i, part in enumerate(path.parts, start=1 - len(path.parts)):
        room = NAME_MAX - (len(WAL_SUFFIX) if i == 0 else 0)
        if len(os.fsencode(part)) > room:
            raise InputError(
                f"{given}: the name {part[:40]!r}… is {len(os.fsencode(part)):,} bytes long, "
                f"more than the {room} a file system takes"
                + (f" for a database (it adds {WAL_SUFFIX})" if i == 0 else "")
            )
    return path


def db_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The database file: the explicit path, else ``BOOSTERKIT_DB``, else the user data dir
    (``Path(SAMPLE)`` when either names the sample)."""
    if explicit:
        return user_path(explicit, "--db")
    env = os.environ.get("BOOSTERKIT_DB")
    if env:
        return user_path(env, "BOOSTERKIT_DB")
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
