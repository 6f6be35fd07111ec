"""The HTTP API on the built database: every route, every error case, and equality with the CLI."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import run_cli
from typer.testing import CliRunner

from boosterkit.cli.app import app as cli_app
from boosterkit.cli.render import to_json
from boosterkit.pipeline import db as pdb
from boosterkit.service.app import create_app
from boosterkit.service.models import MAX_BODY_BYTES, MAX_PACKS, MAX_REQUEST_PLAYERS

#: The test client's base URL: a Host the service answers to (``limits.DEFAULT_HOSTS``).
LOCAL = "http://127.0.0.1"


def cli(built_db: Path, *args: str) -> str:
    """Run ``boosterkit --db built_db ARGS`` in-process; its stdout."""
    result = CliRunner().invoke(cli_app, ["--db", str(built_db), *args])
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.stdout


def assert_error(response: Any, status: int, *words: str) -> dict[str, Any]:
    """A JSON error body with ``status`` whose one-line message names ``words``."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["status"] == status
    assert "\n" not in body["error"]
    for word in words:
        assert word.lower() in body["error"].lower(), (word, body["error"])
    return body


# --- /health, /sets, /sets/{code}/products, /minigames -------------------------------------


def test_health_reports_schema_and_counts(client: TestClient, con) -> None:
    body = client.get("/health").json()
    assert body["status"] == "ok"
    assert body["schema_version"] == pdb.SCHEMA_VERSION
    for table in ("sets", "cards", "products"):
        assert body["counts"][table] == con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    assert body["counts"]["cards"] > 300
    assert body["database"] == "built.duckdb" and "path" not in body and "last_runs" not in body


def test_health_and_kept_products_answer_without_the_database(
    built_db: Path, tmp_path: Path
) -> None:
    path = tmp_path / "copy.duckdb"
    shutil.copy(built_db, path)
    app = create_app(path)

    def unavailable():
        raise AssertionError("the database was read")

    with TestClient(app, base_url="http://127.0.0.1") as client:
        first = client.get("/health")
        packs = client.post("/packs", json={"set": "afr", "count": 2, "seed": 4}).text
        database = app.state.database
        database.cursor = unavailable
        again = client.get("/health")
        assert again.status_code == 200 and again.text == first.text
        assert str(tmp_path) not in again.text
        assert client.post("/packs", json={"set": "afr", "count": 2, "seed": 4}).text == packs
        # (a deal also reads the game's rules text and the dealt cards' facts for its sheet)


def test_sets_equal_the_cli_and_filter_by_type(client: TestClient, built_db: Path, con) -> None:
    response = client.get("/sets")
    assert response.text == cli(built_db, "sets", "--format", "json")
    codes = {s["code"] for s in response.json()}
    assert codes == {r[0] for r in con.execute("SELECT code FROM sets").fetchall()}
    expansions = client.get("/sets", params={"type": "expansion"}).json()
    assert expansions and {s["set_type"] for s in expansions} == {"expansion"}
    assert "afr" in {s["code"] for s in expansions} and "mafr" not in {
        s["code"] for s in expansions
    }


def test_sets_of_an_unknown_type_is_422(client: TestClient) -> None:
    body = assert_error(client.get("/sets", params={"type": "bogus"}), 422, "set type 'bogus'")
    assert "(types in the database: " in body["error"] and "expansion" in body["error"]
    near = assert_error(client.get("/sets", params={"type": "expanson"}), 422)
    assert near["error"].startswith("unknown set type 'expanson' — did you mean expansion? (")


def test_products_equal_the_cli(client: TestClient, built_db: Path) -> None:
    response = client.get("/sets/afr/products")
    assert response.status_code == 200
    assert response.text == cli(built_db, "products", "afr", "--format", "json")
    products = response.json()
    assert {p["set_code"] for p in products} == {"afr"}
    defaults = [p for p in products if p["default"]]
    assert any(p["code"] == "afr-draft" for p in defaults)


def test_products_of_an_unknown_set_is_404(client: TestClient) -> None:
    assert_error(client.get("/sets/zzq/products"), 404, "zzq")


def test_minigames_equal_the_cli(client: TestClient, built_db: Path) -> None:
    response = client.get("/minigames")
    assert response.text == cli(built_db, "minigames", "--format", "json")
    games = response.json()
    assert len(games) == 28
    assert {"base-race", "roll-for-initiative"} <= {g["id"] for g in games}


# --- POST /packs ----------------------------------------------------------------------------


def test_packs_equal_the_cli_byte_for_byte(client: TestClient, built_db: Path) -> None:
    response = client.post("/packs", json={"set": "afr", "product": "set", "count": 3, "seed": 42})
    assert response.status_code == 200
    expected = cli(
        built_db,
        "open",
        "afr",
        "--product",
        "set",
        "--count",
        "3",
        "--seed",
        "42",
        "--format",
        "json",
    )
    assert response.text == expected
    packs = response.json()
    assert [p["index"] for p in packs] == [1, 2, 3]
    assert all(p["seed"] == 42 and p["set"] == "afr" for p in packs)
    assert packs[1]["items"][0]["uid"] == "p2-1"
    assert len({i["card_id"] for p in packs for i in p["items"]}) > 20


def test_packs_are_seeded(client: TestClient) -> None:
    body = {"set": "khm", "count": 2, "seed": 7}
    first, again = client.post("/packs", json=body).json(), client.post("/packs", json=body).json()
    other = client.post("/packs", json={**body, "seed": 8}).json()
    assert first == again
    assert [i["card_id"] for i in first[0]["items"]] != [i["card_id"] for i in other[0]["items"]]


def test_packs_without_seed_report_the_seed_used(client: TestClient) -> None:
    packs = client.post("/packs", json={"set": "znr"}).json()
    seed = packs[0]["seed"]
    assert client.post("/packs", json={"set": "znr", "seed": seed}).json() == packs


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"set": "zzq"}, 404, ["zzq"]),
        ({"set": "afr", "product": "nonesuch"}, 404, ["nonesuch"]),
        ({"set": "afr", "count": 0}, 422, ["count"]),
        ({"set": "afr", "count": MAX_PACKS + 1}, 422, ["count", str(MAX_PACKS)]),
        ({"set": "afr", "count": "many"}, 422, ["count"]),
        ({"set": "afr", "seed": -1}, 422, ["seed"]),
        ({"set": "afr", "seed": 1 << 64}, 422, ["seed"]),
        ({"set": "af r"}, 422, ["set"]),
        ({"count": 2}, 422, ["set", "required"]),
        ({"set": "afr", "colour": "blue"}, 422, ["colour"]),
    ],
)
def test_packs_bad_input(client: TestClient, body: dict, status: int, words: list[str]) -> None:
    assert_error(client.post("/packs", json=body), status, *words)


def test_malformed_json_is_422(client: TestClient) -> None:
    response = client.post(
        "/packs", content=b'{"set": "afr",', headers={"content-type": "application/json"}
    )
    assert_error(response, 422, "json")


def test_body_size_limit(client: TestClient) -> None:
    big = b'{"set": "afr", "pad": "' + b"x" * MAX_BODY_BYTES + b'"}'
    assert_error(
        client.post("/packs", content=big, headers={"content-type": "application/json"}),
        413,
        "larger",
    )

    def chunks():  # no Content-Length: the limit still holds
        yield big[: len(big) // 2]
        yield big[len(big) // 2 :]

    response = client.post("/packs", content=chunks(), headers={"content-type": "application/json"})
    assert_error(response, 413, str(MAX_BODY_BYTES))


def test_concurrent_requests_match_sequential_ones(client: TestClient) -> None:
    seeds = list(range(100, 116))
    sequential = {
        s: client.post("/packs", json={"set": "stx", "count": 2, "seed": s}).text for s in seeds
    }
    with ThreadPoolExecutor(max_workers=8) as pool:
        texts = list(
            pool.map(
                lambda s: client.post("/packs", json={"set": "stx", "count": 2, "seed": s}).text,
                seeds,
            )
        )
    assert texts == [sequential[s] for s in seeds]


# --- POST /deal, POST /validate, GET /sheet -------------------------------------------------

DEAL = {"minigame": "roll-for-initiative", "players": 4, "set": "afr", "seed": 2}


def test_deal_equals_the_cli_byte_for_byte(client: TestClient, built_db: Path) -> None:
    response = client.post("/deal", json=DEAL)
    assert response.status_code == 200, response.text
    expected = cli(
        built_db,
        "deal",
        "roll-for-initiative",
        "--players",
        "4",
        "--set",
        "afr",
        "--seed",
        "2",
        "--format",
        "json",
    )
    assert response.text == expected
    setup = response.json()
    assert (setup["minigame"], setup["players"], setup["seed"]) == ("roll-for-initiative", 4, 2)
    owners = {z["owner"] for z in setup["zones"] if z["owner"]}
    assert owners == {f"player-{i}" for i in range(1, 5)}


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({**DEAL, "minigame": "tiddlywinks"}, 404, ["tiddlywinks"]),
        ({**DEAL, "set": "zzq"}, 404, ["zzq"]),
        ({**DEAL, "players": 0}, 422, ["players"]),
        ({**DEAL, "players": MAX_REQUEST_PLAYERS + 1}, 422, ["players"]),
        ({**DEAL, "players": 1}, 422, ["player"]),  # below the game's own minimum
        ({"players": 4}, 422, ["minigame"]),
        ({**DEAL, "strict_backs": "maybe"}, 422, ["strict_backs"]),
    ],
)
def test_deal_bad_input(client: TestClient, body: dict, status: int, words: list[str]) -> None:
    assert_error(client.post("/deal", json=body), status, *words)


def test_deal_errors_name_the_request_field_not_a_cli_flag(client: TestClient) -> None:
    body = assert_error(client.post("/deal", json={**DEAL, "players": 1}), 422)
    assert body["error"] == "players: 1 is out of range for Roll for Initiative (2+ players)"


def test_deal_too_many_players_for_the_packs_is_the_clis_input_error(
    client: TestClient, built_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """More players than two AFR Set Boosters can ever hold (27 > 26): 422, as for other input
    errors, with the library's line, which the CLI prints with its flag (exit 2); a count only
    this seed's packs lack stays the refusal of a seed, also 422 (the request cannot be
    carried out), the same words as the CLI's (exit 1)."""
    body = assert_error(client.post("/deal", json={**DEAL, "players": 27}), 422)
    args = ("--db", str(built_db), "deal", "roll-for-initiative", "--set", "afr")
    code, out, err = run_cli(capsys, *args, "-n", "27")
    assert body["error"].startswith("players: 27 is more than Roll for Initiative can deal")
    assert (code, out) == (2, "")
    assert err == "boosterkit: error: --" + body["error"].replace(":", "", 1) + "\n"
    seed = assert_error(client.post("/deal", json={**DEAL, "players": 25, "seed": 0}), 422)
    assert run_cli(capsys, *args, "-n", "25", "--seed", "0") == (
        1,
        "",
        f"boosterkit: error: {seed['error']}\n",
    )
    assert "try another seed (this was 0), or `--product draft`" in seed["error"]


def test_validate_a_dealt_setup_and_a_tampered_one(client: TestClient, con) -> None:
    from boosterkit.minigames import validate_setup

    setup = client.post("/deal", json=DEAL).json()
    assert client.post("/validate", json=setup).json() == {"valid": True, "violations": []}
    tampered = json.loads(json.dumps(setup))
    hands = [z for z in tampered["zones"] if z["owner"]]
    hands[1]["cards"].append(hands[0]["cards"].pop())  # one player gets another's card
    response = client.post("/validate", json=tampered)
    assert response.status_code == 200
    result = response.json()
    assert result["valid"] is False and result["violations"]
    assert result == validate_setup(con, tampered).to_dict()


@pytest.mark.parametrize("payload", [[1, 2, 3], "setup", {"players": "none"}])
def test_validate_wrong_shape_is_4xx(client: TestClient, payload: Any) -> None:
    response = client.post("/validate", json=payload)
    assert 400 <= response.status_code < 500, response.text
    assert response.json()["error"]


def test_sheet_equals_the_cli_html(client: TestClient, built_db: Path) -> None:
    response = client.get("/sheet", params=DEAL)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    expected = cli(
        built_db,
        "deal",
        "roll-for-initiative",
        "--players",
        "4",
        "--set",
        "afr",
        "--seed",
        "2",
        "--format",
        "html",
    )
    assert response.text.strip() == expected.strip()
    setup = client.post("/deal", json=DEAL).json()
    some_card = next(c["name"] for c in _all_cards(setup) if c.get("name"))
    assert some_card in response.text


def _all_cards(obj: Any) -> list[dict]:
    if isinstance(obj, dict):
        found = [obj] if "uid" in obj else []
        return found + [c for v in obj.values() for c in _all_cards(v)]
    if isinstance(obj, list):
        return [c for v in obj for c in _all_cards(v)]
    return []


@pytest.mark.parametrize(
    ("params", "status", "words"),
    [
        ({"players": 4}, 422, ["minigame"]),
        ({"minigame": "base-race", "players": "two"}, 422, ["players"]),
        ({"minigame": "base-race", "players": 0}, 422, ["players"]),
        ({"minigame": "nosuchgame", "players": 2}, 404, ["nosuchgame"]),
        ({"minigame": "base-race", "players": 2, "seed": -5}, 422, ["seed"]),
    ],
)
def test_sheet_bad_input(client: TestClient, params: dict, status: int, words: list[str]) -> None:
    assert_error(client.get("/sheet", params=params), status, *words)


# --- the page, static files, OpenAPI, unknown routes ----------------------------------------


def test_organizer_page_and_its_files(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'id="deal-form"' in page.text and "/static/page.js" in page.text
    assert not re.search(r'(src|href)="(https?:)?//', page.text)  # nothing from a CDN
    js = client.get("/static/page.js")
    css = client.get("/static/page.css")
    assert js.status_code == css.status_code == 200
    assert "/sheet?" in js.text and "@media print" in css.text


def test_openapi_lists_every_route(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert set(paths) >= {
        "/health",
        "/sets",
        "/sets/{code}/products",
        "/packs",
        "/minigames",
        "/deal",
        "/validate",
        "/sheet",
    }
    docs = client.get("/docs")
    assert docs.status_code == 200 and "/openapi.json" in docs.text
    assert not re.search(r'(src|href)="(https?:)?//', docs.text)  # works offline
    for asset in re.findall(r'(?:src|href)="(/docs-assets/[^"]+)"', docs.text):
        assert client.get(asset).status_code == 200, asset
    assert "/docs-assets/swagger-ui-bundle.js" in docs.text


def test_unknown_route_and_method(client: TestClient) -> None:
    assert_error(client.get("/pack"), 404, "/pack")
    assert_error(client.get("/packs"), 405, "GET")


# --- a sync in another process ---------------------------------------------------------------


def test_a_sync_holding_the_database_gives_503_then_recovers(
    built_db: Path, tmp_path: Path
) -> None:
    path = tmp_path / "copy.duckdb"
    shutil.copy(built_db, path)
    code = textwrap.dedent(
        f"""
        import sys
        from boosterkit.pipeline import db
        con = db.connect({str(path)!r})
        con.execute("BEGIN TRANSACTION")
        con.execute("DELETE FROM sync_runs")
        print("locked", flush=True)
        sys.stdin.readline()  # held until the test has seen the 503s
        con.execute("ROLLBACK")
        con.close()
        """
    )
    writer = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    with TestClient(create_app(path, busy_timeout=0.3), base_url=LOCAL) as client:
        try:
            assert writer.stdout.readline().strip() == "locked"
            response = client.post("/packs", json={"set": "afr", "seed": 1})
            assert_error(response, 503, "busy", "sync")
            assert response.headers["retry-after"].isdigit()
            assert_error(client.get("/health"), 503, "busy")
            assert client.get("/").status_code == 200  # the page itself needs no database
        finally:
            writer.communicate("done\n", timeout=20)
        assert client.post("/packs", json={"set": "afr", "seed": 1}).status_code == 200


def test_products_are_cached_until_a_sync_changes_the_file(built_db: Path, tmp_path: Path) -> None:
    path = tmp_path / "copy.duckdb"
    shutil.copy(built_db, path)
    body = {"set": "afr", "product": "draft", "count": 2, "seed": 3}
    deal = {"minigame": "roll-for-initiative", "players": 4, "set": "afr", "seed": 3}
    with TestClient(
        create_app(path, linger=0), base_url=LOCAL
    ) as client:  # the file is closed between requests
        cache = client.app.state.database.cache

        def products() -> tuple[int, int]:
            counts = cache.counts("product")
            return counts.hits, counts.misses

        first = client.post("/packs", json=body)
        assert first.status_code == 200 and products()[1] == 1
        assert client.post("/packs", json={**body, "seed": 4}).status_code == 200
        assert client.post("/packs", json=body).text == first.text
        assert client.post("/deal", json=deal).status_code == 200
        assert client.post("/deal", json={**deal, "seed": 4}).status_code == 200
        assert products() == (3, 2)  # the draft and the set booster
        writer = pdb.connect(path)  # a sync: the service has released the file
        try:
            writer.execute("DELETE FROM products WHERE code = 'afr-draft'")
        finally:
            writer.close()
        after = client.post("/packs", json=body)
        assert after.status_code == 200 and products()[1] == 3
        # "draft" now resolves to the next booster of that kind, not the cached afr-draft
        assert {p["product"] for p in json.loads(first.text)} == {"afr-draft"}
        assert {p["product"] for p in after.json()} == {"afr-draft-mtgjson"}
        assert after.text == cli(path, "open", "afr", "-p", "draft", "-n", "2", "--seed", "3",
                                 "--format", "json")  # fmt: skip


def test_missing_database_is_503_with_the_path(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "absent.duckdb"), base_url=LOCAL) as client:
        assert_error(client.get("/sets"), 503, "absent.duckdb", "sync")
        assert client.get("/minigames").status_code == 200


def test_library_value_is_the_response(client: TestClient, built_db: Path) -> None:
    from boosterkit.generator import open_packs

    packs = open_packs("mh2", count=2, seed=5, db=built_db)
    assert (
        client.post("/packs", json={"set": "mh2", "count": 2, "seed": 5}).text
        == to_json(packs) + "\n"
    )


def test_serve_refuses_a_missing_database_in_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.duckdb"
    done = subprocess.run(
        [sys.executable, "-m", "boosterkit.cli", "--db", str(missing), "serve", "--port", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("boosterkit: error: ") and done.stderr.count("\n") == 1
    assert "nowhere.duckdb" in done.stderr and "Traceback" not in done.stderr
    assert not missing.exists()


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("GET", "/sets/%C3%BC%00/products", None),
        ("GET", "/sets/" + "a" * 500 + "/products", None),
        ("GET", "/sets?type=" + "x" * 100, None),
        ("GET", "/sheet?minigame=base-race&players=1000000000", None),
        ("GET", "/sheet?minigame=%00&players=2", None),
        ("GET", "/sheet?minigame=base-race&players=2&set=afr&product=jumpstart", None),
        ("POST", "/packs", {"set": "afr", "product": "x" * 81}),
        ("POST", "/packs", {"set": "afr", "seed": 1.5}),
        ("POST", "/packs", {"set": "afr", "count": None}),
        ("POST", "/packs", {"set": ["afr"]}),
        ("POST", "/deal", {"minigame": "cyber-simulacrum", "players": 2}),
        ("POST", "/deal", {"minigame": "base-race", "players": 2, "set": "tafr"}),
        (
            "POST",
            "/validate",
            {"minigame": "base-race", "players": 2, "packs": "none", "zones": []},
        ),
        ("POST", "/validate", None),
    ],
)
def test_odd_input_never_gives_a_500(client: TestClient, method: str, url: str, body: Any) -> None:
    response = client.request(method, url, json=body)
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:200])
    assert response.json()["error"]


def test_deal_of_a_kept_product_compiles_nothing(built_db: Path, tmp_path: Path) -> None:
    """A deal of a kept product (set given) does not compile it again; it reads only what the
    sheet prints beside the packs (rules text, card facts), so the answer is unchanged."""
    path = tmp_path / "copy.duckdb"
    shutil.copy(built_db, path)
    app = create_app(path)

    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=True) as client:
        body = {"minigame": "roll-for-initiative", "players": 3, "set": "afr", "seed": 2}
        dealt = client.post("/deal", json=body)
        assert dealt.status_code == 200
        products = app.state.database.cache
        built = products.misses + products.loads  # compiled, or loaded from beside the file
        assert client.post("/deal", json=body).text == dealt.text
        assert products.misses + products.loads == built, "the product was compiled again"
        verdict = client.post("/validate", json=json.loads(dealt.text)).json()
        assert verdict["valid"]
