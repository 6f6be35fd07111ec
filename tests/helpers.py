"""Helpers shared by test modules (fixtures live in conftest.py)."""

from __future__ import annotations

import functools
import sys
from typing import Any

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


#: ``boosterkit`` in a process of its own whose HTTP client does not pause between requests:
#: for runs against a fake server on 127.0.0.1. A sync of WOE and its child sets waited
#: 0.5 s before each search (Scryfall's rate), 7 s of its test's 8. The pacing is tested on
#: the client's clock (test_sync.py::test_sync_paces_requests_on_the_client_clock).
UNPACED_CLI = [
    sys.executable,
    "-c",
    "import sys; from boosterkit.pipeline.http import HttpClient; "
    "HttpClient._pace = lambda self, url: None; "
    "from boosterkit.cli.app import main; sys.exit(main())",
]


def setup_schema() -> dict:
    """``data/setup.schema.json``, the JSON Schema every dealt setup must match."""
    import json

    from boosterkit.data import DATA_DIR

    return json.loads((DATA_DIR / "setup.schema.json").read_text())


@functools.cache
def schema_validator(name: str) -> Any:
    """A validator of ``data/NAME``, the schema itself checked once: ``jsonschema.validate``
    checks the schema against its metaschema and builds a validator at every call (three
    quarters of its time on a dealt setup)."""
    import json

    import jsonschema

    from boosterkit.data import DATA_DIR

    schema = json.loads((DATA_DIR / name).read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def check_schema(data: Any, name: str = "setup.schema.json") -> None:
    """Raise the best ``jsonschema.ValidationError`` unless ``data`` matches ``data/NAME``."""
    import jsonschema

    error = jsonschema.exceptions.best_match(schema_validator(name).iter_errors(data))
    if error is not None:
        raise error


def schema_checked_deal(*args, **kwargs):
    """``minigames.deal``; every setup it deals must match ``data/setup.schema.json`` and
    read back through the setup model (``setupfile.parse_setup``) byte for byte."""
    from boosterkit.minigames import deal
    from boosterkit.minigames.setupfile import parse_setup
    from boosterkit.serialize import to_json

    setup = deal(*args, **kwargs)
    data = setup.to_dict()
    check_schema(data)
    assert to_json(parse_setup(data)) == to_json(data)
    return setup


#: The shared MTGJSON minigame files: the five 2021 sets, then the nine bare set objects of
#: ``minigames-2025/`` (every other game's printed text).
MINIGAME_FILES = [f"{c}.json" for c in ("MAFR", "MKHM", "MZNR", "MSTX", "MMH2")] + [
    f"minigames-2025/{c}.json"
    for c in ("MMID", "MNEO", "MSNC", "MCLB", "MDMU", "MBRO", "MONE", "MLTR", "MACR")
]


def minigame_sets() -> dict[str, dict]:
    """The shared minigame set objects by lower-case code (skips without ../shared)."""
    import json

    from conftest import shared_path

    out = {}
    for name in MINIGAME_FILES:
        raw = json.loads(shared_path("mtgjson", *name.split("/")).read_text("utf-8"))
        data = raw.get("data", raw)  # minigames-2025/ holds bare set objects
        out[data["code"].lower()] = data
    return out


def printed_text(spec) -> str | None:
    """The printed rules text (both faces, markup ``_`` dropped) of the game's first printing
    in the shared MTGJSON minigame files; None when none of its sets is there (MVOW)."""
    sets = minigame_sets()
    for printing in spec.printings:
        data = sets.get(printing.set)
        sides = [c for c in (data or {}).get("tokens", []) if c.get("number") == printing.number]
        if sides:
            return "\n".join(c.get("text") or "" for c in sides).replace("_", "").replace("*", "")
    return None
