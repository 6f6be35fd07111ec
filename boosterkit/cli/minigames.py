"""``boosterkit minigames``, ``deal`` and ``validate``: the minigame catalogue, setups, checks."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Any

import typer

from boosterkit.cli import render
from boosterkit.cli.options import (
    GAME_PRODUCT,
    GAME_SET,
    JSON,
    OUTPUT,
    PLAYERS,
    RecordFormat,
    SheetFormat,
    TextFormat,
    fmt_option,
    pick_format,
)
from boosterkit.errors import InputError, escape_controls, json_reason
from boosterkit.formats import SHEETS
from boosterkit.minigames.labels import LANGS

#: ``--lang``: the choices are ``minigames.labels.LANGS``; mypy cannot list the members of an
#: enum made from a tuple, so they are read by value (``Lang("en")``).
Lang = Enum("Lang", [(code, code) for code in LANGS], type=str)  # type: ignore[misc]


def _rows(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    def players(g: dict[str, Any]) -> str:
        lo, hi = g["players_min"], g["players_max"]
        if lo is None:
            return "?"
        return f"{lo}+" if hi is None else (f"{lo}" if lo == hi else f"{lo}-{hi}")

    return [
        {
            "id": g["id"],
            "name": g["name"],
            "players": players(g),
            "packs": g["packs"] or "?",
            "minutes": g["minutes"],
            "needs": "; ".join(_need(c) for c in g["components"]) or "-",
            "status": g["status"],
        }
        for g in games
    ]


def _need(c: dict[str, Any]) -> str:
    """A component in a few words: "d20 each", "basic lands from outside the packs ×15 each"."""
    many = f" ×{c['qty']}" if c["qty"] and c["qty"] > 1 else ""
    return f"{c['item']}{many}" + (" each" if c["per"] == "player" else "")


#: Largest setup file ``validate`` reads: a 100-player deal is about 1.5 MB of JSON.
MAX_SETUP_BYTES = 16 * 1024 * 1024


def read_text_file(
    path: Path, what: str = "a setup file (a 100-player deal is about 1.5 MB): not a setup"
) -> str:
    """A setup or moves file as text; ``InputError`` (one line) if unreadable or larger than
    ``MAX_SETUP_BYTES`` (read no further: ``/dev/zero`` ends)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_SETUP_BYTES + 1)
        if len(data) > MAX_SETUP_BYTES:
            raise InputError(
                f"{path}: larger than {MAX_SETUP_BYTES // 2**20} MiB, the limit for {what}"
            )
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from exc


def load_setup_json(path: Path) -> Any:
    """The parsed JSON of a setup file; ``InputError`` (one line) if unreadable, larger than
    ``MAX_SETUP_BYTES`` (read no further: ``/dev/zero`` ends) or not JSON."""
    text = read_text_file(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc
    except (RecursionError, ValueError) as exc:  # an integer of more than 4,300 digits too
        raise InputError(f"{path}: not a setup: {json_reason(exc)}") from None


def minigames_cmd(
    fmt: RecordFormat = fmt_option("table"),
    as_json: bool = JSON,
    output: str | None = OUTPUT,
) -> None:
    """The 28 minigames: id, name, players, packs and how sure the setup is (status C:
    confirmed by the printed rules; I: partly inferred)."""
    from boosterkit.minigames import list_minigames

    games = list_minigames()
    fmt = pick_format(fmt, as_json)
    with render.output(output) as out:
        render.emit(games, fmt, rows=_rows, out=out)
        if fmt in ("table", "text"):
            out.write(f"\n{STATUS_LEGEND}\n")


#: What the ``status`` column means, under the human forms of ``minigames``.
STATUS_LEGEND = (
    "status: C = the setup is confirmed by the rules printed on the card; I = partly "
    "inferred (the sheet says which part)"
)


def deal_cmd(
    ctx: typer.Context,
    game: str = typer.Argument(
        ..., metavar="GAME", help="Minigame id or name, e.g. roll-for-initiative."
    ),
    players: int = PLAYERS,
    set_code: str | None = GAME_SET,
    product: str | None = GAME_PRODUCT,
    seed: int | None = typer.Option(
        None, "--seed", metavar="SEED", help="Seed. Default: a random one, printed on stderr."
    ),
    strict_backs: bool | None = typer.Option(
        None,
        "--strict-backs/--no-strict-backs",
        help="Also remove double-faced Magic cards (they have no Magic back). Default: on for "
        "games whose cards lie face down, off elsewhere.",
    ),
    fmt: SheetFormat = fmt_option("text"),
    as_json: bool = JSON,
    lang: Lang = typer.Option(
        Lang("en"), "--lang", help="Language of the sheet (labels, zones, notes, card names)."
    ),
    output: str | None = OUTPUT,
    images: bool = typer.Option(
        False,
        "--images",
        help="HTML sheets: each card shown with its Scryfall image (from "
        "the database) and artist credit. Cards without one print as before.",
    ),
    paper: str = typer.Option("a4", "--paper", metavar="a4|letter", help="PDF paper size."),
) -> None:
    """Open the packs for a minigame and deal its setup: a sheet to print (also PDF), or JSON."""
    from boosterkit.generator import new_seed
    from boosterkit.minigames import deal
    from boosterkit.minigames.sheets import sheet_images
    from boosterkit.pdf import check_paper

    fmt, chosen = pick_format(fmt, as_json), new_seed() if seed is None else seed
    render.check_images(SHEETS, fmt, images)
    with render.flags({"players": "--players", "set": "--set", "lang": "--lang",
                       "paper": "--paper"}):  # fmt: skip
        paper = check_paper(paper)
        # the database is read only if the kept product and the options do not suffice
        setup = deal(
            ctx.obj, game, players, set_code, product, chosen, strict_backs, lang=lang.value
        )
        art = sheet_images(ctx.obj, setup) if images else None
        sheet = _sheet(setup, fmt, art, paper)
    render.seed_note(seed, chosen)
    render.images_note(images, art)
    binary = fmt if fmt in SHEETS and SHEETS.get(fmt).binary else None
    with render.output(output, binary) as out:
        if fmt == "json":
            render.emit(setup.to_dict(), "json", out=out)
        else:
            out.write(sheet)


def _sheet(setup: Any, fmt: str, art: Any, paper: str) -> str | bytes:
    """The sheet in ``fmt`` (nothing for ``json``, written from the setup): a binary
    format's bytes on ``paper``, else its text."""
    from boosterkit.minigames import render_sheet

    if fmt == "json":
        return ""
    found = SHEETS.get(fmt)
    if found.binary:
        document: bytes = found.renderer()(setup, art, paper=paper)
        return document
    return render_sheet(setup, fmt, art)


def validate_cmd(
    ctx: typer.Context,
    file: Path = typer.Argument(
        ..., metavar="FILE", help="A setup JSON file (from `deal --format json`)."
    ),
    exact: bool = typer.Option(
        False,
        "--exact",
        help="Also require a seeded setup to equal what `deal` gives for its "
        "minigame, players, set, product, seed and strict_backs, zone by zone.",
    ),
    fmt: TextFormat = fmt_option("text"),
    as_json: bool = JSON,
    output: str | None = OUTPUT,
) -> None:
    """Check a setup against its game's rules: exit 0 valid, 1 violations, 2 bad input."""
    from boosterkit.minigames import validate_setup

    data = load_setup_json(file)
    try:
        result = validate_setup(ctx.obj, data, exact=exact)
    except InputError as exc:  # the file is the "where" of a setup of the wrong shape
        raise InputError(f"{file}: {exc}", field=exc.field) from exc
    with render.output(output) as out:
        render.emit(
            result.to_dict(),
            pick_format(fmt, as_json),
            out=out,
            text=lambda _: escape_controls(_verdict(file, data, result), one_line=False),
        )
    if not result.valid:
        raise typer.Exit(1)


def _verdict(file: Path, data: dict[str, Any], result: Any) -> str:
    if result.valid:
        noun = "player" if data["players"] == 1 else "players"
        return f"{file}: valid {data['minigame']} setup for {data['players']} {noun}"
    return "\n".join(
        [f"{file}: {len(result.violations)} rule violation(s)"]
        + [f"  [{v.rule}] {v.message}" for v in result.violations]
    )


def register(app: typer.Typer) -> None:
    """Add ``minigames``, ``deal`` and ``validate`` to ``app``."""
    app.command("minigames")(minigames_cmd)
    app.command("deal")(deal_cmd)
    app.command("validate")(validate_cmd)
