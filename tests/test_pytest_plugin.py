"""The installed pytest plugin, run on throw-away test suites through ``pytester``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

# Imported here, before pytester's in-process runs snapshot sys.modules: numpy (which the
# engine imports) cannot be loaded twice in one process.
import boosterkit.generator.cache  # noqa: F401
import boosterkit.generator.engine  # noqa: F401

pytest_plugins = ["pytester"]

SUITE = """
import json

def test_set_pack(booster_pack):
    pack = booster_pack("afr", product="set", seed=1)
    assert pack.product == "afr-set" and pack.index == 1 and pack.seed == 1
    assert pack.items[0].kind == "art_card" and not pack.items[0].magic_back
    with open("pack.json", "w") as f:
        json.dump(pack.to_dict(), f)

def test_draft_packs(booster_packs):
    packs = booster_packs("afr", count=8, seed=3)
    assert [p.index for p in packs] == list(range(1, 9))
    assert all(p.product == "afr-draft" for p in packs)
    assert len({i.uid for p in packs for i in p.items}) == sum(len(p.items) for p in packs)
"""


def test_fixtures_open_the_databases_packs(pytester: pytest.Pytester, built_db: Path) -> None:
    from boosterkit.generator import open_packs

    pytester.makepyfile(SUITE)
    result = pytester.runpytest("--boosterkit-db", str(built_db), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    written = json.loads((pytester.path / "pack.json").read_text())
    assert written == open_packs("afr", "set", 1, 1, db=built_db)[0].to_dict()


def test_database_from_the_environment(
    pytester: pytest.Pytester, built_db: Path, monkeypatch
) -> None:
    monkeypatch.setenv("BOOSTERKIT_DB", str(built_db))
    pytester.makepyfile(SUITE)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_fixtures_read_the_bundled_sample_with_no_option(
    pytester: pytest.Pytester, sample_db: Path, monkeypatch
) -> None:
    """A suite of a new user: plain ``pytest``, nothing loaded, and realistic packs (the
    sample's real AFR), the header saying where they come from."""
    from boosterkit.generator import open_packs

    monkeypatch.delenv("BOOSTERKIT_DB", raising=False)
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["boosterkit: booster fixtures read the bundled sample (AFR)*"])
    written = json.loads((pytester.path / "pack.json").read_text())
    assert written == open_packs("afr", "set", 1, 1, db=sample_db)[0].to_dict()
    again = pytester.runpytest("--boosterkit-db", ":sample:", "-p", "no:cacheprovider")
    again.assert_outcomes(passed=2)


def test_no_database_skips_with_the_reason(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch
) -> None:
    missing = tmp_path / "missing.duckdb"
    monkeypatch.setenv("BOOSTERKIT_DB", str(missing))
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines([f"*no boosterkit database at {missing}*"])


def test_explicit_missing_database_is_an_error(pytester: pytest.Pytester, tmp_path: Path) -> None:
    missing = tmp_path / "typo.duckdb"
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("--boosterkit-db", str(missing), "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--boosterkit-db {missing}: no such file*"])
    assert "skipped" not in result.stdout.str()


def test_no_database_fails_when_required(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("BOOSTERKIT_DB", str(tmp_path / "missing.duckdb"))
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("--boosterkit-require-db", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*no boosterkit database at*"])


CACHED_SUITE = """
import duckdb

def test_a_thousand_calls_compile_once(booster_pack, boosterkit_products):
    packs = [booster_pack("afr", product="set", seed=s) for s in range(1000)]
    assert len({p.seed for p in packs}) == 1000 and all(p.product == "afr-set" for p in packs)
    assert (boosterkit_products.misses, boosterkit_products.hits) == (1, 999)

def test_the_cache_lives_for_the_session(booster_pack, boosterkit_products):
    assert booster_pack("afr", product="set", seed=1).product == "afr-set"
    assert (boosterkit_products.misses, boosterkit_products.hits) == (1, 1000)

def test_a_changed_database_is_read_again(booster_pack, boosterkit_db, boosterkit_products):
    assert booster_pack("afr", seed=1).product == "afr-draft"
    con = duckdb.connect(str(boosterkit_db))
    con.execute("UPDATE products SET kind = 'promo' WHERE code = 'afr-draft'")
    con.close()
    # the sealed-data draft booster is gone: the MTGJSON one is now the default
    assert booster_pack("afr", seed=1).product == "afr-draft-mtgjson"
    assert boosterkit_products.misses == 3
"""


def test_products_are_compiled_once_per_session(
    pytester: pytest.Pytester, built_db: Path, tmp_path: Path
) -> None:
    import shutil

    from boosterkit.generator import open_packs

    copy = tmp_path / "copy.duckdb"  # the suite changes it
    shutil.copy(built_db, copy)
    pytester.makepyfile(CACHED_SUITE)
    result = pytester.runpytest("--boosterkit-db", str(copy), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    assert open_packs("afr", count=1, seed=1, db=copy)[0].product == "afr-draft-mtgjson"
