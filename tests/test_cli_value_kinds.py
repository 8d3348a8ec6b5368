"""``sklearn-rank eval``'s measures are computed through one table.

Each kind of measure (``TrecMeasure.kind`` and the kinds ``_measures`` gives the
printed measures it reads off a library metric) has one entry in
``_scores.VALUE_OF_KIND``; a count measure is the ``QueryCounts`` field of its
name. A kind without an entry would fail at run time on the first run that
asks for it; these tests fail first.
"""

import dataclasses

from sklearn_rank._cli import _measures, _scores

# The kinds ``_measures._trec`` gives printed measures read off a library metric.
READ_OFF_KINDS = {"beyond", "first_gain", "zero", "resid_any", "resid_first"}


def test_every_kind_has_a_value_rule():
    kinds = {spec.kind for spec in _measures.TREC_MEASURES.values()}
    assert kinds | READ_OFF_KINDS | {"metric"} == set(_scores.VALUE_OF_KIND)
    assert set(_scores.READ_OFF) <= set(_scores.VALUE_OF_KIND)


def test_count_measures_are_named_as_the_counts():
    fields = {f.name for f in dataclasses.fields(_scores.QueryCounts)}
    for name, spec in _measures.TREC_MEASURES.items():
        if spec.kind == "count":
            assert name in fields, name
