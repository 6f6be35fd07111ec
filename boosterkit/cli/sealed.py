"""Sealed products on the command line: ``import sealed-contents``, ``open SET --product NAME``
(a box, a bundle, a prerelease pack…) and the sealed part of ``products SET``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from boosterkit.cli.options import JSON, OUTPUT, TextFormat, fmt_option, pick_format
from boosterkit.cli.render import echo_err, flags, seed_note, summary
from boosterkit.cli.render import output as output_to
from boosterkit.errors import NotFoundError
from boosterkit.text import plural


def sealed_contents_line(s: dict[str, Any]) -> str:
    """The one-line human summary of ``import_sealed_contents``."""
    sets = ", ".join(f"{code} {n}" for code, n in s["sets"].items())
    line = f"imported {plural(s['products'], 'sealed product')}" + (f" ({sets})" if sets else "")
    if s["without_contents"]:
        line += (
            f"; {plural(s['without_contents'], 'product')} named without contents "
            "(this file lists the products only): not imported"
        )
    return line + "; list them with `boosterkit products SET --sealed`"


def sealed_contents_cmd(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(
        ...,
        metavar="FILE",
        help="MTGJSON sealed-content YAML files (mtg-sealed-content data/contents/SET.yaml), "
        "MTGJSON set files whose sealedProduct entries carry contents, or folders of them.",
    ),
    fmt: TextFormat = fmt_option("text"),
    json_: bool = JSON,
    out: str | None = OUTPUT,
) -> None:
    """Import what each sealed product holds (boxes, bundles, prerelease packs, kits)."""
    from boosterkit.pipeline.sealed_contents import import_sealed_contents

    with ctx.obj.write() as con:
        result = import_sealed_contents(con, files, cache=ctx.obj.cache_dir)
    summary(result, pick_format(fmt, json_), out, sealed_contents_line)


def open_sealed_product(
    ctx: typer.Context,
    what: tuple[str, str | None, int],
    seeds: tuple[int | None, int],
    fmt: str,
    output: str | None,
    csv_raw: bool,
    missing: NotFoundError,
) -> None:
    """``open SET --product NAME -n COUNT`` (``what``) where NAME is a sealed product (a box,
    a bundle, a prerelease pack): its packs and loose cards in the pack format ``fmt``, then
    one stderr line saying what it held and what was not opened. NAME no sealed product
    either: ``missing`` (the booster product's error), naming the sealed listing if any."""
    from boosterkit.formats import FRAMES
    from boosterkit.generator.output import write_packs
    from boosterkit.generator.packexports import tally
    from boosterkit.generator.sealed import find_sealed, open_sealed, sealed_names

    set_code, product, count = what
    if not product or find_sealed(ctx.obj, set_code, product) is None:
        if product and sealed_names(ctx.obj, set_code):
            code = set_code.strip().lower()
            raise NotFoundError(
                f"{missing}; nor is it one of {code}'s sealed products "
                f"(`boosterkit products {code} --sealed`)"
            ) from missing
        raise missing
    with flags({"count": "-n/--count"}):
        opening = open_sealed(set_code, product, count, seeds[1], db=ctx.obj)
    binary = fmt if fmt in FRAMES else None
    counted = tally(fmt)
    with output_to(output, binary) as out:
        if not binary:
            seed_note(*seeds)
        write_packs(counted.watch(opening.packs) if counted else opening.packs, fmt, out,
                    csv_raw=csv_raw)  # fmt: skip
    if binary:
        seed_note(*seeds)
    echo_err(opening.note())
    if counted and (note := counted.note()):
        echo_err(note)


SEALED_FIELDS = ("name", "source", "opens", "packs", "cards", "unopened")


def _sealed_rows(data: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "name": p["name"],
            "source": p["source"],
            "opens": p["opens"],
            "packs": " + ".join(f"{n} {code}" for code, n in p["packs"].items()),
            "cards": len(p["cards"]),
            "unopened": sum(u["count"] for u in p["unopened"]),
        }
        for p in data
    ]


def list_sealed(ctx: typer.Context, set_code: str, fmt: str, out: str | None) -> None:
    """``products SET --sealed``: the set's sealed products in a record format."""
    from boosterkit.cli.render import emit
    from boosterkit.generator.sealed import sealed_products, sealed_text

    data = sealed_products(ctx.obj, set_code)
    none = f"{set_code.strip().lower()}: no sealed products loaded (`boosterkit import sealed-contents FILE`)"
    with output_to(out) as f:
        emit(
            data,
            fmt,
            rows=_sealed_rows,
            columns=SEALED_FIELDS,
            out=f,
            text=lambda d: "\n".join(sealed_text(p) for p in d) or none,
        )


def sealed_section(ctx: typer.Context, set_code: str) -> str:
    """The end of ``products SET``'s text: the set's sealed products, a line each (empty
    when none is loaded)."""
    from boosterkit.generator.sealed import sealed_products, sealed_text

    found = sealed_products(ctx.obj, set_code)
    if not found:
        return ""
    lines = "\n".join(f"  {sealed_text(p)}" for p in found)
    return (
        f"\n\nSealed products ({len(found)}; `open {set_code.strip().lower()} --product NAME` "
        f"opens one, `products {set_code.strip().lower()} --sealed` lists them as records):\n{lines}"
    )
