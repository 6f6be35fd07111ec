"""Every command's ``--help``, as ``docs/commands.md`` shows it (cog writes it; ``cog --check``
and ``tests/test_docs.py`` keep the page equal to the code)."""

from __future__ import annotations

from typing import Any

#: The width the help is wrapped at in the docs (any terminal's own width aside).
WIDTH = 100


def command_paths() -> list[str]:
    """Leaf command paths of the app, in help order: 'sync', 'db info', 'import mtgjson'…"""
    import typer.main

    from boosterkit.cli.app import app

    def walk(group: Any, prefix: str) -> list[str]:
        out: list[str] = []
        for name, cmd in group.commands.items():
            if getattr(cmd, "hidden", False):
                continue
            if hasattr(cmd, "commands"):
                if getattr(cmd, "own_command", None):  # a group that is a command too (pool)
                    out.append(prefix + name)
                out += walk(cmd, f"{prefix}{name} ")
            else:
                out.append(prefix + name)
        return out

    return walk(typer.main.get_command(app), "")


def help_text(path: str) -> str:
    """``boosterkit PATH --help`` wrapped at WIDTH, whatever the terminal."""
    from typer.testing import CliRunner

    from boosterkit.cli.app import app

    args = [*path.split(), "--help"] if path else ["--help"]
    result = CliRunner().invoke(app, args, prog_name="boosterkit", terminal_width=WIDTH)
    if result.exit_code != 0:
        raise RuntimeError(f"boosterkit {path} --help exited {result.exit_code}")
    return result.output.rstrip() + "\n"


def markdown() -> str:
    """The help of the root command and of every command, one section each."""
    parts = ["### boosterkit\n\n```text\n" + help_text("") + "```\n"]
    for path in command_paths():
        parts.append(f"### boosterkit {path}\n\n```text\n{help_text(path)}```\n")
    return "\n".join(parts)
