"""One constant per meaning: every front end offers the sheet languages ``labels.LANGS`` and
bounds players by the constant named for what it bounds (unit tests: no ../shared)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from boosterkit.cli.app import app
from boosterkit.cli.minigames import Lang
from boosterkit.errors import InputError
from boosterkit.generator import pools
from boosterkit.minigames import catalog, labels, sheets
from boosterkit.minigames.engine import MAX_TABLE_PLAYERS, check_players
from boosterkit.service.models import MAX_REQUEST_PLAYERS, DealRequest


def test_every_front_end_offers_the_label_languages() -> None:
    assert tuple(lang.value for lang in Lang) == labels.LANGS == ("en", "fr", "es")
    assert catalog.LANGS is labels.LANGS
    for lang in labels.LANGS:
        assert sheets.check_lang(lang) == lang
        assert DealRequest(minigame="mimic-match", players=2, lang=lang).lang == lang
        assert labels.label(lang, "Players")  # each language has its labels
    with pytest.raises(InputError, match="en, fr, es"):
        sheets.check_lang("de")
    with pytest.raises(ValidationError):
        DealRequest(minigame="mimic-match", players=2, lang="de")
    out = CliRunner().invoke(app, ["deal", "--help"], env={"COLUMNS": "200"}).output
    assert "<en|fr|es>" in out


def test_each_player_bound_is_its_own_constant() -> None:
    spec = catalog.get_minigame("find-the-assassin")  # printed for "2+ players", no other limit
    check_players(spec, MAX_TABLE_PLAYERS)
    with pytest.raises(InputError, match=f"at most {MAX_TABLE_PLAYERS}"):
        check_players(spec, MAX_TABLE_PLAYERS + 1)
    with pytest.raises(InputError, match=f"1 to {pools.MAX_POOL_PLAYERS}"):
        pools._check(pools.MAX_POOL_PLAYERS + 1, 6)
    DealRequest(minigame="x", players=MAX_REQUEST_PLAYERS)
    with pytest.raises(ValidationError):
        DealRequest(minigame="x", players=MAX_REQUEST_PLAYERS + 1)
    # a request is bounded tighter than the library: the service refuses work a CLI run may do
    assert MAX_REQUEST_PLAYERS < pools.MAX_POOL_PLAYERS < MAX_TABLE_PLAYERS
    help_text = CliRunner().invoke(app, ["pool", "--help"], env={"COLUMNS": "200"}).output
    assert f"(1 to {pools.MAX_POOL_PLAYERS})" in help_text
