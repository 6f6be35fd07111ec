"""``--images``: Scryfall card images with their artist credit on HTML sheets and pools.

``art_db`` (built here) holds the built AFR from MTGJSON (artists, no images) and the built
ONE as a Scryfall unique-cards file (``image_uris`` and artists). No image is ever fetched:
the tests read the markup.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from helpers import run_cli as run

from boosterkit.database import Database
from boosterkit.errors import InputError
from boosterkit.generator.pools import open_pools, pool_images, render_pools
from boosterkit.minigames import deal, render_sheet
from boosterkit.minigames.sheets import sheet_images
from boosterkit.pipeline import db
from boosterkit.pipeline.queries import card_art, safe_image_url
from boosterkit.service.app import create_app

SECTION = re.compile(r'<section class="page" data-audience="([^"]+)">(.*?)</section>')
ART = re.compile(
    r'<div class="has-art"><span class="art"><img src="([^"]+)"[^>]*>'
    r'(?:<span class="credit">([^<]*)</span>)?</span><div>.*?'
    r'<span class="uid">([^<]+)</span>'
)
LOCAL = "http://127.0.0.1"


@pytest.fixture(scope="module")
def art_db(built_world, built_scryfall: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """AFR and MAFR of the built world from MTGJSON, ONE from the built Scryfall folder (no
    collation data: ONE's packs are the generic ones). Read-only, like ``built_db``."""
    from boosterkit.pipeline.mtgjson import import_mtgjson
    from boosterkit.pipeline.sync import sync_file

    where = tmp_path_factory.mktemp("art_db")
    path = where / "images.duckdb"
    con = db.connect(path)
    try:
        import_mtgjson(con, [built_world.folder / f"{c}.json" for c in ("AFR", "MAFR")])
        sync_file(con, built_scryfall / "cards" / "one.unique-cards.json", cache=where / "cache")
    finally:
        con.close()
    return path


@pytest.fixture(scope="module")
def con(art_db: Path):
    c = db.connect(art_db, read_only=True)
    yield c
    c.close()


def _small_and_artist(con, card_id: str) -> tuple[str | None, str | None]:
    return con.execute(
        "SELECT image_uris.small, artist FROM cards WHERE id = ?", [card_id]
    ).fetchone()


def test_scryfall_cards_keep_image_uris_and_artist(
    con, tmp_path: Path, built_scryfall: Path
) -> None:
    scryfall_dir = built_scryfall
    raw = {
        c["id"]: c
        for c in json.loads((scryfall_dir / "cards" / "one.unique-cards.json").read_text())
    }
    n, images, artists = con.execute(
        "SELECT count(*), count(image_uris), count(artist) FROM cards WHERE set_code = 'one'"
    ).fetchone()
    assert n == len(raw) and images == n and artists == n
    for cid, small, normal, artist in con.execute(
        "SELECT id, image_uris.small, image_uris.normal, artist FROM cards "
        "WHERE set_code = 'one' ORDER BY collector_number LIMIT 20"
    ).fetchall():
        card = raw[cid]  # a double-faced card: its front face's images
        uris = card.get("image_uris") or card["card_faces"][0]["image_uris"]
        assert (small, normal, artist) == (uris["small"], uris["normal"], card["artist"])
    # MTGJSON: the artist, never an image
    mtgjson = con.execute(
        "SELECT count(*), count(image_uris), count(artist) FROM cards "
        "WHERE set_code = 'afr' AND kind = 'card'"
    ).fetchone()
    assert mtgjson[0] > 50 and mtgjson[1] == 0 and mtgjson[2] > 0.95 * mtgjson[0]
    # A double-faced card keeps its images on its faces: the front face's are the card's.
    from boosterkit.pipeline.sync import sync_file

    mom = db.connect(tmp_path / "mom.duckdb")
    try:
        sync_file(mom, scryfall_dir / "cards" / "mom.unique-cards.json", cache=tmp_path / "c")
        rows = mom.execute(
            "SELECT id, image_uris.small, artist FROM cards WHERE layout = 'transform'"
        ).fetchall()
    finally:
        mom.close()
    raw = {
        c["id"]: c
        for c in json.loads((scryfall_dir / "cards" / "mom.unique-cards.json").read_text())
    }
    assert len(rows) > 10
    for cid, small, artist in rows:
        front = raw[cid]["card_faces"][0]
        assert "image_uris" not in raw[cid] and small == front["image_uris"]["small"]
        assert artist == raw[cid].get("artist", front.get("artist"))


def _pages(sheet: str) -> dict[str, list[tuple[str, str, str]]]:
    """audience → [(img src, credit, uid)] of the card images on that page."""
    pages = {}
    for audience, body in SECTION.findall(sheet):
        found = [
            (html.unescape(s), html.unescape(c), html.unescape(u)) for s, c, u in ART.findall(body)
        ]
        assert len(found) == body.count("<img "), audience  # every image sits by its card
        pages[audience] = found
    return pages


@pytest.mark.parametrize("game", ["roll-for-initiative", "mimic-match"])
def test_images_only_where_the_card_is_shown(con, game: str) -> None:
    setup = deal(con, game, 3, "one", seed=7)
    images = sheet_images(con, setup)
    assert images, "ONE's cards have images"
    pages = _pages(render_sheet(setup, "html", images))
    items = {it.uid: it for z in setup.zones for it in z.cards}
    seen = {a: {u for _, _, u in found} for a, found in pages.items()}
    for found in pages.values():
        for src, credit, uid in found:
            small, artist = _small_and_artist(con, items[uid].card_id)
            assert src == small and src.startswith("https://cards.scryfall.io/small/")
            assert credit == f"Illus. {artist}"
    public = {c.uid for z in setup.zones if z.visibility == "public" for c in z.cards}
    assert seen["table"] <= public
    for audience in (a for a in pages if a.startswith("player-")):
        own = {c.uid for z in setup.zones if z.owner == audience for c in z.cards}
        assert seen[audience] and seen[audience] <= own  # theirs only: never another's hand
    # The organizer sees every card that has an image, face-down ones included.
    shown = {c.uid for z in setup.zones for c in z.cards if c.card_id in images}
    assert seen["organizer"] == shown
    if game == "mimic-match":  # everything lies face down: no image on the table's page
        assert seen["table"] == set() and all(
            z.face_down or z.visibility == "hidden" for z in setup.zones
        )


def test_without_images_the_sheet_is_byte_identical(con, built_db: Path) -> None:
    setup = deal(con, "roll-for-initiative", 4, "one", seed=2)
    plain = render_sheet(setup, "html")
    assert "<img" not in plain and "scryfall.io" not in plain
    assert render_sheet(setup, "html", {}) == plain
    # MTGJSON-only data (an offline import) has no images: --images changes nothing.
    ro = db.connect(built_db, read_only=True)
    try:
        afr = deal(ro, "roll-for-initiative", 5, "afr", seed=2)
        assert sheet_images(ro, afr) == {}
        assert render_sheet(afr, "html", sheet_images(ro, afr)) == render_sheet(afr, "html")
    finally:
        ro.close()
    with pytest.raises(InputError, match="only HTML sheets carry card images"):
        render_sheet(setup, "text", sheet_images(con, setup))


def test_image_urls_off_scryfall_are_never_printed(art_db: Path, tmp_path: Path) -> None:
    assert safe_image_url("https://cards.scryfall.io/small/front/a/b/x.jpg?1") is not None
    for bad in (
        "http://cards.scryfall.io/x.jpg",
        "https://evil.example/x.jpg",
        "javascript:alert(1)",
        'https://cards.scryfall.io/x.jpg" onerror="x',
        "https://cards.scryfall.io.evil.example/x.jpg",
        "https://user:password@cards.scryfall.io/x.jpg",  # issue 20: user:password,
        "https://cards.scryfall.io:8443/x.jpg",  # odd ports,
        "https://cards.scryfall.io:/x.jpg",
        "https://cards%2Escryfall.io/x.jpg",  # percent-escapes
        "https://evil.example%2F.scryfall.io/x.jpg",
        "https://Cards.Scryfall.IO/x.jpg",
        "https://[::1]/x.jpg",
        "",
        None,
    ):
        assert safe_image_url(bad) is None, bad
    import shutil

    path = tmp_path / "tampered.duckdb"
    shutil.copy(art_db, path)
    rw = db.connect(path)
    try:
        ids = [
            r[0]
            for r in rw.execute(
                "SELECT id FROM cards WHERE set_code = 'one' ORDER BY id LIMIT 3"
            ).fetchall()
        ]
        rw.execute(
            "UPDATE cards SET image_uris = {'small': 'https://evil.example/t.gif', "
            "'normal': NULL, 'large': NULL, 'png': NULL, 'art_crop': NULL, "
            "'border_crop': NULL} WHERE id = ?",
            [ids[0]],
        )
        art = card_art(Database.borrowing(rw), ids)
    finally:
        rw.close()
    assert set(art) == set(ids[1:])


def test_cli_deal_and_pool_images(capsys, art_db: Path, con) -> None:
    base = [
        "--db",
        str(art_db),
        "deal",
        "roll-for-initiative",
        "-n",
        "3",
        "--set",
        "one",
        "--seed",
        "7",
        "-f",
        "html",
    ]
    code, out, err = run(capsys, *base, "--images")
    setup = deal(con, "roll-for-initiative", 3, "one", seed=7)
    assert code == 0 and out == render_sheet(setup, "html", sheet_images(con, setup))
    code, plain, _ = run(capsys, *base)
    assert code == 0 and plain == render_sheet(setup, "html") and plain != out
    code, out, err = run(capsys, *base[:-2], "--images")  # the text sheet
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "--images: only HTML sheets carry card images" in err

    pool = [
        "--db",
        str(art_db),
        "pool",
        "one",
        "--players",
        "2",
        "--packs",
        "2",
        "--seed",
        "3",
        "-f",
        "html",
    ]
    code, out, _ = run(capsys, *pool, "--images")
    data = open_pools("one", 2, 2, seed=3, db=art_db)
    art = pool_images(art_db, data)
    assert code == 0 and out == render_pools(data, "html", art)
    with_art = [c for p in data["pools"] for c in p["cards"] if c["card_id"] in art]
    assert with_art and all(art[c["card_id"]].image in out for c in with_art)
    assert all(f"Illus. {html.escape(art[c['card_id']].artist)}" in out for c in with_art)
    assert "Wizards of the Coast" in out
    code, plain, _ = run(capsys, *pool)
    assert code == 0 and "<img" not in plain and plain == render_pools(data, "html")
    code, out, err = run(capsys, *pool[:-2], "--images")
    assert code == 2 and "--images: only HTML pools carry card images" in err


def test_http_sheet_and_pool_images_equal_the_cli(capsys, art_db: Path) -> None:
    with TestClient(create_app(art_db), base_url=LOCAL) as client:
        params = {"minigame": "roll-for-initiative", "players": 3, "set": "one", "seed": 7}
        r = client.get("/sheet", params={**params, "images": "true"})
        _, out, _ = run(
            capsys,
            "--db",
            str(art_db),
            "deal",
            "roll-for-initiative",
            "-n",
            "3",
            "--set",
            "one",
            "--seed",
            "7",
            "-f",
            "html",
            "--images",
        )
        assert r.status_code == 200 and r.text == out and "<img " in r.text
        assert "<img" not in client.get("/sheet", params=params).text
        body = {"set": "one", "players": 2, "packs": 2, "seed": 3, "format": "html"}
        r = client.post("/pool", json={**body, "images": True})
        _, out, _ = run(
            capsys,
            "--db",
            str(art_db),
            "pool",
            "one",
            "--players",
            "2",
            "--packs",
            "2",
            "--seed",
            "3",
            "-f",
            "html",
            "--images",
        )
        assert r.status_code == 200 and r.text == out and "<img " in r.text
        r = client.post("/pool", json={**body, "format": "json", "images": True})
        assert r.status_code == 422 and "only HTML pools carry card images" in r.json()["error"]
        icon = client.get("/favicon.ico")
        assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg")


def test_cli_says_when_no_card_has_an_image(capsys, built_db: Path) -> None:
    """MTGJSON-only data: the sheet is the one without --images, and stderr says why."""
    base = [
        "--db",
        str(built_db),
        "deal",
        "roll-for-initiative",
        "-n",
        "4",
        "--set",
        "afr",
        "--seed",
        "2",
        "-f",
        "html",
    ]
    code, out, err = run(capsys, *base, "--images")
    _, plain, plain_err = run(capsys, *base)
    assert code == 0 and out == plain and "<img" not in out
    assert "none of these cards has a Scryfall image" in err and "db rebuild" in err
    assert "Scryfall image" not in plain_err
