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


def _segment_rows(text: str, name: str) -> dict[str, list[str]]:
    block = text.split(f"per segment: {name}\n", 1)[1].split("\n\n", 1)[0]
    return {line.split()[0]: line.split()[1:] for line in block.splitlines()[1:]}


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
        rows = _segment_rows(out, col)
        for i, seg in enumerate(ref.segments):
            groups, ndcg, mrr = rows[seg]
            assert int(groups) == ref.n_groups[i]
            assert float(ndcg) == pytest.approx(ref.values["ndcg@10"][i], abs=5e-5)
            assert float(mrr) == pytest.approx(ref.values["mrr"][i], abs=5e-5)
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
    assert status == 0 and "per segment: a" in out
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    assert "a - b:" in text and "wins" in text  # the paired-difference title


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
