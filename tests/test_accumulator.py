"""RankingAccumulator: batches in, the numbers of one evaluate of them all out
(to 1e-12), for every metric and tie policy of the registry; queries may span
batches; merge of workers; the in-order mode that reduces finished queries."""

import itertools
import warnings

import numpy as np
import pytest
import sklearn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import OPTION_STRATEGIES, cutoffs, ranking_cases

import sklearn_rank as sr
from sklearn_rank._metrics.registry import METRICS

FAST = settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _outcome(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "value", call()
        except (ValueError, TypeError) as exc:
            return "raise", type(exc)


def _cuts(data, n):
    return sorted(
        data.draw(st.lists(st.integers(0, n), max_size=4), label="batch cuts")
    )


def _batches(arrays, cuts):
    bounds = [0, *cuts, len(arrays[0])]
    return [
        [None if a is None else a[lo:hi] for a in arrays]
        for lo, hi in itertools.pairwise(bounds)
    ]


def _close(got, want):
    assert got[0] == want[0], (got, want)
    if got[0] == "raise":
        assert got[1] is want[1]
        return
    assert got[1].keys() == want[1].keys()
    for name in want[1]:
        assert got[1][name] == pytest.approx(
            want[1][name], rel=1e-12, abs=1e-12, nan_ok=True
        ), name


@pytest.mark.parametrize("in_order", [False, True], ids=["any_order", "in_order"])
@pytest.mark.parametrize("metric", [n for n, s in METRICS.items() if not s.intents])
@FAST
@given(case=ranking_cases(allow_retrieved=False, allow_judged=False), data=st.data())
def test_compute_equals_one_evaluate(metric, in_order, case, data):
    spec = METRICS[metric]
    if in_order and spec.pooled:
        return
    opts = {
        name: data.draw(OPTION_STRATEGIES[name](case), label=name)
        for name in spec.options
        if name not in ("judged_only",)
    }
    if in_order and opts.get("group_weight") == "relevant_mean":
        opts["group_weight"] = "mean"
    k = data.draw(cutoffs, label="k") if spec.takes_k else None
    name = f"{metric}@{k}" if spec.takes_k and k else metric
    name = "iprec@0.5" if metric == "iprec" else name
    names = [name] if spec.pooled else [name, "ndcg@2"]
    extra = {} if "max_grade" in opts else {"max_grade": 4.0}
    y, s, g, w = case.y_true, case.y_score, case.groups, case.sample_weight
    if in_order:  # whole queries, in order
        order = np.argsort(g, kind="stable")
        y, s, g = y[order], s[order], g[order]
        w = None if w is None else w[order]
    want = _outcome(
        lambda: sr.evaluate(
            y, s, groups=g, metrics=names, sample_weight=w, **opts, **extra
        )
    )
    acc = _outcome(
        lambda: sr.RankingAccumulator(names, in_order=in_order, **opts, **extra)
    )
    if acc[0] == "raise":
        assert want[0] == "raise"
        return
    acc = acc[1]

    def run():
        for batch in _batches([y, s, g, w], _cuts(data, len(y))):
            acc.update(*batch)
        return acc.compute()

    _close(_outcome(run), want)


@FAST
@given(case=ranking_cases(allow_retrieved=False, allow_judged=False), data=st.data())
def test_merge_of_two_workers(case, data):
    ties = data.draw(OPTION_STRATEGIES["ties"](case))
    names = ["ndcg@3", "map", "mrr", "precision@2"]
    y, s, g = case.y_true, case.y_score, case.groups
    want = _outcome(lambda: sr.evaluate(y, s, groups=g, metrics=names, ties=ties))
    cut = data.draw(st.integers(0, len(y)))
    a, b = (sr.RankingAccumulator(names, ties=ties) for _ in range(2))
    if cut:
        a.update(y[:cut], s[:cut], g[:cut])
    if cut < len(y):
        b.update(y[cut:], s[cut:], g[cut:])
    _close(_outcome(lambda: a.merge(b).compute()), want)


def test_in_order_merge_and_reset():
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(50), rng.integers(1, 30, 50))
    y, s = rng.integers(0, 3, g.size), rng.normal(size=g.size)
    want = sr.evaluate(y, s, groups=g, metrics=["ndcg@10", "map"])
    half = np.searchsorted(g, 25)
    a = sr.RankingAccumulator(["ndcg@10", "map"], in_order=True)
    b = sr.RankingAccumulator(["ndcg@10", "map"], in_order=True)
    for lo in range(0, half, 37):
        a.update(
            y[lo : min(lo + 37, half)],
            s[lo : min(lo + 37, half)],
            g[lo : min(lo + 37, half)],
        )
    b.update(y[half:], s[half:], g[half:])
    got = a.merge(b).compute()
    for name in want:
        assert got[name] == pytest.approx(want[name], rel=1e-12)
    # Only the unfinished query's rows are kept between batches.
    c = sr.RankingAccumulator("ndcg@10", in_order=True)
    c.update(y[:100], s[:100], g[:100])
    assert c._pending()["y_true"].shape[0] == np.sum(g[:100] == g[99])
    c.reset()
    with pytest.raises(ValueError, match="no rows"):
        c.compute()


def test_torch_batches_stay_on_their_device(monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("array_api_compat")
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")  # scikit-learn's switch asks for it
    rng = np.random.default_rng(1)
    g = rng.integers(0, 20, 500)
    y, s = rng.integers(0, 3, 500).astype(float), rng.normal(size=500)
    want = sr.evaluate(y, s, groups=g, metrics=["ndcg@10", "mrr"])
    with sklearn.config_context(array_api_dispatch=True):
        for in_order in (False, True):
            order = np.argsort(g, kind="stable") if in_order else np.arange(500)
            acc = sr.RankingAccumulator(["ndcg@10", "mrr"], in_order=in_order)
            for lo in range(0, 500, 64):
                rows = order[lo : lo + 64]
                acc.update(
                    torch.asarray(y[rows]),
                    torch.asarray(s[rows]),
                    torch.asarray(g[rows]),
                )
            if not in_order:
                assert all(isinstance(b, torch.Tensor) for b in acc._batches["y_score"])
            got = acc.compute()
            for name in want:
                assert got[name] == pytest.approx(want[name], rel=1e-12)


def test_bad_input_names_the_fix():
    acc = sr.RankingAccumulator("ndcg@10")
    with pytest.raises(ValueError, match=r"Batch 0 .* y_true=2, y_score=3"):
        acc.update([1, 0], [0.1, 0.2, 0.3], [0, 0, 0])
    acc.update([1, 0], [0.1, 0.2], [0, 0])
    with pytest.raises(ValueError, match="sample_weight for some batches"):
        acc.update([1, 0], [0.1, 0.2], [1, 1], sample_weight=[1, 1])
    with pytest.raises(ValueError, match="same metrics"):
        acc.merge(sr.RankingAccumulator("map"))
    with pytest.raises(ValueError, match="same metrics"):
        acc.merge(sr.RankingAccumulator("ndcg@10", ties="stable"))
    with pytest.raises(TypeError, match="takes a RankingAccumulator"):
        acc.merge(object())
    with pytest.raises(ValueError, match="pooled over all rows"):
        sr.RankingAccumulator("auc", in_order=True)
    with pytest.raises(ValueError, match="relevant_mean"):
        sr.RankingAccumulator("map", in_order=True, group_weight="relevant_mean")
    ordered = sr.RankingAccumulator("map", in_order=True)
    ordered.update([1, 0, 1], [0.1, 0.2, 0.3], [0, 1, 1])
    with pytest.raises(ValueError, match="saw the query 0 again"):
        ordered.update([1, 0], [0.1, 0.2], [0, 2])
    with pytest.raises(ValueError, match="do not follow each other"):
        sr.RankingAccumulator("map", in_order=True).update(
            [1, 0, 1], [1, 2, 3], [5, 6, 5]
        )
    with pytest.raises(TypeError, match="unexpected keyword argument 'tie'"):
        sr.RankingAccumulator("map", tie="stable")
