"""Regenerate the pictures of docs/plots.md from the page's own code.

    python docs/make_plots.py

Runs every ``>>>`` example of docs/plots.md in order (the test suite runs the same
examples as a doctest); at each picture link ``![...](images/plots/NAME.png)`` it
saves the figure of the display last assigned to ``disp`` as
``docs/images/plots/NAME.png``.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

DOCS = Path(__file__).resolve().parent
PAGE = DOCS / "plots.md"
LINK = re.compile(r"!\[[^\]]*\]\((images/plots/(\w+)\.png)\)")
SIZE = (7.0, 4.4)  # inches; the side-by-side figure keeps its own size
DPI = 100


def main() -> int:
    sys.path.insert(0, str(DOCS.parent))  # this checkout's package
    text = PAGE.read_text(encoding="utf-8")
    parser = doctest.DocTestParser()
    namespace: dict = {}
    written = []
    position = 0
    for match in LINK.finditer(text):
        chunk = text[position : match.start()]
        position = match.end()
        for example in parser.get_examples(chunk):
            with contextlib.redirect_stdout(io.StringIO()):  # the printed tables
                exec(compile(example.source, str(PAGE), "exec"), namespace)
        fig = namespace["disp"].figure_
        if match.group(2) != "combined":
            fig.set_size_inches(*SIZE)
            fig.set_layout_engine("constrained")
        out = DOCS / match.group(1)
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=DPI, metadata={"Software": None})
        written.append(out.relative_to(DOCS.parent))
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
