"""ETL: Scryfall and MTGJSON → DuckDB. ``pipeline.db`` owns the schema."""
