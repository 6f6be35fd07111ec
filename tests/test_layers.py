"""The layers of the package, enforced (issue 35): ``cli``/``service`` → ``minigames`` →
``generator`` → ``pipeline`` → core (``boosterkit/*.py``). A module imports only from its
own layer or those below it, at module level, inside a function or for type checking alike;
the union of values an entry point accepts as ``db`` (``DbLike``) appears in public entry
points only. Both are read from the source with ``ast``: no import runs."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "boosterkit"

#: Top first. A module belongs to the first layer one of whose prefixes it starts with.
#: ``boosterkit.database`` opens connections with ``pipeline.db`` and the sample with
#: ``pipeline.sample``: it is the pipeline's layer. ``testing`` (Hypothesis strategies) and
#: the pytest plugin are entry points, like the CLI.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "cli/service",
        (
            "boosterkit.cli",
            "boosterkit.service",
            "boosterkit.testing",
            "boosterkit.generator.pytest_plugin",
        ),
    ),
    ("minigames", ("boosterkit.minigames",)),
    ("generator", ("boosterkit.generator",)),
    ("pipeline", ("boosterkit.pipeline", "boosterkit.database")),
    ("core", ("boosterkit",)),
]

#: The public entry points that take ``db: DbLike`` (docs/python-api.md names them).
ENTRY_POINTS = {
    "boosterkit.database": {"of"},
    "boosterkit.generator.cache": {"load_product", "compiled_product"},
    "boosterkit.generator.packs": {"open_packs", "iter_packs"},
    "boosterkit.generator.odds": {"odds"},
    "boosterkit.generator.frames": {"open_frame"},
    "boosterkit.generator.pools": {"open_pools", "pool_images"},
    "boosterkit.generator.sealed": {"open_sealed", "sealed_products"},
    "boosterkit.generator.events": {"open_event", "player_pool"},
    "boosterkit.minigames.dealer": {"deal"},
    "boosterkit.minigames.validate": {"validate_setup"},
    "boosterkit.minigames.sheets": {"sheet_images"},
    "boosterkit.minigames.referee.runner": {"simulate", "simulate_games"},
    "boosterkit.minigames.referee.play": {"play"},
}


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer(module: str) -> int | None:
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return None


def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (_module(p), ast.parse(p.read_text(encoding="utf-8"), str(p)))
        for p in sorted(PACKAGE.rglob("*.py"))
        if p != PACKAGE / "__init__.py"  # the version, and the package's lazy re-exports
    ]


def _imports(tree: ast.Module, module: str) -> list[tuple[str, int]]:
    """Every ``boosterkit`` module ``tree`` imports (relative imports resolved), by line."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = module.split(".")[: -node.level] if node.level else []
                base = ".".join([*up, base] if base else up)
            found.append((base, node.lineno))
            found += [(f"{base}.{a.name}", node.lineno) for a in node.names]
    return [(name, line) for name, line in found if name.startswith("boosterkit.")]


def test_every_module_is_in_a_layer() -> None:
    assert all(_layer(m) is not None for m, _ in _modules())


def test_no_module_imports_from_a_layer_above_it() -> None:
    upward = []
    for module, tree in _modules():
        own = _layer(module)
        for name, line in _imports(tree, module):
            other = _layer(name)
            if own is not None and other is not None and other < own:
                upward.append(
                    f"{module}:{line} imports {name} ({LAYERS[own][0]} → {LAYERS[other][0]})"
                )
    assert upward == []


@pytest.mark.parametrize("upward", ["boosterkit.generator.cache", "boosterkit.cli.app"])
def test_the_check_sees_an_upward_import(upward: str) -> None:
    """The check has teeth: an upward import, at module level or inside a function."""
    for code in (f"import {upward}\n", f"def f():\n    from {upward} import x\n"):
        tree = ast.parse(code)
        names = [n for n, _ in _imports(tree, "boosterkit.pipeline.db")]
        assert upward in names and _layer(upward) < _layer("boosterkit.pipeline.db")  # type: ignore[operator]


def _annotations(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    args = fn.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return [a.annotation for a in every if a is not None and a.annotation is not None]


def test_dblike_is_taken_by_public_entry_points_only() -> None:
    takers = set()
    for module, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any("DbLike" in ast.unparse(a) for a in _annotations(node)):
                    takers.add((module, node.name))
    want = {(m, f) for m, names in ENTRY_POINTS.items() for f in names}
    assert takers == want
    assert all(not f.startswith("_") for _, f in takers)
