"""``boosterkit import mtgjson FILE…`` and ``boosterkit import collation FILE``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from boosterkit import config
from boosterkit.cli.render import Format, echo_err, emit, flagged
from boosterkit.errors import BoosterkitError

_JSON = typer.Option(False, "--json", help="Also print the summary as JSON on stdout.")


def _unresolved(s: dict[str, Any]) -> str:
    if not s.get("unresolved"):
        return ""
    sets = ", ".join(f"{k} {v}" for k, v in list(s["unresolved_sets"].items())[:6])
    examples = ", ".join(s["unresolved_examples"][:3])
    return f"; {s['unresolved']} card references unresolved ({sets}; e.g. {examples})"


def mtgjson_line(s: dict[str, Any]) -> str:
    """The one-line human summary of ``import_mtgjson``."""
    line = (f"imported {len(s['sets'])} sets ({', '.join(s['sets'])}): {s['cards']} printings, "
            f"{s['tokens']} tokens, {s['minigames']} minigame cards, {len(s['products'])} products")
    return line + _unresolved(s)


def collation_line(s: dict[str, Any]) -> str:
    """The one-line human summary of ``import_collation``."""
    return (f"imported {s['products']} products, {s['sheets']} sheets, {s['sheet_cards']} sheet cards "
            f"({s['resolved']} resolved)") + _unresolved(s)


def register(app: typer.Typer) -> None:
    """Add the ``import`` group to ``app``."""
    group = typer.Typer(name="import", help="Import MTGJSON files and booster collation data.",
                        no_args_is_help=True, rich_markup_mode=None)

    @group.command("mtgjson")
    def mtgjson_cmd(
        ctx: typer.Context,
        files: list[Path] = typer.Argument(..., help="MTGJSON v5 set files or AllPrintings (.json/.json.gz)."),
        sets: list[str] = typer.Option(None, "--set", help="Only these set codes (AllPrintings); repeatable."),
        json_: bool = _JSON,
    ) -> None:
        """Import cards, tokens, minigame cards and booster products from MTGJSON files."""
        from boosterkit.pipeline import db
        from boosterkit.pipeline.mtgjson import import_mtgjson

        path = config.db_path(ctx.obj["db"])
        with db.connect(path) as con:
            try:
                summary = import_mtgjson(con, files, cache=config.cache_dir(path), sets=sets or None)
            except BoosterkitError as exc:
                raise flagged(exc, {"sets": "--set"}) from exc
        echo_err(mtgjson_line(summary))
        if json_:
            emit(summary, Format.json)

    @group.command("collation")
    def collation_cmd(
        ctx: typer.Context,
        file: Path = typer.Argument(..., help="A taw/magic-sealed-data export (sealed_basic_data.json)."),
        json_: bool = _JSON,
    ) -> None:
        """Import booster products (variants, sheets, weights) from magic-sealed-data."""
        from boosterkit.pipeline import db
        from boosterkit.pipeline.collation import import_collation

        path = config.db_path(ctx.obj["db"])
        with db.connect(path) as con:
            summary = import_collation(con, file, cache=config.cache_dir(path))
        echo_err(collation_line(summary))
        if json_:
            emit(summary, Format.json)

    app.add_typer(group, name="import")
