"""Writing opened packs: the formats of ``formats.PACKS`` (text, JSON, JSON lines, CSV), one
pack at a time (streaming), and of ``formats.FRAMES`` (Parquet, Arrow: a polars frame).

``json`` is byte for byte ``serialize.to_json([p.to_dict() for p in packs])``; ``jsonl`` is
one ``to_json(p.to_dict(), indent=None)`` per line. Neither holds more than one pack.
``csv`` goes through ``serialize.CsvWriter``: cells a spreadsheet would run as a formula
(``=…``, ``+…``, ``-…``, ``@…``) get a leading ``'`` unless ``csv_raw``.
"""

from __future__ import annotations

import codecs
import io
import os
import re
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any, TextIO, cast

from boosterkit.errors import escape_controls
from boosterkit.formats import FRAMES, PACKS
from boosterkit.generator.arrays import arrays
from boosterkit.generator.engine import FEW_PACKS
from boosterkit.generator.lazy import JsonLines, PrettyPacks, chunks
from boosterkit.generator.model import PROTO_FIELDS, Pack
from boosterkit.generator.packs import batch_size, draw_packs
from boosterkit.serialize import CsvWriter, to_json, unescaped

if TYPE_CHECKING:
    import polars as pl

    from boosterkit.generator.engine import CompiledProduct

#: The names of the pack formats (``formats.PACKS``).
FORMATS = PACKS.names

#: CSV columns of the pack an item is in (``Pack.to_dict``'s index, variant, set, product, seed).
PACK_COLUMNS = ("pack", "variant", "set_code", "product", "seed")
#: CSV columns of the item itself: its uid and fields (``external`` never is: a pack's own).
ITEM_COLUMNS = ("uid", *PROTO_FIELDS)
#: CSV columns: the pack, then every field of an item.
CSV_COLUMNS = PACK_COLUMNS + ITEM_COLUMNS

#: The formats ``write_part`` writes in parts (each knows how its parts join).
PARTED = ("text", "json", "jsonl", "csv")

_RARITY = {"common": "C", "uncommon": "U", "rare": "R", "mythic": "M", "special": "S", "bonus": "B"}


def pack_json_line(pack: Pack) -> str:
    """One pack as a JSON line (no newline)."""
    fast = getattr(pack, "to_json_line", None)
    return fast() if fast else to_json(pack.to_dict(), indent=None)


def write_jsonl(
    packs: Iterable[Pack], out: TextIO, *, csv_raw: bool = False, chunk: int = 1 << 16
) -> int:
    """One pack a line (``pack_json_line``), as UTF-8 bytes built by ``lazy.JsonLines``,
    written about ``chunk`` bytes at a time: a ``write`` per line costs more than building
    the line, and a chunk much larger than 128 KiB is a fresh ``mmap`` (page faults) each
    time. Bytes go to ``out.buffer`` when ``out`` writes UTF-8 with plain newlines (a file,
    standard output), else they are decoded for ``out``."""
    raw = utf8_buffer(out)
    write = raw.write if raw is not None else lambda b: out.write(b.decode())
    lines = JsonLines()
    run = _whole_run(packs)
    if run is not None:
        _write_chunks(_run_lines(lines.layout, *run), write, chunk)
        return int(run[2])
    n = 0

    def counted() -> Iterator[bytes]:
        nonlocal n
        for pack in packs:
            n += 1
            yield lines.line(pack)

    _write_chunks(counted(), write, chunk)
    return n


def _whole_run(packs: Iterable[Pack]) -> tuple[CompiledProduct, int, int] | None:
    """(product, seed, count) of ``packs`` when they are a whole run of more than
    ``FEW_PACKS`` packs (a ``PackStream`` no pack was taken from): drawn here in numpy
    batches and laid out (``_run_lines``); else None (a few packs are drawn one by one in
    plain Python, without importing numpy)."""
    whole = getattr(packs, "run", None)
    run: tuple[CompiledProduct, int, int] | None = whole() if whole is not None else None
    return run if run is not None and run[2] > FEW_PACKS else None


def _write_chunks(pieces: Iterable[bytes], write: Callable[[bytes], object], chunk: int) -> None:
    """``pieces`` written about ``chunk`` bytes at a time (a piece that size alone as it is)."""
    size = 0
    parts: list[bytes] = []
    for piece in pieces:
        if not parts and len(piece) >= chunk:
            write(piece)
            continue
        parts.append(piece)
        size += len(piece)
        if size >= chunk:
            write(b"".join(parts))
            parts.clear()
            size = 0
    if parts:
        write(b"".join(parts))


#: What lays out drawn packs: ``JsonLines.layout`` or ``PrettyPacks.layout``.
Layout = Callable[[Any, int, list[int], list[int], Any], tuple[list[bytes], int]]


def _run_lines(layout: Layout, cp: CompiledProduct, seed: int, count: int) -> Iterator[bytes]:
    """The bytes of packs 1..``count`` of a run (``_run_pieces``) in chunks of whole packs."""
    for pieces, width in _run_pieces(layout, cp, seed, count):
        yield from chunks(pieces, width) if width else pieces


def _run_pieces(
    layout: Layout, cp: CompiledProduct, seed: int, count: int
) -> Iterator[tuple[list[bytes], int]]:
    """Packs 1..``count`` of a run, drawn in batches (``draw_rows``) and laid out a batch
    at a time (``layout``), no ``Pack`` object made: per batch its pieces and how many a
    pack takes (``layout``'s) where the product's packs are of one length, else a
    variant's packs at a time, each pack joined, in order (width 0)."""
    from boosterkit.generator.engine_np import draw_rows

    plan = arrays(cp).plan
    size = batch_size(cp)
    for start in range(1, count + 1, size):
        n = min(size, count + 1 - start)
        chosen, rows = draw_rows(cp, seed, start, n)
        at = list(range(start, start + n))
        if min(plan.widths) == max(plan.widths):  # packs of one length: in order
            yield layout(cp, seed, at, plan.index[chosen].tolist(), rows)
            continue
        owner: list[tuple[list[bytes], int, int]] = [([], 0, 0)] * n
        for v, index in enumerate(plan.index.tolist()):
            place = (chosen == v).nonzero()[0].tolist()
            if not place:
                continue
            mat = rows[place, : plan.widths[v]]
            pieces, width = layout(cp, seed, [at[w] for w in place], [index] * len(place), mat)
            for r, w in enumerate(place):
                owner[w] = (pieces, r * width, width)
        yield [b"".join(pieces[a : a + width]) for pieces, a, width in owner], 0


def utf8_buffer(out: TextIO) -> IO[bytes] | None:
    """``out``'s binary buffer, flushed, when writing bytes there equals writing text to
    ``out`` (UTF-8, no newline translation); else None."""
    buffer = getattr(out, "buffer", None)
    encoding = getattr(out, "encoding", None)
    if buffer is None or not encoding or os.linesep != "\n":
        return None
    errors = getattr(out, "errors", "strict")  # stdout's is surrogateescape (a C.UTF-8 locale)
    if codecs.lookup(encoding).name != "utf-8" or errors not in ("strict", "surrogateescape"):
        return None
    out.flush()
    return cast("IO[bytes]", buffer)


def pack_json(pack: Pack) -> str:
    """One pack as ``serialize.to_json`` writes it (indented)."""
    fast = getattr(pack, "to_json_pretty", None)
    return fast() if fast else to_json(pack.to_dict())


def write_json(packs: Iterable[Pack], out: TextIO, *, csv_raw: bool = False) -> int:
    """A JSON list of packs, indented like ``serialize.to_json`` (which the tests check),
    as UTF-8 bytes built by ``lazy.PrettyPacks``, written about 64 KiB at a time (as
    ``write_jsonl``)."""
    out = unescaped(out)  # every piece is to_json's, terminal-safe (serialize.json_safe)
    raw = utf8_buffer(out)
    write = raw.write if raw is not None else lambda b: out.write(b.decode())
    pretty = PrettyPacks()
    run = _whole_run(packs)
    pieces = _run_lines(pretty.layout, *run) if run is not None else map(pretty.pack, packs)
    _write_chunks(pieces, write, 1 << 16)
    write(pretty.end())
    return pretty.count


def packs_json(packs: Iterable[Pack]) -> bytes:
    """``write_json``'s output, whole, as UTF-8: ``serialize.to_json(list_of_packs) + "\\n"``."""
    pretty = PrettyPacks()
    parts = [pretty.pack(p) for p in packs]
    parts.append(pretty.end())
    return b"".join(parts)


def run_json(cp: CompiledProduct, seed: int, count: int) -> bytes:
    """``packs_json`` of packs 1..``count`` of the run of ``cp`` with a checked ``seed``
    (``packs.prepare`` gives both), the same bytes: past ``FEW_PACKS`` packs laid out from
    the drawn arrays (``PrettyPacks.layout``), no ``Pack`` object made (``POST /packs``)."""
    if count <= FEW_PACKS:
        return packs_json(draw_packs(cp, seed, count))
    pretty = PrettyPacks()
    parts: list[bytes] = []
    for pieces, _ in _run_pieces(pretty.layout, cp, seed, count):
        parts += pieces
    parts.append(pretty.end())
    return b"".join(parts)


def write_csv(packs: Iterable[Pack], out: TextIO, *, csv_raw: bool = False) -> int:
    """One item a row; formula-like cells neutralised unless ``csv_raw``; written to ``out``
    32 packs at a time."""
    buffer = io.StringIO()
    w = CsvWriter(buffer, CSV_COLUMNS, raw=csv_raw)
    n = 0
    for pack in packs:
        n += 1
        d = pack.to_dict()
        head = [d["index"], d["variant"], d["set"], d["product"], d["seed"]]
        for item in d["items"]:
            w.row(head + [item.get(c) for c in ITEM_COLUMNS])
        if n % 32 == 0:
            out.write(buffer.getvalue())
            buffer.seek(0)
            buffer.truncate()
    out.write(buffer.getvalue())
    return n


def pack_text(pack: Pack) -> str:
    """A readable listing: position, rarity, name, printing, slot and marks."""
    lines = [f"Pack {pack.index}: {pack.product} (variant {pack.variant}, seed {pack.seed})"]
    for pos, item in enumerate(pack.to_dict()["items"], 1):
        marks = []
        if item["foil"]:
            marks.append("foil")
        if not item["magic_back"]:
            marks.append("no Magic back")
        if item.get("gold_stamped"):
            marks.append("gold-stamped")
        if not item["resolved"]:
            marks.append("not in the database")
        name = item["name"] or f"({item['kind'].replace('_', ' ')})"
        where = " ".join(x for x in (item["set"], item["collector_number"]) if x)
        rarity = _RARITY.get(item["rarity"] or "", "-")
        mark = f"  [{', '.join(marks)}]" if marks else ""
        lines.append(f"{pos:>3}  {rarity}  {name}  ({where})  <{item['slot']}>{mark}")
    return "\n".join(lines)


def write_text(packs: Iterable[Pack], out: TextIO, *, csv_raw: bool = False) -> int:
    """Each pack as ``pack_text``, a blank line between packs."""
    n = 0
    for n, pack in enumerate(packs, 1):
        out.write(("" if n == 1 else "\n") + pack_text(pack) + "\n")
    return n


def write_packs(packs: Iterable[Pack], fmt: str, out: Any, *, csv_raw: bool = False) -> int:
    """Write ``packs`` to ``out`` in ``fmt``; returns how many. A ``formats.PACKS`` format
    goes to a text stream, a ``formats.FRAMES`` one to a binary stream or a path (the packs
    as one frame, ``frames.packs_frame``).

    ``csv_raw``: CSV cells exactly as the data has them (no formula neutralising)."""
    if fmt in FRAMES:
        from boosterkit.generator.frames import packs_frame  # numpy and polars: only here

        packs = list(packs)
        write_frame(packs_frame(packs), fmt, out)
        return len(packs)
    written: int = PACKS.get(fmt).renderer()(packs, out, csv_raw=csv_raw)
    return written


def write_part(
    packs: Iterable[Pack],
    fmt: str,
    *,
    first: bool,
    last: bool,
    csv_raw: bool = False,
    lines: JsonLines | None = None,
) -> list[bytes]:
    """The UTF-8 bytes ``packs`` take in a whole ``fmt`` output, in pieces of at most about
    64 KiB (one large buffer a part would be a fresh ``mmap`` and its page faults each time) (a ``formats.PACKS``
    format) when they are not its first packs (``first`` False) or not its last: the parts
    of a run, written one after the other, are byte for byte ``write_packs`` of the run
    (control characters written as escapes, as the command's stream writes them). (JSON: its ``[`` and ``]`` belong to the first and last parts, a later part starts with
    the comma; text: a later part starts with the blank line between packs; CSV: only the
    first part has the header.) ``lines``: the ``JsonLines`` of the run (its encoded
    fragments are kept from one part to the next)."""
    if fmt not in PARTED:
        raise ValueError(f"format {fmt!r} is written whole, not in parts")
    if fmt == "jsonl":
        line = (lines or JsonLines()).line
        return [line(p) for p in packs]
    buffer = io.StringIO()
    write_packs(packs, fmt, buffer, csv_raw=csv_raw)
    text = buffer.getvalue()
    if fmt == "json":
        text = text if first else ",\n  " + text.removeprefix("[\n  ")
        text = text if last else text.removesuffix("\n]\n")
    elif fmt == "text":
        text = text if first else "\n" + text
    elif fmt == "csv":
        text = text if first else text.split("\n", 1)[1]
    # as the command's text stream (``cli.render.Escaped``) writes it: the workers write
    # these bytes to its descriptor themselves
    text = escape_controls(text, one_line=False)
    piece = 1 << 15  # characters: at most 128 KiB of UTF-8
    return [text[k : k + piece].encode() for k in range(0, len(text), piece)]


#: How polars (Rust) words an operating-system error inside its own: ``(os error 28)``.
_OS_ERROR = re.compile(r"\(os error (\d+)\)")


def write_frame(frame: pl.DataFrame, fmt: str, out: str | IO[bytes]) -> None:
    """Write a frame in ``fmt`` (a ``formats.FRAMES`` format) to a path or binary stream.
    A write the system refused (a full disk) is an ``OSError``, as for the other formats."""
    try:
        FRAMES.get(fmt).renderer()(frame, out)
    except Exception as exc:
        found = _OS_ERROR.search(str(exc)) if type(exc).__module__.startswith("polars") else None
        if found is None:
            raise
        code = int(found[1])
        raise OSError(code, os.strerror(code)) from exc


def write_parquet(frame: pl.DataFrame, out: str | IO[bytes]) -> None:
    """``frame`` as a Parquet file."""
    frame.write_parquet(out)


def write_arrow(frame: pl.DataFrame, out: str | IO[bytes]) -> None:
    """``frame`` as an Arrow IPC file."""
    frame.write_ipc(out)
