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
    ) -> None:
        """Serve the HTTP API (OpenAPI at /docs) and the organizer page at /, read-only."""
        import uvicorn

        from boosterkit.service.app import create_app
        from boosterkit.service.limits import allowed_hosts

        app = create_app(ctx.obj.path, allowed_hosts=allowed_hosts(host, allow_host or []))
        app.state.database.check()  # fail now, with one line, rather than on every request
        typer.echo(
            f"boosterkit: serving {ctx.obj.path} on http://{host}:{port}/ (Ctrl-C stops)", err=True
        )
        uvicorn.run(app, host=host, port=port, log_level="warning")
