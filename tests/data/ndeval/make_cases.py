"""Random ndeval cases and ndeval's own output for them.

    python tests/data/ndeval/make_cases.py NDEVAL_BINARY OUT_DIR --seeds 0-599
    python tests/data/ndeval/make_cases.py NDEVAL_BINARY OUT_DIR --seeds 0-599 --check

writes ``case_SEED.qrels``, ``case_SEED.run``, ``case_SEED.args`` (the options,
one line) and ``case_SEED.expected`` (ndeval's stdout) for each seed; with
``--check`` it compares ``sklearn-rank ndeval`` with the binary instead and
prints the count of cases that differ by a byte. With ``--risk`` each case
also carries a baseline run, ``risk_SEED.base`` (ndeval's ``-baseline``, the
word ``BASE`` in ``risk_SEED.args`` stands for its path) and often
``-riskAlpha``; those cases are named ``risk_SEED``. NDEVAL_BINARY is ndeval built
from its public source (``gcc -O2 -o ndeval ndeval.c -lm``; pyndeval 0.0.8's
sdist ships ndeval.c, see LICENSE-ndeval.txt). The cases committed here are a
few seeds; tests/test_ndeval_cli.py replays them.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np


def case(seed: int) -> tuple[str, str, list[str]]:
    """(qrels text, run text, options) of one random case: ties, subtopics with
    no relevant document, topics without relevant documents, judged documents
    the run did not retrieve, runs shorter and longer than 20, grades above 1,
    task prefixes on run topics, topics in one file only."""
    rng = np.random.default_rng(seed)
    n_topics = int(rng.integers(1, 6))
    topics = sorted(rng.choice(np.arange(1, 60), n_topics, replace=False).tolist())
    pool = [f"d{i}" for i in range(int(rng.integers(3, 45)))]
    pool += ["D7", "doc-x", "d01", "e"][: int(rng.integers(0, 5))]
    qrels, run = [], []
    runid = f"run{seed}"
    traditional = bool(rng.random() < 0.35)
    for t in topics:
        n_sub = int(rng.integers(1, 7))
        subs = sorted(rng.choice(np.arange(0, 9), n_sub, replace=False).tolist())
        docs = rng.choice(pool, int(rng.integers(1, len(pool) + 1)), replace=False)
        density = float(rng.choice([0.0, 0.15, 0.4, 0.8]))
        for d in docs:
            for s in subs:
                if rng.random() < 0.7:  # not every (doc, subtopic) judged
                    grade = int(rng.random() < density) * int(rng.integers(1, 4))
                    qrels.append(f"{t} {s} {d} {grade}")
        if rng.random() < 0.1 and len(topics) > 1:
            continue  # a qrels topic the run lacks
        n_run = int(rng.integers(1, min(len(pool), 40) + 1))
        ranked = rng.choice(pool, n_run, replace=False)
        ranks = rng.permutation(np.arange(1, n_run + 1) * int(rng.integers(1, 3)))
        scores = rng.integers(0, 6, n_run) / 2.0  # ties
        prefix = "wt09-" if rng.random() < 0.2 else ""
        for d, r, s in zip(ranked, ranks, scores, strict=True):
            run.append(f"{prefix}{t} Q0 {d} {r} {s} {runid}")
    if rng.random() < 0.2:  # a run topic without qrels
        run.append(f"{max(topics) + 1} Q0 d0 1 1.0 {runid}")
    if not run:
        run.append(f"{topics[0]} Q0 d0 1 1.0 {runid}")
    order = rng.permutation(len(run))
    run = [run[i] for i in order]
    if not qrels:
        qrels.append(f"{topics[0]} 0 d0 0")
    options = []
    if traditional:
        options.append("-traditional")
    if rng.random() < 0.2:
        options.append("-c")
    if rng.random() < 0.2:
        options += ["-M", str(int(rng.integers(1, 25)))]
    if rng.random() < 0.25:
        options += ["-alpha", str(float(rng.choice([0.0, 0.25, 0.3, 0.9, 1.0])))]
    if rng.random() < 0.25:
        options += ["-beta", str(float(rng.choice([0.0, 0.25, 0.8, 1.0])))]
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n", options


def risk_case(seed: int) -> tuple[str, str, str, list[str]]:
    """(qrels, run, baseline run, options) of one risk-sensitive case: the case
    of ``seed`` and a baseline drawn from its own stream, with topics in both
    runs, in the baseline only (with and without qrels) and in the run only."""
    qrels_text, run_text, options = case(seed)
    rng = np.random.default_rng([seed, 45])
    judged: dict[int, list[str]] = {}
    for line in qrels_text.split("\n")[:-1]:
        t, _, d, _ = line.split()
        judged.setdefault(int(t), []).append(d)
    topics = sorted(judged)
    extra = [max(topics) + 1, max(topics) + 2]  # no qrels (the run may have +1)
    chosen = [t for t in topics + extra if rng.random() < (0.7 if t in judged else 0.3)]
    runid = f"base{seed}"
    lines = []
    for t in chosen or [int(rng.choice(topics + extra))]:
        docs = sorted({*judged.get(t, []), "x1", "x2", "d0"})
        n = int(rng.integers(1, min(len(docs), 30) + 1))
        ranked = rng.choice(docs, n, replace=False)
        ranks = rng.permutation(np.arange(1, n + 1))
        scores = rng.integers(0, 4, n) / 2.0  # ties
        prefix = "wt10-" if rng.random() < 0.2 else ""
        for d, r, sc in zip(ranked, ranks, scores, strict=True):
            lines.append(f"{prefix}{t} Q0 {d} {r} {sc} {runid}")
    lines = [lines[i] for i in rng.permutation(len(lines))]
    options = [*options, "-baseline", "BASE"]
    risk = rng.choice(["", "0", "1", "5", "0.5", "2.50", "1e0"])
    if risk:
        options += ["-riskAlpha", str(risk)]
    if "-c" not in options and rng.random() < 0.3:
        options.insert(0, "-c")
    return qrels_text, run_text, "\n".join(lines) + "\n", options


def seeds(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("out", type=Path)
    parser.add_argument("--seeds", type=seeds, default=seeds("0-11"))
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--risk", action="store_true", help="with a baseline run")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.check:
        from sklearn_rank._cli import main as cli
    differ = 0
    for seed in args.seeds:
        if args.risk:
            qrels_text, run_text, base_text, options = risk_case(seed)
            stem = args.out / f"risk_{seed}"
            stem.with_suffix(".base").write_text(base_text)
        else:
            qrels_text, run_text, options = case(seed)
            stem = args.out / f"case_{seed}"
        qrels, run = stem.with_suffix(".qrels"), stem.with_suffix(".run")
        qrels.write_text(qrels_text)
        run.write_text(run_text)
        stem.with_suffix(".args").write_text(" ".join(options) + "\n")
        base = str(stem.with_suffix(".base"))
        options = [base if o == "BASE" else o for o in options]
        want = subprocess.run(
            [args.binary, *options, str(qrels), str(run)],
            capture_output=True,
            check=True,
        ).stdout
        if not args.check:
            stem.with_suffix(".expected").write_bytes(want)
            continue
        import contextlib
        import io

        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            cli(["ndeval", *options, str(qrels), str(run)])
        if out.getvalue().encode() != want:
            differ += 1
            print(f"seed {seed}: differs", file=sys.stderr)
    if args.check:
        print(f"{len(args.seeds)} cases, {differ} differ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
