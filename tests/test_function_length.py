"""Functions under ~60 lines (the project brief's style rule), checked with ``ast`` over
every module of the package, ``boosterkit/`` and its subpackages (the top-level folders
``pipeline/``… are links to them), each real file once. ``minigames/compiled.py`` is
generated and skipped.

A function's length is from its ``def`` line to its last line (decorators not counted,
its docstring and nested functions counted); a nested function or a method is measured too.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import boosterkit

MAX_LINES = 60
PACKAGE = Path(boosterkit.__file__).parent
#: Generated (``python -m boosterkit.minigames.compile``), not written by hand.
GENERATED = (Path("minigames") / "compiled.py",)


def modules(root: Path, skip: tuple[Path, ...] = ()) -> dict[Path, Path]:
    """The real path of each ``.py`` file under ``root`` (symlinked folders followed) → the
    path it was first found at, relative to ``root``; ``skip`` are such relative paths."""
    found: dict[Path, Path] = {}
    for folder, dirs, files in os.walk(root, followlinks=True):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = Path(folder) / name
            rel = path.relative_to(root)
            if rel not in skip:
                found.setdefault(path.resolve(), rel)
    return found


def too_long(root: Path, skip: tuple[Path, ...] = (), limit: int = MAX_LINES) -> list[str]:
    """``file:line name (N lines)`` for each function of the modules under ``root`` longer
    than ``limit`` lines."""
    out = []
    for real, rel in modules(root, skip).items():
        tree = ast.parse(real.read_text(encoding="utf-8"), filename=str(rel))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > limit:
                    out.append(f"{rel}:{node.lineno} {node.name} ({lines} lines)")
    return sorted(out)


def test_no_function_of_the_package_is_over_60_lines() -> None:
    long = too_long(PACKAGE, GENERATED)
    assert not long, f"functions over {MAX_LINES} lines (split them along their seams): " + (
        "; ".join(long)
    )


def test_the_walk_reaches_every_subpackage_and_skips_the_generated() -> None:
    found = {rel.as_posix() for rel in modules(PACKAGE, GENERATED).values()}
    for sub in ("pipeline", "generator", "cli", "data", "minigames", "service"):
        assert (PACKAGE / sub).is_dir() and not (PACKAGE / sub).is_symlink()
        assert any(f.startswith(f"{sub}/") for f in found), sub
    assert {"pipeline/sync.py", "cli/browse.py", "minigames/referee/mimic_match.py"} <= found
    assert "minigames/compiled.py" not in found
    assert (PACKAGE / "minigames" / "compiled.py").is_file()  # skipped, not missing


def _function(name: str, body_lines: int, indent: str = "") -> str:
    body = "".join(f"{indent}    x{i} = {i}\n" for i in range(body_lines))
    return f"{indent}def {name}() -> None:\n{body}"


def test_a_function_or_method_over_the_limit_is_named_once_through_a_link(
    tmp_path: Path,
) -> None:
    pkg = tmp_path / "pkg"
    (tmp_path / "real").mkdir()
    pkg.mkdir()
    (pkg / "sub").symlink_to(Path("..") / "real")  # relative, as in boosterkit/
    (pkg / "short.py").write_text(_function("fits", MAX_LINES - 1))  # 60 lines with its def
    (tmp_path / "real" / "mod.py").write_text(
        _function("too_long", MAX_LINES) + "\n\nclass C:\n" + _function("method", 70, "    ")
    )
    (pkg / "alias.py").symlink_to(Path("sub") / "mod.py")  # the same real file twice
    (pkg / "gen.py").write_text(_function("generated", 100))
    assert too_long(pkg, (Path("gen.py"),)) == [
        "alias.py:1 too_long (61 lines)",
        "alias.py:65 method (71 lines)",
    ]
    assert too_long(pkg) == [
        "alias.py:1 too_long (61 lines)",
        "alias.py:65 method (71 lines)",
        "gen.py:1 generated (101 lines)",
    ]
