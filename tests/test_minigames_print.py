"""The HTML setup sheet printed by a real headless Chromium on A4 and Letter paper."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from boosterkit.minigames import deal, render_sheet
from boosterkit.pipeline import db

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


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
def test_each_audience_prints_on_its_own_pages(page, real_db: Path, paper: str) -> None:
    pypdf = pytest.importorskip("pypdf")
    con = db.connect(real_db, read_only=True)
    try:
        setup = deal(con, "roll-for-initiative", 5, "afr", seed=2)
    finally:
        con.close()
    page.set_content(render_sheet(setup, "html"))
    pdf = pypdf.PdfReader(io.BytesIO(page.pdf(format=paper, print_background=True)))
    texts = [" ".join(p.extract_text().split()) for p in pdf.pages]
    # Each audience starts a new page: group the pages by the heading that opens them.
    groups: list[list[str]] = []
    for text in texts:
        if text.startswith("Roll for Initiative"):
            groups.append([text])
        else:
            groups[-1].append(text)
    heads = [g[0].split(" ", 5)[:5] for g in groups]
    assert len(groups) == 1 + 5 + 1, heads  # table, five players, organizer
    assert "TABLE" in groups[0][0] and "ORGANIZER ONLY" in groups[-1][0]
    hands = {n: {c.name for c in setup.zone(f"player-{n} hand").cards} for n in range(1, 6)}
    for n, group in enumerate(groups[1:6], 1):
        text = " ".join(group)
        assert text.startswith(f"Roll for Initiative — player-{n}")
        assert all(name in text for name in hands[n])
        others = set().union(*(h for k, h in hands.items() if k != n)) - hands[n]
        assert not any(name in text for name in others)  # nobody else's cards on the page
    table = " ".join(groups[0])
    assert not any(
        name in table for h in hands.values() for name in h if name not in setup.rules_text["text"]
    )
