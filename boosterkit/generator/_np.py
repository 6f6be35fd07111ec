"""numpy, imported with one BLAS thread: every boosterkit module that uses numpy imports it
from here (``from boosterkit.generator._np import np``).

boosterkit does no linear algebra, but the OpenBLAS that numpy's wheels load starts a
thread per core when numpy is imported, and those threads spin on idle cores for a while
(about 0.1 CPU-second a process on 2 cores; `bench/speed.py`). So, before numpy is first
imported, ``OPENBLAS_NUM_THREADS`` is set to 1 — unless the user set one of the variables
OpenBLAS reads (``THREAD_VARIABLES``: theirs wins), or numpy is imported already (then it
has read them). Child processes (``open --jobs``, ``serve --workers``) inherit the setting.
"""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping

__all__ = ["THREAD_VARIABLES", "np", "one_blas_thread"]

#: What OpenBLAS reads for its thread count, in its order of precedence.
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def one_blas_thread(environ: MutableMapping[str, str] = os.environ) -> bool:
    """Set ``OPENBLAS_NUM_THREADS=1`` in ``environ`` if numpy is not imported yet and none of
    ``THREAD_VARIABLES`` is set; True when it did."""
    if "numpy" in sys.modules or any(name in environ for name in THREAD_VARIABLES):
        return False
    environ["OPENBLAS_NUM_THREADS"] = "1"
    return True


one_blas_thread()

import numpy as np  # noqa: E402  (after the thread count is set)
