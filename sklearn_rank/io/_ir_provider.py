"""An ir_measures provider that computes with this library.

ir_measures' providers are subclasses of ``ir_measures.providers.Provider``
(``NAME``, ``SUPPORTED_MEASURES``, ``_evaluator(measures, qrels)`` returning an
``Evaluator`` whose ``_iter_calc(run)`` yields ``Metric`` rows), and
``ir_measures.providers.register`` adds one to ``providers.registry``. The
default pipeline behind ``ir_measures.calc_aggregate`` is a fixed list built when
ir_measures is imported, so a third-party provider is called explicitly
(``provider.calc_aggregate(...)``, ``registry["sklearn_rank"]``), never picked
by ``ir_measures.calc_aggregate`` itself (short of editing
``DefaultPipeline.providers``, which this package does not do).
"""

from __future__ import annotations

from typing import Any, ClassVar

from .._metrics.ir_measures_names import IR_MEASURES
from ._stack import evaluate_run

_PROVIDER = None


def _frames(data: Any, kind: str):
    """A frame stays a frame (the columnar path); other forms become
    pytrec_eval's dict of dicts through ir_measures' own converters."""
    if hasattr(data, "columns"):
        return data
    import ir_measures

    converter = (
        ir_measures.util.QrelsConverter
        if kind == "qrels"
        else ir_measures.util.RunConverter
    )
    return converter(data).as_dict_of_dict()


def _params(spec, any_value) -> dict[str, Any]:
    """The parameters a measure's spec accepts, each with any value."""
    names = ("cutoff", *spec.params) if spec.cutoff != "none" else spec.params
    return {name: any_value() for name in names}


def ir_measures_provider():
    """This library as an ir_measures provider, registered as
    ``"sklearn_rank"`` in ``ir_measures.providers.registry``.

    Returns
    -------
    provider : ir_measures.providers.Provider
        ``provider.calc_aggregate(measures, qrels, run)``, ``iter_calc`` and
        ``evaluator`` as every ir_measures provider; the measures of
        ``IR_MEASURES`` (nDCG, P, R, AP, RR, Rprec, Bpref, infAP, Success, SetP,
        SetR, Judged, ERR) with the values of ir_measures' default providers.

    Examples
    --------
    >>> import ir_measures  # doctest: +SKIP
    >>> from sklearn_rank.io import ir_measures_provider  # doctest: +SKIP
    >>> provider = ir_measures_provider()  # doctest: +SKIP
    >>> provider.calc_aggregate([ir_measures.nDCG @ 10], qrels, run)  # doctest: +SKIP
    """
    global _PROVIDER
    if _PROVIDER is not None:
        return _PROVIDER
    try:
        import ir_measures
        from ir_measures import measures as ir_defs
        from ir_measures.providers.base import Any as AnyValue
    except ImportError:
        raise ImportError(
            "ir_measures_provider needs ir_measures: pip install ir-measures."
        ) from None

    class SklearnRankEvaluator(ir_measures.providers.Evaluator):
        def __init__(self, measures, qrels):
            self._qrels = _frames(qrels, "qrels")
            qids = (
                self._qrels["query_id" if "query_id" in self._qrels else "qid"]
                if hasattr(self._qrels, "columns")
                else list(self._qrels)
            )
            super().__init__(measures, set(map(str, qids)))

        def _iter_calc(self, run):
            measures = list(self.measures)
            scores = evaluate_run(
                self._qrels, {"run": _frames(run, "run")}, metrics=measures
            )["run"]
            for measure in measures:
                values = scores.values[str(measure)]
                for qid, value in zip(scores.group_ids, values, strict=True):
                    # undefined (no relevant or no ranked document): every
                    # measure here scores it 0, as trec_eval and ir_measures do
                    value = 0.0 if value != value else float(value)
                    yield ir_measures.Metric(str(qid), measure, value)

    class SklearnRankProvider(ir_measures.providers.Provider):
        """sklearn_rank's grouped engine (exact under ties, one pass)."""

        NAME = "sklearn_rank"
        SUPPORTED_MEASURES: ClassVar[list] = [
            getattr(ir_defs, f"_{name}")(**_params(spec, AnyValue))
            for name, spec in IR_MEASURES.items()
            # the intent-aware ones read subtopic qrels: pyndeval's
            if spec.provider != "pyndeval"
        ]

        def _evaluator(self, measures, qrels):
            return SklearnRankEvaluator(measures, qrels)

    _PROVIDER = SklearnRankProvider()
    ir_measures.providers.register(_PROVIDER)
    return _PROVIDER


__all__ = ["ir_measures_provider"]
