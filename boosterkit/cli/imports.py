"""``boosterkit import mtgjson FILE…``, ``import collation FILE`` and ``import sealed-contents
FILE…`` (``cli/sealed.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from boosterkit.cli.options import JSON, OUTPUT, HelpGroup, TextFormat, fmt_option, pick_format
from boosterkit.cli.render import flags, summary, unresolved_sets
from boosterkit.text import plural

_FMT = fmt_option("text")


def _shown(items: list[str], limit: int) -> str:
    return ", ".join(items[:limit]) + (", …" if len(items) > limit else "")


def _unresolved(s: dict[str, Any]) -> str:
    """What the unresolved references are, how they fill, and what opens now."""
    out = ""
    if s.get("unresolved"):
        sets = unresolved_sets(s["unresolved_sets"], s.get("unknown_set_sheets", ()))
        n = s["unresolved"]
        refs = "card reference is" if n == 1 else "card references are"
        out = (
            f"; {n:,} {refs} to cards of sets not loaded yet ({sets}): normal, they resolve "
            f"when those sets are loaded"
        )
    if s.get("fill"):
        out += f"; fill with: {_shown(s['fill'], 6)}"
    openable = s.get("openable")
    if openable is not None:
        out += (
            f"; products you can open now: {_shown(openable, 8)} ({len(openable)} in all: "
            "`boosterkit products SET`)"
            if openable
            else "; no product opens yet: load its set's cards (`boosterkit import mtgjson "
            "FILE…` or `boosterkit sync SET`)"
        )
    return out


def mtgjson_line(s: dict[str, Any]) -> str:
    """The one-line human summary of ``import_mtgjson``."""
    line = (
        f"imported {plural(len(s['sets']), 'set')} ({', '.join(s['sets'])}): "
        f"{plural(s['cards'], 'printing')}, {plural(s['tokens'], 'token')}, "
        f"{plural(s['minigames'], 'minigame card')}, {plural(len(s['products']), 'product')}"
    )
    return line + _unresolved(s)


def _kept(s: dict[str, Any]) -> str:
    """The stored products an import did not replace, and why."""
    kept = s.get("kept") or []
    if not kept:
        return ""
    shown = _shown(
        [f"{k['code']} ({k['unresolved_kept']:,} unresolved, this file's {k['unresolved_new']:,})"
         for k in kept], 4)  # fmt: skip
    return (
        f"; kept {plural(len(kept), 'stored product')} whose sheets resolve more cards here "
        f"than this file's: {shown}; import it again once their cards are loaded"
    )


def collation_line(s: dict[str, Any]) -> str:
    """The one-line human summary of ``import_collation``."""
    files = f" from {s['files']:,} files" if s.get("files", 1) > 1 else ""
    return (
        (
            f"imported {plural(s['products'], 'product')}{files}, {plural(s['sheets'], 'sheet')}, "
            f"{plural(s['sheet_cards'], 'sheet card')} ({s['resolved']:,} resolved)"
        )
        + _kept(s)
        + _unresolved(s)
    )


def register(app: typer.Typer) -> None:
    """Add the ``import`` group to ``app``."""
    group = typer.Typer(
        name="import",
        help="Import MTGJSON files, booster collation data and sealed-product contents.",
        no_args_is_help=True,
        rich_markup_mode=None,
        cls=HelpGroup,
    )

    @group.command("mtgjson")
    def mtgjson_cmd(
        ctx: typer.Context,
        files: list[Path] = typer.Argument(
            ..., metavar="FILE", help="MTGJSON v5 set files or AllPrintings (.json/.json.gz)."
        ),
        sets: list[str] = typer.Option(
            None, "--set", metavar="SET", help="Only these set codes (AllPrintings); repeatable."
        ),
        fmt: TextFormat = _FMT,
        json_: bool = JSON,
        out: str | None = OUTPUT,
    ) -> None:
        """Import cards, tokens, minigame cards and booster products from MTGJSON files."""
        from boosterkit.pipeline.mtgjson import import_mtgjson

        with ctx.obj.write() as con, flags({"sets": "--set"}):
            result = import_mtgjson(con, files, cache=ctx.obj.cache_dir, sets=sets or None)
        summary(result, pick_format(fmt, json_), out, mtgjson_line)

    @group.command("collation")
    def collation_cmd(
        ctx: typer.Context,
        file: Path = typer.Argument(
            ...,
            metavar="FILE",
            help="A taw/magic-sealed-data export: a file of products (sealed_basic_data.json), "
            "a file of one product, or a folder of such files (sealed-2025-07/).",
        ),
        fmt: TextFormat = _FMT,
        json_: bool = JSON,
        out: str | None = OUTPUT,
    ) -> None:
        """Import booster products (variants, sheets, weights) from magic-sealed-data."""
        from boosterkit.pipeline.collation import import_collation

        with ctx.obj.write() as con:
            result = import_collation(con, file, cache=ctx.obj.cache_dir)
        summary(result, pick_format(fmt, json_), out, collation_line)

    from boosterkit.cli.sealed import sealed_contents_cmd

    group.command("sealed-contents")(sealed_contents_cmd)
    app.add_typer(group, name="import")
