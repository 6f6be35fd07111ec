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
