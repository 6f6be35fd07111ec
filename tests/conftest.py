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
