"""The command-line interface (typer). See ``cli.app``."""
