"""The main job's statistics: labelled spread, floor p-values, two real models."""

import re

from sklearn_rank._cli import main


def test_main_job_statistics_read_as_they_are(capsys):
    assert main(["--fast", "--no-lightgbm"]) == 0
    out = capsys.readouterr().out
    # the +- after a CV mean is the SD over folds, and says so
    assert re.search(r"CV NDCG@10 [01]\.\d{4} \(SD over 2 folds [01]\.\d{4}\)", out)
    assert "±" not in out
    # two real models compared even without LightGBM
    assert re.search(
        r"^HistGradientBoostingRegressor - Ridge \(linear\) +[+-]", out, re.M
    )
    # a p-value at the resampling floor is a bound, never a plain 0.0001
    assert "<= 0.0001" in out
    assert not re.search(r"  0\.0001  ", out)
    # the correction family is named, with its size
    assert "Holm-adjusted over one family per metric of 3 tests" in out
    assert "p adj: holm over one family per metric of 3 tests" in out
