"""The untimed sections: value agreement, peak memory, import time, sorts."""

from __future__ import annotations

import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .common import METRICS, SCRIPT, _srank
from .data import Data, make_data
from .peers import (
    _gauc_loop_setup,
    floor_lexsort,
    gauc_loop,
    numpy_reference,
    srank_evaluate,
    srank_gauc,
)
from .timing import _log, selected_peers


@dataclass
class Check:
    peer: str
    data: str
    options: str
    diffs: dict
    max_diff: float | None
    tol: float
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.max_diff is not None and self.max_diff <= self.tol


def _reference(d: Data, metrics, options: dict) -> dict:
    if _srank() is not None:
        return srank_evaluate(d, metrics, **options)
    return numpy_reference(d, **options)  # development fallback


def run_checks(args) -> list[Check]:
    """Compare each peer with sklearn_rank where the conventions can be aligned."""
    n = args.check_rows
    base = make_data(n, "typical", "shuffled", seed=args.seed + 1)
    tie_free = base.tie_free()
    equal = make_data(n, "equal", "shuffled", seed=args.seed + 1, group_size=20)
    small = make_data(n, "small", "shuffled", seed=args.seed + 1)
    who = "sklearn_rank" if _srank() is not None else "numpy_ref (no sklearn_rank)"
    checks = []
    for peer in selected_peers(args):
        if not peer.metrics or (peer.name == "numpy_ref" and _srank() is None):
            continue
        d = equal if peer.name == "sklearn_dense" else tie_free
        if peer.check_ties:
            data = f"{d.dist}, {d.n:_} rows, ties"
        else:
            data = f"{d.dist}, {d.n:_} rows, tie-free"
        _log(args, f"  check {peer.name} vs {who}")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = peer.run(peer.setup(d))
            ref = _reference(d, peer.metrics, peer.options)
        except Exception as exc:
            checks.append(
                Check(peer.name, data, peer.options_text, {}, None, peer.tol, repr(exc))
            )
            continue
        diffs = {m: abs(got[m] - ref[m]) for m in peer.metrics}
        checks.append(
            Check(
                peer.name,
                data,
                peer.options_text,
                diffs,
                max(diffs.values()),
                peer.tol,
                f"vs {who}",
            )
        )
    if "gauc_loop" in args.peers and _srank() is not None:
        sub, _ = _gauc_loop_setup(small, args.gauc_loop_max_groups)
        diffs = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for w in ("rows", "uniform"):
                diffs[f"gauc[{w}]"] = abs(
                    gauc_loop(sub, w) - srank_gauc(sub, weights=w)
                )
        checks.append(
            Check(
                "gauc_loop",
                f"small, {sub.n:_} rows, ties",
                "weights=rows / uniform",
                diffs,
                max(diffs.values()),
                1e-9,
                "vs sklearn_rank",
            )
        )
    return checks


# ------------------------------------------------------------ fresh-process parts
def _proc_status(key: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _child_memory(path: str, work: str) -> None:
    """In a fresh process: peak RSS of one call above the loaded inputs."""
    import resource

    import sklearn_rank  # noqa: F401 - imported before the baseline

    arrays = {k: np.load(os.path.join(path, k + ".npy")) for k in ("y", "s", "g")}
    d = Data(arrays["y"], arrays["s"], arrays["g"], "", "", 0)
    call = {
        "lexsort": lambda x: floor_lexsort(x),
        "evaluate": lambda x: srank_evaluate(x),
        "gauc": lambda x: srank_gauc(x),
    }[work]
    call(d.subset(np.arange(min(d.n, 1000))))  # lazy imports out of the measure
    gc.collect()
    base = _proc_status("VmRSS")
    reset = False
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")  # reset the peak (VmHWM) to the current RSS
        reset = True
    except OSError:
        pass
    before_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    call(d)
    peak = _proc_status("VmHWM") if reset else None
    if peak is None or base is None:  # no /proc: getrusage, a lower bound
        base = before_peak
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    inputs = sum(a.nbytes for a in arrays.values())
    print(json.dumps({"base": base, "peak": peak, "inputs": inputs, "reset": reset}))


def run_memory(args) -> list[dict]:
    works = ("evaluate",) if args.quick else ("lexsort", "evaluate", "gauc")
    cases = [(n, "typical", w) for n in args.memory_sizes for w in works]
    if args.memory_sizes:
        big = max(args.memory_sizes)
        cases += [(big, "single", w) for w in works if w != "lexsort"]
    out = []
    with tempfile.TemporaryDirectory(prefix="bench_mem_") as tmp:
        made = None
        for n, dist, work in cases:
            if made != (n, dist):
                d = make_data(n, dist, "shuffled", seed=args.seed)
                for key, arr in (("y", d.y_true), ("s", d.y_score), ("g", d.groups)):
                    np.save(os.path.join(tmp, key + ".npy"), arr)
                made, n_groups = (n, dist), d.n_groups
                del d
                gc.collect()
            _log(args, f"  memory {dist} n={n:_}: {work}")
            cmd = [sys.executable, SCRIPT, "--_child", "memory", tmp, work]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            rec = {"rows": n, "groups": n_groups, "dist": dist, "work": work}
            if proc.returncode != 0:
                rec["error"] = proc.stderr.strip().splitlines()[-1:]
            else:
                res = json.loads(proc.stdout.strip().splitlines()[-1])
                rec.update(res)
                rec["bytes_per_row"] = (res["peak"] - res["base"]) / n
            out.append(rec)
    return out


def run_import_time(args) -> dict:
    """Wall time of fresh interpreters, and -X importtime's sklearn_rank entry."""
    plain = [sys.executable, "-c", "import sklearn.metrics"]
    both = [sys.executable, "-c", "import sklearn.metrics, sklearn_rank"]
    t_plain, t_both, cumul = [], [], []
    for _ in range(args.import_repeats):
        for cmd, acc in ((plain, t_plain), (both, t_both)):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            acc.append(time.perf_counter() - t0)
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", *both[1:]],
            check=True,
            capture_output=True,
            text=True,
        )
        heavy = []
        after_sklearn = False
        for line in proc.stderr.splitlines():
            parts = line.split("|")
            if len(parts) != 3 or not line.startswith("import time:"):
                continue
            try:
                self_us = int(parts[0].split(":")[1])
                cum_us = int(parts[1])
            except ValueError:
                continue
            name = parts[2].rstrip()
            if name.strip() == "sklearn.metrics" and name == " sklearn.metrics":
                after_sklearn = True
                continue
            if after_sklearn:
                heavy.append((self_us, name.strip()))
            if name == " sklearn_rank":
                cumul.append(cum_us / 1e6)
    heavy.sort(reverse=True)
    return {
        "plain": statistics.median(t_plain),
        "with": statistics.median(t_both),
        "added": statistics.median(t_both) - statistics.median(t_plain),
        "importtime_cumulative": statistics.median(cumul) if cumul else None,
        "heaviest": [(name, us / 1e6) for us, name in heavy[:5]],
        "repeats": args.import_repeats,
    }


SORT_NAMES = frozenset({"sort", "argsort", "lexsort", "partition", "argpartition"})


def _child_sorts(n: int) -> None:
    """Count the row-length sorts done by sklearn_rank code (fresh process).

    Every ndarray sort method call (np.argsort, np.sort, np.unique, scipy's rankdata
    all end in one) is seen through sys.setprofile; np.lexsort, a C dispatcher that
    the profiler does not see, is wrapped before sklearn_rank is imported. Only
    sorts called with sklearn_rank code on the stack are counted.
    """
    marker = os.sep + "sklearn_rank" + os.sep
    log: list[tuple[str, int | None]] = []
    enabled = [False]

    def from_package(frame) -> bool:
        while frame is not None:
            if marker in frame.f_code.co_filename:
                return True
            frame = frame.f_back
        return False

    def profiler(frame, event, arg):
        if enabled[0] and event == "c_call":
            name = getattr(arg, "__name__", None)
            if name in SORT_NAMES:
                owner = getattr(arg, "__self__", None)
                if isinstance(owner, np.ndarray) and from_package(frame):
                    log.append((name, owner.size))

    real_lexsort = np.lexsort

    def lexsort(keys, axis=-1):
        if enabled[0] and from_package(sys._getframe(1)):
            log.append(("lexsort", int(np.shape(keys[0])[-1]) if len(keys) else 0))
        return real_lexsort(keys, axis)

    np.lexsort = lexsort
    import sklearn_rank

    def count(fn) -> tuple[int, list]:
        log.clear()
        enabled[0] = True
        sys.setprofile(profiler)
        try:
            fn()
        finally:
            sys.setprofile(None)
            enabled[0] = False
        return list(log)

    d = make_data(n, "typical", "shuffled", seed=0)
    out: dict[str, Any] = {"rows": d.n}
    cases = {
        "evaluate ndcg@10": lambda: srank_evaluate(d, ("ndcg@10",)),
        "evaluate 5 metrics": lambda: srank_evaluate(d),
        "gauc_score": lambda: srank_gauc(d),
    }
    for name, fn in cases.items():
        out[name] = count(fn)
    out["scorer"] = _scorer_sorts(sklearn_rank, d, count)
    print(json.dumps(out))


def _scorer_sorts(sklearn_rank, d: Data, count) -> dict:
    """Sorts per scoring call of a 1-metric and a 5-metric scorer in GridSearchCV."""
    make = getattr(sklearn_rank, "make_ranking_scorer", None)
    if make is None:
        return {"skipped": "sklearn_rank has no make_ranking_scorer yet"}
    import sklearn
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV, GroupKFold

    rng = np.random.default_rng(0)
    X = np.c_[d.y_true + rng.standard_normal(d.n), rng.standard_normal(d.n)]
    splits, grid = 3, {"alpha": [0.1, 1.0]}
    out: dict[str, Any] = {"scoring_calls": splits * len(grid["alpha"])}
    with sklearn.config_context(enable_metadata_routing=True):
        for label, scoring in (
            ("1 metric", make("ndcg@10")),
            ("5 metrics", make(list(METRICS))),  # the multi-metric scorer
        ):
            search = GridSearchCV(
                Ridge(), grid, scoring=scoring, cv=GroupKFold(splits), refit=False
            )
            out[label] = count(lambda s=search: s.fit(X, d.y_true, groups=d.groups))
            scored = sorted(k for k in search.cv_results_ if k.startswith("mean_test"))
            out[label + " columns"] = scored
            out[label + " scorer"] = type(scoring).__name__
    return out


def run_sorts(args) -> dict:
    cmd = [sys.executable, SCRIPT, "--_child", "sorts", str(args.sort_rows)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-3:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _summarise_sorts(records: list, min_size: int) -> str:
    big = [r for r in records if r[1] is not None and r[1] >= min_size]
    kinds: dict[str, int] = {}
    for name, _ in big:
        kinds[name] = kinds.get(name, 0) + 1
    detail = ", ".join(f"{k} x{v}" for k, v in sorted(kinds.items())) or "-"
    return f"{len(big)} ({detail}); {len(records)} sorts of any size"


# ------------------------------------------------------------------------ output
def machine_facts() -> dict:
    cpu = platform.processor() or "?"
    mem = None
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as fh:
            mem = int(fh.readline().split()[1]) * 1024
    except OSError:
        pass
    from importlib.metadata import PackageNotFoundError, version

    versions = {"python": platform.python_version(), "numpy": np.__version__}
    for dist in (
        "scikit-learn",
        "scipy",
        "sklearn-rank",
        "pytrec-eval-terrier",
        "ranx",
        "ir-measures",
        "torch",
        "torchmetrics",
    ):
        try:  # metadata, not an import: importing torch takes seconds
            versions[dist] = version(dist)
        except PackageNotFoundError:
            continue
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "memory_gib": round(mem / 2**30, 1) if mem else None,
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "versions": versions,
    }
