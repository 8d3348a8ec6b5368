#!/usr/bin/env python
"""Benchmark of ``sklearn-rank eval`` against trec_eval on the same TREC files.

Generates a run of ``--lines`` lines over ``--queries`` queries and ``--qrels``
judgments (deterministic), then measures, in interleaved rounds (each command once
per round, medians over rounds):

* end to end, process start to output: wall time and peak memory (the child's
  ``ru_maxrss`` from ``os.wait4``) of ``python -m sklearn_rank eval`` and of
  trec_eval, five measures, and whether both print the same lines;
* reading alone: the package's run reader in MB/s of run file, and ranx and
  ir_measures reading the same files when installed (the ``bench`` extra).

``--large FOLDER`` prints issue 28's figures instead: 5,000 queries x 1,000
documents (5M run lines, 1M graded qrels, written once into FOLDER with the same
rows as Parquet and JSON lines and a heavy-ties run), each measure set as ``eval``
and trec_eval alternated in every round (wall, CPU from ``os.wait4``, peak
memory), then the same rows as TREC text, Parquet and JSON lines.

trec_eval is not part of this repository: build it from its public source
(github.com/usnistgov/trec_eval, ``make``) and pass the binary with
``--trec-eval PATH`` or the ``TREC_EVAL`` environment variable; without it the
trec_eval rows are skipped with a message.

Run ``python benchmarks/bench_cli.py --help``; see docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
TREC_MEASURES = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "recip_rank"]
TREC_MEASURES += ["-m", "recall.100"]


def make_files(folder: Path, lines: int, queries: int, qrels: int, seed: int = 0):
    """A run (``lines`` lines, ``lines // queries`` per query) and qrels that judge
    half retrieved and half unretrieved documents."""
    rng = np.random.default_rng(seed)
    per = lines // queries
    q = np.repeat(np.arange(queries), per)
    # Distinct documents within a query (trec_eval refuses a duplicate): a random
    # slot per row, then a random document inside that slot's 50,000 numbers.
    slot = np.argsort(rng.random((queries, per)), axis=1).ravel()
    docs = slot * (50_000_000 // per) + rng.integers(0, 50_000_000 // per, q.size)
    scores = np.round(rng.normal(size=q.size), 4)  # 4 decimals: some ties
    rank = np.tile(np.arange(1, per + 1), queries)
    run_path = folder / "run.txt"
    with open(run_path, "w") as f:
        f.writelines(
            f"q{a} Q0 doc{b:08d} {c} {d:.4f} bench\n"
            for a, b, c, d in zip(
                q.tolist(), docs.tolist(), rank.tolist(), scores.tolist(), strict=True
            )
        )
    per_q = qrels // queries
    qrels_path = folder / "qrels.txt"
    with open(qrels_path, "w") as f:
        for i in range(queries):
            block = docs[i * per : (i + 1) * per]
            seen = rng.choice(np.unique(block), per_q // 2, replace=False)
            unseen = rng.integers(50_000_000, 99_999_999, per_q - per_q // 2)
            judged = np.unique(np.concatenate([seen, unseen]))
            grades = rng.integers(0, 3, judged.size)
            f.writelines(
                f"q{i} 0 doc{d:08d} {g}\n"
                for d, g in zip(judged.tolist(), grades.tolist(), strict=True)
            )
    return qrels_path, run_path


# Bytes a throwaway process fills and frees before each timed one (0: none).
# On a virtual machine that hands freed memory back to its host (free page
# reporting, after about 2 s), a process that starts right after a larger one
# finds that one's pages still backed, and the next one cold: measured on the
# 5M-row Parquet run, system time 0.54-0.60 s after a 1.2 GB process against
# 0.92-0.95 s after a 4 s pause; the heavy-ties run 0.34-0.47 s after a 2 GB
# primer against 0.64-1.11 s without. Without a primer each timed process inherits
# the state its predecessor left (trec_eval's 450 MB, or the JSON reader's
# 1.1 GB), and the order of the commands biases their ratios.
PRIMER_BYTES = [2 << 30]


def _prime_memory() -> None:
    if PRIMER_BYTES[0]:
        # numpy's large arrays ask for transparent huge pages, as the timed
        # commands' do: the freed 2 MB blocks are the ones they take next (a
        # primer of plain bytes, 4 kB pages, left system times at 0.60-0.86 s
        # against 0.34-0.47 s).
        code = f"import numpy as np; x = np.ones({PRIMER_BYTES[0] // 8})"
        subprocess.run([sys.executable, "-c", code], check=True)


def run_measured(cmd: list[str], env: dict | None = None) -> tuple[float, int, str]:
    """(wall seconds, peak RSS in bytes, stdout) of one child process; its CPU
    seconds (user + system, from ``os.wait4``) in :data:`LAST_CPU`. Each starts
    after :func:`_prime_memory` (the same memory state for every command).

    Peak memory comes from GNU time when installed: Linux carries a forked
    child's high-water mark across exec, so a child forked straight from this
    Python process would report at least this process's size.
    """
    gnu_time = shutil.which("time") or "/usr/bin/time"
    _prime_memory()
    with tempfile.NamedTemporaryFile("r") as peak_file:
        use_time = os.access(gnu_time, os.X_OK)
        full = [gnu_time, "-f", "%M", "-o", peak_file.name, *cmd] if use_time else cmd
        start = time.perf_counter()
        # In the checkout on PYTHONPATH: ``python -m`` puts the working
        # directory first on sys.path, so a baseline run from this repository's
        # root would import this tree's package instead of its own.
        tree = (env or {}).get("PYTHONPATH")
        proc = subprocess.Popen(
            full,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=tree if tree and os.path.isdir(tree) else None,
        )
        out = proc.stdout.read()
        proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status):
            raise RuntimeError(f"{cmd[0]} failed with status {status}")
        LAST_CPU[0] = usage.ru_utime + usage.ru_stime
        LAST_SPLIT[:] = [usage.ru_utime, usage.ru_stime]
        text = peak_file.read().strip().splitlines()
        peak_kb = int(text[-1]) if use_time and text else usage.ru_maxrss
    return wall, peak_kb * 1024, out.decode()


LAST_CPU = [0.0]  # CPU seconds of the last run_measured child
LAST_SPLIT = [0.0, 0.0]  # its user and system seconds


def make_tables(folder: Path, qrels: Path, run: Path) -> dict[str, Path]:
    """The same rows as Parquet and CSV tables (ids as text, typed numbers)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    def columns(path, names, pick, kind):
        table = pcsv.read_csv(
            path,
            read_options=pcsv.ReadOptions(autogenerate_column_names=True),
            parse_options=pcsv.ParseOptions(delimiter=" "),
            convert_options=pcsv.ConvertOptions(
                column_types={f"f{i}": pa.string() for i in (0, 2)}
            ),
        )
        out = {n: table.column(f"f{i}") for n, i in zip(names, pick, strict=True)}
        out[names[-1]] = out[names[-1]].cast(kind)
        return pa.table(out)

    q = columns(qrels, ["qid", "docno", "label"], [0, 2, 3], pa.int64())
    r = columns(run, ["qid", "docno", "score"], [0, 2, 4], pa.float64())
    paths = {}
    for name, table in (("qrels", q), ("run", r)):
        pq.write_table(table, folder / f"{name}.parquet")
        pcsv.write_csv(table, folder / f"{name}.csv")
        paths[f"{name}.parquet"] = folder / f"{name}.parquet"
        paths[f"{name}.csv"] = folder / f"{name}.csv"
    return paths


def make_long_field(folder: Path, size: int = 10_000_000) -> tuple[Path, Path]:
    """A qrels and a run whose first docno is ``size`` bytes long."""
    doc = "x" * size
    qrels, run = folder / "long_qrels.txt", folder / "long_run.txt"
    qrels.write_text(f"q1 0 {doc} 1\nq1 0 d2 0\n")
    run.write_text(f"q1 Q0 {doc} 1 1.0 r\nq1 Q0 d2 2 0.5 r\n")
    return qrels, run


def timed_rounds(commands: dict, env: dict, repeat: int, envs: dict | None = None):
    """Each command once as a warm-up, then ``repeat`` interleaved rounds:
    median wall seconds, median peak bytes and the last output per command."""
    envs = envs or {}
    for name, cmd in commands.items():  # warm-up: bytecode, page cache
        run_measured(cmd, envs.get(name, env))
    times = {k: [] for k in commands}
    peaks = {k: [] for k in commands}
    outputs = {}
    for _ in range(repeat):
        for name, cmd in commands.items():
            wall, peak, out = run_measured(cmd, envs.get(name, env))
            times[name].append(wall)
            peaks[name].append(peak)
            outputs[name] = out
    return (
        {k: statistics.median(v) for k, v in times.items()},
        {k: statistics.median(v) for k, v in peaks.items()},
        outputs,
    )


def _env(tree: Path, pycache: str) -> dict:
    # Bytecode as an installed package has it (pip compiles .pyc files at
    # install): written once to a private cache by the warm-up run, even where
    # PYTHONDONTWRITEBYTECODE is set, instead of compiling every module per run.
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONPYCACHEPREFIX=pycache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _ours(*args) -> list[str]:
    return [sys.executable, "-m", "sklearn_rank", "eval", "--quiet", *map(str, args)]


def end_to_end(qrels, run, trec_eval, repeat, pycache, baseline=None):
    """sklearn-rank eval (this tree, and ``baseline`` when given) against
    trec_eval: default measures and five measures."""
    env = _env(REPO, pycache)
    envs = {}
    commands = {}
    for label, extra in (("default measures", []), ("5 measures", TREC_MEASURES)):
        commands[f"sklearn-rank eval, {label}"] = _ours(*extra, qrels, run)
        if baseline:
            key = f"baseline sklearn-rank eval, {label}"
            commands[key] = _ours(*extra, qrels, run)
            envs[key] = _env(baseline, pycache + "-baseline")
        if trec_eval:
            commands[f"trec_eval, {label}"] = [trec_eval, *extra, str(qrels), str(run)]
    return timed_rounds(commands, env, repeat, envs)


def tables_vs_text(files: dict, qrels, run, repeat, pycache, baseline=None):
    """The same rows as TREC text, Parquet and CSV, and mixed (five measures,
    trec_eval's convention and layout, so every output must be the same)."""
    env = _env(REPO, pycache)
    common = [*TREC_MEASURES, "--convention", "trec_eval", "--format", "trec"]
    pairs = {
        "TREC qrels + TREC run": (qrels, run),
        "Parquet qrels + Parquet run": (files["qrels.parquet"], files["run.parquet"]),
        "CSV qrels + CSV run": (files["qrels.csv"], files["run.csv"]),
        "TREC qrels + Parquet run": (qrels, files["run.parquet"]),
    }
    commands = {k: _ours(*common, "--label-col", "label", *v) for k, v in pairs.items()}
    envs = {}
    if baseline:
        for k in ("TREC qrels + TREC run", "Parquet qrels + Parquet run"):
            commands[f"baseline: {k}"] = _ours(
                *common, "--label-col", "label", *pairs[k]
            )
            envs[f"baseline: {k}"] = _env(baseline, pycache + "-baseline")
    return timed_rounds(commands, env, repeat, envs)


def reading(qrels: Path, run: Path, repeat: int) -> dict[str, float]:
    """Seconds (median) to read the run (and qrels) per reader."""
    sys.path.insert(0, str(REPO))
    from sklearn_rank.io import read_run
    from sklearn_rank.io._trec_parse import _parse_qrels, _parse_run

    readers = {
        "sklearn_rank (CLI path: codes, rank column skipped)": lambda: _parse_run(
            run, ranks=False
        ),
        "sklearn_rank.io.read_run (public: str arrays)": lambda: read_run(run),
        "sklearn_rank qrels + run (CLI path)": lambda: (
            _parse_qrels(qrels),
            _parse_run(run, ranks=False),
        ),
    }
    try:
        import ranx

        readers["ranx Run.from_file"] = lambda: ranx.Run.from_file(
            str(run), kind="trec"
        )
    except ImportError:
        print("ranx not installed: skipped (pip install -e '.[bench]')")
    try:
        import ir_measures

        readers["ir_measures read_trec_run (list)"] = lambda: list(
            ir_measures.read_trec_run(str(run))
        )
    except ImportError:
        print("ir_measures not installed: skipped (pip install -e '.[bench]')")
    for read in readers.values():
        read()  # warm-up (imports, ranx's numba compilation)
    times = {k: [] for k in readers}
    for _ in range(repeat):
        for name, read in readers.items():
            start = time.perf_counter()
            read()
            times[name].append(time.perf_counter() - start)
    return {k: statistics.median(v) for k, v in times.items()}


def small_file(trec_eval, repeat: int, pycache: str) -> None:
    """trec_eval's own test pair (1,500 run lines): what a script evaluating
    hundreds of small runs feels. Wall and CPU seconds (user + system, less
    sensitive to a loaded machine) of each command, interleaved rounds."""
    data = REPO / "tests" / "data" / "trec_eval"
    files = [str(data / "qrels.test"), str(data / "results.test")]
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
        "sklearn-rank eval": _ours(*files),
    }
    if trec_eval:
        commands["trec_eval"] = [trec_eval, *files]
    env = _env(REPO, pycache)
    wall = {k: [] for k in commands}
    cpu = {k: [] for k in commands}
    for round_ in range(repeat + 1):  # the first round warms up
        for name, cmd in commands.items():
            start = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, env=env, check=True)
            seconds = time.perf_counter() - start
            del proc
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            total = usage.ru_utime + usage.ru_stime
            if round_:
                wall[name].append(seconds)
                cpu[name].append(total - cpu.get("_last", 0.0))
            cpu["_last"] = total
    cpu.pop("_last")
    print("| trec_eval's test pair (1,500 lines) | wall (s) | CPU (s) |")
    print("|---|---:|---:|")
    for name in commands:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        print(f"| {name} | {w:.3f} | {c:.3f} |")
    print(
        f"\n(target: sklearn-rank eval <= 0.15 s wall; load average after: "
        f"{os.getloadavg()[0]:.2f})\n"
    )


def import_shares(repeat: int, pycache: str) -> None:
    """``python -X importtime`` of ``sklearn-rank eval`` on trec_eval's test
    pair: the import time of numpy, of this package and of the rest (the
    standard library), each the minimum over ``repeat`` runs of its modules'
    own times (bytecode cached, as installed), and whether scipy, scikit-learn,
    pandas or pyarrow were imported (they must not be)."""
    data = REPO / "tests" / "data" / "trec_eval"
    cmd = [sys.executable, "-X", "importtime", *_ours(data / "qrels.test")[1:]]
    cmd.append(str(data / "results.test"))
    env = _env(REPO, pycache)
    best: dict[str, int] = {}
    for _ in range(repeat + 1):  # the first run writes the bytecode
        err = subprocess.run(cmd, capture_output=True, env=env, check=True).stderr
        for line in err.decode().splitlines()[1:]:
            own, _, name = line.partition(":")[2].partition("|")
            name = name.partition("|")[2].strip()
            best[name] = min(best.get(name, 1 << 60), int(own))
    shares = {"numpy": 0, "sklearn_rank": 0, "other": 0}
    for name, micros in best.items():
        top = name.partition(".")[0]
        shares[top if top in shares else "other"] += micros
    print("| `-X importtime`, own time of the modules (min of runs) | ms |")
    print("|---|---:|")
    for key, micros in shares.items():
        print(f"| {key} | {micros / 1000:.1f} |")
    heavy = [m for m in ("scipy", "sklearn", "pandas", "pyarrow") if m in best]
    print(f"\n(imported among scipy, sklearn, pandas, pyarrow: {heavy or 'none'})\n")


LARGE_CASES = {  # issue 28's measure sets: name -> (flags, run file, target)
    "default measures": ([], "run.txt", 0.6),
    "5 measures": (TREC_MEASURES, "run.txt", 0.6),
    "-c -q": (["-c", "-q"], "run.txt", 0.6),
    "-q -m all_trec": (["-q", "-m", "all_trec"], "run.txt", 0.75),
    "-m all_trec": (["-m", "all_trec"], "run.txt", 0.75),
    "heavy ties -q": (["-q"], "run_ties.txt", 0.6),
    # issue 44: scores rounded to 2 decimals, as many systems write a run
    "2 decimals -q -m all_trec": (["-q", "-m", "all_trec"], "run_2dec.txt", 0.75),
}


def large_files(folder: Path, lines: int, queries: int, qrels: int) -> None:
    """The 5M-line data of issue 28, written once into ``folder`` (kept between
    runs of the script): the run, the qrels, the run with scores rounded to
    one decimal (heavy ties) and to two (issue 44: as many systems write a run)
    and the same rows as Parquet and JSON lines."""
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "run.txt").exists():
        make_files(folder, lines, queries, qrels)
    for name, decimals in (("run_ties.txt", 1), ("run_2dec.txt", 2)):
        if (folder / name).exists():
            continue
        with open(folder / "run.txt") as src, open(folder / name, "w") as dst:
            for line in src:
                f = line.split()
                f[4] = f"{float(f[4]):.{decimals}f}"
                dst.write(" ".join(f) + "\n")
    if not (folder / "run.jsonl").exists():
        import pyarrow.parquet as pq

        make_tables(folder, folder / "qrels.txt", folder / "run.txt")
        for name in ("qrels", "run"):
            frame = pq.read_table(folder / f"{name}.parquet").to_pandas()
            frame.to_json(folder / f"{name}.jsonl", orient="records", lines=True)


def large(
    folder: Path, trec_eval, repeat: int, pycache: str, cases, baseline=None
) -> None:
    """Issue 28's targets on the 5M-line data: each measure set as ``eval`` and
    trec_eval alternated in every round (ratios of medians; ``baseline``: another
    checkout's ``eval`` in the same rounds), then the same rows as TREC text,
    Parquet and JSON lines (five measures)."""
    env = _env(REPO, pycache)
    envs = {"eval": env, "trec_eval": env}
    if baseline is not None:
        envs["baseline"] = _env(baseline, pycache + "-baseline")
    qrels = folder / "qrels.txt"
    run_measured(
        _ours(
            REPO / "tests/data/trec_eval/qrels.test",
            REPO / "tests/data/trec_eval/results.test",
        ),
        env,
    )  # bytecode
    if baseline is not None:
        run_measured(
            _ours(
                REPO / "tests/data/trec_eval/qrels.test",
                REPO / "tests/data/trec_eval/results.test",
            ),
            envs["baseline"],
        )  # bytecode
    print(
        "| measure set | eval wall (s) | trec_eval wall (s) | wall ratio (target) "
        "| eval CPU (s) | trec_eval CPU (s) | CPU ratio | eval peak (MB) "
        "| trec_eval peak (MB) | memory ratio (target 1.5) | same lines |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    base_rows = []
    for name in cases:
        flags, run_name, target = LARGE_CASES[name]
        files = [qrels, folder / run_name]
        commands = {"eval": _ours(*flags, *files)}
        if baseline is not None:
            commands["baseline"] = _ours(*flags, *files)
        if trec_eval:
            commands["trec_eval"] = [trec_eval, *flags, *map(str, files)]
        wall = {k: [] for k in commands}
        cpu = {k: [] for k in commands}
        peak = {k: [] for k in commands}
        out = {}
        for _ in range(repeat):
            for key, cmd in commands.items():
                w, p, o = run_measured(cmd, envs[key])
                wall[key].append(w)
                cpu[key].append(LAST_CPU[0])
                peak[key].append(p)
                out[key] = o
        med = {
            k: {
                m: statistics.median(v[k])
                for m, v in (("wall", wall), ("cpu", cpu), ("peak", peak))
            }
            for k in commands
        }
        ours = med["eval"]
        te = med.get("trec_eval")
        if te:
            theirs = [
                x
                for x in out["trec_eval"].splitlines()
                if not x.startswith(("rbp ", "rbp\t"))
            ]
            same = out["eval"].splitlines() == theirs
            print(
                f"| {name} | {ours['wall']:.2f} | {te['wall']:.2f} | "
                f"{ours['wall'] / te['wall']:.2f}x ({target}) | {ours['cpu']:.2f} | "
                f"{te['cpu']:.2f} | {ours['cpu'] / te['cpu']:.2f}x | "
                f"{ours['peak'] / 2**20:.0f} | {te['peak'] / 2**20:.0f} | "
                f"{ours['peak'] / te['peak']:.2f}x | {same} |"
            )
            if baseline is not None:
                b = med["baseline"]
                base_rows.append(
                    f"| {name} | {b['cpu']:.2f} | {ours['cpu']:.2f} | "
                    f"{b['cpu'] / te['cpu']:.2f}x | {ours['cpu'] / te['cpu']:.2f}x | "
                    f"{b['peak'] / 2**20:.0f} | {ours['peak'] / 2**20:.0f} | "
                    f"{b['peak'] / te['peak']:.2f}x | "
                    f"{ours['peak'] / te['peak']:.2f}x | "
                    f"{out['baseline'].splitlines() == theirs} |"
                )
        else:
            print(
                f"| {name} | {ours['wall']:.2f} | | | {ours['cpu']:.2f} | | "
                f"{ours['peak'] / 2**20:.0f} | | | |"
            )
        sys.stdout.flush()
    if base_rows:  # the same rounds: this tree against the baseline checkout
        print(
            f"\nbaseline {baseline} (before) and this tree (after), CPU "
            "seconds and peak memory, ratios to trec_eval in the same rounds:\n"
        )
        print(
            "| measure set | CPU before (s) | CPU after (s) | CPU ratio before "
            "| CPU ratio after | peak before (MB) | peak after (MB) "
            "| memory ratio before | memory ratio after | before same lines |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        print("\n".join(base_rows))
    print(f"\nload average after: {os.getloadavg()[0]:.2f}\n")


def _wait_idle(most: float = 0.15, patience: float = 300.0) -> float:
    """Wait (at most ``patience`` seconds) until the machine's CPUs are busy
    under ``most`` of their time over one second (Linux ``/proc/stat``); the
    busy share last seen."""

    def ticks():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + v[4]  # total, idle + iowait

    end = time.monotonic() + patience
    while True:
        t0, i0 = ticks()
        time.sleep(1.0)
        t1, i1 = ticks()
        busy = 1 - (i1 - i0) / max(t1 - t0, 1)
        if busy < most or time.monotonic() > end:
            return busy


def large_jobs(
    folder: Path, repeat: int, pycache: str, baseline=None, idle: bool = False
) -> None:
    """Issue 48: ``eval -j 2`` against ``-j 1`` on the 5M-line files (2-decimal
    scores, ``-q -m all_trec``), alternated in every round: wall, user and
    system CPU, peak memory (targets: wall <= 0.8x, memory <= 1.2x);
    ``baseline``: another checkout's ``-j 1`` and ``-j 2`` in the same
    rounds; ``idle``: each command starts once the CPUs are idle (a shared
    machine: the busy share seen before each is printed)."""
    env = _env(REPO, pycache)
    envs = {"1": env, "2": env}
    files = [folder / "qrels.txt", folder / "run_2dec.txt"]
    flags = ["-q", "-m", "all_trec"]
    commands = {j: _ours("-j", j, *flags, *files) for j in ("1", "2")}
    if baseline is not None:
        for j in ("1", "2"):
            commands[f"{j}, baseline"] = commands[j]
            envs[f"{j}, baseline"] = _env(baseline, pycache + "-baseline")
    for j, cmd in commands.items():
        run_measured(cmd, envs[j])  # bytecode, page cache
    rows = {j: {"wall": [], "user": [], "sys": [], "peak": []} for j in commands}
    out = {}
    busy = []
    for _ in range(repeat):
        for j, cmd in commands.items():
            if idle:
                busy.append(f"{_wait_idle():.0%}")
            wall, peak, out[j] = run_measured(cmd, envs[j])
            row = rows[j]
            row["wall"].append(wall)
            row["user"].append(LAST_SPLIT[0])
            row["sys"].append(LAST_SPLIT[1])
            row["peak"].append(peak)
    med = {j: {k: statistics.median(v) for k, v in r.items()} for j, r in rows.items()}
    print(
        "| -j | wall (s) | user (s) | system (s) | (user + system) / wall "
        "| peak (MB) | wall ratio (target 0.8) | memory ratio (target 1.2) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    one = med["1"]
    for j, m in med.items():
        print(
            f"| {j} | {m['wall']:.2f} | {m['user']:.2f} | {m['sys']:.2f} | "
            f"{(m['user'] + m['sys']) / m['wall']:.2f} | {m['peak'] / 2**20:.0f} | "
            f"{m['wall'] / one['wall']:.2f}x | {m['peak'] / one['peak']:.2f}x |"
        )
    walls = zip(rows["1"]["wall"], rows["2"]["wall"], strict=True)
    pairs = [f"{b / a:.2f}" for a, b in walls]
    same = len(set(out.values())) == 1
    print(f"\nwall ratio per round: {', '.join(pairs)}; same output: {same}")
    if busy:
        print(f"CPUs busy before each command: {', '.join(busy)}")
    if baseline is not None:
        one, two = rows["1, baseline"]["wall"], rows["2, baseline"]["wall"]
        pairs = [f"{b / a:.2f}" for a, b in zip(one, two, strict=True)]
        print(f"baseline's wall ratio per round: {', '.join(pairs)}")
    print(f"load average after: {os.getloadavg()[0]:.2f}\n")


def large_tables(folder: Path, repeat: int, pycache: str) -> None:
    """The same rows as TREC text, Parquet and JSON lines, five measures,
    trec_eval's convention and layout (the same lines from each), alternated."""
    env = _env(REPO, pycache)
    common = [*TREC_MEASURES, "--convention", "trec_eval", "--format", "trec"]
    common += ["--label-col", "label"]
    commands = {
        f"{kind}": _ours(*common, folder / f"qrels.{ext}", folder / f"run.{ext}")
        for kind, ext in (
            ("TREC text", "txt"),
            ("Parquet", "parquet"),
            ("JSON lines", "jsonl"),
        )
    }
    result = {k: ([], [], []) for k in commands}
    outs = {}
    for _ in range(repeat):
        for key, cmd in commands.items():
            w, p, o = run_measured(cmd, env)
            result[key][0].append(w)
            result[key][1].append(LAST_CPU[0])
            result[key][2].append(p)
            outs[key] = o
    med = {k: [statistics.median(x) for x in v] for k, v in result.items()}
    text = med["TREC text"]
    print(
        "| same rows, 5 measures | wall (s) | ratio to TREC text (target: "
        "Parquet 0.8) | CPU (s) | peak (MB) |"
    )
    print("|---|---:|---:|---:|---:|")
    for key, (w, c, p) in med.items():
        print(f"| {key} | {w:.2f} | {w / text[0]:.2f}x | {c:.2f} | {p / 2**20:.0f} |")
    print(f"\nidentical output from every format: {len(set(outs.values())) == 1}")
    print(f"load average after: {os.getloadavg()[0]:.2f}\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--qrels", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--trec-eval",
        default=os.environ.get("TREC_EVAL") or shutil.which("trec_eval"),
        help="trec_eval binary (default: $TREC_EVAL, then trec_eval on PATH)",
    )
    parser.add_argument(
        "--baseline",
        help="another checkout of the package, timed side by side (PYTHONPATH)",
    )
    parser.add_argument(
        "--baseline-long",
        action="store_true",
        help="time the baseline on the 10 MB field too (minutes before 0.2)",
    )
    parser.add_argument(
        "--small-only",
        action="store_true",
        help="only the small-file rows (trec_eval's test pair): start-up cost",
    )
    parser.add_argument(
        "--large",
        metavar="FOLDER",
        help="only issue 28's 5M-line figures, data written once into FOLDER "
        "(5,000 queries x 1,000 documents, 1M graded qrels; about 600 MB)",
    )
    parser.add_argument(
        "--cases",
        default=",".join(LARGE_CASES) + ",tables",
        help="with --large: which measure sets (comma-separated names of the "
        "table's first column, 'tables', and 'jobs': -j 2 against -j 1)",
    )
    parser.add_argument(
        "--idle",
        action="store_true",
        help="with --cases jobs: start each command once the CPUs are idle",
    )
    parser.add_argument(
        "--primer-mb",
        type=int,
        default=PRIMER_BYTES[0] >> 20,
        help="MB a throwaway process fills before each timed one, so that every "
        "command starts in the same memory state (0: none; see run_measured)",
    )
    args = parser.parse_args(argv)
    PRIMER_BYTES[0] = args.primer_mb << 20
    trec_eval = args.trec_eval
    if not trec_eval or not os.access(trec_eval, os.X_OK):
        print(
            "trec_eval not found: its rows are skipped. Build it from "
            "github.com/usnistgov/trec_eval (make) and pass --trec-eval PATH."
        )
        trec_eval = None
    if args.large:
        folder = Path(args.large).resolve()  # commands run in their checkout
        large_files(folder, 5_000_000, 5_000, 1_000_000)
        cases = args.cases.split(",")
        print(
            f"# issue 28's data: 5,000,000 run lines, 5,000 queries, 1,000,000 "
            f"qrels lines; medians of {args.repeat} rounds, eval and trec_eval "
            f"alternated, each after a {args.primer_mb} MB primer process; "
            f"{platform.platform()}, {os.cpu_count()} CPUs, Python "
            f"{platform.python_version()}, numpy {np.__version__}; load average "
            f"at start {os.getloadavg()[0]:.2f}\n"
        )
        with tempfile.TemporaryDirectory() as tmp:
            pycache = os.path.join(tmp, "pycache")
            wanted = [c for c in cases if c in LARGE_CASES]
            if wanted:
                baseline = Path(args.baseline).resolve() if args.baseline else None
                large(folder, trec_eval, args.repeat, pycache, wanted, baseline)
            if "tables" in cases:
                large_tables(folder, args.repeat, pycache)
            if "jobs" in cases:
                baseline = Path(args.baseline).resolve() if args.baseline else None
                large_jobs(folder, args.repeat, pycache, baseline, args.idle)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        small_file(trec_eval, args.repeat, os.path.join(tmp, "pycache"))
        import_shares(args.repeat, os.path.join(tmp, "pycache"))
        if args.small_only:
            return 0
        qrels, run = make_files(Path(tmp), args.lines, args.queries, args.qrels)
        size = run.stat().st_size
        print(
            f"# {args.lines:,} run lines ({size / 1e6:.1f} MB), {args.queries:,} "
            f"queries, {sum(1 for _ in open(qrels)):,} qrels lines; medians of "
            f"{args.repeat}; {platform.platform()}, {os.cpu_count()} CPUs, "
            f"Python {platform.python_version()}, numpy {np.__version__}; "
            f"load average at start {os.getloadavg()[0]:.2f}\n"
        )
        baseline = Path(args.baseline).resolve() if args.baseline else None
        times, peaks, outs = end_to_end(
            qrels, run, trec_eval, args.repeat, os.path.join(tmp, "pycache"), baseline
        )
        print("| end to end | wall (s) | peak memory (MB) |")
        print("|---|---:|---:|")
        for name in times:
            print(f"| {name} | {times[name]:.2f} | {peaks[name] / 2**20:.0f} |")
        print()
        for label in ("default measures", "5 measures"):
            ours = f"sklearn-rank eval, {label}"
            if trec_eval:
                theirs = f"trec_eval, {label}"
                same = outs[ours] == outs[theirs]
                print(
                    f"- {label}: wall {times[ours] / times[theirs]:.2f}x trec_eval's "
                    f"(target <= 0.6x), peak memory {peaks[ours] / peaks[theirs]:.2f}x "
                    f"(target <= 2x); identical output: {same}"
                )
            if baseline:
                old = f"baseline sklearn-rank eval, {label}"
                print(
                    f"- {label}: wall {times[ours] / times[old]:.2f}x the baseline "
                    f"tree's, peak memory {peaks[ours] / peaks[old]:.2f}x"
                )
        print(f"\nload average after: {os.getloadavg()[0]:.2f}\n")
        files = make_tables(Path(tmp), qrels, run)
        times, peaks, outs = tables_vs_text(
            files, qrels, run, args.repeat, os.path.join(tmp, "pycache"), baseline
        )
        text = "TREC qrels + TREC run"
        print("| same rows, 5 measures | wall (s) | ratio to TREC text | peak (MB) |")
        print("|---|---:|---:|---:|")
        for name in times:
            ref = f"baseline: {text}" if name.startswith("baseline") else text
            print(
                f"| {name} | {times[name]:.2f} | {times[name] / times[ref]:.2f}x "
                f"| {peaks[name] / 2**20:.0f} |"
            )
        same = len({outs[k] for k in outs if not k.startswith("baseline")}) == 1
        print(f"\nidentical output on every layout: {same} (target: tables <= 1.0x)")
        print(f"load average after: {os.getloadavg()[0]:.2f}\n")
        long_qrels, long_run = make_long_field(Path(tmp))
        commands = {"sklearn-rank eval": _ours("-m", "map", long_qrels, long_run)}
        envs = {}
        if baseline and args.baseline_long:
            commands["baseline sklearn-rank eval"] = commands["sklearn-rank eval"]
            envs["baseline sklearn-rank eval"] = _env(
                baseline, os.path.join(tmp, "pyc-b")
            )
        if trec_eval:
            commands["trec_eval"] = [
                trec_eval,
                "-m",
                "map",
                str(long_qrels),
                str(long_run),
            ]
        times, peaks, _ = timed_rounds(
            commands, _env(REPO, os.path.join(tmp, "pycache")), args.repeat, envs
        )
        print("| a 10 MB docno in the qrels and the run | wall (s) | peak (MB) |")
        print("|---|---:|---:|")
        for name in times:
            print(f"| {name} | {times[name]:.2f} | {peaks[name] / 2**20:.0f} |")
        print("\n(target: sklearn-rank eval <= 0.5 s)")
        print(f"load average after: {os.getloadavg()[0]:.2f}\n")
        read = reading(qrels, run, args.repeat)
        print("| reading | time (s) | MB/s of run file |")
        print("|---|---:|---:|")
        for name, seconds in read.items():
            print(f"| {name} | {seconds:.2f} | {size / 1e6 / seconds:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
