"""Helpers shared by test modules (fixtures live in conftest.py)."""

from __future__ import annotations

import sys

import pytest


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``main()`` in-process, as the console script runs it: (exit code, stdout, stderr)."""
    from boosterkit.cli.app import main

    old = sys.argv
    sys.argv = ["boosterkit", *args]
    try:
        with pytest.raises(SystemExit) as exc:
            main()
    finally:
        sys.argv = old
    out, err = capsys.readouterr()
    return exc.value.code, out, err
