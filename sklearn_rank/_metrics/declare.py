"""The public ``*_score`` functions, declared from the metric table.

Every registry metric's public function does one thing: validate its keywords,
call :func:`~sklearn_rank._metrics.evaluate.score_metric` and return the float.
:func:`metric_function` builds that function from the metric's ``MetricSpec``:

- its signature (``__signature__``, with the annotations as strings): the inputs,
  ``k`` when the metric has a cutoff, the spec's ``OPTIONS`` keywords in table
  order, the row masks, ``in_pool`` for a metric that reads the pool, and
  ``convention``; arguments are bound to it, so a misspelt keyword is a
  ``TypeError`` naming the function, as for a written-out ``def``;
- its numpydoc docstring: the metric's own text (summary, definition, notes,
  examples) given by the caller, and the Parameters, Returns and See Also
  sections written from the tables, so every function documents a keyword in
  the same words;
- its ``__module__``, ``__name__`` and ``__qualname__``: the spec's ``module``
  and ``function``, as a ``def`` there would have.

Static types: the declared names are ``Callable[..., float]`` to a type checker
(the precise signature lives in ``__signature__``, which IDEs, ``help`` and the
docs read). Users import them from ``sklearn_rank``, whose lazy ``__getattr__``
gives a type checker ``Any`` for every name, so that is what they got before.

A function that does more than forward (``evaluate``, the intent-aware metrics)
is written out in its own module.
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable, Mapping  # noqa: F401 (annotations)
from dataclasses import dataclass
from typing import Any

# Callable, Mapping and ArrayLike are the names the signature strings use:
# ``typing.get_type_hints`` reads them from this module's globals.
from numpy.typing import ArrayLike  # noqa: F401 (annotations)

from .._engine.conventions import OPTIONS, Option, given_options
from .._utils.params import FiniteMapping, Interval, IsBool, IsCallable
from .evaluate import score_metric
from .registry import METRICS, MetricSpec

_INPUTS = """y_true : array-like of shape (n_samples,)
    Relevance label of each row (binary or graded).
y_score : array-like of shape (n_samples,)
    Score of each row; higher scores rank first within a group.
groups : array-like of shape (n_samples,)
    Query, user or session id of each row: ints, strings, objects or a pandas
    Categorical, in any order (groups need not be contiguous)."""
_POOLED_INPUTS = """y_true : array-like of shape (n_samples,)
    Labels; relevant (positive) rows follow ``relevance_threshold``.
y_score : array-like of shape (n_samples,)
    Scores.
groups : array-like of shape (n_samples,), default=None
    Accepted (and validated) so that AUC and GAUC take the same arguments; the
    pooled AUC does not depend on it. Under ``ties="average"`` a tied
    positive/negative pair counts ½."""
_CUTOFF = """k : int, default=None
    Cutoff: only the top ``k`` positions of each group count. None means the
    whole list."""
_WEIGHTS = """sample_weight : array-like of shape (n_samples,), default=None
    Row weights. A group's weight is the mean of its rows' weights (see
    ``group_weight``) and the result is the weighted mean over groups.
retrieved : array-like of bool of shape (n_samples,), default=None
    False marks rows that are judged but not in the ranked list (a candidate
    list cut short): they count in the group's number of relevant rows and in
    its ideal DCG, never at a position."""
_POOLED_WEIGHTS = """sample_weight : array-like of shape (n_samples,), default=None
    Row weights; a pair weighs the product of its rows' weights.
retrieved : array-like of bool of shape (n_samples,), default=None
    Rows with False are left out."""
_JUDGED = """judged : array-like of bool of shape (n_samples,), default=None
    False marks rows that carry no judgement (unjudged documents of a run,
    label 0): non-relevant here unless ``judged_only=True`` removes them.
    None means every row is judged."""
_IN_POOL = """in_pool : array-like of bool of shape (n_samples,), default=None
    True marks rows in the judgment pool: the judged rows, and unjudged rows
    that were pooled but not judged (trec_eval's negative qrels grades). A
    judged row must be in the pool. None means every unjudged row is outside
    the pool."""
_CONVENTION = """convention : str, default=None
    Name of a convention preset that sets every keyword left at None; None is
    the project default, "sklearn_rank"."""
_POOLED_CONVENTION = """convention : str, default=None
    Name of a convention preset that sets every keyword left at None."""

_RETURNS = "Weighted mean of the per-group values over the defined groups."
_POOLED_RETURNS = "The value over all rows at once."
_EVALUATE = "evaluate : Several metrics from one ordering of the rows."


def _constraint_kinds(option: Option) -> list[tuple[str, str]]:
    """``(numpydoc type, annotation)`` of each kind of value an option takes."""
    kinds = []
    for constraint in option.constraints:
        if isinstance(constraint, Interval):
            integral = constraint.kind is numbers.Integral
            kinds.append(("int", "int") if integral else ("float", "float"))
        elif isinstance(constraint, FiniteMapping):
            kinds.append(("dict", "Mapping"))
        elif isinstance(constraint, IsCallable):
            kinds.append(("callable", "Callable"))
        elif isinstance(constraint, IsBool):
            kinds.append(("bool", "bool"))
    return kinds


def option_type(option: Option) -> str:
    """The numpydoc type of a convention keyword, from its constraints."""
    strs = list(option.choices)
    others = [doc for doc, _ in _constraint_kinds(option)]
    if strs and not others:
        parts = ["{" + ", ".join(f'"{o}"' for o in strs) + "}"]
    else:
        parts = [f'"{o}"' for o in strs] + others
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]
    return f"{text}, default=None"


def option_annotation(option: Option) -> str:
    """The type annotation of a convention keyword, from its constraints."""
    parts = ["str"] if option.choices else []
    parts += [hint for _, hint in _constraint_kinds(option) if hint not in parts]
    return " | ".join([*parts, "None"])


def option_doc(option: Option) -> str:
    """The numpydoc entry of a convention keyword, as the table words it."""
    lines, line = [], ""
    for word in option.doc.split():
        if line and len(line) + 1 + len(word) > 76:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return f"{option.name} : {option_type(option)}\n    " + "\n    ".join(lines)


def _keyword(name: str, annotation: str, default: Any = None) -> inspect.Parameter:
    kind = inspect.Parameter.KEYWORD_ONLY
    return inspect.Parameter(name, kind, default=default, annotation=annotation)


def metric_signature(spec: MetricSpec) -> inspect.Signature:
    """The signature the table implies (``tests/test_registry.py`` pins it)."""
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [
        inspect.Parameter("y_true", positional, annotation="ArrayLike"),
        inspect.Parameter("y_score", positional, annotation="ArrayLike"),
        _keyword("groups", "ArrayLike | None", None)
        if spec.pooled
        else _keyword("groups", "ArrayLike", inspect.Parameter.empty),
    ]
    if spec.takes_k:
        params.append(_keyword("k", "int | None"))
    params += [
        _keyword(name, option_annotation(OPTIONS[name])) for name in spec.options
    ]
    masks = ["sample_weight", "retrieved", "judged", *["in_pool"] * spec.reads_pool]
    params += [_keyword(name, "ArrayLike | None") for name in masks]
    params.append(_keyword("convention", "str | None"))
    return inspect.Signature(params, return_annotation="float")


def parameters_doc(spec: MetricSpec) -> str:
    """The Parameters section's entries, in signature order."""
    pooled = spec.pooled
    parts = [_POOLED_INPUTS if pooled else _INPUTS]
    if spec.takes_k:
        parts.append(_CUTOFF)
    parts.extend(option_doc(OPTIONS[name]) for name in spec.options)
    parts += [_POOLED_WEIGHTS if pooled else _WEIGHTS, _JUDGED]
    if spec.reads_pool:
        parts.append(_IN_POOL)
    parts.append(_POOLED_CONVENTION if pooled else _CONVENTION)
    return "\n".join(parts)


def _section(title: str, body: str) -> str:
    return f"{title}\n{'-' * len(title)}\n{body}"


@dataclass(frozen=True)
class MetricText:
    """A metric's own words in its docstring (see :func:`metric_function`)."""

    about: str
    examples: str
    notes: str = ""
    returns: str = ""
    see_also: tuple[str, ...] = ()


def metric_docstring(spec: MetricSpec, text: MetricText) -> str:
    """The numpydoc docstring: the metric's own text around the table's sections.

    ``text.see_also`` names other metrics of the table; each is listed with its
    registry summary, after :func:`evaluate`.
    """
    returns = text.returns or (_POOLED_RETURNS if spec.pooled else _RETURNS)
    related = [_EVALUATE]
    for name in text.see_also:
        other = METRICS[name]
        related.append(
            f"{other.function} : {other.summary[0].upper()}{other.summary[1:]}."
        )
    sections = [
        inspect.cleandoc(text.about),
        _section("Parameters", parameters_doc(spec)),
        _section("Returns", f"score : float\n    {returns}"),
        _section("See Also", "\n".join(related)),
    ]
    if text.notes:
        sections.append(_section("Notes", inspect.cleandoc(text.notes)))
    sections.append(_section("Examples", inspect.cleandoc(text.examples)))
    return "\n\n".join(sections) + "\n"


def metric_function(
    metric: str,
    about: str,
    *,
    examples: str,
    notes: str = "",
    returns: str = "",
    see_also: tuple[str, ...] = (),
) -> Callable[..., float]:
    """The public function of a registry metric, declared from its ``MetricSpec``.

    Parameters
    ----------
    metric : str
        Registry name of the metric.
    about : str
        The docstring's summary line and extended summary (the definition).
    examples : str
        The Examples section's body: runnable, doctested examples.
    notes : str, default=""
        The Notes section's body, if any.
    returns : str, default=""
        What the returned float is; by default the weighted mean over groups
        (the value over all rows for a pooled metric).
    see_also : tuple of str, default=()
        Registry names of related metrics.

    Returns
    -------
    function : callable
        ``function(y_true, y_score, *, groups, ...) -> float``.
    """
    spec = METRICS[metric]
    signature = metric_signature(spec)
    name = spec.function

    def score(*args: Any, **kwargs: Any) -> float:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{name}() {exc}") from None
        bound.apply_defaults()
        given = bound.arguments
        return score_metric(
            metric,
            given["y_true"],
            given["y_score"],
            groups=given["groups"],
            k=given.get("k"),
            options=given_options(given),
            sample_weight=given["sample_weight"],
            retrieved=given["retrieved"],
            judged=given["judged"],
            in_pool=given.get("in_pool"),
            convention=given["convention"],
        )

    score.__name__ = score.__qualname__ = name
    score.__module__ = f"sklearn_rank.{spec.module}"
    text = MetricText(about, examples, notes, returns, see_also)
    score.__doc__ = metric_docstring(spec, text)
    score.__signature__ = signature  # type: ignore[attr-defined]
    score.__annotations__ = {
        **{p.name: p.annotation for p in signature.parameters.values()},
        "return": signature.return_annotation,
    }
    return score
