"""``POST /pool``: sealed pools and draft pods over HTTP, as ``boosterkit pool``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict, Field, model_validator

from boosterkit.errors import escape_controls
from boosterkit.formats import POOLS, literal
from boosterkit.generator.pools import MAX_PACKS, open_pools, pool_images, render_pools
from boosterkit.service.deps import json_response
from boosterkit.service.models import MAX_PACKS as MAX_POOL_PACKS  # all players together
from boosterkit.service.models import MAX_REQUEST_PLAYERS, Name, Seed, SetCode

router = APIRouter()

if TYPE_CHECKING:
    PoolFormat = str
else:  # the registry's formats, JSON first (the order the answers name them in)
    PoolFormat = literal(POOLS.ordered("json", "html", "text", "md"))


class PoolRequest(BaseModel):
    """``POST /pool``: the arguments of ``boosterkit pool``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    set: SetCode
    players: int = Field(ge=1, le=MAX_REQUEST_PLAYERS)
    packs: int = Field(default=6, ge=1, le=MAX_PACKS)
    product: Name | None = None
    seed: Seed | None = None
    format: PoolFormat = "json"
    #: HTML only: each card with its Scryfall image and artist credit (``pool --images``).
    images: bool = False

    @model_validator(mode="after")
    def _size(self) -> PoolRequest:
        if self.players * self.packs > MAX_POOL_PACKS:
            raise ValueError(f"players × packs must be at most {MAX_POOL_PACKS} packs per request")
        refused = POOLS.refuses_images(self.format) if self.images else None
        if refused:
            raise ValueError(f"images: {refused} (format {'/'.join(POOLS.image_formats)})")
        return self


@router.post("/pool", tags=["packs"])
def pool(req: PoolRequest, request: Request) -> Response:
    """Each player's packs as a sorted pool: JSON as ``boosterkit pool --format json``, or
    the printable HTML (a page per player), text, Markdown or deck lists."""
    database = request.app.state.database  # read (through its cursor) only for a new product
    with request.app.state.budget.take(req.players * req.packs):
        data = open_pools(req.set, req.players, req.packs, req.product, req.seed, db=database)
    if req.format == "json":
        return json_response(data)
    art = pool_images(database, data) if req.images else None
    body = escape_controls(render_pools(data, req.format, art), one_line=False)  # as the CLI
    if req.format == "html":
        return HTMLResponse(body)
    return PlainTextResponse(body)
