"""The ``device`` section: ``evaluate`` on PyTorch tensors (``--device cpu`` or
``cuda``) against the same call on numpy arrays and against copying the tensors
to numpy first.

Rows, timed in interleaved rounds (``time_items``): the lexsort floor on numpy,
``evaluate`` on numpy arrays, ``evaluate`` on the tensors, and ``evaluate`` after
``tensor.cpu().numpy()`` (the copy counted). On a CUDA device the tensor row
records the library's error (arrays on a device are never copied behind the
caller's back) and the copy row gives the host figure; the section runs
unchanged on a machine with a GPU.
"""

from __future__ import annotations

import importlib.util
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

    def call(a, b, c):
        return srank.evaluate(a, b, groups=c, metrics=METRICS)

    def copied():
        return call(*(t.cpu().numpy() for t in (y, s, g)))

    numpy_row = "evaluate, numpy arrays"
    items = [
        Item("lexsort((-score, groups)), numpy", "floor", lambda: _floor(d)),
        Item(numpy_row, "sklearn_rank", lambda: call(d.y_true, d.y_score, d.groups)),
        Item(
            f"evaluate, torch tensors on {dev}", "sklearn_rank", lambda: call(y, s, g)
        ),
        Item("evaluate after tensor.cpu().numpy()", "sklearn_rank", copied),
    ]
    time_items(items, args.repeats, args.budget, lambda w: _log(args, f"  device: {w}"))
    med = {it.work: statistics.median(it.times) if it.times else None for it in items}
    base = med[numpy_row]
    return [
        {
            "device": str(dev),
            "rows": d.n,
            "groups": d.n_groups,
            "work": it.work,
            "median": med[it.work],
            "runs": len(it.times),
            "vs_numpy": med[it.work] / base if med[it.work] and base else None,
            "note": it.error,
        }
        for it in items
    ]


def _floor(d):
    return np.lexsort((-d.y_score, d.groups))
