"""``POST /pool``: sealed pools and draft pods over HTTP, as ``boosterkit pool``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, StringConstraints, model_validator

from boosterkit.errors import escape_controls
from boosterkit.formats import POOLS, literal
from boosterkit.generator.pools import (
    MAX_PACKS,
    pool_images,
    render_bytes,
    render_pools,
)
from boosterkit.service.deps import json_response
from boosterkit.service.models import MAX_PACKS as MAX_POOL_PACKS  # all players together
from boosterkit.service.models import MAX_REQUEST_PLAYERS, Name, Seed, SetCode

router = APIRouter()

if TYPE_CHECKING:
    PoolFormat = str
else:  # the registry's formats, JSON first (the order the answers name them in)
    PoolFormat = literal(POOLS.ordered("json", "html", "text", "md"))


#: A pool spec (``pool --packs afr:3,stx:3``): sets, products and counts.
PackSpec = Annotated[
    str, StringConstraints(min_length=1, max_length=400, pattern=r"^[^\x00-\x1f]+$")
]
#: What each binary or non-HTML text format is served as.
MEDIA = {"pdf": "application/pdf", "registration-pdf": "application/pdf",
         "registration-csv": "text/csv; charset=utf-8"}  # fmt: skip


class PoolRequest(BaseModel):
    """``POST /pool``: the arguments of ``boosterkit pool``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    set: SetCode | None = None
    players: int = Field(ge=1, le=MAX_REQUEST_PLAYERS)
    #: A count of ``set``'s product, or a spec of sets and products (``afr:3,stx:3``).
    packs: Annotated[int, Field(ge=1, le=MAX_PACKS)] | PackSpec = 6
    product: Name | None = None
    chaos: PackSpec | None = None
    duplicate: bool = False
    only_pack: int | None = Field(default=None, ge=1, le=MAX_PACKS)
    seed: Seed | None = None
    format: PoolFormat = "json"
    #: HTML only: each card with its Scryfall image and artist credit (``pool --images``).
    images: bool = False
    paper: Literal["a4", "letter"] = "a4"
    event: Name | None = None
    _event: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _size(self) -> PoolRequest:
        from boosterkit.errors import InputError
        from boosterkit.generator.events import event_spec

        try:
            self._event = event_spec(self.set, self.packs, self.product, chaos=self.chaos,
                                     duplicate=self.duplicate, only_pack=self.only_pack)  # fmt: skip
        except InputError as exc:
            raise ValueError(str(exc)) from None
        if self.players * self._event.packs > MAX_POOL_PACKS:
            raise ValueError(f"players × packs must be at most {MAX_POOL_PACKS} packs per request")
        refused = POOLS.refuses_images(self.format) if self.images else None
        if refused:
            raise ValueError(f"images: {refused} (format {'/'.join(POOLS.image_formats)})")
        return self

    def cost(self) -> int:
        """The packs this request may open: its count, or when a source names a product
        (which may be a sealed one, of more packs) as many as a request may."""
        counted: int = self.players * self._event.packs
        named = any(s.product for s in self._event.sources)
        return max(counted, MAX_POOL_PACKS) if named else counted

    def plain(self) -> bool:
        """A count of one set's product, as ``open_pools`` opens it."""
        return (
            isinstance(self.packs, int)
            and bool(self.set)
            and not (self.chaos or self.duplicate or self.only_pack)
        )


def _open(req: PoolRequest, database: Any) -> dict[str, Any]:
    from boosterkit.generator.events import pools_or_event

    data = pools_or_event(database, req._event, req.players, req.seed, plain=req.plain(),
                          max_packs=MAX_POOL_PACKS)  # fmt: skip
    return {**data, "event": req.event} if req.event else data


@router.post("/pool", tags=["packs"])
def pool(req: PoolRequest, request: Request) -> Response:
    """Each player's packs as a sorted pool: JSON as ``boosterkit pool --format json``, or
    the printable HTML (a page per player), text, Markdown, deck lists, registration sheets
    or PDF."""
    database = request.app.state.database  # read (through its cursor) only for a new product
    with request.app.state.budget.take(req.cost()):
        data = _open(req, database)
    if req.format == "json":
        return json_response(data)
    if POOLS.get(req.format).binary:
        return Response(
            render_bytes(data, req.format, paper=req.paper), media_type=MEDIA[req.format]
        )
    art = pool_images(database, data) if req.images else None
    body = escape_controls(render_pools(data, req.format, art), one_line=False)  # as the CLI
    if req.format in ("html", "registration-html"):
        return HTMLResponse(body)
    if req.format in MEDIA:
        return Response(body, media_type=MEDIA[req.format])
    return PlainTextResponse(body)


class CheckRequest(BaseModel):
    """``POST /pool/check``: the arguments of ``boosterkit pool check`` and the deck's text."""

    model_config = ConfigDict(extra="forbid", strict=True)

    deck: Annotated[str, StringConstraints(min_length=1, max_length=1 << 20)]
    set: SetCode | None = None
    packs: Annotated[int, Field(ge=1, le=MAX_PACKS)] | PackSpec | None = None
    product: Name | None = None
    chaos: PackSpec | None = None
    duplicate: bool = False
    seed: Seed | None = None
    player: int | None = Field(default=None, ge=1, le=64)


@router.post("/pool/check", tags=["packs"])
def pool_check(req: CheckRequest, request: Request) -> Response:
    """A registered deck against its seeded pool, as ``boosterkit pool check --format json``:
    ``{"valid", "missing": [{"name", "deck", "pool"}], "problems", …}`` (200 either way)."""
    from boosterkit.generator.deckcheck import check_deck
    from boosterkit.generator.events import parse_pool_args, player_pool

    database = request.app.state.database
    given = {k: v for k, v in req.model_dump(exclude={"deck"}).items() if v not in (None, False)}

    def pool_of(words: list[str]) -> Any:
        return player_pool({**parse_pool_args(words), **given}, db=database)

    with request.app.state.budget.take(MAX_PACKS):
        return json_response(check_deck(req.deck, "deck", pool_of))
