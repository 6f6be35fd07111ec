"""``POST /pool``: sealed pools and draft pods over HTTP, as ``boosterkit pool``."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict, Field, model_validator

from boosterkit.generator.pools import MAX_PACKS, open_pools, pool_images, render_pools
from boosterkit.pipeline.db import Connection
from boosterkit.service.deps import cursor, json_response
from boosterkit.service.models import MAX_PACKS as MAX_POOL_PACKS  # all players together
from boosterkit.service.models import MAX_REQUEST_PLAYERS, Name, Seed, SetCode

router = APIRouter()


class PoolRequest(BaseModel):
    """``POST /pool``: the arguments of ``boosterkit pool``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    set: SetCode
    players: int = Field(ge=1, le=MAX_REQUEST_PLAYERS)
    packs: int = Field(default=6, ge=1, le=MAX_PACKS)
    product: Name | None = None
    seed: Seed | None = None
    format: Literal["json", "html", "text", "md", "decklist"] = "json"
    #: HTML only: each card with its Scryfall image and artist credit (``pool --images``).
    images: bool = False

    @model_validator(mode="after")
    def _size(self) -> PoolRequest:
        if self.players * self.packs > MAX_POOL_PACKS:
            raise ValueError(f"players × packs must be at most {MAX_POOL_PACKS} packs per request")
        if self.images and self.format != "html":
            raise ValueError("images: only HTML pools carry card images (format html)")
        return self


@router.post("/pool", tags=["packs"])
def pool(req: PoolRequest, request: Request, con: Connection = Depends(cursor)) -> Response:
    """Each player's packs as a sorted pool: JSON as ``boosterkit pool --format json``, or
    the printable HTML (a page per player), text, Markdown or deck lists."""
    with request.app.state.budget.take(req.players * req.packs):
        data = open_pools(
            req.set,
            req.players,
            req.packs,
            req.product,
            req.seed,
            db=con,
            products=request.app.state.database.products,
        )
    if req.format == "json":
        return json_response(data)
    body = render_pools(data, req.format, pool_images(con, data) if req.images else None)
    if req.format == "html":
        return HTMLResponse(body)
    return PlainTextResponse(body)
