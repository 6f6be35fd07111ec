"""``boosterkit sets``, ``cards``, ``db info``, ``db rebuild``: looking at the database."""

from __future__ import annotations

from typing import Any

import typer

from boosterkit import config
from boosterkit.cli.render import Format, echo_err, emit

_FMT = typer.Option(Format.table, "--format", help="Output format.")
_JSON = typer.Option(False, "--json", help="Same as --format json.")


def _fmt(fmt: Format, json_: bool) -> Format:
    return Format.json if json_ else fmt


def _info_text(info: dict[str, Any]) -> str:
    lines = [f"database    {info['path']}", f"schema      v{info['schema_version']}"]
    lines += [f"{t:<12}{n}" for t, n in info["counts"].items()]
    if info["cards_by_kind"]:
        lines.append("kinds       " + ", ".join(f"{k} {n}" for k, n in info["cards_by_kind"].items()))
    for r in info["last_runs"]:
        lines.append(
            f"run {r['id']:<4} {r['status']:<6} {r['source']:<14} {r['target'] or '':<20} "
            f"{r['sets']} sets, {r['cards']} cards  {r['finished_at'] or ''}"
            + (f"  ({r['message']})" if r["status"] != "ok" and r["message"] else "")
        )
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    """Add ``sets``, ``cards`` and the ``db`` group to ``app``."""

    @app.command()
    def sets(
        ctx: typer.Context,
        set_type: str | None = typer.Option(None, "--type", help="Only this set type, e.g. expansion, token, minigame."),
        fmt: Format = _FMT,
        json_: bool = _JSON,
    ) -> None:
        """List the known sets (newest first) with how many printings are loaded."""
        from boosterkit.pipeline import db, queries

        path = config.db_path(ctx.obj["db"])
        with db.connect(path, read_only=True) as con:
            emit(queries.list_sets(con, set_type), _fmt(fmt, json_), columns=queries.SET_FIELDS)

    @app.command()
    def cards(
        ctx: typer.Context,
        set_code: str = typer.Argument(..., help="Set code (case-insensitive)."),
        rarity: str | None = typer.Option(None, "--rarity", help="common, uncommon, rare, mythic, special or bonus."),
        fmt: Format = _FMT,
        json_: bool = _JSON,
    ) -> None:
        """List the printings of a set in collector-number order."""
        from boosterkit.pipeline import db, queries

        path = config.db_path(ctx.obj["db"])
        with db.connect(path, read_only=True) as con:
            emit(queries.list_cards(con, set_code, rarity), _fmt(fmt, json_))

    db_app = typer.Typer(help="The database file: what is in it, rebuild it from the cache.", no_args_is_help=True,
                         rich_markup_mode=None)
    app.add_typer(db_app, name="db")

    @db_app.command("info")
    def info(ctx: typer.Context,
             fmt: Format = typer.Option(Format.text, "--format", help="Output format."),
             json_: bool = _JSON) -> None:
        """Path, schema version, row counts and the last sync runs."""
        from boosterkit.pipeline import db, queries

        path = config.db_path(ctx.obj["db"])
        with db.connect(path, read_only=True) as con:
            emit(queries.db_info(con, path), _fmt(fmt, json_), text=_info_text)

    @db_app.command("rebuild")
    def rebuild_cmd(ctx: typer.Context, json_: bool = typer.Option(
            False, "--json", help="Print the summary as JSON.")) -> None:
        """Re-derive every table from the cached files of past syncs and imports (no network)."""
        from boosterkit.pipeline import db, rebuild

        path = config.db_path(ctx.obj["db"])
        with db.connect(path) as con:
            result = rebuild.rebuild(con, config.cache_dir(path))
        echo_err(f"rebuilt from {result['runs']} runs ({result['files']} files): "
                 f"{result['sets']} sets, {result['cards']} cards in {result['seconds']:.1f} s")
        if json_:
            emit(result, Format.json)
