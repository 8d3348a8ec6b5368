#!/usr/bin/env python
"""Record RecBole's and RecTools' metric values on one shared recommender fixture.

The peers pin old libraries, so each runs in its own virtual environment, never
in the project's (this script imports neither numpy-incompatible peer nor
sklearn_rank in the same process)::

    python -m venv /tmp/peers46 && /tmp/peers46/bin/pip install rectools
    /tmp/peers46/bin/python benchmarks/compare_recsys_peers.py rectools

    python -m venv --system-site-packages /tmp/peers46rb
    /tmp/peers46rb/bin/pip install --no-deps recbole
    /tmp/peers46rb/bin/pip install colorlog tensorboard texttable
    /tmp/peers46rb/bin/python benchmarks/compare_recsys_peers.py recbole

Each run writes ``tests/data/recsys_peers_<peer>.json``: the fixture (scores,
training and held-out interactions, item features, the top-k lists), the
peer's version, this command and the peer's value of each metric at k = 1..4.
``tests/test_recsys_peers.py`` recomputes them with sklearn_rank and checks the
values to 1e-12 where the definitions agree, and the stated relation where
they do not (docs/recsys.md, "Where the libraries disagree").

The lists are computed here by brute force (candidates = items not in
training, by descending score then ascending item id), independently of
``sklearn_rank.recsys.top_k``.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

N_USERS, N_ITEMS, K_MAX = 6, 10, 4
OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data")


def fixture() -> dict:
    rng = np.random.default_rng(46)
    scores = np.round(rng.random((N_USERS, N_ITEMS)), 3)
    assert all(len(set(row)) == N_ITEMS for row in scores)  # no ties
    train, test = [], []
    for u in range(N_USERS):
        items = rng.permutation(N_ITEMS)
        n_train, n_test = 2 + u % 2, 1 + u % 3
        train += [[u, int(i)] for i in items[:n_train]]
        test += [[u, int(i)] for i in items[n_train : n_train + n_test]]
    # every item has a training interaction (no cold item, whose novelty
    # RecTools takes as one user's and sklearn_rank refuses)
    seen = {i for _, i in train}
    for i in range(N_ITEMS):
        if i not in seen:
            train.append([int(i) % N_USERS, i])
    train = sorted({tuple(p) for p in train} - {tuple(p) for p in test})
    features = rng.integers(0, 2, size=(N_ITEMS, 5))
    features[features.sum(axis=1) == 0, 0] = 1  # cosine needs non-zero rows
    lists = []
    for u in range(N_USERS):
        banned = {i for v, i in train if v == u}
        cand = [i for i in range(N_ITEMS) if i not in banned]
        cand.sort(key=lambda i: (-scores[u, i], i))
        lists.append(cand[:K_MAX])
    return {
        "n_users": N_USERS,
        "n_items": N_ITEMS,
        "k_max": K_MAX,
        "scores": scores.tolist(),
        "train": [list(p) for p in train],
        "test": test,
        "item_features": features.tolist(),
        "lists": lists,
    }


def recbole_values(fx: dict) -> tuple[str, dict]:
    import recbole
    from recbole.evaluator import metrics as rb

    # RecBole 1.2.1 still calls np.float and np.bool (gone in numpy 1.24)
    setattr(np, "float", float)  # noqa: B010
    setattr(np, "bool", bool)  # noqa: B010
    config = {"topk": list(range(1, K_MAX + 1)), "metric_decimal_place": 12}
    lists = np.array(fx["lists"])
    test = {(u, i) for u, i in fx["test"]}
    pos_index = np.array([[(u, i) in test for i in row] for u, row in enumerate(lists)])
    pos_len = np.bincount([u for u, _ in fx["test"]], minlength=N_USERS)
    count = np.bincount([i for _, i in fx["train"]], minlength=N_ITEMS)
    item_count = {i: int(c) for i, c in enumerate(count)}
    out = {}
    for name, cls in [
        ("hit", rb.Hit),
        ("mrr", rb.MRR),
        ("precision", rb.Precision),
    ]:
        out[name] = cls(config).metric_info(pos_index).mean(axis=0).tolist()
    for name, cls in [("ndcg", rb.NDCG), ("map", rb.MAP), ("recall", rb.Recall)]:
        out[name] = cls(config).metric_info(pos_index, pos_len).mean(axis=0).tolist()
    pop = rb.AveragePopularity(config)
    out["averagepopularity"] = (
        pop.metric_info(pop.get_pop(lists, item_count)).mean(axis=0).tolist()
    )
    for ratio in (0.1, 0.5, 2):
        tail = rb.TailPercentage({**config, "tail_ratio": ratio})
        out[f"tailpercentage(tail_ratio={ratio})"] = (
            tail.metric_info(tail.get_tail(lists, item_count)).mean(axis=0).tolist()
        )
    for name, cls, method, extra in [
        ("itemcoverage", rb.ItemCoverage, "get_coverage", (N_ITEMS,)),
        ("giniindex", rb.GiniIndex, "get_gini", (N_ITEMS,)),
        ("shannonentropy", rb.ShannonEntropy, "get_entropy", ()),
    ]:
        metric = cls(config)
        out[name] = [
            float(getattr(metric, method)(lists[:, :k], *extra))
            for k in range(1, K_MAX + 1)
        ]
    return recbole.__version__, out


def rectools_values(fx: dict) -> tuple[str, dict]:
    import pandas as pd
    import rectools
    from rectools import Columns
    from rectools.metrics import (
        MAP,
        MRR,
        NDCG,
        AvgRecPopularity,
        CatalogCoverage,
        HitRate,
        IntraListDiversity,
        MeanInvUserFreq,
        PairwiseHammingDistanceCalculator,
        Precision,
        Recall,
        Serendipity,
    )
    from rectools.metrics.distances import PairwiseDistanceCalculator

    reco = pd.DataFrame(
        [[u, i, r + 1] for u, row in enumerate(fx["lists"]) for r, i in enumerate(row)],
        columns=[Columns.User, Columns.Item, Columns.Rank],
    )
    train = pd.DataFrame(fx["train"], columns=[Columns.User, Columns.Item])
    test = pd.DataFrame(fx["test"], columns=[Columns.User, Columns.Item])
    feats = np.array(fx["item_features"], dtype=float)
    catalog = list(range(N_ITEMS))

    class Cosine(PairwiseDistanceCalculator):
        def _get_distances_for_item_pairs(self, items_0, items_1):
            a, b = feats[np.asarray(items_0)], feats[np.asarray(items_1)]
            dot = (a * b).sum(axis=1)
            return 1 - dot / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))

    hamming = PairwiseHammingDistanceCalculator(pd.DataFrame(feats, index=catalog))
    makers = {
        "Precision": lambda k: (Precision(k), (reco, test)),
        "Recall": lambda k: (Recall(k), (reco, test)),
        "HitRate": lambda k: (HitRate(k), (reco, test)),
        "MAP": lambda k: (MAP(k), (reco, test)),
        "MAP(divide_by_k=True)": lambda k: (MAP(k, divide_by_k=True), (reco, test)),
        "NDCG(divide_by_achievable=True)": lambda k: (
            NDCG(k, divide_by_achievable=True),
            (reco, test),
        ),
        "NDCG": lambda k: (NDCG(k), (reco, test)),
        "MRR": lambda k: (MRR(k), (reco, test)),
        "CatalogCoverage(normalize=True)": lambda k: (
            CatalogCoverage(k, normalize=True),
            (reco, catalog),
        ),
        "AvgRecPopularity": lambda k: (AvgRecPopularity(k), (reco, train)),
        "AvgRecPopularity(normalize=True)": lambda k: (
            AvgRecPopularity(k, normalize=True),
            (reco, train),
        ),
        "MeanInvUserFreq": lambda k: (MeanInvUserFreq(k), (reco, train)),
        "IntraListDiversity(hamming)": lambda k: (
            IntraListDiversity(k, hamming),
            (reco,),
        ),
        "IntraListDiversity(cosine)": lambda k: (
            IntraListDiversity(k, Cosine()),
            (reco,),
        ),
        "Serendipity": lambda k: (Serendipity(k), (reco, test, train, catalog)),
    }
    out = {}
    for name, make in makers.items():
        values = []
        for k in range(1, K_MAX + 1):
            metric, args = make(k)
            values.append(float(metric.calc(*args)))
        out[name] = values
    return rectools.__version__, out


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in ("recbole", "rectools"):
        print(__doc__)
        return 2
    peer = argv[0]
    fx = fixture()
    version, values = (recbole_values if peer == "recbole" else rectools_values)(fx)
    record = {
        "peer": peer,
        "version": version,
        "numpy": np.__version__,
        "command": f"<venv>/bin/python benchmarks/compare_recsys_peers.py {peer}",
        "note": "values[name][k - 1] is the peer's mean over users at cutoff k",
        "fixture": fx,
        "values": values,
    }
    path = os.path.join(OUT, f"recsys_peers_{peer}.json")
    with open(path, "w") as fh:
        json.dump(record, fh, indent=1)
        fh.write("\n")
    print(f"wrote {os.path.normpath(path)} ({peer} {version})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
