"""Input conversion and checks, done once at the public boundary.

Every error names the argument, what was found and how to fix it, in the format
scikit-learn uses for parameter validation.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._engine import segments as seg
from .._engine.conventions import OPTIONS, Options
from .._engine.group_codes import check_group_rows, encode_groups, encode_integer_ids
from .._engine.kernels.intent import INTENT_KERNELS, WEIGHTED, WHOLE_LIST
from .._utils.array_api import NUMPY, InputSpace, input_space, is_foreign, to_numpy
from .._utils.jobs import in_background
from .._utils.params import check_k, param_error
from .ir_measures_names import (
    IR_MEASURES,
    ir_measure_metric,
    looks_like_ir_measure,
    nearest,
    parse_ir_measure,
)
from .registry import METRICS, MetricSpec, get_metric_names

# Weights whose largest value lies in this range are used as given.
_WEIGHT_SAFE = (2.0**-64, 2.0**64)

# What to do about a non-numeric per-row input, by argument.
_NUMERIC_HINTS = {
    "y_true": "Encode labels as numbers (e.g. 0/1 or grades 0..4).",
    "y_score": "Pass the model's numeric scores (e.g. its predict or "
    "decision_function output).",
    "sample_weight": "Pass one non-negative number per row.",
}


def to_1d(x: Any, name: str, func: str) -> np.ndarray:
    """Return a 1-D ndarray view or copy of ``x`` without modifying it."""
    if is_foreign(x):  # a PyTorch tensor, an array-api-strict array, ...
        x = to_numpy(x, name, func)
    elif hasattr(x, "to_numpy") and not hasattr(x, "categories"):
        # pandas Series / Index; DataFrames are 2-D and rejected below.
        x = x.to_numpy()
    if isinstance(x, Iterator) or (
        isinstance(x, Iterable)
        and not isinstance(x, (Sequence, np.ndarray))
        and not hasattr(x, "__array__")
    ):
        raise TypeError(
            f"{name} in {func} must be an array-like (list, tuple, ndarray or "
            f"Series) with one entry per row; got a {type(x).__name__}. Convert it "
            f"first, e.g. {name}=list(...)."
        )
    try:
        arr = np.asarray(x)
    except ValueError:  # numpy cannot build a rectangular array
        raise ValueError(
            f"{name} in {func} must be a flat array-like with one entry per row; it "
            "holds sequences of different lengths (a ragged nested list)."
        ) from None
    if arr.ndim == 0:
        raise ValueError(
            f"{name} in {func} must be a 1-D array-like with one entry per row; "
            f"got a scalar {x!r}."
        )
    if arr.ndim != 1:
        raise ValueError(
            f"{name} in {func} must be 1-D with one entry per row; got an array of "
            f"shape {arr.shape}. Pass a flat array: groups say which rows belong to "
            "which query (use .ravel() on a column vector)."
        )
    return arr


def _non_numeric(arr: np.ndarray, name: str, func: str, found: str) -> TypeError:
    hint = _NUMERIC_HINTS.get(name, "Pass numbers.")
    return TypeError(f"{name} in {func} must be numeric; got {found}. {hint}")


def check_numeric(x: Any, name: str, func: str) -> np.ndarray:
    """Convert labels, scores or weights to a finite float64 1-D array.

    As ``sklearn.utils.check_array(dtype="numeric")``: text (even numeric text such
    as ``"1"``), bytes and complex numbers are rejected, never parsed or truncated.
    """
    arr = to_1d(x, name, func)
    kind = arr.dtype.kind
    if kind in "USaV":
        raise _non_numeric(arr, name, func, f"text or bytes (dtype {arr.dtype})")
    if kind == "c":
        raise _non_numeric(arr, name, func, "complex numbers")
    if kind == "O":
        bad = next(
            (
                v
                for v in arr
                if isinstance(v, (str, bytes, complex, np.complexfloating))
            ),
            None,
        )
        if bad is not None:
            raise _non_numeric(arr, name, func, f"a {type(bad).__name__} value {bad!r}")
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise _non_numeric(
                arr, name, func, "values that are not numbers (or missing values)"
            ) from None
    arr = np.asarray(arr, dtype=np.float64)
    if not np.isfinite(arr).all():
        bad = np.flatnonzero(~np.isfinite(arr))
        raise ValueError(
            f"{name} in {func} contains {bad.size} NaN or infinite value(s), first at "
            f"row {bad[0]}. Remove those rows or replace them with finite values."
        )
    return arr


def _in_space(x: Any, name: str, func: str, space: InputSpace) -> Any:
    """A 1-D array of the call's namespace on its device (host inputs of other
    kinds, lists or numpy arrays, are copied there: they are not the caller's
    device arrays)."""
    xp = space.xp
    if not is_foreign(x):
        x = to_1d(x, name, func)
        if x.dtype.kind not in "biuf":
            raise _non_numeric(x, name, func, f"dtype {x.dtype}")
    arr = xp.asarray(x, device=space.device)
    if arr.ndim != 1:
        raise ValueError(
            f"{name} in {func} must be 1-D with one entry per row; got an array of "
            f"shape {tuple(arr.shape)}. Pass a flat array (use .reshape(-1))."
        )
    return arr


def check_numeric_in(x: Any, name: str, func: str, space: InputSpace) -> Any:
    """:func:`check_numeric` for array API inputs under dispatch: a new float
    array (float64, or float32 where the device has none) on the inputs' device;
    the checks run there, only their verdicts come back to the host."""
    if space.xp is None:
        return check_numeric(x, name, func)
    xp = space.xp
    arr = _in_space(x, name, func, space)
    if not xp.isdtype(arr.dtype, ("bool", "integral", "real floating")):
        raise _non_numeric(arr, name, func, f"dtype {arr.dtype}")
    arr = xp.astype(arr, space.float, copy=True)  # never the caller's memory
    finite = xp.isfinite(arr)
    if not bool(xp.all(finite)):
        bad = seg.flatnonzero(~finite)
        raise ValueError(
            f"{name} in {func} contains {bad.shape[0]} NaN or infinite value(s), "
            f"first at row {int(bad[0])}. Remove those rows or replace them with "
            "finite values."
        )
    return arr


_MASK_MEANING = {
    "retrieved": "True = ranked",
    "judged": "True = judged",
    "in_pool": "True = in the judgment pool",
}


def check_bool_mask(
    x: Any, name: str, func: str, space: InputSpace = NUMPY
) -> np.ndarray:
    """Convert a per-row boolean mask (``retrieved``, ``judged``, ``in_pool``)."""
    if space.xp is not None:
        xp = space.xp
        arr = _in_space(x, name, func, space)
        if arr.dtype == xp.bool:
            return arr
        if xp.isdtype(arr.dtype, "integral") and bool(xp.all((arr == 0) | (arr == 1))):
            return arr == 1
        raise TypeError(
            f"{name} in {func} must be a boolean array "
            f"({_MASK_MEANING.get(name, 'one bool per row')}); got dtype "
            f"{arr.dtype}."
        )
    arr = to_1d(x, name, func)
    if arr.dtype != bool:
        if arr.dtype.kind in "iu" and np.isin(arr, (0, 1)).all():
            arr = arr.astype(bool)
        else:
            raise TypeError(
                f"{name} in {func} must be a boolean array "
                f"({_MASK_MEANING.get(name, 'one bool per row')}); got dtype "
                f"{arr.dtype}."
            )
    return arr


def check_sample_weight(
    x: Any, n: int, func: str, space: InputSpace = NUMPY
) -> np.ndarray:
    """Convert sample weights: finite, non-negative, one per row."""
    arr = check_numeric_in(x, "sample_weight", func, space)
    xp = seg.array_namespace(arr)
    if arr.shape[0] != n:
        raise ValueError(
            f"sample_weight in {func} has {arr.shape[0]} entries but y_true has {n}; "
            "give one weight per row."
        )
    if bool(xp.any(arr < 0)):
        raise ValueError(
            f"sample_weight in {func} contains negative values; weights must be >= 0."
        )
    # Results depend on weights only up to one common factor. Weights far from 1
    # (1e308, 5e-324) are scaled by a power of two (exact) so that the largest is
    # in [0.5, 1): products and sums of weights then stay finite and away from
    # underflow. Ordinary weights are kept as given (GroupScores reports them).
    top = float(xp.max(arr))
    if top > 0 and not _WEIGHT_SAFE[0] <= top <= _WEIGHT_SAFE[1]:
        shift = -int(np.frexp(top)[1])
        arr = np.ldexp(arr, shift) if xp is np else arr * 2.0**shift  # exact
    return arr


def check_lengths(func: str, **arrays: np.ndarray | None) -> int:
    """All per-row inputs have the same, non-zero length."""
    lengths = {k: v.shape[0] for k, v in arrays.items() if v is not None}
    n = next(iter(lengths.values()))
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k}={v}" for k, v in lengths.items())
        raise ValueError(
            f"Inconsistent numbers of rows in {func}: {detail}. Every per-row input "
            "must have one entry per row."
        )
    if n == 0:
        raise ValueError(f"{func} got empty inputs (0 rows); pass at least one row.")
    return n


@dataclass(frozen=True)
class ValidatedInputs:
    """Per-row inputs after every boundary check: float64 labels and scores, group
    codes ``0..n_groups-1`` with their ids, optional weights and ranked mask;
    ``judged`` is None when every row is judged, ``in_pool`` None when no row is
    in the judgment pool without a judgement (trec_eval's negative grades)."""

    y_true: np.ndarray
    y_score: np.ndarray
    codes: np.ndarray
    group_ids: np.ndarray
    sample_weight: np.ndarray | None
    retrieved: np.ndarray | None
    judged: np.ndarray | None = None
    in_pool: np.ndarray | None = None
    space: InputSpace = NUMPY  # the namespace and device of the arrays above
    # The rows of the input these arrays hold (judged_only drops some); None:
    # every row, in input order.
    rows: Any = None

    @property
    def n_groups(self) -> int:
        return self.group_ids.shape[0]


def check_inputs(
    func: str,
    y_true: Any,
    y_score: Any,
    groups: Any,
    sample_weight: Any,
    retrieved: Any,
    judged: Any = None,
    *,
    in_pool: Any = None,
    groups_required: bool = True,
    host: bool = False,
    unjudged_labels: bool = False,
    n_threads: int = 1,
) -> ValidatedInputs:
    """Convert and check every per-row input of one call: numpy arrays, or, for
    array API inputs under scikit-learn's ``array_api_dispatch``, arrays of their
    namespace on their device (``space``). ``unjudged_labels`` (the command
    line's ``-l`` below 0 only): unjudged rows may carry labels, read at their
    ranks only (R and bpref's N count judged rows). ``n_threads`` > 1: numeric
    group ids are encoded on a second thread while the other inputs are checked
    (errors are raised in the same order as on one thread)."""
    space = NUMPY
    if not host:
        arrays = (y_true, y_score, groups, sample_weight, retrieved, judged, in_pool)
        space = input_space(*arrays, func=func)
    encoded = None
    if n_threads > 1 and space.xp is None and _encoded_apart(groups):
        encoded = in_background(lambda: encode_groups(groups, None, func))
    yt = check_numeric_in(y_true, "y_true", func, space)
    # No scores yet: a prepared evaluation checks each set as it comes.
    ys = None if y_score is None else check_numeric_in(y_score, "y_score", func, space)

    def mask(x: Any, name: str) -> Any:
        return None if x is None else check_bool_mask(x, name, func, space)

    ret, jud, pool = mask(retrieved, "retrieved"), mask(judged, "judged"), None
    pool = mask(in_pool, "in_pool")
    n = check_lengths(
        func, y_true=yt, y_score=ys, retrieved=ret, judged=jud, in_pool=pool
    )
    if jud is not None and not unjudged_labels:
        jud = _check_unjudged_labels(yt, jud, func)
    elif jud is not None and bool(seg.array_namespace(jud).all(jud)):
        jud = None  # every row judged: the default path
    if pool is not None:
        pool = _check_pool(pool, jud, func)
    sw = None
    if sample_weight is not None:
        sw = check_sample_weight(sample_weight, n, func, space)
    if groups is None and not groups_required:
        codes, ids = np.zeros(n, dtype=np.intp), np.zeros(1, dtype=np.intp)
    elif space.xp is not None and is_foreign(groups):
        codes, ids = encode_integer_ids(groups, n, func, space)
    elif encoded is not None:
        codes, ids = encoded()
        check_group_rows(codes, n, func)
    else:
        codes, ids = encode_groups(groups, n, func)
    if space.xp is not None and isinstance(codes, np.ndarray):
        codes = space.xp.asarray(codes.astype(np.int64), device=space.device)
    return ValidatedInputs(yt, ys, codes, ids, sw, ret, jud, pool, space)


# Numeric group ids of at least this many rows are encoded on a thread of their
# own (numpy's passes release the GIL; smaller ones cost less than the thread).
_APART_ROWS = 1 << 16


def _encoded_apart(groups: Any) -> bool:
    """Whether :func:`check_inputs` encodes ``groups`` beside the other checks:
    a large numpy array of integers or floats (their encoding is numpy passes)."""
    return (
        isinstance(groups, np.ndarray)
        and groups.dtype.kind in "iuf"
        and groups.size >= _APART_ROWS
    )


def _check_pool(in_pool: np.ndarray, judged: np.ndarray | None, func: str):
    """A judged row is in the judgment pool. Returns the mask, or None when no
    row is in the pool without a judgement (the default path)."""
    xp = seg.array_namespace(in_pool)
    outside = ~in_pool if judged is None else judged & ~in_pool
    if bool(xp.any(outside)):
        row = int(seg.flatnonzero(outside)[0])
        raise ValueError(
            f"in_pool in {func} is False on row {row}, which is judged; a judged "
            "row is in the judgment pool. Mark the row in_pool=True, or "
            "judged=False."
        )
    if judged is None or not bool(xp.any(in_pool & ~judged)):
        return None
    return in_pool


def _check_unjudged_labels(y_true: np.ndarray, judged: np.ndarray, func: str):
    """An unjudged row carries no judgement: its label must be 0. Returns the
    mask, or None when every row is judged (the default path)."""
    xp = seg.array_namespace(judged)
    if bool(xp.all(judged)):
        return None
    bad = seg.flatnonzero(~judged & (y_true != 0))
    if bad.shape[0]:
        row = int(bad[0])
        raise ValueError(
            f"y_true in {func} has the label {float(y_true[row]):g} on row {row}, "
            "whose judged is False; an unjudged row carries no judgement. Give "
            "unjudged rows the label 0, or mark the row judged=True."
        )
    return judged


def names_judged_only(requests: Sequence[MetricRequest]) -> bool:
    """Whether the metric names ask for trec_eval's -J (``AP(judged_only=True)``);
    :func:`check_metrics` makes sure all of them do or none."""
    return any(dict(r.options).get("judged_only") for r in requests)


def options_of_requests(
    requests: Sequence[MetricRequest],
) -> dict[tuple, list[MetricSpec]]:
    """The requests' specs by the options their names set (``ERR@20`` sets
    max_grade=4): labels are checked against each set of options."""
    out: dict[tuple, list[MetricSpec]] = {}
    for r in requests:
        out.setdefault(r.options, []).append(r.spec)
    return out


def drop_unjudged(inputs: ValidatedInputs, func: str) -> ValidatedInputs:
    """trec_eval's -J (``judged_only=True``): the rows with ``judged=False`` leave
    every per-row array in one pass; group codes and ids are kept, so a group
    whose rows are all unjudged stays (empty, hence undefined)."""
    keep = inputs.judged
    if keep is None:
        return inputs
    xp = seg.array_namespace(keep)
    if not bool(xp.any(keep)):
        raise ValueError(
            f"judged in {func} is False on every row, so judged_only=True leaves "
            "nothing to rank. Pass judged_only=False, or mark the judged rows."
        )
    rows = seg.flatnonzero(keep)

    def take(a):
        return None if a is None else a[rows]

    weight = take(inputs.sample_weight)
    if weight is None:
        # A group left without rows must weigh 0 (as if absent, as trec_eval
        # never sees a query without judgements): unit row weights give every
        # other group weight 1 and an empty group 0.
        y = inputs.y_true
        weight = xp.ones(
            rows.shape[0], dtype=y.dtype, device=None if xp is np else y.device
        )

    return ValidatedInputs(
        inputs.y_true[rows],
        take(inputs.y_score),
        inputs.codes[rows],
        inputs.group_ids,
        weight,
        take(inputs.retrieved),
        None,
        space=inputs.space,
        rows=rows,
    )


def check_labels(
    y_true: np.ndarray, specs: Sequence[MetricSpec], opts: Options, func: str
) -> None:
    """Labels fit the way each requested metric uses them (gains, grades)."""
    kinds = {spec.labels for spec in specs}
    if not isinstance(opts.gain, str):  # a mapping or callable defines its gains
        kinds.discard("gain")
    if not kinds & {"gain", "grades"}:
        return
    xp = seg.array_namespace(y_true)
    if bool(xp.any(y_true < 0)):
        raise ValueError(
            f"y_true in {func} contains negative labels; graded gains need labels "
            ">= 0. Shift or clip the labels (e.g. grades 0..4)."
        )
    exponential = "gain" in kinds and opts.gain == "exponential"
    top = float(xp.max(y_true)) if exponential or "grades" in kinds else 0.0
    if exponential and top > 1023:
        raise ValueError(
            f"y_true in {func} has a label of {top:g}: the exponential "
            "gain 2**label - 1 overflows float64 above 1023. Use gain='linear' "
            "or rescale the labels."
        )
    if "grades" in kinds and top > opts.max_grade:
        raise ValueError(
            f"y_true in {func} has a grade of {top:g} above "
            f"max_grade={opts.max_grade:g}. Pass max_grade=<the top of your grade "
            "scale> (e.g. max_grade=4 for grades 0..4); it must not depend on the "
            "data of one fold."
        )


@dataclass(frozen=True)
class MetricRequest:
    """One requested metric: its label as given (``"ndcg@10"``), spec, cutoff,
    and the options its name sets (``"iprec@0.5"``: recall_level=0.5)."""

    label: str
    spec: MetricSpec
    k: int | None
    options: tuple[tuple[str, Any], ...] = ()


def parse_metric(name: Any) -> MetricRequest:
    """``"ndcg@10"`` -> (ndcg, k=10); ``"map"`` -> (map, k=None); ir_measures'
    names (``"nDCG@10"``, ``"P(rel=2)@5"``) and measure objects -> the metric
    with the options of ir_measures' default provider."""
    if hasattr(name, "NAME") and hasattr(name, "params"):  # an ir_measures object
        name = str(name)
    if isinstance(name, str) and looks_like_ir_measure(name):
        label, metric, k, options = parse_ir_measure(name)
        return MetricRequest(label, METRICS[metric], k, tuple(options.items()))
    if not isinstance(name, str):
        raise TypeError(
            f"Metric names must be strings such as 'ndcg@10'; got {name!r}."
        )
    base, sep, cut = name.partition("@")
    spec = METRICS.get(base)
    if spec is None:
        valid = ", ".join(get_metric_names())
        close = nearest(base, [*get_metric_names(), *IR_MEASURES])
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        raise ValueError(f"Unknown metric {name!r}.{hint} Valid names: {valid}.")
    if not sep:
        return MetricRequest(name, spec, None)
    if spec.name_option:
        return MetricRequest(name, spec, None, (_name_option(name, spec, cut),))
    if not spec.takes_k:
        raise ValueError(
            f"Metric {base!r} takes no cutoff; use {base!r} instead of {name!r}."
        )
    if not cut.isdigit() or int(cut) < 1:
        raise ValueError(
            f"The cutoff in {name!r} must be a positive integer, as in '{base}@10'."
        )
    return MetricRequest(name, spec, int(cut))


def _name_option(name: str, spec: MetricSpec, text: str) -> tuple[str, Any]:
    """The option value written after ``@`` in ``name`` (``iprec@0.5``)."""
    option, placeholder = spec.name_option
    try:
        value = float(text)
    except ValueError:
        raise ValueError(
            f"In {name!r} the text after '@' must be a number: "
            f"{spec.name}@{placeholder} sets {option}={placeholder}, as in "
            f"'{spec.name}@0.5'."
        ) from None
    try:
        return option, OPTIONS[option].check(value, "evaluate")
    except ValueError as exc:
        raise ValueError(f"In {name!r}: {exc}") from None


def check_option_keywords(options: Mapping[str, Any], owner: str) -> None:
    """The ``**options`` of a front end name convention keywords only."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise TypeError(
            f"{owner} got an unexpected keyword argument {unknown[0]!r}; the "
            f"convention keywords are {', '.join(OPTIONS)}."
        )


def asks_for_intents(metrics: Any) -> bool:
    """Whether ``metrics`` names an intent-aware metric of the table (a 2-D
    ``y_true``: :func:`evaluate`'s switch)."""

    def intents(name: Any) -> bool:
        base = ir_measure_metric(name)
        if base is None and isinstance(name, str):
            base = name.partition("@")[0]
        return getattr(METRICS.get(base), "intents", False)

    names = [metrics] if isinstance(metrics, str) else metrics
    try:
        return any(intents(n) for n in names)
    except TypeError:  # not iterable: the caller's own check names it
        return False


def check_metrics(
    metrics: Any, func: str, *, per_group: bool = False, intents: bool = False
) -> list[MetricRequest]:
    """Parse the ``metrics`` argument: one name or a non-empty sequence of names.
    ``intents``: whether the caller takes intent-aware metrics (a 2-D
    ``y_true``); the others refuse them."""
    if isinstance(metrics, str):
        names = [metrics]
    elif isinstance(metrics, Iterable) and not isinstance(metrics, Mapping):
        names = list(metrics)
    else:
        names = []
    if not names:
        raise param_error(
            "metrics",
            func,
            "a metric name or a non-empty list of names",
            metrics,
            "Name at least one metric, e.g. metrics=('ndcg@10', 'map').",
        )
    requests = [parse_metric(name) for name in names]
    for request in requests:
        if request.spec.intents and not intents:
            raise ValueError(
                f"{request.label!r} is intent-aware: it needs a 2-D y_true of "
                f"relevance per (row, intent), which {func} does not take. Use "
                "evaluate, evaluate_intents or a scorer (get_scorer)."
            )
    judged_only = {bool(dict(r.options).get("judged_only")) for r in requests}
    if len(judged_only) > 1:
        raise ValueError(
            "judged_only=True in a measure name removes the unjudged rows for the "
            "whole call; ask for the measures with and without it in separate "
            "calls, or pass judged_only=True."
        )
    if per_group:
        for request in requests:
            if request.spec.pooled:
                raise ValueError(
                    f"{request.label!r} is pooled over all rows and has no per-group "
                    "value; use 'gauc' for per-group AUC."
                )
    return requests


# -- the intent-aware metrics (a 2-D y_true) ----------------------------------

# The tie rules that are one ordering of the rows. "average" given explicitly
# is the exact expectation over the orders of each tie block
# (_engine/kernels/intent_ties.py); a preset's "average" or "threshold" reads
# as "stable" (the documented default), and "threshold" given explicitly raises.
ONE_ORDER = ("stable", "pessimistic", "optimistic")


def check_intent_labels(y_true: Any, func: str) -> np.ndarray:
    """The 2-D labels as float64, or as given where they are whole numbers (no
    float copy, and they cannot be NaN); binary per intent (grade > 0) is what
    the metrics read."""
    whole = isinstance(y_true, np.ndarray) and y_true.dtype.kind in "biu"
    try:
        y: np.ndarray = y_true if whole else np.asarray(y_true, dtype=np.float64)
    except (TypeError, ValueError):
        raise param_error(
            "y_true",
            func,
            "a numeric array of shape (n_samples, n_intents)",
            type(y_true).__name__,
        ) from None
    if y.ndim != 2 or y.shape[1] < 1:
        raise param_error(
            "y_true",
            func,
            "a 2-D array of shape (n_samples, n_intents) with n_intents >= 1",
            f"an array of shape {y.shape}",
            "Give one column per intent (subtopic), one row per document.",
        )
    if not whole and not np.isfinite(y).all():
        raise param_error("y_true", func, "finite grades", "NaN or inf")
    if (y.min() if y.size else 0) < 0:
        raise param_error(
            "y_true", func, "non-negative grades", f"minimum {float(y.min())!r}"
        )
    return y


def parse_intent_name(name: Any, func: str) -> tuple[str, str, int | None]:
    if not isinstance(name, str):
        raise param_error("metrics", func, "a str or a sequence of str", name)
    base, _, cut = name.partition("@")
    if base not in INTENT_KERNELS:
        raise param_error(
            "metrics",
            func,
            "names among {" + ", ".join(repr(n) for n in INTENT_KERNELS) + "}"
            " with an optional '@k'",
            name,
        )
    k = None
    if cut and base in WHOLE_LIST:
        raise param_error(
            "metrics",
            func,
            f"{base!r} without a cutoff (it reads the whole list, as ndeval)",
            name,
        )
    if cut:
        if not cut.isdigit():
            raise param_error("metrics", func, "a cutoff '@k' with k an int >= 1", name)
        k = check_k(int(cut), func)
    return name, base, k


def parse_intent_names(names: list[Any], func: str) -> list[MetricRequest]:
    """The intent-aware names, checked with errors that name ``func``."""
    out = []
    for name in names:
        if ir_measure_metric(name) is not None:  # "alpha_nDCG(alpha=0.7)@20"
            out.append(parse_metric(name))
            continue
        label, base, k = parse_intent_name(name, func)
        out.append(MetricRequest(label, METRICS[base], k))
    return out


def check_intent_ties(ties: Any, opts: Options, func: str) -> Options:
    """The tie rule of a call with intent-aware metrics: one of
    :data:`ONE_ORDER`, or "average" given explicitly (the expectation over the
    orders of each tie block); a preset's "average" or "threshold" reads as
    "stable" (the order the engine then gives ties), "threshold" given
    explicitly raises."""
    if opts.ties in ONE_ORDER or ties == "average":
        return opts
    if ties is not None:
        raise param_error(
            "ties",
            func,
            "one of 'average', 'stable', 'pessimistic', 'optimistic' or None "
            "with intent-aware metrics",
            ties,
            "A tie block read as one score threshold has no reading for the "
            "intent-aware metrics (they score rows one rank at a time). Pass "
            "ties='average' for the expectation over the orders of tied rows, "
            "or ties='stable' (ndeval reads the run in order).",
        )
    return opts


def check_intent_weight(
    intent_weight: Any,
    rel: np.ndarray,
    inputs: Any,
    requests: list[MetricRequest],
    func: str,
) -> np.ndarray:
    """``intent_weight`` checked: ``(n_samples, n_intents)``, finite, >= 0, the
    same on every row of a group, and not 0 on every intent of a group that
    has one; returned per group, ``(n_groups, n_intents)``."""
    unweighted = [r.label for r in requests if r.spec.name not in WEIGHTED]
    if unweighted:
        raise param_error(
            "intent_weight",
            func,
            "None with metrics that have no definition over intent weights",
            f"weights with {unweighted[0]!r}",
            "Intent weights P(i|q) weigh ERR-IA, precision-IA and MAP-IA "
            "(Agrawal et al., 2009); ask for the others in another call.",
        )
    try:
        w = np.asarray(intent_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise param_error(
            "intent_weight", func, "a numeric array", type(intent_weight).__name__
        ) from None
    if w.shape != rel.shape:
        raise param_error(
            "intent_weight",
            func,
            f"an array of y_true's shape {rel.shape}, each row its query's weights",
            f"an array of shape {w.shape}",
        )
    if not np.isfinite(w).all() or (w < 0).any():
        raise param_error(
            "intent_weight", func, "finite weights >= 0", "NaN, inf or <0"
        )
    codes, ids = inputs.codes, inputs.group_ids
    _, first = np.unique(codes, return_index=True)
    per_group = w[first]
    differ = (w != per_group[codes]).any(axis=1)
    if differ.any():
        query = ids[[codes[np.argmax(differ)]]].tolist()[0]
        raise param_error(
            "intent_weight",
            func,
            "the same weights on every row of a query",
            f"rows that differ in query {query!r}",
        )
    m = rel.shape[1]
    rows, intents = np.nonzero(rel)
    cells = np.bincount(codes[rows] * m + intents, minlength=ids.size * m) > 0
    cells = cells.reshape(ids.size, m)
    empty = cells.any(axis=1) & ((per_group * cells).sum(axis=1) <= 0)
    if empty.any():
        raise param_error(
            "intent_weight",
            func,
            "a weight > 0 on some intent with a relevant row, in every query",
            f"0 on every such intent of query {ids[[np.argmax(empty)]].tolist()[0]!r}",
        )
    return per_group
