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


def setup_schema() -> dict:
    """``data/setup.schema.json``, the JSON Schema every dealt setup must match."""
    import json

    from boosterkit.data import DATA_DIR

    return json.loads((DATA_DIR / "setup.schema.json").read_text())


def schema_checked_deal(*args, **kwargs):
    """``minigames.deal``; every setup it deals must match ``data/setup.schema.json`` and
    read back through the setup model (``setupfile.read_setup_file``) byte for byte."""
    import jsonschema

    from boosterkit.minigames import deal
    from boosterkit.minigames.setupfile import read_setup_file
    from boosterkit.serialize import to_json

    setup = deal(*args, **kwargs)
    data = setup.to_dict()
    jsonschema.validate(data, setup_schema())
    assert to_json(read_setup_file(data)) == to_json(data)
    return setup
