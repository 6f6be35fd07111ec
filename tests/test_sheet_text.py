"""What a sheet says (issue 19 §3, §4): the card's emphasis rendered, never its raw markers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import schema_checked_deal as deal
from markdown_it import MarkdownIt

from boosterkit.minigames import render_sheet
from boosterkit.minigames.catalog import load_catalogue
from boosterkit.minigames.lookup import _minigames, rules_text
from boosterkit.minigames.sheets import Section, _html_section, _md_body, _text_body, emphasis
from boosterkit.pipeline import db

#: A marker left in text: a star, or an underscore at a word's edge (``_Magic_``).
RAW = re.compile(r"\*|(?<!\w)_|_(?!\w)")


@pytest.fixture(scope="module")
def con(built_db: Path):
    c = db.connect(built_db, read_only=True)
    yield c
    c.close()


def test_emphasis_spans() -> None:
    assert emphasis("*White Card*: At the end, _Magic_ cards; snake_case") == [
        ("White Card", "strong"),
        (": At the end, ", ""),
        ("Magic", "em"),
        (" cards; snake_case", ""),
    ]


def test_roll_for_initiative_prints_the_cards_emphasis_in_each_format(con) -> None:
    """MAFR #5: "*Red Card*: Reroll another player's die. They must use the new result." and
    "remove all cards without _Magic_ card backs" print bold and italic, markers gone."""
    setup = deal(con, "roll-for-initiative", 3, "afr", seed=2)
    assert "*Red Card*" in setup.rules_text["text"]  # the card's own markup
    html = render_sheet(setup, "html")
    assert "<strong>Red Card</strong>: Reroll another" in html
    assert "without <em>Magic</em> card backs" in html
    md = render_sheet(setup, "md")
    parsed = MarkdownIt().render(md)
    assert "<strong>Red Card</strong>: Reroll another" in parsed
    assert "without <em>Magic</em> card backs" in parsed
    text = render_sheet(setup, "text")
    assert "Red Card: Reroll another" in text
    assert "without Magic card" in text
    for sheet in (text, re.sub(r"<[^>]+>", "", html), re.sub(r"<[^>]+>", "", parsed)):
        rules = sheet.split("Rules")[1].split("Notes")[0]
        assert not RAW.search(rules), RAW.search(rules)


def test_no_game_prints_raw_markers(real_db: Path) -> None:
    """All 27 games: the rules text the sheets print (the card's, from the real minigame
    files, else the catalogue's) holds emphasis in HTML and Markdown and no marker in any
    format."""
    con = db.connect(real_db, read_only=True)
    try:
        kept = _minigames(con)
    finally:
        con.close()
    games = load_catalogue()
    assert len(games) == 27
    emphasised = 0
    for spec in games.values():
        lines = rules_text(kept, spec)["text"].splitlines()
        sec = Section("Rules", "para", lines)
        text = "\n".join(_text_body(sec))
        html = _html_section(sec)
        md = MarkdownIt().render("\n".join(_md_body(sec)))
        for out in (text, re.sub(r"<[^>]+>", "", html), re.sub(r"<[^>]+>", "", md)):
            assert not RAW.search(out), (spec.id, RAW.search(out), out[:200])
        marked = sum(len(emphasis(x)) > 1 for x in lines)
        assert html.count("<strong>") + html.count("<em>") >= marked, spec.id
        assert md.count("<strong>") + md.count("<em>") == html.count("<strong>") + html.count(
            "<em>"
        ), spec.id
        emphasised += "<em>" in html or "<strong>" in html
    assert emphasised == 10  # the ten cards whose text marks words (MAFR #5, MKHM #4, MSTX #4…)
