"""``cli.coerce``: option values coerced without pydantic give what typer's own coercion
gives, for every option of every command; and ``cli.app.main`` builds only the command it
runs (issue 22 §2, start-up)."""

from __future__ import annotations

from enum import Enum
from typing import Any

import pytest
import typer.main
from typer import _click

from boosterkit.cli import coerce
from boosterkit.cli.app import COMMAND_MODULES, command_module, full_app, make_app


def _params(command: Any) -> list[tuple[Any, Any]]:
    """(command, parameter) of ``command`` and of its subcommands, ``--help`` excepted."""
    found = [(command, p) for p in command.params]
    for sub in getattr(command, "commands", {}).values():
        found += _params(sub)
    return found


def _samples(quick: coerce.Quick, param: Any) -> list[Any]:
    """Values a user may give the parameter: plain and unusual spellings, bad ones."""
    leaf = quick.leaf
    values: list[Any] = ["", "abc"]
    if leaf is int:
        info = quick.descriptor.parameter_info
        values += ["0", "7", "-3", "+2", "007", "1_000", " 5", "5.0", "x", "9" * 80, 12]
        values += [str(b + d) for b in (info.min, info.max) if b is not None for d in (-1, 0, 1)]
    if quick.choices is not None:
        names = [c.value if isinstance(c, Enum) else c for c in quick.choices]
        values += [*names, *(str(n).upper() for n in names), "nope", *quick.choices[:1]]
    if param.default is not None and not callable(param.default):
        values.append(param.default)
    values += ["x.json", "-", "./a b/c.csv"]
    return values


def _outcome(coercer: Any, value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    try:
        got = coercer.coerce(value, param=param, ctx=ctx)
    except _click.exceptions.BadParameter as exc:
        return "error", exc.message
    return type(got).__name__, got


def test_typer_keeps_the_private_api_cli_coerce_uses() -> None:
    """Fails loudly when a typer release moves what ``cli.coerce`` uses (start-up would
    silently pay pydantic again): then update ``cli/coerce.py`` and the typer pin."""
    assert coerce._typer is not None, "typer._coercion/_param_types/_typing moved"
    group = typer.main.get_command(full_app())
    quickened = [p for _, p in _params(group) if isinstance(p._runtime_param, coerce.Quick)]
    assert len(quickened) > 60  # every option and argument of every command (no file types)
    assert all(p._runtime_param is None or isinstance(p._runtime_param, coerce.Quick)
               for _, p in _params(group) if hasattr(p, "type_descriptor"))  # fmt: skip


def test_quick_coercion_equals_typers_for_every_option_and_value() -> None:
    from typer._coercion import build_runtime_param

    group = typer.main.get_command(full_app())
    checked = 0
    for command, param in _params(group):
        quick = getattr(param, "_runtime_param", None)
        if not isinstance(quick, coerce.Quick):
            continue
        slow = build_runtime_param(param.type_descriptor)
        ctx = _click.Context(command)
        multi = param.multiple or param.nargs == -1
        for value in _samples(quick, param):
            given = [value, value] if multi else value
            want = _outcome(slow, given, param, ctx)
            assert _outcome(quick, given, param, ctx) == want, (command.name, param.name, given)
            checked += 1
    assert checked > 500


@pytest.mark.parametrize(
    ("argv", "module"),
    [
        (["open", "afr", "-n", "1"], "packs"),
        (["--db", "open", "deal", "x"], "minigames"),  # --db's value is no command
        (["--db=x.duckdb", "serve"], "serve"),
        (["db", "check"], "browse"),
        (["--version"], None),
        (["frobnicate"], None),
        ([], None),
    ],
)
def test_main_builds_the_module_of_the_command_it_runs(argv: list[str], module: str | None) -> None:
    assert command_module(argv) == module


def test_each_module_registers_the_commands_it_is_listed_with() -> None:
    for module, names in COMMAND_MODULES.items():
        group = typer.main.get_command(make_app([module]))
        assert tuple(group.commands) == names, module
    assert set(typer.main.get_command(full_app()).commands) == {
        n for names in COMMAND_MODULES.values() for n in names
    }


def test_the_typer_pin_covers_the_installed_typer() -> None:
    """``pyproject.toml`` pins typer to the minor release ``cli.coerce`` was checked with."""
    import re
    from importlib.metadata import version
    from pathlib import Path

    import tomllib

    deps = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    pin = next(d for d in deps["project"]["dependencies"] if d.startswith("typer"))
    low, high = re.fullmatch(r"typer>=([\d.]+),<([\d.]+)", pin).groups()
    installed = tuple(int(x) for x in version("typer").split(".")[:2])
    assert tuple(int(x) for x in low.split(".")[:2]) <= installed
    assert installed < tuple(int(x) for x in high.split(".")[:2])
