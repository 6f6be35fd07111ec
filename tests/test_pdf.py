"""PDF output (issue 32): pools, registration sheets and setup sheets printed by WeasyPrint on
A4 and Letter, read back with pypdf: the page count, a page per player or audience, and no
grid or table split across pages. And the event end to end: 16 players of a mixed pool,
printed, each registered deck checked."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import run_cli as run

from boosterkit.generator.events import event_spec, open_event
from boosterkit.generator.registration import card_name
from boosterkit.pipeline import db
from boosterkit.serialize import to_json

pytest.importorskip("weasyprint", reason="pip install 'boosterkit[pdf]' (WeasyPrint and Pango)")
pypdf = pytest.importorskip("pypdf")

PAPERS = {"a4": (595, 842), "letter": (612, 792)}


def _pages(pdf: bytes) -> list[str]:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return [" ".join(p.extract_text().split()) for p in reader.pages]


def _size(pdf: bytes) -> tuple[int, int]:
    box = pypdf.PdfReader(io.BytesIO(pdf)).pages[0].mediabox
    return round(float(box.width)), round(float(box.height))


#: The issue's event: 16 players of a mixed pool, seeded.
MIXED = ["pool", "--packs", "afr:3,stx:3", "-n", "16", "--seed", "32"]
#: Players printed a paper: the whole event on Letter, its first 4 on A4 (16 pages take
#: 5 to 8 s of CPU).
PLAYERS = {"letter": 16, "a4": 4}


def _cli(*args: str) -> tuple[int, str]:
    """``main()`` in-process outside a test (a module fixture has no ``capsys``): (exit
    code, stderr)."""
    from boosterkit.cli.app import main

    old, err = sys.argv, io.StringIO()
    sys.argv = ["boosterkit", *args]
    try:
        with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as exc:
            main()
    finally:
        sys.argv = old
    return exc.value.code, err.getvalue()


@pytest.fixture(scope="module")
def event16(real_db: Path) -> dict:
    """The event ``MIXED`` makes, as ``--json`` has it (``test_the_cli_event_is_the_library_event``)."""
    return {
        **open_event(event_spec(None, "afr:3,stx:3"), 16, 32, db=real_db),
        "event": "Prerelease",
    }


@pytest.fixture(scope="module")
def event4(real_db: Path) -> dict:
    """``MIXED`` for 4 players: the A4 prints'."""
    return open_event(event_spec(None, "afr:3,stx:3"), 4, 32, db=real_db)


@pytest.fixture(scope="module")
def printed(real_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, str], bytes]:
    """``printed(fmt, paper)``: the event's ``pool -f FMT --paper PAPER -o FILE``, printed
    by the CLI once for the module, for ``PLAYERS[paper]`` players."""
    folder = tmp_path_factory.mktemp("printed")
    done: dict[tuple[str, str], bytes] = {}

    def get(fmt: str, paper: str) -> bytes:
        if (fmt, paper) not in done:
            target = folder / f"{fmt}-{paper}.pdf"
            args = [*MIXED[:-3], str(PLAYERS[paper]), *MIXED[-2:]]
            code, err = _cli("--db", str(real_db), *args, "-f", fmt, "--paper", paper,
                             "--event", "Prerelease", "-o", str(target))  # fmt: skip
            assert code == 0 and f"wrote {target}" in err, err
            done[fmt, paper] = target.read_bytes()
        return done[fmt, paper]

    return get


@pytest.mark.slow
@pytest.mark.parametrize("paper", list(PAPERS))
def test_registration_sheets_print_a_whole_page_per_player(
    event16: dict, event4: dict, printed: Callable[[str, str], bytes], paper: str
) -> None:
    pdf, players = printed("registration-pdf", paper), PLAYERS[paper]
    assert _size(pdf) == PAPERS[paper]
    pages = _pages(pdf)
    assert len(pages) == players
    event = event16 if players == 16 else event4
    for n, (text, pool) in enumerate(zip(pages, event["pools"]), 1):
        assert f"Deck registration — player {n} of {players}" in text
        assert "Event Prerelease" in text
        for card in pool["cards"]:  # every table whole on its player's page
            assert " ".join(card_name(card).split()) in text, (paper, n, card["name"])
        assert "Basic lands added" in text and f"--player {n}" in text


@pytest.mark.slow
@pytest.mark.parametrize("paper", list(PAPERS))
def test_pools_print_a_page_per_player(
    event16: dict, event4: dict, printed: Callable[[str, str], bytes], paper: str
) -> None:
    pdf, players = printed("pdf", paper), PLAYERS[paper]
    assert _size(pdf) == PAPERS[paper]
    pages = _pages(pdf)
    assert len(pages) == players
    event = event16 if players == 16 else event4
    for n, (text, pool) in enumerate(zip(pages, event["pools"]), 1):
        assert text.startswith(f"Player {n} of {players}: 3 afr-draft + 3 stx-draft")
        assert all(c["name"] in text for c in pool["cards"] if c["name"])


@pytest.mark.slow
def test_a_sheet_longer_than_a_page_loses_no_card(real_db: Path) -> None:
    """A pool of 36 packs: its sheet runs over pages, every card on one of its player's
    pages, each colour's table whole where a column holds it (the sheet clipped what did
    not fit its first page before)."""
    from boosterkit.generator.registration import _layout, _sections, registration_pdf

    data = open_event(event_spec(None, "afr:36"), 1, 7, db=real_db)
    pages = _pages(registration_pdf(data, paper="letter"))
    assert len(pages) == len(_layout(data["pools"][0])) > 1  # as many pages as laid out
    assert all("player 1 of 1" in t for t in pages)
    assert "Player signature" in pages[-1] and f"page {len(pages)} of {len(pages)}" in pages[-1]
    for section, cards in _sections(data["pools"][0]):
        head = f"{section} ({sum(c['count'] for c in cards)})"
        (on,) = [k for k, t in enumerate(pages) if head in t]
        missing = [c["name"] for c in cards if " ".join(card_name(c).split()) not in pages[on]]
        assert missing == [], (section, missing)


def test_a_pdf_per_player_is_the_same_bytes_as_the_librarys(
    capsys, built_db: Path, tmp_path
) -> None:
    from boosterkit.generator.pools import pools_pdf

    args = ["--db", str(built_db), "pool", "--packs", "afr:2", "-n", "2", "--seed", "3"]
    code, out, err = run(capsys, *args, "-f", "pdf", "--paper", "letter", "-o", str(tmp_path))
    assert code == 0 and out == "" and "wrote 2 files" in err
    data = open_event(event_spec(None, "afr:2"), 2, 3, db=built_db)
    first = (tmp_path / "pool-1.pdf").read_bytes()
    assert (
        first.startswith(b"%PDF")
        and pools_pdf(data, pool=data["pools"][0], paper="letter") == first
    )
    assert [len(_pages(first)), _size(first)] == [1, PAPERS["letter"]]
    assert _pages((tmp_path / "pool-2.pdf").read_bytes())[0].startswith("Player 2 of 2")


def test_no_url_is_fetched_for_a_pdf(monkeypatch) -> None:
    """A document naming an image URL prints without it: nothing leaves the machine."""
    import urllib.request

    from boosterkit.pdf import html_to_pdf

    asked: list[object] = []

    def refuse(*args, **kwargs):
        asked.append(args)  # WeasyPrint swallows a fetcher's errors: count the calls
        raise OSError("no network in this test")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setattr(urllib.request.OpenerDirector, "open", refuse)
    pdf = html_to_pdf('<p>card</p><img src="https://cards.scryfall.io/x.jpg">', "a4")
    assert _pages(pdf) == ["card"] and asked == []


def _dealt(real_db: Path, game: str, players: int, set_code: str):
    from boosterkit.minigames import SetupError, deal

    con = db.connect(real_db, read_only=True)
    try:
        for seed in range(1, 21):
            try:
                return deal(con, game, players, set_code, seed=seed)
            except SetupError:
                continue
    finally:
        con.close()
    raise AssertionError(f"{game}: no seed of 1-20 deals")


@pytest.mark.slow
@pytest.mark.parametrize("paper", list(PAPERS))
@pytest.mark.parametrize(("game", "players", "set_code"),
                         [("roll-for-initiative", 5, "afr"), ("mimic-match", 2, "afr"),
                          ("base-race", 2, "znr")])  # fmt: skip
def test_setup_sheets_print_each_audience_and_grid_whole(
    real_db: Path, paper: str, game: str, players: int, set_code: str
) -> None:
    """As the browser tests check Chromium's print: each audience starts its own page, the
    table's page takes one sheet, every grid's cells are on its heading's page, in order."""
    from boosterkit.minigames.sheets import build_pages, sheet_pdf

    setup = _dealt(real_db, game, players, set_code)
    texts = _pages(sheet_pdf(setup, paper=paper))
    pages = build_pages(setup)
    starts = [i for i, t in enumerate(texts) if t.startswith(setup.spec.name)]
    assert len(starts) == len(pages) and starts[0] == 0
    assert starts[1] == 1, f"the table's page took {starts[1]} sheets on {paper}"
    for sheet_page, first in zip(pages, starts):
        for sec in sheet_page.sections:
            if sec.kind != "grid":
                continue
            cells = [c if isinstance(c, str) else c["uid"] for row in sec.body for c in row]
            on = [k for k in range(first, len(texts)) if sec.title in texts[k]][0]
            text = texts[on][texts[on].index(sec.title) + len(sec.title) :]
            for cell in cells:
                assert cell in text, f"{paper}: {sec.title}: {cell!r} is not on its page"
                text = text[text.index(cell) + len(cell) :]


@pytest.mark.slow
def test_a_16_player_mixed_event_end_to_end(
    capsys, real_db: Path, tmp_path: Path, event16: dict, printed: Callable[[str, str], bytes]
) -> None:
    """The issue's case: generate, print pools and registration sheets, check each deck."""
    base = ["--db", str(real_db), *MIXED]
    assert len(_pages(printed("registration-pdf", "letter"))) == 16
    assert len(_pages(printed("pdf", "letter"))) == 16
    code, out, _ = run(capsys, *base, "--json", "--event", "Prerelease")
    data = json.loads(out)
    assert code == 0 and data == json.loads(to_json(event16))
    taken = {c["name"] for p in data["pools"] for c in p["cards"] if c["name"]}
    for pool in data["pools"]:
        spells = [c for c in pool["cards"] if c["name"] and c["section"] != "Lands"]
        main = [f"{c['count']} {c['name']}" for c in spells]
        deck = tmp_path / f"deck-{pool['player']}.txt"
        deck.write_text("Deck\n" + "\n".join([*main, "17 Forest"]) + "\n")
        check = ["--db", str(real_db), "pool", "check", str(deck), "--packs", "afr:3,stx:3",
                 "--seed", "32", "--player", str(pool["player"])]  # fmt: skip
        code, out, err = run(capsys, *check)
        assert code == 0, out + err
    outsider = sorted(taken - {c["name"] for c in data["pools"][0]["cards"]})[0]
    deck = tmp_path / "deck-1.txt"
    deck.write_text(deck.read_text() + f"1 {outsider}\n")
    code, out, _ = run(capsys, *check[:4], str(deck), *check[5:9], "--player", "1")
    assert code == 1 and f"{outsider}: 1 in the deck, 0 in the pool" in out


def test_deal_and_the_service_write_a_sheet_as_pdf(capsys, built_db: Path, tmp_path) -> None:
    from fastapi.testclient import TestClient

    from boosterkit.service.app import create_app

    target = tmp_path / "sheet.pdf"
    args = ["--db", str(built_db), "deal", "roll-for-initiative", "-n", "3", "--set", "afr",
            "--seed", "2", "-f", "pdf"]  # fmt: skip
    code, out, err = run(capsys, *args, "--paper", "letter", "-o", str(target))
    assert code == 0 and out == "" and f"wrote {target}" in err
    pages = _pages(target.read_bytes())
    assert _size(target.read_bytes()) == PAPERS["letter"]
    assert len(pages) == 1 + 3 + 1 and "ORGANIZER ONLY" in pages[-1]
    code, _, err = run(capsys, *args, "--paper", "a5")
    assert code == 2 and "--paper 'a5': expected one of a4, letter" in err
    query = "minigame=roll-for-initiative&players=3&set=afr&seed=2&format=pdf&paper=letter"
    with TestClient(create_app(built_db), base_url="http://127.0.0.1") as client:
        got = client.get(f"/sheet?{query}")
    assert got.headers["content-type"] == "application/pdf"
    assert got.content == target.read_bytes()  # the same bytes as the CLI's
