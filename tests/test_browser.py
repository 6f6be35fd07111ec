"""The organizer page in a real headless Chromium, against a real ``boosterkit serve``.

Loads ``/``, fills the form, deals, checks the sheet on the page against ``POST /deal`` for
the same arguments, prints to PDF and checks the pages: the table's, one per player, the
organizer's, no form or buttons, the dealt card names in the text. Then what an organizer
meets: an error clears the previous sheet, a game whose own set is not loaded offers the
loaded ones, the form survives a reload, no request 404s (favicon), and card images
(``images=true``) are on the sheet with their artist credit, never fetched (the browser's
network is limited to the local server). The Sealed pool mode: pools on the page equal
``POST /pool``'s JSON, print one page per player, download a deck list per player, survive a
reload; an error clears them.
"""

from __future__ import annotations

import html
import io
import re
import socket
import subprocess
import sys
import time
import unicodedata
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-quic",
    "--disable-sync",
]
DEAL = {"minigame": "roll-for-initiative", "players": 4, "set": "afr", "seed": 2}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(real_db: Path):
    """``boosterkit --db real_db serve`` on a free port of 127.0.0.1; its base URL."""
    with _serve(real_db) as url:
        yield url


@pytest.fixture(scope="module")
def images_server(images_db: Path):
    """``boosterkit serve`` over ``images_db`` (ONE from Scryfall, with image URLs)."""
    with _serve(images_db) as url:
        yield url


@contextmanager
def _serve(real_db: Path | None, env: dict[str, str] | None = None):
    """``boosterkit [--db real_db] serve --workers 1`` (no ``--db``: as ``env`` resolves it).
    One process: the default, a worker per core and their supervisor, cost each server twice
    the CPU (test_serve_workers tests them)."""
    port = _free_port()
    where = ["--db", str(real_db)] if real_db is not None else []
    cmd = [sys.executable, "-m", "boosterkit.cli", *where, "serve", "--port", str(port),
           "--workers", "1"]  # fmt: skip
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env
    )
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
        pytest.skip(
            f"headless Chromium not found at {CHROMIUM}: install the Debian packages "
            "chromium and chromium-driver (.ci/run does)"
        )
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
    refused: list[str] = []  # what the page's Content-Security-Policy blocked (issue 20)
    page.on(
        "console",
        lambda m: (
            refused.append(f"{m.text} @ {m.location}")
            if "Content Security Policy" in m.text
            else None
        ),
    )
    response = page.goto(f"{server}/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
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
    page.wait_for_function(
        "() => document.getElementById('sheet').shadowRoot?.textContent.length > 0"
    )
    # the sheet's own styles apply in the shadow root (constructed style sheets: no inline style)
    assert page.evaluate("document.getElementById('sheet').shadowRoot.adoptedStyleSheets.length")
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
    # The table's page first, then one per player holding exactly that player's hand, then
    # the organizer's: each audience starts a new printed page (grouped by their heading).
    groups: list[str] = []
    for text in pages:
        if text.startswith("Roll for Initiative"):
            groups.append(text)
        else:
            groups[-1] += " " + text
    assert len(groups) == 1 + DEAL["players"] + 1, [g[:60] for g in groups]
    assert "TABLE" in groups[0] and "ORGANIZER ONLY" in groups[-1]
    hands = {z["owner"]: {c["name"] for c in z["cards"]} for z in setup["zones"] if z["owner"]}
    assert not any(n in groups[0] for h in hands.values() for n in h)  # no hand on the table
    for k in range(1, DEAL["players"] + 1):
        text = groups[k]
        assert text.startswith(f"Roll for Initiative — player-{k}"), text[:60]
        assert all(n in text for n in hands[f"player-{k}"]), (k, text)
        others = set().union(*(h for o, h in hands.items() if o != f"player-{k}"))
        assert not any(n in text for n in others - hands[f"player-{k}"])
    assert refused == [], refused  # the page works under its policy
    page.close()


def _watch(page) -> list[str]:
    """The page's failed requests (HTTP errors, 404s included) as they happen."""
    failures: list[str] = []
    page.on(
        "response", lambda r: failures.append(f"{r.status} {r.url}") if r.status >= 400 else None
    )
    return failures


def _sheet_shown(page) -> bool:
    return page.evaluate(
        "(() => { const h = document.getElementById('sheet');"
        " return !h.hidden && (h.shadowRoot?.childNodes.length ?? 0) > 0; })()"
    )


def test_an_error_clears_the_sheet_and_offers_the_loaded_sets(server: str, browser) -> None:
    page = browser.new_page()
    failures = _watch(page)
    page.goto(f"{server}/")
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    page.select_option("#set", "afr")
    page.select_option("#minigame", "roll-for-initiative")
    page.fill("#players", "3")
    page.fill("#seed", "5")
    page.click("#deal")
    page.wait_for_function(
        "() => document.getElementById('sheet').shadowRoot?.textContent.length > 0"
    )
    assert _sheet_shown(page) and page.is_enabled("#print")
    assert page.is_hidden("#set-offer")  # the set is chosen: nothing to offer

    # Day vs. Night was printed for MID only, which real_db does not hold.
    page.select_option("#set", "")
    page.select_option("#minigame", "day-vs-night")
    offer = page.inner_text("#set-offer-text")
    assert page.is_visible("#set-offer") and "printed for MID, which is not loaded" in offer
    for code in ("AFR", "KHM", "ZNR", "STX", "MH2"):
        assert (
            code in offer
            and page.locator(f"#set-offer button[data-set={code.lower()}]").count() == 1
        )
    page.fill("#seed", "6")
    page.click("#deal")
    page.wait_for_selector("#status.error")
    assert "mid" in page.inner_text("#status") and "choose a loaded set" in page.inner_text(
        "#status"
    )
    # The previous game's sheet is gone: Print cannot print it under the red message.
    assert not _sheet_shown(page) and page.is_disabled("#print")
    assert page.is_visible("#set-offer")

    page.click("#set-offer button[data-set=khm]")
    assert page.input_value("#set") == "khm" and page.is_hidden("#set-offer")
    page.click("#deal")
    page.wait_for_function(
        "() => document.getElementById('status').textContent.startsWith('Dealt')"
    )
    assert _sheet_shown(page) and page.is_enabled("#print")
    assert "Day Vs. Night" in page.locator("#sheet .sheet-body").inner_text()
    assert len(failures) == 1 and "/sheet?minigame=day-vs-night&" in failures[0], failures
    page.close()


def test_the_form_survives_a_reload_and_nothing_404s(server: str, browser) -> None:
    context = browser.new_context()
    page = context.new_page()
    failures = _watch(page)
    page.goto(f"{server}/")
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    page.select_option("#set", "znr")
    page.select_option("#minigame", "roll-for-initiative")
    page.fill("#players", "5")
    page.fill("#seed", "4242")
    page.check("#images")
    page.reload()
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    values = [page.input_value(f"#{f}") for f in ("set", "minigame", "players", "seed")]
    assert values == ["znr", "roll-for-initiative", "5", "4242"] and page.is_checked("#images")

    page.uncheck("#images")
    page.click("#deal")
    page.wait_for_function(
        "() => document.getElementById('status').textContent.startsWith('Dealt')"
    )
    url = page.url  # the dealt game is in the address: a bookmark or another browser deals it
    assert "seed=4242" in url and "set=znr" in url
    fresh = browser.new_context().new_page()  # no localStorage: the query alone
    fresh.goto(url)
    fresh.wait_for_selector("body[data-ready=true]", timeout=15000)
    assert fresh.input_value("#seed") == "4242" and fresh.input_value("#set") == "znr"
    assert fresh.input_value("#players") == "5" and not fresh.is_checked("#images")
    fresh.context.close()

    assert page.evaluate("document.querySelector('link[rel=icon]').href").endswith("favicon.svg")
    assert httpx.get(f"{server}/favicon.ico").status_code == 200  # asked for by habit
    assert failures == [], failures  # no favicon (nor any other) 404
    context.close()


def test_card_images_markup_without_fetching_them(
    images_server: str, images_db: Path, browser
) -> None:
    from boosterkit.pipeline import db

    page = browser.new_page()
    blocked: list[str] = []

    def local_only(route) -> None:
        if route.request.url.startswith(images_server):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    page.route("**/*", local_only)
    page.goto(f"{images_server}/")
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    page.select_option("#set", "one")
    page.select_option("#minigame", "roll-for-initiative")
    page.fill("#players", "3")
    page.fill("#seed", "7")
    page.check("#images")
    page.click("#deal")
    page.wait_for_function(
        "() => document.getElementById('status').textContent.startsWith('Dealt')"
    )
    found = page.evaluate("""(() => [...document.getElementById('sheet').shadowRoot
        .querySelectorAll('section.page')].map((s) => [s.dataset.audience,
        [...s.querySelectorAll('.has-art')].map((a) => [a.querySelector('img').getAttribute('src'),
            a.querySelector('.credit')?.textContent, a.querySelector('.uid').textContent])]))()""")
    setup = httpx.post(
        f"{images_server}/deal",
        timeout=30,
        json={"minigame": "roll-for-initiative", "players": 3, "set": "one", "seed": 7},
    ).json()
    owner = {c["uid"]: z["owner"] for z in setup["zones"] for c in z["cards"]}
    card_of = {c["uid"]: c["card_id"] for z in setup["zones"] for c in z["cards"]}
    con = db.connect(images_db, read_only=True)
    try:
        art = dict(
            con.execute(
                "SELECT id, [image_uris.small, artist] FROM cards WHERE image_uris IS NOT NULL"
            ).fetchall()
        )
    finally:
        con.close()
    pages = dict(found)
    assert pages["table"] == []  # the hands are not on the table's page, nor their images
    for audience, shown in pages.items():
        for src, credit, uid in shown:
            assert [src, credit.removeprefix("Illus. ")] == art[card_of[uid]]
            assert audience == "organizer" or owner[uid] == audience
    assert all(pages[f"player-{k}"] for k in (1, 2, 3)) and pages["organizer"]
    text = page.locator("#sheet .sheet-body").inner_text()
    assert "Card images from Scryfall" in text and "Illus. " in text
    # No image was fetched: every request off the local server was the sheet's images, refused.
    srcs = {src for shown in pages.values() for src, _, _ in shown}
    assert blocked and set(blocked) <= srcs

    # The same box on sealed pools: POST /pool with "images": true, shown as it answers.
    _open_pools(page, players=2, packs=1, seed=7, set_code="one")
    assert page.is_checked("#images")
    shown = page.evaluate(
        "[...document.getElementById('sheet').shadowRoot"
        ".querySelectorAll('li.art')].map((li) => [li.querySelector('img')"
        ".getAttribute('src'), li.querySelector('figcaption')?.textContent])"
    )
    answer = httpx.post(
        f"{images_server}/pool",
        timeout=30,
        json={"set": "one", "players": 2, "packs": 1, "seed": 7, "format": "html", "images": True},
    ).text
    expected = re.findall(
        r'<img src="([^"]+)".*?(?:<figcaption>([^<]*)</figcaption>)?</figure>', answer
    )
    assert shown and shown == [
        [html.unescape(src), html.unescape(c) or None] for src, c in expected
    ]
    assert all(credit.startswith("Illus. ") for _, credit in shown if credit)
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


def test_a_refused_deal_offers_the_product_that_deals(server: str, browser) -> None:
    """Issue 18: Mimic Match at 2 on AFR, seed 1, deals a List card real_db lacks. The
    refusal is shown with the commands that fix it; the product choice (from GET
    /sets/afr/products) lists set, draft… and a button deals the same seed as drafts."""
    page = browser.new_page()
    failures = _watch(page)
    page.goto(f"{server}/")
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    page.select_option("#set", "afr")
    page.select_option("#minigame", "mimic-match")
    page.fill("#players", "2")
    page.fill("#seed", "1")
    page.wait_for_selector("#product option[value=afr-draft]", state="attached", timeout=15000)
    listed = {code: p["kind"] for code, p in ((p["code"], p) for p in httpx.get(
        f"{server}/sets/afr/products", timeout=30).json())}  # fmt: skip
    offered = page.eval_on_selector_all("#product option", "os => os.map(o => o.value)")
    assert offered == ["", *listed] and {"set", "draft"} <= set(listed.values())
    page.click("#deal")
    page.wait_for_selector("#status.error", timeout=15000)
    status = page.inner_text("#status")
    assert "`boosterkit sync plst`" in status and status.endswith("or deal `--product draft`.")
    assert not _sheet_shown(page)
    page.click("#product-offer button[data-product=afr-draft]")
    page.wait_for_function(
        "() => document.getElementById('status').textContent.startsWith('Dealt')"
    )
    assert _sheet_shown(page) and page.input_value("#product") == "afr-draft"
    assert "product=afr-draft" in page.url and page.is_hidden("#product-offer")
    assert len(failures) == 1 and "/sheet?minigame=mimic-match&" in failures[0], failures
    page.close()


POOL = {"set": "afr", "players": 2, "packs": 3, "seed": 11}
POOL_LINE = re.compile(r"^(\d+) (.+)$")


def _lines(pool: dict) -> list[tuple[int, str]]:
    """A pool's card lines as the sheet prints them: (count, name with its treatment)."""
    from boosterkit.generator.pools import _label

    return [(e["count"], _label(e)) for e in pool["cards"]]


def _open_pools(page, players: int, packs: int | None, seed: int, set_code: str = "afr") -> None:
    page.check("#mode-pool")
    page.select_option("#set", set_code)
    page.fill("#players", str(players))
    if packs is not None:
        page.fill("#packs", str(packs))
    page.fill("#seed", str(seed))
    page.click("#deal")
    page.wait_for_function(
        "() => document.getElementById('status').textContent.startsWith('Opened')"
    )


def _pools_shown(page) -> list[dict]:
    """Each pool on the page: its heading and its cards as (count, label), in order."""
    found = page.evaluate("""(() => [...(document.getElementById('sheet').shadowRoot
        ?.querySelectorAll('section.pool') ?? [])].map((s) => [s.querySelector('h1').textContent,
        [...s.querySelectorAll('li')].map((li) => li.firstChild.textContent.trim())]))()""")
    shown = []
    for heading, lines in found:
        cards = [POOL_LINE.match(x) for x in lines]
        assert all(cards), lines
        shown.append({"heading": heading, "cards": [(int(m[1]), m[2]) for m in cards]})
    return shown


def test_open_pools_and_print_from_the_page(server: str, browser, tmp_path: Path) -> None:
    from boosterkit.generator.pools import decklist

    pypdf = pytest.importorskip("pypdf")
    data = httpx.post(f"{server}/pool", json=POOL, timeout=30).json()
    expected = [_lines(pool) for pool in data["pools"]]
    assert all(e["name"] for pool in data["pools"] for e in pool["cards"]) and len(expected) == 2

    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    failures = _watch(page)
    page.goto(f"{server}/")
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    assert page.is_hidden("#packs") and page.inner_text("#deal") == "Deal"
    page.check("#mode-pool")
    assert page.is_visible("#packs") and page.input_value("#packs") == "6"  # 6 packs by default
    assert page.is_hidden("#minigame") and page.inner_text("#deal") == "Open pools"
    page.wait_for_function("() => document.getElementById('product').options.length > 1")
    assert page.locator("#product option[value=afr-collector]").count() == 1
    _open_pools(page, **{k: POOL[k] for k in ("players", "packs", "seed")})
    shown = _pools_shown(page)
    assert [p["cards"] for p in shown] == expected
    assert [p["heading"] for p in shown] == [
        f"Player {k} of 2: 3 × afr-draft (event seed 11)" for k in (1, 2)
    ]
    assert "seed 11" in page.inner_text("#status") and page.is_enabled("#print")

    # One deck list per player, as `pool -f decklist -o DIR` writes them.
    for pool in data["pools"]:
        with page.expect_download() as info:
            page.click(f"#downloads a[data-player='{pool['player']}']")
        assert info.value.suggested_filename == f"pool-{pool['player']}.txt"
        assert Path(info.value.path()).read_text() == decklist(pool)

    page.emulate_media(media="print")
    assert not page.is_visible("#deal-form") and not page.is_visible("#downloads")
    pdf = pypdf.PdfReader(io.BytesIO(page.pdf(format="A4", print_background=True)))
    # NFKC: the PDF's text has ligatures ("Blackstaff" with U+FB00).
    pages = [" ".join(unicodedata.normalize("NFKC", p.extract_text()).split()) for p in pdf.pages]
    assert len(pages) == POOL["players"], [p[:60] for p in pages]  # one page per player
    assert not any("New seed" in p or "Open pools" in p for p in pages)
    names = [{e["name"] for e in pool["cards"]} for pool in data["pools"]]
    for k, text in enumerate(pages):
        assert text.startswith(f"Player {k + 1} of 2"), text[:60]
        assert [n for n in names[k] if n not in text] == [], text
        assert not any(n in text for n in names[1 - k] - names[k])
    page.emulate_media(media="screen")

    # The mode and the pool's arguments survive a reload, and are in the address.
    page.reload()
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    assert page.is_checked("#mode-pool") and page.input_value("#packs") == "3"
    assert "mode=pool" in page.url and "packs=3" in page.url and "seed=11" in page.url
    fresh = browser.new_context().new_page()  # no localStorage: the address alone
    fresh.goto(f"{page.url}&product=afr-set")
    fresh.wait_for_selector("body[data-ready=true]", timeout=15000)
    assert fresh.is_checked("#mode-pool") and fresh.input_value("#set") == "afr"
    assert fresh.input_value("#product") == "afr-set"  # chosen once the set's products are in
    assert [fresh.input_value(f"#{f}") for f in ("players", "packs", "seed")] == ["2", "3", "11"]
    fresh.context.close()
    assert failures == [], failures
    context.close()


def test_a_pool_error_clears_the_pools(server: str, browser) -> None:
    pypdf = pytest.importorskip("pypdf")
    page = browser.new_page()
    page.goto(f"{server}/")
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    _open_pools(page, players=3, packs=None, seed=5, set_code="khm")  # 6 packs by default
    data = httpx.post(
        f"{server}/pool", timeout=30, json={"set": "khm", "players": 3, "packs": 6, "seed": 5}
    ).json()
    assert [p["cards"] for p in _pools_shown(page)] == [_lines(pool) for pool in data["pools"]]
    assert page.is_visible("#downloads")
    # A sealed pool of 6 packs still prints on one A4 page per player.
    page.emulate_media(media="print")
    pdf = pypdf.PdfReader(io.BytesIO(page.pdf(format="A4", print_background=True)))
    assert [p.extract_text().split(":")[0] for p in pdf.pages] == [
        f"Player {k} of 3" for k in (1, 2, 3)
    ]
    page.emulate_media(media="screen")
    assert page.locator("#set option[value='']").is_disabled()  # a pool needs a chosen set

    page.evaluate("""() => {
        const o = document.createElement('option'); o.value = 'zzz'; o.textContent = 'zzz';
        document.getElementById('set').append(o);
    }""")
    page.select_option("#set", "zzz")
    page.click("#deal")
    page.wait_for_selector("#status.error", timeout=15000)
    expected = httpx.post(
        f"{server}/pool",
        json={"set": "zzz", "players": 3, "packs": 6, "seed": 5, "format": "html"},
        timeout=30,
    )
    assert expected.status_code == 404
    assert page.inner_text("#status") == expected.json()["error"]  # the API's one line
    assert not _sheet_shown(page) and page.is_disabled("#print") and page.is_hidden("#downloads")
    assert _pools_shown(page) == []

    # Back to minigames: the sheet flow is as before.
    page.check("#mode-sheet")
    assert page.is_visible("#minigame") and page.is_hidden("#packs")
    page.select_option("#set", "afr")
    page.select_option("#minigame", "roll-for-initiative")
    page.fill("#players", "3")
    page.click("#deal")
    page.wait_for_function(
        "() => document.getElementById('status').textContent.startsWith('Dealt')"
    )
    assert _sheet_shown(page) and "mode=" not in page.url
    page.close()


def test_the_api_docs_render_offline(server: str, browser) -> None:
    page = browser.new_page()
    external: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(server) else external.append(r.url))
    page.goto(f"{server}/docs")
    page.wait_for_selector(".opblock", timeout=15000)
    paths = set(page.locator(".opblock-summary-path").all_inner_texts())
    assert {"/packs", "/deal", "/validate", "/sheet", "/sets/{code}/products"} <= {
        p.replace("\u200b", "") for p in paths
    }
    assert external == []  # nothing fetched from outside the service
    page.close()


def _fits(page, selector: str) -> bool:
    """Whether the field shows its whole value (a select: its chosen option's text)."""
    return page.evaluate(
        """(sel) => { const el = document.querySelector(sel);
        const text = el.tagName === 'SELECT' ? el.options[el.selectedIndex].text : el.value;
        const style = getComputedStyle(el);
        const ctx = document.createElement('canvas').getContext('2d');
        ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const pad = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
        // a select's arrow, a number field's spin buttons: they take room from the text
        const arrow = el.tagName === 'SELECT' ? 20 : el.type === 'number' ? 16 : 0;
        const scrolls = el.tagName === 'INPUT' && el.scrollWidth > el.clientWidth;
        return !scrolls && ctx.measureText(text).width + pad + arrow <= el.clientWidth + 1; }""",
        selector,
    )


@pytest.fixture(scope="module")
def one_server(tmp_path_factory: pytest.TempPathFactory):
    """``boosterkit serve`` over a database of ONE alone (Scryfall's unique-cards dump): no set
    any minigame was printed for."""
    from conftest import shared_path

    from boosterkit.pipeline import db
    from boosterkit.pipeline.sync import sync_file

    where = tmp_path_factory.mktemp("one_db")
    con = db.connect(where / "one.duckdb")
    try:
        sync_file(con, shared_path("cards", "one.unique-cards.json"), cache=where / "cache")
    finally:
        con.close()
    with _serve(where / "one.duckdb") as url:
        yield url


def test_the_first_view_deals_a_game_the_database_can_deal(one_server: str, browser) -> None:
    """A database holding ONE only: the page opens on a game printed for ONE (Booster Blitz,
    MONE #5) dealt on its own set, offers no missing set, says "2 players" rather than
    "players 2–2", shows a 10-digit seed and the set's name whole, and deals."""
    page = browser.new_page()
    page.goto(f"{one_server}/")
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    assert page.input_value("#minigame") == "booster-blitz"
    assert page.input_value("#set") == "" and page.is_hidden("#set-offer")  # its own: ONE
    page.select_option("#set", "one")
    page.fill("#seed", "4294967295")
    assert _fits(page, "#seed") and _fits(page, "#set")
    page.select_option("#minigame", "mimic-match")
    info = page.inner_text("#minigame-info")
    assert "2 players" in info or "2–" in info, info
    assert "players 2" not in info
    page.select_option("#minigame", "day-vs-night")  # "2 players" on its card
    assert "Day Vs. Night: 2 players" in page.inner_text("#minigame-info")
    page.select_option("#minigame", "roll-for-initiative")
    assert "2+ players" in page.inner_text("#minigame-info")
    page.select_option("#set", "one")  # printed for AFR and CLB: dealt on the loaded ONE
    page.fill("#seed", "7")
    page.click("#deal")
    page.wait_for_function(
        "() => document.getElementById('status').textContent.startsWith('Dealt')"
    )
    assert _sheet_shown(page)
    page.close()


def test_a_french_sheet_from_the_page(server: str, browser) -> None:
    """The page's language choice deals the sheet ``GET /sheet?lang=fr`` prints: the French
    title, French card names and the French effect reminders."""
    page = browser.new_page()
    page.goto(f"{server}/")
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    page.select_option("#set", "afr")
    page.select_option("#minigame", "roll-for-initiative")
    page.fill("#players", "3")
    page.fill("#seed", "2")
    page.select_option("#lang", "fr")
    page.click("#deal")
    page.wait_for_function(
        "() => document.getElementById('status').textContent.startsWith('Dealt')"
    )
    text = page.locator("#sheet .sheet-body").inner_text()
    want = httpx.get(
        f"{server}/sheet",
        params={
            "minigame": "roll-for-initiative",
            "players": 3,
            "set": "afr",
            "seed": 2,
            "lang": "fr",
        },  # fmt: skip
        timeout=30,
    ).text
    assert "lang=fr" in page.url
    assert text.startswith("Lancez les dés pour l'initiative !")
    assert "Relancez votre propre dé" in text and "Rôdeur loup sanguinaire" in text
    assert "Rôdeur loup sanguinaire (Dire Wolf Prowler)" in text  # on the organizer's page
    assert "Rôdeur loup sanguinaire" in want
    page.close()


@pytest.mark.parametrize("paper", ["Letter", "A4"])
def test_the_organizer_page_prints_whole_grids(server: str, browser, paper: str) -> None:
    """Mimic Match printed from the page (the sheet in its shadow root, the page's print
    rules): the table's 4x4 grid and the organizer's each sit whole on one page, and the
    table takes one sheet, on Letter (the US default, where cells 13-16 used to move to the
    next page) and A4."""
    pypdf = pytest.importorskip("pypdf")
    args = {"minigame": "mimic-match", "players": 2, "set": "afr"}
    for seed in range(1, 21):
        response = httpx.post(f"{server}/deal", json={**args, "seed": seed}, timeout=30)
        if response.status_code == 200:
            break
    setup = response.json()
    page = browser.new_page()
    page.goto(f"{server}/")
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    page.select_option("#set", "afr")
    page.select_option("#minigame", "mimic-match")
    page.fill("#players", "2")
    page.fill("#seed", str(seed))
    page.click("#deal")
    page.wait_for_function(
        "() => document.getElementById('status').textContent.startsWith('Dealt')"
    )
    page.emulate_media(media="print")
    pdf = pypdf.PdfReader(io.BytesIO(page.pdf(format=paper, print_background=True)))
    texts = [" ".join(p.extract_text().split()) for p in pdf.pages]
    assert texts[1].startswith("Mimic Match — organizer"), texts[1][:80]  # table: one sheet
    grid = next(z for z in setup["zones"] if z["kind"] == "grid")
    table_cells = [f"{k}: face down" for k in range(1, len(grid["cards"]) + 1)]
    organizer_cells = [c["uid"] for c in grid["cards"]]
    for cells, where in ((table_cells, texts[:1]), (organizer_cells, texts[1:])):
        on = [k for k, t in enumerate(where) if cells[0] in t]
        assert on, cells[0]
        text = where[on[0]][where[on[0]].index(cells[0]) :]
        for cell in cells:
            assert cell in text, f"{paper}: {cell} is not on the page of {cells[0]}"
            text = text[text.index(cell) + len(cell) :]
    page.close()


@pytest.fixture(scope="module")
def sample_server(sample_db: Path, tmp_path_factory: pytest.TempPathFactory):
    """``boosterkit serve`` on a machine with no database: the bundled sample."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "BOOSTERKIT_DB"}
    env["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("no-data"))
    with _serve(None, env) as url:
        yield url


def test_a_shared_link_deals_the_same_table_on_the_sample(sample_server: str, browser) -> None:
    """No database: the page serves the bundled sample and says so. A link with the form's
    values deals at once, the same table as the API's sheet; a 10- or 20-digit seed and every
    product's name show whole (they were cut: "the minigame's own (s") (issue 34)."""
    query = "minigame=roll-for-initiative&players=5&seed=2"
    page = browser.new_page()
    failures = _watch(page)
    page.goto(f"{sample_server}/?{query}")
    page.wait_for_selector("body[data-ready=true]", timeout=30000)
    note = page.inner_text("#sample-note")
    assert page.is_visible("#sample-note") and "Serving the bundled sample (AFR)" in note
    assert "boosterkit sync SET" in note
    assert _sheet_shown(page) and page.inner_text("#status").startswith("Dealt with seed 2")
    deal = {"minigame": "roll-for-initiative", "players": 5, "seed": 2}
    names = {c["name"] for c in _cards(httpx.post(f"{sample_server}/deal", json=deal).json())}
    sheet = httpx.get(f"{sample_server}/sheet?{query}", timeout=30).text
    shown = page.locator("#sheet .sheet-body").inner_text()
    assert "Roll for Initiative" in shown and len(names) > 10
    assert [n for n in names if n and n not in shown] == []
    uids = re.findall(r'class="uid">([^<]+)<', sheet)  # every card, page by page
    assert len(uids) > 20 and page.locator("#sheet .uid").all_inner_texts() == uids
    for seed in ("4294967295", "18446744073709551615"):
        page.fill("#seed", seed)
        assert _fits(page, "#seed"), seed
    values = page.eval_on_selector_all("#product option", "os => os.map(o => o.value)")
    assert "afr-set" in values and "afr-theme-dungeons" in values
    for value in values:
        page.select_option("#product", value)
        assert _fits(page, "#product"), page.eval_on_selector(
            "#product", "s => s.options[s.selectedIndex].text"
        )
    assert failures == [], failures
    page.close()


def test_a_mixed_event_prints_pools_and_registration_sheets_from_the_page(
    server: str, browser, tmp_path: Path
) -> None:
    """Issue 32: the page takes a pack spec and downloads the PDFs and the CSV the service
    makes for the same arguments."""
    pypdf = pytest.importorskip("pypdf")
    pytest.importorskip("weasyprint", reason="pip install 'boosterkit[pdf]'")
    body = {"set": "afr", "players": 2, "packs": "afr:3,stx:3", "seed": 9}
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    failures = _watch(page)
    page.goto(f"{server}/")
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    page.check("#mode-pool")
    page.select_option("#paper", "letter")
    page.fill("#packs", body["packs"])
    _open_pools(page, players=2, packs=None, seed=9)
    headings = [p["heading"] for p in _pools_shown(page)]
    assert headings == [
        f"Player {n} of 2: 3 afr-draft + 3 stx-draft (event seed 9)" for n in (1, 2)
    ]
    assert page.is_visible("#pdf-registration")
    for button, fmt in (("#pdf-registration", "registration-pdf"), ("#pdf-pools", "pdf"),
                        ("#csv-registration", "registration-csv")):  # fmt: skip
        with page.expect_download(timeout=60000) as got:
            page.click(button)
        saved = tmp_path / got.value.suggested_filename
        got.value.save_as(saved)
        answer = httpx.post(f"{server}/pool", json={**body, "format": fmt, "paper": "letter"},
                            timeout=60)  # fmt: skip
        assert saved.read_bytes() == answer.content, fmt
    pages = pypdf.PdfReader(tmp_path / "registration.pdf").pages
    assert len(pages) == 2 and round(float(pages[0].mediabox.height)) == 792
    assert failures == []
    context.close()


@pytest.fixture(scope="module")
def sealed_server(real_db: Path, tmp_path_factory: pytest.TempPathFactory):
    """``boosterkit serve`` over a copy of ``real_db`` with the shared sealed-contents files."""
    import shutil

    from conftest import shared_path

    from boosterkit.pipeline import db
    from boosterkit.pipeline.sealed_contents import import_sealed_contents

    path = tmp_path_factory.mktemp("sealed_db") / "sealed.duckdb"
    shutil.copy(real_db, path)
    con = db.connect(path)
    try:
        import_sealed_contents(con, [shared_path("mtgjson", "sealed-contents")])
    finally:
        con.close()
    with _serve(path) as url:
        yield url


def test_a_sealed_product_per_player_from_the_page(sealed_server: str, browser) -> None:
    """Issue 32: in pool mode the product list offers the set's sealed products; choosing
    one asks for one of it a player, and the pools are POST /pool's for that product."""
    bundle = "Adventures in the Forgotten Realms Bundle"
    page = browser.new_page()
    failures = _watch(page)
    page.goto(f"{sealed_server}/")
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    page.check("#mode-pool")
    page.select_option("#set", "afr")
    page.wait_for_selector(f'#product optgroup option[value="{bundle}"]', state="attached")
    label = page.text_content(f'#product option[value="{bundle}"]')
    assert label == "Bundle: 10 afr-draft + 1 card"
    page.select_option("#product", bundle)
    assert page.input_value("#packs") == "1"
    _open_pools(page, players=2, packs=None, seed=9)
    shown = _pools_shown(page)
    body = {"set": "afr", "players": 2, "packs": 1, "product": bundle, "seed": 9}
    data = httpx.post(f"{sealed_server}/pool", json=body, timeout=60).json()
    assert [p["heading"] for p in shown] == [
        f"Player {n} of 2: 10 afr-draft + 1 {bundle} (event seed 9)" for n in (1, 2)
    ]
    assert [p["cards"] for p in shown] == [_lines(p) for p in data["pools"]]
    page.select_option("#product", "")
    page.check("#mode-sheet")  # a minigame deals from booster products only
    page.wait_for_function("() => !document.querySelector('#product optgroup')")
    assert failures == []
    page.close()
