"""Small wording a newcomer trips on (issue 23): plurals, marks that explain themselves."""

from __future__ import annotations

from boosterkit.minigames.referee.runner import describe_result
from boosterkit.text import plural


def test_plural() -> None:
    assert [plural(n, "set") for n in (0, 1, 2, 1234)] == [
        "0 sets",
        "1 set",
        "2 sets",
        "1,234 sets",
    ]
    assert (
        plural(1, "sheet card") == "1 sheet card" and plural(3, "child", "children") == "3 children"
    )


def test_a_result_after_one_turn_is_singular() -> None:
    res = {"winner": "player-1", "ended_by": "land-revealed", "turns": 1}
    assert describe_result(res) == "result: player-1 wins (land-revealed) after 1 turn"
    assert describe_result({**res, "turns": 2}).endswith("after 2 turns")


def test_face_down_headings_say_so_in_words(built_db) -> None:
    from boosterkit.minigames import deal, render_sheet
    from boosterkit.pipeline import db

    con = db.connect(built_db, read_only=True)
    try:
        html = render_sheet(deal(con, "mimic-match", 3, set_code="afr", seed=2), "html")
    finally:
        con.close()
    assert '<h2 class="face-down">grid (16 cards, 4 x 4, face down)' in html
    assert "\\25A0" not in html and "■" not in html
