"""The values of ``sklearn-rank eval``'s measures for one run.

Library metrics come from :func:`sklearn_rank.evaluate_per_group` (one ordering per
set of keywords); trec_eval's other measures are read off them or off the
per-query counts: ``gm_map`` and ``gm_bpref`` (geometric means with trec_eval's
floor), ``11pt_avg`` with recall levels, the set measures and ``utility``.
Where the convention fills undefined queries with a number (trec_eval's 0),
the summary is the per-query values added in query order, then divided, as
trec_eval does (the printed 4th decimal can depend on that order).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._engine.kernels.trec import recall_level_count, yaap_from_ap
from .._engine.reduce import geometric_mean, group_counts
from ._inputs import RunInput
from ._measures import Measure
from ._output import RunResult

# trec_eval.h: MIN_GEO_MEAN, the floor of each value before its logarithm.
MIN_GEO_MEAN = 0.00001


@dataclass(frozen=True)
class QueryCounts:
    """Per-query counts of one run, as floats (relevant: y >= T, or y > 0).

    The first four are trec_eval's count measures, printed under their field
    names; with -J the unjudged documents are not retrieved.
    """

    num_ret: np.ndarray
    # Judged rows only: under -l below 0 unjudged rows are relevant at their
    # ranks, but trec_eval's num_rel and num_rel_ret leave them out.
    num_rel: np.ndarray
    num_rel_ret: np.ndarray
    num_nonrel_judged_ret: np.ndarray
    # Retrieved rows relevant at their ranks, judged or not (-l below 0).
    rel_at_rank: np.ndarray
    # 1 for a query the run file lacks (scored under -c), where trec_eval ranks
    # one stand-in document of its own (trec_eval.c, ``bogus_ranking``:
    # retrieved, not in the pool; -J removes it, and so does ``-M 0``, which
    # cuts every ranking to nothing).
    stand_in: np.ndarray


def counts(
    run: RunInput, threshold: float | None, judged_only: bool = False
) -> QueryCounts:
    """The :class:`QueryCounts` of a run, from one pass over its rows."""
    n = len(run.qids)
    relevant = run.y_true > 0 if threshold is None else run.y_true >= threshold
    # One count per query of each (relevant, retrieved, judged) combination:
    # one pass over the rows instead of one per count.
    kind = relevant.view(np.uint8) << 2
    if run.retrieved is None:
        kind |= 2
    else:
        kind |= run.retrieved.view(np.uint8) << 1
    if run.judged is None:
        kind |= 1
    else:
        kind |= run.judged.view(np.uint8)
    key = run.codes.astype(np.intp) << 3
    key |= kind
    del kind
    table = group_counts(key, 8 * n).reshape(n, 8).astype(np.float64)
    del key

    def count(rel=None, ret=None, judged=None) -> np.ndarray:
        """Rows per query with the given flags (None: either)."""
        cols = [
            k
            for k in range(8)
            if (rel is None or bool(k & 4) == rel)
            and (ret is None or bool(k & 2) == ret)
            and (judged is None or bool(k & 1) == judged)
        ]
        return table[:, cols].sum(axis=1)

    in_file = count(ret=True) > 0
    # -J: the unjudged documents are not retrieved.
    judged_ret = True if judged_only else None
    stand_in = not judged_only and run.max_docs != 0  # -M 0 cuts it too
    return QueryCounts(
        num_ret=count(ret=True, judged=judged_ret),
        num_rel=count(rel=True, judged=True),
        num_rel_ret=count(rel=True, ret=True, judged=True),
        num_nonrel_judged_ret=count(rel=False, ret=True, judged=True),
        rel_at_rank=count(rel=True, ret=True, judged=judged_ret),
        stand_in=(~in_file & stand_in).astype(np.float64),
    )


def _refuse_empty_r(run: RunInput, c: QueryCounts) -> None:
    """``-l`` below 0: a query without a judged relevant document (num_rel 0)
    whose ranking holds a document relevant at its rank (one without a qrels
    line, -c's stand-in included, or with a negative grade) makes trec_eval
    divide by num_rel = 0: map, gm_map and binG print ``inf`` there, which is
    not a value of those measures. Refused, naming the query."""
    at_rank = c.rel_at_rank + (c.stand_in if run.low_level <= -1 else 0.0)
    bad = np.flatnonzero((c.num_rel == 0) & (at_rank > 0))
    if bad.size:
        raise ValueError(
            f"-l {run.low_level}: query {run.qids[int(bad[0])]!r} has no judged "
            "relevant document (num_rel 0) but ranks documents that this level "
            "counts relevant; trec_eval then divides by num_rel = 0 (map, gm_map "
            "and binG print inf), which is not a value of those measures. Use "
            "-J (judged documents only), -l 0, or leave that query out"
        )


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros(num.shape), where=den > 0)


def set_values(m: Measure, c: QueryCounts, num_docs_in_coll: int = 0) -> np.ndarray:
    """trec_eval's set measures per query (m_set_*.c, m_utility.c).

    ``num_docs_in_coll`` (trec_eval's ``-N``) is the collection size that
    utility's fourth term, the non-relevant documents not retrieved, reads:
    ``N + rel_ret - ret - rel``, as trec_eval computes it (0 without ``-N``).
    For a query the run lacks (-c), trec_eval's utility counts its stand-in
    document as retrieved, and zeroes the value only when printed as plain
    ``utility`` (trec_eval.c clears the values by their printed name)."""
    ret, rel, rel_ret = c.num_ret, c.num_rel, c.num_rel_ret
    name = m.label.partition("_")[0] if m.label.startswith("utility") else m.label
    if name == "utility":
        a, b, cc, d = m.numbers
        if m.label != "utility":  # parameters given: the stand-in is counted
            ret = ret + c.stand_in
        return (
            a * rel_ret
            + b * (ret - rel_ret)
            + cc * (rel - rel_ret)
            + d * (num_docs_in_coll + rel_ret - ret - rel)
        )
    precision, recall = _ratio(rel_ret, ret), _ratio(rel_ret, rel)
    if name == "set_P":
        return precision
    if name == "set_recall":
        return recall
    if name == "set_relative_P":
        return np.where(rel > 0, _ratio(rel_ret, np.minimum(ret, rel)), 0.0)
    if name == "set_map":
        return np.where(rel > 0, _ratio(rel_ret * rel_ret, ret * rel), 0.0)
    # set_F (m_set_F.c): (x + 1) P R / (x P + R), 0 without a relevant retrieved.
    (x,) = m.numbers
    den = x * precision + recall
    return np.where(rel_ret > 0, _ratio((x + 1.0) * precision * recall, den), 0.0)


def _in_order_mean(values: np.ndarray) -> float:
    """The sum in query order (a running sum, as trec_eval), over the count."""
    return float(np.cumsum(values)[-1] / values.size) if values.size else math.nan


@dataclass
class _Values:
    """What one run's measures are read off: the library's per-query values
    and means by ``(keywords, metric)``, the counts, and the flags."""

    run: RunInput
    options: object
    per: dict
    means: dict
    counts: QueryCounts
    per_query: bool
    need_per_query: bool
    in_order: bool
    n_total: int | None
    num_docs_in_coll: int


def score(
    run: RunInput,
    measures: list[Measure],
    keywords: dict,
    options,
    per_query: bool,
    notes: list[str] | None = None,
    num_docs_in_coll: int = 0,
    n_total: int | None = None,
    *,
    n_jobs: int = 1,
) -> RunResult:
    """The summary (and per-query) value of every measure for one run
    (``num_docs_in_coll``: trec_eval's ``-N``, read by ``utility``;
    ``n_total``: ``-c``'s number of judged queries, over which the geometric
    means are taken; ``n_jobs``: ``-j``, the threads of every library call)."""
    in_order = isinstance(options.undefined, float)  # trec_eval's mean
    measures = _refuse_graded_rbp(measures, run.y_true, options.integer_grades, notes)
    need_per_query = (
        per_query
        or in_order
        or any(m.kind in ("gm", "levels", *READ_OFF) for m in measures)
    )
    trec = keywords.get("convention") == "trec_eval"
    per, means = _library_values(
        run,
        measures,
        {**keywords, "n_jobs": n_jobs},
        options,
        need_per_query,
        in_order,
        trec,
    )
    c = counts(judged_levels(run), options.relevance_threshold, options.judged_only)
    if run.low_level is not None and run.low_level < 0:
        _refuse_empty_r(run, c)
    if trec and in_order:
        _empty_rankings(measures, per, means, c, run, notes)
        _stand_in_residual(measures, per, means, c)
    values = _Values(
        run,
        options,
        per,
        means,
        c,
        per_query,
        need_per_query,
        in_order,
        n_total,
        num_docs_in_coll,
    )
    summary: dict[str, object] = {}
    rows: dict[str, np.ndarray] = {}  # per-query values of every printed measure
    for m in measures:
        summary[m.label], row = _measure_value(m, values)
        if row is not None:
            rows[m.label] = row
    per_query_values = _per_query_table(run.qids, rows) if per_query else {}
    return RunResult(name=run.name, summary=summary, per_query=per_query_values)


def _library_values(run, measures, keywords, options, need_per_query, in_order, trec):
    """The library's values: one call of ``evaluate_per_group`` (or
    ``evaluate``) per set of measure keywords (trec_eval's per-level gains are
    the ``gain`` keyword, its ideal level order the convention's
    ``ideal_order``); per-query values and means by ``(keywords, metric)``."""
    from .. import evaluate
    from .._metrics.evaluate import evaluate_per_group_sets

    common = {
        "groups": run.codes,
        "retrieved": run.retrieved,
        "judged": run.judged,
        # Negative grades: pooled, not judged (infAP's third class, and the
        # gain of level -2).
        "in_pool": run.pooled,
        **keywords,
    }
    calls: dict[tuple, list[str]] = {}
    for m in measures:
        if m.kind == "ideal":
            continue  # the engine's ideal DCG (below)
        if m.kind == "levels":
            for r in m.levels:
                calls.setdefault((), []).append(f"iprec@{r!r}")
        elif m.metric is not None:
            calls.setdefault(m.keywords, []).append(m.metric)
        elif m.kind in READ_OFF:
            calls.setdefault((), []).append(READ_OFF[m.kind])
    means: dict[tuple, float] = {}
    per: dict[tuple, np.ndarray] = {}
    flags = (options, need_per_query, in_order, trec)
    shared: dict[tuple, list[str]] = {}  # the sets one ordering serves
    for extra, all_names in calls.items():
        names = list(dict.fromkeys(all_names))
        stand_in = trec and _stand_in_gain(extra, options)
        if need_per_query and run.low_level is None and not stand_in:
            shared[extra] = names
            continue
        for some, y_true, at_rank in _label_sets(run, names, options):
            _call(run, some, y_true, {**common, **dict(extra)}, extra, per, means,
                  flags, at_rank)  # fmt: skip
    if shared:
        # One ordering of the rows for every set of keywords that only the
        # kernels read (relative_P's denominator beside recall's).
        kw_pg = {k: v for k, v in common.items() if k != "undefined"}
        found = evaluate_per_group_sets(
            run.y_true, run.y_score, metric_sets=shared, **kw_pg
        )
        for extra, names in shared.items():
            _store(run, found[extra].values, extra, per, means, flags)
            if not in_order:
                kw = {**common, **dict(extra)}
                got = evaluate(run.y_true, run.y_score, metrics=names, **kw)
                means.update({(extra, n): v for n, v in got.items()})
    for m in measures:
        if m.kind == "ideal":
            key = (m.keywords, m.metric)
            if trec:
                _refuse_stale_ideal(run)
            per[key] = _ideal_dcg(run, m, options)
            means[key] = _in_order_mean(per[key])
    return per, means


def _label_sets(run: RunInput, names: list[str], options):
    """``(metric names, y_true, at_rank)`` to evaluate: all on the grades, or
    under ``-l`` at or below 0 the binary metrics on :func:`judged_levels`
    (``at_rank``: below 0, where unjudged rows carry labels), the others on
    the grades."""
    if run.low_level is None:
        return [(names, run.y_true, False)]
    from .._metrics.registry import METRICS

    def binary(name: str) -> bool:
        spec = METRICS.get(name.partition("@")[0])
        return spec is not None and spec.labels == "binary"

    levels = judged_levels(run).y_true
    below = run.low_level < 0
    counted = [n for n in names if binary(n)]
    from_bottom = []
    if below and not options.judged_only:
        from_bottom = [n for n in counted if n.partition("@")[0] in _FROM_BOTTOM]
        counted = [n for n in counted if n not in from_bottom]
    sets = [
        (counted, levels, below),
        (from_bottom, _top_hits_dropped(run, levels) if from_bottom else None, True),
        ([n for n in names if not binary(n)], run.y_true, False),
    ]
    return [(n, y, b) for n, y, b in sets if n]


# trec_eval's iprec_at_recall, 11pt_avg and Rprec_mult count the relevant
# documents from the bottom of the ranking, starting from num_rel_ret.
_FROM_BOTTOM = ("iprec", "iprec_11pt", "rprec_mult")


def _top_hits_dropped(
    run: RunInput, levels: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``-l`` below 0 for the measures of :data:`_FROM_BOTTOM`: their running
    count of relevant documents starts from num_rel_ret (judged documents
    only) at the bottom of the ranking, falls by one at each document
    relevant at its rank, unjudged ones included, and stops at 0
    (m_iprec_at_recall.c, m_11pt_avg.c, m_Rprec_mult.c). Above position i it
    is ``max(H_i - U, 0)``, H_i the documents relevant at their ranks in the
    top i and U the unjudged ones among all of them: the count the measures
    take when the first U such documents of each query are non-relevant.
    Returns those labels (retrieved rows come grouped by query, in
    trec_eval's order) and, per judged document so moved out of R, the query
    of one relevant judged row that is not ranked, which keeps R whole."""
    y = levels.copy()
    rel = y >= 1.0
    if run.retrieved is not None:
        rel &= run.retrieved
    judged = np.ones(y.shape, bool) if run.judged is None else run.judged
    unjudged = rel & ~judged
    n = len(run.qids)
    u = group_counts(run.codes, n, unjudged)
    at = np.flatnonzero(rel)
    if not at.size or not u.any():
        return y, run.codes[:0]
    q = run.codes[at]
    # Place of each relevant row among its query's relevant rows (1, 2, ...).
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    sizes = np.diff(np.r_[starts, at.size])
    place = np.arange(1, at.size + 1) - np.repeat(starts, sizes)
    dropped = at[place <= u[q]]
    y[dropped] = 0.0
    return y, run.codes[dropped[judged[dropped]]]


def judged_levels(run: RunInput) -> RunInput:
    """``-l L`` at or below 0 (trec_eval: ``rel >= L``, where a document without
    a qrels line has the value -1 and one with a negative grade -2): the run
    with every judged grade moved up by one, and at threshold 1 relevant also
    the retrieved documents whose value reaches L (label 1, still unjudged:
    they count at their ranks, not in R); the other rows at 0. The run itself
    above 0."""
    if run.low_level is None:
        return run
    import dataclasses

    judged = np.ones(run.y_true.shape, bool) if run.judged is None else run.judged
    y = np.where(judged, np.trunc(run.y_true) + 1.0, 0.0)
    if run.low_level < 0 and run.judged is not None:
        # -1: no qrels line; -2: a negative grade (pooled, not judged).
        pooled = judged if run.pooled is None else run.pooled
        reached = ~pooled if run.low_level == -1 else ~judged
        if run.retrieved is not None:
            reached &= run.retrieved
        y[reached] = 1.0
    return dataclasses.replace(run, y_true=y, low_level=None)


def _call(run, names, y_true, kw, extra, per, means, flags, at_rank=False) -> None:
    """One library call: the per-query values (filled as trec_eval fills) and
    the means of ``names`` on ``y_true``. ``at_rank``: ``-l`` below 0, whose
    unjudged rows carry labels (trec_eval's in-order means only)."""
    from .. import evaluate, evaluate_per_group
    from .._metrics.evaluate import evaluate_per_group_sets

    options, need_per_query, in_order, trec = flags
    y_score = run.y_score
    if at_rank:
        # -c's stand-in document has the value -1: relevant at its rank too,
        # except where the count starts from num_rel_ret (_top_hits_dropped,
        # which would drop it: it is the query's one relevant document).
        stand_in = 1.0
        if isinstance(y_true, tuple):  # _top_hits_dropped: R kept by rows
            y_true, keep_r = y_true
            y_true, y_score, kw = _with_rows(y_true, y_score, kw, keep_r, 1.0)
            stand_in = 0.0
        if not options.judged_only:
            y_true, y_score, kw = _with_stand_in(
                run, kw, y_true, label=stand_in, y_score=y_score
            )
        kw_pg = {k: v for k, v in kw.items() if k != "undefined"}
        found = evaluate_per_group_sets(
            y_true, y_score, metric_sets={(): names}, unjudged_labels=True, **kw_pg
        )
        _store(run, found[()].values, extra, per, means, flags)
        return
    if trec and _stand_in_gain(extra, options):
        y_true, y_score, kw = _with_stand_in(run, kw, y_true)
    if need_per_query:
        kw_pg = {k: v for k, v in kw.items() if k != "undefined"}
        found = evaluate_per_group(y_true, y_score, metrics=names, **kw_pg)
        _store(run, found.values, extra, per, means, flags)
    if not in_order:
        found = evaluate(y_true, y_score, metrics=names, **kw)
        means.update({(extra, n): v for n, v in found.items()})


def _store(run, values_by_name, extra, per, means, flags) -> None:
    """Per-query values filled as trec_eval fills (its in-order means too)."""
    options, _, in_order, trec = flags
    fill = options.undefined
    for name, values in values_by_name.items():
        undefined = np.isnan(values)
        if trec and name == "rndcg":
            undefined &= ~_has_relevant(run, options)  # 0 / 0 (-nan)
        filled = np.where(undefined, fill, values) if in_order else values
        per[extra, name] = filled
        if in_order:
            means[extra, name] = _in_order_mean(filled)


def _has_relevant(run: RunInput, options) -> np.ndarray:
    """Per query, whether a row is relevant: where Rndcg is undefined anyway
    (no R level), trec_eval divides 0 by 0 (m_Rndcg.c) and prints -nan."""
    t = options.relevance_threshold
    y = judged_levels(run).y_true
    relevant = y > 0 if t is None else y >= t
    if run.judged is not None:  # num_rel: judged rows (-l below 0)
        relevant &= run.judged
    return group_counts(run.codes, len(run.qids), relevant) > 0


def _ideal_dcg(run: RunInput, m: Measure, options) -> np.ndarray:
    """trec_eval's ``ideal_dcg.L=G``: the engine's ideal DCG of each query's
    judged documents (the convention's ``ideal_order``)."""
    from .._engine.kernels.trec import ideal_dcg_values

    y = np.trunc(run.y_true) if options.integer_grades else run.y_true
    gain = dict(m.keywords).get("gain") or "linear"
    return ideal_dcg_values(
        y,
        run.codes,
        len(run.qids),
        gain=gain,
        judged=run.judged,
        ideal_order=options.ideal_order,
    )


def _refuse_stale_ideal(run: RunInput) -> None:
    """trec_eval's ``ideal_dcg`` of a query judged only with negative grades
    prints the ideal DCG of the query before it: te_form_res_rels keeps the
    previous query's level counts when no judgment has a level >= 0 (seen with
    trec_eval 10.0-rc3 -D 1). That is not a value of the query: refused."""
    if run.pooled is None:  # not TREC input: every row has a judgment
        return
    judged = np.ones(run.y_true.shape, bool) if run.judged is None else run.judged
    n = len(run.qids)
    some = group_counts(run.codes, n, run.pooled) > 0  # a qrels line
    levels = group_counts(run.codes, n, judged & (run.y_true >= 0)) > 0
    stale = np.flatnonzero(some & ~levels)
    if stale.size:
        raise ValueError(
            f"ideal_dcg: query {run.qids[int(stale[0])]!r} is judged only with "
            "negative grades; trec_eval prints the previous query's ideal DCG "
            "there (it keeps that query's level counts), which is not a value of "
            "this query. Leave ideal_dcg out, or use --convention sklearn_rank "
            "for its ideal DCG (0)"
        )


def _with_rows(y_true, y_score, kw: dict, codes: np.ndarray, label: float):
    """The rows with judged rows of ``label`` added, not ranked (retrieved
    False), one per entry of ``codes``, the query of each."""
    if not codes.size:
        return y_true, y_score, kw
    m = codes.size

    def add(a, value):
        return np.concatenate([a, np.full(m, value, dtype=a.dtype)])

    kw = dict(kw)
    kw["groups"] = np.concatenate([kw["groups"], codes.astype(kw["groups"].dtype)])
    retrieved = kw.get("retrieved")
    if retrieved is None:  # every row ranked so far
        retrieved = np.ones(y_true.shape, bool)
    kw["retrieved"] = add(retrieved, False)
    for name in ("judged", "in_pool"):
        if kw.get(name) is not None:
            kw[name] = add(kw[name], True)
    return add(y_true, label), add(y_score, float(y_score.min(initial=0.0))), kw


def _stand_in_gain(extra: tuple, options) -> bool:
    """Whether a measure's gains give -c's stand-in document (outside the
    judgments: level -1) a gain."""
    from .._engine.gain_order import unjudged_gains

    gain = dict(extra).get("gain")
    return gain is not None and unjudged_gains(gain)[0] != 0 and not options.judged_only


def _with_stand_in(
    run: RunInput, kw: dict, y_true: np.ndarray, label: float = 0.0, y_score=None
):
    """The run with trec_eval's stand-in document (trec_eval.c,
    ``bogus_ranking``: one retrieved document outside the judgments) ranked for
    each query that the run file lacks (-c), so that level -1's gain reaches
    it (``label``: 1 under ``-l`` below 0, whose test its value -1 passes);
    nothing to add without -c, or under -M 0 (the cut leaves none). The
    rows are ``kw``'s (``y_score``: theirs, the run's by default)."""
    y_score = run.y_score if y_score is None else y_score
    if run.retrieved is None or run.max_docs == 0:
        return y_true, y_score, kw
    n = len(run.qids)
    codes, retrieved = kw["groups"], kw["retrieved"]
    lacking = np.flatnonzero(group_counts(codes, n, retrieved) == 0)
    if not lacking.size:
        return y_true, y_score, kw
    extra = lacking.size
    top = float(y_score.max(initial=0.0)) + 1.0

    def add(a, value):
        return np.concatenate([a, np.full(extra, value, dtype=a.dtype)])

    kw = dict(kw)
    kw["groups"] = np.concatenate([codes, lacking.astype(codes.dtype)])
    kw["retrieved"] = add(retrieved, True)
    for name in ("judged", "in_pool"):
        if kw.get(name) is not None:
            kw[name] = add(kw[name], False)
    return add(y_true, label), add(y_score, top), kw


# trec_eval measures read off a library metric here (their Measure.metric is
# None): the metric each reads.
READ_OFF = {
    "yaap": "map",
    "beyond": "iprec@1.0",
    "first_gain": "dcg@1",
    "resid_any": "unjudged",
    "resid_first": "unjudged@1",
}


def _library_mean(m: Measure, v: _Values):
    """A library metric's mean and per-query values (or those of the metric a
    :data:`READ_OFF` measure reads, as printed)."""
    key = ((), READ_OFF[m.kind]) if m.kind in READ_OFF else (m.keywords, m.metric)
    return float(v.means[key]), (v.per[key] if v.need_per_query else None)


def _per_query(m: Measure, v: _Values) -> np.ndarray:
    """The library's per-query values that a :data:`READ_OFF` measure reads."""
    return v.per[(), READ_OFF[m.kind]]


def _recall_levels(m: Measure, v: _Values):
    # m_11pt_avg.c: the levels summed from the highest down, then / n.
    total = np.zeros(len(v.run.qids))
    for r in reversed(m.levels):
        total += v.per[(), f"iprec@{r!r}"]
    row = total / len(m.levels)
    return _in_order_mean(row), row


def _geometric(m: Measure, v: _Values):
    key = (m.keywords, m.metric)
    values = v.per[key] if v.in_order else np.nan_to_num(v.per[key])
    # -c: the judged queries left out (-D 0.QID) count at the floor
    # (meas_avg.c, te_calc_avg_meas_s_gm).
    if v.n_total is not None and v.n_total > values.size:
        missing = np.full(v.n_total - values.size, MIN_GEO_MEAN)
        values = np.concatenate([values, missing])
    return geometric_mean(values, floor=MIN_GEO_MEAN), None


def _beyond_one(m: Measure, v: _Values):
    """A recall level above 1 (see _measures): 0 where its cutoff passes R,
    else the value at recall 1."""
    (r,) = m.numbers
    past = recall_level_count(r, v.counts.num_rel) > v.counts.num_rel
    row = np.where(past, 0.0, np.nan_to_num(_per_query(m, v)))
    return _in_order_mean(row), row


def _residual_flag(m: Measure, v: _Values):
    """rbp_resid.p=1 (any unjudged row) and p=0 (the first row unjudged)."""
    row = (np.nan_to_num(_per_query(m, v)) > 0).astype(np.float64)
    row[v.counts.stand_in > 0] = 1.0  # -c's stand-in document: unjudged
    return _in_order_mean(row), row


def _zero(m: Measure, v: _Values):
    """trec_eval's value is 0 (Rprec_mult.0, rbp.p=1)."""
    return 0.0, np.zeros(len(v.run.qids))


def _yaap(m: Measure, v: _Values):
    """m_yaap.c: S = sum of precisions = AP x R."""
    row = yaap_from_ap(_per_query(m, v), v.counts.num_rel)
    return _in_order_mean(row), row


def _relstring(m: Measure, v: _Values):
    """Printed per query only."""
    if not v.per_query:
        return None, None
    row = relstrings(v.run, int(m.numbers[0]), v.options)
    # The stand-in document (no qrels line); trec_eval.c clears the value
    # printed as plain "relstring" only.
    if m.numbers[0] >= 1 and m.label != "relstring":
        row[v.counts.stand_in > 0] = "'-'"
    return None, row


def _set_measure(m: Measure, v: _Values):
    row = set_values(m, v.counts, v.num_docs_in_coll)
    return _in_order_mean(row), row


def _count(m: Measure, v: _Values):
    """A count measure: the :class:`QueryCounts` field of its name, summed."""
    column = getattr(v.counts, m.label)
    return int(column.sum()), column.astype(np.int64)


# How each kind of measure (``Measure.kind``, from ``TREC_MEASURES``) gets its
# ``(summary value, per-query values or None)``.
VALUE_OF_KIND = {
    "metric": _library_mean,
    "ideal": _library_mean,
    "first_gain": _library_mean,
    "levels": _recall_levels,
    "gm": _geometric,
    "beyond": _beyond_one,
    "resid_any": _residual_flag,
    "resid_first": _residual_flag,
    "zero": _zero,
    "yaap": _yaap,
    "string": _relstring,
    "set": _set_measure,
    "count": _count,
    "run_tag": lambda m, v: (v.run.runid, None),
    "query_count": lambda m, v: (len(v.run.qids), None),
}


def _measure_value(m: Measure, v: _Values):
    """``(summary value, per-query values or None)`` of one printed measure."""
    return VALUE_OF_KIND[m.kind](m, v)


def _per_query_table(qids: list[str], rows: dict) -> dict[str, dict[str, object]]:
    """``{qid: {label: value}}``: columns to Python values once (ints stay
    ints, strings strings)."""
    labels = list(rows)
    columns = [v.tolist() if v.dtype.kind in "if" else list(v) for v in rows.values()]
    return {
        qid: dict(zip(labels, cells, strict=True))
        for qid, *cells in zip(qids, *columns, strict=True)
    }


def _stand_in_residual(measures, per, means, c) -> None:
    """-c: trec_eval ranks one stand-in document, outside the judgments, for a
    query the run lacks; ``rbp_resid`` of that ranking is ``p + (1 - p) = 1``
    (m_rbp_resid.c), whatever p; trec_eval.c clears the value printed as
    plain ``rbp_resid`` (it clears values by their printed name)."""
    stand_in = c.stand_in > 0
    if not stand_in.any():
        return
    for m in measures:
        if m.metric == "rbp_residual" and m.label != "rbp_resid":
            key = (m.keywords, m.metric)
            per[key] = np.where(stand_in, 1.0, per[key])
            means[key] = _in_order_mean(per[key])


def _empty_rankings(measures, per, means, c, run, notes) -> None:
    """trec_eval's interpolated precision of a query that ranks no document
    (``-J`` removed them all): ``0 / 0`` is NaN at every recall level whose
    cutoff ``lround(level * num_rel)`` is 0 (m_iprec_at_recall.c,
    m_11pt_avg.c), and the mean over queries is NaN too (printed ``-nan``)."""
    empty = (c.num_ret + c.stand_in) == 0
    if not empty.any():
        return
    named = []
    for m in measures:
        if m.kind == "levels":
            levels, keys = m.levels, [((), f"iprec@{r!r}") for r in m.levels]
        elif m.metric == "iprec_11pt":  # the default levels, 0.0 among them
            levels, keys = [0.0], [(m.keywords, m.metric)]
        elif (m.metric or "").startswith("iprec@"):
            levels, keys = [float(m.metric.partition("@")[2])], [(m.keywords, m.metric)]
        else:
            continue
        for r, key in zip(levels, keys, strict=True):
            nan = empty & (np.floor(r * c.num_rel + 0.5) == 0)
            if nan.any():
                per[key] = np.where(nan, np.nan, per[key])
                means[key] = _in_order_mean(per[key])
                named.append(m.label)
    if named and notes is not None:
        shown = ", ".join(run.qids[i] for i in np.flatnonzero(empty)[:5])
        notes.append(
            f"run {run.name!r}: query {shown} ranks no document, so "
            f"{', '.join(dict.fromkeys(named))} divide 0 by 0 there: NaN (-nan), "
            "as trec_eval prints them"
        )


def relstrings(run: RunInput, length: int, options) -> np.ndarray:
    """trec_eval's relstring (m_relstring.c) per query: the grade of each of the
    first ``length`` ranked documents, ``-`` without a qrels line, ``.`` for a
    negative grade (pooled, not judged), ``>`` above 9, quoted."""
    n = len(run.qids)
    ranked = np.ones(run.y_true.shape, bool) if run.retrieved is None else run.retrieved
    judged = np.ones(ranked.shape, bool) if run.judged is None else run.judged
    pooled = judged if run.pooled is None else run.pooled
    if options.judged_only:  # -J: the unjudged documents left the ranking
        ranked = ranked & judged
    size = group_counts(run.codes, n, ranked).astype(np.intp)  # ranked per query
    keep = np.minimum(size, max(length, 0))
    # Only the first ``length`` ranked rows of each query are read (memory: no
    # temporaries the size of the run): their positions among the ranked rows,
    # then in the arrays.
    start = np.zeros(n, dtype=np.intp)
    np.cumsum(size[:-1], out=start[1:])
    out_start = np.zeros(n, dtype=np.intp)
    np.cumsum(keep[:-1], out=out_start[1:])
    nth = np.arange(int(keep.sum()), dtype=np.intp)
    nth += np.repeat(start - out_start, keep)
    rows = nth if ranked.all() else np.flatnonzero(ranked)[nth]
    grade = np.trunc(run.y_true[rows]).astype(np.int64)
    chars = np.where(grade > 9, ord(">"), ord("0") + np.clip(grade, 0, 9))
    chars = np.where(judged[rows], chars, np.where(pooled[rows], ord("."), ord("-")))
    text = chars.astype(np.uint8).tobytes().decode("ascii")
    return np.array(
        [f"'{text[a : a + k]}'" for a, k in zip(out_start, keep, strict=True)],
        dtype=object,
    )


def _refuse_graded_rbp(
    measures: list[Measure],
    y: np.ndarray,
    integer_grades: bool,
    notes: list[str] | None,
) -> list[Measure]:
    """trec_eval's rbp rescales graded gains with two uninitialised variables
    (m_rbp.c): its value on graded judgments is undefined behaviour. Named
    explicitly, it is an error; from ``all_trec``, it is left out with a note.
    ``integer_grades``: the grades read as whole numbers (trunc(y) > 1 is
    y >= 2)."""
    rbp = [
        m
        for m in measures
        if m.label.startswith("rbp_p=") or (m.metric == "rbp" and m.keywords)
    ]
    if not rbp or not ((y >= 2) if integer_grades else (y > 1)).any():
        return measures
    if notes is None or not all(m.nickname for m in rbp):
        raise ValueError(
            "trec_eval's rbp on graded judgments (grades above 1) reads "
            "uninitialised memory in trec_eval (m_rbp.c), so there is no value "
            "to reproduce; use the library's 'rbp@k' with --max-grade instead"
        )
    notes.append(
        "rbp left out: trec_eval's rbp on graded judgments reads uninitialised "
        "memory (m_rbp.c); use 'rbp@k' with --max-grade"
    )
    return [m for m in measures if m not in rbp]
