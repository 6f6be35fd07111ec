"""Hypothesis fuzzing of every HTTP route and of ``boosterkit validate FILE``: no 5xx, no
traceback, errors one line.

Routes are read from the app itself, so a route added later is fuzzed too. Examples are
bounded (``FUZZ`` settings) and derandomized, so CI runs the same few hundred requests each
time; raise ``BOOSTERKIT_FUZZ_EXAMPLES`` locally to search longer.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boosterkit.service.app import create_app

EXAMPLES = int(os.environ.get("BOOSTERKIT_FUZZ_EXAMPLES", "25"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

#: Values that reach past the first checks (real sets, products, games) mixed with noise.
KNOWN = [
    "afr",
    "stx",
    "khm",
    "mh2",
    "znr",
    "draft",
    "set",
    "collector",
    "afr-set",
    "roll-for-initiative",
    "winchester-draft",
    "mini-master",
    "base-race",
    "foraging-squirrels",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.integers(-3, 40),
    st.floats(),
    st.text(max_size=30),
    st.sampled_from(KNOWN),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
query_text = st.one_of(
    st.sampled_from(KNOWN),
    st.integers(-5, 50).map(str),
    st.text(max_size=30),
    st.sampled_from(["1e3", "2.0", "", " ", "\x00", "true", "%00", "-1"]),
)


@pytest.fixture(scope="module")
def app(built_db: Path):
    return create_app(built_db)


@pytest.fixture(scope="module")
def client(app) -> TestClient:
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        yield c


def api_routes(routes: list) -> list[APIRoute]:
    """The API routes in ``routes``, also inside included routers (FastAPI ≥ 0.160 wraps
    them; this app includes its routers without a prefix)."""
    found: list[APIRoute] = []
    for r in routes:
        if isinstance(r, APIRoute):
            found.append(r)
        elif hasattr(r, "original_router"):
            found += api_routes(r.original_router.routes)
    return found


def routes(app) -> list[tuple[str, str, APIRoute]]:
    return sorted(
        ((m, r.path, r) for r in api_routes(app.routes) for m in r.methods if m != "HEAD"),
        key=lambda x: x[:2],
    )


def assert_sound(response: Any) -> None:
    """No 5xx, no traceback; an error is JSON with a one-line message."""
    assert response.status_code < 500, (response.request.url, response.text[:500])
    assert "Traceback" not in response.text
    if response.status_code >= 400:
        body = response.json()
        assert isinstance(body["error"], str) and "\n" not in body["error"], body


def body_fields(openapi: dict[str, Any], path: str, method: str) -> list[str]:
    """The fields of a route's JSON body, as its OpenAPI schema names them."""
    op = openapi["paths"].get(path, {}).get(method.lower(), {})
    schema = (
        op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
    )
    ref = schema.get("$ref", "")
    if ref:
        schema = openapi["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    return list(schema.get("properties", {}))


@st.composite
def requests_for(draw, route: APIRoute, method: str, fields: list[str]) -> dict[str, Any]:
    path = route.path
    for name in re.findall(r"{(\w+)}", path):
        path = path.replace("{" + name + "}", quote(draw(query_text), safe="") or "x")
    query = {p.alias: draw(query_text) for p in route.dependant.query_params if draw(st.booleans())}
    request: dict[str, Any] = {
        "method": method,
        "url": path + ("?" + urlencode(query) if query else ""),
    }
    if method in ("POST", "PUT", "PATCH"):
        shaped = st.fixed_dictionaries({}, optional={f: json_values for f in fields})
        choice = draw(st.sampled_from(["shaped", "any", "bytes"]))
        if choice == "bytes":
            request["content"] = draw(st.binary(max_size=200))
            request["headers"] = {
                "content-type": draw(
                    st.sampled_from(
                        ["application/json", "text/plain", "application/x-www-form-urlencoded"]
                    )
                )
            }
        else:  # Python's dumps writes NaN and Infinity, which Python's loads (the server) reads
            request["content"] = as_json(draw(shaped if choice == "shaped" else json_values))
            request["headers"] = {"content-type": "application/json"}
    return request


def as_json(value: Any) -> bytes:
    return json.dumps(value).encode()


def test_every_route_is_fuzzed(app) -> None:
    """The routes this module fuzzes are all the app's API routes (and at least these)."""
    found = {(m, p) for m, p, _ in routes(app)}
    assert {
        ("POST", "/packs"),
        ("POST", "/deal"),
        ("POST", "/validate"),
        ("GET", "/sheet"),
        ("GET", "/sets"),
        ("GET", "/sets/{code}/products"),
        ("GET", "/minigames"),
        ("GET", "/health"),
        ("GET", "/"),
    } <= found


def test_fuzz_every_route(app, client: TestClient) -> None:
    openapi = app.openapi()
    for method, path, route in routes(app):

        @FUZZ
        @given(request=requests_for(route, method, body_fields(openapi, path, method)))
        def fuzz(request: dict[str, Any]) -> None:
            assert_sound(client.request(**request))

        fuzz()


@FUZZ
@given(
    path=st.text(max_size=40), method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "OPTIONS"])
)
def test_fuzz_unknown_paths_and_methods(client: TestClient, path: str, method: str) -> None:
    for prefix in ("/", "/static/", "/docs-assets/", "/sets/"):
        assert_sound(client.request(method, prefix + quote(path, safe="/")))


# --- validate: the HTTP route and the command, on mutations of a dealt setup ----------------


@pytest.fixture(scope="module")
def setup(client: TestClient) -> dict[str, Any]:
    response = client.post(
        "/deal", json={"minigame": "roll-for-initiative", "players": 3, "set": "afr", "seed": 2}
    )
    assert response.status_code == 200
    return response.json()


def mutate(data: Any, path: list[int], value: Any) -> Any:
    """``data`` with the node reached by following ``path`` (indices mod size) replaced."""
    if not path or not isinstance(data, (dict, list)) or not data:
        return value
    keys = list(data) if isinstance(data, dict) else list(range(len(data)))
    key = keys[path[0] % len(keys)]
    copy = dict(data) if isinstance(data, dict) else list(data)
    copy[key] = mutate(data[key], path[1:], value)
    return copy


setups = st.tuples(st.lists(st.integers(0, 50), max_size=6), json_values)


@FUZZ
@given(change=setups)
def test_fuzz_validate_route_with_mutated_setups(client: TestClient, setup, change) -> None:
    assert_sound(
        client.post(
            "/validate",
            content=as_json(mutate(setup, *change)),
            headers={"content-type": "application/json"},
        )
    )


def run_cli(*args: str) -> tuple[int, str, str]:
    """``main()`` in-process (as the console script), stdout and stderr captured."""
    from boosterkit.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    old = sys.argv
    sys.argv = ["boosterkit", *args]
    try:
        with redirect_stdout(out), redirect_stderr(err):
            main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.argv = old
    return code, out.getvalue(), err.getvalue()


file_contents = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
    json_values.map(lambda v: json.dumps(v).encode()),
)


@FUZZ
@given(content=file_contents)
def test_fuzz_validate_command_file_reading(built_db: Path, tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "setup.json"
    path.write_bytes(content)
    code, _, err = run_cli("--db", str(built_db), "validate", str(path))
    assert code == 2, (content[:100], err)  # none of these is a setup
    assert err.startswith("boosterkit: error: ") and err.count("\n") == 1, err
    assert str(path) in err


@FUZZ
@given(change=setups)
def test_fuzz_validate_command_with_mutated_setups(
    built_db: Path, tmp_path: Path, setup, change
) -> None:
    path = tmp_path / "setup.json"
    path.write_text(json.dumps(mutate(setup, *change)))
    code, out, err = run_cli("--db", str(built_db), "validate", str(path))
    assert code in (0, 1, 2), (code, err)
    assert "Traceback" not in out + err
    if code == 2:
        assert err.startswith("boosterkit: error: ") and err.count("\n") == 1, err


def test_validate_reads_a_bounded_amount(built_db: Path) -> None:
    """``/dev/zero`` never ends: the command stops at the size limit and says it."""
    from boosterkit.cli.minigames import MAX_SETUP_BYTES

    code, _, err = run_cli("--db", str(built_db), "validate", "/dev/zero")
    assert code == 2 and f"larger than {MAX_SETUP_BYTES // 2**20} MiB" in err


def test_play_reads_a_bounded_moves_file(built_db: Path, tmp_path: Path) -> None:
    """The moves file of ``play`` is bounded like a setup file: ``/dev/zero`` ends, in one line."""
    from boosterkit.cli.minigames import MAX_SETUP_BYTES

    setup = tmp_path / "setup.json"
    setup.write_text("{}")  # read before the moves; what it holds is checked after them
    code, _, err = run_cli("--db", str(built_db), "play", str(setup), "/dev/zero")
    assert code == 2 and err.count("\n") == 1
    assert (
        f"/dev/zero: larger than {MAX_SETUP_BYTES // 2**20} MiB, the limit for a moves file" in err
    )


# --- cards --q (issue 20 §3) ---------------------------------------------------------------

query_tokens = st.sampled_from(
    ["c:wubrg", "c:g", "c>=wu", "t:creature", "mv<=3", "(", ")", "-(", "or", "-c:r", '"a b"', "x"]
)


@FUZZ
@given(parts=st.lists(query_tokens, max_size=400))
def test_fuzz_card_queries_parse_or_fail_in_one_line(parts: list[str]) -> None:
    """Any mix of terms, `or` and parentheses, up to 400 of them: SQL with at most
    ``MAX_TERMS`` conditions, or a ``QueryError`` of one line — never a RecursionError."""
    from boosterkit.pipeline.search import MAX_TERMS, QueryError, to_sql

    query = " ".join(parts)
    try:
        sql, params = to_sql(query)
    except QueryError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 300
        return
    assert sql.count("?") == len(params) and sql.count("?") <= 2 * MAX_TERMS


@pytest.mark.parametrize(
    "query, says",
    [
        ("c:wubrg " * 2000, "longer than 1,000 characters"),
        ("(" * 600 + "x" + ")" * 600, "longer than 1,000 characters"),
        ("c:g " * 65, "65 terms; a query has at most 64"),
        ("(" * 17 + "x" + ")" * 17, "parentheses nested more than 16 deep"),
    ],
)
def test_cards_query_past_its_bounds_is_one_line_exit_2_in_bounded_memory(
    built_db: Path, query: str, says: str
) -> None:
    """Issue 20: 16 KB of `c:wubrg` took 2.8 GB; 490+ parentheses printed a RecursionError."""
    import subprocess

    bin_ = str(Path(sys.executable).with_name("boosterkit"))
    done = subprocess.run(
        [sys.executable, "-c", PEAK_OF, bin_, "--db", str(built_db), "cards", "--q", query],
        capture_output=True,
        text=True,
        timeout=120,
    )
    *lines, peak = done.stderr.splitlines()
    out, err = done.stdout, "".join(line + "\n" for line in lines)
    assert done.returncode == 2 and out == "" and err.count("\n") == 1, err
    assert says in err and "Traceback" not in err and len(err) < 300
    assert int(peak) < 300 * 1024  # KiB: the command's own peak, < 300 MB


#: Runs argv[1:] and adds its peak resident size (KiB) as a last line of stderr. From this
#: small process, not from pytest: a child's peak counts the memory of the process it was
#: forked from.
PEAK_OF = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[1:])
_, status, usage = os.wait4(proc.pid, 0)
sys.stderr.write(f"{usage.ru_maxrss}\\n")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def test_a_repeated_condition_is_evaluated_once() -> None:
    from boosterkit.pipeline.search import to_sql

    assert to_sql("c:g c:g c:g") == to_sql("c:g")
    assert to_sql("(t:elf or t:elf) mv<=2 mv<=2") == to_sql("t:elf mv<=2")


@FUZZ
@given(change=setups, moves=st.lists(json_values, max_size=5), states=st.booleans())
def test_fuzz_play_route_with_mutated_setups(
    client: TestClient, setup, change, moves, states
) -> None:
    """``POST /play`` of a mutated dealt setup and arbitrary moves: checked before it is
    played (issue 20), never a 5xx, errors in one line."""
    body = {"setup": mutate(setup, *change), "moves": moves, "states": states}
    response = client.post(
        "/play", content=as_json(body), headers={"content-type": "application/json"}
    )
    assert_sound(response)
    if response.status_code == 200 and response.json()["setup_valid"] is False:
        assert response.json()["moves"] == [] and response.json()["violation"]["move"] is None
