"""The bundled sample: real data for AFR, the List cards its Set Booster names and every
minigame card, shipped in the package (``data/sample/``, written by its ``make_sample.py``)
so the main job works with nothing else: no ``../shared``, no network, no database.

The files are MTGJSON and magic-sealed-data in their own formats; on first use they are
imported, by the importers ``import mtgjson`` and ``import collation`` use, into a database
in the user cache folder (``config.sample_dir()``), named by what it is built from (the
files, the schema, the importing code), then only ever read. A new version builds a new one
and removes the old. The build writes to a temporary file renamed into place: a reader sees
a whole database or none, and two first runs at once each build their own and the second
rename wins.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from boosterkit import __version__
from boosterkit.data import DATA_DIR

if TYPE_CHECKING:
    from boosterkit.pipeline.db import Connection

#: The sample's files (package data) and the set whose packs it opens.
SAMPLE_DIR = DATA_DIR / "sample"
MTGJSON_FILE = SAMPLE_DIR / "mtgjson.json.gz"
SEALED_FILE = SAMPLE_DIR / "sealed.json.gz"
SET = "afr"
#: What ``meta`` holds in a database built from the sample (``is_sample`` reads it).
META_KEY = "sample"
#: The line a command prints (once, on stderr) when it reads the sample because no
#: database was loaded.
NOTICE = f"using the bundled sample ({SET.upper()}): `boosterkit sync SET` loads real data"
_PREFIX = "sample-"


def key() -> str:
    """What the built database depends on: the version, the files, and the code that
    imports them and declares the schema (``pipeline/*.py``), by size and time (an
    installed package's never change). Reads no file and imports no DuckDB: a command
    drawing a kept product from the sample imports neither DuckDB nor numpy."""
    digest = hashlib.sha256(__version__.encode())
    code = sorted(Path(__file__).resolve().parent.glob("*.py"))
    for path in (MTGJSON_FILE, SEALED_FILE, *code):
        st = path.stat()
        digest.update(f"{path.name} {st.st_size} {st.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def ensure() -> Path:
    """The sample's database, built now if it is not there yet (about 1-2 s, once). Where
    the cache folder cannot be written (a read-only home), it is built in a private
    temporary folder of this process, removed at exit."""
    from boosterkit import config

    name = f"{_PREFIX}{key()}.duckdb"
    folder = config.sample_dir()
    path = folder / name
    if path.exists():
        return path
    try:
        folder.mkdir(parents=True, exist_ok=True)
        build(path)
    except OSError:
        return _private(name)
    _remove_others(folder, name)
    return path


def _private(name: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="boosterkit-sample-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / name
    build(path)
    return path


def build(path: Path) -> None:
    """Import the sample's files into a new database at ``path`` (replaced whole)."""
    from boosterkit.database import Database
    from boosterkit.pipeline.collation import import_collation
    from boosterkit.pipeline.mtgjson import import_mtgjson

    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".duckdb", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    tmp.unlink()  # DuckDB creates the file itself
    try:
        with Database(tmp).write() as con:
            import_mtgjson(con, [MTGJSON_FILE])
            import_collation(con, SEALED_FILE)
            con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [META_KEY, SET])
            con.execute("CHECKPOINT")
        os.replace(tmp, path)
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


def _remove_others(folder: Path, keep: str) -> None:
    """Remove the databases of other versions of the sample (and what is kept beside them)."""
    from boosterkit.config import cache_dir

    for old in folder.glob(f"{_PREFIX}*.duckdb"):
        if old.name != keep:
            with contextlib.suppress(OSError):
                old.unlink()
            shutil.rmtree(cache_dir(old), ignore_errors=True)


def is_sample(con: Connection) -> bool:
    """Whether the database of ``con`` (an open connection) was built from the sample."""
    row = con.execute("SELECT value FROM meta WHERE key = ?", [META_KEY]).fetchone()
    return row is not None
