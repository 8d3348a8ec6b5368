"""
Validating a PyTorch ranker every epoch
=======================================

A neural ranker's epoch is picked by its validation NDCG. Here a small PyTorch
model is trained with a listwise loss, and after every epoch the validation
queries are scored batch by batch into a :class:`sklearn_rank.RankingAccumulator`.
Batches cut queries in two; the accumulator joins them, and its ``compute()`` is
the number one :func:`sklearn_rank.evaluate` call gives on the whole validation
set (ties averaged, queries without a relevant row left out of the mean).

This example needs PyTorch (``pip install torch``); the gallery shows it without
running it, and ``tests/test_examples_training.py`` runs it.
"""

# %%
# The bundled LambdaRank sample: training queries to learn from, test queries
# to validate on, in row batches of 256 that do not respect query boundaries.
import numpy as np
import torch

from sklearn_rank import RankingAccumulator, evaluate
from sklearn_rank.datasets import load_lambdarank

torch.manual_seed(0)
train, valid = load_lambdarank(subset="train"), load_lambdarank(subset="test")
mean, std = train.data.mean(axis=0), train.data.std(axis=0) + 1e-6
X_train = torch.tensor((train.data - mean) / std, dtype=torch.float32)
X_valid = torch.tensor((valid.data - mean) / std, dtype=torch.float32)
y_train = torch.tensor(train.target, dtype=torch.float32)
_, q_train = np.unique(train.groups, return_inverse=True)
q_train = torch.tensor(q_train)
n_queries = int(q_train.max()) + 1

model = torch.nn.Sequential(
    torch.nn.Linear(X_train.shape[1], 32), torch.nn.ReLU(), torch.nn.Linear(32, 1)
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)


def listnet_loss(scores, labels, queries):
    """ListNet's top-one cross-entropy, summed over queries (softmax per query)."""
    e = torch.exp(scores.clamp(-30, 30))  # scores of a small net: no overflow
    p = e / torch.zeros(n_queries).index_add_(0, queries, e)[queries]
    t = torch.exp(labels)
    target = t / torch.zeros(n_queries).index_add_(0, queries, t)[queries]
    return -(target * torch.log(p + 1e-12)).sum() / n_queries


# %%
# Train for a few epochs; validate after each one through the accumulator.
acc = RankingAccumulator(["ndcg@10", "map"])
history = []
for epoch in range(8):
    model.train()
    for _ in range(20):
        optimizer.zero_grad()
        loss = listnet_loss(model(X_train).squeeze(1), y_train, q_train)
        loss.backward()
        optimizer.step()
    model.eval()
    acc.reset()
    with torch.no_grad():
        for start in range(0, len(valid.target), 256):
            rows = slice(start, start + 256)
            acc.update(
                valid.target[rows], model(X_valid[rows]).squeeze(1), valid.groups[rows]
            )
    history.append(acc.compute())
    print(f"epoch {epoch}: loss {loss.item():.4f}, validation {history[-1]}")

best = int(np.argmax([h["ndcg@10"] for h in history]))
print(f"best epoch by validation NDCG@10: {best}")

# %%
# The last epoch's accumulated value is one ``evaluate`` on the whole set.
with torch.no_grad():
    scores = model(X_valid).squeeze(1).numpy()
whole = evaluate(valid.target, scores, groups=valid.groups, metrics=["ndcg@10", "map"])
print(whole)
assert all(abs(whole[m] - history[-1][m]) <= 1e-12 for m in whole)
