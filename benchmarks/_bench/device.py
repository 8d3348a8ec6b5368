"""The ``device`` section: ``evaluate`` on PyTorch tensors (``--device cpu`` or
``cuda``) against the same call on numpy arrays and against copying the tensors
to numpy first.

Rows, timed in interleaved rounds (``time_items``): the lexsort floor on numpy,
``evaluate`` on numpy arrays, ``evaluate`` on the tensors under scikit-learn's
``array_api_dispatch`` (computed by torch on the tensors' device), the same
with ties resolved (``ties="stable"``), ``evaluate`` on the tensors without
dispatch (read on the host; on CUDA the row records the error, as tensors on a
device are never copied behind the caller's back), ``evaluate`` after
``tensor.cpu().numpy()`` (the copy counted), and, up to ``--torchmetrics-rows``
rows where torchmetrics is installed, NDCG@10 alone by sklearn_rank on the
tensors against torchmetrics' ``RetrievalNormalizedDCG`` on the same device.
Every call returns Python floats, so a GPU row includes the synchronisation.
The section runs unchanged on a machine with a GPU (``--device cuda``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import statistics

import numpy as np

from .common import METRICS, _srank
from .data import make_data
from .timing import Item, _log, time_items

DEVICE_HEADERS = [
    "device",
    "rows",
    "groups",
    "work",
    "median s",
    "runs",
    "÷ numpy evaluate",
    "device peak GB",
    "note",
]


def run_device(args) -> list[dict]:
    """One block of rows per size in ``--device-rows``."""
    if importlib.util.find_spec("torch") is None:
        return [{"device": args.device, "work": "-", "note": "torch not installed"}]
    rows: list[dict] = []
    for n in args.device_rows:
        rows += _device_rows(args, make_data(n, "typical", "shuffled", seed=args.seed))
    return rows


def _dispatch(on: bool):
    """scikit-learn's array API switch (it asks for SCIPY_ARRAY_API=1)."""
    os.environ.setdefault("SCIPY_ARRAY_API", "1")
    import sklearn

    return sklearn.config_context(array_api_dispatch=on)


def _device_rows(args, d) -> list[dict]:
    import torch

    srank = _srank()
    dev = torch.device(args.device)
    try:
        y, s, g = (
            torch.asarray(a, device=dev) for a in (d.y_true, d.y_score, d.groups)
        )
    except (RuntimeError, AssertionError) as exc:  # no such device here
        return [{"device": str(dev), "rows": d.n, "work": "-", "note": repr(exc)}]

    def call(a, b, c, on=False, metrics=METRICS, **opts):
        with _dispatch(on) if on else contextlib.nullcontext():
            return srank.evaluate(a, b, groups=c, metrics=metrics, **opts)

    def copied():
        return call(*(t.cpu().numpy() for t in (y, s, g)))

    numpy_row = "evaluate, numpy arrays"
    on_device = f"evaluate, torch on {dev}, dispatch on"
    on_stable = f"evaluate, torch on {dev}, dispatch on, ties='stable'"
    host = [
        Item("lexsort((-score, groups)), numpy", "floor", lambda: _floor(d)),
        Item(numpy_row, "sklearn_rank", lambda: call(d.y_true, d.y_score, d.groups)),
    ]
    items = [
        Item(on_device, "sklearn_rank", lambda: call(y, s, g, on=True)),
        Item(on_stable, "sklearn_rank", lambda: call(y, s, g, on=True, ties="stable")),
    ]
    host_after = [
        Item(
            f"evaluate, torch on {dev}, dispatch off (read on the host)",
            "sklearn_rank",
            lambda: call(y, s, g),
        ),
        Item("evaluate after tensor.cpu().numpy()", "sklearn_rank", copied),
    ]
    # The host's single-threaded work grows to minutes at 1e8 rows and more:
    # above --device-host-rows only the device is timed (a GPU lease is short).
    skipped = []
    if args.device_host_rows is None or d.n <= args.device_host_rows:
        items = host + items + host_after
    else:
        skipped = host + host_after
        limit = int(args.device_host_rows)
        for it in skipped:
            it.error = f"skipped: over --device-host-rows {limit:_}"
    if d.n <= args.torchmetrics_rows and importlib.util.find_spec("torchmetrics"):
        items += _ndcg_items(d, y, s, g, call)
    time_items(items, args.repeats, args.budget, lambda w: _log(args, f"  device: {w}"))
    peaks = _peak_items(dev, items, on_device, on_stable)
    peak = {work: _device_peak(fn) for work, fn in peaks}
    items += skipped
    med = {it.work: statistics.median(it.times) if it.times else None for it in items}
    base = med.get(numpy_row)
    return [
        {
            "device": str(dev),
            "rows": d.n,
            "groups": d.n_groups,
            "work": it.work,
            "median": med[it.work],
            "runs": len(it.times),
            "vs_numpy": med[it.work] / base if med[it.work] and base else None,
            "peak_gb": peak.get(it.work),
            "note": it.error,
        }
        for it in items
    ]


def _ndcg_items(d, y, s, g, call) -> list[Item]:
    """NDCG@10 alone: sklearn_rank on the tensors (dispatch on) against
    torchmetrics' RetrievalNormalizedDCG on the same device (linear gains, a
    group without a relevant row scoring 0, as torchmetrics does)."""
    from torchmetrics.retrieval import RetrievalNormalizedDCG

    metric = RetrievalNormalizedDCG(top_k=10).to(y.device)

    def peer():
        return float(metric(s.double(), y.long(), indexes=g.long()))

    def ours():
        return call(y, s, g, on=True, metrics=["ndcg@10"], gain="linear", undefined=0.0)

    return [
        Item(f"ndcg@10 alone, torch on {y.device}, dispatch on", "sklearn_rank", ours),
        Item(
            f"torchmetrics RetrievalNormalizedDCG(top_k=10), {y.device}", "peer", peer
        ),
    ]


def _peak_items(dev, items, *works):
    """The items whose device memory is read (CUDA only: torch's allocator)."""
    if dev.type != "cuda":
        return []
    return [(it.work, it.fn) for it in items if it.work in works and not it.error]


def _device_peak(fn) -> float:
    """GB the call held on the device at its peak, above what was held before."""
    import torch

    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    fn()
    torch.cuda.synchronize()
    return (torch.cuda.max_memory_allocated() - before) / 1e9


def _floor(d):
    return np.lexsort((-d.y_score, d.groups))
