"""PDF output: the printable HTML documents (setup sheets, pools, registration sheets) laid
out by WeasyPrint, on A4 or Letter, with the page breaks their CSS asks for.

WeasyPrint is the optional ``pdf`` extra (``pip install 'boosterkit[pdf]'``; it needs the
Pango library of the system, ``libpango-1.0-0`` on Debian): without it a PDF format is one
line saying so (exit 1), and every other format works. The document is rendered from the
HTML boosterkit wrote, with no other file: no URL is fetched (a ``data:`` URL aside), so a PDF
is the same offline and carries no card image. The same document and paper give the same
bytes (no creation date is written).

The documents' writers are beside their HTML: ``minigames.sheets.sheet_pdf``,
``generator.pools.pools_pdf``, ``generator.registration.registration_pdf``.
"""

from __future__ import annotations

import logging
from typing import Any

from boosterkit.errors import BoosterkitError, InputError

#: ``--paper``: the CSS page size of each paper.
PAPERS = {"a4": "A4", "letter": "letter"}
DEFAULT_PAPER = "a4"
NEEDS = (
    "PDF output needs WeasyPrint and the Pango library: pip install 'boosterkit[pdf]' "
    "(and on Debian or Ubuntu: apt-get install libpango-1.0-0 libpangoft2-1.0-0)"
)


class PdfUnavailable(BoosterkitError):
    """WeasyPrint (or the system library it loads) is not installed: a failure of the
    machine, not of the input (exit 1)."""


def _weasyprint() -> Any:
    try:
        import weasyprint
    except (ImportError, OSError) as exc:  # OSError: Pango's shared library not found
        raise PdfUnavailable(f"{NEEDS} ({type(exc).__name__}: {str(exc).splitlines()[0]})") from exc
    return weasyprint


def check_paper(paper: str) -> str:
    """``paper`` as a key of ``PAPERS`` (case-insensitive); ``InputError`` naming the others."""
    key = str(paper).strip().lower()
    if key not in PAPERS:
        raise InputError(f"paper: {paper!r}: expected one of {', '.join(PAPERS)}", field="paper")
    return key


def _fetcher(weasyprint: Any) -> Any:
    """A URL fetcher that fetches nothing but ``data:`` URLs."""
    urls = weasyprint.urls
    if hasattr(urls, "URLFetcher"):
        return urls.URLFetcher(allowed_protocols=["data"])

    def fetch(url: str, *args: Any, **kwargs: Any) -> Any:  # WeasyPrint before URLFetcher
        if not url.startswith("data:"):
            raise ValueError(f"not fetched: {url[:60]}")
        return urls.default_url_fetcher(url, *args, **kwargs)

    return fetch


def html_to_pdf(document: str, paper: str = DEFAULT_PAPER) -> bytes:
    """The PDF of an HTML ``document`` on ``paper`` (``PAPERS``)."""
    size = PAPERS[check_paper(paper)]
    weasyprint = _weasyprint()
    page = weasyprint.CSS(string=f"@page {{ size: {size}; }}")
    log = logging.getLogger("weasyprint")
    level = log.level
    log.setLevel(logging.ERROR)  # its warnings about CSS it ignores are not the user's business
    try:
        html = weasyprint.HTML(string=document, url_fetcher=_fetcher(weasyprint))
        pdf: bytes = html.write_pdf(stylesheets=[page])
    finally:
        log.setLevel(level)
    return pdf
