"""Sealed products and what each holds: MTGJSON's sealed-content data, read into
``sealed_products``.

Two shapes of the same data are read:

- the YAML files of mtgjson/mtg-sealed-content (``data/contents/<SET>.yaml``: ``{code,
  products: {name: contents}}``), as ``../shared/scryfall/mtgjson/sealed-contents/`` has them;
- MTGJSON set files (``{"data": {"code", "sealedProduct": [{"name", "contents"}…]}}``): the
  entries that carry ``contents`` (older files name their products without contents: those
  are counted, not stored).

``contents`` is kept as the data has it (``pack``: booster packs by product code; ``sealed``:
other sealed products by name, with a count; ``card``: promo cards by set and number;
``deck``, ``other``: decks and non-card items by name; ``variable``: a choice of
configurations; ``copy``: the name of the product it equals), checked for shape here and
read by ``generator/sealed.py``. A product replaces the stored one of the same set and name
(the later import wins). Atomic, recorded in ``sync_runs``, replayed by ``db rebuild``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from boosterkit.errors import InputError
from boosterkit.pipeline.cache import store_imported
from boosterkit.pipeline.db import Connection
from boosterkit.pipeline.files import check_expansion, open_input
from boosterkit.pipeline.runs import recorded

#: The keys of a product's contents (mtg-sealed-content's ``data/contents`` schema).
CONTENT_KEYS = ("card", "card_count", "copy", "deck", "other", "pack", "sealed", "variable")
#: The keys whose value is a list of entries (mappings).
LIST_KEYS = ("card", "deck", "other", "pack", "sealed", "variable")
#: Largest file read (the biggest set file of ``../shared`` is about 40 MB; a YAML file 60 kB).
MAX_BYTES = 512 * 1024 * 1024
SUFFIXES = (".yaml", ".yml", ".json", ".gz")


class SealedRow(NamedTuple):
    """One sealed product as stored: its set, name, contents (checked) and source."""

    set_code: str
    name: str
    contents: dict[str, Any]
    source: str  # sealed-contents | mtgjson


def _check_contents(where: str, contents: Any) -> dict[str, Any]:
    """``contents`` if it has the shape of a product's contents; ``InputError`` naming
    ``where`` (the file and product) and the key otherwise."""
    if not isinstance(contents, dict):
        raise InputError(f"{where}: contents must be a mapping, not {type(contents).__name__}")
    for key, value in contents.items():
        if key not in CONTENT_KEYS:
            raise InputError(
                f"{where}: unknown contents key {key!r} (known: {', '.join(CONTENT_KEYS)})"
            )
        if key in LIST_KEYS and not (
            isinstance(value, list) and all(isinstance(e, dict) for e in value)
        ):
            raise InputError(f"{where}: {key} must be a list of mappings")
    if "copy" in contents and not isinstance(contents["copy"], str):
        raise InputError(f"{where}: copy must name a product")
    for entry in contents.get("variable", ()):
        for config in entry.get("configs", ()):
            _check_contents(f"{where} (a variable configuration)", config)
    return contents


def _yaml_rows(path: Path, text: str) -> list[SealedRow]:
    import yaml

    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1})" if mark is not None else ""
        raise InputError(f"{path}: not valid YAML{at}") from None
    if not isinstance(data, dict) or not isinstance(data.get("products"), dict):
        raise InputError(f"{path}: not a sealed-contents file (expected keys code and products)")
    code = data.get("code")
    if not isinstance(code, str) or not code.strip():
        raise InputError(f"{path}: the set code (key code) is missing")
    set_code = code.strip().lower()
    return [
        SealedRow(set_code, str(name), _check_contents(f"{path}: {name}", c), "sealed-contents")
        for name, c in data["products"].items()
    ]


def _json_rows(path: Path, data: Any) -> tuple[list[SealedRow], int]:
    """The products with contents of an MTGJSON set file, and how many had none."""
    body = data.get("data", data) if isinstance(data, dict) else None
    if not isinstance(body, dict) or not isinstance(body.get("code"), str):
        raise InputError(f"{path}: not an MTGJSON set file (expected data.code)")
    entries = body.get("sealedProduct") or []
    if not isinstance(entries, list):
        raise InputError(f"{path}: sealedProduct must be a list")
    set_code, rows, bare = body["code"].strip().lower(), [], 0
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise InputError(f"{path}: a sealedProduct entry without a name")
        if not entry.get("contents"):
            bare += 1
            continue
        where = f"{path}: {entry['name']}"
        rows.append(
            SealedRow(set_code, entry["name"], _check_contents(where, entry["contents"]), "mtgjson")
        )
    return rows, bare


def read_file(path: Path) -> tuple[list[SealedRow], int]:
    """The sealed products of one file (YAML or an MTGJSON set file, plain or gzip), and
    how many products it names without contents."""
    check_expansion(path)
    with open_input(path) as f:
        raw = f.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise InputError(f"{path}: larger than {MAX_BYTES // 2**20} MiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    if text.lstrip().startswith(("{", "[")):
        try:
            return _json_rows(path, json.loads(text))
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: not valid JSON (line {exc.lineno})") from None
    return _yaml_rows(path, text), 0


def input_files(paths: Iterable[Path]) -> list[Path]:
    """The files of ``paths``: a folder gives its ``.yaml``/``.json`` files, sorted."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            found = sorted(f for f in p.iterdir() if f.is_file() and f.suffix in SUFFIXES)
            if not found:
                raise InputError(f"{p}: no .yaml or .json file in this folder")
            out += found
        else:
            out.append(p)
    if not out:
        raise InputError("no file given")
    return out


def _read_all(files: list[Path]) -> tuple[list[SealedRow], int]:
    rows: dict[tuple[str, str], SealedRow] = {}
    bare = 0
    for f in files:
        found, none = read_file(f)
        bare += none
        for row in found:
            rows[(row.set_code, row.name)] = row  # a later file wins
    return list(rows.values()), bare


def _load(con: Connection, rows: list[SealedRow]) -> None:
    con.executemany(
        "DELETE FROM sealed_products WHERE set_code = ? AND name = ?",
        [[r.set_code, r.name] for r in rows],
    )
    con.executemany(
        "INSERT INTO sealed_products VALUES (?, ?, ?, ?)",
        [[r.set_code, r.name, json.dumps(r.contents, sort_keys=True), r.source] for r in rows],
    )


def import_sealed_contents(
    con: Connection, paths: Iterable[str | Path], *, cache: Path | None = None
) -> dict[str, Any]:
    """Import sealed-product contents from YAML files, MTGJSON set files or folders of them.

    Every file is read and checked before anything is written. Returns ``{"files",
    "products", "sets": {set: products}, "without_contents"}``."""
    files = input_files(Path(p) for p in paths)
    rows, bare = _read_all(files)
    sets: dict[str, int] = {}
    for r in rows:
        sets[r.set_code] = sets.get(r.set_code, 0) + 1
    with recorded(con, "sealed-contents", ", ".join(map(str, files))) as run:
        _load(con, rows)
        if cache is not None:
            run.cache_files += [store_imported(cache, f, "sealed-contents") for f in files]
        run.sets = len(sets)
        run.message = f"{len(rows)} sealed products"
    return {
        "files": [str(f) for f in files],
        "products": len(rows),
        "sets": dict(sorted(sets.items())),
        "without_contents": bare,
    }


def replay(con: Connection, files: list[Path], target: str | None) -> None:
    """``db rebuild`` replayer: load an import's cached files inside the caller's transaction."""
    _load(con, _read_all(files)[0])


def stored(con: Connection, set_code: str | None = None) -> Iterator[SealedRow]:
    """The stored sealed products (of ``set_code``, or all), by set and name."""
    where, params = ("WHERE set_code = ?", [set_code]) if set_code else ("", [])
    for s, name, contents, source in con.execute(
        f"SELECT set_code, name, contents, source FROM sealed_products {where} "
        "ORDER BY set_code, name",
        params,
    ).fetchall():
        yield SealedRow(s, name, json.loads(contents), source)
