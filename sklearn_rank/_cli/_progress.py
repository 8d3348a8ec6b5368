"""A one-line progress display on stderr, shown only when stderr is a terminal."""

from __future__ import annotations

import os
import sys
import time

# A read shows its bytes once it has lasted this long, then at most this often.
_AFTER_S = 1.0
_EVERY_S = 0.1
_VERBS = {"read": "reading", "split": "parsing"}


class Progress:
    """``step(text)`` rewrites one status line; ``done()`` clears it;
    ``reader(path)`` gives the callback a file reader reports its bytes to.

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

    def reader(self, path: str):
        """``report(done, total, stage)`` for one file: from one second into
        the read on, the line shows the bytes done of the total ("reading
        run.txt: 120.0 of 480.0 MB"); None when the display is off."""
        if not self.active:
            return None
        name = os.path.basename(os.fspath(path))
        began = time.perf_counter()
        shown = [0.0]

        def report(done: int, total: int, stage: str = "read") -> None:
            now = time.perf_counter()
            if now - began < _AFTER_S or now - shown[0] < _EVERY_S:
                return
            shown[0] = now
            verb = _VERBS.get(stage, stage)
            self.step(f"{verb} {name}: {done / 1e6:.1f} of {total / 1e6:.1f} MB")

        return report

    def done(self) -> None:
        if self.active:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def showing(progress: Progress | None) -> bool:
    """Whether a progress line is on screen (reads then go one at a time, so
    that the line follows one file)."""
    return progress is not None and progress.active
