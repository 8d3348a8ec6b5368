"""``sklearn-rank eval -R qrels_jg``: judgments from several judgment groups.

In trec_eval's ``qrels_jg`` format the second field of a qrels line names a
judgment group (a user, an assessor). The ``*_avgjg`` measures (``map_avgjg``,
``P_avgjg``, ``Rprec_mult_avgjg``) compute their base measure against each
group's judgments and average over the groups that judged the query
(``m_map_avgjg.c``, ``form_res_rels_jg.c``). Here each group's judgments are
joined with the run as plain qrels and scored by the library, one call per group;
only the mean over groups is computed here.
"""

from __future__ import annotations

import io

from ._measures import TREC_MEASURES, Measure, _defaults, _trec
from ._output import RunResult

# trec_eval's judgment-group measures, in its printing order, and their base.
AVGJG = {"map_avgjg": "map", "P_avgjg": "P", "Rprec_mult_avgjg": "Rprec_mult"}
NICKNAME = ["runid", "num_q", *AVGJG]


class JudgmentGroupError(ValueError):
    """A measure that -R qrels_jg cannot compute, or an *_avgjg one without it."""


def parse_measures(
    specs: list[str], known: set[str]
) -> tuple[list[Measure], dict[str, list[Measure]], list[str]]:
    """``-m`` values under ``-R qrels_jg`` -> the printed measures, the base
    measures of each ``*_avgjg`` label, and the names not implemented."""
    from ._measures import split_list

    names: list[tuple[str, str | None]] = []
    for spec in specs:
        for item in split_list(spec, known | set(AVGJG)):
            name, dot, params = item.partition(".")
            if name == "qrels_jg" and not dot:
                names += [(n, None) for n in NICKNAME]
            elif name in AVGJG or name in ("runid", "num_q"):
                names.append((name, params if dot else None))
            else:
                raise JudgmentGroupError(
                    f"-R qrels_jg: measure {item!r} is not computed from judgment "
                    "groups; the measures are runid, num_q, "
                    + ", ".join(AVGJG)
                    + " (nickname qrels_jg), as in trec_eval"
                )
    printed: dict[str, Measure] = {}
    bases: dict[str, list[Measure]] = {}
    skipped: list[str] = []
    for name, params in names:
        position = NICKNAME.index(name)
        if name in ("runid", "num_q"):
            printed.setdefault(name, Measure(name, None, (position, 0)))
            continue
        base = AVGJG[name]
        if base not in TREC_MEASURES:
            skipped.append(name)
            continue
        found = _defaults(base) if params is None else _trec(base, params)
        for m in found:
            label = name + m.label[len(base) :]  # P_5 -> P_avgjg_5
            printed.setdefault(label, Measure(label, m.metric, (position, m.order[1])))
            bases.setdefault(label, []).append(m)
    return sorted(printed.values(), key=lambda m: m.order), bases, skipped


def split_groups(path: str) -> dict[str, io.BytesIO]:
    """One qrels stream per judgment group: the file with the other groups' lines
    blanked, so that line numbers in messages stay those of the file."""
    from ..io import read_bytes

    data, name = read_bytes(path)
    lines = data.splitlines(keepends=True)
    groups: dict[str, list[bytes]] = {}
    for i, line in enumerate(lines):
        fields = line.split()
        if not fields:
            continue
        group = fields[1].decode("utf-8", "replace") if len(fields) > 1 else ""
        groups.setdefault(group, [b"\n"] * len(lines))[i] = line
    out = {}
    for group, body in groups.items():
        stream = io.BytesIO(b"".join(body))
        stream.name = f"{name} (judgment group {group})"
        out[group] = stream
    return out


def score_run(path, qrels_path, measures, bases, keywords, options, args, only=None):
    """The ``*_avgjg`` values of one run: per query, the mean over the judgment
    groups of that query of the base measure's value against that group."""

    from ..io import join_columns, read_qrels_columns, read_run_columns
    from ._inputs import check_overlap, from_join, stdin_or_path
    from ._scores import score

    run = read_run_columns(stdin_or_path(path))
    base_measures = list({m.label: m for ms in bases.values() for m in ms}.values())
    sums: dict[str, dict[str, float]] = {}
    n_groups: dict[str, int] = {}
    any_overlap = False
    for stream in split_groups(qrels_path).values():
        qrels = read_qrels_columns(stream)
        joined = join_columns(
            qrels, run, complete=args.complete, max_docs_per_query=args.max_docs
        )
        if not len(joined):
            continue  # no query of this group is in the run (and no -c)
        any_overlap = True
        one = from_join(path, run.run_tag, joined, args.max_docs)
        one.pooled = None  # (as before: the judged rows only)
        result = score(one, base_measures, keywords, options, True, n_jobs=args.jobs)
        for qid, row in result.per_query.items():
            n_groups[qid] = n_groups.get(qid, 0) + 1
            total = sums.setdefault(qid, {})
            for label, ms in bases.items():
                for m in ms:
                    total[label] = total.get(label, 0.0) + row[m.label]
    if not any_overlap:
        check_overlap(joined, run.source, qrels_path)
    qids = sorted(sums)  # trec_eval's order: the qrels' query ids as strings
    if only is not None:  # -D 0.QID
        if only not in sums:
            raise ValueError(
                f"-D 0.{only}: query {only!r} is not among the judged queries of "
                f"run {path!r}"
            )
        qids = [only]
    per_query = {
        q: {label: sums[q][label] / n_groups[q] for label in bases} for q in qids
    }
    summary: dict[str, object] = {}
    for m in measures:
        if m.label == "runid":
            summary[m.label] = run.run_tag
        elif m.label == "num_q":
            summary[m.label] = len(qids)
        else:
            total = 0.0
            for q in qids:  # trec_eval's order of additions
                total += per_query[q][m.label]
            summary[m.label] = total / max(len(qids), 1)
    return RunResult(name=run.run_tag or path, summary=summary, per_query=per_query)
