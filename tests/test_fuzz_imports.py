"""Hypothesis fuzzing of the import files (issue 33): a collation export, an MTGJSON set file
and a Scryfall card file, each broken one way (a value of another type at a key the import
reads, a required field gone, the file cut short), always give one line and exit 1 or 2:
never a traceback, never a hang, never exit 0 for a broken file.

Derandomized and few examples (``FUZZ``), so CI runs the same files each time in a few
seconds; raise ``BOOSTERKIT_FUZZ_EXAMPLES`` locally to search longer.
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boosterkit.pipeline.mtgjson_transform import CARD_KEYS, SET_KEYS

EXAMPLES = int(os.environ.get("BOOSTERKIT_FUZZ_EXAMPLES", "12"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
_names = itertools.count()

#: A value of another JSON type than ``value`` (never null: an absent optional key is valid).
_OTHER = {
    bool: st.one_of(st.integers(-3, 3), st.text(max_size=5), st.lists(st.booleans(), max_size=2)),
    int: st.one_of(
        st.text(max_size=5),
        st.floats(),
        st.booleans(),  # 2.0 is no whole number
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    ),  # fmt: skip
    float: st.one_of(st.text(max_size=5), st.booleans(), st.lists(st.integers(), max_size=2)),
    str: st.one_of(
        st.integers(),
        st.booleans(),
        st.lists(st.text(max_size=3), max_size=2),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    ),  # fmt: skip
    list: st.one_of(
        st.integers(),
        st.text(max_size=5),
        st.booleans(),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    ),  # fmt: skip
    dict: st.one_of(
        st.integers(), st.text(max_size=5), st.booleans(), st.lists(st.integers(), max_size=2)
    ),  # fmt: skip
}


def other_type(value: Any) -> st.SearchStrategy[Any]:
    return _OTHER[type(value)]


def paths(value: Any, skip: frozenset[str] = frozenset(), at: tuple[Any, ...] = ()) -> list:
    """Every path to a value inside ``value`` (dict keys and list indexes), but under ``skip``."""
    out = [at] if at else []
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in skip:
                out += paths(v, skip, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += paths(v, skip, (*at, i))
    return out


def get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def put(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of ``value`` with ``new`` at ``path``."""
    if not path:
        return new
    copy = json.loads(json.dumps(value))
    get(copy, path[:-1])[path[-1]] = new
    return copy


@st.composite
def retyped(draw: st.DrawFn, doc: Any, candidates: list[tuple[Any, ...]]) -> bytes:
    """``doc`` with the value at one of ``candidates`` replaced by one of another type."""
    path = draw(st.sampled_from(candidates))
    return json.dumps(put(doc, path, draw(other_type(get(doc, path))))).encode()


@st.composite
def cut(draw: st.DrawFn, doc: Any) -> bytes:
    """``doc`` cut short somewhere (never whole: the last byte closes it)."""
    text = json.dumps(doc).encode()
    return text[: draw(st.integers(1, len(text) - 1))]


def assert_refused(capsys, tmp_path: Path, command: list[str], data: bytes) -> None:
    n = next(_names)
    path = tmp_path / f"fuzz-{n}.json"
    path.write_bytes(data)
    code, _, err = run_cli(capsys, "--db", str(tmp_path / f"fuzz-{n}.duckdb"), *command, str(path))
    assert code in (1, 2), (code, err[-1500:], data[:300])
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("boosterkit: error: "), err[-1500:]
    assert "Traceback" not in err


# --- the three kinds of file, small --------------------------------------------------------------


@pytest.fixture(scope="module")
def product(built_world) -> list[dict[str, Any]]:
    """One product of the built magic-sealed-data export (AFR's Draft Booster)."""
    products = json.loads(built_world.sealed.read_text())
    return [next(p for p in products if p["code"] == "afr")]


@pytest.fixture(scope="module")
def set_file(built_world) -> dict[str, Any]:
    """The built MTGJSON AFR file, its cards and tokens cut to a few."""
    doc = json.loads((built_world.folder / "AFR.json").read_text())
    doc["data"]["cards"] = doc["data"]["cards"][:6]
    doc["data"]["tokens"] = doc["data"]["tokens"][:2]
    return doc


@pytest.fixture(scope="module")
def card_file(built_scryfall: Path) -> list[dict[str, Any]]:
    return json.loads((built_scryfall / "cards" / "one.unique-cards.json").read_text())[:8]


#: Keys the collation import does not read when a sibling is there (``set_name`` names a
#: product only without ``name``).
_UNREAD_COLLATION = frozenset({"set_name"})


@FUZZ
@given(data=st.data())
def test_a_broken_collation_export_is_one_line(product, tmp_path, capsys, data) -> None:
    candidates = paths(product, _UNREAD_COLLATION)
    broken = data.draw(st.one_of(retyped(product, candidates), cut(product)))
    assert_refused(capsys, tmp_path, ["import", "collation"], broken)


def _read_mtgjson_paths(doc: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The paths of the values the MTGJSON import reads: the set's keys (``SET_KEYS``), its
    cards' and tokens' keys (``CARD_KEYS``), and everything under ``booster`` but the totals
    it does not read."""
    data = doc["data"]
    out = [("data", k) for k in SET_KEYS if k in data]
    for group in ("cards", "tokens"):
        for i, card in enumerate(data[group]):
            out += [("data", group, i, k) for k in CARD_KEYS if k in card]
    booster = paths(data["booster"], frozenset({"boostersTotalWeight"}))
    return out + [("data", "booster", *p) for p in booster]


@FUZZ
@given(data=st.data())
def test_a_broken_mtgjson_file_is_one_line(set_file, tmp_path, capsys, data) -> None:
    broken = data.draw(st.one_of(retyped(set_file, _read_mtgjson_paths(set_file)), cut(set_file)))
    assert_refused(capsys, tmp_path, ["import", "mtgjson"], broken)


@st.composite
def card_without(draw: st.DrawFn, cards: list[dict[str, Any]]) -> bytes:
    """``cards`` with one card's required field null, or its ``object`` another kind."""
    i = draw(st.integers(0, len(cards) - 1))
    key = draw(st.sampled_from(["id", "name", "set", "collector_number", "object"]))
    value = draw(st.sampled_from(["set", "list", "error"])) if key == "object" else None
    return json.dumps(put(cards, (i, key), value)).encode()


@FUZZ
@given(data=st.data())
def test_a_broken_card_file_is_one_line(card_file, tmp_path, capsys, data) -> None:
    broken = data.draw(st.one_of(card_without(card_file), cut(card_file)))
    assert_refused(capsys, tmp_path, ["sync", "--file"], broken)
