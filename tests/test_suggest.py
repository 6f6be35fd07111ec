"""Unknown names answer with the closest few ("did you mean afr?"), never the full list, and
say where the list is (issue 23): sets, products, games (printed fr/es titles too), formats,
in the CLI and in the service's error bodies."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_cli

from boosterkit.suggest import closest, distance, fold, unknown


@pytest.mark.parametrize(
    ("a", "b", "d"),
    [
        ("afr", "afr", 0),
        ("afx", "afr", 1),
        ("", "abc", 3),
        ("kitten", "sitting", 3),
        ("ab", "ba", 2),
    ],
)
def test_distance_is_levenshtein(a: str, b: str, d: int) -> None:
    assert distance(a, b) == d == distance(b, a)


def test_fold_drops_case_accents_and_punctuation() -> None:
    assert fold("Lancez les dés pour l'initiative !") == "lancez-les-des-pour-l-initiative"


def test_closest_is_the_nearest_few_and_nothing_far() -> None:
    codes = [(c, c) for c in ("afr", "afc", "khm", "mafr", "tafr", "znr")]
    assert closest("afx", codes) == ["afc", "afr"]  # both one letter away; mafr is two
    assert closest("zzz", codes) == []
    assert closest("", codes) == []
    many = [(f"a{c}", f"a{c}") for c in "bcdefghij"]
    assert len(closest("ax", many)) == 3  # at most three, never the list


def test_unknown_is_one_line_with_the_listing_command() -> None:
    line = unknown("set", "afx", [("afr", "afr")], "loaded sets: `boosterkit sets`")
    assert line == "unknown set 'afx' — did you mean afr? (loaded sets: `boosterkit sets`)"


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["open", "afx"],
            "unknown set 'afx' — did you mean afr? (loaded sets: `boosterkit sets`; "
            "to load one: `boosterkit sync afx`)",
        ),
        (
            ["deal", "rol-for-initiative", "--players", "3"],
            "unknown minigame 'rol-for-initiative' — did you mean roll-for-initiative? "
            "(all games: `boosterkit minigames`)",
        ),
        (
            ["deal", "Tirada de iniciatva", "--players", "3"],
            "unknown minigame 'Tirada de iniciatva' — did you mean roll-for-initiative? "
            "(all games: `boosterkit minigames`)",
        ),
        (
            ["open", "afr", "-p", "colector"],
            "unknown product 'colector' of afr — did you mean collector? "
            "(its products: `boosterkit products afr`)",
        ),
        (
            ["open", "afr", "-f", "jsn"],
            "unknown format 'jsn' — did you mean json? "
            "(choices of --format: text, json, jsonl, csv, draftmancer, cubecobra, parquet, arrow)",
        ),
        (
            ["sets", "--type", "expanson"],
            "unknown set type 'expanson' — did you mean expansion? (types in the database: TYPES)",
        ),
        (  # nothing near: the few types the database has (any Scryfall type filters)
            ["sets", "--type", "xyz"],
            "unknown set type 'xyz' (types in the database: TYPES)",
        ),
        (
            ["odds", "afr", "-p", "set", "--card", "AFR Queen of Webz"],
            "unknown card 'AFR Queen of Webz' in afr-set's packs — did you mean AFR Queen of "
            "Webs? (every card's odds: `boosterkit odds afr -p afr-set`)",
        ),
        (
            ["deal", "roll-for-initiative", "--players", "3", "--lang", "frr"],
            "unknown value of --lang 'frr' — did you mean fr? (choices of --lang: en, fr, es)",
        ),
    ],
)
def test_cli_suggests_in_one_line_exit_2(capsys, built_db: Path, args, line) -> None:
    from boosterkit.pipeline import db
    from boosterkit.pipeline.queries import set_types

    with db.connect(built_db, read_only=True) as con:
        line = line.replace("TYPES", ", ".join(set_types(con)))
    code, out, err = run_cli(capsys, "--db", str(built_db), *args)
    assert (code, out, err) == (2, "", f"boosterkit: error: {line}\n")


def test_service_error_bodies_suggest_the_same(built_db: Path) -> None:
    from fastapi.testclient import TestClient

    from boosterkit.service.app import create_app

    with TestClient(create_app(built_db), base_url="http://127.0.0.1") as client:
        packs = client.post("/packs", json={"set": "afx", "count": 1, "seed": 1})
        deal = client.post("/deal", json={"minigame": "rol-for-initiative", "players": 3})
    assert packs.status_code == 404 and "unknown set 'afx' — did you mean afr? (" in packs.text
    assert deal.status_code == 404
    assert "did you mean roll-for-initiative? (all games: `boosterkit minigames`)" in deal.text


def test_service_choice_fields_suggest_the_nearest(built_db: Path) -> None:
    from fastapi.testclient import TestClient

    from boosterkit.service.app import create_app

    pool = {"set": "afr", "players": 2, "packs": 1, "seed": 1, "format": "htm"}
    with TestClient(create_app(built_db), base_url="http://127.0.0.1") as client:
        body = client.post("/pool", json=pool).json()
    assert body["status"] == 422 and body["error"] == (
        "unknown format 'htm' — did you mean html? (choices: json, html, text, md, decklist, "
        "arena, moxfield, mtgo, dek, cockatrice, xmage, forge, mtgjson, pdf, registration-html, "
        "registration-pdf, registration-csv)"
    )
