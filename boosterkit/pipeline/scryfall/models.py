"""Typed views of the few Scryfall objects the sync reasons about in Python.

Decision (see docs/architecture.md): scrython 3.x fetches with urllib from a fixed base
URL, so it is NOT used as a transport — ``client.ScryfallClient`` (on ``pipeline.http``) is. Its
typed wrapper for set objects (``scrython.sets.Object``, no I/O) is used for the sets the
sync walks (codes, parents, types). Card objects are never wrapped: DuckDB reads them
straight from the cached JSON. Bulk-data entries get a small dataclass here because
scrython 3.1's bulk-data wrapper has no ``download_uri`` accessor (only ``jsonl_download_uri``,
absent from older listings), and ``download_uri`` is what Scryfall tells us to follow.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import scrython

from boosterkit.errors import FetchError

if TYPE_CHECKING:
    from scrython.types import ScryfallSetData


def card_set(data: Mapping[str, Any]) -> scrython.sets.Object:
    """Wrap a fetched set object (typed accessors: ``code``, ``parent_set_code``, ``set_type``…)."""
    if data.get("object") != "set" or not data.get("code"):
        raise FetchError(f"expected a Scryfall set object, got object={data.get('object')!r}")
    # checked above as far as boosterkit reads it; scrython types it as its full TypedDict
    return scrython.sets.Object(cast("ScryfallSetData", data))


def child_sets(parent: str, sets: Iterable[scrython.sets.Object]) -> list[scrython.sets.Object]:
    """Sets whose ``parent_set_code`` is ``parent`` (tokens t…, minigames m…, art series a…)."""
    parent = parent.lower()
    return [s for s in sets if (s.parent_set_code or "").lower() == parent]


@dataclass(frozen=True)
class BulkData:
    """One entry of ``/bulk-data``."""

    type: str
    updated_at: str
    download_uri: str
    size: int | None = None
    content_encoding: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BulkData:
        try:
            return cls(
                type=str(data["type"]),
                updated_at=str(data["updated_at"]),
                download_uri=str(data["download_uri"]),
                size=data.get("size"),
                content_encoding=data.get("content_encoding"),
            )
        except KeyError as exc:
            raise FetchError(
                f"bulk-data entry without {exc.args[0]!r}: {dict(data)!r:.200}"
            ) from None
