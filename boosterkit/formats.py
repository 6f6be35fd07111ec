"""The output formats: one registry per kind of output.

- ``RECORDS``: a command's data, a listing or one record (``sets``, ``db info``, ``odds``…);
- ``PACKS``: opened packs, streamed one pack at a time (``open``);
- ``FRAMES``: binary tables through polars (``open``, ``odds``: Parquet, Arrow);
- ``SHEETS``: a minigame's setup sheet (``deal``, ``GET /sheet``), PDF included;
- ``POOLS``: sealed pools and draft pods (``pool``, ``POST /pool``): pages, deck files,
  registration sheets, PDF.

A format is declared once, here, with the function that writes it (``"module:function"``,
imported on first use: the CLI lists its ``--format`` choices without loading numpy, polars
or the sheet code). The CLI's choices (``cli/options.py``) and the service's types
(``service/pool_routes.py``) are built from these registries, and the "card images need
HTML" rule is ``Formats.refuses_images``: adding a format is one ``register`` call plus its
function (datasette's ``register_output_renderer`` is the model). Each kind's functions
share one signature, stated on its registry.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from boosterkit.errors import InputError

__all__ = ["FRAMES", "PACKS", "POOLS", "RECORDS", "SHEETS", "Formats", "OutputFormat"]


@dataclass(frozen=True)
class OutputFormat:
    """One output format: its ``--format`` name, the function writing it (``module:function``),
    the file extension of what it writes, and whether that is binary or can carry card
    images."""

    name: str
    render: str
    extension: str
    binary: bool = False
    images: bool = False

    def renderer(self) -> Callable[..., Any]:
        """The function writing this format (imported now)."""
        module, _, name = self.render.partition(":")
        fn: Callable[..., Any] = getattr(importlib.import_module(module), name)
        return fn


class Formats:
    """The formats of one kind of output, in the order the CLI offers them."""

    def __init__(self, kind: str, signature: str) -> None:
        self.kind = kind
        #: What every function of this kind takes and returns (documentation).
        self.signature = signature
        self._formats: dict[str, OutputFormat] = {}

    def register(self, fmt: OutputFormat) -> OutputFormat:
        """Add ``fmt`` (a name registered twice is a programming error)."""
        if fmt.name in self._formats:
            raise ValueError(f"{self.kind}: format {fmt.name!r} is registered already")
        self._formats[fmt.name] = fmt
        return fmt

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._formats)

    def __contains__(self, name: object) -> bool:
        return name in self._formats

    def __iter__(self) -> Iterator[OutputFormat]:
        return iter(self._formats.values())

    def get(self, name: str) -> OutputFormat:
        """The format ``name``; ``InputError`` listing the others when there is none."""
        found = self._formats.get(name)
        if found is None:
            raise InputError(
                f"format {name!r}: expected one of {', '.join(self.names)}", field="format"
            )
        return found

    def only(self, *names: str) -> tuple[str, ...]:
        """``names``, each checked to be registered (a choice that must not grow)."""
        for name in names:
            self.get(name)
        return names

    def ordered(self, *first: str) -> tuple[str, ...]:
        """The names with ``first`` (each registered) leading, the others after in
        registration order: a listing that keeps its order when a format is added."""
        for name in first:
            self.get(name)
        return (*first, *(n for n in self.names if n not in first))

    def refuses_images(self, name: str) -> str | None:
        """Why format ``name`` cannot carry card images (``--images``), or None if it can:
        the one check of every front end, which words where the images were asked for."""
        if name in self and self.get(name).images:
            return None
        carriers = "/".join(f.name.upper() for f in self if f.images)
        return f"only {carriers} {self.kind} carry card images"

    @property
    def image_formats(self) -> tuple[str, ...]:
        return tuple(f.name for f in self if f.images)


def literal(names: tuple[str, ...]) -> Any:
    """``Literal[names…]`` (for typer's choices and pydantic's types)."""
    return Literal.__getitem__(names)


_RECORD = "boosterkit.serialize:"
RECORDS = Formats(
    "records",
    "render(data, out: TextIO, *, text: Callable | None, rows: Callable | None, "
    "columns: Sequence[str] | None) -> None",
)
RECORDS.register(OutputFormat("json", _RECORD + "json_records", "json"))
RECORDS.register(OutputFormat("jsonl", _RECORD + "jsonl_records", "jsonl"))
RECORDS.register(OutputFormat("csv", _RECORD + "csv_records", "csv"))
RECORDS.register(OutputFormat("table", _RECORD + "table_records", "txt"))
RECORDS.register(OutputFormat("text", _RECORD + "text_records", "txt"))

_PACK = "boosterkit.generator.output:"
PACKS = Formats("packs", "render(packs: Iterable[Pack], out: TextIO, *, csv_raw: bool) -> int")
PACKS.register(OutputFormat("text", _PACK + "write_text", "txt"))
PACKS.register(OutputFormat("json", _PACK + "write_json", "json"))
PACKS.register(OutputFormat("jsonl", _PACK + "write_jsonl", "jsonl"))
PACKS.register(OutputFormat("csv", _PACK + "write_csv", "csv"))
_PACK_EXPORT = "boosterkit.generator.packexports:"
PACKS.register(OutputFormat("draftmancer", _PACK_EXPORT + "write_draftmancer", "txt"))
PACKS.register(OutputFormat("cubecobra", _PACK_EXPORT + "write_cubecobra", "csv"))

FRAMES = Formats("frames", "render(frame: polars.DataFrame, out: str | IO[bytes]) -> None")
FRAMES.register(OutputFormat("parquet", _PACK + "write_parquet", "parquet", binary=True))
FRAMES.register(OutputFormat("arrow", _PACK + "write_arrow", "arrow", binary=True))

_SHEET = "boosterkit.minigames.sheets:"
SHEETS = Formats(
    "sheets",
    "render(setup: Setup, images: Mapping[str, CardArt] | None) -> str "
    "(a binary format: -> bytes, with the keyword paper: a4 | letter)",
)
SHEETS.register(OutputFormat("text", _SHEET + "render_text", "txt"))
SHEETS.register(OutputFormat("md", _SHEET + "render_md", "md"))
SHEETS.register(OutputFormat("html", _SHEET + "render_html", "html", images=True))
SHEETS.register(OutputFormat("pdf", _SHEET + "sheet_pdf", "pdf", binary=True))

_POOL = "boosterkit.generator.pools:"
POOLS = Formats(
    "pools",
    "render(data: the event, images: Mapping[str, CardArt] | None, pool: dict | None) -> str "
    "(pool None: every player's pool in one document; else that player's alone; a binary "
    "format: -> bytes, with the keyword paper: a4 | letter)",
)
POOLS.register(OutputFormat("text", _POOL + "text_pools", "txt"))
POOLS.register(OutputFormat("md", _POOL + "md_pools", "md"))
POOLS.register(OutputFormat("html", _POOL + "html_pools", "html", images=True))
POOLS.register(OutputFormat("json", _POOL + "json_pools", "json"))
POOLS.register(OutputFormat("decklist", _POOL + "decklist_pools", "txt"))
_DECK = "boosterkit.generator.decks:"
POOLS.register(OutputFormat("arena", _DECK + "arena_pools", "txt"))
POOLS.register(OutputFormat("moxfield", _DECK + "moxfield_pools", "txt"))
POOLS.register(OutputFormat("mtgo", _DECK + "mtgo_pools", "txt"))
POOLS.register(OutputFormat("dek", _DECK + "mtgo_dek_pools", "dek"))
POOLS.register(OutputFormat("cockatrice", _DECK + "cockatrice_pools", "cod"))
POOLS.register(OutputFormat("xmage", _DECK + "xmage_pools", "dck"))
POOLS.register(OutputFormat("forge", _DECK + "forge_pools", "dck"))
POOLS.register(OutputFormat("mtgjson", _DECK + "mtgjson_pools", "json"))
# Printing an event: the pools as PDF, and each player's deck registration sheet.
POOLS.register(OutputFormat("pdf", _POOL + "pools_pdf", "pdf", binary=True))
_REGISTRATION = "boosterkit.generator.registration:"
POOLS.register(OutputFormat("registration-html", _REGISTRATION + "registration_html", "html"))
POOLS.register(
    OutputFormat("registration-pdf", _REGISTRATION + "registration_pdf", "pdf", binary=True)
)
POOLS.register(OutputFormat("registration-csv", _REGISTRATION + "registration_csv", "csv"))
