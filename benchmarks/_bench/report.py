"""Tables (plain or markdown) and the summary of headline ratios."""

from __future__ import annotations

from .common import SRANK_EVAL, SRANK_GAUC
from .device import DEVICE_HEADERS
from .sections import _summarise_sorts


def _find(rows, scenario, work, rows_n=None):
    for r in rows:
        if r["scenario"] == scenario and r["work"] == work and r["median"]:
            if rows_n is None or r["rows"] == rows_n:
                return r
    return None


def headline(results: dict) -> list[list[str]]:
    """The ratios issue 5's targets are about, read off this run's rows.

    The targets themselves (the limits) are in docs/benchmarks.md.
    """
    rows = results.get("table") or []
    out: list[list[str]] = []

    def add(name, value, fmt=".2f"):
        name = name.replace(", 0 rows", "")
        out.append([name, "not measured" if value is None else format(value, fmt)])

    sizes = sorted({r["rows"] for r in rows if r["scenario"] == "typical/shuffled"})
    big = [n for n in sizes if n >= 1_000_000] or sizes[-1:]
    for n in big:
        r = _find(rows, "typical/shuffled", SRANK_EVAL, n)
        add(
            f"1. evaluate ÷ lexsort, typical shuffled, {n:_} rows",
            r and r["vs_lexsort"],
        )
        r = _find(rows, "typical/contiguous", SRANK_EVAL, n)
        add(
            f"2. evaluate ÷ lexsort, contiguous groups, {n:_} rows",
            r and r["vs_lexsort"],
        )
    n3 = 1_000_000 if 1_000_000 in sizes else (sizes[-1] if sizes else None)
    for label in ("pytrec_eval", "ranx", "torchmetrics"):
        r = next(
            (
                x
                for x in rows
                if x["scenario"] == "typical/shuffled"
                and x["rows"] == n3
                and x["work"].startswith(label)
                and x["vs_srank"]
            ),
            None,
        )
        add(
            f"3. {label} ÷ evaluate, {n3 or 0:_} rows",
            r and r["vs_srank"],
            ".1f",
        )
    checks = results.get("check")
    if checks is not None:
        bad = [c["peer"] for c in checks if not c["ok"]]
        out.append(
            [
                "3. same values as every peer checked",
                ", ".join(bad) or "all agree",
            ]
        )
    small = sorted({r["rows"] for r in rows if r["scenario"] == "small/shuffled"})
    n4 = 1_000_000 if 1_000_000 in small else (small[-1] if small else None)
    r = _find(rows, "small/shuffled", SRANK_GAUC, n4)
    add(
        f"4. gauc_score ÷ lexsort, small groups, {n4 or 0:_} rows",
        r and r["vs_lexsort"],
    )
    r = _find(rows, "small/shuffled", "per-group roc_auc_score loop (GAUC)", n4)
    add(
        f"4. roc_auc_score loop ÷ gauc_score, {n4 or 0:_} rows",
        r and r["vs_srank"],
        ".0f",
    )
    for m in results.get("memory") or []:
        if m["work"] in ("evaluate", "gauc") and m.get("bytes_per_row") is not None:
            add(
                f"5. {m['work']} peak bytes/row above inputs, {m['dist']}, "
                f"{m['rows']:_} rows",
                m["bytes_per_row"],
                ".1f",
            )
    for dist in ("typical", "tiny", "huge"):
        per_row = [
            r["median"] / r["rows"]
            for r in rows
            if r["scenario"] == f"{dist}/shuffled"
            and r["work"] == SRANK_EVAL
            and r["median"]
        ]
        if len(per_row) > 1:
            add(
                f"6. evaluate time/row, largest ÷ smallest over sizes, {dist}",
                max(per_row) / min(per_row),
            )
    for dist in ("tiny", "huge"):
        for n in [x for x in sizes if x >= 1_000_000] or sizes[-1:]:
            r = _find(rows, f"{dist}/shuffled", SRANK_EVAL, n)
            if r:
                add(
                    f"6. evaluate ÷ lexsort, {dist} groups, {n:_} rows",
                    r["vs_lexsort"],
                )
    sorts = results.get("sorts") or {}
    sc = sorts.get("scorer") or {}
    if "1 metric" in sc and "5 metrics" in sc:
        cut = sorts["rows"] // 10
        one, five = (
            sum(1 for x in sc[k] if x[1] is not None and x[1] >= cut)
            for k in ("1 metric", "5 metrics")
        )
        add(
            "7. extra sorts of the 5-metric scorer over the 1-metric one, per call",
            (five - one) / sc["scoring_calls"],
        )
    imp = results.get("import")
    if imp:
        add(
            "7. ms added to import sklearn.metrics (-X importtime cumulative)",
            imp["importtime_cumulative"] and imp["importtime_cumulative"] * 1e3,
            ".0f",
        )
        add(
            "7. ms added to import sklearn.metrics (wall, difference of medians)",
            imp["added"] * 1e3,
            ".0f",
        )
    return out


def _fmt(x: float | None, spec: str) -> str:
    return "" if x is None else format(x, spec)


def _table(headers: list[str], body: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(headers) + " |"]
        lines.append("|" + "|".join("---" for _ in headers) + "|")
        lines += ["| " + " | ".join(r) + " |" for r in body]
        return "\n".join(lines)
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(headers)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [fmt.format(*headers), fmt.format(*("-" * w for w in widths))]
    out += [fmt.format(*r) for r in body]
    return "\n".join(line.rstrip() for line in out)


SHAPE_HEADERS = [
    "shape",
    "rows",
    "groups",
    "evaluate s",
    "lexsort s",
    "÷ lexsort",
    "evaluate, int ids s",
    "÷ int ids",
    "runs",
    "note",
]


def _shape_line(r: dict) -> list[str]:
    return [
        r["label"],
        f"{r['rows']:_}" if "rows" in r else "",
        f"{r['groups']:_}" if "groups" in r else "",
        _fmt(r.get("evaluate"), ".4g"),
        _fmt(r.get("lexsort"), ".4g"),
        _fmt(r.get("vs_lexsort"), ".2f"),
        _fmt(r.get("evaluate_int_ids"), ".4g"),
        _fmt(r.get("vs_int_ids"), ".2f"),
        str(r.get("runs", "")),
        r.get("note", ""),
    ]


def render(results: dict, markdown: bool) -> str:
    parts = []
    h = "### " if markdown else "== "
    m = results["machine"]
    parts.append(
        f"{h}machine: {m['nproc']} CPUs, {m['cpu']}, {m['memory_gib']} GiB; "
        + ", ".join(f"{k} {v}" for k, v in m["versions"].items())
        + f"; load average at start {m['load_average']}"
    )
    rows = results.get("table")
    if rows:
        headers = [
            "scenario",
            "rows",
            "groups",
            "work",
            "median s",
            "sys s",
            "runs",
            "ns/row",
            "÷ lexsort",
            "÷ sklearn_rank",
            "note",
        ]
        body = []
        for r in rows:
            per_row = r["median"] * 1e9 / r["rows"] if r["median"] else None
            body.append(
                [
                    r["scenario"],
                    f"{r['rows']:_}",
                    f"{r['groups']:_}",
                    r["work"],
                    _fmt(r["median"], ".4g"),
                    _fmt(r.get("sys_median"), ".2g"),
                    str(r["runs"]),
                    _fmt(per_row, ".1f"),
                    _fmt(r["vs_lexsort"], ".3f"),
                    _fmt(r["vs_srank"], ".1f"),
                    r["note"],
                ]
            )
        parts += [
            f"{h}timings (median of runs after a warm-up)",
            _table(headers, body, markdown),
        ]
    checks = results.get("check")
    if checks is not None:
        body = [
            [
                c["peer"],
                c["data"],
                c["options"],
                ", ".join(f"{k} {v:.1e}" for k, v in c["diffs"].items()),
                _fmt(c["max_diff"], ".2e"),
                "ok" if c["ok"] else "MISMATCH",
                c["note"],
            ]
            for c in checks
        ]
        headers = [
            "peer",
            "data",
            "sklearn_rank options",
            "abs diff",
            "max",
            "",
            "note",
        ]
        parts += [f"{h}value agreement", _table(headers, body, markdown)]
    mem = results.get("memory")
    if mem:
        body = []
        for r in mem:
            if "error" in r:
                body.append(
                    [r["dist"], f"{r['rows']:_}", r["work"], "", "", str(r["error"])]
                )
                continue
            body.append(
                [
                    r["dist"],
                    f"{r['rows']:_}",
                    r["work"],
                    f"{r['inputs'] / r['rows']:.0f}",
                    f"{r['bytes_per_row']:.1f}",
                    f"{r['peak'] / 2**20:.0f}",
                ]
            )
        headers = [
            "dist",
            "rows",
            "work",
            "input B/row",
            "peak B/row above inputs",
            "peak RSS MiB",
        ]
        parts += [
            f"{h}memory (fresh process per line)",
            _table(headers, body, markdown),
        ]
    imp = results.get("import")
    if imp:
        body = [
            ["import sklearn.metrics", f"{imp['plain'] * 1e3:.0f}", ""],
            ["import sklearn.metrics, sklearn_rank", f"{imp['with'] * 1e3:.0f}", ""],
            [
                "added by sklearn_rank (difference of medians)",
                f"{imp['added'] * 1e3:.0f}",
                "",
            ],
            [
                "sklearn_rank cumulative (-X importtime)",
                _fmt(
                    imp["importtime_cumulative"] and imp["importtime_cumulative"] * 1e3,
                    ".0f",
                ),
                ", ".join(f"{n} {s * 1e3:.0f} ms" for n, s in imp["heaviest"]),
            ],
        ]
        parts += [
            f"{h}import time (median of {imp['repeats']} fresh interpreters)",
            _table(["what", "ms", "heaviest new imports (self time)"], body, markdown),
        ]
    sorts = results.get("sorts")
    if sorts:
        body = []
        if "error" in sorts:
            body.append(["error", str(sorts["error"])])
        else:
            n = sorts["rows"]
            for key in ("evaluate ndcg@10", "evaluate 5 metrics", "gauc_score"):
                body.append(
                    [f"{key} ({n:_} rows)", _summarise_sorts(sorts[key], n // 2)]
                )
            sc = sorts["scorer"]
            if "skipped" in sc:
                body.append(["GridSearchCV scorer", "skipped: " + sc["skipped"]])
            else:
                calls = sc["scoring_calls"]
                for key in ("1 metric", "5 metrics"):
                    big = [r for r in sc[key] if r[1] is not None and r[1] >= n // 10]
                    body.append(
                        [
                            f"GridSearchCV + {sc[key + ' scorer']}, {key} "
                            f"({calls} scoring calls, "
                            f"{len(sc[key + ' columns'])} mean_test_* columns)",
                            f"{len(big) / calls:.2f} fold-length sorts per call "
                            f"({len(big)} in all)",
                        ]
                    )
        parts += [
            f"{h}sorts done by sklearn_rank code (arrays of >= half the rows;"
            " in GridSearchCV, of >= a tenth of the rows, a fold has a third)",
            _table(["call", "sorts"], body, markdown),
        ]
    shapes = results.get("shapes")
    if shapes:
        parts += [
            f"{h}input shapes (issue 14): evaluate, 5 metrics, ties averaged",
            _table(SHAPE_HEADERS, [_shape_line(r) for r in shapes], markdown),
        ]
    device = results.get("device")
    if device:
        body = [
            [
                r["device"],
                f"{r.get('rows', 0):_}",
                f"{r.get('groups', 0):_}",
                r["work"],
                _fmt(r.get("median"), ".4g"),
                str(r.get("runs", "")),
                _fmt(r.get("vs_numpy"), ".3f"),
                _fmt(r.get("peak_gb"), ".3g"),
                r.get("note", ""),
            ]
            for r in device
        ]
        parts += [
            f"{h}array API inputs: evaluate (5 metrics) on PyTorch tensors",
            _table(DEVICE_HEADERS, body, markdown),
        ]
    goals = headline(results)
    if goals:
        parts += [
            f"{h}headline ratios (the targets are in docs/benchmarks.md)",
            _table(["ratio", "measured"], goals, markdown),
        ]
    return "\n\n".join(parts)
