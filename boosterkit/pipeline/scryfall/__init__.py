"""Scryfall: the HTTP client (``client``), typed wrappers (``models``), pure mappings (``transform``)."""
