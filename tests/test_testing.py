"""``boosterkit.testing``: Hypothesis strategies over the built database, run as a user would."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

# Imported before pytester's in-process runs snapshot sys.modules (numpy loads once).
import boosterkit.generator.cache  # noqa: F401
import boosterkit.generator.engine  # noqa: F401
from boosterkit import testing
from boosterkit.generator import open_packs

pytest_plugins = ["pytester"]

SUITE = """
from hypothesis import given, settings, strategies as st
from boosterkit.testing import pack, packs, setups

@settings(max_examples=25, deadline=None)
@given(pack("afr", "set"))
def test_set_booster_shape(p):
    assert p.product == "afr-set" and len(p.items) == 14
    assert p.items[0].kind == "art_card"

@settings(max_examples=10, deadline=None)
@given(packs("afr", count=3))
def test_draft_packs(ps):
    assert [p.index for p in ps] == [1, 2, 3] and len({p.seed for p in ps}) == 1
    assert all(sum(i.magic_back for i in p.items) == 15 for p in ps)

@settings(max_examples=5, deadline=None)
@given(setups("roll-for-initiative", st.integers(2, 4), "afr"))
def test_setups(s):
    assert s.spec.id == "roll-for-initiative" and 2 <= s.players <= 4

@settings(max_examples=200, deadline=None, database=None)
@given(pack("afr"))
def test_shrinks_to_a_small_seed(p):
    assert p.seed < 1000
"""


def test_strategies_in_a_users_suite(pytester: pytest.Pytester, built_db: Path) -> None:
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("--boosterkit-db", str(built_db), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=1)
    # the failing property is reported with the smallest failing seed
    result.stdout.fnmatch_lines(["*seed=1000*"])


def test_strategies_read_the_bundled_sample_with_no_option(
    pytester: pytest.Pytester, sample_db: Path, monkeypatch
) -> None:
    """No ``--boosterkit-db``, no ``BOOSTERKIT_DB``, nothing loaded: the sample's real AFR."""
    monkeypatch.delenv("BOOSTERKIT_DB", raising=False)
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*seed=1000*"])
    assert testing.database() == sample_db


def test_strategies_skip_without_a_database(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("BOOSTERKIT_DB", str(tmp_path / "none.duckdb"))
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(skipped=4)
    result.stdout.fnmatch_lines(["*no boosterkit database at*none.duckdb*"])


@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_packs_equal_open_packs(built_db: Path, data) -> None:
    ps = data.draw(testing.packs("afr", "set", 2, db=built_db))
    assert [p.to_dict() for p in ps] == [
        p.to_dict() for p in open_packs("afr", "set", 2, ps[0].seed, db=built_db)
    ]


def test_seeds_cover_the_generator_range_and_shrink_to_zero() -> None:
    from hypothesis import find

    assert find(testing.seeds(), lambda s: True) == 0
    assert find(testing.seeds(), lambda s: s >= 2**63) == 2**63
    assert testing.database("x.duckdb") == Path("x.duckdb")
