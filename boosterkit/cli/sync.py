"""``boosterkit sync``: Scryfall → the database (one library call per mode)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from boosterkit.cli.options import JSON, OUTPUT, TextFormat, fmt_option, pick_format
from boosterkit.cli.render import echo_err, summary
from boosterkit.errors import InputError

if TYPE_CHECKING:
    from boosterkit.pipeline.db import Connection
    from boosterkit.pipeline.scryfall.client import ScryfallClient

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


def _check_mode(sets: list[str], set_list: bool, bulk: str | None, file: Path | None) -> None:
    if sum([bool(sets), set_list, bulk is not None, file is not None]) != 1:
        raise InputError("sync: give set codes, or exactly one of --sets, --bulk TYPE, --file PATH")


@contextmanager
def _progress_line() -> Iterator[None]:
    """The block's progress line, cleared at the end (on a terminal)."""
    try:
        yield
    finally:
        if sys.stderr.isatty():
            sys.stderr.write("\r\033[K")


def _sync(
    con: Connection,
    cache: Path,
    client: ScryfallClient | None,
    sets: list[str],
    set_list: bool,
    bulk: str | None,
    file: Path | None,
    use_mtgjson: bool,
) -> dict[str, Any]:
    """The one ``pipeline.sync`` call the options ask for."""
    from boosterkit.pipeline import sync as syncmod

    if file is not None:
        return syncmod.sync_file(con, file, cache=cache)
    if bulk is not None:
        return syncmod.sync_bulk(con, bulk, cache=cache, client=client, progress=_progress())
    if set_list:
        return syncmod.sync_set_list(con, cache=cache, client=client)
    return syncmod.sync_sets(
        con, sets, cache=cache, client=client, progress=_progress(), use_mtgjson=use_mtgjson
    )


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
        fmt: TextFormat = fmt_option("text"),
        json_: bool = JSON,
        out: str | None = OUTPUT,
    ) -> None:
        """Load Scryfall data (sets with all their printings, the set list, a bulk file or a local
        file); set codes also load MTGJSON's file of each set: its real booster products."""
        _check_mode(sets, set_list, bulk, file)
        if no_mtgjson and not sets:
            raise InputError(
                "sync: --no-mtgjson goes with set codes (--sets, --bulk and --file never fetch MTGJSON)"
            )
        client = None  # the HTTP client (requests, scrython) only for syncs that fetch
        if file is None:
            from boosterkit.pipeline.scryfall.client import ScryfallClient

            client = ScryfallClient(on_wait=_on_wait())
        with _progress_line(), ctx.obj.write() as con:
            result = _sync(
                con, ctx.obj.cache_dir, client, sets, set_list, bulk, file, not no_mtgjson
            )
        for code in result.get("skipped_codes", []):
            echo_err(
                f"boosterkit: warning: skipped set code {code} from the upstream: not a set code "
                "(2–8 letters or digits); nothing was fetched, kept or loaded for it"
            )
        summary(result, pick_format(fmt, json_), out, _summary_line)
