"""Generate docs/parity.md from real runs of trec_eval, scikit-learn, LightGBM and
XGBoost next to sklearn_rank with the matching convention preset.

    python docs/make_parity_matrix.py           # rewrite docs/parity.md
    python docs/make_parity_matrix.py --check   # exit 1 if docs/parity.md is stale

Every number in the value tables is computed here: trec_eval through pytrec_eval
(its C code), ``sklearn.metrics``, LightGBM's own metrics on a booster whose scores
are the given ones (``init_score``, no trees), XGBoost's own metrics on a booster
with ``base_margin`` set and no trees. Needs the ``test`` extra installed.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

import lightgbm as lgb
import numpy as np
import pytrec_eval
import xgboost as xgb
from sklearn.metrics import average_precision_score, ndcg_score

from sklearn_rank import evaluate
from sklearn_rank._engine.conventions import PRESETS, preset_values
from sklearn_rank.io import read_qrels, read_run, trec_arrays

OUT = Path(__file__).with_name("parity.md")
LIBRARIES = ("trec_eval", "sklearn", "lightgbm", "xgboost")
TITLES = {
    "trec_eval": "trec_eval",
    "sklearn": "scikit-learn",
    "lightgbm": "LightGBM",
    "xgboost": "XGBoost",
}


@dataclass
class Measure:
    """One metric, named in sklearn_rank and in each library (None: not offered)."""

    label: str
    ours: str
    trec_eval: str | None = None  # pytrec_eval measure, e.g. "P.5"
    sklearn: Callable | None = None  # f(y, s) for one group
    lightgbm: str | None = None  # e.g. "ndcg@2"
    xgboost: str | None = None  # e.g. "pre@5"
    judged_only: bool = False  # trec_eval -J (pytrec_eval judged_docs_only_flag)


@dataclass
class Case:
    title: str
    why: str
    y: list[float]
    s: list[float]
    groups: list[int] | None = None
    measures: list[Measure] = field(default_factory=list)
    judged: list[bool] | None = None  # False: no qrels line for the document


def _sk_ndcg(k=None):
    return lambda y, s: float(ndcg_score([y], [s], k=k))


def _sk_ap(y, s):
    return float(average_precision_score(np.asarray(y) > 0, s))


NDCG_FULL = Measure("NDCG", "ndcg", "ndcg", _sk_ndcg(), "ndcg@1000", "ndcg")
CASES = [
    Case(
        "P@5 of a 2-document list, relevant first",
        "P@k denominator: k (trec_eval) or min(k, n) (XGBoost).",
        [1, 0],
        [2, 1],
        measures=[Measure("P@5", "precision@5", "P.5", xgboost="pre@5")],
    ),
    Case(
        "AP@2 with 4 relevant documents, one hit at rank 1",
        "AP@k denominator: R (trec_eval) or min(k, R) (LightGBM, XGBoost).",
        [1, 0, 1, 1, 1],
        [5, 4, 3, 2, 1],
        measures=[Measure("AP@2", "map@2", "map_cut.2", None, "map@2", "map@2")],
    ),
    Case(
        "A query without a relevant document",
        "Undefined groups: 0 and counted (trec_eval, scikit-learn), 1 (LightGBM, "
        "XGBoost), skipped (sklearn_rank default; NaN when every group is skipped).",
        [0, 0, 0],
        [3, 2, 1],
        measures=[
            NDCG_FULL,
            Measure("AP", "map", "map", None, "map@1000", "map"),
        ],
    ),
    Case(
        "Two tied scores, the relevant document second in input order",
        "Ties: docno descending (trec_eval; documents are named d1, d2, … in input "
        "order, so d2 ranks first), input order (LightGBM, XGBoost), averaged over "
        "orders (scikit-learn NDCG, sklearn_rank default).",
        [0, 1],
        [1, 1],
        measures=[
            Measure("NDCG@1", "ndcg@1", "ndcg_cut.1", _sk_ndcg(1), "ndcg@1", "ndcg@1"),
            NDCG_FULL,
        ],
    ),
    Case(
        "Graded labels 1 and 3, the better document second",
        "Gain: the grade (trec_eval, scikit-learn) or 2^grade - 1 (LightGBM, XGBoost, "
        "sklearn_rank default).",
        [1, 3],
        [2, 1],
        measures=[NDCG_FULL],
    ),
    Case(
        "Average precision with a tie block",
        "scikit-learn's average_precision_score treats a tie block as one "
        "threshold; sklearn_rank's default averages over the orders of the block, "
        'and ties="threshold" (the "sklearn" preset) reads it as one threshold.',
        [0, 1, 0, 1],
        [2, 1, 1, 0],
        measures=[Measure("AP", "map", "map", _sk_ap, "map@1000", "map")],
    ),
    Case(
        "Grouped AUC: a 2-row group in the wrong order and a 3-row group in order",
        "XGBoost's ranking AUC drops groups of fewer than 3 rows; sklearn_rank's "
        "gauc keeps every group with both classes.",
        [1, 0, 1, 0, 0],
        [0, 1, 3, 2, 1],
        groups=[0, 0, 1, 1, 1],
        measures=[Measure("GAUC", "gauc", xgboost="auc")],
    ),
    Case(
        "Grouped AUC with graded labels 1, 1, 0, 0 ranked worst first",
        "XGBoost's ranking AUC compares pairs of rows with equal labels too; "
        "sklearn_rank's gauc compares relevant with non-relevant rows only.",
        [1, 1, 0, 0],
        [1, 2, 4, 3],
        measures=[Measure("GAUC", "gauc", xgboost="auc")],
    ),
    Case(
        "Unjudged documents at ranks 1 and 4 (no qrels line)",
        "bpref reads judged documents only; trec_eval's -J (judged_only=True) drops "
        "the unjudged documents before every measure, so P@2 is read on d2, d3.",
        [0, 1, 1, 0, 0, 1],
        [6, 5, 4, 3, 2, 1],
        judged=[False, True, True, False, True, True],
        measures=[
            Measure("bpref", "bpref", "bpref"),
            Measure("P@2", "precision@2", "P.2"),
            Measure("P@2 with -J", "precision@2", "P.2", judged_only=True),
            Measure("AP", "map", "map"),
            Measure("AP with -J", "map", "map", judged_only=True),
        ],
    ),
]


# -- the libraries ------------------------------------------------------------------
def _split(case: Case):
    groups = np.zeros(len(case.y), int) if case.groups is None else case.groups
    groups = np.asarray(groups)
    return np.asarray(case.y, float), np.asarray(case.s, float), groups


def _judged(case: Case) -> np.ndarray:
    return np.ones(len(case.y), bool) if case.judged is None else np.array(case.judged)


def _docnames(groups: np.ndarray) -> list[str]:
    names, seen = [], {}
    for g in groups.tolist():
        seen[g] = seen.get(g, 0) + 1
        names.append(f"d{seen[g]}")
    return names


def run_trec_eval(case: Case, measure: str, judged_only: bool = False) -> float:
    y, s, groups = _split(case)
    qrels, run = {}, {}
    rows = zip(groups, _docnames(groups), y, s, _judged(case), strict=True)
    for g, doc, label, score, judged in rows:
        if judged:
            qrels.setdefault(f"q{g}", {})[doc] = int(label)
        run.setdefault(f"q{g}", {})[doc] = float(score)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {measure}, judged_docs_only_flag=judged_only
    )
    result = evaluator.evaluate(run)
    key = measure.replace(".", "_")
    return float(np.mean([values[key] for values in result.values()]))


def run_sklearn(case: Case, func: Callable) -> float:
    y, s, _ = _split(case)
    return func(y.tolist(), s.tolist())


def _sizes(groups: np.ndarray) -> list[int]:
    return np.unique(groups, return_counts=True)[1].tolist()


def run_lightgbm(case: Case, metric: str) -> float:
    y, s, groups = _split(case)
    name, k = metric.split("@")
    data = lgb.Dataset(
        np.zeros((y.size, 1)),
        y,
        group=_sizes(groups),
        init_score=s,
        params={"verbose": -1},
    )
    params = {"objective": "lambdarank", "metric": name, "eval_at": [int(k)]}
    booster = lgb.Booster({**params, "verbose": -1}, train_set=data)
    (result,) = booster.eval_train()
    return float(result[2])


def run_xgboost(case: Case, metric: str) -> float:
    y, s, groups = _split(case)
    data = xgb.DMatrix(np.zeros((y.size, 1)), label=y, qid=groups)
    data.set_base_margin(s)
    params = {"objective": "rank:ndcg", "eval_metric": [metric], "nthread": 1}
    booster = xgb.train(params, data, num_boost_round=0)
    text = booster.eval(data)
    return float(re.search(r":([-0-9.eE+na]+)$", text.strip()).group(1))


def run_ours(
    case: Case, name: str, convention: str | None, judged_only: bool = False
) -> float:
    y, s, groups = _split(case)
    judged = _judged(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # all groups undefined -> NaN, shown as such
        if convention != "trec_eval":
            result = evaluate(
                y,
                s,
                groups=groups,
                judged=judged,
                metrics=[name],
                convention=convention,
                judged_only=judged_only,
            )
            return result[name]
        # trec_eval's tie rule needs rows in its order: go through the TREC readers,
        # which also fill ``judged`` from the qrels.
        docs = _docnames(groups)
        lines = zip(groups, docs, y, judged, strict=True)
        qrels = "".join(f"q{g} 0 {d} {int(v)}\n" for g, d, v, j in lines if j)
        run = "".join(
            f"q{g} Q0 {d} 0 {float(v)!r} r\n"
            for g, d, v in zip(groups, docs, s, strict=True)
        )
        t = trec_arrays(read_qrels(io.StringIO(qrels)), read_run(io.StringIO(run)))
        result = evaluate(
            t.y_true,
            t.y_score,
            groups=t.groups,
            retrieved=t.retrieved,
            judged=t.judged,
            metrics=[name],
            convention="trec_eval",
            judged_only=judged_only,
        )
        return result[name]


RUNNERS = {
    "trec_eval": run_trec_eval,
    "sklearn": run_sklearn,
    "lightgbm": run_lightgbm,
    "xgboost": run_xgboost,
}


# -- the page -----------------------------------------------------------------------
def _fmt(value: float | None) -> str:
    if value is None:
        return "—"
    if np.isnan(value):
        return "NaN"
    return f"{value:.4f}"


def _case_table(case: Case) -> list[str]:
    head = ["measure", "sklearn_rank default"]
    for lib in LIBRARIES:
        head += [TITLES[lib], f'`"{lib}"` preset']
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for m in case.measures:
        flag = {"judged_only": True} if m.judged_only else {}
        row = [m.label, _fmt(run_ours(case, m.ours, None, **flag))]
        for lib in LIBRARIES:
            spec = getattr(m, lib)
            theirs = None if spec is None else RUNNERS[lib](case, spec, **flag)
            ours = run_ours(case, m.ours, lib, **flag)
            same = theirs is None or abs(theirs - ours) < 1e-9
            row += [_fmt(theirs), _fmt(ours) + ("" if same else " ≠")]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def _presets_table() -> list[str]:
    names = ["sklearn_rank", *LIBRARIES]
    names += [n for n in PRESETS if n not in names]
    keys = list(preset_values("sklearn_rank"))
    lines = [
        "| keyword | " + " | ".join(f'`"{n}"`' for n in names) + " |",
        "|" + "---|" * (len(names) + 1),
    ]
    for key in keys:
        cells = [f"`{preset_values(n)[key]!r}`".replace("'", '"') for n in names]
        lines.append(f"| `{key}` | " + " | ".join(cells) + " |")
    return lines


def _variant(name: str, metric: str) -> str:
    """The formula variant a preset selects for one metric, in words."""
    c = preset_values(name)
    ties = {
        "average": "ties averaged over orders",
        "stable": "ties in input order",
        "pessimistic": "ties worst first",
        "optimistic": "ties best first",
        "threshold": "a tie block is one threshold (AP: precision at its end; "
        "NDCG: averaged)",
    }[c["ties"]]
    if name == "trec_eval":
        ties = "ties by docno descending (rows from sklearn_rank.io, stable)"
    if isinstance(c["undefined"], str):
        undefined = f"no relevant: {'skipped' if c['undefined'] == 'skip' else 'error'}"
    else:
        undefined = f"no relevant: {c['undefined']:g}, counted"
    gain = "2^y - 1" if c["gain"] == "exponential" else "y"
    if metric == "ndcg@k":
        return f"gain {gain}, discount 1/log2(p+1); {ties}; {undefined}"
    if metric == "precision@k":
        denom = "k" if c["precision_denominator"] == "k" else "min(k, n)"
        return f"hits / {denom}; {ties}; {undefined}"
    if metric == "map@k":
        denom = "R" if c["ap_denominator"] == "n_relevant" else "min(k, R)"
        return f"Σ precision at hits / {denom}; {ties}; {undefined}"
    if metric == "gauc":
        weights = {
            "rows": "by their number of rows",
            "uniform": "equally",
            "positives": "by their number of relevant rows",
        }[c["weights"]]
        return f"per-group AUC, groups weighted {weights}"
    raise ValueError(metric)


OFFERED = {  # metric -> library -> the library's own name for it (None: not offered)
    "ndcg@k": {
        "trec_eval": "ndcg_cut.k",
        "sklearn": "ndcg_score(k=k)",
        "lightgbm": "ndcg@k",
        "xgboost": "ndcg@k",
    },
    "precision@k": {
        "trec_eval": "P.k",
        "sklearn": None,
        "lightgbm": None,
        "xgboost": "pre@k",
    },
    "map@k": {
        "trec_eval": "map_cut.k",
        "sklearn": None,
        "lightgbm": "map@k",
        "xgboost": "map@k",
    },
    "gauc": {"trec_eval": None, "sklearn": None, "lightgbm": None, "xgboost": "auc"},
}


def _variants_table() -> list[str]:
    names = ["sklearn_rank", *LIBRARIES]
    head = ["metric", "sklearn_rank default"] + [TITLES[n] for n in LIBRARIES]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for metric, offered in OFFERED.items():
        cells = [f"`{metric}`"]
        for n in names:
            own = "`" + metric + "`" if n == "sklearn_rank" else offered[n]
            cells.append(
                "not offered" if own is None else f"`{own}`: {_variant(n, metric)}"
            )
        lines.append("| " + " | ".join(cells).replace("``", "`") + " |")
    return lines


INTRO = """\
Each convention preset (`convention=` on every metric, `evaluate` and the scorers)
sets the keywords the way one library computes its metrics; any keyword given
explicitly still wins. The formulas are defined in [metrics.md](metrics.md)
sections 4 and 5; this page shows them side by side and the values each library
really returns on a handful of small cases.
"""

TESTING = """\
- trec_eval: `tests/test_trec_eval_parity.py` reproduces trec_eval's own test
  outputs (`out.test.aq`, `.aqc`, `.aql`, `.meas_params`) per topic and mean at the
  printed 4 decimals, with the keywords and with `convention="trec_eval"`;
  `tests/test_pytrec_eval_differential.py` agrees with pytrec_eval to 1e-12 on
  random qrels/runs with ties, unretrieved relevant and unjudged documents.
- scikit-learn: `ndcg_score`/`dcg_score` on equal-length groups with ties, cutoffs
  and sample weights (`tests/test_library_parity.py`).
- LightGBM and XGBoost: their own eval metrics on small models trained on random
  data, whose tree scores hold many ties (`tests/test_library_parity.py`).
"""

QUIRKS = """\
Differences kept on purpose, each pinned by a test:

1. **Weighted NDCG in LightGBM and XGBoost.** A group without a relevant row adds an
   *unweighted* 1.0 to the weighted sum while its weight still enters the sum of
   weights (LightGBM `rank_metric.hpp`, weighted branch; XGBoost `NDCGScoreCpu`).
   sklearn_rank weights that group's 1.0 like any other value.
   `test_library_parity.py::test_lightgbm_weighted_ndcg_quirk`,
   `::test_xgboost_weighted_ndcg_quirk`.
2. **XGBoost's `pre@k` scores 0** (not 1) for a group without a relevant row, while
   its `ndcg` and `map` score 1. The `"xgboost"` preset follows `ndcg`/`map`; pass
   `undefined=0.0` to reproduce `pre@k`.
   `test_library_parity.py::test_xgboost_map_and_precision`.
3. **trec_eval's relevance level (`-l`) does not reach `ndcg`.** Its ndcg uses every
   positive grade as gain whatever the level, so under `-l2` a topic whose best grade
   is 1 has an ndcg above 0. sklearn_rank decides undefined groups with the same
   `relevance_threshold` for every metric, so that topic is undefined (0 under the
   preset). trec_eval's own test suite (`out.test.aql`) has no such topic and
   reproduces. `test_pytrec_eval_differential.py::test_ndcg_relevance_level_quirk`.
4. **trec_eval breaks ties by docno**, which sklearn_rank cannot see; the TREC readers
   emit rows in trec_eval's order and the `"trec_eval"` preset's `ties="stable"` keeps
   it. Rows built by hand in another order give other values on ties.
5. **scikit-learn's `average_precision_score`** treats a tie block as one threshold
   (case "Average precision with a tie block" above); sklearn_rank's default
   `ties="average"` is the exact expectation over the block's orders, which
   scikit-learn's NDCG uses too. The `"sklearn"` preset sets `ties="threshold"`,
   which reads AP (and LRAP) at the end of each block and equals `"average"` for
   NDCG/DCG: `tests/test_sklearn_ties.py` checks both on every group.
6. **XGBoost's grouped AUC** drops groups of fewer than 3 rows and compares pairs
   with equal labels (the two GAUC cases above); sklearn_rank's `gauc` does neither.
7. **LightGBM has no whole-list NDCG or MAP**: the tables use `ndcg@1000` and
   `map@1000`, equal to the whole list for these short lists.
"""


def build() -> str:
    lines = [
        "# Parity with trec_eval, scikit-learn, LightGBM and XGBoost",
        "",
        "<!-- Generated by docs/make_parity_matrix.py from real runs; do not edit. -->",
        "",
        INTRO,
        "Versions used: "
        + ", ".join(
            f"{p} {version(p)}"
            for p in (
                "scikit-learn",
                "lightgbm",
                "xgboost",
                "pytrec-eval-terrier",
                "numpy",
            )
        )
        + ".",
        "",
        "## Presets",
        "",
        *_presets_table(),
        "",
        "## Formula variant per metric and library",
        "",
        "p is the 1-based position, n the list length, R the number of relevant rows",
        "(trec_eval: judged relevant, retrieved or not).",
        "",
        *_variants_table(),
        "",
        "## Values on small cases",
        "",
        "One query unless stated. For each library: its own value, then sklearn_rank",
        "with that library's preset (≠ marks a documented difference, see below).",
        "— means the library has no such metric. Labels and scores are listed in",
        "input order.",
        "",
    ]
    for number, case in enumerate(CASES, 1):
        lines += [
            f"### {number}. {case.title}",
            "",
            f"labels {case.y}, scores {case.s}"
            + ("" if case.groups is None else f", groups {case.groups}")
            + f". {case.why}",
            "",
            *_case_table(case),
            "",
        ]
    lines += [
        "## How the presets are tested",
        "",
        TESTING,
        "## Documented quirks",
        "",
        QUIRKS,
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    text = build()
    if args.check:
        if OUT.read_text() != text:
            print(f"{OUT} is stale: run python docs/make_parity_matrix.py")
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
