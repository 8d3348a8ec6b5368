#!/usr/bin/env python
"""Benchmark of sklearn_rank's grouped evaluation against floors and peer libraries.

Standard library and numpy only; every peer (pytrec_eval, ranx, torchmetrics,
ir_measures, scikit-learn, pandas) is optional and used when installed
(``pip install -e ".[bench]"``). Every figure is a ratio measured side by side in
one run: medians of interleaved rounds after a warm-up. The sklearn_rank measured
is the one of the checkout holding this script. The parts live in ``_bench/``:
``data`` (synthetic data), ``shapes`` (the input shapes of issue 14), ``peers``
(floors and peer libraries), ``timing``, ``sections`` (agreement, memory, import
time, sorts), ``report`` and ``cli``. The targets the ratios are read against are
in docs/benchmarks.md.

Run ``python benchmarks/bench_evaluate.py --help``.
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)
# This checkout's sklearn_rank, here and in every child process, over an installed one.
sys.path[:0] = [p for p in (_ROOT, _HERE) if p not in sys.path]
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (_ROOT, os.environ.get("PYTHONPATH")) if p
)

from _bench.cli import main  # noqa: E402
from _bench.data import Data, make_data  # noqa: E402
from _bench.shapes import SHAPE_NAMES, SHAPES, make_shape  # noqa: E402

__all__ = ["SHAPES", "SHAPE_NAMES", "Data", "main", "make_data", "make_shape"]

if __name__ == "__main__":
    sys.exit(main())
