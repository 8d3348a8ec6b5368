"""The ``n_jobs`` parameter: scikit-learn's convention, one resolver.

``None`` means 1 unless inside ``joblib.parallel_config(n_jobs=...)``, ``-1``
all cores, ``-2`` all but one, and so on (``joblib.effective_n_jobs``, the public
function scikit-learn reads); 0 and non-integers are refused with the one error
format of :mod:`.params`.
"""

from __future__ import annotations

import numbers
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from .params import param_error

R = TypeVar("R")


def check_n_jobs(n_jobs: Any, func: str) -> None:
    """Refuse an ``n_jobs`` that is neither None nor a nonzero int."""
    if n_jobs is None:
        return
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise param_error(
            "n_jobs", func, "an int (not 0; -1 for all cores) or None", n_jobs
        )
    if n_jobs == 0:
        raise param_error(
            "n_jobs",
            func,
            "an int (not 0; -1 for all cores) or None",
            n_jobs,
            "Pass n_jobs=1 for one thread.",
        )


def effective_n_jobs(n_jobs: Any, func: str) -> int:
    """The number of threads ``n_jobs`` asks for (checked first), at least 1."""
    check_n_jobs(n_jobs, func)
    if n_jobs == 1 or (n_jobs is None and "joblib" not in sys.modules):
        return 1  # None outside any parallel_config (joblib not even imported)
    if n_jobs is not None and n_jobs > 0 and "joblib" not in sys.modules:
        # No parallel_config can be active: joblib would answer n_jobs itself
        # (its import, about 50 ms, is the command's ``-j N`` serial time),
        # except in a daemon process (1), which it is left to say.
        process = sys.modules.get("multiprocessing")
        if process is None or not process.current_process().daemon:
            return int(n_jobs)
    import joblib  # a dependency of scikit-learn; read only when asked

    return max(int(joblib.effective_n_jobs(n_jobs)), 1)


def in_background(work: Callable[[], R]) -> Callable[[], R]:
    """Start ``work`` on a thread of its own; the returned callable waits for it
    and returns its result or raises its error. Where the caller raises first,
    the thread ends on its own (a daemon: it never holds the interpreter open)."""
    box: list = []

    def run() -> None:
        try:
            box.append((True, work()))
        except BaseException as error:  # handed to the caller, who raises it
            box.append((False, error))

    thread = threading.Thread(target=run, name="sklearn_rank-background", daemon=True)
    thread.start()

    def result() -> R:
        thread.join()
        ok, value = box[0]
        if not ok:
            raise value
        return value

    return result
