"""sklearn_rank.dask against the in-memory engine, on a real distributed cluster.

One ``distributed.LocalCluster`` with two worker processes serves the whole
module. Every result is compared with :func:`sklearn_rank.evaluate` /
:func:`sklearn_rank.evaluate_per_group` on the same rows (to 1e-12), over
partitions of one row, of one group and of many groups, with and without the
shuffle, for every metric of the registry and every convention keyword.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from _scale_cases import (  # noqa: E402
    COLUMNS,
    arrays,
    assert_close,
    in_memory,
    metric_names,
    option_sweep,
    random_rows,
)
from sklearn.exceptions import UndefinedMetricWarning  # noqa: E402

import sklearn_rank  # noqa: E402
import sklearn_rank.dask as srd  # noqa: E402
from sklearn_rank import evaluate_per_group  # noqa: E402
from sklearn_rank._engine.conventions import OPTIONS  # noqa: E402


@pytest.fixture(scope="session")
def client():
    """Two worker processes, one thread each: the cluster of the tests."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # port and resource notices of distributed
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            memory_limit="1GiB",
        )
        client = distributed.Client(cluster)
    yield client
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client.close()
        cluster.close()


SYNC = {"scheduler": "sync", "dataframe.shuffle.method": "tasks"}
ROWS = random_rows(seed=0)
BINARY = ROWS.assign(label=(ROWS["label"] > 0).astype(np.float64))
METRICS = metric_names()
# Fewer rows for the layouts of one row or one group per partition.
SMALL = random_rows(seed=1, n_groups=6, max_rows=5)
SMALL_BINARY = SMALL.assign(label=(SMALL["label"] > 0).astype(np.float64))
# The metrics that refuse these graded rows under ties="average" (a tie block
# whose order changes the value: interpolated precision and trec_eval's G, binG,
# infAP, ndcg_rel and Rndcg); they are checked on binary rows with pessimistic ties.
BINARY_ONLY = set(in_memory(ROWS, METRICS, {"max_grade": 3.0})[1])
assert BINARY_ONLY == {
    "iprec@0.5",
    "iprec_11pt",
    "g",
    "bing",
    "infap",
    "ndcg_rel",
    "rndcg",
}


def _grouped_chunks(rows: pd.DataFrame, groups_per_chunk: int) -> list[pd.DataFrame]:
    """Whole groups per chunk, in the rows' order inside each group."""
    ids = rows["qid"].unique()
    chunks = []
    for start in range(0, ids.size, groups_per_chunk):
        chunks.append(rows[rows["qid"].isin(ids[start : start + groups_per_chunk])])
    return chunks


def layouts(rows: pd.DataFrame) -> dict:
    """name -> (dask frame, keywords): every partition layout of the tests."""
    one_group = rows.set_index("qid").sort_index(kind="stable")
    n_groups = rows["qid"].nunique()
    return {
        # groups spread over 5 partitions: shuffled by group
        "spread": (dd.from_pandas(rows, npartitions=5, sort=False), {}),
        # one row per partition: shuffled by group, most partitions empty after
        "one_row": (dd.from_pandas(rows, npartitions=len(rows), sort=False), {}),
        # the group index with known divisions, one group per partition: no shuffle
        "one_group": (dd.from_pandas(one_group, npartitions=n_groups), {}),
        # many whole groups per partition, as promised: no shuffle
        "many_groups": (
            dd.from_map(lambda c: c, _grouped_chunks(rows, 3)),
            {"partitioned_by_group": True},
        ),
    }


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return call(*args, **kwargs)


def _checks(frames, options, metrics=METRICS, rows=None):
    """(lazy Dask results, in-memory results, refusals) for ``options``: graded
    rows for every metric that takes them, binary rows for the metrics that take
    binary labels only."""
    lazy, expected, refused = [], [], {}
    graded_rows, binary_rows = rows or (ROWS, BINARY)
    for kind, rows, names in (
        ("graded", graded_rows, [m for m in metrics if m not in BINARY_ONLY]),
        ("binary", binary_rows, [m for m in metrics if m in BINARY_ONLY]),
    ):
        frame, keywords = frames[kind]
        if kind == "binary":  # interpolated precision refuses ties="average"
            options = {"ties": "pessimistic", **options}
        good, bad = _quiet(in_memory, rows, names, options)
        refused.update({m: (e, frame, keywords) for m, e in bad.items()})
        if good:
            lazy.append(
                srd.evaluate(
                    frame,
                    metrics=list(good),
                    compute=False,
                    **COLUMNS,
                    **keywords,
                    **options,
                )
            )
            expected.append(good)
    return lazy, expected, refused


def _assert_checks(lazy, expected, refused, options):
    found = _quiet(dask.compute, *lazy)
    for got, want in zip(found, expected, strict=True):
        assert_close(got, want)
    if refused:  # refused in memory (e.g. undefined="raise"): refused here too
        name, (error, frame, keywords) = next(iter(refused.items()))
        with pytest.raises(error):
            _quiet(
                srd.evaluate, frame, metrics=[name], **COLUMNS, **keywords, **options
            )


def _per_group_pair(frame, rows, metrics, keywords, options):
    lazy = srd.evaluate_per_group(
        frame, metrics=metrics, **COLUMNS, **keywords, **options
    )
    want = evaluate_per_group(
        rows["label"].to_numpy(),
        rows["score"].to_numpy(),
        metrics=metrics,
        **arrays(rows),
        **options,
    )
    return lazy, want


def _assert_per_group(got, want):
    metrics = list(want.values)
    got = got.sort_index()
    assert got.index.name == "qid"
    np.testing.assert_array_equal(got.index.to_numpy(), want.group_ids)
    for m in metrics:
        np.testing.assert_allclose(got[m].to_numpy(), want.values[m], rtol=1e-12)
        np.testing.assert_allclose(
            got[f"weight:{m}"].to_numpy(), want.weights[m], rtol=1e-12
        )


def test_the_layouts_are_what_they_claim():
    frames = layouts(SMALL)
    assert frames["one_row"][0].npartitions == len(SMALL)
    one_group = frames["one_group"][0]
    assert one_group.known_divisions
    assert one_group.npartitions == SMALL["qid"].nunique()
    spread = frames["spread"][0].partitions
    spans = [set(spread[i].compute()["qid"]) for i in range(3)]
    assert spans[0] & (spans[1] | spans[2])  # a group with rows in two partitions


# Options whose result reads the layout: row order (stable ties), a weight read
# from every group (relevant_mean), partitions left without a judged row,
# undefined groups in the partial sums.
LAYOUT_OPTIONS = [
    {},
    {"ties": "stable"},
    {"group_weight": "relevant_mean"},
    {"judged_only": True},
    {"undefined": 0.25},
]
LAYOUTS = ["spread", "one_row", "one_group", "many_groups"]


def _layout_checks(layout, option_sets):
    """Means and per-group frames of every option set, lazy, with the in-memory
    results; graded rows for every metric, binary rows for the binary ones."""
    frames = {"graded": layouts(SMALL)[layout], "binary": layouts(SMALL_BINARY)[layout]}
    lazy, expected, per_group = [], [], []
    for extra in option_sets:
        options = {"max_grade": 3.0, **extra}
        metrics = [m for m in METRICS if not (m == "auc" and "ties" in extra)]
        one = _checks(frames, options, metrics, rows=(SMALL, SMALL_BINARY))
        assert not one[2], one[2]
        lazy += one[0]
        expected += one[1]
        for kind, rows in (("graded", SMALL), ("binary", SMALL_BINARY)):
            options = {"max_grade": 3.0, **extra}
            options.pop("undefined", None)
            if kind == "binary":
                options = {"ties": "pessimistic", **options}
            frame, keywords = frames[kind]
            names = [m for m in METRICS if m != "auc"]
            names = [m for m in names if (m in BINARY_ONLY) == (kind == "binary")]
            per_group.append(_per_group_pair(frame, rows, names, keywords, options))
    assert all(isinstance(p[0], dd.DataFrame) for p in per_group)  # lazy
    # Two computes: one of delayed means, one of frames (dask warns on a mix).
    for got, want in zip(_quiet(dask.compute, *lazy), expected, strict=True):
        assert_close(got, want)
    found = _quiet(dask.compute, *(p[0] for p in per_group))
    for got, (_, want) in zip(found, per_group, strict=True):
        _assert_per_group(got, want)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_metric_on_the_cluster(client, layout):
    # Two worker processes, the p2p shuffle: every metric, default options.
    _layout_checks(layout, [{}])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_options_that_read_the_layout(layout):
    # The same graph on the synchronous scheduler (no per-task overhead).
    with dask.config.set(SYNC):
        _layout_checks(layout, LAYOUT_OPTIONS[1:])


SWEEP = option_sweep()


@pytest.mark.parametrize("options", SWEEP, ids=[str(o) for o in SWEEP])
def test_every_option_equals_in_memory(options):
    # On the synchronous scheduler (the same graph and partition function as on
    # the cluster, without its per-call overhead), groups spread over three
    # partitions and shuffled. The pooled AUC with ties="stable" is refused
    # (its own test).
    metrics = [
        m for m in METRICS if not (m == "auc" and options.get("ties") == "stable")
    ]
    frames = {
        "graded": (dd.from_pandas(ROWS, npartitions=3, sort=False), {}),
        "binary": (dd.from_pandas(BINARY, npartitions=3, sort=False), {}),
    }
    with dask.config.set(SYNC):
        _assert_checks(*_checks(frames, options, metrics), options)


def test_the_sweep_covers_every_keyword_and_choice():
    seen = {(k, v) for o in SWEEP for k, v in o.items() if isinstance(v, str)}
    for name, option in OPTIONS.items():
        assert any(k == name for o in SWEEP for k in o), name
        for choice in option.choices:
            assert (name, choice) in seen or option.default == choice, (name, choice)


def test_dask_arrays(client):
    chunks = 80
    y = da.from_array(ROWS["label"].to_numpy(), chunks=chunks)
    s = da.from_array(ROWS["score"].to_numpy(), chunks=chunks)
    g = da.from_array(ROWS["qid"].to_numpy(), chunks=chunks)
    w = da.from_array(ROWS["sample_weight"].to_numpy(), chunks=chunks)
    found = srd.evaluate(
        y, s, groups=g, sample_weight=w, metrics=["ndcg@3", "map", "auc"]
    )
    expected = sklearn_rank.evaluate(
        ROWS["label"].to_numpy(),
        ROWS["score"].to_numpy(),
        groups=ROWS["qid"].to_numpy(),
        sample_weight=ROWS["sample_weight"].to_numpy(),
        metrics=["ndcg@3", "map", "auc"],
    )
    assert_close(found, expected)


def test_stable_ties_follow_the_input_order_after_a_shuffle(client):
    # All scores tied: "stable" ranks in input order, so any reordering by the
    # shuffle would change NDCG.
    rows = ROWS.assign(score=0.0)
    frame = dd.from_pandas(rows, npartitions=9, sort=False)
    expected, _ = in_memory(rows, ["ndcg@3", "mrr"], {"ties": "stable"})
    found = srd.evaluate(frame, metrics=["ndcg@3", "mrr"], **COLUMNS, ties="stable")
    assert_close(found, expected)


def test_pooled_auc_with_stable_ties_is_refused():
    frame, _ = layouts(ROWS)["spread"]
    with pytest.raises(ValueError, match="ties='stable'"):
        srd.evaluate(frame, metrics=["auc"], ties="stable")


def test_a_broken_promise_raises(client):
    frame, _ = layouts(ROWS)["spread"]
    with pytest.raises(ValueError, match="more than one partition"):
        srd.evaluate(frame, metrics=["mrr"], partitioned_by_group=True)


def test_all_undefined_warns_as_in_memory(client):
    rows = ROWS.assign(label=0.0)
    frame = dd.from_pandas(rows, npartitions=4, sort=False)
    with pytest.warns(UndefinedMetricWarning):
        found = srd.evaluate(frame, metrics=["mrr"])
    assert np.isnan(found["mrr"])


def test_bad_arguments_name_the_argument():
    frame, _ = layouts(ROWS)["spread"]
    with pytest.raises(ValueError, match="'y_score' parameter of evaluate"):
        srd.evaluate(frame, "nope")
    with pytest.raises(ValueError, match="'partitioned_by_group'"):
        srd.evaluate(frame, partitioned_by_group="yes")
    with pytest.raises(ValueError, match="'ties' parameter"):
        srd.evaluate(frame, ties="random")
    with pytest.raises(ValueError, match="pooled"):
        srd.evaluate_per_group(frame, metrics=["auc"])


def test_the_signatures_cover_every_option():
    import inspect

    for func, skip in ((srd.evaluate, set()), (srd.evaluate_per_group, {"undefined"})):
        params = inspect.signature(func).parameters
        for name in OPTIONS:
            if name not in skip:
                assert params[name].kind is inspect.Parameter.KEYWORD_ONLY, name


def test_inputs_are_not_modified(client):
    rows = ROWS.copy()
    frame = dd.from_pandas(rows, npartitions=5, sort=False)
    srd.evaluate(frame, metrics=["ndcg@3"], **COLUMNS, ties="stable")
    pd.testing.assert_frame_equal(rows, ROWS)
    assert list(frame.columns) == list(ROWS.columns)


def test_import_sklearn_rank_does_not_import_dask():
    import subprocess
    import sys

    code = "import sys, sklearn_rank; print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


# -- model selection under joblib's dask backend ----------------------------------
def _ranking_data():
    from _ranking_fixtures import as_frame, make_ranking_data

    X, y, groups = make_ranking_data(n_groups=15)
    return X, y, groups, as_frame(X, groups)


def _on_cluster(fit):
    """``fit()`` locally, then with joblib's dask backend on the cluster (whose
    workers must have run the fits: the task stream is not empty)."""
    import joblib

    local = fit(1)
    with distributed.get_task_stream() as tasks, joblib.parallel_backend("dask"):
        remote = fit(-1)
    assert tasks.data, "nothing ran on the cluster"
    return local, remote


def _split_scores(results):
    return {k: v.tolist() for k, v in results.items() if "test_" in k}


@pytest.mark.parametrize("routing", [True, False], ids=["routing", "no_routing"])
def test_grid_search_on_the_cluster_equals_local(client, routing):
    import sklearn
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV, GroupKFold
    from sklearn.pipeline import make_pipeline

    X, y, groups, frame = _ranking_data()
    if routing:
        model, data = Ridge(), X
        scoring = sklearn_rank.make_ranking_scorer(["ndcg@5", "map", "mrr"])
        grid = {"alpha": [0.1, 10.0]}
    else:  # the scorer reads the group column; the model drops it
        drop = ColumnTransformer([("ids", "drop", ["qid"])], remainder="passthrough")
        model, data = make_pipeline(drop, Ridge()), frame
        scoring = sklearn_rank.make_ranking_scorer(
            ["ndcg@5", "map", "mrr"], group_column="qid"
        )
        grid = {"ridge__alpha": [0.1, 10.0]}

    def fit(n_jobs):
        with sklearn.config_context(enable_metadata_routing=routing):
            search = GridSearchCV(
                model,
                grid,
                scoring=scoring,
                refit="ndcg@5",
                cv=GroupKFold(n_splits=3),
                n_jobs=n_jobs,
                error_score="raise",
            )
            return search.fit(data, y, groups=groups).cv_results_

    local, remote = _on_cluster(fit)
    assert _split_scores(remote) == _split_scores(local)  # exactly
    # three metrics: three splits, mean, std and rank each
    assert len(_split_scores(local)) == 3 * 6


@pytest.mark.parametrize("routing", [True, False], ids=["routing", "no_routing"])
def test_grouped_ranker_cross_validate_on_the_cluster_equals_local(client, routing):
    lightgbm = pytest.importorskip("lightgbm")
    import sklearn
    from sklearn.model_selection import GroupKFold, cross_validate

    X, y, groups, frame = _ranking_data()
    ranker = lightgbm.LGBMRanker(n_estimators=5, num_leaves=5, n_jobs=1, verbose=-1)
    if routing:
        model = sklearn_rank.GroupedRanker(ranker)
        data, scoring = X, sklearn_rank.make_ranking_scorer(["ndcg@5", "map"])
    else:
        model = sklearn_rank.GroupedRanker(ranker, group_column="qid")
        data = frame
        scoring = sklearn_rank.make_ranking_scorer(
            ["ndcg@5", "map"], group_column="qid"
        )

    def fit(n_jobs):
        with sklearn.config_context(enable_metadata_routing=routing):
            params = {"groups": groups} if routing else {}
            return cross_validate(
                model,
                data,
                y,
                groups=None if routing else groups,
                params=params or None,
                scoring=scoring,
                cv=GroupKFold(n_splits=3),
                n_jobs=n_jobs,
                error_score="raise",
            )

    local, remote = _on_cluster(fit)
    for key in ("test_ndcg@5", "test_map"):
        assert remote[key].tolist() == local[key].tolist()
        assert np.isfinite(local[key]).all()


# -- the command line ----------------------------------------------------------------
def _parquet_dataset(tmp_path):
    rows = ROWS.assign(other=ROWS["score"][::-1].to_numpy())
    (tmp_path / "rows").mkdir()
    for i in range(3):  # groups spread over the files
        rows.iloc[i::3].to_parquet(tmp_path / "rows" / f"part{i}.parquet")
    rows.to_parquet(tmp_path / "all.parquet")
    return tmp_path / "rows", tmp_path / "all.parquet"


def _cli(argv, capsys):
    from sklearn_rank._cli import main

    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.parametrize("command", ["eval", "compare"])
def test_cli_engine_dask_prints_what_the_in_memory_path_prints(
    client, tmp_path, capsys, command
):
    directory, single = _parquet_dataset(tmp_path)
    common = ["--score-col", "score", "--score-col", "other", "-m", "ndcg@3,map"]
    common += ["--quiet", "--undefined", "0"]
    if command == "eval":
        common += ["-q"]
    else:
        common += ["--resamples", "99"]
    status, memory, _ = _cli([command, str(single), *common], capsys)
    assert status == 0
    address = client.scheduler.address
    status, distributed_out, err = _cli(
        [command, str(directory), "--engine", "dask", "--scheduler", address, *common],
        capsys,
    )
    assert status == 0, err
    assert distributed_out == memory
    assert len(memory.splitlines()) > 10


def test_cli_engine_dask_usage_errors(tmp_path, capsys):
    directory, single = _parquet_dataset(tmp_path)
    with pytest.raises(SystemExit) as exc:
        _cli(["eval", str(single), "--scheduler", "tcp://x:1"], capsys)
    assert exc.value.code == 2
    assert "--scheduler needs --engine dask" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        _cli(["eval", str(directory), "--engine", "dask", "-m", "num_ret"], capsys)
    assert "not available with --engine dask" in capsys.readouterr().err


def test_stats_compare_takes_the_per_group_frames(client):
    from sklearn_rank.stats import bootstrap_ci, compare

    frame = dd.from_pandas(ROWS.assign(other=-ROWS["score"]), npartitions=4)
    per_model = {
        name: srd.evaluate_per_group(frame, col, metrics=["ndcg@3", "map"])
        for name, col in (("a", "score"), ("b", "other"))
    }
    in_memory_scores = {
        name: evaluate_per_group(
            ROWS["label"].to_numpy(),
            (ROWS["score"] if name == "a" else -ROWS["score"]).to_numpy(),
            groups=ROWS["qid"].to_numpy(),
            metrics=["ndcg@3", "map"],
        )
        for name in ("a", "b")
    }
    got = compare(None, per_model, n_resamples=199, random_state=0)
    want = compare(None, in_memory_scores, n_resamples=199, random_state=0)
    assert str(got) == str(want)
    # bootstrap-t: BCa warns below about 50 groups (docs/statistics.md)
    kw = {"n_resamples": 199, "random_state": 0, "method": "bootstrap-t"}
    got = bootstrap_ci(None, per_model["a"], **kw)
    want = bootstrap_ci(None, in_memory_scores["a"], **kw)
    assert str(got) == str(want)


def test_a_partition_is_put_back_in_input_order_for_stable_ties():
    # Whatever order a shuffle delivers rows in, the recorded input positions
    # restore it: scrambled rows give the values of the rows in input order.
    from sklearn_rank._distributed import partitions as parts

    rows = SMALL.assign(score=0.0)  # every row tied: "stable" reads the order
    keyed = rows.assign(
        **{parts.ROW_KEYS[0]: 0, parts.ROW_KEYS[1]: np.arange(len(rows))}
    )
    scrambled = keyed.iloc[np.random.default_rng(0).permutation(len(rows))]
    plan = parts.make_plan(
        "evaluate_per_group",
        y_true="label",
        y_score="score",
        groups="qid",
        sample_weight=None,
        retrieved=None,
        judged=None,
        metrics=["ndcg@3", "mrr"],
        convention=None,
        options={"ties": "stable", "max_grade": 3.0},
        per_group=True,
    )
    got = parts.group_frame(scrambled, plan)
    want = evaluate_per_group(
        rows["label"].to_numpy(),
        rows["score"].to_numpy(),
        groups=rows["qid"].to_numpy(),
        metrics=["ndcg@3", "mrr"],
        ties="stable",
        max_grade=3.0,
    )
    for m in ("ndcg@3", "mrr"):
        np.testing.assert_array_equal(got[m].to_numpy(), want.values[m])
    unordered = parts.group_frame(scrambled.drop(columns=list(parts.ROW_KEYS)), plan)
    assert not np.array_equal(
        unordered["ndcg@3"].to_numpy(), want.values["ndcg@3"], equal_nan=True
    )  # the scramble does change the values: the test can fail


def test_empty_data_is_refused_as_in_memory():
    frame = dd.from_pandas(ROWS.iloc[:0], npartitions=1)
    with dask.config.set(SYNC), pytest.raises(ValueError, match="empty inputs"):
        srd.evaluate(frame, metrics=["mrr"])
    with dask.config.set(SYNC), pytest.raises(ValueError, match="empty inputs"):
        srd.evaluate(frame, metrics=["auc"])


def test_every_option_is_a_keyword_of_the_distributed_front_ends():
    """A keyword added to OPTIONS must reach sklearn_rank.dask and .spark too."""
    import inspect

    import sklearn_rank.spark as srs

    pairs = [
        (sklearn_rank.evaluate, srd.evaluate),
        (sklearn_rank.evaluate, srs.evaluate),
        (evaluate_per_group, srd.evaluate_per_group),
        (evaluate_per_group, srs.evaluate_per_group),
    ]
    for in_memory_func, func in pairs:
        wanted = set(OPTIONS) & set(inspect.signature(in_memory_func).parameters)
        missing = wanted - set(inspect.signature(func).parameters)
        assert not missing, (func.__module__, func.__name__, missing)


# -- the reproductions of issue 34 ----------------------------------------------
AUC_ROWS = pd.DataFrame(
    {
        "label": [0.5, 0.0, 1.0, 0.5, 1.0, 0.0],
        "score": [0.9, 0.1, 0.5, 0.8, 0.3, 0.2],
        "qid": [1, 1, 1, 2, 2, 2],
    }
)


def test_pooled_auc_reads_integer_grades():
    expected = sklearn_rank.evaluate(
        AUC_ROWS["label"].to_numpy(),
        AUC_ROWS["score"].to_numpy(),
        groups=AUC_ROWS["qid"].to_numpy(),
        metrics=["auc"],
        integer_grades=True,
    )
    assert expected == {"auc": 0.5}
    frame = dd.from_pandas(AUC_ROWS, npartitions=2)
    with dask.config.set(SYNC):
        assert srd.evaluate(frame, metrics=["auc"], integer_grades=True) == expected


def _boundary_dataset(tmp_path):
    """Two Parquet files sorted by query, q2 in both (as another tool writes a
    dataset cut by row count)."""
    rows = pd.DataFrame(
        {
            "qid": ["q1", "q1", "q2", "q2", "q2", "q3", "q3"],
            "label": [0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0],
            "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3],
        }
    )
    (tmp_path / "cut").mkdir()
    rows.iloc[:4].to_parquet(tmp_path / "cut" / "a.parquet", index=False)
    rows.iloc[4:].to_parquet(tmp_path / "cut" / "b.parquet", index=False)
    return rows, tmp_path / "cut"


# dask's own read_parquet(index=...) calls set_index(inplace=True) (pandas 3.1
# deprecates it): not this library's warning.
@pytest.mark.filterwarnings("ignore:.*inplace keyword")
def test_known_divisions_are_verified(tmp_path):
    rows, path = _boundary_dataset(tmp_path)
    frame = dd.read_parquet(path, index="qid", calculate_divisions=True)
    assert frame.known_divisions
    with dask.config.set(SYNC):
        with pytest.raises(ValueError, match=r"known divisions.*'q2'"):
            srd.evaluate(frame, metrics=["mrr"])
        with pytest.raises(ValueError, match="known divisions"):
            srd.evaluate_per_group(frame, metrics=["mrr"]).compute()
        # The fix the message gives: the in-memory answer.
        found = srd.evaluate(frame.clear_divisions(), metrics=["mrr"])
        # and the Parquet path straight in
        assert srd.evaluate(str(path), metrics=["mrr"]) == found
    expected = sklearn_rank.evaluate(
        rows["label"], rows["score"], groups=rows["qid"], metrics=["mrr"]
    )
    assert_close(found, expected)


def test_mixed_type_ids_are_refused_as_in_memory():
    rows = pd.DataFrame(
        {
            "qid": pd.Series([1, 1, "1", "1"], dtype=object),
            "label": [1.0, 0.0, 0.0, 1.0],
            "score": [0.9, 0.8, 0.7, 0.6],
        }
    )
    with pytest.raises(TypeError, match="mixes id types") as memory:
        sklearn_rank.evaluate(
            rows["label"], rows["score"], groups=rows["qid"], metrics=["mrr"]
        )
    with pytest.raises(TypeError) as found:
        srd.evaluate(dd.from_pandas(rows, npartitions=2), metrics=["mrr"])
    assert str(found.value) == str(memory.value)
    # Dask arrays of object ids, one type per chunk: found on the client from
    # the partitions' id types, for the means and the per-group frame.
    arrays = [da.from_array(rows[c].to_numpy(), chunks=2) for c in rows.columns]
    ids, label, score = arrays
    with dask.config.set(SYNC):
        with pytest.raises(TypeError, match="mixes id types"):
            srd.evaluate(label, score, groups=ids, metrics=["mrr"])
        with pytest.raises(TypeError, match="mixes id types"):
            srd.evaluate_per_group(label, score, groups=ids, metrics=["mrr"]).compute()


def test_unknown_chunk_sizes_are_named():
    y = da.from_array(np.array([1.0, 0.0, 1.0, 0.0]), chunks=2)
    keep = y >= 0
    with pytest.raises(ValueError, match=r"y_true in evaluate .*compute_chunk_sizes"):
        srd.evaluate(y[keep], y[keep], groups=np.array([1, 1, 2, 2]))


NAN_ROWS = pd.DataFrame(
    {
        "qid": np.repeat(np.arange(20), 10),
        "label": np.tile([1.0] + [0.0] * 9, 20),
        "score": np.random.default_rng(0).random(200),
    }
)


@pytest.mark.parametrize("promise", [False, True], ids=["shuffled", "promised"])
def test_errors_name_input_rows(promise):
    rows = NAN_ROWS.copy()
    rows.loc[150, "score"] = np.nan
    with pytest.raises(ValueError, match="row 150") as memory:
        sklearn_rank.evaluate(
            rows["label"], rows["score"], groups=rows["qid"], metrics=["mrr"]
        )
    frame = dd.from_pandas(rows, npartitions=4)
    with dask.config.set(SYNC), pytest.raises(ValueError) as found:
        srd.evaluate(frame, metrics=["mrr"], partitioned_by_group=promise)
    assert str(found.value) == str(memory.value)


def test_undefined_raise_counts_every_group():
    rows = NAN_ROWS.assign(label=np.where(NAN_ROWS["qid"] >= 5, 0.0, NAN_ROWS["label"]))
    with pytest.raises(ValueError, match="15 of 20 groups") as memory:
        sklearn_rank.evaluate(
            rows["label"],
            rows["score"],
            groups=rows["qid"],
            metrics=["mrr"],
            undefined="raise",
        )
    frame = dd.from_pandas(rows, npartitions=4)
    with dask.config.set(SYNC), pytest.raises(ValueError) as found:
        srd.evaluate(frame, metrics=["mrr"], undefined="raise")
    assert str(found.value) == str(memory.value)


def test_bad_labels_fail_before_the_shuffle():
    rows = NAN_ROWS.assign(label=NAN_ROWS["label"].astype(str))
    with pytest.raises(TypeError, match="y_true in evaluate must be numbers"):
        srd.evaluate(dd.from_pandas(rows, npartitions=2), metrics=["mrr"])
    bad = NAN_ROWS.copy()
    bad.loc[3, "label"] = -1.0
    frame = dd.from_pandas(bad, npartitions=2)
    calls = []

    def no_shuffle(*args, **kwargs):  # pragma: no cover - must not run
        calls.append(args)
        raise AssertionError("a group frame ran before the row checks failed")

    with dask.config.set(SYNC), pytest.raises(ValueError, match="negative labels"):
        import unittest.mock

        with unittest.mock.patch.object(srd.parts, "group_frame", no_shuffle):
            srd.evaluate(frame, metrics=["ndcg@3"])
    assert not calls


def test_empty_per_group_is_refused_as_in_memory():
    frame = dd.from_pandas(ROWS.iloc[:0], npartitions=1)
    with dask.config.set(SYNC), pytest.raises(ValueError, match="empty inputs"):
        srd.evaluate_per_group(frame, metrics=["mrr"]).compute()


def test_in_pool_reaches_the_partitions():
    rng = np.random.default_rng(3)
    rows = ROWS.assign(in_pool=ROWS["judged"] | (rng.random(len(ROWS)) < 0.5))
    want = sklearn_rank.evaluate(
        rows["label"].to_numpy(),
        rows["score"].to_numpy(),
        groups=rows["qid"].to_numpy(),
        judged=rows["judged"].to_numpy(),
        in_pool=rows["in_pool"].to_numpy(),
        metrics=["infap"],
        ties="stable",
    )
    without = sklearn_rank.evaluate(
        rows["label"].to_numpy(),
        rows["score"].to_numpy(),
        groups=rows["qid"].to_numpy(),
        judged=rows["judged"].to_numpy(),
        metrics=["infap"],
        ties="stable",
    )
    assert want != without  # in_pool changes the value: the test can fail
    frame = dd.from_pandas(rows, npartitions=3, sort=False)
    with dask.config.set(SYNC):
        got = srd.evaluate(
            frame, metrics=["infap"], judged="judged", in_pool="in_pool", ties="stable"
        )
    assert_close(got, want)


def test_npartitions_and_several_score_columns():
    rows = ROWS.assign(other=-ROWS["score"])
    frame = dd.from_pandas(rows, npartitions=3, sort=False)
    with dask.config.set(SYNC):
        per_group = srd.evaluate_per_group(
            frame, ["score", "other"], metrics=["map"], npartitions=7
        )
        assert per_group["score"].npartitions == 7
        found = srd.evaluate(frame, ["score", "other"], metrics=["map"], npartitions=7)
    for col in ("score", "other"):
        expected = sklearn_rank.evaluate(
            rows["label"].to_numpy(),
            rows[col].to_numpy(),
            groups=rows["qid"].to_numpy(),
            metrics=["map"],
        )
        assert_close(found[col], expected)
    with pytest.raises(ValueError, match="'npartitions'"):
        srd.evaluate(frame, npartitions=0)


def test_client_and_progress(client, capsys):
    frame = dd.from_pandas(ROWS, npartitions=3, sort=False)
    expected, _ = in_memory(ROWS, ["map"], {})
    found = srd.evaluate(
        frame, metrics=["map"], **COLUMNS, client=client, progress=True
    )
    assert_close(found, expected)
    with pytest.raises(ValueError, match="'client'"):
        srd.evaluate(frame, client="tcp://nowhere")


@pytest.mark.parametrize(
    "extra", [["-D", "0.{qid}"], ["-Z", "{z}"], ["-Z", "{z}", "-q"]], ids=str
)
def test_cli_engine_dask_debug_query_and_zscores(client, tmp_path, capsys, extra):
    directory, single = _parquet_dataset(tmp_path)
    qid = str(ROWS.loc[ROWS["label"] > 0, "qid"].iloc[0])
    z = tmp_path / "z.txt"
    z.write_text("".join(f"{q} map 0.3 0.2\n" for q in ROWS["qid"].unique()))
    extra = [e.format(qid=qid, z=z) for e in extra]
    common = ["-m", "map", "--quiet", "--undefined", "0", *extra]
    status, memory, _ = _cli(["eval", str(single), *common], capsys)
    assert status == 0
    address = client.scheduler.address
    status, found, err = _cli(
        ["eval", str(directory), "--engine", "dask", "--scheduler", address, *common],
        capsys,
    )
    assert status == 0, err
    assert found == memory


def test_cli_engine_dask_reads_and_shuffles_once(client, tmp_path, monkeypatch):
    from sklearn_rank._cli import _dask_engine

    directory, _ = _parquet_dataset(tmp_path)
    calls = []
    real = dask.compute
    monkeypatch.setattr(
        dask, "compute", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    import argparse

    args = argparse.Namespace(
        files=[str(directory)],
        score_col=["score", "other"],
        query_col="qid",
        label_col="label",
        debug=None,
        partitioned_by_query=False,
    )
    found = _dask_engine.per_run(args, ["map"], {"undefined": 0.0})
    assert len(calls) == 1
    assert set(found) == {"score", "other"}


def test_workers_that_die_give_a_clear_error(monkeypatch):
    # distributed raises KilledWorker once a task's workers died (over their
    # memory limit, most often) as many times as it allows: the call says what
    # to change instead of passing that on.
    class KilledWorker(Exception):  # distributed's, as the call sees its name
        pass

    def killed(*args, **kwargs):
        raise KilledWorker("('shuffle', 0) died on 4 workers")

    monkeypatch.setattr(dask, "compute", killed)
    frame = dd.from_pandas(ROWS, npartitions=2)
    with pytest.raises(MemoryError, match=r"npartitions=.*partitioned_by_group"):
        srd.evaluate(frame, metrics=["map"])
