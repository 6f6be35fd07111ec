"""``boosterkit open``: seeded packs of a set's product, streamed in the chosen format."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from boosterkit.cli import render
from boosterkit.cli.options import (
    JSON,
    OUTPUT,
    SET_ARG,
    PackFormat,
    fmt_option,
    jobs_option,
    pick_format,
    product_option,
)
from boosterkit.cli.sealed import open_sealed_product
from boosterkit.errors import InputError, NotFoundError
from boosterkit.formats import FRAMES
from boosterkit.jobs import keep_freed

if TYPE_CHECKING:
    from boosterkit.generator.packs import PackStream

#: ``open --product``: a booster product, or a sealed product (``cli/sealed.py``).
PRODUCT = product_option(
    "Or a sealed product's name, or its end (Bundle, Draft Booster Box): its packs and "
    "cards. Default: draft, or the set's only product."
)


def register(app: typer.Typer) -> None:
    """Add ``open`` to ``app``."""

    @app.command("open")
    def open_cmd(
        ctx: typer.Context,
        set_code: str = SET_ARG,
        product: str | None = PRODUCT,
        count: int = typer.Option(
            1, "-n", "--count", metavar="N", help="How many packs (1 or more)."
        ),
        seed: int | None = typer.Option(
            None,
            "--seed",
            metavar="SEED",
            help="Seed (0 to 2^64-1). Default: a random one, printed on stderr.",
        ),
        fmt: PackFormat = fmt_option("text"),
        json_: bool = JSON,
        output: str | None = OUTPUT,
        csv_raw: bool = typer.Option(
            False,
            "--csv-raw",
            help="CSV cells exactly as the data has them: no ' before cells starting with "
            "= + - @ (by default they get one, so a spreadsheet shows them, never runs them).",
        ),
        jobs: int = jobs_option(
            "drawing and writing. The output is the same byte for byte; parquet and arrow "
            "are written by one process."
        ),
    ) -> None:
        """Open N seeded packs: pack i depends only on (seed, i), so -n 1 is the first of -n 3000."""
        from boosterkit.generator import iter_packs, new_seed

        if count < 1:
            raise InputError(f"-n/--count: need at least 1 pack, got {count}")
        if count > 1000:
            keep_freed()  # batches of packs: their memory reused, not faulted in again
        fmt, chosen = pick_format(fmt, json_), new_seed() if seed is None else seed
        try:
            if jobs != 1 and _in_parallel(ctx, set_code, product, count, (seed, chosen), fmt,
                                          output, csv_raw, jobs):  # fmt: skip
                return
            packs = iter_packs(set_code, product, count, chosen, db=ctx.obj)
            packs.resolve()  # resolve the product (and fail) before creating the output file
        except NotFoundError as exc:  # not a booster product: a sealed one (a box, a bundle…)?
            open_sealed_product(ctx, (set_code, product, count), (seed, chosen), fmt, output,
                                csv_raw, exc)  # fmt: skip
            return
        _write(packs, fmt, output, (seed, chosen), csv_raw)


def _write(
    packs: PackStream, fmt: str, output: str | None, seeds: tuple[int | None, int], csv_raw: bool
) -> None:
    """``open``'s packs written to ``output`` (stdout: None), the seed said on stderr."""
    from boosterkit.generator.output import write_packs
    from boosterkit.generator.packexports import tally

    binary = fmt if fmt in FRAMES else None  # written through polars, after the packs
    counted = tally(fmt)  # what a draft tool's format leaves out, said on stderr after
    with render.output(output, binary) as out:
        if not binary:
            render.seed_note(*seeds)
        write_packs(counted.watch(packs) if counted else packs, fmt, out, csv_raw=csv_raw)
    if binary:
        render.seed_note(*seeds)
    if counted and (note := counted.note()):
        render.echo_err(note)


def _in_parallel(
    ctx: typer.Context,
    set_code: str,
    product: str | None,
    count: int,
    seeds: tuple[int | None, int],
    fmt: str,
    output: str | None,
    csv_raw: bool,
    jobs: int,
) -> bool:
    """``open --jobs N``: the run written by worker processes, if it takes more than one
    (``parallel.jobs_for``); False when it is left to one process."""
    from boosterkit.generator import parallel
    from boosterkit.generator.packs import prepare

    if (workers := parallel.jobs_for(jobs, count, fmt)) == 1:
        return False
    compiled, chosen = prepare(set_code, product, count, seeds[1], ctx.obj)
    with render.output(output) as out:
        render.seed_note(seeds[0], chosen)
        parallel.write_parallel(parallel.Run(compiled, chosen, count, fmt, csv_raw, workers), out)
    return True
