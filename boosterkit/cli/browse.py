"""``boosterkit sets``, ``cards``, ``db info``, ``db rebuild``: looking at the database."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterable, Sequence
from typing import Any

import typer

from boosterkit.cli.options import (
    JSON,
    OUTPUT,
    HelpGroup,
    RecordFormat,
    TextFormat,
    fmt_option,
    pick_format,
)
from boosterkit.cli.render import cell, emit, flags, output, summary
from boosterkit.pipeline import fields

_FMT = fmt_option("table")
_LIMIT = typer.Option(None, "--limit", "-n", min=0, metavar="N", help="At most N rows.")


#: What ``sets`` and ``cards`` show in a table without ``--columns`` (``--json`` has all).
SET_TABLE = ("code", "name", "set_type", "released_at", "parent_set_code", "cards")
CARD_TABLE = ("set_code", "collector_number", "name", "mana_cost", "type_line", "rarity")
_MIN_WIDTH = 8
#: Short table headings (the data keeps its field names).
_LABELS = {
    "set_code": "set",
    "collector_number": "number",
    "released_at": "released",
    "parent_set_code": "parent",
    "set_type": "type",
    "mana_cost": "cost",
    "type_line": "type",
    "mana_value": "mv",
}


def fit(rows: list[dict[str, Any]], columns: Sequence[str], width: int) -> list[dict[str, str]]:
    """``rows`` as table cells cut (with "…") so a table of ``columns`` fits ``width``
    characters: the widest column is narrowed first, none below 8 characters."""
    cells = [{c: cell(r.get(c)) for c in columns} for r in rows]
    widths = {c: max([len(c)] + [len(x[c]) for x in cells]) for c in columns}
    while sum(widths.values()) + 2 * (len(columns) - 1) > width:
        widest = max(columns, key=lambda c: widths[c])
        if widths[widest] <= _MIN_WIDTH:
            break
        widths[widest] -= 1
    for x in cells:
        for c in columns:
            if len(x[c]) > widths[c]:
                x[c] = x[c][: widths[c] - 1] + "…"
    return cells


def _show(
    data: list[dict[str, Any]],
    fmt: str,
    columns: str | None,
    default: Sequence[str],
    path: str | None,
) -> None:
    """Print listing rows to stdout or ``-o`` ``path``: a table (``table``/``text``) of
    ``default`` columns (cut to the terminal when stdout is one), or ``fmt`` of the rows as
    the library returned them."""
    with output(path) as out:
        if fmt not in ("table", "text"):
            emit(data, fmt, out=out)
            return
        cols = (
            list(data[0]) if columns and data else [c for c in default if not data or c in data[0]]
        )
        labels = [_LABELS.get(c, c) if labels_unique(cols) else c for c in cols]
        rows: list[dict[str, Any]] = [{lab: r.get(c) for lab, c in zip(labels, cols)} for r in data]
        if out is sys.stdout and sys.stdout.isatty():
            rows = fit(rows, labels, shutil.get_terminal_size((100, 24)).columns)
        emit(rows, "table", columns=labels, out=out)


def labels_unique(cols: Sequence[str]) -> bool:
    """Whether the short headings of ``cols`` are all different (``set_type`` and
    ``type_line`` both shorten to ``type``)."""
    short = [_LABELS.get(c, c) for c in cols]
    return len(set(short)) == len(short)


def _info_text(info: dict[str, Any]) -> str:
    lines = [f"database    {info['path']}"]
    if info.get("sample"):
        lines.append(f"sample      the bundled sample ({info['sample'].upper()}), read-only")
    lines.append(f"schema      v{info['schema_version']}")
    lines += [f"{t:<12}{n}" for t, n in info["counts"].items()]
    if info["cards_by_kind"]:
        lines.append(
            "kinds       " + ", ".join(f"{k} {n}" for k, n in info["cards_by_kind"].items())
        )
    for r in info["last_runs"]:
        lines.append(
            f"run {r['id']:<4} {r['status']:<6} {r['source']:<14} {r['target'] or '':<20} "
            f"{r['sets']} sets, {r['cards']} cards  {r['finished_at'] or ''}"
            + (f"  ({r['message']})" if r["status"] != "ok" and r["message"] else "")
        )
    return "\n".join(lines)


def _rebuilt_line(r: dict[str, Any]) -> str:
    return (
        f"rebuilt from {r['runs']} runs ({r['files']} files): "
        f"{r['sets']} sets, {r['cards']} cards in {r['seconds']:.1f} s"
    )


def _columns(names: Iterable[str]) -> Any:
    """``--columns``: which of ``names`` to show."""
    return typer.Option(
        None, "--columns", metavar="COLUMNS", help=f"Comma-separated, of: {', '.join(names)}."
    )


def sets_cmd(
    ctx: typer.Context,
    set_type: str | None = typer.Option(
        None,
        "--type",
        metavar="TYPE",
        help="Only this set type, e.g. expansion, token, minigame.",
    ),
    columns: str | None = _columns(fields.SET_FIELDS),
    limit: int | None = _LIMIT,
    fmt: RecordFormat = _FMT,
    json_: bool = JSON,
    out: str | None = OUTPUT,
) -> None:
    """List the known sets (newest first) with how many printings are loaded."""
    from boosterkit.pipeline import queries

    with ctx.obj.read() as con:
        data = queries.list_sets(con, set_type, columns, limit)
    _show(data, pick_format(fmt, json_), columns, SET_TABLE, out)


def cards_cmd(
    ctx: typer.Context,
    set_code: str | None = typer.Argument(
        None, metavar="SET", help="Set code (case-insensitive); optional with --q."
    ),
    rarity: str | None = typer.Option(
        None,
        "--rarity",
        metavar="RARITY",
        help="common, uncommon, rare, mythic, special or bonus.",
    ),
    q: str | None = typer.Option(
        None,
        "--q",
        metavar="QUERY",
        help="Scryfall-style search: 't:creature c:g mv<=3', r:mythic, \"name\"…",
    ),
    columns: str | None = _columns(fields.CARD_COLUMNS),
    limit: int | None = _LIMIT,
    fmt: RecordFormat = _FMT,
    json_: bool = JSON,
    out: str | None = OUTPUT,
) -> None:
    """List the printings of a set in collector-number order, or those a search finds."""
    from boosterkit.pipeline import queries

    with (
        ctx.obj.read() as con,
        flags({"q": "--q", "columns": "--columns", "set": "SET", "rarity": "--rarity"}),
    ):
        data = queries.list_cards(con, set_code, rarity, q, columns, limit)
    _show(data, pick_format(fmt, json_), columns, CARD_TABLE, out)


def info_cmd(
    ctx: typer.Context,
    fmt: TextFormat = fmt_option("text"),
    json_: bool = JSON,
    out: str | None = OUTPUT,
) -> None:
    """Path, schema version, row counts and the last sync runs."""
    from boosterkit.pipeline import queries

    with ctx.obj.read() as con:
        data = queries.db_info(con, ctx.obj.path)
    with output(out) as f:
        emit(data, pick_format(fmt, json_), text=_info_text, out=f)


def rebuild_cmd(
    ctx: typer.Context,
    fmt: TextFormat = fmt_option("text"),
    json_: bool = JSON,
    out: str | None = OUTPUT,
) -> None:
    """Re-derive every table from the cached files of past syncs and imports (no network)."""
    from boosterkit.pipeline import rebuild

    with ctx.obj.write() as con:
        result = rebuild.rebuild(con, ctx.obj.cache_dir)
    summary(result, pick_format(fmt, json_), out, _rebuilt_line)


def db_group() -> typer.Typer:
    """A new ``db`` command group with ``info`` and ``rebuild``."""
    db_app = typer.Typer(
        help="The database file: what is in it, rebuild it from the cache.",
        no_args_is_help=True,
        cls=HelpGroup,
        rich_markup_mode=None,
    )
    db_app.command("info")(info_cmd)
    db_app.command("rebuild")(rebuild_cmd)
    return db_app


def register(app: typer.Typer) -> None:
    """Add ``sets``, ``cards`` and the ``db`` group to ``app``."""
    app.command("sets")(sets_cmd)
    app.command("cards")(cards_cmd)
    app.add_typer(db_group(), name="db")
