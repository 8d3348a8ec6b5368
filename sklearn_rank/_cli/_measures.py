"""Measure names of ``sklearn-rank eval -m``: the library's and trec_eval's.

trec_eval's names (``P.5,10``, ``ndcg_cut.10``, ``recip_rank``, ...) map onto the
library's metrics; with the ``trec_eval`` convention they give trec_eval's numbers.
Measures are printed in trec_eval's order (its table in measures.c), cutoffs
ascending, then the library's names in the order given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# trec_eval measure -> (library metric, takes cutoffs, default cutoffs).
# The order is trec_eval's printing order.
TREC_MEASURES: dict[str, tuple[str | None, bool, tuple[int, ...]]] = {
    "runid": (None, False, ()),
    "num_q": (None, False, ()),
    "num_ret": (None, False, ()),
    "num_rel": (None, False, ()),
    "num_rel_ret": (None, False, ()),
    "map": ("map", False, ()),
    "Rprec": ("r_precision", False, ()),
    "bpref": ("bpref", False, ()),
    "recip_rank": ("mrr", False, ()),
    # Recall levels, not cutoffs: iprec@r (trec_eval prints them with 2 decimals).
    "iprec_at_recall": ("iprec", True, tuple(i / 10 for i in range(11))),
    "P": ("precision", True, (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    "recall": ("recall", True, (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    "11pt_avg": ("iprec_11pt", False, ()),
    "ndcg": ("ndcg", False, ()),
    "ndcg_cut": ("ndcg", True, (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    "map_cut": ("map", True, (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    "success": ("hit_rate", True, (1, 5, 10)),
}
COUNTS = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret")
# One line of meaning for the trec_eval measures that are not a library metric
# (a library metric's line is its registry summary); --list-measures reads both.
MEANINGS = {
    "runid": "the run's tag (last field of the run file)",
    "num_q": "number of queries evaluated",
    "num_ret": "number of documents retrieved (summed over queries)",
    "num_rel": "number of relevant documents judged (summed over queries)",
    "num_rel_ret": "number of relevant documents retrieved (summed over queries)",
}

# trec_eval's nicknames, restricted to what the library computes; the rest are
# named in a note (see ``NOT_IMPLEMENTED``).
NICKNAMES = {
    "official": (
        "runid num_q num_ret num_rel num_rel_ret map Rprec bpref recip_rank "
        "iprec_at_recall P"
    ).split(),
    "all_trec": list(TREC_MEASURES),
}
NOT_IMPLEMENTED = {
    "official": ["gm_map"],
    "all_trec": (
        "gm_map relstring unj rbp rbp_resid infAP gm_bpref "
        "utility relative_P Rprec_mult ndcg_rel Rndcg binG G set_P "
        "set_recall set_relative_P set_map set_F num_nonrel_judged_ret"
    ).split(),
}
_OUTPUT_NAME = re.compile(
    r"^(P|recall|ndcg_cut|map_cut|success)_(\d+)$|^(iprec_at_recall)_([0-9.]+)$"
)


@dataclass(frozen=True)
class Measure:
    """One printed measure: its label, the library metric (None for counts)."""

    label: str
    metric: str | None
    order: tuple[int, float]  # trec_eval's table position and cutoff; library last
    gains: tuple[tuple[float, float], ...] = ()  # trec_eval's ndcg.1=3,2=9 levels


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


def _levels(name: str, params: str) -> list[float]:
    """trec_eval's recall levels (``.10,.5``): numbers in [0, 1]."""
    out = []
    for text in params.split(","):
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not 0.0 <= value <= 1.0:
            raise MeasureError(
                f"measure {name}.{params}: the recall level {text!r} must be a "
                f"number in [0, 1], as in '-m {name}.0.1,.5'"
            )
        out.append(value)
    return out


def _gains(params: str) -> tuple[tuple[float, float], ...]:
    """trec_eval's per-level gains (``ndcg.1=3,2=9,4=4.5``): level=gain pairs."""
    pairs = []
    for text in params.split(","):
        level, eq, gain = text.partition("=")
        try:
            pairs.append((float(level), float(gain)))
        except ValueError:
            eq = ""
        if not eq:
            raise MeasureError(
                f"measure ndcg.{params}: {text!r} is not a level=gain pair, as in "
                "'-m ndcg.1=3,2=9,4=4.5'"
            ) from None
    return tuple(pairs)


def trec_gain(pairs: tuple[tuple[float, float], ...]):
    """trec_eval's gain function for ``ndcg.L=G,...``: the named levels take their
    gain, every other level its own value (m_ndcg.c, setup_gains)."""
    import numpy as np

    def gain(y):
        out = np.asarray(y, dtype=np.float64).copy()
        for level, value in pairs:
            out[y == level] = value
        return out

    return gain


def _trec(name: str, params: str | None, known: set[str]) -> list[Measure]:
    metric, takes_k, defaults = TREC_MEASURES[name]
    position = list(TREC_MEASURES).index(name)
    if not takes_k:
        if params and name == "ndcg":
            return [Measure(f"{name}_{params}", metric, (position, 0), _gains(params))]
        if params:
            raise MeasureError(
                f"measure {name}.{params}: {name} takes no parameters here"
            )
        return [Measure(name, metric, (position, 0))]
    if name == "iprec_at_recall":
        levels = _levels(name, params) if params else list(defaults)
        return [
            Measure(f"{name}_{r:.2f}", f"{metric}@{r!r}", (position, r)) for r in levels
        ]
    cutoffs = _cutoffs(name, params) if params else list(defaults)
    return [Measure(f"{name}_{k}", f"{metric}@{k}", (position, k)) for k in cutoffs]


def _library(name: str, known: set[str], position: int) -> Measure:
    base, _, cut = name.partition("@")
    trec_base = base.partition(".")[0]
    not_implemented = trec_base in NOT_IMPLEMENTED["all_trec"] or trec_base in (
        "dcg",
        "ideal_dcg",
    )
    if not_implemented and base not in known:  # a library name wins (dcg, rbp)
        raise MeasureError(
            f"the trec_eval measure {trec_base!r} is not implemented; trec_eval "
            f"measures available: {', '.join(TREC_MEASURES)}"
        )
    level = f"{base}@r" in known  # "iprec@0.5": the name sets the recall level
    if base not in known or (cut and f"{base}@k" not in known and not level):
        valid = ", ".join(sorted(known))
        trec = ", ".join(TREC_MEASURES)
        raise MeasureError(
            f"unknown measure {name!r}. Library names: {valid} (with @k for a "
            f"cutoff, @r for a recall level); trec_eval names: {trec} (with "
            f".k,k,... for cutoffs); nicknames: {', '.join(NICKNAMES)}"
        )
    if cut and level:
        try:
            valid_level = 0.0 <= float(cut) <= 1.0
        except ValueError:
            valid_level = False
        if not valid_level:
            raise MeasureError(
                f"the recall level in {name!r} must be a number in [0, 1], as in "
                f"'{base}@0.5'"
            )
    elif cut and not (cut.isdigit() and int(cut) >= 1):
        raise MeasureError(
            f"the cutoff in {name!r} must be a positive integer, as in '{base}@10'"
        )
    return Measure(name, name, (len(TREC_MEASURES), position))


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
    position = 0
    for spec in (item for s in specs for item in split_list(s, known_set)):
        name, dot, params = spec.partition(".")
        match = _OUTPUT_NAME.match(spec)
        if name in NICKNAMES and not dot:
            for trec in NICKNAMES[name]:
                measures += _trec(trec, None, known_set)
            skipped += [s for s in NOT_IMPLEMENTED[name] if s not in skipped]
        elif name in TREC_MEASURES:
            measures += _trec(name, params if dot else None, known_set)
        elif match:
            trec_name = match.group(1) or match.group(3)
            measures += _trec(trec_name, match.group(2) or match.group(4), known_set)
        else:
            measures.append(_library(spec, known_set, position))
            position += 1
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
    for name, (metric, takes_k, _) in TREC_MEASURES.items():
        level = name == "iprec_at_recall"
        trec = f"{name}.r,..." if level else f"{name}.k,..." if takes_k else name
        library = "-" if metric is None else metric
        if metric is not None and takes_k:
            library += "@r" if level else "@k"
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
