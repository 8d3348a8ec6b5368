"""Measure names of ``sklearn-rank eval -m``: the library's and trec_eval's.

trec_eval's names (``P.5,10``, ``ndcg_cut.10``, ``recip_rank``, ...) map onto the
library's metrics; with the ``trec_eval`` convention they give trec_eval's numbers.
A few of trec_eval's measures are not per-query metrics: counts (``num_ret``),
set measures read off the counts (``set_P``, ``utility``), geometric means over
queries (``gm_map``). Measures are printed in trec_eval's order (its table in
measures.c), cutoffs ascending, then the library's names in the order given.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class TrecMeasure:
    """How one trec_eval measure is computed.

    ``kind``: "run_tag" (the run's tag), "query_count" (the number of
    queries), "count" (a ``QueryCounts`` field, summed over queries), "metric"
    (a library metric, the mean of its per-query values), "set" (a formula over
    the counts, averaged), "gm" (geometric mean over queries of a library
    metric, summary only), "levels" (the mean over given recall levels of
    interpolated precision), or trec_eval's values that the command reads off a
    library metric ("ideal", "yaap"; on the printed Measure also "beyond",
    "first_gain", "zero": recall levels above 1, ``rbp.p=0``, values 0), whose
    ``Measure.metric`` is None so that front-ends taking library metrics
    (compare, --engine dask) skip them. ``_scores.VALUE_OF_KIND`` maps each kind
    to how its value is computed.
    ``params``: "cutoffs" (``P.5,10``), "levels" (``iprec_at_recall.0.1``),
    "multiples" (``Rprec_mult.0.2``), "gains" (``ndcg.1=3``), "pairs"
    (``rbp.p=0.5``), "numbers" (``utility.1,-1,0,0``) or None.
    """

    kind: str
    metric: str | None = None
    params: str | None = None
    defaults: tuple = ()
    keywords: tuple = ()  # library keywords this measure sets


# trec_eval's measures in its printing order (measures.c, te_trec_measures).
TREC_MEASURES: dict[str, TrecMeasure] = {
    "runid": TrecMeasure("run_tag"),
    "num_q": TrecMeasure("query_count"),
    "num_ret": TrecMeasure("count"),
    "num_rel": TrecMeasure("count"),
    "num_rel_ret": TrecMeasure("count"),
    "map": TrecMeasure("metric", "map"),
    "gm_map": TrecMeasure("gm", "map"),
    "Rprec": TrecMeasure("metric", "r_precision"),
    "bpref": TrecMeasure("metric", "bpref"),
    "recip_rank": TrecMeasure("metric", "mrr"),
    # Recall levels, not cutoffs: iprec@r (printed with 2 decimals).
    "iprec_at_recall": TrecMeasure(
        "metric", "iprec", "levels", tuple(i / 10 for i in range(11))
    ),
    "P": TrecMeasure("metric", "precision", "cutoffs", _CUTS),
    "relstring": TrecMeasure("string", None, "numbers", (10.0,)),
    "recall": TrecMeasure("metric", "recall", "cutoffs", _CUTS),
    "infAP": TrecMeasure("metric", "infap"),
    "gm_bpref": TrecMeasure("gm", "bpref"),
    "Rprec_mult": TrecMeasure(
        "metric", "rprec_mult", "multiples", tuple(i / 5 for i in range(1, 11))
    ),
    "utility": TrecMeasure("set", None, "numbers", (1.0, -1.0, 0.0, 0.0)),
    "11pt_avg": TrecMeasure(
        "levels", "iprec_11pt", "levels", tuple(i / 10 for i in range(11))
    ),
    "binG": TrecMeasure("metric", "bing"),
    "G": TrecMeasure("metric", "g", "gains"),
    "dcg": TrecMeasure("metric", "dcg", "gains"),
    "ideal_dcg": TrecMeasure("ideal", None, "gains"),  # the engine's ideal DCG
    "ndcg": TrecMeasure("metric", "ndcg", "gains"),
    "ndcg_rel": TrecMeasure("metric", "ndcg_rel", "gains"),
    "Rndcg": TrecMeasure("metric", "rndcg", "gains"),
    "ndcg_cut": TrecMeasure("metric", "ndcg", "cutoffs", _CUTS),
    "map_cut": TrecMeasure("metric", "map", "cutoffs", _CUTS),
    "relative_P": TrecMeasure(
        "metric",
        "recall",
        "cutoffs",
        _CUTS,
        (("recall_denominator", "min_k_n_relevant"),),  # m_rel_P.c: / min(k, R)
    ),
    "success": TrecMeasure("metric", "hit_rate", "cutoffs", (1, 5, 10)),
    "set_P": TrecMeasure("set"),
    "set_relative_P": TrecMeasure("set"),
    "set_recall": TrecMeasure("set"),
    "set_map": TrecMeasure("set"),
    "set_F": TrecMeasure("set", None, "numbers", (1.0,)),
    "num_nonrel_judged_ret": TrecMeasure("count"),
    "yaap": TrecMeasure("yaap"),  # read off AP and R (m_yaap.c)
    "rbp": TrecMeasure("metric", "rbp", "pairs", (), (("max_grade", 1.0),)),
    "rbp_resid": TrecMeasure("metric", "rbp_residual", "pairs"),
    "unj": TrecMeasure("metric", "unjudged", "cutoffs", (5, 10, 20)),
}
# One line of meaning for the trec_eval measures that are not a library metric
# (a library metric's line is its registry summary); --list-measures reads both.
MEANINGS = {
    "runid": "the run's tag (last field of the run file)",
    "num_q": "number of queries evaluated",
    "num_ret": "number of documents retrieved (summed over queries)",
    "num_rel": "number of relevant documents judged (summed over queries)",
    "num_rel_ret": "number of relevant documents retrieved (summed over queries)",
    "num_nonrel_judged_ret": "number of judged non-relevant documents retrieved "
    "(summed over queries)",
    "gm_map": "geometric mean over queries of AP (each floored at 1e-5)",
    "gm_bpref": "geometric mean over queries of bpref (each floored at 1e-5)",
    "relstring": "the relevance of the first k retrieved documents as a string",
    "utility": "a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret "
    "(set measure, parameters a,b,c,d)",
    "set_P": "precision of the whole retrieved set",
    "set_relative_P": "relevant retrieved / min(retrieved, relevant)",
    "set_recall": "recall of the whole retrieved set",
    "set_map": "set precision times set recall",
    "set_F": "F-measure of set precision and recall (parameter beta)",
    "11pt_avg": "mean interpolated precision at the given recall levels",
    "ideal_dcg": "DCG of the ideal ranking of the judged documents (trec_eval's "
    "level order)",
    "yaap": "yet another average precision: log((1 + S) / (1 + R - S)), S the "
    "sum of the precisions at the relevant documents (AP x R)",
}

# trec_eval's nicknames (measures.c), less what is listed in NOT_IMPLEMENTED.
NOT_IMPLEMENTED: dict[str, str] = {}
_ALL_TREC = (
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
    "iprec_at_recall P relstring recall unj rbp rbp_resid infAP gm_bpref utility "
    "11pt_avg ndcg relative_P Rprec_mult success map_cut ndcg_cut ndcg_rel Rndcg "
    "binG G set_P set_recall set_relative_P set_map set_F num_nonrel_judged_ret"
).split()
_SET = (
    "runid num_q num_ret num_rel num_rel_ret utility set_P set_recall "
    "set_relative_P set_map set_F"
).split()
NICKNAMES = {
    "official": (
        "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref "
        "recip_rank iprec_at_recall P"
    ).split(),
    "set": _SET,
    "all_trec": [n for n in _ALL_TREC if n not in NOT_IMPLEMENTED],
}
NICKNAME_SKIPS = {
    name: [n for n in _ALL_TREC if n in NOT_IMPLEMENTED and name == "all_trec"]
    for name in NICKNAMES
}
_OUTPUT_NAME = re.compile(
    r"^(P|recall|ndcg_cut|map_cut|success|relative_P|unj)_(\d+)$"
    r"|^(iprec_at_recall|Rprec_mult)_([0-9.]+)$"
)


@dataclass(frozen=True)
class Measure:
    """One printed measure: its label, the library metric (None for counts)."""

    label: str
    metric: str | None
    order: tuple[int, float]  # trec_eval's table position and cutoff; library last
    keywords: tuple = ()  # library keywords of this measure's own call
    kind: str = "metric"  # see TrecMeasure.kind
    numbers: tuple[float, ...] = ()  # utility's and set_F's parameters
    levels: tuple[float, ...] = ()  # recall levels of "levels" measures
    nickname: bool = False  # asked for through a nickname (official, all_trec)

    @property
    def gains(self) -> bool:
        """Whether the measure needs its own keywords (trec_eval's per-level
        gains, relative_P's denominator, rbp's p): one call of its own."""
        return bool(self.keywords)


class MeasureError(ValueError):
    """A measure name that neither the library nor trec_eval's mapping knows."""


def _cutoffs(name: str, params: str) -> list[int]:
    """trec_eval reads cutoffs as integers (``23.4`` is 23); they must be >= 1."""
    out = []
    for text in params.split(","):
        try:
            value = int(float(text))
        except ValueError:
            value = 0
        if value < 1:
            raise MeasureError(
                f"measure {name}.{params}: the cutoff {text!r} must be a positive "
                f"integer, as in '-m {name}.5,10'"
            )
        out.append(value)
    return out


def _numbers(name: str, params: str, low: float, high: float, what: str) -> list:
    """Comma-separated numbers in [low, high] (recall levels, multiples)."""
    out = []
    for text in params.split(","):
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not low <= value <= high:
            raise MeasureError(
                f"measure {name}.{params}: {text!r} must be {what}, as in "
                f"'-m {name}.0.1,.5'"
            )
        out.append(value)
    return out


def _pairs(name: str, params: str) -> tuple[tuple[str, float], ...]:
    """trec_eval's ``name=value`` parameters (``ndcg.1=3,2=9``, ``rbp.p=0.5``)."""
    pairs = []
    for text in params.split(","):
        key, eq, value = text.partition("=")
        try:
            number = float(value)
        except ValueError:
            eq = ""
        if not eq or not key:
            example = "p=0.5" if name.startswith("rbp") else "1=3,2=9,4=4.5"
            raise MeasureError(
                f"measure {name}.{params}: {text!r} is not a name=value pair, as in "
                f"'-m {name}.{example}'"
            )
        pairs.append((key, number))
    return tuple(pairs)


def trec_gain(pairs: tuple[tuple[float, float], ...]):
    """trec_eval's per-level gains (``ndcg.1=3,2=9``): the engine's
    :class:`~sklearn_rank._engine.conventions.LevelGains`, which the metrics'
    ``gain`` keyword takes (the named levels, in their order; every other level
    its own value; -1 and -2 the unjudged documents)."""
    from .._engine.conventions import LevelGains

    return LevelGains(pairs)


def _gain_keywords(name: str, params: str) -> tuple:
    levels = []
    for key, value in _pairs(name, params):
        try:
            level = float(key)
        except ValueError:
            raise MeasureError(
                f"measure {name}.{params}: {key!r} is not a relevance level, as in "
                f"'-m {name}.1=3,2=9'"
            ) from None
        levels.append((level, value))
    return (("gain", trec_gain(tuple(levels))),)


def _persistence(name: str, params: str) -> tuple:
    """``p=...``: in [0, 1]; 0 and 1 as trec_eval computes them (``rbp``: 1
    gives 0, 0 the gain at rank 1; ``rbp_resid``: see :func:`_trec`)."""
    for key, value in _pairs(name, params):
        low_ok = value in (0.0, 1.0)
        if key != "p" or not (0 < value < 1 or low_ok):
            bound = "[0, 1]"
            raise MeasureError(
                f"measure {name}.{params}: the only parameter is p in {bound}, as in "
                f"'-m {name}.p=0.5'"
            )
    return (("persistence", value),)


def _trec(name: str, params: str | None) -> list[Measure]:
    spec = TREC_MEASURES[name]
    position = list(TREC_MEASURES).index(name)
    kind, metric = spec.kind, spec.metric
    if spec.params is None or (
        spec.params in ("gains", "pairs", "numbers") and not params
    ):
        if params:
            raise MeasureError(
                f"measure {name}.{params}: {name} takes no parameters here"
            )
        numbers = spec.defaults if spec.params == "numbers" else ()
        return [Measure(name, metric, (position, 0), spec.keywords, kind, numbers)]
    label = f"{name}_{params}"
    if spec.params == "gains":
        keywords = _gain_keywords(name, params)
        return [Measure(label, metric, (position, 0), keywords, kind)]
    if spec.params == "pairs":
        keywords = spec.keywords + _persistence(name, params)
        p = dict(keywords)["persistence"]
        if metric == "rbp" and p == 1.0:  # (1 - p) * sum: 0 (m_rbp.c)
            return [Measure(label, None, (position, 0), (), "zero")]
        if metric == "rbp" and p == 0.0:  # the gain at rank 1: DCG@1
            return [Measure(label, None, (position, 0), (), "first_gain")]
        # m_rbp_resid.c, p^n + (1 - p) * sum of p^i over unjudged ranks i, is
        # at p = 1 whether any ranked document is unjudged, at p = 0 whether
        # the first one is.
        if metric == "rbp_residual" and p in (0.0, 1.0):
            kind = "resid_first" if p == 0.0 else "resid_any"
            return [Measure(label, None, (position, 0), (), kind)]
        return [Measure(label, metric, (position, 0), keywords, kind)]
    if spec.params == "numbers":
        numbers = _numbers(name, params, -1e300, 1e300, "a number")
        if len(numbers) != len(spec.defaults):
            raise MeasureError(
                f"measure {name}.{params}: {name} takes {len(spec.defaults)} "
                f"number(s), as in '-m {name}."
                + ",".join(f"{v:g}" for v in spec.defaults)
                + "'"
            )
        return [Measure(label, None, (position, 0), (), kind, tuple(numbers))]
    if spec.params == "levels" and kind == "levels":
        levels = sorted(_numbers(name, params, 0.0, 1.0, "a recall level in [0, 1]"))
        return [Measure(label, "iprec", (position, 0), (), kind, (), tuple(levels))]
    if spec.params == "levels":
        levels = _numbers(name, params, 0.0, 1e300, "a recall level >= 0")
        levels = levels if params else list(spec.defaults)
        # Above 1 (m_iprec_at_recall.c): the cutoff lround(r * R) is past every
        # relevant document (value 0) unless it rounds to R (the value at 1).
        return [
            Measure(f"{name}_{r:.2f}", f"{metric}@{r!r}", (position, r))
            if r <= 1
            else Measure(f"{name}_{r:.2f}", None, (position, r), (), "beyond", (r,))
            for r in levels
        ]
    if spec.params == "multiples":
        multiples = _numbers(name, params, 0.0, 1e300, "a number >= 0")
        # A multiple 0 cuts at no document: trec_eval's value stays 0.
        return [
            Measure(f"{name}_{m:.2f}", f"{metric}@{m!r}", (position, m))
            if m > 0
            else Measure(f"{name}_{m:.2f}", None, (position, m), (), "zero")
            for m in multiples
        ]
    cutoffs = _cutoffs(name, params)
    return [
        Measure(f"{name}_{k}", f"{metric}@{k}", (position, k), spec.keywords)
        for k in cutoffs
    ]


def _defaults(name: str) -> list[Measure]:
    """A trec_eval measure without parameters: its default cutoffs or levels."""
    spec = TREC_MEASURES[name]
    if spec.params in ("cutoffs",):
        return _trec(name, ",".join(str(k) for k in spec.defaults))
    if spec.params in ("levels", "multiples") and spec.kind == "metric":
        return _trec(name, ",".join(repr(v) for v in spec.defaults))
    if spec.kind == "levels":
        position = list(TREC_MEASURES).index(name)
        return [Measure(name, spec.metric, (position, 0), (), "metric")]
    return _trec(name, None)


def _library(name: str, known: set[str], position: int) -> Measure:
    from .._metrics.ir_measures_names import looks_like_ir_measure, parse_ir_measure

    if looks_like_ir_measure(name):  # ir_measures' names: nDCG@10, P(rel=2)@5
        try:
            parse_ir_measure(name)
        except ValueError as exc:
            raise MeasureError(str(exc).splitlines()[0]) from None
        return Measure(name, name, (len(TREC_MEASURES), position))
    base, _, cut = name.partition("@")
    trec_base = base.partition(".")[0]
    if trec_base in NOT_IMPLEMENTED and base not in known:  # a library name wins
        raise MeasureError(
            f"the trec_eval measure {trec_base!r} is not available: "
            f"{NOT_IMPLEMENTED[trec_base]}"
        )
    level = f"{base}@r" in known or f"{base}@m" in known  # the name sets an option
    if base not in known or (cut and f"{base}@k" not in known and not level):
        raise MeasureError(unknown_measure(name, known))
    if "@" in name and not cut:
        raise MeasureError(
            f"measure {name!r}: a cutoff must follow '@', as in '{base}@10'"
        )
    if cut and level:
        recall = f"{base}@r" in known  # a recall level in [0, 1]; else a multiple
        try:
            value = float(cut)
            valid = 0.0 <= value <= 1.0 if recall else value > 0.0
        except ValueError:
            valid = False
        if not valid:
            what = "recall level" if recall else "multiple of R"
            bound = "in [0, 1]" if recall else "> 0"
            raise MeasureError(
                f"the {what} in {name!r} must be a number {bound}, as in '{base}@0.5'"
            )
    elif cut and not (cut.isdigit() and int(cut) >= 1):
        raise MeasureError(
            f"the cutoff in {name!r} must be a positive integer, as in '{base}@10'"
        )
    return Measure(name, name, (len(TREC_MEASURES), position))


def _names(known) -> list[str]:
    """Every measure name a user can type: the library's (without @k), trec_eval's
    and the nicknames."""
    library = {k.partition("@")[0] for k in known}
    return sorted(library | set(TREC_MEASURES) | set(NICKNAMES))


def unknown_measure(name: str, known) -> str:
    """One line for a name no table knows, with the closest names (difflib).

    Examples
    --------
    >>> from sklearn_rank._cli._measures import unknown_measure
    >>> unknown_measure("MAP", {"map", "mrr"})
    "unknown measure 'MAP'; did you mean 'map'? (--list-measures lists every measure)"
    >>> unknown_measure("ndcg_cut@20", {"map", "mrr"})[:57]
    "unknown measure 'ndcg_cut@20'; did you mean 'ndcg_cut.20'"
    """
    import difflib

    names = _names(known)
    base, at, cutoff = name.partition("@")
    base = base.partition(".")[0]
    lower = {n.lower(): n for n in names}
    close = [lower[base.lower()]] if base.lower() in lower else []
    trec = {n.lower(): n for n in TREC_MEASURES}
    cut_like = re.fullmatch(r"[\d.,]+", cutoff)  # ndcg_cut@20 -> ndcg_cut.20
    if at and base.lower() in trec and cut_like:  # (trec_eval's spelling)
        close.insert(0, f"{trec[base.lower()]}.{cutoff}")
    glued = re.match(r"^([A-Za-z_]+?)_?(\d+)$", base)  # P5 -> P.5
    if glued and glued.group(1) in TREC_MEASURES:
        close.append(f"{glued.group(1)}.{glued.group(2)}")
    close += difflib.get_close_matches(base, names, n=3, cutoff=0.6)
    if not close:  # ir_measures' spellings (nDGC@10 -> nDCG)
        from .._metrics.ir_measures_names import IR_MEASURES

        close = difflib.get_close_matches(base, list(IR_MEASURES), n=3, cutoff=0.6)
    close = list(dict.fromkeys(close))[:3]
    hint = ""
    if close:
        hint = "; did you mean " + " or ".join(repr(c) for c in close) + "?"
    return f"unknown measure {name!r}{hint} (--list-measures lists every measure)"


def measure_help(names: list[str]) -> str:
    """``eval -h -m NAME``: what each named measure computes and its parameters."""
    from .._metrics.registry import METRICS

    known = list(METRICS) + [f"{n}@k" for n in METRICS]
    out = []
    for text in names:
        for item in filter(None, (p.strip() for p in text.split(","))):
            base = item.partition("@")[0].partition(".")[0]
            if base in TREC_MEASURES:
                spec = TREC_MEASURES[base]
                library = spec.metric if spec.metric in METRICS else None
                meaning = MEANINGS.get(base) or (
                    METRICS[library].summary if library else ""
                )
                params = {
                    "cutoffs": f"cutoffs, as in {base}.5,10 (default "
                    + ",".join(f"{v:g}" for v in spec.defaults)
                    + ")",
                    "levels": f"recall levels in [0, 1], as in {base}.0.1,0.5",
                    "multiples": f"multiples of R, as in {base}.0.5,2",
                    "gains": f"gains per relevance level, as in {base}.1=3,2=9 "
                    "(trec_eval's ideal order; -1: unjudged documents)",
                    "pairs": f"the persistence, as in {base}.p=0.8",
                    "numbers": f"numbers, as in {base}."
                    + ",".join(f"{v:g}" for v in spec.defaults),
                }.get(spec.params or "", "none")
                out.append(
                    f"{base} (trec_eval measure)\n  {meaning}\n"
                    f"  library metric: {library or '-'}\n  parameters: {params}\n"
                )
            elif base in NICKNAMES:
                out.append(f"{base} (nickname): {' '.join(NICKNAMES[base])}\n")
            elif base in METRICS:
                spec = METRICS[base]
                cut = f"{base}@k" in METRICS or any(
                    f"{base}@{x}" in METRICS for x in "krm"
                )
                out.append(
                    f"{base} (library metric)\n  {spec.summary}\n"
                    + (f"  cutoff: {base}@10\n" if cut else "")
                )
            else:
                out.append(unknown_measure(item, known) + "\n")
    return "".join(out)


def parse_measures(specs: list[str], known: list[str]) -> tuple[list[Measure], list]:
    """``-m`` values -> measures in printing order, and the skipped trec names.

    Parameters
    ----------
    specs : list of str
        Each ``-m`` value: ``P.5,10``, ``ndcg_cut.10``, ``map``, ``ndcg@10,mrr``,
        ``official``, ``all_trec``, ``P_5``.
    known : list of str
        :func:`sklearn_rank.get_metric_names`.

    Examples
    --------
    >>> from sklearn_rank._cli._measures import parse_measures
    >>> names = ["map", "mrr", "ndcg", "ndcg@k", "precision", "precision@k"]
    >>> found, _ = parse_measures(["ndcg@10,mrr", "P.10,5", "map"], names)
    >>> [(m.label, m.metric) for m in found]
    [('map', 'map'), ('P_5', 'precision@5'), ('P_10', 'precision@10'), \
('ndcg@10', 'ndcg@10'), ('mrr', 'mrr')]
    """
    known_set = set(known)
    measures: list[Measure] = []
    skipped: list[str] = []
    # trec_eval keeps one parameter list per measure: the first one given on the
    # command line, else the default (``-m official -m P.5`` prints P_5 only).
    trec: dict[str, str | None] = {}
    named: set[str] = set()  # trec measures named on their own
    position = 0
    for text in specs:
        if not text.strip() or any(not p.strip() for p in text.split(",")):
            raise MeasureError(
                f"-m {text!r}: an empty measure name (trec_eval: illegal "
                f"measure {text!r}); give one, as in -m map or -m P.5,10"
            )
    for spec in (item for s in specs for item in split_list(s, known_set)):
        name, dot, params = spec.partition(".")
        match = _OUTPUT_NAME.match(spec)
        if name in NICKNAMES and not dot:
            for each in NICKNAMES[name]:
                trec.setdefault(each, None)
            skipped += [s for s in NICKNAME_SKIPS[name] if s not in skipped]
        elif name in TREC_MEASURES and (dot or "," not in spec):
            _trec(name, params) if dot else None  # check the parameters now
            named.add(name)
            if dot and trec.get(name) is None:
                trec[name] = params
            trec.setdefault(name, None)
        elif match:
            trec_name = match.group(1) or match.group(3)
            params = match.group(2) or match.group(4)
            named.add(trec_name)
            if trec.get(trec_name) is None:
                trec[trec_name] = params
        else:
            for part in filter(None, spec.split(",")):
                measures.append(_library(part.strip(), known_set, position))
                position += 1
    for name, params in trec.items():
        found = _defaults(name) if params is None else _trec(name, params)
        if name not in named:
            found = [dataclasses.replace(m, nickname=True) for m in found]
        measures += found
    unique = {m.label: m for m in measures}  # one line per label, first kept
    return sorted(unique.values(), key=lambda m: m.order), skipped


def _is_name(text: str, known: set[str]) -> bool:
    """Whether a comma-list item names a measure (rather than continuing the
    parameters of the item before it, as ``10`` in ``P.5,10``)."""
    base = text.partition(".")[0].partition("@")[0]
    return (
        base in TREC_MEASURES
        or base in NICKNAMES
        or base in known
        or f"{base}@k" in known
        or f"{base}@r" in known
        or f"{base}@m" in known
        or _OUTPUT_NAME.match(text) is not None
    )


def split_list(spec: str, known: set[str]) -> list[str]:
    """One ``-m`` value -> one item per measure.

    Items are comma-separated (``recip_rank,map``, ``ndcg@10,mrr``); an item that
    names no measure continues the parameters of the item before it, so
    ``P.5,10`` stays one item and ``map,P.5,10`` is ``map`` and ``P.5,10``.

    Examples
    --------
    >>> from sklearn_rank._cli._measures import split_list
    >>> split_list("recip_rank,map,P.5,10,ndcg@10", {"ndcg@k", "map", "mrr"})
    ['recip_rank', 'map', 'P.5,10', 'ndcg@10']
    >>> split_list("ndcg.1=3,2=9", set())
    ['ndcg.1=3,2=9']
    """
    items: list[str] = []
    for part in (p.strip() for p in spec.split(",")):
        if items and "." in items[-1] and not _is_name(part, known):
            items[-1] += "," + part
        elif part:
            items.append(part)
    return items


def measure_listing(summaries: dict[str, str]) -> str:
    """The text of ``--list-measures``: trec_eval's name, the library's name and
    one line of meaning for every measure, trec_eval's first (in its order), then
    the library's metrics that no trec_eval name maps to.

    Parameters
    ----------
    summaries : dict of str to str
        Library metric name -> its one-line summary (the registry's).
    """
    rows = [("trec_eval", "library", "meaning")]
    mapped = set()
    suffixes = {"cutoffs": ("k", "@k"), "levels": ("r", "@r"), "multiples": ("m", "@m")}
    for name, spec in TREC_MEASURES.items():
        metric = spec.metric
        what, at = suffixes.get(spec.params, ("", ""))
        trec = f"{name}.{what},..." if what else name
        library = "-" if metric is None else metric
        if metric is not None and spec.kind == "metric":
            library += at
        meaning = MEANINGS.get(name) or summaries.get(metric or "", "")
        rows.append((trec, library, meaning))
        mapped.add(metric)
    for metric, summary in summaries.items():
        if metric not in mapped:
            rows.append(("-", metric, summary))
    widths = [max(len(r[i]) for r in rows) for i in range(2)]
    return "".join(
        f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c}".rstrip() + "\n" for a, b, c in rows
    )
