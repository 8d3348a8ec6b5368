"""``sklearn-rank demo``: model selection on the bundled LambdaRank sample.

The main job; ``sklearn-rank`` (or ``python -m sklearn_rank``) with no subcommand
runs it too. It runs ``GridSearchCV`` with ``GroupKFold`` over the training queries
for a gradient-boosted and a linear scikit-learn regressor (and for ``LGBMRanker``
through :class:`~sklearn_rank.GroupedRanker` when lightgbm is installed), scoring
every fold per query with one multi-metric scorer, then scores each refit model on
the held-out test queries, prints a table and compares the models pairwise on
those queries.
"""

from __future__ import annotations

import argparse
import importlib.util
import time

from . import _plotting

NAME = "demo"
HELP = "model selection on the bundled LambdaRank sample (the default command)"

METRICS = {
    "ndcg@10": "NDCG@10",
    "map": "MAP",
    "mrr": "MRR",
    "precision@10": "P@10",
    "gauc": "GAUC",
}
REFIT = "ndcg@10"


DESCRIPTION = (
    "Model selection for learning to rank with scikit-learn: GridSearchCV "
    "with GroupKFold over the training queries of the bundled LambdaRank "
    "sample, scored per query (NDCG@10, MAP, MRR, P@10, GAUC), then the "
    "refit models scored on the test queries."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The demo's options (on the top-level parser too, for the bare command)."""
    parser.add_argument(
        "--folds",
        type=int,
        default=None,
        help="GroupKFold splits over the training queries (default: 3, 2 with --fast)",
    )
    parser.add_argument(
        "--fast",
        action="store_true",
        help="one small candidate per model and 2 folds: a smoke run of a few seconds",
    )
    parser.add_argument(
        "--no-lightgbm",
        action="store_true",
        help="skip LGBMRanker even when lightgbm is installed",
    )
    parser.add_argument(
        "--n-jobs",
        type=int,
        default=1,
        help="fits run in parallel, each single-threaded (default: 1)",
    )
    _plotting.add_plot_argument(parser)  # --plot FILE: the held-out comparison


def _candidates(fast, use_lightgbm):
    """(label, estimator, parameter grid) for each model of the search."""
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from .._sklearn.rankers import GroupedRanker

    hgb_grid = (
        {"max_iter": [20], "max_leaf_nodes": [15]}
        if fast
        else {"max_iter": [50, 100], "max_leaf_nodes": [15, 31]}
    )
    models = [
        (
            "HistGradientBoostingRegressor",
            HistGradientBoostingRegressor(early_stopping=False, random_state=0),
            hgb_grid,
        ),
        (
            "Ridge (linear)",
            make_pipeline(StandardScaler(), Ridge()),
            {"ridge__alpha": [100.0]} if fast else {"ridge__alpha": [10.0, 1000.0]},
        ),
    ]
    if use_lightgbm:
        from lightgbm import LGBMRanker

        ranker = GroupedRanker(LGBMRanker(n_jobs=1, verbose=-1, random_state=0))
        grid = (
            {"estimator__n_estimators": [20], "estimator__num_leaves": [15]}
            if fast
            else {
                "estimator__n_estimators": [50, 100],
                "estimator__num_leaves": [15, 31],
            }
        )
        models.append(("LGBMRanker (GroupedRanker)", ranker, grid))
    return models


def _table(header, rows, n_text=1):
    """Text columns (the first ``n_text``) left-aligned, numbers right-aligned."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(cells):
        padded = [
            str(cell).ljust(width) if i < n_text else str(cell).rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(padded).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in rows)])


def _params_text(params):
    return ", ".join(
        f"{name.removeprefix('estimator__').removeprefix('ridge__')}={value}"
        for name, value in params.items()
    )


def _say(text=""):
    print(text, flush=True)


def _header(train, test, folds, has_lightgbm, skip_lightgbm):
    """The lines that say what data and search the job runs."""
    import numpy as np

    n_train_q, n_test_q = len(np.unique(train.groups)), len(np.unique(test.groups))
    _say("sklearn-rank: model selection for ranking on the bundled LambdaRank sample")
    _say(
        f"data: {n_train_q} training queries ({len(train.target)} rows), "
        f"{n_test_q} test queries ({len(test.target)} rows), "
        f"{train.data.shape[1]} features, relevance grades 0-4"
    )
    _say(
        f"search: GridSearchCV, GroupKFold(n_splits={folds}) over training queries, "
        f"metrics {', '.join(METRICS.values())} per query, refit on {METRICS[REFIT]}"
    )
    if not has_lightgbm and not skip_lightgbm:
        _say(
            "note: lightgbm is not installed, so LGBMRanker is skipped "
            "(pip install 'sklearn-rank[lightgbm]')"
        )
    _say()
    return n_test_q


def _search_all(models, scorer, train, test, folds, n_jobs):
    """Fit one GridSearchCV per model; return (label, search, test scores)."""
    import numpy as np
    import sklearn
    from sklearn.model_selection import GridSearchCV, GroupKFold
    from threadpoolctl import threadpool_limits

    results = []
    # Single-threaded fits: OpenMP threads of several fits (or of other programs)
    # competing for two cores slow a search down by an order of magnitude.
    with (
        threadpool_limits(limits=1),
        sklearn.config_context(enable_metadata_routing=True),
    ):
        for step, (label, estimator, grid) in enumerate(models, start=1):
            n_candidates = int(np.prod([len(v) for v in grid.values()]))
            _say(
                f"[{step}/{len(models)}] {label}: {n_candidates} "
                f"candidate{'s' if n_candidates != 1 else ''} x "
                f"{folds} folds = {n_candidates * folds} fits, then refit ..."
            )
            tic = time.perf_counter()
            search = GridSearchCV(
                estimator,
                grid,
                scoring=scorer,
                refit=REFIT,
                cv=GroupKFold(n_splits=folds),
                n_jobs=n_jobs,
                error_score="raise",
            ).fit(train.data, train.target, groups=train.groups)
            cv = search.cv_results_
            best = search.best_index_
            _say(
                f"      done in {time.perf_counter() - tic:.1f}s; best "
                f"{_params_text(search.best_params_)}: CV {METRICS[REFIT]} "
                f"{cv[f'mean_test_{REFIT}'][best]:.4f} "
                f"(SD over {folds} folds {cv[f'std_test_{REFIT}'][best]:.4f})"
            )
            test_scores = scorer(
                search.best_estimator_, test.data, test.target, groups=test.groups
            )
            results.append((label, search, test_scores))
    return results


def _print_results(results, baseline, folds, n_test_q, n_test_rows):
    """The cross-validation table and the held-out table."""
    _say()
    _say(f"Cross-validation on the training queries (mean over {folds} folds)")
    header = ["model", "best parameters", *METRICS.values()]
    rows = [
        [
            label,
            _params_text(search.best_params_),
            *(
                f"{search.cv_results_[f'mean_test_{m}'][search.best_index_]:.4f}"
                for m in METRICS
            ),
        ]
        for label, search, _ in results
    ]
    _say(_table(header, rows, n_text=2))
    _say()
    _say(f"Held-out test queries ({n_test_q} queries, {n_test_rows} rows)")
    header = ["model", *METRICS.values()]
    rows = [["random scores (baseline)", *(f"{baseline[m]:.4f}" for m in METRICS)]]
    rows += [
        [label, *(f"{scores[m]:.4f}" for m in METRICS)] for label, _, scores in results
    ]
    _say(_table(header, rows))
    _say()
    _say("Every metric is computed per query, then averaged over queries.")
    _say("Relevant = grade > 0 for MAP, MRR, P@10 and GAUC; NDCG gains 2**grade - 1.")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the main job and print its progress and result tables.

    Returns
    -------
    status : int
        0 on success (usage errors exit 2 through ``parser.error``).
    """
    folds = args.folds if args.folds is not None else (2 if args.fast else 3)
    if folds < 2:
        parser.error(f"--folds must be at least 2; got {folds}")
    if args.n_jobs == 0:
        parser.error("--n-jobs must not be 0 (use 1, 2, ... or -1 for all)")
    _plotting.check_args(args, parser)
    # scikit-learn and the models load here, not when the CLI starts, so that
    # `sklearn-rank eval` never pays for them.
    import numpy as np

    from .._metrics.evaluate import evaluate
    from .._sklearn.scorer import make_ranking_scorer
    from ..datasets import load_lambdarank

    has_lightgbm = importlib.util.find_spec("lightgbm") is not None
    start = time.perf_counter()
    train = load_lambdarank(subset="train")
    test = load_lambdarank(subset="test")
    n_test_q = _header(train, test, folds, has_lightgbm, args.no_lightgbm)
    scorer = make_ranking_scorer(list(METRICS))
    models = _candidates(args.fast, has_lightgbm and not args.no_lightgbm)
    results = _search_all(models, scorer, train, test, folds, args.n_jobs)
    random_scores = np.random.default_rng(0).random(len(test.target))
    baseline = evaluate(
        test.target, random_scores, groups=test.groups, metrics=list(METRICS)
    )
    _print_results(results, baseline, folds, n_test_q, len(test.target))
    _print_comparison(results, random_scores, test)
    if args.plot is not None:
        saved = _plotting.save_demo_figure(args, results, random_scores, test)
        _say(f"figure saved to {saved}")
    _say(f"total time {time.perf_counter() - start:.1f}s")
    return 0


def _print_comparison(results, random_scores, test):
    """Is the better model really better? Paired tests on the same test queries."""
    from ..stats import compare

    scores = {
        label: search.best_estimator_.predict(test.data) for label, search, _ in results
    }
    scores["random scores (baseline)"] = random_scores
    report = compare(
        test.target,
        scores,
        groups=test.groups,
        metrics=list(METRICS),
        random_state=0,
    )
    _say()
    _say(
        "Paired comparison on the held-out queries: mean difference per query with "
        "its 95% bootstrap CI, randomization-test p-value (<= 0.0001: none of the "
        f"{report.n_resamples} resamples as extreme), Holm-adjusted over "
        f"{report.family}, wins / ties / losses over queries"
    )
    _say(str(report))
