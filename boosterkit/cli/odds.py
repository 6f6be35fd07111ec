"""``boosterkit odds SET``: each card's, rarity's and foil's odds per pack or per box."""

from __future__ import annotations

from enum import Enum
from typing import Any

import typer

from boosterkit.cli import render
from boosterkit.cli.options import (
    JSON,
    OUTPUT,
    SET_ARG,
    OddsFormat,
    fmt_option,
    jobs_option,
    pick_format,
    product_option,
)
from boosterkit.formats import FRAMES

#: The formats that write the odds' flat rows (``odds_rows``), not the odds themselves.
ROW_FORMATS = ("jsonl", "csv")


class Per(str, Enum):
    pack = "pack"
    box = "box"


def _pct(p: float) -> str:
    return f"{100 * p:.3f}%" if p < 0.9995 or p == 1 else f"{100 * p:.4f}%"


def _one_in(p: float) -> str:
    return "-" if p <= 0 else ("1" if p >= 1 else f"1 in {1 / p:,.1f}")


def _cells(r: dict[str, Any], sim: bool) -> dict[str, Any]:
    out = {
        "expected": f"{r['expected']:.4f}",
        "chance": _pct(r["chance"]),
        "odds": _one_in(r["chance"]),
        "method": r["method"],
    }
    if sim:
        z = r["z_chance"]
        out.update({"observed": _pct(r["observed_chance"]), "z": "-" if z is None else f"{z:+.2f}"})
    return out


def odds_text(data: dict[str, Any]) -> str:
    """The odds as two tables: groups (rarity/kind and foil), then cards."""
    sim = data["simulation"]
    unit = "pack" if data["per"] == "pack" else f"box of {data['box_size']} packs"
    head = [f"{data['product']} ({data['name']}): odds per {unit}"]
    if sim:
        head.append(
            f"observed: {sim['packs']} packs of seed {sim['seed']} ({sim['units']} "
            f"{data['per']}s); z = deviation of the observed chance in standard errors"
        )
    groups = [
        {"group": g["group"], "foil": g["foil"], **_cells(g, bool(sim))} for g in data["groups"]
    ]
    cards = [
        {
            "name": c["name"] or f"({c['kind']})",
            "set": c["set"],
            "number": c["collector_number"],
            "rarity": c["group"],
            "foil": c["foil"],
            **_cells(c, bool(sim)),
        }
        for c in data["cards"]
    ]
    notes = (
        "method exact: computed exactly from the product's weights; integral: colour-"
        "balanced sheets, an exact formula integrated numerically (to ~1e-12); approx: "
        "an approximation (see docs/commands.md, odds)"
    )
    return "\n\n".join(["\n".join(head), render.table(groups), render.table(cards), notes])


def odds_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Flat rows for csv/parquet/arrow: the group rows, then the card rows (``level``)."""
    base = {"set": data["set"], "product": data["product"], "per": data["per"]}
    return [{**base, "level": "group", **g} for g in data["groups"]] + [
        {**base, "level": "card", **c} for c in data["cards"]
    ]


def register(app: typer.Typer) -> None:
    """Add ``odds`` to ``app``."""

    @app.command("odds")
    def odds_cmd(
        ctx: typer.Context,
        set_code: str = SET_ARG,
        product: str | None = product_option("Default: as `open`."),
        per: Per = typer.Option(Per.pack, "--per", help="Figures per pack or per box."),
        card: str | None = typer.Option(
            None, "--card", metavar="NAME", help="Only the cards of this name."
        ),
        box_size: int | None = typer.Option(
            None,
            "--box-size",
            metavar="N",
            help="Packs per box (default: data/boosters/boxes.yaml).",
        ),
        simulate: int = typer.Option(
            0, "--simulate", metavar="N", help="Also open N seeded packs: observed vs exact."
        ),
        seed: int = typer.Option(0, "--seed", metavar="SEED", help="Seed of the simulated packs."),
        jobs: int = jobs_option(
            "opening the --simulate packs, in parts whose counts are summed: the output is "
            "the same byte for byte. Fewer than 150,000 packs a worker: one process."
        ),
        fmt: OddsFormat = fmt_option("table"),
        json_: bool = JSON,
        output: str | None = OUTPUT,
    ) -> None:
        """Exact odds of each card, rarity and foil per pack or box, from the compiled product."""
        from boosterkit.generator.odds import odds
        from boosterkit.jobs import keep_freed

        fmt = pick_format(fmt, json_)
        if simulate:
            keep_freed()  # batches of simulated packs: their memory reused, not faulted in
        with render.flags(_FLAGS):
            data = odds(set_code, product, per.value, card, ctx.obj, box_size=box_size,
                        simulate=simulate, seed=seed, jobs=jobs)  # fmt: skip
        if fmt in FRAMES:
            from boosterkit.generator.frames import rows_frame, write_frame

            frame = rows_frame(odds_rows(data))
            with render.output(output, fmt) as out:
                write_frame(frame, fmt, out)
            return
        with render.output(output) as out:  # table and text: odds_text; json: the odds
            render.emit(
                odds_rows(data) if fmt in ROW_FORMATS else data, fmt, text=odds_text, out=out
            )


#: ``odds``'s arguments as the library names them → as the command line spells them.
_FLAGS = {"card": "--card", "box_size": "--box-size", "simulate": "--simulate", "seed": "--seed",
          "jobs": "--jobs"}  # fmt: skip
