"""Shared fixtures: where the real data lives (../shared), the built world, fresh databases.

Two kinds of data back the tests:

- **built** (``built_db``, ``built_world``; ``tests/world.py``, ``tests/builders.py``): small sets, products and
  minigame cards made in the repository, so a checkout alone runs every unit test;
- **real** (``real_db``, ``images_db``, ``scryfall_dir``, ``shared_path()``): the files of
  ``../shared``, for what only real cards show. Without that folder those tests skip, all with
  one reason (``REAL_DATA_REASON``); ``BOOSTERKIT_TEST_SHARED=/nowhere`` simulates that.
"""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The package's own folders (``pipeline/``, ``data/``… at the root are links to them, which a
#: checkout without symlinks lacks: tests read the package's).
PKG = ROOT / "boosterkit"
SHARED = Path(os.environ.get("BOOSTERKIT_TEST_SHARED") or ROOT.parent / "shared")
SCRYFALL = SHARED / "scryfall"
REAL_DATA_REASON = (
    "needs the real data of ../shared/scryfall, which is not beside this checkout "
    "(CI has it; the built-data tests ran without it)"
)
#: Fixtures that read ../shared: a test using one is marked ``real_data``.
REAL_DATA_FIXTURES = ("real_db", "images_db", "scryfall_dir")


def has_real_data() -> bool:
    return SCRYFALL.is_dir()


def shared_path(*parts: str) -> Path:
    """A file under ../shared/scryfall; skips the test (with ``REAL_DATA_REASON``) without it."""
    p = SCRYFALL.joinpath(*parts)
    if not has_real_data():
        pytest.skip(REAL_DATA_REASON)
    if not p.exists():  # the folder is there but not this file: a broken checkout, not a skip
        pytest.fail(f"real data file missing: {p}", pytrace=False)
    return p


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "real_data: reads ../shared (skipped where it is absent)")


def pytest_collection_finish(session: pytest.Session) -> None:
    """The cyclic collector stops rescanning what every test keeps: the imported modules and
    collected tests are frozen out of it, and it runs less often (a full collection only
    after 100 middle ones). With the defaults, a worker spent 18 s of its run in the
    collector, 16 s of it in full collections of a heap that only grows (4.5 s now; the
    peak memory of a worker 1.3 GB instead of 1.0). Nothing the suite tests depends on it:
    the library sets no threshold, and a test that needs a collection calls ``gc.collect()``."""
    gc.freeze()
    gc.set_threshold(20_000, 50, 100)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests that use a real-data fixture; skip them up front without ../shared."""
    skip = pytest.mark.skip(reason=REAL_DATA_REASON)
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        real_param = any(k.startswith("any_") and v == "real" for k, v in params.items())
        if real_param or set(getattr(item, "fixturenames", ())) & set(REAL_DATA_FIXTURES):
            item.add_marker("real_data")
        if item.get_closest_marker("real_data") and not has_real_data():
            item.add_marker(skip)


@pytest.fixture
def scryfall_dir() -> Path:
    return shared_path()


@pytest.fixture
def mem_db():
    """A fresh in-memory database with the current schema."""
    from boosterkit.pipeline import db

    con = db.connect(":memory:")
    yield con
    con.close()


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    """A path for a database file that does not exist yet."""
    return tmp_path / "test.duckdb"


#: The MTGJSON files ``real_db`` imports: five 2020–2021 sets and their minigame sets.
REAL_MTGJSON = ("AFR", "KHM", "ZNR", "STX", "MH2", "MAFR", "MKHM", "MZNR", "MSTX", "MMH2")
#: The nine minigame sets of ``minigames-2025/`` (bare set objects): every other game's card.
MINIGAMES_2025 = ("MMID", "MNEO", "MSNC", "MCLB", "MDMU", "MBRO", "MONE", "MLTR", "MACR")


@pytest.fixture(scope="session")
def real_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path of a DuckDB file built once per session from the shared real data.

    It holds the MTGJSON files ``REAL_MTGJSON`` (cards, tokens, minigame cards, MTGJSON
    booster products), the minigame sets ``MINIGAMES_2025`` (all 28 games' cards) and the
    magic-sealed-data export (329 ``sealed-data`` products).
    Treat it as read-only: open it with ``db.connect(path, read_only=True)`` or copy it.
    """
    from boosterkit.pipeline import db
    from boosterkit.pipeline.collation import import_collation
    from boosterkit.pipeline.mtgjson import import_mtgjson

    files = [shared_path("mtgjson", f"{code}.json") for code in REAL_MTGJSON]
    files += [shared_path("mtgjson", "minigames-2025", f"{c}.json") for c in MINIGAMES_2025]
    sealed = shared_path("boosters", "sealed_basic_data.json")
    path = tmp_path_factory.mktemp("real_db") / "real.duckdb"
    con = db.connect(path)
    try:
        import_mtgjson(con, files)
        import_collation(con, sealed)
    finally:
        con.close()
    return path


@pytest.fixture(scope="session")
def built_world(tmp_path_factory: pytest.TempPathFactory):
    """The built world's files (``tests/world.py``): MTGJSON set and minigame files of AFR,
    KHM, ZNR, STX, MH2 and a magic-sealed-data export of their boosters."""
    import world

    return world.write(tmp_path_factory.mktemp("world"))


@pytest.fixture(scope="session")
def built_db(built_world, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path of a DuckDB file holding the built world, built once per session (about a second).

    It stands in for ``real_db`` where a test needs sets, products and minigame cards but no
    real card: the same set codes, product codes and booster shapes (``tests/builders.py``).
    Treat it as read-only: open it with ``db.connect(path, read_only=True)`` or copy it.
    """
    import world

    return world.build_db(tmp_path_factory.mktemp("built_db") / "built.duckdb", built_world)


@pytest.fixture(scope="session")
def built_products(built_db: Path) -> list[tuple[str, str]]:
    """(set, product code) of every product of the built world's sets (``world.SETS``)."""
    import world

    from boosterkit.generator.products import list_products
    from boosterkit.pipeline import db as pdb

    con = pdb.connect(built_db, read_only=True)
    try:
        return [(s, p["code"]) for s in world.SETS for p in list_products(con, s)]
    finally:
        con.close()


@pytest.fixture(scope="session")
def built_scryfall(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder laid out like ../shared/scryfall with built files (``tests/scryfall_world.py``):
    the set list, card files of ONE, MOM, BRO, LTR, WOE+WOT, a search page, an error."""
    import scryfall_world

    return scryfall_world.write(tmp_path_factory.mktemp("scryfall"))


@dataclass(frozen=True)
class Sources:
    """The files of one world (built or real): where a test reads what ``../shared`` holds."""

    name: str  # "built" | "real"
    mtgjson: Path  # MTGJSON set files: AFR.json, MAFR.json …
    sealed: Path  # the magic-sealed-data export
    scryfall: Path  # laid out like ../shared/scryfall: sets/, cards/, search/ …
    db: Path | None = None  # the world's database (``any_data`` only)


@pytest.fixture(scope="session")
def built_sources(built_world, built_scryfall: Path) -> Sources:
    return Sources("built", built_world.folder, built_world.sealed, built_scryfall)


@pytest.fixture(scope="session")
def real_sources() -> Sources:
    root = shared_path()
    return Sources("real", root / "mtgjson", root / "boosters" / "sealed_basic_data.json", root)


#: The world an ``any_*`` fixture gives: the real one where ``../shared`` is, else the built
#: one. Each run checks such a property once, on the best data at hand; CI runs the suite with
#: ``../shared`` and its checkout without symlinks with none (``.ci/run``): both worlds.
ANY_WORLD = ["real"] if has_real_data() else ["built"]


@pytest.fixture(scope="session", params=ANY_WORLD)
def any_db(request: pytest.FixtureRequest) -> Path:
    """``real_db`` where ``../shared`` is, else ``built_db``: for a property that holds on
    any data (``ANY_WORLD``)."""
    return request.getfixturevalue(f"{request.param}_db")


@pytest.fixture(scope="session", params=ANY_WORLD)
def any_sources(request: pytest.FixtureRequest) -> Sources:
    """The real files where ``../shared`` is, else the built ones (``ANY_WORLD``)."""
    return request.getfixturevalue(f"{request.param}_sources")


@pytest.fixture(scope="session", params=ANY_WORLD)
def any_data(request: pytest.FixtureRequest) -> Sources:
    """``any_sources`` with the database built from them (``built_db`` / ``real_db``)."""
    sources = request.getfixturevalue(f"{request.param}_sources")
    return Sources(**{**sources.__dict__, "db": request.getfixturevalue(f"{request.param}_db")})


@pytest.fixture(scope="session", autouse=True)
def _own_user_folders(tmp_path_factory: pytest.TempPathFactory):
    """No test reads or writes the user's folders: the default database (user data folder)
    is absent and the bundled sample is built once per run in a cache folder of the run's
    own (shared by xdist workers: the build is atomic)."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    old = {k: os.environ.get(k) for k in ("XDG_CACHE_HOME", "XDG_DATA_HOME")}
    os.environ["XDG_CACHE_HOME"] = str(root / "xdg-cache")
    os.environ["XDG_DATA_HOME"] = str(base / "xdg-data")
    yield
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def sample_db(_own_user_folders) -> Path:
    """The bundled sample's database, built from the package's files (as on first use)."""
    from boosterkit.pipeline import sample

    return sample.ensure()


@pytest.fixture(scope="session", autouse=True)
def _no_real_mtgjson():
    """``sync SET`` also asks MTGJSON: no test may reach mtgjson.com. By default every test
    (and every CLI it runs) sees an MTGJSON with no files (404s); tests that serve files set
    ``MTGJSON_API_URL`` to their own ``FakeMtgjson``."""
    import os

    from mtgjson_server import FakeMtgjson

    with FakeMtgjson() as empty:
        old = os.environ.get("MTGJSON_API_URL")
        os.environ["MTGJSON_API_URL"] = empty.url
        yield empty
        if old is None:
            os.environ.pop("MTGJSON_API_URL", None)
        else:
            os.environ["MTGJSON_API_URL"] = old


@pytest.fixture(scope="session")
def images_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """AFR from MTGJSON (artists, no images) and ONE from Scryfall's unique-cards dump (with
    ``image_uris`` and ``artist``; no collation data, so ONE's packs are the generic ones,
    which draw only cards the dump holds). Read-only, like ``real_db``."""
    from boosterkit.pipeline import db
    from boosterkit.pipeline.mtgjson import import_mtgjson
    from boosterkit.pipeline.sync import sync_file

    where = tmp_path_factory.mktemp("images_db")
    path = where / "images.duckdb"
    con = db.connect(path)
    try:
        import_mtgjson(con, [shared_path("mtgjson", f"{c}.json") for c in ("AFR", "MAFR")])
        sync_file(con, shared_path("cards", "one.unique-cards.json"), cache=where / "cache")
    finally:
        con.close()
    return path


@pytest.fixture(scope="session")
def built_con(built_db: Path):
    """A read-only connection to ``built_db`` for the session."""
    from boosterkit.pipeline import db

    con = db.connect(built_db, read_only=True)
    yield con
    con.close()


@pytest.fixture(scope="session")
def con(built_con):
    """``built_con`` by the short name most test files use."""
    return built_con


@pytest.fixture(scope="session")
def any_con(any_db: Path):
    """A read-only connection to ``any_db``: the real world where ``../shared`` is, else the built one."""
    from boosterkit.pipeline import db

    con = db.connect(any_db, read_only=True)
    yield con
    con.close()


@pytest.fixture
def own_db(built_db: Path, tmp_path: Path) -> Path:
    """A private copy of ``built_db``, for a test that writes to it or beside it."""
    import shutil

    path = tmp_path / "own.duckdb"
    shutil.copy(built_db, path)
    return path


#: The address the service's test client speaks to (an allowed Host).
LOCAL = "http://127.0.0.1"


@pytest.fixture(scope="module")
def client(built_db: Path):
    """FastAPI's test client on a service over ``built_db``, one per test module (a module's
    requests share its budgets and caches, as a running service's do)."""
    from fastapi.testclient import TestClient

    from boosterkit.service.app import create_app

    with TestClient(create_app(built_db), base_url=LOCAL) as c:
        yield c


@pytest.fixture(scope="session")
def real_con(real_db: Path):
    """A read-only connection to ``real_db`` for the session."""
    from boosterkit.pipeline import db

    con = db.connect(real_db, read_only=True)
    yield con
    con.close()
