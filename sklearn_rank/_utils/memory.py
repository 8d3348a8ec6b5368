"""Process memory: giving freed heap blocks back to the system."""

from __future__ import annotations


def trim_heap() -> None:
    """Give the memory freed on a finished worker thread back to the system.

    glibc's allocator keeps the blocks a thread frees in that thread's own arena,
    where the main thread never reuses them: after a parse on a second thread the
    command's later peak (the join) would carry them (about 35 MB on a 5M-line
    run). ``malloc_trim(0)`` returns the free pages of every arena. A no-op where
    there is no glibc.
    """
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def worker_heap() -> None:
    """Let the threads of this process allocate from at most two glibc
    arenas: the main thread's, and one more that the worker threads share
    (glibc hands a new thread the first arena it finds unlocked).

    Worker threads otherwise get arenas of their own, and what one frees only
    that one reuses: numpy's temporaries on two threads then leave the
    command's resident memory about 1.1-1.26x its single-threaded peak with
    the same bytes live. One arena for every thread keeps the peak but makes
    every allocation of every thread wait on one lock (and on a descheduled
    holder): on two cores ``eval -j 2`` ran 0.91x ``-j 1`` that way, 0.72x
    with two arenas, at 0.99x the memory (what the workers free is trimmed
    after each threaded step, :func:`trim_heap`). For a process's entry
    point only (``-j`` on the command line), before its threads start; a
    no-op where there is no glibc.
    """
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-8, 2)  # M_ARENA_MAX = 2
    except (OSError, AttributeError):
        return
