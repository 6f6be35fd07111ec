"""``boosterkit pool check DECK``: a registered deck against the seeded pool it was built from
(``generator/deckcheck.py``): exit 0 when the pool supplies every card, 1 listing those it
cannot, 2 for a deck or pool that cannot be read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from boosterkit.cli import render
from boosterkit.cli.options import JSON, OUTPUT, TextFormat, fmt_option, pick_format

#: Largest deck file read (a deck list is a few kB).
MAX_DECK_BYTES = 1 << 20


def _read(path: Path) -> str:
    from boosterkit.errors import InputError

    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_DECK_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if len(raw) > MAX_DECK_BYTES:
        raise InputError(f"{path}: larger than {MAX_DECK_BYTES // 1024} kB: not a deck list")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text: not a deck list") from None


def verdict(result: dict[str, Any]) -> str:
    """The check in words: one line when the deck is good, else one per card and problem."""
    head = (
        f"{result['deck']}: player {result['player']}'s pool ({result['pool']}, event seed "
        f"{result['event_seed']}): main deck {result['main']} cards, sideboard "
        f"{result['sideboard']}"
    )
    if result["valid"]:
        return head + ": the pool supplies every card"
    lines = [head + ":"]
    if result["missing"]:
        n = len(result["missing"])
        lines.append(f"  {n} card{'s' if n != 1 else ''} the pool cannot supply:")
        lines += [f"    {m['name']}: {m['deck']} in the deck, {m['pool']} in the pool"
                  for m in result["missing"]]  # fmt: skip
    lines += [f"  {p}" for p in result["problems"]]
    return "\n".join(lines)


def check_cmd(
    ctx: typer.Context,
    deck: Path = typer.Argument(
        ...,
        metavar="DECK",
        help="A deck list: Arena, Moxfield or MTGO text, MTGO .dek, Cockatrice .cod, XMage or "
        "Forge .dck, MTGJSON deck JSON.",
    ),  # fmt: skip
    set_code: str | None = typer.Argument(None, metavar="SET", help="The pool's set (or --packs)."),
    packs: str | None = typer.Option(
        None, "--packs", metavar="N|SPEC", help="The pool's packs, as `pool --packs` had them."
    ),
    product: str | None = typer.Option(
        None, "--product", "-p", metavar="PRODUCT", help="The pool's product, as `pool` had it."
    ),
    chaos: str | None = typer.Option(None, "--chaos", metavar="SETS", help="As `pool --chaos`."),
    duplicate: bool = typer.Option(False, "--duplicate", help="As `pool --duplicate`."),
    seed: int | None = typer.Option(None, "--seed", metavar="SEED", help="The event seed."),
    player: int | None = typer.Option(None, "--player", metavar="N", help="The player's number."),
    fmt: TextFormat = fmt_option("text"),
    json_: bool = JSON,
    output: str | None = OUTPUT,
) -> None:
    """Check a registered deck against its seeded pool: exit 0 when the pool supplies every
    card (basic lands aside) and the main deck has 40, 1 listing every card it cannot."""
    from boosterkit.generator.deckcheck import check_deck
    from boosterkit.generator.events import parse_pool_args, player_pool

    given = {"set": set_code, "packs": packs, "product": product, "chaos": chaos,
             "duplicate": duplicate or None, "seed": seed, "player": player}  # fmt: skip

    def pool_of(words: list[str]) -> Any:
        args = {**parse_pool_args(words), **{k: v for k, v in given.items() if v is not None}}
        with render.flags({"player": "--player", "packs": "--packs", "chaos": "--chaos"}):
            return player_pool(args, db=ctx.obj)

    result = check_deck(_read(deck), str(deck), pool_of)
    with render.output(output) as out:
        render.emit(result, pick_format(fmt, json_), out=out, text=verdict)
    if not result["valid"]:
        raise typer.Exit(1)
