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
    assert lines <= 250, f"README.md has {lines} lines; the reference belongs in docs/"
    for heading in ("## Install", "## The two commands", "## Quick start", "## Documentation"):
        assert f"\n{heading}\n" in README, heading
    assert "Python ≥ 3.10" in README and 'requires-python = ">=3.10"' in (
        ROOT / "pyproject.toml"
    ).read_text(encoding="utf-8")


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
    from boosterkit import config, errors, safefiles
    from boosterkit.cli.minigames import MAX_SETUP_BYTES
    from boosterkit.minigames.referee import play
    from boosterkit.pipeline import halves, http, search, sync
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
            f"under the folder's {safefiles.SECRET_BYTES}-byte `secret`",
            f"| at most {errors.INT_DIGITS:,} digits (Python's conversion limit)",
            f"an integer of more than {errors.INT_DIGITS:,} digits",
            f"| `cards --q QUERY` | {search.MAX_QUERY_CHARS:,} characters, {search.MAX_TERMS} "
            f"terms, parentheses {search.MAX_DEPTH} deep",
            f"the write waits for it to let go: {config.DEFAULT_LOCK_WAIT:g} s, "
            "`BOOSTERKIT_LOCK_WAIT`",
            f"{halves.MIN_BYTES >> 20} MiB to {halves.MAX_BYTES >> 30} GiB: parsed in two halves",
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


def test_limits_table_states_the_bounds_of_jobs() -> None:
    """The ``--jobs`` cap (issue 33 §8) is worded in docs/limits.md as the code says it."""
    from boosterkit import parts

    assert parts.jobs_note(64, 2) in page("limits.md")


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
