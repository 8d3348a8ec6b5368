"""Comparison reports as a paper's tables: LaTeX (booktabs) and Markdown."""

import re
import warnings

import numpy as np
import pytest

from sklearn_rank._cli import main
from sklearn_rank.stats import compare


@pytest.fixture(scope="module")
def report():
    rng = np.random.default_rng(0)
    n = 40 * 10
    groups = np.repeat(np.arange(40), 10)
    y = rng.integers(0, 2, n)
    scores = {
        "bm25": rng.random(n),
        "dense": rng.random(n) + 0.6 * y,
        "hy_brid & co": rng.random(n) + 0.3 * y,
        "same": rng.random(n),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare(
            y,
            scores,
            groups=groups,
            metrics=["ndcg@10", "map", "fallout@5"],
            n_resamples=499,
            random_state=0,
        )


def _expected_marks(report):
    """{(model, metric): letters} straight from the report's pairs."""
    models = list(dict.fromkeys(m.model for m in report.models))
    letter = {m: "abcdefghijklmnopqrstuvwxyz"[i] for i, m in enumerate(models)}
    out = {}
    for p in report.pairs:
        if p.p_adjusted > report.alpha or p.mean_diff == 0:
            continue
        loss = p.metric.startswith("fallout")
        model_better = (p.mean_diff < 0) if loss else (p.mean_diff > 0)
        win, lose = (p.model, p.baseline) if model_better else (p.baseline, p.model)
        out.setdefault((win, p.metric), set()).add(letter[lose])
    return out


def _markdown_cells(text):
    lines = [ln for ln in text.splitlines() if ln.startswith("| ")]
    header = [c.strip() for c in lines[0].strip("|").split(" | ")]
    rows = {}
    for line in lines[1:]:
        cells = [c.strip() for c in re.split(r"(?<!\\) \| ", line.strip("| "))]
        rows[cells[1].replace("\\|", "|")] = dict(
            zip(header[2:], cells[2:], strict=True)
        )
    return rows


def test_markdown_bold_best_and_marks(report):
    rows = _markdown_cells(report.to_markdown())
    marks = _expected_marks(report)
    assert marks, "the fixture should have significant pairs"
    for metric in ["ndcg@10", "map", "fallout@5"]:
        means = {m.model: m.mean for m in report.models if m.metric == metric}
        best = (min if metric.startswith("fallout") else max)(means, key=means.get)
        for model, cell in rows.items():
            assert cell[metric].startswith("**") == (model == best), (metric, cell)
            sup = re.search(r"<sup>(\w+)</sup>", cell[metric])
            got = set(sup.group(1)) if sup else set()
            assert got == marks.get((model, metric), set()), (model, metric)
            number = float(re.sub(r"[*]|<sup>\w+</sup>", "", cell[metric]))
            assert number == pytest.approx(means[model], abs=5e-5)


def test_latex_booktabs_escapes_and_caption(report):
    text = report.to_latex(digits=3)
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\caption{"):
        assert rule in text
    assert r"hy\_brid \& co" in text
    assert "randomization test" in text and "holm correction" in text
    assert text.count(r"\textbf{") == 3  # one best per metric
    assert re.search(r"\\textbf\{0\.\d{3}\}\$\^\{[a-d]+\}\$", text)


def test_baseline_only_marks_against_it():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 300)
    groups = np.repeat(np.arange(30), 10)
    scores = {
        "base": rng.random(300),
        "a": rng.random(300) + y,
        "b": rng.random(300) + y,
    }
    report = compare(y, scores, groups=groups, metrics=["map"], baseline="base",
                     n_resamples=499, random_state=0)  # fmt: skip
    rows = _markdown_cells(report.to_markdown())
    assert rows["a"]["map"].endswith("<sup>a</sup>")  # a is better than base (a)
    assert "<sup>" not in rows["base"]["map"]
    assert "against the baseline base only" in report.to_markdown()


def test_cli_compare_format_latex_and_markdown(tmp_path, capsys):
    rng = np.random.default_rng(2)
    qrels = tmp_path / "qrels"
    runs = [tmp_path / "r1", tmp_path / "r2"]
    qrels.write_text(
        "".join(f"q{q} 0 d{d} {int(d < 3)}\n" for q in range(8) for d in range(10))
    )
    for i, path in enumerate(runs):
        path.write_text(
            "".join(
                f"q{q} Q0 d{d} 0 {rng.random() + (i * (d < 3)):.4f} r{i}\n"
                for q in range(8)
                for d in range(10)
            )
        )
    for fmt, sign in (("latex", r"\toprule"), ("markdown", "| # | Model |")):
        argv = ["compare", "-m", "map", "--format", fmt, "--quiet", str(qrels)]
        assert main(argv + [str(p) for p in runs]) == 0
        out = capsys.readouterr().out
        assert sign in out
