"""The minigame catalogue: all 28 files load, follow the JSON Schema, and bad files fail
with the file and the key."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from helpers import check_schema, minigame_sets

from boosterkit.data import DATA_DIR
from boosterkit.errors import InputError, NotFoundError
from boosterkit.minigames import catalog, list_minigames
from boosterkit.minigames.catalog import get_minigame, load_catalogue, load_file

FILES = sorted((DATA_DIR / "minigames").glob("*.yaml"))
SCHEMA = json.loads((DATA_DIR / "minigame.schema.json").read_text())


def test_all_28_games_are_catalogued_and_dealt_by_their_cards() -> None:
    # research/minigames.md (top note): the full text of every game, and a 28th (Sharkey's
    # Tithe), is in the shared MTGJSON minigame files: no game is left unknown (status U).
    assert len(FILES) == 28
    games = list_minigames()
    assert len(games) == 28 and len({g["id"] for g in games}) == 28
    assert all(g["dealable"] for g in games)
    # the listing's status is the least sure of the setup, the packs and the players: Magic
    # and Minions' Draft Boosters and Assassin Edition's player range are inferred, and their
    # sheets say so
    inferred = {g["id"] for g in games if g["status"] == "I"}
    assert inferred == {"magic-and-minions", "into-the-story-assassin-edition"}
    assert {g["status"] for g in games} == {"C", "I"}
    assert "sharkeys-tithe" in {g["id"] for g in games}
    for g in games:  # the printed players, packs and minutes line, or why there is none
        spec = get_minigame(g["id"])
        if spec.unprinted is None:
            assert g["players_min"] and g["packs"] and g["minutes"], g["id"]
        else:
            assert set(spec.unprinted.facts) == {"players", "minutes"}  # packs: GET READY
            assert g["id"] == "into-the-story-assassin-edition"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_file_matches_json_schema(path: Path) -> None:
    data = yaml.safe_load(path.read_text())
    check_schema(data, "minigame.schema.json")
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
    assert ops == list(catalog.OPS) and len(ops) == 18
    assert sorted(steps["discriminator"]["mapping"]) == sorted(ops)


def test_printings_agree_with_the_mtgjson_minigame_sets() -> None:
    """Every card in the shared MTGJSON minigame sets is a printing of a catalogued game, and
    every catalogued printing but MVOW's (not among the files) is one of those cards."""
    names = {}
    for g in load_catalogue().values():
        for p in g.printings:
            names[(p.set, p.number)] = g
    seen = set()
    for data in minigame_sets().values():
        code = data["code"]
        for token in data["tokens"]:
            game = names.get((code.lower(), token["number"]))
            assert game is not None, f"{code} #{token['number']} {token['name']} not catalogued"
            face = token.get("faceName") or token["name"]
            face = face.split(" (")[0].lower()  # MMID's back face: "Day vs. Night (cont'd)"
            assert face in (game.name.lower(), "into the story", "story beats")
            assert token["name"] in game.scryfall_names
            seen.add((code.lower(), token["number"]))
    assert len(seen) == 52  # 25 in the five 2021 sets, 27 in the nine others
    assert {k for k in names if k[0] != "mvow"} == seen


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


def test_the_compiled_catalogue_is_what_pydantic_checks_for_all_28_games() -> None:
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
