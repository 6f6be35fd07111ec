"""The framework's floor for ``bench/serve.py --floor``: a FastAPI app, served by uvicorn with
its defaults, that answers ``POST /packs``, ``POST /deal`` and ``GET /minigames`` with
boosterkit's own answers as constant bytes (read from a folder at start).

Each route takes its body as the service's request model (``service.models``), so the floor
pays what FastAPI and pydantic cost to read and check a request, then answers what boosterkit
answered for one fixed request of the same shape: only boosterkit's own work is left out.

    python bench/floor_app.py FOLDER PORT [WORKERS]   # FOLDER: packs.json, deal.json, minigames.json

``WORKERS`` > 1 runs uvicorn's own ``--workers`` (its processes share one socket).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import Response

from boosterkit.service.models import DealRequest, PacksRequest


def floor_app(folder: Path) -> FastAPI:
    """The app answering each route with ``folder``'s bytes for it."""
    packs = (folder / "packs.json").read_bytes()
    dealt = (folder / "deal.json").read_bytes()
    games = (folder / "minigames.json").read_bytes()
    app = FastAPI()

    @app.post("/packs")
    def post_packs(req: PacksRequest) -> Response:
        return Response(packs, media_type="application/json")

    @app.post("/deal")
    def post_deal(req: DealRequest) -> Response:
        return Response(dealt, media_type="application/json")

    @app.get("/minigames")
    def get_minigames() -> Response:
        return Response(games, media_type="application/json")

    @app.get("/health")
    def health() -> Response:
        return Response(b'{"status": "ok"}\n', media_type="application/json")

    return app


def create() -> FastAPI:
    """The app over the folder in ``BENCH_FLOOR_ANSWERS`` (uvicorn's factory, per worker)."""
    return floor_app(Path(os.environ["BENCH_FLOOR_ANSWERS"]))


if __name__ == "__main__":
    import uvicorn

    os.environ["BENCH_FLOOR_ANSWERS"] = sys.argv[1]
    uvicorn.run("floor_app:create", factory=True, host="127.0.0.1", port=int(sys.argv[2]),
                workers=int(sys.argv[3]) if len(sys.argv) > 3 else None,
                app_dir=os.path.dirname(os.path.abspath(__file__)), log_level="warning")  # fmt: skip
