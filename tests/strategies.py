"""Hypothesis strategies for grouped ranking inputs.

The shapes are chosen to reach the corners of the contract: ragged groups of
1 to 8 rows (single-row groups included), 1 to 6 groups, ids that are ints or
strings, rows shuffled so that groups are not contiguous, binary or graded
(0..4) labels, groups forced to all-zero or all-relevant labels, scores drawn
from a handful of values so that ties are frequent, an optional ``retrieved``
mask (some groups with no ranked row at all) and optional integer sample
weights.

Groups stay small because the reference enumerates tie orders.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

# A few score values: distinct floats, negatives included, so that ties are
# common and order-by-score is unambiguous.
SCORE_VALUES = (-1.5, 0.0, 0.25, 1.0, 2.0, 3.0)

cutoffs = st.sampled_from([1, 2, 3, 5, None])
"""Cutoffs below and above the group sizes (1..8) and no cutoff."""

tie_policies = st.sampled_from(
    ["average", "stable", "pessimistic", "optimistic", "threshold"]
)
gains = st.sampled_from(["exponential", "linear"])


def _cube_root_gain(labels):
    # Operators only: under array API dispatch the callable receives the labels
    # in the inputs' namespace, on their device (labels are >= 0).
    return labels ** (1.0 / 3.0) - 0.5  # negative for label 0: a non-trivial ideal


# Gains given as a {label: gain} map (labels 0..4 in the cases) or a callable;
# some are not monotone in the label, so the ideal order must sort by gain.
custom_gains = st.sampled_from(
    [
        {0.0: 0.0, 1.0: 1.0, 2.0: 5.0, 3.0: 7.0, 4.0: 15.0},
        {0.0: -1.0, 1.0: 4.0, 2.0: 1.0, 3.0: 0.0, 4.0: 2.0},
        # Gains less than 1 apart, not in label order: trec_eval's ideal order
        # (ideal_order="trec_eval") differs from the gain order.
        {2.0: 0.5, 0.0: 0.2, 4.0: 1.2, 1.0: 0.9, 3.0: 0.0},
        {1.0: 0.5, 0.0: 0.0, 2.0: 2.0, 3.0: 2.7, 4.0: 2.1},
        {0.0: 0.0, 1.0: 0.0, 2.0: 0.0, 3.0: 0.0, 4.0: 0.0},
        _cube_root_gain,
    ]
)


def reciprocal_rank_discount(position):
    """A custom discount, 1/p (TF-Ranking's rank_discount_fn form)."""
    return 1.0 / position


discounts = st.sampled_from(["log2", "jarvelin", 1.5, 10.0, reciprocal_rank_discount])
relevance_thresholds = st.sampled_from(["positive", 0.5, 1.0, 2.0, 3.5])
undefined_rules = st.sampled_from(["skip", "raise", 0.0, 0.25, 1.0])
precision_denominators = st.sampled_from(["k", "min_k_n", "n_judged"])
ap_denominators = st.sampled_from(
    ["n_relevant", "min_k_n_relevant", "n_relevant_retrieved"]
)
recall_denominators = st.sampled_from(["n_relevant", "min_k_n_relevant"])
gauc_weights = st.sampled_from(["rows", "uniform", "positives"])
group_weights = st.sampled_from(["mean", "relevant_mean"])
persistences = st.sampled_from([0.5, 0.8, 0.9, 0.95])
# Levels where round(r * R) hits .5 (0.1 * 5), 0 and 1, and trec_eval's 0.25.
recall_levels = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.7, 1.0])


@dataclass
class RankingCase:
    """One grouped input; ``max_label`` is the largest label (for ERR)."""

    y_true: np.ndarray
    y_score: np.ndarray
    groups: np.ndarray
    retrieved: np.ndarray | None
    sample_weight: np.ndarray | None
    graded: bool
    judged: np.ndarray | None = None
    in_pool: np.ndarray | None = None  # judged rows, and some unjudged ones

    @property
    def max_label(self) -> float:
        return float(np.max(self.y_true))

    def __repr__(self) -> str:  # compact, copy-pasteable failing inputs
        def show(a):
            return None if a is None else a.tolist()

        return (
            f"RankingCase(y_true={show(self.y_true)!r}, "
            f"y_score={show(self.y_score)!r}, groups={show(self.groups)!r}, "
            f"retrieved={show(self.retrieved)!r}, "
            f"sample_weight={show(self.sample_weight)!r}, "
            f"judged={show(self.judged)!r}, in_pool={show(self.in_pool)!r})"
        )


def _group_ids(n_groups):
    ints = st.lists(
        st.integers(-(10**6), 10**6), min_size=n_groups, max_size=n_groups, unique=True
    )
    strings = st.lists(
        st.text(alphabet="abcqxyz_0", min_size=1, max_size=4),
        min_size=n_groups,
        max_size=n_groups,
        unique=True,
    )
    return st.one_of(ints, strings)


@st.composite
def ranking_cases(
    draw,
    *,
    max_groups=6,
    max_rows=8,
    graded=None,
    allow_retrieved=True,
    allow_weights=True,
    allow_judged=True,
):
    """A :class:`RankingCase` with rows of the groups shuffled together."""
    n_groups = draw(st.integers(1, max_groups))
    ids = draw(_group_ids(n_groups))
    if graded is None:
        graded = draw(st.booleans())
    top = 4 if graded else 1
    n_values = draw(st.integers(1, 3))
    values = draw(
        st.lists(
            st.sampled_from(SCORE_VALUES),
            min_size=n_values,
            max_size=n_values,
            unique=True,
        )
    )

    use_retrieved = allow_retrieved and draw(st.booleans())
    use_judged = allow_judged and draw(st.booleans())
    # Some unjudged rows pooled but not judged (trec_eval's negative grades).
    use_pool = use_judged and draw(st.booleans())
    y_true, y_score, groups, retrieved, judged, in_pool = [], [], [], [], [], []
    for gid in ids:
        size = draw(st.integers(1, max_rows))
        kind = draw(st.sampled_from(["any", "any", "any", "all_zero", "all_pos"]))
        if kind == "all_zero":
            labels = [0] * size
        elif kind == "all_pos":
            labels = draw(st.lists(st.integers(1, top), min_size=size, max_size=size))
        else:
            labels = draw(st.lists(st.integers(0, top), min_size=size, max_size=size))
        scores = draw(st.lists(st.sampled_from(values), min_size=size, max_size=size))
        if not use_retrieved:
            mask = [True] * size
        elif draw(st.integers(0, 4)) == 0:
            mask = [False] * size  # judged, nothing ranked
        else:
            # Mostly retrieved; some rows judged but not ranked.
            mask = draw(
                st.lists(
                    st.sampled_from([True, True, True, False]),
                    min_size=size,
                    max_size=size,
                )
            )
        if not use_judged:
            flags = [True] * size
        elif draw(st.integers(0, 5)) == 0:
            flags = [False] * size  # no judged row at all (gone under judged_only)
        else:
            flags = draw(st.lists(st.booleans(), min_size=size, max_size=size))
        # An unjudged row carries no judgement: label 0.
        labels = [y if j else 0 for y, j in zip(labels, flags, strict=True)]
        y_true += labels
        y_score += scores
        groups += [gid] * size
        retrieved += mask
        judged += flags
        if use_pool:
            extra = draw(st.lists(st.booleans(), min_size=size, max_size=size))
            in_pool += [j or e for j, e in zip(flags, extra, strict=True)]

    n = len(y_true)
    perm = draw(st.permutations(range(n)))
    y_true = np.array([y_true[i] for i in perm])
    if draw(st.booleans()):
        y_true = y_true.astype(float)
    y_score = np.array([y_score[i] for i in perm], dtype=float)
    groups = np.array([groups[i] for i in perm])
    retrieved = (
        np.array([retrieved[i] for i in perm], dtype=bool) if use_retrieved else None
    )

    judged = np.array([judged[i] for i in perm], dtype=bool) if use_judged else None
    in_pool = np.array([in_pool[i] for i in perm], dtype=bool) if use_pool else None

    sample_weight = None
    if allow_weights and draw(st.booleans()):
        sample_weight = np.array(
            draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
        )
        if draw(st.booleans()):
            sample_weight = sample_weight.astype(float)
    return RankingCase(
        y_true, y_score, groups, retrieved, sample_weight, graded, judged, in_pool
    )


def _max_grades(case):
    # Labels above max_grade raise; keep max_grade >= every label.
    extra = st.sampled_from([0.0, 0.0, 1.0, 0.5])
    return extra.map(lambda e: max(1.0, case.max_label) + e)


# One strategy per convention keyword of sklearn_rank._engine.conventions.OPTIONS (a
# guard test fails when a keyword has none), as a function of the drawn case.
OPTION_STRATEGIES = {
    "ties": lambda case: tie_policies,
    "gain": lambda case: st.one_of(gains, custom_gains),
    "discount": lambda case: discounts,
    "relevance_threshold": lambda case: relevance_thresholds,
    "undefined": lambda case: undefined_rules,
    "precision_denominator": lambda case: precision_denominators,
    "ap_denominator": lambda case: ap_denominators,
    "recall_denominator": lambda case: recall_denominators,
    "max_grade": _max_grades,
    "weights": lambda case: gauc_weights,
    "group_weight": lambda case: group_weights,
    "persistence": lambda case: persistences,
    "recall_level": lambda case: recall_levels,
    "judged_only": lambda case: st.booleans(),
    "gain_rows": lambda case: st.sampled_from(["all", "judged"]),
    "ideal_order": lambda case: st.sampled_from(["gain", "trec_eval"]),
    "integer_grades": lambda case: st.booleans(),
    "r_multiple": lambda case: st.sampled_from([0.2, 0.35, 0.5, 1.0, 1.2, 2.0]),
    # Read by the intent-aware metrics only (their oracles: test_intent_metrics).
    "alpha": lambda case: st.sampled_from([0.0, 0.3, 0.5, 0.9]),
    "beta": lambda case: st.sampled_from([0.2, 0.5, 0.8, 0.95]),
}
