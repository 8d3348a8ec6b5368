"""Measure names as ir_measures writes them (``nDCG@10``, ``P(rel=2)@5``, ``AP``).

Each name maps to one registry metric, a cutoff, and the options of the provider
that ir_measures picks by default for it: pytrec_eval (trec_eval's semantics,
the ``trec_eval`` preset of ``_engine/conventions.PRESETS``) for most, the
``judged`` provider for ``Judged@k`` and gdeval for ``ERR@k`` and
``nDCG(dcg='exp-log2')``. The options a name sets are per metric (kernel
options and the undefined rule); the tie order is the call's: pass rows in
trec_eval's order with ``ties="stable"`` (``evaluate_run`` does).

ir_measures' measure objects are accepted as their ``str`` (the same syntax).
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from typing import Any


def _trec(*keys: str) -> tuple[tuple[str, Any], ...]:
    """trec_eval's values of the metrics' own options, as the pytrec_eval
    provider reads them (the tie rule and the integer grades are the call's)."""
    from .._engine.conventions import PRESETS

    return tuple((key, PRESETS["trec_eval"][key]) for key in keys)


@dataclass(frozen=True)
class IrMeasure:
    """One ir_measures measure: the library metric, whether it takes a cutoff
    (``"optional"``, ``"none"``), the ir_measures parameters it accepts, and the
    options its provider fixes."""

    metric: str
    cutoff: str
    params: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]
    provider: str = "pytrec_eval"


_BINARY = ("rel", "judged_only")

# ir_measures name -> its mapping. ``rel`` sets relevance_threshold (default 1,
# trec_eval's -l); ``judged_only`` trec_eval's -J.
IR_MEASURES: dict[str, IrMeasure] = {
    "nDCG": IrMeasure(
        "ndcg",
        "optional",
        ("dcg", "judged_only"),
        _trec("gain", "gain_rows", "ideal_order", "undefined"),
    ),
    "P": IrMeasure("precision", "optional", _BINARY, _trec("undefined")),
    "R": IrMeasure("recall", "optional", ("judged_only",), _trec("undefined")),
    "AP": IrMeasure("map", "optional", _BINARY, _trec("undefined")),
    "RR": IrMeasure("mrr", "none", _BINARY, _trec("undefined")),
    "Rprec": IrMeasure("r_precision", "none", _BINARY, _trec("undefined")),
    "Bpref": IrMeasure("bpref", "none", ("rel",), _trec("undefined")),
    "infAP": IrMeasure("infap", "none", ("rel",), _trec("undefined")),
    "Success": IrMeasure("hit_rate", "optional", _BINARY, _trec("undefined")),
    # m_set_P.c / m_set_recall.c: the whole retrieved list (no cutoff).
    "SetP": IrMeasure("precision", "none", _BINARY, _trec("undefined")),
    "SetR": IrMeasure("recall", "none", ("rel",), _trec("undefined")),
    # The judged provider: J_k / min(k, n); a judged query the run does not
    # return scores 0, as every ir_measures provider scores it.
    "Judged": IrMeasure("judged", "optional", (), (("undefined", 0.0),), "judged"),
    # gdeval: exponential gains over the top grade 4 (its $MAX_JUDGMENT).
    "ERR": IrMeasure(
        "err", "optional", (), (("max_grade", 4.0), ("undefined", 0.0)), "gdeval"
    ),
}
# The intent-aware measures (a 2-D y_true), through the pyndeval provider:
# ndeval's alpha and beta (0.5 unless the name sets them; ERR_IA, nERR_IA and
# P_IA take none), and a query without a relevant pair scores 0 in the mean.
_NDEVAL = (("alpha", 0.5), ("beta", 0.5), ("undefined", 0.0))
_IA = ("rel", "judged_only")


def _ndeval(metric: str, cutoff: str, params: tuple[str, ...]) -> IrMeasure:
    return IrMeasure(metric, cutoff, params, _NDEVAL, "pyndeval")


IR_MEASURES |= {
    "alpha_nDCG": _ndeval("alpha_ndcg", "optional", (*_IA, "alpha")),
    # ndeval's alpha-DCG@k column: over the alpha-DCG of a list relevant to
    # every intent at every rank (ndeval's "ideal ideal"), not the raw sum.
    "alpha_DCG": _ndeval("alpha_dcg", "optional", (*_IA, "alpha")),
    "ERR_IA": _ndeval("err_ia", "optional", _IA),
    "nERR_IA": _ndeval("nerr_ia", "optional", _IA),
    "NRBP": _ndeval("nrbp", "none", ("rel", "alpha", "beta")),
    "nNRBP": _ndeval("nnrbp", "none", ("rel", "alpha", "beta")),
    "AP_IA": _ndeval("map_ia", "none", _IA),
    "MAP_IA": _ndeval("map_ia", "none", _IA),  # ir_measures' alias of AP_IA
    "P_IA": _ndeval("precision_ia", "optional", _IA),
    "StRecall": _ndeval("subtopic_recall", "optional", ("rel",)),
}
# ir_measures' aliases of alpha_nDCG and alpha_DCG: the Greek spellings.
IR_MEASURES |= {"\u03b1_nDCG": IR_MEASURES["alpha_nDCG"]}
IR_MEASURES |= {"\u03b1_DCG": IR_MEASURES["alpha_DCG"]}
# Measures that are counts summed over queries, not per-query means.
_COUNTS = {"NumRel": "num_rel", "NumRet": "num_ret", "NumQ": "num_q"}

_NAME = re.compile(r"[A-Za-z_\u03b1][A-Za-z_0-9]*")  # and the Greek alpha


class IrMeasureError(ValueError):
    """An ir_measures measure name this library cannot read."""


def looks_like_ir_measure(name: str) -> bool:
    """Whether ``name`` starts as an ir_measures name does (a known measure)."""
    match = _NAME.match(name)
    return bool(match) and (match.group() in IR_MEASURES or match.group() in _COUNTS)


def ir_measure_metric(name: Any) -> str | None:
    """The registry metric an ir_measures name (or measure) stands for, if
    ``name`` is one (``"alpha_nDCG@20"`` -> ``"alpha_ndcg"``)."""
    text = str(name) if hasattr(name, "NAME") and hasattr(name, "params") else name
    if not isinstance(text, str) or not looks_like_ir_measure(text):
        return None
    spec = IR_MEASURES.get(_NAME.match(text).group())
    return None if spec is None else spec.metric


def _point(text: str, at: int, message: str) -> IrMeasureError:
    """An error with the name and a caret under the bad character."""
    return IrMeasureError(f"{message}\n  {text}\n  {' ' * at}^")


def nearest(name: str, names: list[str]) -> list[str]:
    """The closest names (case first, then difflib)."""
    lower = {n.lower(): n for n in names}
    close = [lower[name.lower()]] if name.lower() in lower else []
    close += difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    return list(dict.fromkeys(close))[:3]


def _value(text: str, start: int, raw: str) -> Any:
    try:
        return ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError):
        raise _point(
            text,
            start,
            f"In {text!r} the parameter value {raw.strip()!r} is not a number, "
            'a quoted string or True/False, as in "P(rel=2)@5".',
        ) from None


def parse_ir_measure(name: Any) -> tuple[str, str, int | None, dict[str, Any]]:
    """``"P(rel=2)@5"`` -> ``(label, "precision", 5, {relevance_threshold: 2.0,
    ...})``: the label as written, the registry metric, the cutoff and the
    options the name sets.

    Parameters
    ----------
    name : str or ir_measures measure
        An ir_measures measure or its text.

    Returns
    -------
    label, metric, k, options : str, str, int or None, dict

    Examples
    --------
    >>> from sklearn_rank._metrics.ir_measures_names import parse_ir_measure
    >>> label, metric, k, options = parse_ir_measure("P(rel=2)@5")
    >>> metric, k, options["relevance_threshold"]
    ('precision', 5, 2.0)
    """
    text = name if isinstance(name, str) else str(name)
    match = _NAME.match(text)
    base = match.group() if match else ""
    if base in _COUNTS:
        raise _point(
            text,
            0,
            f"{text!r} is a count summed over queries (trec_eval's "
            f"{_COUNTS[base]}), not a mean of per-query values: ask evaluate_run "
            f"for it, or the command line (-m {_COUNTS[base]}).",
        )
    spec = IR_MEASURES.get(base)
    if spec is None:
        close = nearest(base or text, [*IR_MEASURES, *_COUNTS])
        hint = " Did you mean " + " or ".join(map(repr, close)) + "?" if close else ""
        raise _point(text, 0, f"Unknown ir_measures measure {text!r}.{hint}")
    at = len(base)
    params: dict[str, Any] = {}
    if text[at : at + 1] == "(":
        close_at = text.find(")", at)
        if close_at < 0:
            raise _point(text, len(text), f"In {text!r} a ')' is missing.")
        pos = at + 1
        for item in text[at + 1 : close_at].split(","):
            key, eq, raw = item.partition("=")
            start = pos + len(key) + 1
            if not eq or not key.strip():
                raise _point(text, pos, f"In {text!r} a parameter must be name=value.")
            key = key.strip()
            if key not in spec.params:
                allowed = ", ".join(spec.params) or "none"
                raise _point(
                    text,
                    pos + item.index(key),
                    f"In {text!r}, {base} takes no parameter {key!r} here "
                    f"(parameters: {allowed}).",
                )
            params[key] = _value(text, start, raw)
            pos += len(item) + 1
        at = close_at + 1
    k = None
    if text[at : at + 1] == "@":
        cut = text[at + 1 :]
        if spec.cutoff == "none":
            raise _point(text, at, f"{base} takes no cutoff; use {base!r} without '@'.")
        if not cut.isdigit() or int(cut) < 1:
            raise _point(
                text,
                at + 1,
                f"The cutoff in {text!r} must be a positive integer, as in "
                f"'{base}@10'.",
            )
        k = int(cut)
        at = len(text)
    if at != len(text):
        raise _point(
            text, at, f"In {text!r} the text from here is not '(...)' or '@k'."
        )
    return text, spec.metric, k, _options(text, spec, params)


def _intent_options(text: str, params: dict[str, Any]) -> dict[str, Any]:
    """The options an intent-aware name sets: alpha and beta, checked as the
    keywords are; ``rel`` and ``judged_only`` only at ir_measures' defaults (a
    grade > 0 is relevant to an intent, every row is ranked)."""
    from .._engine.conventions import OPTIONS

    if params.get("rel", 1) != 1 or params.get("judged_only", False):
        raise IrMeasureError(
            f"In {text!r}: the intent-aware metrics read a grade > 0 as relevant "
            "and rank every row; rel other than 1 and judged_only=True are not "
            "supported."
        )
    out: dict[str, Any] = {}
    for key in ("alpha", "beta"):
        if key in params:
            try:
                out[key] = OPTIONS[key].check(params[key], "evaluate")
            except ValueError as exc:
                raise IrMeasureError(f"In {text!r}: {exc}") from None
    return out


def _options(text: str, spec: IrMeasure, params: dict[str, Any]) -> dict[str, Any]:
    options = dict(spec.options)
    if spec.provider == "pyndeval":
        return options | _intent_options(text, params)
    if spec.provider == "pytrec_eval" and spec.metric != "ndcg":
        options["relevance_threshold"] = 1.0  # trec_eval's default -l 1
    if "rel" in params:
        rel = params["rel"]
        if isinstance(rel, bool) or not isinstance(rel, (int, float)) or rel <= 0:
            raise IrMeasureError(
                f"In {text!r} rel must be a positive number (the lowest relevant "
                "grade), as in 'P(rel=2)@5'."
            )
        options["relevance_threshold"] = float(rel)
    if params.get("judged_only"):
        options["judged_only"] = True
    dcg = params.get("dcg", "log2")
    if dcg == "exp-log2":  # gdeval: 2**grade - 1 over log2(rank + 1)
        options["gain"] = "exponential"
    elif dcg != "log2":
        raise IrMeasureError(
            f"In {text!r} dcg must be 'log2' or 'exp-log2'; got {dcg!r}."
        )
    return options


def tie_order(name: Any) -> str:
    """How the provider of ``name`` orders tied scores: "docno_descending"
    (trec_eval's, also the library's names under the ``trec_eval`` preset) or
    "docno_ascending" (the judged provider's)."""
    text = name if isinstance(name, str) else str(name)
    if looks_like_ir_measure(text):
        match = _NAME.match(text)
        if IR_MEASURES[match.group()].provider == "judged":
            return "docno_ascending"
    return "docno_descending"


__all__ = [
    "IR_MEASURES",
    "IrMeasureError",
    "ir_measure_metric",
    "looks_like_ir_measure",
    "parse_ir_measure",
    "tie_order",
]
