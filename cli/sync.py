"""``boosterkit sync``: Scryfall → the database (one library call per mode)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from boosterkit import config
from boosterkit.cli.options import DB, JSON, OUTPUT, TextFormat, fmt_option, pick_format
from boosterkit.cli.render import summary
from boosterkit.errors import InputError

#: ``pipeline.sync.BULK_TYPES``, for the help text without importing the HTTP client
#: (tests/test_startup.py checks they agree).
BULK_TYPES = ("default_cards", "all_cards", "oracle_cards", "unique_artwork")


def _progress() -> Callable[[str, int, int | None], None] | None:
    """A one-line progress display on a terminal; nothing when stderr is not a TTY."""
    if not sys.stderr.isatty():
        return None

    def show(what: str, done: int, total: int | None) -> None:
        of = f"/{total}" if total else ""
        unit = "bytes" if what in BULK_TYPES or what.startswith("MTGJSON") else "cards"
        sys.stderr.write(f"\r  {what}: {done}{of} {unit}\033[K")
        sys.stderr.flush()

    return show


def _on_wait() -> Callable[[str], None] | None:
    """What a fetch waits for (a 429, a retry), on the progress line; nothing off a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(note: str) -> None:
        sys.stderr.write(f"\r  {note}\033[K")
        sys.stderr.flush()

    return show


def _summary_line(s: dict[str, Any]) -> str:
    extra = "" if s.get("downloaded", True) else " (bulk file unchanged, download skipped)"
    from boosterkit.pipeline.sync import mtgjson_note

    line = f"synced {_n(s['sets'], 'set')}, {_n(s['cards'], 'card')} in {s['seconds']:.1f} s{extra}"
    return line + mtgjson_note(s.get("mtgjson"))


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def register(app: typer.Typer) -> None:
    """Add ``sync`` to ``app``."""

    @app.command()
    def sync(
        ctx: typer.Context,
        sets: list[str] = typer.Argument(
            None, metavar="SET", help="Set codes (case-insensitive), e.g. afr khm."
        ),
        set_list: bool = typer.Option(False, "--sets", help="Refresh the set list from /sets."),
        bulk: str | None = typer.Option(
            None, "--bulk", metavar="TYPE", help=f"Bulk file type: {', '.join(BULK_TYPES)}."
        ),
        file: Path | None = typer.Option(
            None, "--file", metavar="FILE", help="A local Scryfall JSON file (.json or .json.gz)."
        ),
        no_mtgjson: bool = typer.Option(
            False,
            "--no-mtgjson",
            help="With set codes: do not fetch MTGJSON's booster data (MTGJSON_API_URL).",
        ),
        fmt: TextFormat = fmt_option(TextFormat.text),
        json_: bool = JSON,
        out: str | None = OUTPUT,
        db_file: Path | None = DB,
    ) -> None:
        """Load Scryfall data (sets with all their printings, the set list, a bulk file or a local
        file); set codes also load MTGJSON's file of each set: its real booster products."""
        from boosterkit.pipeline import db
        from boosterkit.pipeline import sync as syncmod

        modes = sum([bool(sets), set_list, bulk is not None, file is not None])
        if modes != 1:
            raise InputError(
                "sync: give set codes, or exactly one of --sets, --bulk TYPE, --file PATH"
            )
        if no_mtgjson and not sets:
            raise InputError(
                "sync: --no-mtgjson goes with set codes (--sets, --bulk and --file never fetch MTGJSON)"
            )
        path = config.db_path(ctx.obj["db"])
        cache = config.cache_dir(path)
        if file is None:  # the HTTP client (requests, scrython) only for syncs that fetch
            from boosterkit.pipeline.scryfall.client import ScryfallClient
        client = None if file is not None else ScryfallClient(on_wait=_on_wait())
        con = db.connect(path)
        try:
            if file is not None:
                result = syncmod.sync_file(con, file, cache=cache)
            elif bulk is not None:
                result = syncmod.sync_bulk(
                    con, bulk, cache=cache, client=client, progress=_progress()
                )
            elif set_list:
                result = syncmod.sync_set_list(con, cache=cache, client=client)
            else:
                result = syncmod.sync_sets(
                    con,
                    sets,
                    cache=cache,
                    client=client,
                    progress=_progress(),
                    use_mtgjson=not no_mtgjson,
                )
        finally:
            con.close()
            if sys.stderr.isatty():
                sys.stderr.write("\r\033[K")
        summary(result, pick_format(fmt, json_).value, out, _summary_line)
