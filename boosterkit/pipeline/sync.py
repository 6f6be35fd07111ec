"""``boosterkit sync``: Scryfall (API, bulk files, local files) and MTGJSON → the database.

Every sync first fetches into the cache folder (nothing lost), then loads the cached
files in ONE transaction with its ``sync_runs`` row (``pipeline.runs.recorded``): a sync
that fails or is killed leaves the previous data as it was. Loading goes through
``pipeline.ingest`` — the same code ``boosterkit db rebuild`` replays. ``sync SET`` also
loads MTGJSON's file of every set it syncs (``pipeline.mtgjson``, as ``import mtgjson``
does) in that transaction. Upserts by id make a second identical sync change nothing.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from boosterkit import config
from boosterkit.errors import InputError, NotFoundError, TransientError
from boosterkit.pipeline import cache as cachemod
from boosterkit.pipeline import files, halves, ingest
from boosterkit.pipeline.db import Connection, scalar
from boosterkit.pipeline.runs import Run, recorded
from boosterkit.suggest import unknown

if TYPE_CHECKING:  # the HTTP clients (requests, scrython) are imported by the syncs that fetch
    from boosterkit.pipeline.mtgjson_client import MtgjsonClient
    from boosterkit.pipeline.scryfall.client import ScryfallClient
    from boosterkit.pipeline.scryfall.models import BulkData

#: progress(what, done, total): ``what`` names the set or file, ``total`` may be None.
Progress = Callable[[str, int, "int | None"], None]
#: on_wait(note): one line saying what a fetch waits for (a 429's Retry-After, a retry).
WaitNote = Callable[[str], None]

BULK_TYPES = ("default_cards", "all_cards", "oracle_cards", "unique_artwork")
SEARCH_PARAMS = {
    "unique": "prints",
    "include_extras": "true",
    "include_variations": "true",
    "order": "set",
}
#: Cached MTGJSON files of a set sync are ``<folder>/mtgjson-CODE.json.gz`` (how replay tells them).
MTGJSON_PREFIX = "mtgjson-"
#: A set code (lowercased): what a user types and what the network may send.
SET_CODE_PATTERN = "[a-z0-9]{2,8}"
_CODE = re.compile(f"^{SET_CODE_PATTERN}$")


def _scryfall_client() -> ScryfallClient:
    from boosterkit.pipeline.scryfall.client import ScryfallClient

    return ScryfallClient()


def _stamp() -> str:
    now = dt.datetime.now(dt.timezone.utc)
    return now.strftime("%Y%m%dT%H%M%S%f") + f"-{os.getpid()}"


def _summary(source: str, target: str | None, run: Any, t0: float, **extra: Any) -> dict[str, Any]:
    return {
        "source": source,
        "target": target,
        "sets": run.sets,
        "cards": run.cards,
        "seconds": round(time.perf_counter() - t0, 3),
        **extra,
    }


def _store_json(cache: Path, data: dict[str, Any], rel: str) -> str:
    return cachemod.store_bytes(cache, json.dumps(data, ensure_ascii=False).encode("utf-8"), rel)


def _fetch_set_list(
    client: ScryfallClient, cache: Path, folder: str
) -> tuple[list[str], list[dict[str, Any]]]:
    rels: list[str] = []
    sets: list[dict[str, Any]] = []
    for i, page in enumerate(client.pages("/sets"), 1):
        rels.append(_store_json(cache, page, f"{folder}/sets-{i}.json"))
        sets.extend(page.get("data") or [])
    return rels, sets


def normalize_codes(codes: list[str]) -> list[str]:
    """Set codes as the database keeps them (lowercase); a malformed code is an InputError."""
    out: list[str] = []
    for raw in codes:
        code = raw.strip().lower()
        if not _CODE.match(code):
            raise InputError(f"set code {raw!r}: expected 2–8 letters or digits, e.g. 'afr'")
        if code not in out:
            out.append(code)
    if not out:
        raise InputError("no set code given")
    return out


def is_set_code(code: Any, skipped: list[str]) -> bool:
    """Whether a set code from the network is one (2–8 letters or digits, any case); else it
    is added to ``skipped`` (once, escaped) and used for nothing: no file name, no row."""
    if isinstance(code, str) and _CODE.match(code.lower()):
        return True
    shown = repr(code)[:60]
    if shown not in skipped:
        skipped.append(shown)
    return False


def _fetch_sets(
    client: ScryfallClient,
    cache: Path,
    folder: str,
    codes: list[str],
    progress: Progress | None,
    skipped: list[str],
) -> tuple[list[str], list[str]]:
    """Fetch the set list, the sets and every page of their printings into the cache; set
    codes from the network that are not set codes go to ``skipped``."""
    from boosterkit.pipeline.scryfall.client import ScryfallAPIError
    from boosterkit.pipeline.scryfall.models import card_set, child_sets

    rels, all_sets = _fetch_set_list(client, cache, folder)
    objects = [s for s in all_sets if s.get("object") == "set" and s.get("code")]
    wrapped = [card_set(s) for s in objects if is_set_code(s["code"], skipped)]
    card_sets: list[str] = []
    for code in codes:
        try:
            data = client.get_json(f"/sets/{code}")
        except ScryfallAPIError as exc:
            if exc.status == 404:
                names = [(s.code, s.code.lower()) for s in wrapped] + [
                    (s.name, s.code.lower()) for s in wrapped if s.name
                ]
                listing = "Scryfall's sets: `boosterkit sync --sets`, then `boosterkit sets`"
                raise NotFoundError(unknown("set", code, names, listing)) from None
            raise
        own = card_set(data).code
        if not is_set_code(own, skipped):
            continue
        rels.append(_store_json(cache, data, f"{folder}/set-{code}.json"))
        family = [own.lower()]
        for parent in family:  # breadth-first: children of children too
            family += [
                c.code.lower() for c in child_sets(parent, wrapped) if c.code.lower() not in family
            ]
        card_sets += [c for c in family if c not in card_sets]
    for code in card_sets:
        done = 0
        for i, page in enumerate(client.search_pages(f"e:{code}", **SEARCH_PARAMS), 1):
            rels.append(_store_json(cache, page, f"{folder}/cards-{code}-{i}.json"))
            done += len(page.get("data") or [])
            if progress:
                progress(code, done, page.get("total_cards"))
    return rels, card_sets


def _fetch_mtgjson(
    client: MtgjsonClient, cache: Path, folder: str, codes: list[str], progress: Progress | None
) -> tuple[list[str], list[str]]:
    """MTGJSON's file of each set into the cache; the cached files and the sets without one."""
    rels, missing = [], []
    for code in codes:
        raw = cache / folder / f"{MTGJSON_PREFIX}{code.upper()}.download"
        show = (lambda d, t, c=code: progress(f"MTGJSON {c.upper()}", d, t)) if progress else None
        if client.set_file(code, raw, show) is None:
            missing.append(code)
            continue
        try:
            rels.append(
                cachemod.store_file(cache, raw, f"{folder}/{MTGJSON_PREFIX}{code.upper()}.json")
            )
        finally:
            raw.unlink(missing_ok=True)
    return rels, missing


class _Fetched(NamedTuple):
    """What the fetches of a set sync stored in the cache (paths relative to it)."""

    rels: list[str]  # Scryfall's files
    card_sets: list[str]  # the sets asked for and their child sets
    jrels: list[str]  # MTGJSON's files
    missing: list[str]  # the sets MTGJSON has no file for
    skipped: list[str]  # codes from the network that are not set codes


def _fetch_mtgjson_or_say(
    fetcher: MtgjsonClient,
    cache: Path,
    folder: str,
    card_sets: list[str],
    progress: Progress | None,
    codes: list[str],
) -> tuple[list[str], list[str]]:
    """``_fetch_mtgjson``'s files and missing sets; a ``TransientError`` of MTGJSON (Scryfall
    answered) also says how to sync ``codes`` without it."""
    try:
        return _fetch_mtgjson(fetcher, cache, folder, card_sets, progress)
    except TransientError as exc:
        raise TransientError(
            f"{exc}; try again later, or sync Scryfall's data alone: "
            f"`boosterkit sync {' '.join(codes)} --no-mtgjson`",
            detail=exc.detail,
        ) from None


def _fetch_all(
    client: ScryfallClient,
    fetcher: MtgjsonClient | None,
    cache: Path,
    folder: str,
    codes: list[str],
    progress: Progress | None,
) -> _Fetched:
    """The Scryfall files of ``codes`` and, with a ``fetcher``, MTGJSON's, fetched into
    ``cache/folder``; the folder is removed if any fetch fails (nothing half-fetched stays)."""
    try:
        skipped: list[str] = []
        rels, card_sets = _fetch_sets(client, cache, folder, codes, progress, skipped)
        jrels: list[str] = []
        missing: list[str] = []
        if fetcher is not None:
            jrels, missing = _fetch_mtgjson_or_say(
                fetcher, cache, folder, card_sets, progress, codes
            )
    except BaseException:
        shutil.rmtree(cache / folder, ignore_errors=True)
        raise
    return _Fetched(rels, card_sets, jrels, missing, skipped)


def _load_fetched(
    con: Connection, cache: Path, codes: list[str], fetched: _Fetched
) -> tuple[Run, dict[str, Any] | None, list[str]]:
    """Load the fetched files in one recorded transaction: the run, what MTGJSON's files
    loaded (None without them) and the sets still without an MTGJSON file."""
    from boosterkit.pipeline import mtgjson as mtgjsonmod

    rels, jrels = fetched.rels, fetched.jrels
    with recorded(con, "scryfall-set", " ".join(codes)) as run:
        counts = ingest.load_files(con, [cache / r for r in rels])
        found = mtgjsonmod.load_files(con, [cache / r for r in jrels]) if jrels else None
        # no file of its own, but loaded from another (MKM.json brings the TMKM tokens)
        missing = [c for c in fetched.missing if c not in (found or {}).get("sets", ())]
        run.sets, run.cards, run.cache_files = len(fetched.card_sets), counts["cards"], rels + jrels
        if missing:
            run.message = f"MTGJSON has no file for {', '.join(missing)}"
    return run, found, missing


def sync_sets(
    con: Connection,
    codes: list[str],
    *,
    cache: Path,
    client: ScryfallClient | None = None,
    progress: Progress | None = None,
    mtgjson: MtgjsonClient | None = None,
    use_mtgjson: bool = True,
) -> dict[str, Any]:
    """Fetch sets, every printing of them and their child sets, and MTGJSON's file of each
    (its booster data: the real products); load it all atomically.

    ``use_mtgjson=False`` skips MTGJSON. A set MTGJSON has no file for (404) is listed in
    the summary's ``mtgjson.missing`` (unless another set's file brought it, as MKM.json
    brings TMKM's tokens), not an error. Any other failure loads nothing.
    """
    from boosterkit.pipeline.mtgjson_client import MtgjsonClient

    t0 = time.perf_counter()
    codes = normalize_codes(codes)
    client = client or _scryfall_client()
    fetcher: MtgjsonClient | None = None  # the MTGJSON client when MTGJSON is used
    if use_mtgjson:
        fetcher = mtgjson = mtgjson or MtgjsonClient(
            sleep=client.sleep, clock=client.clock, on_wait=client.on_wait
        )
    client.bound_all(config.sync_deadline(), "sync deadline", *([fetcher] if fetcher else []))
    folder = f"scryfall/{_stamp()}"
    cachemod.remove_parts(cache)
    try:
        fetched = _fetch_all(client, fetcher, cache, folder, codes, progress)
    finally:
        for c in (client, mtgjson):  # the bound ends with this sync's fetches
            if c is not None:
                c.overall = None
    run, found, missing = _load_fetched(con, cache, codes, fetched)
    requests = client.requests + (mtgjson.requests if mtgjson else 0)
    return _summary(
        "scryfall-set",
        run.target,
        run,
        t0,
        set_codes=fetched.card_sets,
        requests=requests,
        mtgjson=_mtgjson_summary(use_mtgjson, found, missing),
        skipped_codes=fetched.skipped,
    )


def _mtgjson_summary(
    used: bool, found: dict[str, Any] | None, missing: list[str]
) -> dict[str, Any]:
    if not used:
        return {"skipped": True}
    found = found or {}
    keys = (
        "sets",
        "cards",
        "products",
        "resolved",
        "unresolved",
        "unresolved_sets",
        "source_sets_missing",
    )
    return {
        "skipped": False,
        "missing": missing,
        **{
            k: found.get(k, [] if k in ("sets", "products", "source_sets_missing") else 0)
            for k in keys
        },
    }


def mtgjson_note(m: dict[str, Any] | None) -> str:
    """The MTGJSON part of the one-line sync summary ('' for syncs that do not ask MTGJSON)."""
    if not m:
        return ""
    if m.get("skipped"):
        return "; MTGJSON skipped (--no-mtgjson)"
    parts = []
    if m["sets"]:
        n, cards = len(m["products"]), m["cards"]  # cards: printings Scryfall had not
        parts.append(
            f"MTGJSON: {', '.join(m['sets'])} ({n} product{'' if n == 1 else 's'}, "
            f"+{cards} printing{'' if cards == 1 else 's'})"
        )
    if m["missing"]:
        parts.append(f"MTGJSON has no file for {', '.join(m['missing'])}")
    if m["source_sets_missing"]:
        codes = " ".join(m["source_sets_missing"])
        parts.append(
            f"their sheets also draw from {', '.join(m['source_sets_missing'])} "
            f"(boosterkit sync {codes})"
        )
    return "".join(f"; {p}" for p in parts)


def replay_sets(con: Connection, files: list[Path], target: str | None) -> None:
    """``db rebuild`` replayer of ``sync SET``: its Scryfall files, then its MTGJSON files."""
    ingest.replay(con, [f for f in files if not f.name.startswith(MTGJSON_PREFIX)], target)
    mtgjson_files = [f for f in files if f.name.startswith(MTGJSON_PREFIX)]
    if mtgjson_files:
        from boosterkit.pipeline import mtgjson as mtgjsonmod

        mtgjsonmod.load_files(con, mtgjson_files)


def sync_set_list(
    con: Connection, *, cache: Path, client: ScryfallClient | None = None
) -> dict[str, Any]:
    """Refresh the ``sets`` table from ``/sets``."""
    t0 = time.perf_counter()
    client = client or _scryfall_client()
    rels, _ = _fetch_set_list(client, cache, f"scryfall/{_stamp()}")
    with recorded(con, "scryfall-sets", None) as run:
        counts = ingest.load_files(con, [cache / r for r in rels])
        run.sets, run.cache_files = counts["sets"], rels
    return _summary("scryfall-sets", None, run, t0, requests=client.requests)


def _bulk_entry(client: ScryfallClient, bulk_type: str) -> BulkData:
    from boosterkit.pipeline.scryfall.models import BulkData

    entries = [
        BulkData.from_json(d) for page in client.pages("/bulk-data") for d in page.get("data") or []
    ]
    for entry in entries:
        if entry.type == bulk_type:
            return entry
    offered = ", ".join(e.type for e in entries) or "nothing"
    raise InputError(f"bulk type {bulk_type!r}: Scryfall offers {offered}")


def sync_bulk(
    con: Connection,
    bulk_type: str,
    *,
    cache: Path,
    client: ScryfallClient | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Download a bulk file (skipped when ``updated_at`` is unchanged) and ingest it."""
    t0 = time.perf_counter()
    if bulk_type not in BULK_TYPES:
        raise InputError(
            f"bulk type {bulk_type!r}: expected one of {', '.join(BULK_TYPES)} (files of cards)"
        )
    client = client or _scryfall_client()
    entry = _bulk_entry(client, bulk_type)
    key = f"bulk:{bulk_type}"
    row = con.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
    known = json.loads(row[0]) if row else {}
    rel: str = known.get("file") or ""
    downloaded = not (
        known.get("updated_at") == entry.updated_at and rel and (cache / rel).exists()
    )
    if downloaded:
        safe = re.sub(r"[^0-9A-Za-z]+", "", entry.updated_at)
        raw = cache / "bulk" / f"{bulk_type}-{safe}.download"
        cachemod.remove_parts(cache)
        try:
            client.download(
                entry.download_uri,
                raw,
                (lambda d, t: progress(bulk_type, d, t)) if progress else None,
            )
            rel = cachemod.store_file(cache, raw, f"bulk/{bulk_type}-{safe}.json")
        finally:
            raw.unlink(missing_ok=True)
    with recorded(con, "scryfall-bulk", bulk_type) as run:
        counts = ingest.load_files(con, [cache / rel])
        run.sets = scalar(con, "SELECT count(DISTINCT set_code) FROM cards")
        run.cards, run.cache_files = counts["cards"], [rel]
        value = json.dumps({"updated_at": entry.updated_at, "file": rel})
        con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [key, value])
    return _summary(
        "scryfall-bulk", bulk_type, run, t0, updated_at=entry.updated_at, downloaded=downloaded
    )


def _file_copies(src: Path) -> list[list[str]]:
    """The cache copies ``sync --file`` may have made of ``src`` (the same name, size and
    mtime): as given, its two halves (a big plain array), gzip-compressed (by earlier releases)."""
    st = src.stat()
    key = f"files/{st.st_size}-{st.st_mtime_ns}-{src.name}"
    old = f"files/{st.st_size}-{st.st_mtime_ns}-{src.name.removesuffix('.gz')}.gz"
    return [[key], [f"{key}.1-of-2", f"{key}.2-of-2"], [old]]


def sync_file(con: Connection, path: str | os.PathLike[str], *, cache: Path) -> dict[str, Any]:
    """Ingest a local Scryfall file (array of cards, list object, card/set object; .gz or not).

    The file is checked first, then copied as given into the cache while DuckDB reads it. A
    big plain array is copied to the cache in two halves first, which DuckDB parses on two
    threads (``ingest.load_halves``): they are the cache copy then. A failed load keeps no
    copy; the same file synced again reuses the copy it has. A pipe (a FIFO, ``/dev/stdin``
    fed by another command) is read into a temporary file first (``files.readable``).
    """
    t0 = time.perf_counter()
    given = Path(path)
    with files.readable(given) as src:
        return _sync_file(con, src, cache, t0, str(given))


def _sync_file(con: Connection, src: Path, cache: Path, t0: float, given: str) -> dict[str, Any]:
    """``sync_file`` of the regular file ``src`` (``given``: the path as the user gave it)."""
    if not src.is_file():
        raise InputError(f"{src}: {'a directory, not a file' if src.is_dir() else 'no such file'}")
    files.check_expansion(src)
    shape = ingest.detect(con, src)
    forms = _file_copies(src)
    kept = next((f for f in forms if all((cache / r).exists() for r in f)), None)
    ours = [cache / r for r in forms[0] + forms[1]]  # what this sync may write
    cachemod.remove_parts(cache)  # halves a killed run left behind
    if kept is None:
        for p in ours:  # one half a killed run moved
            p.unlink(missing_ok=True)
    try:
        with recorded(con, "file", given) as run:
            split = halves.halves(src, cache) if shape == ingest.SPLIT else nullcontext(None)
            with split as parts:
                if parts is None:
                    counts = _load_whole(con, src, cache, kept, forms[0][0], run)
                else:
                    counts = _load_halves(con, src, parts, cache, kept, forms, run)
            run.sets, run.cards = counts["sets"] or counts["card_sets"], counts["cards"]
    except BaseException:
        if not kept:  # a failed load keeps no copy
            for p in ours:
                p.unlink(missing_ok=True)
        raise
    return _summary("file", given, run, t0, shape=shape.holds)


def _load_whole(
    con: Connection, src: Path, cache: Path, kept: list[str] | None, rel: str, run: Run
) -> dict[str, int]:
    """Load ``src`` read whole, copying it into the cache as ``rel`` meanwhile (unless a
    copy is ``kept``)."""
    with ThreadPoolExecutor(1) as pool:
        stored = pool.submit(lambda: kept or [cachemod.copy_file(cache, src, rel)])
        try:
            counts = ingest.load_files(con, [src])
        except BaseException:
            stored.exception()  # waits for the copy, which the caller then removes
            raise
        run.cache_files = stored.result()
    return counts


def _load_halves(
    con: Connection,
    src: Path,
    parts: list[str],
    cache: Path,
    kept: list[str] | None,
    forms: list[list[str]],
    run: Run,
) -> dict[str, int]:
    """Load ``src`` from its two halves, which become its cache copy ``forms[1]`` unless a
    copy is ``kept`` (or DuckDB rejected a half: then ``src`` is copied as given)."""
    counts, faithful = ingest.load_halves(con, src, parts)
    if kept:
        run.cache_files = kept
    elif faithful and halves.keep(parts, [cache / r for r in forms[1]]):
        run.cache_files = forms[1]
    else:
        run.cache_files = [cachemod.copy_file(cache, src, forms[0][0])]
    return counts
