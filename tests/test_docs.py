"""Every registered command is documented in README.md, with an example of its use."""

from __future__ import annotations

import re

import pytest
import typer.main
from conftest import ROOT

from boosterkit.cli.app import app


def _commands(group, prefix: str = "") -> list[str]:
    """Leaf command paths of a (typer-vendored) click group: 'sync', 'db info'…"""
    out: list[str] = []
    for name, cmd in sorted(group.commands.items()):
        if getattr(cmd, "hidden", False):
            continue
        if hasattr(cmd, "commands"):
            out += _commands(cmd, f"{prefix}{name} ")
        else:
            out.append(prefix + name)
    return out


COMMANDS = _commands(typer.main.get_command(app))
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_commands_are_registered() -> None:
    assert {"sync", "sets", "cards", "db info", "db rebuild"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_documented_in_readme(command: str) -> None:
    # an example line `boosterkit [--db X] <command> …` anywhere in the README
    pattern = r"boosterkit(?: --db \S+)? " + re.escape(command) + r"(?:\s|$|`)"
    assert re.search(pattern, README), f"README.md has no example of `boosterkit {command}`"


def _section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start : end if end > 0 else None]


def test_limits_table_states_the_bounds_the_code_sets() -> None:
    """Every figure of the "Limits and failure behaviour" table (and of the fetch limits it
    points to) is the constant the code enforces: change one, and this test names the row."""
    from boosterkit import config, errors, safefiles
    from boosterkit.cli.minigames import MAX_SETUP_BYTES
    from boosterkit.minigames.referee import play
    from boosterkit.pipeline import halves, http, search, sync
    from boosterkit.pipeline.scryfall.client import MAX_PAGES
    from boosterkit.service import limits, models, pool_routes, referee_routes

    limits_md = _section("Limits and failure behaviour")
    fetch_md = README[README.index("**Fetch limits**") : README.index("### import mtgjson")]
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
    for text, rows in expected.items():
        for row in rows:
            assert row in text, f"README limits: {row!r} not stated"
