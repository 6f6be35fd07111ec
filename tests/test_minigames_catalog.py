"""The minigame catalogue: all 27 files load, follow the JSON Schema, and bad files fail
with the file and the key."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import shared_path

from boosterkit.data import DATA_DIR
from boosterkit.errors import InputError, NotFoundError
from boosterkit.minigames import catalog, list_minigames
from boosterkit.minigames.catalog import get_minigame, load_catalogue, load_file

FILES = sorted((DATA_DIR / "minigames").glob("*.yaml"))
SCHEMA = json.loads((DATA_DIR / "minigame.schema.json").read_text())


def test_all_27_games_are_catalogued() -> None:
    assert len(FILES) == 27
    games = list_minigames()
    assert len(games) == 27 and len({g["id"] for g in games}) == 27
    unknown = {g["id"] for g in games if g["status"] == "U"}
    # research/minigames.md §2: five games whose rules text was never found.
    assert unknown == {
        "cyber-simulacrum",
        "look-at-us-were-r-d",
        "demons-due",
        "beyond-booster-blitz",
        "into-the-story-assassin-edition",
    }
    assert all(not g["dealable"] for g in games if g["id"] in unknown)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_file_matches_json_schema(path: Path) -> None:
    data = yaml.safe_load(path.read_text())
    jsonschema.validate(data, SCHEMA)
    # The id is the printed name in lowercase with dashes.
    expected = re.sub(r"[^a-z0-9]+", "-", data["name"].lower().replace("'", "")).strip("-")
    assert data["id"] == path.stem == expected
    assert (data["setup"] is None) == (data["status"]["setup"] == "U")
    text = path.read_text()
    assert text.startswith("# ") and "Sources:" in text.splitlines()[0]  # a cited source


def test_schema_lists_exactly_the_engine_ops() -> None:
    steps = SCHEMA["$defs"]["SetupSteps"]["properties"]["steps"]["items"]
    refs = [s["$ref"].rsplit("/", 1)[-1] for s in steps["oneOf"]]
    ops = [SCHEMA["$defs"][r]["properties"]["op"]["const"] for r in refs]
    assert ops == list(catalog.OPS) and len(ops) == 16
    assert sorted(steps["discriminator"]["mapping"]) == sorted(ops)


def test_printings_agree_with_the_mtgjson_minigame_sets() -> None:
    """Every card in the shared M*.json files is a printing of a catalogued game."""
    names = {}
    for g in load_catalogue().values():
        for p in g.printings:
            names[(p.set, p.number)] = g
    seen = set()
    for code in ("MAFR", "MKHM", "MZNR", "MSTX", "MMH2"):
        data = json.loads(shared_path("mtgjson", f"{code}.json").read_text())["data"]
        for token in data["tokens"]:
            game = names.get((code.lower(), token["number"]))
            assert game is not None, f"{code} #{token['number']} {token['name']} not catalogued"
            face = token.get("faceName") or token["name"]
            assert face.split(" (")[0] in (game.name, game.name + " (minigame)")
            seen.add((code, token["number"]))
    assert len(seen) == 25  # five minigame cards in each of the five sets


def test_pack_counts_follow_the_cards() -> None:
    rfi = get_minigame("roll-for-initiative")
    assert [rfi.pack_count(n) for n in (2, 4, 5, 8)] == [1, 1, 2, 2]
    assert get_minigame("Mimic Match").pack_count(3) == 3
    assert get_minigame("base-race").pack_count(2) == 3
    assert get_minigame("winchester-draft").pack_count(2) == 6


def test_unknown_game_suggests_the_nearest_never_the_list() -> None:
    with pytest.raises(NotFoundError) as err:
        get_minigame("chess")
    assert str(err.value) == "unknown minigame 'chess' (all games: `boosterkit minigames`)"
    for typo, game in [
        ("rol-for-initiative", "roll-for-initiative"),
        ("Roll for Iniative", "roll-for-initiative"),
        ("Lancez les des", "roll-for-initiative"),  # the French card's name, in part
        ("Tirada de inciativa", "roll-for-initiative"),  # the Spanish card's
        ("base rase", "base-race"),
    ]:
        with pytest.raises(NotFoundError) as err:
            get_minigame(typo)
        assert f"— did you mean {game}? (all games: `boosterkit minigames`)" in str(err.value)


def _write(tmp_path: Path, mutate) -> Path:
    data = yaml.safe_load((DATA_DIR / "minigames" / "mimic-match.yaml").read_text())
    mutate(data)
    p = tmp_path / "mimic-match.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(colour="blue"), r"mimic-match.yaml.colour: unknown key"),
        (
            lambda d: d["setup"]["steps"].append({"op": "juggle"}),
            r"mimic-match.yaml.setup.steps\[7\].op: unknown op 'juggle'",
        ),
        (
            lambda d: d["setup"]["steps"][1].update(filter=["land", "shiny"]),
            r"steps\[1\].filter: unknown filter term 'shiny'",
        ),
        (lambda d: d["setup"]["steps"][5].update(face="down"), r"steps\[5\].face: unknown key"),
        (
            lambda d: d["setup"]["steps"][5].update(shape="hexagon"),
            r"steps\[5\].shape: 'hexagon' is not one of",
        ),
        (lambda d: d["status"].update(setup="maybe"), r"status.setup: 'maybe' is not C, I or U"),
        (lambda d: d["players"].pop("max"), r"players.max: missing"),
        (lambda d: d.update(id="mimic"), r"id: 'mimic' must equal the file name"),
    ],
)
def test_bad_files_fail_with_file_and_key(tmp_path: Path, mutate, message: str) -> None:
    with pytest.raises(InputError, match=message):
        load_file(_write(tmp_path, mutate))


def test_the_compiled_catalogue_is_what_pydantic_checks_for_all_27_games() -> None:
    """``minigames.compiled`` (what ``deal`` reads without pydantic) holds each file's game
    as ``load_file`` checks it, for these very bytes and this ``spec.py``."""
    from boosterkit.minigames import compile, compiled

    assert compiled.SPEC == compile.spec_digest(), "run `python -m boosterkit.minigames.compile`"
    assert sorted(compiled.GAMES) == [p.stem for p in FILES]
    for path in FILES:
        sha, build = compiled.GAMES[path.stem]
        assert sha == compile.digest(path.read_bytes()), f"{path.name} changed: recompile"
        assert build() == load_file(path) == catalog._load(path)
    assert compile.text() == compile.OUT.read_text(encoding="utf-8")


def test_an_edited_catalogue_file_is_checked_not_read_compiled(tmp_path: Path) -> None:
    """A file whose bytes differ from the compiled one's goes through pydantic: an unknown
    key still fails, and a valid edit is what the file now says."""
    source = DATA_DIR / "minigames" / "roll-for-initiative.yaml"
    path = tmp_path / source.name
    text = source.read_text(encoding="utf-8")
    path.write_text(text + "colour: blue\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"roll-for-initiative\.yaml\.colour: unknown key"):
        catalog._load(path)
    path.write_text(re.sub(r"\nminutes: \d+", "\nminutes: 99", text, count=1), encoding="utf-8")
    assert catalog._load(path).minutes == 99 != catalog._load(source).minutes
