"""Shared fixtures: where the real data lives (../shared), fresh databases."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SCRYFALL = SHARED / "scryfall"


def shared_path(*parts: str) -> Path:
    """A file under ../shared/scryfall; skips the test (with the reason) where it is absent."""
    p = SCRYFALL.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"real data not found at {p} (../shared is beside every checkout in CI)")
    return p


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


@pytest.fixture(scope="session")
def real_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path of a DuckDB file built once per session from the shared real data.

    It holds the MTGJSON files ``REAL_MTGJSON`` (cards, tokens, minigame cards, MTGJSON
    booster products) and the magic-sealed-data export (329 ``sealed-data`` products).
    Treat it as read-only: open it with ``db.connect(path, read_only=True)`` or copy it.
    """
    from boosterkit.pipeline import db
    from boosterkit.pipeline.collation import import_collation
    from boosterkit.pipeline.mtgjson import import_mtgjson

    files = [shared_path("mtgjson", f"{code}.json") for code in REAL_MTGJSON]
    sealed = shared_path("boosters", "sealed_basic_data.json")
    path = tmp_path_factory.mktemp("real_db") / "real.duckdb"
    con = db.connect(path)
    try:
        import_mtgjson(con, files)
        import_collation(con, sealed)
    finally:
        con.close()
    return path


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
