"""The installed pytest plugin, run on throw-away test suites through ``pytester``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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


def test_fixtures_open_real_packs(pytester: pytest.Pytester, real_db: Path) -> None:
    from boosterkit.generator import open_packs

    pytester.makepyfile(SUITE)
    result = pytester.runpytest("--boosterkit-db", str(real_db), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    written = json.loads((pytester.path / "pack.json").read_text())
    assert written == open_packs("afr", "set", 1, 1, db=real_db)[0].to_dict()


def test_database_from_the_environment(
    pytester: pytest.Pytester, real_db: Path, monkeypatch
) -> None:
    monkeypatch.setenv("BOOSTERKIT_DB", str(real_db))
    pytester.makepyfile(SUITE)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_no_database_skips_with_the_reason(pytester: pytest.Pytester, tmp_path: Path) -> None:
    missing = tmp_path / "missing.duckdb"
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("--boosterkit-db", str(missing), "-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines([f"*no boosterkit database at {missing}*"])


def test_no_database_fails_when_required(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makepyfile(SUITE)
    result = pytester.runpytest(
        "--boosterkit-db", str(tmp_path / "missing.duckdb"), "--boosterkit-require-db",
        "-p", "no:cacheprovider",
    )  # fmt: skip
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*no boosterkit database at*"])
