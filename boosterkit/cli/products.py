"""``boosterkit products SET``: a set's booster products, their variants and extras in short."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from boosterkit.cli.options import (
    JSON,
    OUTPUT,
    SET_ARG,
    RecordFormat,
    fmt_option,
    pick_format,
    product_option,
)
from boosterkit.cli.render import echo_err, emit, output, unresolved_sets
from boosterkit.cli.sealed import list_sealed, sealed_section
from boosterkit.formats import literal

#: What ``--export`` writes a product as.
EXPORTS = ("draftmancer",)
if TYPE_CHECKING:
    Export = str
else:
    Export = literal(EXPORTS)

ROW_FIELDS = (
    "code",
    "kind",
    "source",
    "default",
    "variants",
    "sheets",
    "sheet_cards",
    "unresolved",
    "name",
)
_SHOW_VARIANTS = 4


def _slots(slots: dict[str, int]) -> str:
    return " + ".join(f"{n} {s}" for s, n in slots.items())


def _extra(e: dict[str, Any]) -> str:
    total = sum(o["weight"] for o in e["options"]) or 1
    opts = ", ".join(
        f"{o['kind']}{' ' + o['set'] if o['set'] else ''} {100 * o['weight'] / total:.4g}%"
        + ("" if o["resolved"] else " (not in database)")
        for o in e["options"]
    )
    unless = f", not with {'/'.join(e['unless_sheets'])}" if e["unless_sheets"] else ""
    return f"{e['name']} ({e['position']}{unless}): {opts}"


def product_text(p: dict[str, Any]) -> str:
    """One product as a few readable lines."""
    flags = [
        f for f, on in (("default", p["default"]), ("set default", p["default_for_set"])) if on
    ]
    head = f"{p['code']}  [{p['kind']}, {p['source']}{', ' + ', '.join(flags) if flags else ''}]  {p['name']}"
    lines = [head]
    variants = p["variants"]
    for v in variants[:_SHOW_VARIANTS]:
        lines.append(f"  {v['percent']:7.3f}%  {_slots(v['slots'])}")
    if len(variants) > _SHOW_VARIANTS:
        lines.append(f"  … {len(variants) - _SHOW_VARIANTS} more variants")
    for e in p["extras"]:
        lines.append(f"  extra {_extra(e)}")
    if p["unresolved"]:
        sets = unresolved_sets(p["unresolved_sets"], p["unknown_set_sheets"], limit=99)
        lines.append(f"  unresolved: {p['unresolved']} of {p['sheet_cards']} sheet cards ({sets})")
    for note in p.get("notes", ()):
        lines.append(f"  note: {note}")
    for hint in p["fill"]:
        lines.append(f"  fill with: {hint}")
    return "\n".join(lines)


def _rows(data: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**p, "variants": len(p["variants"]), "sheets": len(p["sheets"])} for p in data]


def _export(ctx: typer.Context, set_code: str, product: str | None, out: str | None) -> None:
    """``--export draftmancer``: the product as a Draftmancer custom card list."""
    from boosterkit.generator.draftmancer import draftmancer_list

    text, note = draftmancer_list(ctx.obj, set_code, product)
    with output(out) as f:
        f.write(text)
    if note:
        echo_err(note)


def register(app: typer.Typer) -> None:
    """Add ``products`` to ``app``."""

    @app.command()
    def products(
        ctx: typer.Context,
        set_code: str = SET_ARG,
        fmt: RecordFormat = fmt_option("text"),
        json_: bool = JSON,
        out: str | None = OUTPUT,
        export: Export | None = typer.Option(
            None,
            "--export",
            help="Write a product for another tool instead: draftmancer, a Draftmancer custom "
            "card list (its variants as weighted layouts, its sheets) that drafts with "
            "boosterkit's collation.",
        ),
        product: str | None = product_option("With --export. Default: as `open`."),
        sealed: bool = typer.Option(
            False,
            "--sealed",
            help="List the set's sealed products instead (boxes, bundles, prerelease packs: "
            "what each holds, and what boosterkit does not open). The text listing ends with them.",
        ),
    ) -> None:
        """List a set's booster products: kind, source, variants, extras, unresolved cards."""
        from boosterkit.generator.products import set_products

        if export is not None:
            _export(ctx, set_code, product, out)
            return
        if sealed:
            list_sealed(ctx, set_code, pick_format(fmt, json_), out)
            return

        data, reason = set_products(ctx.obj, set_code)
        none = f"{set_code.strip().lower()}: no products: {reason}"
        with output(out) as f:
            emit(
                data,
                pick_format(fmt, json_),
                rows=_rows,
                columns=ROW_FIELDS,
                out=f,
                text=lambda d: (
                    ("\n\n".join(product_text(p) for p in d) or none)
                    + sealed_section(ctx, set_code)
                ),
            )
