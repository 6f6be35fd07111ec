"""pytest plugin (entry point ``pytest11``): ``booster_pack`` / ``booster_packs`` fixtures.

Installed with boosterkit, so any test suite can ask for realistic, seeded packs::

    def test_deck_builder(booster_pack):
        pack = booster_pack("afr", product="set", seed=1)
        assert len(pack.items) == 14

The database is ``--boosterkit-db PATH``, else ``BOOSTERKIT_DB``, else boosterkit's default
location, else (nothing named, nothing loaded there) the bundled sample: AFR's real cards
and products and every minigame card, read-only (``--boosterkit-db :sample:`` asks for it
whatever is loaded). A named database that does not exist skips the tests that use these
fixtures with the reason (``--boosterkit-require-db`` turns that into an error, e.g. in CI);
an explicit ``--boosterkit-db`` path that does not exist is a usage error (a typo must not
turn the suite into skips). The Hypothesis strategies of ``boosterkit.testing`` read the
same database. Products are compiled once per database content and kept beside the database
(``generator.cache``), so a test session loads them in milliseconds;
``boosterkit_products``, the cache of ``boosterkit_database``, holds them for the session.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from boosterkit.generator.model import Pack

if TYPE_CHECKING:
    from boosterkit.cache import Cache
    from boosterkit.database import Database

PackFactory = Callable[..., Pack]
PacksFactory = Callable[..., list[Pack]]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("boosterkit", "boosterkit booster fixtures")
    group.addoption(
        "--boosterkit-db",
        default=None,
        metavar="PATH",
        help="boosterkit database for booster_pack/booster_packs (default: $BOOSTERKIT_DB).",
    )
    group.addoption(
        "--boosterkit-require-db",
        action="store_true",
        help="Fail, rather than skip, tests using booster fixtures when there is no database.",
    )


def pytest_configure(config: pytest.Config) -> None:
    from boosterkit.config import SAMPLE

    explicit = config.getoption("boosterkit_db", None)
    if explicit and explicit != SAMPLE and not Path(explicit).expanduser().exists():
        raise pytest.UsageError(
            f"--boosterkit-db {explicit}: no such file (build one with "
            "`boosterkit sync` or `boosterkit import`, or fix the path)"
        )
    from boosterkit import testing

    testing.configure(explicit, bool(config.getoption("boosterkit_require_db", False)))


def pytest_report_header(config: pytest.Config) -> str | None:
    """One header line when the fixtures will read the bundled sample (nothing is built)."""
    from boosterkit import config as settings
    from boosterkit.pipeline.sample import SET

    explicit = config.getoption("boosterkit_db", None)
    path = settings.db_path(explicit)
    if str(path) == settings.SAMPLE or not (settings.is_configured(explicit) or path.exists()):
        return (
            f"boosterkit: booster fixtures read the bundled sample ({SET.upper()}); "
            "--boosterkit-db FILE reads a database of yours"
        )
    return None


@pytest.fixture(scope="session")
def boosterkit_db() -> Path:
    """Path of the database the booster fixtures read (skips when a named one is missing)."""
    from boosterkit import testing

    return testing.required()


@pytest.fixture(scope="session")
def boosterkit_products(boosterkit_database: Database) -> Cache:
    """The cache every booster fixture call of the session shares: ``boosterkit_database``'s
    (its ``hits``, ``loads`` and ``misses`` say how products were found)."""
    return boosterkit_database.cache


@pytest.fixture(scope="session")
def boosterkit_database(boosterkit_db: Path) -> Database:
    """The ``Database`` handle the booster fixtures read: ``boosterkit_db``, with the cache
    every booster fixture call of the session shares (keyed by the database file's content:
    a test that syncs or imports gets products of the new data)."""
    from boosterkit.cache import Cache
    from boosterkit.database import Database

    return Database(boosterkit_db, cache=Cache())


@pytest.fixture
def booster_packs(boosterkit_database: Database) -> PacksFactory:
    """Factory: ``booster_packs("afr", product="draft", count=8, seed=1)`` -> list of packs.

    Each (set, product) is compiled once per database content (a changed database file gives
    products of the new data).
    """
    from boosterkit.generator import open_packs

    def make(
        set_code: str, product: str | None = None, count: int = 1, seed: int = 0
    ) -> list[Pack]:
        return open_packs(set_code, product, count, seed, db=boosterkit_database)

    return make


@pytest.fixture
def booster_pack(booster_packs: PacksFactory) -> PackFactory:
    """Factory: ``booster_pack("afr", product="set", seed=1)`` -> one pack (pack 1 of the seed)."""

    def make(set_code: str, product: str | None = None, seed: int = 0) -> Pack:
        return booster_packs(set_code, product=product, count=1, seed=seed)[0]

    return make
