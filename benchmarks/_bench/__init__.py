"""The parts of benchmarks/bench_evaluate.py (see docs/benchmarks.md)."""
