"""Hypothesis strategies for test suites: real seeded packs and minigame setups.

::

    from hypothesis import given
    from boosterkit.testing import pack, packs, setups

    @given(pack("afr", "set"))
    def test_set_booster_has_fourteen_objects(p):
        assert len(p.items) == 14

Each strategy draws a seed (``seeds()``: integers from 0 to 2^64-1, which Hypothesis
shrinks toward 0) and yields what ``open_packs``/``deal`` give for it, so a failing example
is reported as a small, reproducible seed. The database is the one the pytest plugin reads
(``--boosterkit-db PATH``, else ``BOOSTERKIT_DB``, else the default, else the bundled
sample); ``db=`` overrides it. A named database that does not exist skips the test with the
reason, as the plugin's fixtures do (``--boosterkit-require-db``: an error).

Hypothesis is imported when a strategy is built, not with this module: it is a dependency
of ``boosterkit[testing]`` (``pip install 'boosterkit[testing]'``), not of boosterkit.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from boosterkit.generator.model import Pack
    from boosterkit.minigames import Setup

__all__ = ["configure", "database", "pack", "packs", "required", "seeds", "setups"]

#: Set by the pytest plugin from its options (configuration, like ``BOOSTERKIT_DB``).
_options: dict[str, Any] = {"db": None, "require_db": False}


def configure(db: str | os.PathLike[str] | None = None, require_db: bool = False) -> None:
    """Where the strategies read from when given no ``db=`` (the pytest plugin calls this)."""
    _options.update(db=db, require_db=require_db)


def database(db: str | os.PathLike[str] | None = None) -> Path:
    """The database path the strategies use: ``db``, the plugin's, ``BOOSTERKIT_DB``, the
    default, else the bundled sample's (built on first use)."""
    from boosterkit.database import Database

    return Database(db or _options["db"]).path or Path(":memory:")


def required(db: str | os.PathLike[str] | None = None) -> Path:
    """``database(db)`` when it exists; else the test is skipped (or failed, under
    ``--boosterkit-require-db``) with the reason."""
    return _require(database(db))


def _hypothesis() -> Any:
    try:
        from hypothesis import strategies
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError(
            "boosterkit.testing needs Hypothesis: pip install 'boosterkit[testing]'"
        ) from exc
    return strategies


def _require(path: Path) -> Path:
    if path.exists():
        return path
    message = (
        f"no boosterkit database at {path}: build one with `boosterkit sync` and pass "
        "--boosterkit-db PATH or set BOOSTERKIT_DB"
    )
    try:
        import pytest
    except ImportError:  # pragma: no cover
        raise FileNotFoundError(message) from None
    if _options["require_db"]:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)
    raise AssertionError("unreachable")  # pragma: no cover


class _Products:
    """The database one strategy opens packs from (a ``Database`` keeping its own products),
    made on its first example."""

    def __init__(self, db: str | os.PathLike[str] | None) -> None:
        self.db = db
        self._database: Any = None
        self._lock = threading.Lock()

    def database(self) -> Any:
        from boosterkit.cache import Cache
        from boosterkit.database import Database

        path = required(self.db)
        with self._lock:
            if self._database is None:  # keyed by the file's stamp: a changed file is re-read
                self._database = Database(path, cache=Cache())
        return self._database


def seeds() -> SearchStrategy[int]:
    """Seeds as the generator takes them (0 to 2^64-1), shrinking toward 0."""
    from boosterkit.generator.rng import SEED_MAX

    found: SearchStrategy[int] = _hypothesis().integers(min_value=0, max_value=SEED_MAX)
    return found


def packs(
    set_code: str,
    product: str | None = None,
    count: int = 1,
    *,
    db: str | os.PathLike[str] | None = None,
) -> SearchStrategy[list[Pack]]:
    """Lists of ``count`` packs: ``open_packs(set_code, product, count, seed)`` for a drawn seed."""
    from boosterkit.generator import open_packs

    products = _Products(db)

    def opened(seed: int) -> list[Pack]:
        return open_packs(set_code, product, count, seed, db=products.database())

    return seeds().map(opened)


def pack(
    set_code: str, product: str | None = None, *, db: str | os.PathLike[str] | None = None
) -> SearchStrategy[Pack]:
    """Single packs: pack 1 of a drawn seed (as the ``booster_pack`` fixture)."""
    return packs(set_code, product, 1, db=db).map(lambda ps: ps[0])


def setups(
    game: str,
    players: int | SearchStrategy[int],
    set_code: str | None = None,
    product: str | None = None,
    *,
    db: str | os.PathLike[str] | None = None,
) -> SearchStrategy[Setup]:
    """Dealt setups of minigame ``game``: ``deal(game, players, set_code, product, seed)``.

    ``players`` is a number or a strategy of numbers (``st.integers(2, 4)``). Seeds whose
    packs cannot make the setup (a ``SetupError``: too few cards, or a card the database does
    not hold where the game reads it) are not drawn."""
    st = _hypothesis()
    products = _Products(db)
    counts = players if isinstance(players, st.SearchStrategy) else st.just(players)

    def dealt(args: tuple[int, int]) -> Setup | None:
        from boosterkit.minigames import SetupError, deal

        n, seed = args
        try:
            return deal(products.database(), game, n, set_code, product, seed)
        except SetupError:
            return None

    found: SearchStrategy[Setup] = (
        st.tuples(counts, seeds()).map(dealt).filter(lambda s: s is not None)
    )
    return found
