"""
Relevance vs diversity per model
================================

An ambiguous query ("jaguar": the car, the cat, the football team) has several
intents, and a ranking that serves only the most popular one can score well on
nDCG while failing every user with another intent. The intent-aware metrics of
:func:`sklearn_rank.evaluate_intents` read relevance per (document, intent):
alpha-nDCG discounts a document's gain for an intent by ``(1 - alpha)`` for every
document ranked above it that already covered that intent, and subtopic recall
counts the intents covered at all. Here three rankers on simulated queries with a
popular intent and rarer ones: nDCG and alpha-nDCG disagree on which is best.
"""

# %%
# Simulated queries: 40 documents each, 4 intents, the first five times as likely
# as each other to have relevant documents. ``y_true`` is 2-D: one column per
# intent, grades 0 (not relevant), 1 or 2.
import matplotlib.pyplot as plt
import numpy as np

from sklearn_rank import evaluate_intents, ndcg_score

rng = np.random.default_rng(0)
n_queries, per_query, n_intents = 200, 40, 4
groups = np.repeat(np.arange(n_queries), per_query)
n = groups.size
popularity = np.array([0.5, 0.1, 0.1, 0.1])
relevant = rng.random((n, n_intents)) < popularity * 0.5
y_true = relevant * rng.integers(1, 3, (n, n_intents))
best_grade = y_true.max(axis=1)  # the single label of nDCG

# %%
# Three rankers:
#
# * **relevance**: a noisy estimate of each document's best grade, plus a bonus
#   for the popular intent (what a click-trained model learns);
# * **diversified**: the same scores re-ranked greedily, each next document the
#   one of largest score minus a penalty per intent it repeats (xQuAD-like, with
#   the intents known up to noise);
# * **random**.
relevance = best_grade + 0.8 * relevant[:, 0] + rng.normal(0, 0.6, n)


def diversify(score, intents, penalty=0.4):
    """A greedy re-ranking of one query: returns scores in the new order."""
    left, seen = list(range(len(score))), np.zeros(intents.shape[1])
    out = np.empty(len(score))
    for position in range(len(score)):
        gain = [score[i] - penalty * (intents[i] * seen).sum() for i in left]
        pick = left.pop(int(np.argmax(gain)))
        out[pick] = len(score) - position
        seen += intents[pick]
    return out


noisy = relevant ^ (rng.random(relevant.shape) < 0.1)  # the intents, 10 % wrong
diversified = np.concatenate(
    [
        diversify(relevance[groups == q], noisy[groups == q].astype(float))
        for q in range(n_queries)
    ]
)
models = {
    "relevance": relevance,
    "diversified": diversified,
    "random": rng.random(n),
}

# %%
# Relevance (nDCG@10 on each document's best grade) and diversity (alpha-nDCG@10,
# subtopic recall@10) per model: the diversified ranker gives up some nDCG
# and covers more intents.
metrics = ["alpha_ndcg@10", "subtopic_recall@10"]
table = {}
for name, score in models.items():
    table[name] = {"ndcg@10": ndcg_score(best_grade, score, groups=groups, k=10)}
    table[name].update(evaluate_intents(y_true, score, groups=groups, metrics=metrics))
    print(name, {m: round(v, 3) for m, v in table[name].items()})

# %%
# On the left the three metrics per model; on the right alpha-nDCG@10 as alpha,
# the penalty for redundancy, grows from 0 (every relevant (document, intent)
# pair counts fully) to 0.9: without a penalty the relevance ranker leads, from
# about 0.4 the diversified one does (ndeval's default is 0.5).
alphas = np.linspace(0.0, 0.9, 7)
curves = {
    name: [
        evaluate_intents(
            y_true, score, groups=groups, metrics=["alpha_ndcg@10"], alpha=a
        )["alpha_ndcg@10"]
        for a in alphas
    ]
    for name, score in models.items()
}

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
names = ["ndcg@10", *metrics]
width = 0.25
for i, (name, values) in enumerate(table.items()):
    bars = left.bar(
        np.arange(len(names)) + (i - 1) * width,
        [values[m] for m in names],
        width,
        label=name,
    )
    left.bar_label(bars, fmt="%.2f", fontsize=7)
left.set_xticks(np.arange(len(names)), names)
left.set_ylim(0, 1.2)
left.set_yticks(np.linspace(0, 1, 6))
left.set_title("Relevance and diversity per model")
left.legend(loc="upper center", ncols=3)
for name, values in curves.items():
    right.plot(alphas, values, marker="o", label=name)
right.set_xlabel("alpha (redundancy penalty)")
right.set_ylabel("alpha-nDCG@10")
right.set_ylim(0, 1)
right.set_title("Redundancy costs the relevance ranker")
right.legend()
plt.show()
