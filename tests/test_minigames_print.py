"""The HTML setup sheet printed by a real headless Chromium on A4 and Letter paper."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from boosterkit.minigames import deal, render_sheet
from boosterkit.pipeline import db

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync"]


@pytest.fixture(scope="module")
def page():
    if not CHROMIUM.exists():
        pytest.skip(f"headless Chromium not found at {CHROMIUM} (Debian package chromium)")
    api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    with api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser.new_page()
        browser.close()


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_each_private_hand_prints_on_its_own_page(page, real_db: Path, paper: str) -> None:
    pypdf = pytest.importorskip("pypdf")
    con = db.connect(real_db, read_only=True)
    try:
        setup = deal(con, "roll-for-initiative", 5, "afr", seed=2)
    finally:
        con.close()
    page.set_content(render_sheet(setup, "html"))
    pdf = pypdf.PdfReader(io.BytesIO(page.pdf(format=paper, print_background=True)))
    texts = [" ".join(p.extract_text().split()) for p in pdf.pages]
    assert len(texts) == 1 + 5  # the table's sheet, then one page per player
    assert texts[0].startswith("Roll for Initiative") and "player-" in texts[0]
    for n, text in enumerate(texts[1:], 1):
        hand = setup.zone(f"player-{n} hand")
        assert text.startswith(f"player-{n} hand")
        assert all(c.name in text for c in hand.cards)
        others = [c.name for z in setup.zones if z.kind == "hand" and z is not hand
                  for c in z.cards if c.name not in {x.name for x in hand.cards}]
        assert not any(name in text for name in others)  # nobody else's cards on the page
