"""The engine's building blocks against independent, plain definitions."""

import numpy as np
import pytest

import sklearn_rank
from sklearn_rank._engine.context import RankingContext
from sklearn_rank._engine.group_codes import encode_groups
from sklearn_rank._engine.ordering import _one_key_order, order_rows


def random_rows(n, n_groups, n_scores, seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_groups, size=n)
    score = rng.integers(0, n_scores, size=n).astype(float)
    labels = rng.integers(0, 3, size=n).astype(float)
    return codes, score, labels


@pytest.mark.parametrize(
    "n, n_groups",
    [(1, 1), (50, 1), (2_000, 7), (200_000, 70_000), (150_000, 140_000)],
    ids=["one-row", "one-group", "radix-16", "radix-2x16", "tiny-groups"],
)
@pytest.mark.parametrize("ties", ["stable", "pessimistic", "optimistic"])
def test_order_rows_matches_lexsort(n, n_groups, ties):
    codes, score, labels = random_rows(n, n_groups, 50, seed=n)
    codes = np.unique(codes, return_inverse=True)[1]
    n_groups = int(codes.max()) + 1
    rows = np.arange(n)
    secondary = {"stable": rows, "pessimistic": labels, "optimistic": -labels}[ties]
    # lexsort is stable, so remaining ties keep input order in every policy.
    expected = np.lexsort((secondary, -score, codes))
    got, _ = order_rows(codes, score, labels, ties, n_groups)
    np.testing.assert_array_equal(got, expected)


def test_average_order_groups_rows_by_descending_score():
    codes, score, labels = random_rows(100_000, 80_000, 20, seed=3)
    codes = np.unique(codes, return_inverse=True)[1]
    got, _ = order_rows(codes, score, labels, "average", int(codes.max()) + 1)
    assert np.array_equal(np.sort(got), np.arange(codes.size))
    c, s = codes[got], score[got]
    assert (np.diff(c) >= 0).all()
    assert (np.diff(s)[np.diff(c) == 0] <= 0).all()


def plain_tie_blocks(codes, score):
    """(start position, size, group) of every run of equal scores in a group, by a
    loop over the rows sorted by group then descending score."""
    order = np.lexsort((-score, codes))
    c, s = codes[order], score[order]
    blocks, i = [], 0
    while i < c.size:
        j = i
        while j + 1 < c.size and c[j + 1] == c[i] and s[j + 1] == s[i]:
            j += 1
        if j > i:
            blocks.append((i, j - i + 1, c[i]))
        i = j + 1
    return blocks


def block_list(ctx):
    """(start, size, group) of each tie block of a context."""
    b = ctx.blocks
    return list(zip(b.start.tolist(), b.size.tolist(), b.group.tolist(), strict=True))


@pytest.mark.parametrize("seed", range(5))
def test_tie_blocks_match_a_plain_scan(seed):
    codes, score, labels = random_rows(3_000, 40, 6, seed)
    ctx = RankingContext.from_inputs(labels, score, codes, 40, ties="average")
    got = block_list(ctx)
    assert got == plain_tie_blocks(codes, score)
    assert (ctx.blocks.rank == ctx.rank[ctx.blocks.start]).all()


@pytest.mark.parametrize("ties", ["average", "threshold"])
@pytest.mark.parametrize(
    "kind",
    ["small-ints", "fractions", "wide-ints", "huge-groups"],
)
def test_tie_blocks_never_cross_groups(kind, ties):
    """Groups of 1 to 3 rows with 3 score values: the last row of a group and the
    first of the next often share a score, which must not join their blocks. Each
    kind takes one path of order_rows: radix passes for small whole numbers, the
    float key for fractions and wide whole numbers, few huge groups."""
    rng = np.random.default_rng(7)
    n_groups = 3 if kind == "huge-groups" else 2_000
    sizes = rng.integers(1, 4, n_groups) * (500 if kind == "huge-groups" else 1)
    codes = np.repeat(np.arange(n_groups), sizes)
    score = rng.integers(0, 3, codes.size).astype(float)
    score = {"fractions": score / 3 + 0.1, "wide-ints": score * 2.0**20}.get(
        kind, score
    )
    perm = rng.permutation(codes.size)
    codes, score = codes[perm], score[perm]
    labels = rng.integers(0, 2, codes.size).astype(float)
    ctx = RankingContext.from_inputs(labels, score, codes, n_groups, ties=ties)
    assert block_list(ctx) == plain_tie_blocks(codes, score)
    order, _ = order_rows(codes, score, labels, ties, n_groups)
    c, s = codes[order], score[order]
    assert (np.diff(c) >= 0).all()
    assert (np.diff(s)[np.diff(c) == 0] <= 0).all()


def test_large_scores_with_a_small_range_keep_groups_apart():
    # Equal scores of 2**60: the key code * 1 - score rounds to multiples of
    # 256, so it would merge 256 groups into one band; the order must come from
    # the fallback and keep every group's rows together.
    # (Whole numbers take the radix path in order_rows: call the key directly.)
    rng = np.random.default_rng(9)
    codes = rng.permutation(np.repeat(np.arange(600), 3))
    score = np.full(codes.size, 2.0**60)
    length = np.bincount(codes)
    found = _one_key_order(codes, score, 600, length)
    assert found is None or (np.diff(codes[found[0]]) >= 0).all()
    got, _ = order_rows(codes, score, np.zeros(codes.size), "average", 600)
    np.testing.assert_array_equal(codes[got], np.sort(codes))


@pytest.mark.parametrize(
    ("n_groups", "decimals", "mostly_tied"),
    [(5, 2, True), (3_000, 2, False), (40, 1, True), (3_000, 6, False)],
)
def test_one_key_order_keeps_input_order_in_ties_on_either_sort(
    n_groups, decimals, mostly_tied
):
    # Mostly tied rows take one stable sort, the others a quicksort and a sort
    # of the tied rows: both give the order of a lexsort by (group, -score,
    # row), the one the prepared path and the threads reproduce bit for bit.
    from sklearn_rank._engine import ordering

    rng = np.random.default_rng(n_groups + decimals)
    n = 60_000
    codes = rng.integers(0, n_groups, n)
    score = np.round(rng.random(n), decimals)
    length = np.bincount(codes, minlength=n_groups)
    key = codes * 2.0 ** (np.frexp(np.ptp(score))[1] + 1) - score
    assert ordering._mostly_tied(key) == mostly_tied
    order, same = _one_key_order(codes, score, n_groups, length)
    expected = np.lexsort((np.arange(n), -score, codes))
    np.testing.assert_array_equal(order, expected)
    ranked = score[order]
    tied = (ranked[1:] == ranked[:-1]) & (codes[order][1:] == codes[order][:-1])
    np.testing.assert_array_equal(same, tied)


def test_stable_ties_of_small_whole_numbers_keep_input_order():
    rng = np.random.default_rng(8)
    codes = rng.integers(0, 300, 5_000)
    score = rng.integers(-3, 4, 5_000).astype(float)
    got, _ = order_rows(codes, score, np.zeros(5_000), "stable", 300)
    np.testing.assert_array_equal(got, np.lexsort((np.arange(5_000), -score, codes)))


def test_resolved_policies_have_no_tie_blocks():
    codes, score, labels = random_rows(500, 5, 3, seed=0)
    for ties in ("stable", "pessimistic", "optimistic"):
        assert not RankingContext.from_inputs(labels, score, codes, 5, ties=ties).blocks


def test_group_exclusive_cumsum_matches_a_loop():
    codes, score, labels = random_rows(2_000, 30, 10, seed=1)
    ctx = RankingContext.from_inputs(labels, score, codes, 30, ties="average")
    values = ctx.y.copy()
    expected = np.zeros_like(values)
    for i in range(1, values.size):
        if ctx.group[i] == ctx.group[i - 1]:
            expected[i] = expected[i - 1] + values[i - 1]
    np.testing.assert_array_equal(ctx.group_exclusive_cumsum(values), expected)


@pytest.mark.parametrize("k", [1, 2, 3, 7])
def test_head_view_gives_the_same_values_as_the_full_view(k, monkeypatch):
    rng = np.random.default_rng(k)
    groups = np.repeat(np.arange(60), rng.integers(5, 30, size=60))
    y = rng.integers(0, 3, groups.size)
    s = rng.integers(0, 5, groups.size)
    names = [f"{m}@{k}" for m in ("ndcg", "dcg", "map", "mrr", "precision", "recall")]
    names.append(f"hit_rate@{k}")
    with_head = sklearn_rank.evaluate(y, s, groups=groups, metrics=names)
    monkeypatch.setattr(RankingContext, "head", lambda self, k: self)
    full = sklearn_rank.evaluate(y, s, groups=groups, metrics=names)
    assert with_head == pytest.approx(full, rel=1e-13)


@pytest.mark.parametrize("ties", ["average", "stable", "threshold"])
def test_head_cut_from_a_deeper_head_holds_the_rows_of_one_cut(ties):
    """head(k) cut from head(k') (k' > k, made first) keeps the rows, order,
    labels and tie blocks of head(k) cut from the full view; a head made
    first at a shallower cutoff is not used for a deeper one."""
    rng = np.random.default_rng(3)
    groups = np.repeat(np.arange(80), rng.integers(20, 60, size=80))
    y = rng.integers(0, 3, groups.size).astype(float)
    s = rng.integers(0, 6, groups.size).astype(float)  # long tie blocks

    def view(k, first=None):
        ctx = RankingContext.from_inputs(y, s, groups, 80, ties=ties)
        if first is not None:
            ctx.head(first)
        return ctx.head(k)

    for k, deeper in ((2, 7), (3, 4), (5, 30), (7, 2)):
        one, two = view(k), view(k, first=deeper)
        assert one is not two
        for name in ("group", "rank", "y"):
            np.testing.assert_array_equal(getattr(two, name), getattr(one, name))
        assert bool(two.blocks) == bool(one.blocks)
        if one.blocks:
            for name in ("start", "size", "rank", "group"):
                np.testing.assert_array_equal(
                    getattr(two.blocks, name), getattr(one.blocks, name)
                )
    ctx = RankingContext.from_inputs(y, s, groups, 80, ties=ties)
    deep = ctx.head(7)
    assert ctx._deeper_head(3) is deep and ctx._deeper_head(7) is None


@pytest.mark.parametrize(
    "groups",
    [
        np.array([5, 5, 9, 2, 9, 5]),
        np.array(["b", "b", "c", "a", "c", "b"]),
        np.array([5.5, 5.5, 9.0, 2.0, 9.0, 5.5]),
        np.array([10**15, 10**15, 3 * 10**15, 1, 3 * 10**15, 10**15]),
    ],
    ids=["small-ints", "strings", "floats", "wide-ints"],
)
def test_encode_groups_gives_sorted_ids(groups):
    codes, ids = encode_groups(groups, groups.size, "f")
    np.testing.assert_array_equal(ids, np.unique(groups))
    np.testing.assert_array_equal(ids[codes], groups)


def test_one_key_order_falls_back_when_the_key_cannot_separate_scores():
    # With a million groups the key's spacing near the last band is ~5e-10, so
    # these three scores share one key value; the order must still be right.
    n_groups = 2**20
    codes = np.array([n_groups - 1] * 3 + [0])
    score = np.array([0.5, 0.5 + 1e-12, 0.5 + 2e-12, 0.0])
    step = 2.0
    keys = codes * step - (score - score.min())
    assert keys[0] == keys[1] == keys[2]
    got, _ = order_rows(codes, score, np.zeros(4), "average", n_groups)
    np.testing.assert_array_equal(got, [3, 2, 1, 0])


@pytest.mark.parametrize(
    "labels",
    ["levels", "fractional", "many-levels"],
)
@pytest.mark.parametrize("k", [None, 1, 3])
@pytest.mark.parametrize("gain", ["exponential", "linear"])
def test_ideal_dcg_matches_a_plain_sort(labels, k, gain):
    from sklearn_rank._engine.kernels import ideal_dcg

    rng = np.random.default_rng(4)
    codes = rng.integers(0, 50, size=600)
    y = {
        "levels": rng.integers(0, 5, size=600).astype(float),
        "fractional": rng.integers(0, 9, size=600) / 2.0,  # the sort path
        "many-levels": rng.integers(0, 40, size=600).astype(float),  # too many
    }[labels]
    ctx = RankingContext.from_inputs(y, rng.random(600), codes, 50, ties="average")
    expected = []
    for g in range(50):
        top = np.sort(y[codes == g])[::-1][:k]
        gain_of = 2.0**top - 1 if gain == "exponential" else top
        expected.append(np.sum(gain_of / np.log2(np.arange(2, top.size + 2))))
    np.testing.assert_allclose(ideal_dcg(ctx, k, gain), expected, rtol=1e-13)


@pytest.mark.parametrize(
    "kind",
    ["integers", "halves", "huge-integers", "negative-integers", "tenths", "2**53"],
)
def test_tie_blocks_from_the_ordering_match_a_plain_scan(kind):
    # Whole-number scores take the exact-key path (no merge check); the others
    # are checked; scores beyond 2**53 must not be taken as exact.
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 300, size=20_000)
    base = rng.integers(0, 8, size=codes.size).astype(np.float64)
    score = {
        "integers": base,
        "halves": base / 2,
        "huge-integers": base * 2.0**40 + 2.0**60,
        "negative-integers": -base - 10**6,
        "tenths": base / 10,
        "2**53": base - (2.0**53 - 1),  # keys above 2**53 round: not exact
    }[kind]
    ctx = RankingContext.from_inputs(base, score, codes, 300, ties="average")
    got = block_list(ctx)
    assert got == plain_tie_blocks(codes, score)


@pytest.mark.parametrize("ties", ["stable", "average"])
def test_order_rows_keeps_rows_already_in_order(ties):
    """Rows already grouped by code and by descending score (ties included) come
    back in place, as the stable sort orders them."""
    codes, score, labels = random_rows(5_000, 40, 30, seed=5)
    codes = np.unique(codes, return_inverse=True)[1]
    ordered = np.lexsort((-score, codes))
    codes, score, labels = codes[ordered], score[ordered], labels[ordered]
    got, _ = order_rows(codes, score, labels, ties, int(codes.max()) + 1)
    np.testing.assert_array_equal(got, np.arange(codes.size))
    # One row out of place: the sort runs again and puts it back.
    swapped = score.copy()
    swapped[[0, 1]] = swapped[[1, 0]] if swapped[0] != swapped[1] else (9e9, 0)
    got, _ = order_rows(codes, swapped, labels, ties, int(codes.max()) + 1)
    expected = np.lexsort((np.arange(codes.size), -swapped, codes))
    if ties == "stable":
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_array_equal(swapped[got], swapped[expected])


def test_evaluate_per_group_sets_orders_once_and_matches(monkeypatch):
    """Sets of keywords that differ only in a denominator share one ordering
    (issue 28, the command line's relative_P beside recall), with the values of
    separate evaluate_per_group calls; other sets get their own ordering."""
    from sklearn_rank import evaluate_per_group
    from sklearn_rank._engine.context import RankingContext
    from sklearn_rank._metrics.evaluate import evaluate_per_group_sets

    rng = np.random.default_rng(3)
    n = 600
    y = rng.integers(0, 3, n).astype(float)
    s = np.round(rng.normal(size=n), 1)  # ties
    g = rng.integers(0, 20, n)
    common = {"groups": g, "convention": "trec_eval"}
    sets = {
        (): ["map", "recall@5", "precision@10"],
        (("recall_denominator", "min_k_n_relevant"),): ["recall@5", "recall@50"],
        (("ties", "average"),): ["ndcg@10"],
    }
    calls = []
    original = RankingContext.from_inputs.__func__

    def counting(cls, *a, **k):
        calls.append(1)
        return original(cls, *a, **k)

    monkeypatch.setattr(RankingContext, "from_inputs", classmethod(counting))
    found = evaluate_per_group_sets(y, s, metric_sets=sets, **common)
    assert len(calls) == 2  # the denominator set shares the first ordering
    monkeypatch.undo()
    for extra, names in sets.items():
        alone = evaluate_per_group(y, s, metrics=names, **common, **dict(extra))
        assert list(found[extra].values) == names
        for name in names:
            np.testing.assert_array_equal(found[extra].values[name], alone.values[name])
        np.testing.assert_array_equal(found[extra].group_ids, alone.group_ids)
