"""``boosterkit cards --q`` (Scryfall-style search), ``--columns``, ``--limit``; ``sets`` too.

Every test runs on the real data where ``../shared`` is, else on the built world (``any_db``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli as run

from boosterkit.cli.browse import fit
from boosterkit.errors import InputError
from boosterkit.pipeline import db, queries
from boosterkit.pipeline.search import QueryError, to_sql

RANK = {"common": 0, "uncommon": 1, "rare": 2, "mythic": 3}


@pytest.fixture(scope="module")
def con(any_db: Path):
    c = db.connect(any_db, read_only=True)
    yield c
    c.close()


@pytest.fixture(scope="module")
def afr(con) -> list[dict]:
    """Every AFR printing with every column: the queries below are checked against Python."""
    return queries.list_cards(con, "afr", columns=list(queries.CARD_COLUMNS))


def _colors(c: dict) -> set[str]:
    return set(c["colors"] or [])


CASES = {
    "t:creature c:g mv<=3": lambda c: "creature" in (c["type_line"] or "").lower()
    and "G" in _colors(c) and c["mana_value"] <= 3,
    "c=rg": lambda c: _colors(c) == {"R", "G"},
    "c<=wu -c:c": lambda c: _colors(c) and _colors(c) <= {"W", "U"},
    "c:m r>=rare": lambda c: len(_colors(c)) > 1 and RANK.get(c["rarity"], -1) >= 2,
    "(c:w or c:u) t:instant mv=1": lambda c: _colors(c) & {"W", "U"}
    and "instant" in (c["type_line"] or "").lower() and c["mana_value"] == 1,
    "r:m t:legendary -t:creature": lambda c: c["rarity"] == "mythic"
    and "legendary" in c["type_line"].lower() and "creature" not in c["type_line"].lower(),
    "dragon": lambda c: "dragon" in c["name"].lower(),
    "o:treasure cmc>4": lambda c: "treasure" in (c["oracle_text"] or "").lower()
    and c["mana_value"] > 4,
    "id:c t:land": lambda c: not (c["color_identity"] or []) and "land" in (c["type_line"] or "").lower(),
}  # fmt: skip


@pytest.mark.parametrize("query", list(CASES))
def test_query_equals_python_filter(con, afr, query: str) -> None:
    got = queries.list_cards(con, "afr", query=query, columns=["id"])
    want = [{"id": c["id"]} for c in afr if CASES[query](c)]
    assert got == want and got, query


def test_an_exact_name_finds_that_card_only(con, afr) -> None:
    name = next(c["name"] for c in afr if c["rarity"] == "mythic")
    got = queries.list_cards(con, "afr", query=f'!"{name}"', columns=["id", "name"])
    assert got == [{"id": c["id"], "name": c["name"]} for c in afr if c["name"] == name] and got
    assert not queries.list_cards(con, "afr", query=f'!"{name[:-1]}"')  # not a prefix search


def test_values_are_parameters_never_sql() -> None:
    evil = "x'); DROP TABLE cards; --"
    sql, params = to_sql(f'name:"{evil}" t:creature')
    assert evil not in sql and "DROP" not in sql
    assert params == [f"%{evil}%", "%creature%"]
    sql, params = to_sql("c<=wu")
    assert params == [["U", "W"]] and "?::VARCHAR[]" in sql


def test_query_across_sets_with_columns_and_limit(con) -> None:
    rows = queries.list_cards(con, None, query="t:dragon r:mythic", columns="name,set_code")
    assert {r["set_code"] for r in rows} >= {"afr", "stx"} and set(rows[0]) == {"name", "set_code"}
    assert (
        queries.list_cards(con, None, query="t:dragon r:mythic", columns="name,set_code", limit=3)
        == rows[:3]
    )


@pytest.mark.parametrize("query, words", [
    ("t:", "'t:' has no value"), ("foo:bar", "unknown term 'foo:bar'"), ("c:x", "unknown colour"),
    ("mv<=abc", "'abc' is not a number"), ("(t:creature", "'(' without its ')'"),
    ("t:creature)", "')' without its '('"), ('t:"legend', "unclosed quote"),
    ("r:epic", "unknown rarity"), ("t<3", "< does not apply to text"), ("or", "nothing on one side"),
])  # fmt: skip
def test_bad_queries(con, query: str, words: str) -> None:
    with pytest.raises(QueryError, match=words.replace("(", r"\(").replace(")", r"\)")):
        queries.list_cards(con, "afr", query=query)


def test_cli_json_equals_library(capsys, any_db: Path, con) -> None:
    args = ["cards", "--q", "t:creature c:g mv<=3", "--columns", "name,mana_value", "--limit", "7"]
    code, out, _ = run(capsys, "--db", str(any_db), *args, "--json")
    assert code == 0
    assert json.loads(out) == queries.list_cards(
        con, None, None, "t:creature c:g mv<=3", "name,mana_value", 7
    )
    code, out, _ = run(capsys, "--db", str(any_db), "sets", "--columns", "code,cards",
                       "--limit", "2", "--json")  # fmt: skip
    assert code == 0 and json.loads(out) == queries.list_sets(con, None, "code,cards", 2)


def test_cli_table_has_no_uuid_and_bad_query_is_one_line(capsys, any_db: Path, con) -> None:
    code, out, _ = run(capsys, "--db", str(any_db), "cards", "afr", "--limit", "3")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["set", "number", "name", "cost", "type", "rarity"]
    assert len(lines) == 5 and not any(len(w) == 36 and w.count("-") == 4 for w in out.split())
    code, out, err = run(capsys, "--db", str(any_db), "cards", "afr", "--q", "c:x")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "unknown colour" in err
    code, _, err = run(capsys, "--db", str(any_db), "cards", "afr", "--columns", "nope")
    assert code == 2 and "--columns nope" in err
    code, _, err = run(capsys, "--db", str(any_db), "cards")
    assert code == 2 and "give a set code, a query, or both" in err
    with pytest.raises(InputError, match="limit"):
        queries.list_cards(con, "afr", limit=-1)


def test_fit_cuts_the_widest_column() -> None:
    rows = [{"a": "x" * 50, "b": "short", "c": 7}]
    cells = fit(rows, ["a", "b", "c"], 30)
    widths = [len(cells[0][k]) for k in "abc"]
    assert sum(widths) + 4 <= 30 and cells[0]["a"].endswith("…") and cells[0]["b"] == "short"
    assert fit(rows, ["a"], 200)[0]["a"] == "x" * 50
