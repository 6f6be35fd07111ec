"""The README is a front page and docs/ holds the reference: every registered command is
documented there with an example, its help is the code's, and the limits are the code's."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import ROOT

from boosterkit.cli.reference import command_paths, help_text

COMMANDS = command_paths()
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
PAGES = {p.name: p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.md"))}
COG = re.compile(r"<!-- \[\[\[cog.*?<!-- \[\[\[end\]\]\] -->", re.S)


def page(name: str) -> str:
    return PAGES[name]


def test_commands_are_registered() -> None:
    assert {"sync", "sets", "cards", "db info", "db rebuild"} <= set(COMMANDS)


def test_readme_is_a_front_page() -> None:
    lines = README.count("\n")
    assert lines <= 120, f"README.md has {lines} lines; the reference belongs in docs/"
    headings = re.findall(r"^## (.+)$", README, re.M)
    assert headings == ["The two commands", "Three users", "Real data", "Documentation"]
    users = re.findall(r"^### (An organizer|A fixture builder|A test suite)\b", README, re.M)
    assert users == ["An organizer", "A fixture builder", "A test suite"]
    assert "Python ≥ 3.10" in README and 'requires-python = ">=3.10"' in (
        ROOT / "pyproject.toml"
    ).read_text(encoding="utf-8")


def _two_commands() -> tuple[list[str], list[str]]:
    part = README.split("\n## The two commands\n", 1)[1].split("\n## ", 1)[0]
    first, second = (b.strip().splitlines() for b in re.findall(r"```sh\n(.*?)```", part, re.S))
    return first, second


def test_the_first_command_is_two_plain_lines() -> None:
    """Install, then the main job as a user types it: no `sh -c`, no variable set inside
    another shell, no data to load first (the bundled sample; tests/test_wheel.py runs them)."""
    first, _ = _two_commands()
    assert len(first) == 2, first
    install, job = first
    assert install == "python3 -m venv .venv && . .venv/bin/activate && pip install ."
    assert job == "boosterkit deal roll-for-initiative --players 5 --seed 2"
    assert not re.search(r"\bsh -c\b|\b[A-Z_]+=|export ", "\n".join(first))


def test_the_test_command_is_what_ci_runs() -> None:
    _, second = _two_commands()
    assert second == [
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest"
    ]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "\n.venv/bin/pytest\n" in ci and "-e '.[dev]'" in ci  # dev includes test
    extras = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^dev = \[\n    "boosterkit\[test\]",$', extras, re.M)


def _readme_figures() -> set[str]:
    """The numbers the README states: in its prose and its code comments (not in commands,
    which the examples run, nor in the table of pages)."""
    text = README.split("\n## Documentation\n", 1)[0]
    comments = re.findall(
        r"\s#\s(.*)$", "\n".join(re.findall(r"```sh\n(.*?)```", text, re.S)), re.M
    )
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    prose = re.sub(r"`[^`]*`|\]\([^)]*\)|<!--.*?-->", "", prose)
    return set(re.findall(r"\d[\d.,:]*\d|\d", " ".join([prose, *comments])))


def test_every_figure_of_the_readme_is_checked() -> None:
    """ "About 1,300 tests", "5–10 minutes", "about 10" browser tests were not true: a figure
    the README states is checked here, or it is not stated (issue 34)."""
    import gzip
    import json

    from boosterkit.minigames import list_minigames
    from boosterkit.pipeline import sample
    from boosterkit.suggest import fold

    data = json.loads(gzip.decompress(sample.MTGJSON_FILE.read_bytes()))["data"]
    sets = [s for code, s in data.items() if s["type"] in ("funny", "minigame")]

    def game(name: str) -> str:
        return fold(name.split(" // ")[0].removesuffix(" (minigame)"))

    in_sample = {game(t["name"]) for s in sets for t in s["tokens"]}
    printed = in_sample | {game(g["name"]) for g in list_minigames()}
    checked = {
        "28": len(printed),  # the printed minigames: the catalogue's and the sample's cards'
        "26": len(in_sample),  # those whose cards the sample holds
        "3.10": 3.10,  # Python ≥ 3.10: requires-python (test_readme_is_a_front_page)
        "14": 14,  # a Set Booster's objects: the README's test example asserts it
        "0": 0,  # `validate`'s exit for a valid setup: the examples stop on any other
        "127.0.0.1:8000": "127.0.0.1:8000",  # serve's default --host and --port (below)
    }
    assert (checked["28"], checked["26"], len(sets)) == (28, 26, 14)
    assert _readme_figures() <= set(checked), _readme_figures() - set(checked)
    serve = " ".join(help_text("serve").split())
    assert "Address to listen on. [default: 127.0.0.1]" in serve
    assert "Port to listen on. [default: 8000;" in serve


def test_readme_links_every_docs_page() -> None:
    linked = set(re.findall(r"\]\(docs/([\w-]+\.md)", README))
    assert set(PAGES) - linked == set(), "docs pages the README does not link"
    assert linked - set(PAGES) == set(), "README links to docs pages that do not exist"


def test_every_page_is_in_the_site_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for name in PAGES:
        assert f": {name}" in nav, f"docs/{name} is not in mkdocs.yml's nav"


@pytest.mark.parametrize("command", COMMANDS)
def test_command_has_an_example_in_the_docs(command: str) -> None:
    # an example line `boosterkit [--db X] <command> …` outside the generated help
    text = COG.sub("", "\n".join([README, *PAGES.values()]))
    pattern = r"boosterkit(?: --db \S+)? " + re.escape(command) + r"(?:\s|$|`)"
    assert re.search(pattern, text), f"no example of `boosterkit {command}` in README or docs/"


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_commands_page_holds_the_help_the_code_prints(command: str) -> None:
    """docs/commands.md shows each command's --help exactly as the app prints it (cog writes
    it; this and `cog --check` fail when an option or a help text changed without it)."""
    heading = f"### boosterkit {command}".rstrip()
    text = page("commands.md")
    assert f"\n{heading}\n\n```text\n{help_text(command)}```\n" in text, (
        f"docs/commands.md: the help of `boosterkit {command}` differs from the code's; "
        "run `cog -r docs/commands.md`"
    )


def test_docs_build_strictly(tmp_path) -> None:
    """The site builds with no warning (a broken link or anchor, a page left out of the nav)."""
    pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--quiet",
            "--site-dir",
            str(tmp_path / "site"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "site" / "commands" / "index.html").exists()


def test_limits_table_states_the_bounds_the_code_sets() -> None:
    """Every figure of the "Limits and failure behaviour" page (and of its fetch limits) is
    the constant the code enforces: change one, and this test names the row."""
    from boosterkit import cache, config, errors
    from boosterkit.cli.minigames import MAX_SETUP_BYTES
    from boosterkit.generator import packs
    from boosterkit.minigames.referee import play
    from boosterkit.pipeline import files, halves, http, search, shapes, sync
    from boosterkit.pipeline.scryfall.client import MAX_PAGES
    from boosterkit.service import limits, models, pool_routes, referee_routes

    text = page("limits.md")
    limits_md, fetch_md = text.split("\n## Fetch limits\n")
    mib = 1024 * 1024
    expected = {
        limits_md: [
            f"Setup file (`validate FILE`) | {MAX_SETUP_BYTES // mib} MiB",
            f"{models.MAX_BODY_BYTES // mib} MiB each; {limits.MAX_BODY_BYTES_IN_FLIGHT // mib} MiB in flight",
            f"at most {limits.MAX_BODY_BYTES_PER_CLIENT // mib} MiB from one client address",
            f"a body's first {limits.SMALL_BODY // 1024} KiB count in the total only, and "
            f"{limits.SMALL_RESERVE // mib} MiB of it are kept for them",
            f"the whole body within {limits.BODY_DEADLINE:g} s",
            f"408 and the connection closed for a body not in within {limits.BODY_DEADLINE:g} s",
            f"`count` ≤ {models.MAX_PACKS}, `players` ≤ {models.MAX_REQUEST_PLAYERS}",
            f"`/pool` players × packs ≤ {pool_routes.MAX_POOL_PACKS}",
            f"`games` ≤ {referee_routes.MAX_SIM_GAMES}",
            f"≤ {referee_routes.MAX_MOVES:,} moves",
            f'(`--states`, `"states": true`), for the first {play.MAX_STATES:,} moves',
            f"{limits.MAX_PACKS_IN_FLIGHT} packs in flight",
            f"`Retry-After: {limits.RETRY_AFTER_BUSY}` after waiting {limits.BUDGET_WAIT:g} s",
            f"(`{cache.HEADER.decode().strip()} <sha256>` then the body), no pickle and no secret",
            f"in memory at most {cache.Cache().maxsize} values a handle (the process's own: "
            f"{cache.DEFAULT.maxsize})",
            f"| at most {errors.INT_DIGITS:,} digits (Python's conversion limit)",
            f"an integer of more than {errors.INT_DIGITS:,} digits",
            f"| `cards --q QUERY` | {search.MAX_QUERY_CHARS:,} characters, {search.MAX_TERMS} "
            f"terms, parentheses {search.MAX_DEPTH} deep",
            f"the write waits for it to let go: {config.DEFAULT_LOCK_WAIT:g} s, "
            "`BOOSTERKIT_LOCK_WAIT`",
            f"{halves.MIN_BYTES >> 20} MiB to {halves.MAX_BYTES >> 30} GiB: parsed in two halves",
            # issue 33: the shapes of import files, the database path
            f"whole numbers up to 2^{shapes.MAX_WEIGHT.bit_length() - 1} ({shapes.MAX_WEIGHT:,}:",
            f"a gzip file expands to at most {files.MAX_GZIP_RATIO} times its size",
            f"past its first {files.DENSE_AFTER >> 20} MiB, at most one JSON object (`{{`) per "
            f"{files.MIN_OBJECT_BYTES} bytes",
            f"read once into a temporary file (removed afterwards), at most "
            f"{files.MAX_PIPE_BYTES >> 30} GiB; its writer must come within {files.PIPE_WAIT:g} s",
            f"a pipe that nothing wrote to in {files.PIPE_WAIT:g} s",
            # issue 33: what an imported product may ask for, what a request may cost
            f"at most {shapes.MAX_PACK_CARDS:,} cards a pack",
            f"{shapes.MAX_SHEET_CARDS:,} cards a sheet",
            f"weights whole numbers up to 2^{shapes.MAX_WEIGHT.bit_length() - 1} "
            f"({shapes.MAX_WEIGHT:,};",
            f"more than the {shapes.MAX_PACK_CARDS:,} a pack may hold",
            f"| {packs.BATCH:,} packs, fewer when a pack holds more than "
            f"{packs.BATCH_CARDS // packs.BATCH} cards: at most {packs.BATCH_CARDS:,} cards a batch",
            f"`/packs` at most {models.MAX_PACKS * limits.CARDS_PER_PACK_UNIT:,} cards",
            f"a pack counts once per {limits.CARDS_PER_PACK_UNIT} cards it may hold",
            f"a name at most {config.NAME_MAX} bytes (the database's "
            f"{config.NAME_MAX - len(config.WAL_SUFFIX)}: DuckDB adds `{config.WAL_SUFFIX}`)",
        ],
        fetch_md: [
            f"| {config.DEFAULT_FETCH_DEADLINE:g} s, `BOOSTERKIT_FETCH_DEADLINE`",
            f"| {config.DEFAULT_SYNC_DEADLINE:g} s, `BOOSTERKIT_SYNC_DEADLINE`",
            f"| {config.DEFAULT_DOWNLOAD_DEADLINE:g} s, `BOOSTERKIT_DOWNLOAD_DEADLINE`",
            f"capped at {http.MAX_RETRY_AFTER:g} s; absent or unparsable (`inf`, `nan`, garbage) → "
            f"{http.DEFAULT_RETRY_AFTER:g} s",
            f"at most {http.MAX_REDIRECTS} redirects",
            f"or after {MAX_PAGES} pages",
            f"| {http.MAX_ANSWER_BYTES >> 20} MB (files are streamed to disk)",
            f"(`{sync.SET_CODE_PATTERN}`, any case), checked before any use",
        ],
    }
    for part, rows in expected.items():
        for row in rows:
            assert row in part, f"docs/limits.md: {row!r} not stated"


@pytest.mark.parametrize("name", sorted(PAGES))
def test_every_page_starts_with_a_whole_sentence(name: str) -> None:
    """A page's first paragraph is not the tail of a sentence cut when text moved pages
    (docs/formats.md began "spreadsheets); `table`/`text` the human form; …")."""
    body = page(name).split("\n", 1)[1].lstrip("\n")
    first = body.split("\n\n", 1)[0]
    cut = re.match(r"(?!boosterkit\b)[a-z(,;)]", first)
    assert not cut, f"docs/{name} starts mid-sentence: {first[:60]!r}"
    assert first.count("(") == first.count(")"), f"docs/{name}: unbalanced first paragraph"


def test_limits_table_states_the_bounds_of_jobs() -> None:
    """The ``--jobs`` cap (issue 33 §8) is worded in docs/limits.md as the code says it."""
    from boosterkit import jobs

    assert jobs.jobs_note(64, 2) in page("limits.md")


def test_limits_table_states_the_bounds_of_connections() -> None:
    """The header deadline and the connection caps of ``serve`` (issue 33 §4) are the
    code's: docs/limits.md and docs/http-api.md state them."""
    from boosterkit.service import connections as c

    limits_md, http_md = page("limits.md"), page("http-api.md")
    rows = [
        f"request headers whole within {c.HEADER_DEADLINE:g} s of the connection",
        f"at most {c.MAX_CONNECTIONS_PER_CLIENT} connections from one client address",
        f"at most half the open-file limit less {c.RESERVED_FILES} over all clients "
        f"({c.connection_capacity(1024)} under `ulimit -n 1024`)",
        f"accepted {c.accept_backlog(1024)} at a time (at most {c.accept_backlog(10**6):,})",
        f"408 and the connection closed for headers not in within {c.HEADER_DEADLINE:g} s",
    ]
    for row in rows:
        assert row in limits_md, f"docs/limits.md: {row!r} not stated"
    assert f"whole within {c.HEADER_DEADLINE:g} s of its connection" in http_md
    assert f"at most {c.MAX_CONNECTIONS_PER_CLIENT} connections" in http_md
