"""A one-line progress display on stderr, shown only when stderr is a terminal."""

from __future__ import annotations

import sys
import time


class Progress:
    """``step(text)`` rewrites one status line; ``done()`` clears it.

    Silent when stderr is not a terminal (pipes, CI logs, tests) or ``quiet``.
    """

    def __init__(self, quiet: bool, stream=None):
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", lambda: False)
        self.active = not quiet and bool(isatty())
        self.start = time.perf_counter()

    def step(self, text: str) -> None:
        if self.active:
            elapsed = time.perf_counter() - self.start
            self.stream.write(f"\r\x1b[K[{elapsed:5.1f}s] {text}")
            self.stream.flush()

    def done(self) -> None:
        if self.active:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
