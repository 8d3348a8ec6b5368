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


def one_heap() -> None:
    """Let every thread of this process allocate from glibc's main arena.

    Worker threads otherwise get arenas of their own, and what one frees only
    that one reuses: numpy's temporaries on two threads then leave the
    command's resident memory about 1.2x its single-threaded peak with the same
    bytes live. Numpy allocates few, large blocks, so the one lock costs
    nothing measurable. For a process's entry point only (``-j`` on the
    command line), before its threads start; a no-op where there is no glibc.
    """
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-8, 1)  # M_ARENA_MAX = 1
    except (OSError, AttributeError):
        return
    ONE_HEAP[0] = True


ONE_HEAP = [False]  # one_heap() done: worker threads free into the shared heap
