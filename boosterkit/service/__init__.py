"""The HTTP service over the same core as the CLI."""
