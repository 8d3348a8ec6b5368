"""Smoke test of benchmarks/bench_online.py on a tiny log (no timing asserted)."""

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_online.py"


def test_bench_online_runs_and_prints_every_row(capsys):
    spec = importlib.util.spec_from_file_location("bench_online", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    argv = ["--rows", "3000", "--groups", "300", "--repeats", "1", "--em-iter", "2"]
    assert module.main(argv) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ")][1:]
    assert len(rows) == 14
    assert rows[0].endswith("| 1.00 |")  # evaluate is the unit


SIMULATION = SCRIPT.parent / "online_simulation.py"


def test_online_simulation_runs_and_prints_every_table(capsys):
    spec = importlib.util.spec_from_file_location("online_simulation", SIMULATION)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--scale", "0.001", "--sections", "ABDEF"]) == 0
    out = capsys.readouterr().out
    for title in ("### A.", "### B.", "### D.", "### E.", "### F."):
        assert title in out
