"""Every convention keyword, declared once, and the presets that set them.

``OPTIONS`` is the one table of convention keywords: each entry holds the
keyword's default (the project convention), its constraints (used for validation
and for the error message), how a valid value is normalised, and the numpydoc text
of the parameter. Public signatures, docstrings, presets and the test strategies
are pinned to it by tests.

A keyword left at ``None`` takes its value from the preset named by
``convention``; a keyword given explicitly always wins. A preset is a set of
overrides of the default convention.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, make_dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from .._utils.params import (
    FiniteMapping,
    Interval,
    IsBool,
    IsCallable,
    IsNone,
    StrOptions,
    check_param,
)


@dataclass(frozen=True)
class Option:
    """One convention keyword."""

    name: str
    default: Any
    constraints: Sequence[Callable[[Any], bool]]
    doc: str  # numpydoc body: the type line is built from the constraints
    annotation: str  # type hint of the public keyword (always "| None")
    normalise: Callable[[Any], Any] = lambda value: value

    @property
    def choices(self) -> tuple[str, ...]:
        """The str values the keyword accepts."""
        return tuple(
            o for c in self.constraints if isinstance(c, StrOptions) for o in c.options
        )

    def check(self, value: Any, func: str) -> Any:
        return self.normalise(check_param(value, self.name, func, self.constraints))


def _threshold(value: str | float) -> float | None:
    return None if value == "positive" else float(value)


class GainMap(tuple):
    """A ``{label: gain}`` mapping as sorted, hashable ``(label, gain)`` pairs;
    ``given`` keeps the mapping's own order (the ``"trec_eval"`` ideal order
    reads it)."""

    given: tuple[tuple[float, float], ...] = ()

    def __repr__(self) -> str:
        return repr(dict(self))

    def __eq__(self, other: object) -> bool:
        return tuple.__eq__(self, other) and self.given == getattr(other, "given", ())

    def __hash__(self) -> int:
        return hash((tuple(self), self.given))


class LevelGains:
    """trec_eval's per-level gains (``ndcg.1=3,2=9``, ``gain_init.c``): the
    given ``(level, gain)`` pairs, in their order; every other label gains its
    own value. Levels -1 and -2 give a gain to unjudged rows (see ``gain``).

    Parameters
    ----------
    pairs : sequence of (float, float)
        ``(level, gain)``; the first pair of a level wins.

    Examples
    --------
    >>> from sklearn_rank._engine.conventions import LevelGains
    >>> LevelGains([(1, 3.0), (4, 4.5)])([0.0, 1.0, 2.0, 4.0]).tolist()
    [0.0, 3.0, 2.0, 4.5]
    """

    def __init__(self, pairs) -> None:
        self.pairs = tuple((float(a), float(b)) for a, b in pairs)

    def __call__(self, y):
        import numpy as np

        y = np.asarray(y, dtype=np.float64)
        out = y.copy()
        for level, value in reversed(self.pairs):  # the first pair wins
            out[y == level] = value
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LevelGains) and self.pairs == other.pairs

    def __hash__(self) -> int:
        return hash(self.pairs)

    def __repr__(self) -> str:
        return f"LevelGains({list(self.pairs)!r})"


def _gain(value: Any) -> Any:
    if not isinstance(value, Mapping):
        return value
    out = GainMap(sorted((float(k), float(v)) for k, v in value.items()))
    out.given = tuple((float(k), float(v)) for k, v in value.items())
    return out


def _discount(value: Any) -> Any:
    return float(value) if isinstance(value, numbers.Real) else value


def _undefined(value: str | float) -> str | float:
    return value if isinstance(value, str) else float(value)


_OPTIONS = (
    Option(
        "ties",
        "average",
        (StrOptions("average", "stable", "pessimistic", "optimistic", "threshold"),),
        """How rows with equal scores in a group are ordered. "average" (the
        default convention) is the exact expected value over all orders of the
        tied rows; "stable" keeps input order; "pessimistic" puts the least
        relevant first (relevant rows last); "optimistic" the most relevant
        first; "threshold" takes each block of tied rows as one score threshold,
        as scikit-learn's average_precision_score does: AP, RR and interpolated
        precision read a relevant row's precision at the end of its block, and
        every other metric equals "average".""",
        "str | None",
    ),
    Option(
        "gain",
        "exponential",
        (
            StrOptions("exponential", "linear"),
            FiniteMapping("a mapping {label: gain} of finite numbers"),
            IsCallable("a callable mapping labels (ndarray) to gains"),
        ),
        """Gain of a label ``y``: ``2**y - 1`` ("exponential", the default
        convention, as LightGBM and XGBoost; labels >= 0), ``y`` ("linear", as
        trec_eval and scikit-learn; labels >= 0), a mapping ``{label: gain}``
        (trec_eval's per-level gains; every label needs an entry), or a
        vectorised callable of the label array (TF-Ranking's ``gain_fn``). With
        a mapping or a callable the ideal order sorts by gain (see
        ``ideal_order``), and a group whose ideal DCG is <= 0 is undefined for
        NDCG. Under ``gain_rows="judged"`` an unjudged row gains 0, or the
        mapping's entry for -1 (outside the pool; ``in_pool`` False or not
        given) or -2 (in the pool with a negative grade), as trec_eval's
        ``ndcg.-1=G``, and DCG is defined where a row of nonzero gain is
        ranked too (trec_eval's dcg is a plain sum). G, ndcg_rel and Rndcg
        take a mapping or a callable the same way; with a named gain their
        gains stay the labels (trec_eval's default levels).""",
        "str | Mapping | Callable | None",
        _gain,
    ),
    Option(
        "discount",
        "log2",
        (
            StrOptions("log2", "jarvelin"),
            Interval(numbers.Real, 1, None, closed="neither"),
            IsCallable("a callable mapping 1-based positions (ndarray) to discounts"),
        ),
        """Discount of position p: ``1/log2(p + 1)`` ("log2", the default
        convention), ``1/log2(max(p, 2))`` ("jarvelin": ranks 1 and 2
        undiscounted, as LensKit and Järvelin and Kekäläinen), ``1/log_b(p + 1)``
        for a number ``b > 1`` (scikit-learn's ``log_base``), or a callable taking
        the float array of positions and returning their discounts (TF-Ranking's
        ``rank_discount_fn``). The ideal DCG uses the same discount.""",
        "str | float | Callable | None",
        _discount,
    ),
    Option(
        "gain_rows",
        "all",
        (StrOptions("all", "judged"),),
        """Which rows NDCG, DCG and RBP take gains from. "all" (the default
        convention): every row gains by its label, and a group is defined by the
        relevance threshold. "judged" (trec_eval's m_ndcg.c, gain_init.c): only
        rows with ``judged=True`` gain (an unjudged row, or one judged with a
        negative grade, gains 0 whatever the ``gain`` mapping says for its
        label) and only they enter the ideal ranking; a group is defined where
        its ideal DCG is > 0 (for RBP: where a judged row has a positive
        label), whatever the relevance threshold (trec_eval's NDCG and RBP read
        the grades, never ``-l``). Without ``judged`` every row is judged.""",
        "str | None",
    ),
    Option(
        "ideal_order",
        "gain",
        (StrOptions("gain", "trec_eval"),),
        """The order of the ideal ranking of NDCG, G, ndcg_rel and Rndcg.
        "gain" (the default convention): the judged rows of gain > 0 sorted by
        gain, the mathematically ideal ranking. "trec_eval"
        (gain_init.c): each group's gain levels (the levels the mapping names,
        in its order, then the group's levels 0 .. top) sorted by glibc's merge
        sort with trec_eval's comparator, which truncates gain differences to
        integers (gains less than 1 apart compare equal and keep their list
        order), walked from the top and stopped at the first non-empty level of
        gain <= 0. The two differ only for gains whose differences are not
        integers (``{1: 0.5}``: level 1 then ranks below level 0); labels that
        are not non-negative integers always take the "gain" order.""",
        "str | None",
    ),
    Option(
        "group_weight",
        "mean",
        (StrOptions("mean", "relevant_mean"),),
        """How the sample weights of a group's rows become the group's weight in
        the mean over groups: their mean over all the group's rows ("mean", the
        default convention), or over its relevant rows only ("relevant_mean", as
        TF-Ranking's per-list weights). Under "relevant_mean" a group without a
        relevant row weighs the mean weight of the groups that have one and a
        nonzero total weight (1.0 if there is none), and a group whose rows all
        weigh 0 weighs 0.""",
        "str | None",
    ),
    Option(
        "relevance_threshold",
        "positive",
        (StrOptions("positive"), Interval(numbers.Real, 0, None, closed="neither")),
        """Which rows are relevant: ``y_true > 0`` ("positive", the default
        convention) or ``y_true >= t`` for a float ``t > 0``. A group without
        any relevant row is undefined for every metric.""",
        "float | str | None",
        _threshold,
    ),
    Option(
        "undefined",
        "skip",
        (StrOptions("skip", "raise"), Interval(numbers.Real, None, None)),
        """What to do with undefined groups (no relevant row; for AUC, one
        class): "skip" (default convention) leaves them out of the mean, a
        float scores them with that value (0.0 as trec_eval, 1.0 as LightGBM),
        "raise" raises. If every group is undefined under "skip", the result is
        NaN with an ``UndefinedMetricWarning``.""",
        "str | float | None",
        _undefined,
    ),
    Option(
        "precision_denominator",
        "k",
        (StrOptions("k", "min_k_n", "n_judged"),),
        """Divide by ``k`` ("k", the default convention, as trec_eval: a short
        list counts as padded with non-relevant rows), by ``min(k, n)`` with
        ``n`` the group's list length (as XGBoost), or by the judged rows among
        the top k ("n_judged", as Elasticsearch's ``ignore_unlabeled=true``:
        unjudged rows in the top k count neither as relevant nor as
        non-relevant; 0 when none is judged). With ``k=None`` "k" and
        "min_k_n" divide by ``n``.""",
        "str | None",
    ),
    Option(
        "ap_denominator",
        "n_relevant",
        (StrOptions("n_relevant", "min_k_n_relevant", "n_relevant_retrieved"),),
        """Divide by R, the group's number of relevant rows ("n_relevant", the
        default convention, as trec_eval), by ``min(k, R)`` (as LightGBM and
        XGBoost), or by the relevant rows ranked within the cutoff
        ("n_relevant_retrieved", as pyltr and torchmetrics with ``top_k``; AP is
        0 when there is none). With ties="average" a tie block that straddles
        the cutoff and mixes relevance makes that count random: AP is then the
        exact expectation over the block's orders.""",
        "str | None",
    ),
    Option(
        "recall_denominator",
        "n_relevant",
        (StrOptions("n_relevant", "min_k_n_relevant"),),
        """Divide recall at k by R, the group's number of relevant rows
        ("n_relevant", the default convention, as trec_eval), or by ``min(k, R)``
        ("min_k_n_relevant", as LensKit: a list of k rows can reach 1). With
        ``k=None`` both divide by R. F1 reads it for its recall part.""",
        "str | None",
    ),
    Option(
        "max_grade",
        1.0,
        (Interval(numbers.Real, 0, 1023, closed="right"),),
        """The top of the grade scale (1.0 in the default convention, for binary
        labels). It is a property of the labelling scheme, never of the data:
        taking the largest label seen would give the same row a different stop
        probability in each cross-validation fold. Labels above it raise.""",
        "float | None",
        float,
    ),
    Option(
        "weights",
        "rows",
        (StrOptions("rows", "uniform", "positives"),),
        """Weight of a group: its number of ranked rows ("rows", the default
        convention, as Zhou et al.), 1 ("uniform"), or its number of relevant
        rows ("positives", e.g. clicks). Multiplied by the mean sample
        weight.""",
        "str | None",
    ),
    Option(
        "persistence",
        0.8,
        (Interval(numbers.Real, 0, 1, closed="neither"),),
        """RBP's persistence p: the probability that the user goes on from one
        position to the next (0.8 in the default convention, as Moffat and Zobel
        and ir_measures; trec_eval's default is 0.9). The expected number of rows
        examined is 1 / (1 - p).""",
        "float | None",
        float,
    ),
    Option(
        "recall_level",
        None,
        (Interval(numbers.Real, 0, 1, closed="both"), IsNone()),
        """The recall r at which interpolated precision is read, as trec_eval's
        ``iprec_at_recall_r``: the largest precision at or after the position
        where round(r * R) relevant rows have been ranked. It has no default:
        interpolated precision without it raises.""",
        "float | None",
        lambda value: None if value is None else float(value),
    ),
    Option(
        "r_multiple",
        1.0,
        (Interval(numbers.Real, 0, None, closed="neither"),),
        """The multiple m of R at which R-precision at multiples of R is read,
        as trec_eval's ``Rprec_mult_m``: precision at the cutoff
        ``floor(m * R + 0.9)`` (1.0, the default convention: R-precision).""",
        "float | None",
        float,
    ),
    Option(
        "integer_grades",
        False,
        (IsBool(),),
        """Truncate every label toward zero to an integer before every metric
        (True, as trec_eval, which reads a qrels grade ``1.5`` as 1 with C's
        ``atol``) or use labels as given (False, the default convention).""",
        "bool | None",
        bool,
    ),
    Option(
        "judged_only",
        False,
        (IsBool(),),
        """Remove the rows with ``judged=False`` before every metric (True) or
        keep them as non-relevant rows (False, the default convention). True is
        trec_eval's ``-J``: the unjudged rows leave the ranking, and the judged
        rows below them move up; a group keeps its id even if no row is left
        (it is then undefined). Without ``judged`` every row is judged and this
        changes nothing.""",
        "bool | None",
        bool,
    ),
    Option(
        "alpha",
        0.5,
        (Interval(numbers.Real, 0, 1, closed="left"),),
        """The intent-aware metrics' redundancy intolerance alpha in [0, 1) (0.5
        in the default convention, as ndeval): a row relevant to an intent
        gains ``(1 - alpha) ** c`` for it, ``c`` the rows relevant to that
        intent ranked above (alpha-nDCG, nERR-IA, NRBP, nNRBP); ERR-IA's stop
        probability at a row relevant to the intent (Clarke et al., 2008).""",
        "float | None",
        float,
    ),
    Option(
        "beta",
        0.5,
        (Interval(numbers.Real, 0, 1, closed="neither"),),
        """NRBP's and nNRBP's patience beta in (0, 1) (0.5 in the default
        convention, as ndeval's ``-beta``): the weight of rank ``r`` is
        ``beta ** (r - 1)`` (Clarke et al., 2009).""",
        "float | None",
        float,
    ),
)

OPTIONS: dict[str, Option] = {option.name: option for option in _OPTIONS}

DEFAULT_CONVENTION = "sklearn_rank"

# Preset name -> the keywords it sets differently from the default convention (or
# restates where the source says so), each with the source it was read from.
PRESETS: dict[str, dict[str, Any]] = {
    DEFAULT_CONVENTION: {},
    # trec_eval (usnistgov/trec_eval). Use with rows from sklearn_rank.io, which
    # come in trec_eval's order (form_res_rels.c: score descending, then docno
    # descending), so that "stable" reproduces its tie rule.
    "trec_eval": {
        "ties": "stable",
        "gain": "linear",  # m_ndcg.c: gain = the relevance level by default
        "relevance_threshold": 1.0,  # rel >= relevance_level, default 1 (-l)
        "undefined": 0.0,  # no relevant doc: every measure 0, topic still averaged
        "precision_denominator": "k",  # m_P.c: missing ranks count as nonrelevant
        "ap_denominator": "n_relevant",  # m_map.c, m_map_cut.c: sum / num_rel
        "persistence": 0.9,  # m_rbp.c: "By default the persistence parameter p = 0.9"
        # m_ndcg.c / gain_init.c get_gain: unjudged (and negative) documents gain
        # 0 and stay out of the ideal list; ideal_dcg > 0 decides, not -l.
        "gain_rows": "judged",
        # gain_init.c setup_gains: qsort with comp_rel_gain, which truncates.
        "ideal_order": "trec_eval",
        "integer_grades": True,  # get_qrels.c: rel = atol(text)
    },
    # scikit-learn sklearn/metrics/_ranking.py (ndcg_score, dcg_score,
    # average_precision_score, label_ranking_average_precision_score).
    "sklearn": {
        # One threshold per distinct score: precision_recall_curve (through
        # _sort_inputs_and_compute_classification_thresholds) and LRAP's
        # rankdata(..., "max"). For NDCG/DCG it equals ndcg_score's
        # ignore_ties=False (_tie_averaged_dcg), the tie-averaged value.
        "ties": "threshold",
        "gain": "linear",  # _dcg_sample_scores: y_true is the gain
        "undefined": 0.0,  # _ndcg_sample_scores: all_irrelevant -> 0, averaged
        "ap_denominator": "n_relevant",  # average_precision_score: all positives
    },
    # LightGBM src/metric/rank_metric.hpp, map_metric.hpp, dcg_calculator.cpp.
    "lightgbm": {
        "ties": "stable",  # CalDCG / CalMapAtK: std::stable_sort by score
        "gain": "exponential",  # DefaultLabelGain: label_gain = 2^i - 1
        "relevance_threshold": "positive",  # map: label > 0.5 on integer labels
        "undefined": 1.0,  # "if all doc in this query are all negative, NDCG=1";
        # CalMapAtK: npos == 0 -> 1
        "ap_denominator": "min_k_n_relevant",  # sum_ap / min(npos, k)
    },
    # XGBoost src/metric/rank_metric.cc (2.0 and later), common/algorithm.h.
    "xgboost": {
        "ties": "stable",  # ArgSort -> StableSort with std::greater
        "gain": "exponential",  # ndcg_exp_gain defaults to true
        "relevance_threshold": "positive",  # pre/map take binary labels
        "undefined": 1.0,  # ndcg/map without "-" suffix: 1 for empty groups
        "precision_denominator": "min_k_n",  # PreScore: hits / min(k, group size)
        "ap_denominator": "min_k_n_relevant",  # MAPScore: / min(n_hits, k)
        "weights": "uniform",  # grouped AUC: one (group-weighted) value per group
    },
    # TF-Ranking tensorflow_ranking/python/metrics_impl.py (the *Metric classes)
    # and utils.py (sort_by_scores).
    "tf_ranking": {
        "ties": "average",  # sort_by_scores(shuffle_ties=True): ties in random order
        "gain": "exponential",  # _DEFAULT_GAIN_FN: 2**label - 1
        "discount": "log2",  # _DEFAULT_RANK_DISCOUNT_FN: log(2) / log1p(rank)
        "relevance_threshold": 1.0,  # "Relevance = 1.0 when labels >= 1.0"
        "undefined": 0.0,  # divide_no_nan: a list without relevant items scores 0
        "precision_denominator": "min_k_n",  # _per_list_precision: min(topn, valid)
        "ap_denominator": "n_relevant",  # MAP: "total relevance regardless of topn"
        "recall_denominator": "n_relevant",  # _per_list_recall: / sum(labels >= 1)
        # _per_example_weights_to_per_list_weights: sum(w * rel) / sum(rel)
        "group_weight": "relevant_mean",
    },
    # ndeval (the TREC Web track's diversity evaluation, ndeval.c): the
    # intent-aware metrics with its defaults; the ideal of alpha-nDCG, nERR-IA
    # and nNRBP is always its greedy ideal (idealResult).
    "ndeval": {
        "alpha": 0.5,  # -alpha, default 0.5
        "beta": 0.5,  # -beta, default 0.5
        "ties": "stable",  # rows in the run's order (score, then docno)
        "undefined": 0.0,  # a topic without a relevant pair scores 0 in amean
    },
}

# The resolved, validated value of every convention keyword for one call. Built
# from the table, so a new keyword needs no edit here.
if TYPE_CHECKING:  # built at run time: its fields are the table's keywords
    Options: TypeAlias = Any
else:
    Options = make_dataclass("Options", [(name, Any) for name in OPTIONS], frozen=True)
    Options.__module__ = __name__
    Options.__doc__ = "Resolved convention values shared by every metric of one call."


def preset_values(name: str) -> dict[str, Any]:
    """Every convention keyword's value under the preset ``name``."""
    return {key: PRESETS[name].get(key, opt.default) for key, opt in OPTIONS.items()}


def check_convention(convention: Any, func: str) -> str:
    """The preset name (``None`` is the default convention)."""
    if convention is None:
        return DEFAULT_CONVENTION
    return check_param(convention, "convention", func, (StrOptions(*PRESETS), IsNone()))


def given_options(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The convention keywords among a function's arguments, by ``OPTIONS``.

    Called as ``given_options(locals())`` first thing in a public function, it
    passes every keyword of its signature that ``OPTIONS`` names, and nothing
    else, so no function lists its keywords a second time by hand.
    """
    return {name: arguments[name] for name in OPTIONS if name in arguments}


def take_options(keywords: dict[str, Any], extra: Sequence[str] = ()) -> dict[str, Any]:
    """Move the convention keywords out of a front-end's ``**kwargs``.

    ``convention`` and the keywords of ``OPTIONS`` (and the names in ``extra``)
    are removed from ``keywords`` and returned; what is left belongs to the
    front-end (a display's matplotlib keywords). The values are checked later,
    by :func:`resolve_options`, as for every other front-end.
    """
    names = ("convention", *extra, *OPTIONS)
    return {name: keywords.pop(name) for name in names if name in keywords}


def resolve_options(
    func: str, convention: str | None, given: Mapping[str, Any]
) -> Options:
    """Validate the explicit keywords and fill the others from the preset."""
    preset = PRESETS[check_convention(convention, func)]
    unknown = set(given) - set(OPTIONS)
    if unknown:  # a programming error inside the package, not user input
        raise TypeError(f"unknown convention keyword(s) {sorted(unknown)}")
    values = {}
    for name, option in OPTIONS.items():
        value = given.get(name)
        if value is None:
            value = preset.get(name, option.default)
        values[name] = option.check(value, func)
    return Options(**values)
