"""Shared inputs of the tests that compare with trec_eval's expected files."""

from __future__ import annotations

# Two lines appended to results.test: the last document of query 301 again,
# one point lower (rank 501), and the first of 302 again at score -1000.
DUPLICATES = (
    "301\tQ0\tFBIS3-20713\t999\t0.655716\tSTANDARD\n"
    "302\tQ0\tFR940126-2-00106\t999\t-1000\tSTANDARD\n"
)

# (expected file, flags): trec_eval's output on results.test + DUPLICATES,
# where a copy below the -M cut is computed (trec_eval checks the top M only).
DUPLICATE_CASES = [
    ("out.test.dup_M100", ["-q", "-M", "100", "-m", "all_trec"]),
    ("out.test.dup_M500c", ["-q", "-M", "500", "-c", "-m", "official"]),
]
