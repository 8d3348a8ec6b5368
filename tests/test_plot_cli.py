"""The command line's --segment-col and --plot (eval, compare, the main job)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")
pd = pytest.importorskip("pandas")

from sklearn_rank import evaluate_by_segment  # noqa: E402
from sklearn_rank._cli import main  # noqa: E402

DATA = Path(__file__).parent / "data" / "trec_eval"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    n = 600
    q = rng.integers(0, 40, n)
    y = rng.integers(0, 3, n)
    frame = pd.DataFrame(
        {
            "qid": q,
            "label": y,
            "a": y + rng.normal(size=n),
            "b": rng.normal(size=n),
            "cohort": np.where(q % 3 == 0, "new", "old"),
        }
    )
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    return str(path), frame


def _segment_rows(text: str, name: str, metric: str) -> dict[str, list[str]]:
    """segment -> [groups, value, ...] of run ``name`` in the block of ``metric``
    of the per-segment report."""
    report = text.split("per segment of cohort:\n", 1)[1]
    blocks = report.split("\n\n")
    block = next(b for b in blocks if b.splitlines()[0].split()[3] == metric)
    rows = [line.split() for line in block.splitlines()[1:]]
    return {r[0]: r[2:] for r in rows if r[1] == name}


def test_eval_segment_tables_and_figure(table, tmp_path, capsys):
    path, frame = table
    png = tmp_path / "eval.png"
    status = main(
        [
            "eval",
            "--quiet",
            path,
            "--score-col",
            "a",
            "--score-col",
            "b",
            "-m",
            "ndcg@10,mrr",
            "--segment-col",
            "cohort",
            "--plot",
            str(png),
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    for col in ("a", "b"):
        ref = evaluate_by_segment(
            frame["label"],
            frame[col],
            groups=frame["qid"].astype(str),
            segments=frame["cohort"],
            metrics=["ndcg@10", "mrr"],
        )
        for metric in ("ndcg@10", "mrr"):
            rows = _segment_rows(out, col, metric)
            for i, seg in enumerate(ref.segments):
                groups, value, low, high = rows[seg][:4]
                assert int(groups) == ref.used(metric)[i]
                assert float(value) == pytest.approx(ref.values[metric][i], abs=5e-5)
                assert float(low.strip("[,")) <= float(value) <= float(high.strip("]"))
    assert png.read_bytes()[:8] == PNG


def test_compare_figure_svg_and_segments(table, tmp_path, capsys):
    path, _ = table
    svg = tmp_path / "cmp.svg"
    status = main(
        [
            "compare",
            "--quiet",
            path,
            "--score-col",
            "a",
            "--score-col",
            "b",
            "-m",
            "ndcg@10",
            "--resamples",
            "199",
            "--segment-col",
            "cohort",
            "--plot",
            str(svg),
        ]
    )
    out = capsys.readouterr().out
    assert status == 0 and "per segment of cohort:" in out
    assert "paired randomization test within the segment" in out
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    assert "a - b:" in text and "wins" in text  # the paired-difference legend
    assert "ndcg@10 per segment" in text  # --segment-col is drawn


def test_plot_and_segment_usage_errors(table, tmp_path, capsys):
    path, _ = table
    with pytest.raises(SystemExit) as exc:
        main(["eval", path, "--score-col", "a", "--plot", str(tmp_path / "x.txt")])
    assert exc.value.code == 2
    trec = [str(DATA / "qrels.test"), str(DATA / "results.test")]
    with pytest.raises(SystemExit) as exc:
        main(["eval", *trec, "--segment-col", "cohort"])
    assert exc.value.code == 2
    assert "--segment-col needs table input" in capsys.readouterr().err
    status = main(
        ["eval", "--quiet", path, "--score-col", "a", "--segment-col", "nope"]
    )
    assert status == 1
    assert "nope" in capsys.readouterr().err
    # The figure and the segment tables read rows in memory, not partitions.
    for command in ("eval", "compare"):
        with pytest.raises(SystemExit) as exc:
            # (a directory is read as a Parquet dataset by --engine dask)
            main([command, str(tmp_path), "--engine", "dask", "--plot", "x.png"])
        assert exc.value.code == 2
        assert "drop --engine dask" in capsys.readouterr().err


def test_trec_runs_draw(tmp_path, capsys):
    png = tmp_path / "trec.png"
    trec = [str(DATA / "qrels.test"), str(DATA / "results.test")]
    assert main(["eval", "--quiet", *trec, "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == PNG


def test_main_job_saves_its_figure(tmp_path, capsys):
    png = tmp_path / "demo.png"
    assert main(["--fast", "--no-lightgbm", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == PNG
    assert f"figure saved to {png}" in capsys.readouterr().out
    # A bad directory stops the job before any search (exit 2, no traceback).
    with pytest.raises(SystemExit) as exc:
        main(["--fast", "--no-lightgbm", "--plot", str(tmp_path / "no" / "x.png")])
    assert exc.value.code == 2


def _svg_texts(path) -> str:
    return path.read_text()


@pytest.mark.parametrize(
    ("measures", "plotted", "absent"),
    [
        (["-m", "ndcg@10,map,mrr"], "ndcg@10", "map"),
        (["-m", "ndcg@10", "-m", "P.5,10", "-m", "map"], "ndcg@10", "map"),
        (["-m", "mrr,ndcg@5"], "mrr", "ndcg@5"),
    ],
)
def test_plot_draws_the_first_measure_given(table, tmp_path, measures, plotted, absent):
    # The tables print trec_eval's order (map first); the figure follows -m.
    path, _ = table
    for command in ("eval", "compare"):
        svg = tmp_path / f"{command}.svg"
        extra = ["--resamples", "99"] if command == "compare" else []
        args = [command, "--quiet", path, "--score-col", "a", "--score-col", "b"]
        assert main([*args, *measures, *extra, "--plot", str(svg)]) == 0
        text = _svg_texts(svg)
        assert plotted in text
        assert f"{absent} difference" not in text and f"{absent} over" not in text
        if command == "compare":  # both panels on the same measure
            assert f"{plotted} difference" in text
            assert f"{plotted} per group" in text


def test_in_given_order_and_plot_metric(table, tmp_path):
    from sklearn_rank._cli._plotting import in_given_order

    got = in_given_order(["ndcg@10,map,mrr"], ["map", "ndcg@10", "mrr"])
    assert got == ["ndcg@10", "map", "mrr"]
    got = in_given_order(
        ["ndcg@10", "P.5,10", "map"],
        ["map", "precision@5", "precision@10", "ndcg@10"],
    )
    assert got == ["ndcg@10", "precision@5", "precision@10", "map"]
    path, _ = table
    svg = tmp_path / "m.svg"
    args = ["eval", "--quiet", path, "--score-col", "a", "-m", "ndcg@10,map"]
    assert main([*args, "--plot-metric", "map", "--plot", str(svg)]) == 0
    text = _svg_texts(svg)
    assert "map over queries" in text and "ndcg@k" not in text


def test_figsize_dpi_and_path_checked_before_the_run(table, tmp_path, capsys):
    import struct

    path, _ = table
    png = tmp_path / "s.png"
    args = ["eval", "--quiet", path, "--score-col", "a", "-m", "ndcg@10"]
    assert main([*args, "--plot", str(png), "--figsize", "8,3", "--dpi", "50"]) == 0
    width, height = struct.unpack(">II", png.read_bytes()[16:24])
    assert (width, height) == (400, 150)
    for bad, message in [
        (["--plot", str(tmp_path / "no" / "x.png")], "no directory"),
        (["--plot", str(png), "--figsize", "8"], "--figsize takes W,H"),
        (["--plot", str(png), "--dpi", "0"], "--dpi must be positive"),
        (["--plot-metric", "map"], "add --plot FILE"),
        (["--plot", str(png), "--plot-metric", "auc"], "no per-group value"),
    ]:
        with pytest.raises(SystemExit) as exc:
            main([*args, *bad])
        assert exc.value.code == 2
        assert message in capsys.readouterr().err


def test_empty_segment_cell_is_an_error(table, tmp_path, capsys):
    _, frame = table
    frame = frame.copy()
    frame.loc[frame["qid"] == frame["qid"].iloc[0], "cohort"] = ""
    path = tmp_path / "empty.csv"
    frame.to_csv(path, index=False)
    args = ["eval", "--quiet", str(path), "--score-col", "a", "--segment-col", "cohort"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "column 'cohort' is empty for query" in err
