"""The organizer page in a real headless Chromium, against a real ``boosterkit serve``.

Loads ``/``, fills the form, deals, checks the sheet on the page against ``POST /deal`` for
the same arguments, prints to PDF and checks the pages: one per player section, no form or
buttons, the dealt card names in the text.
"""

from __future__ import annotations

import io
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-quic", "--disable-sync",
]
DEAL = {"minigame": "roll-for-initiative", "players": 4, "set": "afr", "seed": 2}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(real_db: Path):
    """``boosterkit --db real_db serve`` on a free port of 127.0.0.1; its base URL."""
    port = _free_port()
    cmd = [sys.executable, "-m", "boosterkit.cli", "--db", str(real_db), "serve", "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, proc.stderr.read()
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "serve did not answer within 30 s"
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip(f"headless Chromium not found at {CHROMIUM}: install the Debian packages "
                    "chromium and chromium-driver (.ci/run does)")
    playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


def _cards(obj) -> list[dict]:
    if isinstance(obj, dict):
        return ([obj] if "uid" in obj else []) + [c for v in obj.values() for c in _cards(v)]
    if isinstance(obj, list):
        return [c for v in obj for c in _cards(v)]
    return []


def test_deal_and_print_from_the_page(server: str, browser, tmp_path: Path) -> None:
    pypdf = pytest.importorskip("pypdf")
    setup = httpx.post(f"{server}/deal", json=DEAL, timeout=30).json()
    names = sorted({c["name"] for c in _cards(setup) if c.get("name")})
    assert len(names) > 10

    page = browser.new_page()
    page.goto(f"{server}/")
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    # The choices come from the database and the catalogue.
    assert page.locator("#set option[value=afr]").count() == 1
    assert page.locator("#set option[value=tafr]").count() == 0  # no token set to open
    assert int(page.input_value("#seed")) >= 0  # pre-filled random seed

    page.select_option("#set", "afr")
    page.select_option("#minigame", DEAL["minigame"])
    page.fill("#players", str(DEAL["players"]))
    page.fill("#seed", str(DEAL["seed"]))
    page.click("#deal")
    page.wait_for_function("document.getElementById('sheet').shadowRoot?.textContent.length > 0")
    sheet_text = page.locator("#sheet .sheet-body").inner_text()  # locators pierce the shadow root
    shown = [n for n in names if n in sheet_text]
    assert shown == names, f"missing on the page: {sorted(set(names) - set(shown))[:5]}"
    assert "seed 2" in page.inner_text("#status")
    assert page.is_enabled("#print")
    page.screenshot(path=str(tmp_path / "page.png"), full_page=True)

    page.emulate_media(media="print")
    assert not page.is_visible("#deal-form") and not page.is_visible("#print")
    pdf = pypdf.PdfReader(io.BytesIO(page.pdf(format="A4", print_background=True)))
    pages = [" ".join(p.extract_text().split()) for p in pdf.pages]
    assert not any("New seed" in p or "Minigame" in p for p in pages)  # no form, no buttons
    # The shared part first, then one page per player holding exactly that player's hand.
    assert len(pages) == 1 + DEAL["players"], [p[:60] for p in pages]
    assert "Roll for Initiative" in pages[0] and " hand " not in pages[0]
    hands = {z["owner"]: z["cards"] for z in setup["zones"] if z["owner"]}
    for k in range(1, DEAL["players"] + 1):
        text = pages[k]
        assert text.startswith(f"player-{k} hand"), text[:60]
        assert all(f"player-{j} hand" not in text for j in range(1, DEAL["players"] + 1) if j != k)
        assert all(c["name"] in text for c in hands[f"player-{k}"]), (k, text)
    page.close()


def test_an_error_is_shown_on_the_page(server: str, browser) -> None:
    page = browser.new_page()
    page.goto(f"{server}/")
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    page.select_option("#minigame", DEAL["minigame"])
    # A set that exists but cannot supply this game's product: the API's message is shown.
    page.evaluate("""() => {
        const o = document.createElement('option'); o.value = 'zzq'; o.textContent = 'zzq';
        document.getElementById('set').append(o);
    }""")
    page.select_option("#set", "zzq")
    page.click("#deal")
    page.wait_for_selector("#status.error", timeout=15000)
    assert "zzq" in page.inner_text("#status")
    assert page.locator("#sheet .sheet-body").count() == 0
    page.close()


def test_the_api_docs_render_offline(server: str, browser) -> None:
    page = browser.new_page()
    external: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(server) else external.append(r.url))
    page.goto(f"{server}/docs")
    page.wait_for_selector(".opblock", timeout=15000)
    paths = set(page.locator(".opblock-summary-path").all_inner_texts())
    assert {"/packs", "/deal", "/validate", "/sheet", "/sets/{code}/products"} <= {p.replace("\u200b", "") for p in paths}
    assert external == []  # nothing fetched from outside the service
    page.close()
