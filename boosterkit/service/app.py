"""The HTTP API and the organizer page: the same library calls as the CLI, over HTTP.

Every JSON answer is the library's return value serialised by ``serialize.to_json``, the
CLI's own serialiser, so ``POST /packs`` is byte for byte ``boosterkit open --format json``
and ``POST /deal`` is ``boosterkit deal --format json`` for the same arguments.

Heavy routes (packs, deals, sheets, validation) hold their packs in ``app.state.budget``
(``limits.WorkBudget``) while they run; ``limits.HostAllowlist`` checks every ``Host``.
``POST /packs`` and ``POST /deal`` are answered by ``fast.FastRoutes`` with the routes' own
functions (``packs_answer``, ``deal_answer``), FastAPI's routes taking what it hands on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, FastAPI, Query, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.datastructures import State
from swagger_ui_bundle import swagger_ui_path

from boosterkit import __version__
from boosterkit.errors import escape_controls
from boosterkit.generator.output import run_json
from boosterkit.generator.packs import prepare
from boosterkit.generator.products import set_products
from boosterkit.minigames import deal, list_minigames, render_sheet, validate_setup
from boosterkit.minigames.labels import Lang
from boosterkit.minigames.sheets import sheet_images
from boosterkit.pipeline.db import Connection
from boosterkit.pipeline.queries import IMAGE_HOSTS, list_sets
from boosterkit.service import pool_routes, referee_routes
from boosterkit.service.database import ReadOnlyDatabase
from boosterkit.service.deps import answer, cursor, game_packs, json_response
from boosterkit.service.errors import BodyLimit, install_error_handlers
from boosterkit.service.fast import Answer, FastRoutes
from boosterkit.service.limits import (
    DEFAULT_HOSTS,
    MAX_BODY_BYTES_IN_FLIGHT,
    HostAllowlist,
    WorkBudget,
    packs_cost,
)
from boosterkit.service.models import (
    MAX_BODY_BYTES,
    MAX_PACKS,
    MAX_REQUEST_PLAYERS,
    DealRequest,
    PacksRequest,
    QueryInt,
    QuerySeed,
)

STATIC = Path(__file__).with_name("static")
#: Where a sheet's card images may come from (``pipeline.queries.IMAGE_HOSTS``).
_IMAGES = " ".join(f"https://{h} https://*.{h}" for h in IMAGE_HOSTS)
#: The organizer page: its own script, styles and requests only (the sheet's styles are
#: constructed style sheets, not inline), card images from Scryfall's hosts.
PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    f"img-src 'self' {_IMAGES}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
#: A sheet opened by itself: its inline style sheet and card images, nothing that runs.
SHEET_CSP = (
    f"default-src 'none'; style-src 'unsafe-inline'; img-src {_IMAGES}; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
NOSNIFF = {"X-Content-Type-Options": "nosniff"}

router = APIRouter()

# The busiest routes come first: FastAPI tries a request's path against the routes in the
# order they were made, a few microseconds each.


@router.post("/packs", tags=["packs"])
async def packs(req: PacksRequest, request: Request) -> Response:
    """Open packs: identical to ``boosterkit open --format json`` with the same arguments."""
    return await packs_answer(request.app.state, req)


async def packs_answer(state: State, req: PacksRequest) -> Response:
    """``POST /packs``'s answer to ``req`` (the route's, and ``fast.FastRoutes``')."""

    def work(wait: bool) -> Response:
        # the database is read (through its cursor) only for a new product
        compiled, seed = prepare(req.set, req.product, req.count, req.seed, state.database)
        cost = packs_cost(compiled.product.code, compiled.pack_cards, req.count, MAX_PACKS)
        with state.budget.take(cost, wait=wait):
            body = run_json(compiled, seed, req.count)
        return Response(body, media_type="application/json")

    return await answer(state, req.count, work)


@router.post("/deal", tags=["minigames"])
async def deal_setup(req: DealRequest, request: Request) -> Response:
    """Deal a minigame setup: identical to ``boosterkit deal --format json``."""
    return await deal_answer(request.app.state, req)


async def deal_answer(state: State, req: DealRequest) -> Response:
    """``POST /deal``'s answer to ``req`` (the route's, and ``fast.FastRoutes``')."""
    units = game_packs(req.minigame, req.players)

    def work(wait: bool) -> Response:
        with state.budget.take(units, wait=wait):
            return json_response(_deal(req, state.database))

    return await answer(state, units, work)


def _deal(req: DealRequest, database: ReadOnlyDatabase) -> Any:
    return deal(  # the database is read (through its cursor) only if the deal needs to
        database,
        req.minigame,
        req.players,
        set_code=req.set,
        product=req.product,
        seed=req.seed,
        strict_backs=req.strict_backs,
        lang=req.lang,
    )


@router.get("/health", tags=["meta"])
async def health(request: Request) -> Response:
    """``{"status": "ok", …}`` with the database's name, schema version and row counts
    (read once per database content, then answered from memory)."""

    def work(wait: bool) -> Response:
        info = request.app.state.database.health()
        return json_response({"status": "ok", "version": __version__, **info})

    return await answer(request.app.state, 0, work)


@router.get("/sets", tags=["data"])
def sets(
    set_type: str | None = Query(None, alias="type", max_length=40, description="e.g. expansion"),
    con: Connection = Depends(cursor),
) -> Response:
    """The sets in the database, as ``boosterkit sets --json``."""
    return json_response(list_sets(con, set_type=set_type))


@router.get("/sets/{code}/products", tags=["data"])
def products(code: str, request: Request) -> Response:
    """The booster products of a set, as ``boosterkit products SET --json``."""
    return json_response(set_products(request.app.state.database, code).products)


@router.get("/sets/{code}/sealed", tags=["data"])
def sealed(code: str, request: Request) -> Response:
    """The sealed products of a set and what each holds, as ``boosterkit products SET
    --sealed --json``."""
    from boosterkit.generator.sealed import sealed_products

    return json_response(sealed_products(request.app.state.database, code))


@router.get("/minigames", tags=["minigames"])
async def minigames(request: Request) -> Response:
    """The minigame catalogue, as ``boosterkit minigames --json``."""
    return await answer(request.app.state, 0, lambda wait: json_response(list_minigames()))


@router.post("/validate", tags=["minigames"])
def validate(
    request: Request,
    setup: dict[str, Any] = Body(..., description="a setup JSON as /deal returns it"),
    exact: bool = Query(False, description="also equal to /deal for its arguments"),
) -> Response:
    """Check a setup: ``{"valid": bool, "violations": [...]}`` (200 either way)."""
    packs = setup.get("packs")
    with request.app.state.budget.take(len(packs) if isinstance(packs, list) else 1):
        result = validate_setup(request.app.state.database, setup, exact=exact)
    return json_response(result)


@router.get("/sheet", tags=["minigames"], response_class=HTMLResponse)
def sheet(
    minigame: Annotated[str, Query(min_length=1, max_length=80)],
    players: Annotated[QueryInt, Query(ge=1, le=MAX_REQUEST_PLAYERS)],
    set_code: str | None = Query(None, alias="set", min_length=1, max_length=16),
    product: str | None = Query(None, min_length=1, max_length=80),
    seed: QuerySeed | None = Query(None),
    strict_backs: bool | None = Query(None),
    lang: Lang = Query("en"),
    images: bool = Query(False, description="each card shown with its Scryfall image"),
    format: Literal["html", "pdf"] = Query("html", description="pdf: as `deal -f pdf`"),
    paper: Literal["a4", "letter"] = Query("a4", description="the PDF's paper"),
    *,
    request: Request,
) -> Response:
    """The printable HTML setup sheet, as ``boosterkit deal --format html [--images]``; or
    its PDF (``format=pdf``, as ``deal --format pdf --paper``)."""
    req = DealRequest(
        minigame=minigame,
        players=players,
        set=set_code,
        product=product,
        seed=seed,
        strict_backs=strict_backs,
        lang=lang,
    )
    with request.app.state.budget.take(game_packs(req.minigame, req.players)):
        setup = _deal(req, request.app.state.database)
        if format == "pdf":
            from boosterkit.minigames.sheets import sheet_pdf

            return Response(sheet_pdf(setup, paper=paper), media_type="application/pdf")
        art = sheet_images(request.app.state.database, setup) if images else None
        headers = {"Content-Security-Policy": SHEET_CSP, **NOSNIFF}
        sheet = escape_controls(render_sheet(setup, "html", art), one_line=False)  # as the CLI
        return HTMLResponse(sheet, headers=headers)


@router.get("/", include_in_schema=False)
def page() -> FileResponse:
    """The organizer page."""
    headers = {"Content-Security-Policy": PAGE_CSP, **NOSNIFF}
    return FileResponse(STATIC / "index.html", media_type="text/html", headers=headers)


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> FileResponse:
    """The page's icon (an SVG), also for browsers that ask for ``/favicon.ico`` by habit."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


def create_app(
    db_path: str | Path,
    *,
    busy_timeout: float = 3.0,
    linger: float = 1.0,
    allowed_hosts: Iterable[str] = DEFAULT_HOSTS,
    budget: WorkBudget | None = None,
    body_budget: int = MAX_BODY_BYTES_IN_FLIGHT,
) -> FastAPI:
    """The service over the database at ``db_path``, opened read-only while requests need it.

    ``busy_timeout``: seconds a request waits for a writer (a sync) to release the database
    before answering 503. ``linger``: seconds the file stays open after the last request
    (a sync can open it for writing once the service has been idle that long).
    ``allowed_hosts``: the ``Host`` names answered (``limits.allowed_hosts``; ``*`` for any);
    a test client must use one, e.g. ``TestClient(app, base_url="http://127.0.0.1")``.
    ``budget``: packs in flight over all requests (default ``limits.MAX_PACKS_IN_FLIGHT``);
    ``body_budget``: request-body bytes in flight (``serve --workers N`` divides both).
    """
    database = ReadOnlyDatabase(db_path, busy_timeout=busy_timeout, linger=linger)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        database.close()

    app = FastAPI(
        title="boosterkit",
        version=__version__,
        summary="Seeded Magic booster packs and minigame setups over HTTP.",
        lifespan=lifespan,
        docs_url=None,  # served below from the packaged Swagger UI, not from a CDN
        redoc_url=None,
    )
    app.state.database = database
    app.state.budget = budget or WorkBudget()
    install_error_handlers(app)
    fast_routes: dict[str, tuple[type[BaseModel], Answer]] = {
        "/packs": (PacksRequest, packs_answer),
        "/deal": (DealRequest, deal_answer),
    }
    app.add_middleware(FastRoutes, routes=fast_routes)  # added first: runs last, on the body
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES, max_in_flight=body_budget)
    app.add_middleware(HostAllowlist, hosts=list(allowed_hosts))  # added last: runs first
    app.include_router(router)
    app.include_router(referee_routes.router)
    app.include_router(pool_routes.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.mount("/docs-assets", StaticFiles(directory=swagger_ui_path), name="docs-assets")
    return app


@router.get("/docs", include_in_schema=False)
def docs() -> HTMLResponse:
    """The OpenAPI documentation (Swagger UI shipped by ``swagger-ui-bundle-v2``: works offline)."""
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="boosterkit API",
        swagger_js_url="/docs-assets/swagger-ui-bundle.js",
        swagger_css_url="/docs-assets/swagger-ui.css",
        swagger_favicon_url="/docs-assets/favicon-32x32.png",
    )
