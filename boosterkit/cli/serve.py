"""``boosterkit serve``: the HTTP API and the organizer page (``boosterkit.service``)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add ``serve`` to ``app``."""

    @app.command()
    def serve(
        ctx: typer.Context,
        host: str = typer.Option(
            "127.0.0.1", "--host", metavar="HOST", help="Address to listen on."
        ),
        port: int = typer.Option(
            8000, "--port", min=1, max=65535, metavar="PORT", help="Port to listen on."
        ),
        allow_host: list[str] = typer.Option(
            None,
            "--allow-host",
            metavar="NAME",
            help="Also answer requests for this Host name (repeatable; '*' for any). "
            "Always: 127.0.0.1, localhost, [::1] and --host.",
        ),
        workers: int | None = typer.Option(
            None,
            "--workers",
            min=1,
            metavar="N",
            help="Worker processes answering requests (default: the number of cores; "
            "1: this process only). Each holds 1/N of the work budget.",
        ),
    ) -> None:
        """Serve the HTTP API (OpenAPI at /docs) and the organizer page at /, read-only."""
        from boosterkit.service import workers as pool

        settings = pool.checked_settings(ctx.obj.path, host, allow_host or [], workers)
        served = "the bundled sample (AFR)" if ctx.obj.sample else ctx.obj.path
        message = (
            f"boosterkit: serving {served} on http://{host}:{port}/ with "
            f"{settings.workers} worker(s) (Ctrl-C stops)"
        )
        pool.run(settings, host, port, listening=lambda: typer.echo(message, err=True))
