"""The output format registries (``boosterkit.formats``, issue 21 §3): one per kind of output;
the CLI's ``-f`` choices and the service's types are built from them, the "images need HTML"
rule is theirs, and adding a format is one registration."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from helpers import run_cli

from boosterkit.errors import InputError
from boosterkit.formats import FRAMES, PACKS, POOLS, RECORDS, SHEETS, Formats, OutputFormat


def _offered(capsys: pytest.CaptureFixture[str], *command: str) -> list[str]:
    code, out, _ = run_cli(capsys, *command, "--help")
    assert code == 0
    return re.search(r"--format <([a-z|-]+)>", out).group(1).split("|")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (("sets",), RECORDS.names),
        (("cards",), RECORDS.names),
        (("products",), RECORDS.names),
        (("minigames",), RECORDS.names),
        (("open",), PACKS.names + FRAMES.names),
        (("odds",), RECORDS.ordered("table", "text") + FRAMES.names),
        (("deal",), (*SHEETS.names, "json")),
        (("pool",), POOLS.names),
        (("db", "info"), ("text", "json")),
        (("validate",), ("text", "json")),
        (("simulate",), ("text", "json")),
    ],
)
def test_the_cli_offers_the_formats_of_its_registries(
    capsys: pytest.CaptureFixture[str], command: tuple[str, ...], expected: tuple[str, ...]
) -> None:
    assert tuple(_offered(capsys, *command)) == expected


def test_the_registries_hold_what_each_kind_writes() -> None:
    assert RECORDS.names == ("json", "jsonl", "csv", "table", "text")
    assert PACKS.names == ("text", "json", "jsonl", "csv", "draftmancer", "cubecobra")
    assert FRAMES.names == ("parquet", "arrow") and all(f.binary for f in FRAMES)
    assert SHEETS.names == ("text", "md", "html", "pdf") and SHEETS.image_formats == ("html",)
    assert POOLS.names == ("text", "md", "html", "json", "decklist", "arena", "moxfield",
                           "mtgo", "dek", "cockatrice", "xmage", "forge", "mtgjson", "pdf",
                           "registration-html", "registration-pdf", "registration-csv")  # fmt: skip
    binary = {(r.kind, f.name) for r in (SHEETS, POOLS) for f in r if f.binary}
    assert binary == {("sheets", "pdf"), ("pools", "pdf"), ("pools", "registration-pdf")}
    for registry in (RECORDS, PACKS, FRAMES, SHEETS, POOLS):
        for fmt in registry:
            assert callable(fmt.renderer()), (registry.kind, fmt.name)


def test_the_service_types_are_the_registry() -> None:
    from boosterkit.service.pool_routes import PoolRequest

    schema = PoolRequest.model_json_schema()["properties"]["format"]
    # JSON first, as the answers list them; every registered pool format
    assert schema["enum"][:5] == ["json", "html", "text", "md", "decklist"]
    assert set(schema["enum"]) == set(POOLS.names)
    with pytest.raises(ValueError, match="only HTML pools carry card images"):
        PoolRequest(set="afr", players=1, format="md", images=True)


def test_images_need_a_format_that_carries_them() -> None:
    """Card images only print on HTML: the one rule every front end words its own way."""
    from boosterkit.cli.render import check_images

    assert SHEETS.refuses_images("html") is None
    assert SHEETS.refuses_images("md") == "only HTML sheets carry card images"
    assert POOLS.refuses_images("decklist") == "only HTML pools carry card images"
    assert POOLS.refuses_images("no-such") == "only HTML pools carry card images"
    with pytest.raises(InputError, match=r"^--images: only HTML pools carry card images "):
        check_images(POOLS, "text", True)
    check_images(POOLS, "text", False)
    check_images(SHEETS, "html", True)


def test_a_registry_refuses_unknown_and_twice_registered_names() -> None:
    kind = Formats("things", "render(thing) -> str")
    kind.register(OutputFormat("a", "boosterkit.serialize:to_json", "txt"))
    kind.register(OutputFormat("b", "boosterkit.serialize:to_json", "txt"))
    with pytest.raises(ValueError, match="registered already"):
        kind.register(OutputFormat("a", "boosterkit.serialize:cell", "txt"))
    with pytest.raises(InputError, match=r"format 'c': expected one of a, b"):
        kind.get("c")
    assert kind.ordered("b") == ("b", "a") and kind.only("a") == ("a",)
    with pytest.raises(InputError):
        kind.only("c")


#: Registers a pool format in a fresh process, then uses it from the library, the CLI and the
#: service's model: nothing else is edited.
ADD_A_FORMAT = """
import sys, types
from boosterkit.formats import POOLS, OutputFormat

plugin = types.ModuleType("count_pools")
plugin.count_pools = lambda data, images=None, pool=None: "".join(
    f"player {p['player']}: {sum(c['count'] for c in p['cards'])} cards\\n"
    for p in ([pool] if pool is not None else data["pools"]))
sys.modules["count_pools"] = plugin
POOLS.register(OutputFormat("count", "count_pools:count_pools", "txt"))

from typer.testing import CliRunner
from boosterkit.cli.app import app
from boosterkit.generator.pools import extension, render_pool, render_pools
from boosterkit.service.pool_routes import PoolRequest

data = {"pools": [{"player": 1, "cards": [{"count": 2}, {"count": 3}]}]}
assert render_pools(data, "count") == "player 1: 5 cards\\n"
assert render_pool(data, data["pools"][0], "count") == "player 1: 5 cards\\n"
assert extension("count") == "txt"
assert PoolRequest(set="afr", players=1, format="count").format == "count"
help_text = CliRunner().invoke(app, ["pool", "--help"], prog_name="boosterkit").output
assert "<" + "|".join(POOLS.names) + ">" in help_text and "|count>" in help_text, help_text
wrong = CliRunner().invoke(app, ["pool", "afr", "-n", "1", "-f", "count", "--images"])
assert "only HTML pools carry card images (--format html, not count)" in str(wrong.exception)
print("ok")
"""


def test_adding_an_output_format_is_one_registration() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", ADD_A_FORMAT], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
