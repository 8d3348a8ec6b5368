"""Interleaving: valid lists on generated rankings, the algorithms' laws, credit
assignment, the sign test under a true null, and power against an A/B test."""

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from sklearn_rank.online import (
    interleave,
    interleave_ids,
    interleaving_outcome,
    multileave,
    multileaving_outcome,
    simulate_clicks,
)


@st.composite
def two_rankings(draw):
    """Groups of 1..7 items; each ranker scores a subset (NaN = not ranked),
    every item ranked by at least one; integer scores, so ties occur."""
    sizes = draw(st.lists(st.integers(1, 7), min_size=1, max_size=6))
    groups, a, b = [], [], []
    for g, size in enumerate(sizes):
        for _ in range(size):
            groups.append(g)
            sa = draw(st.one_of(st.none(), st.integers(0, 4)))
            sb = draw(
                st.integers(0, 4)
                if sa is None
                else st.one_of(st.none(), st.integers(0, 4))
            )
            a.append(np.nan if sa is None else float(sa))
            b.append(np.nan if sb is None else float(sb))
    k = draw(st.one_of(st.none(), st.integers(1, 8)))
    # Shuffle the rows so that groups are not contiguous.
    perm = draw(st.permutations(range(len(groups))))
    take = lambda x: np.array(x)[list(perm)]  # noqa: E731
    return take(groups), take(a), take(b), k


def ranked(rows, score):
    """Rows of one ranking, best first; ties by row index (the documented rule)."""
    return sorted(
        (i for i in rows if not np.isnan(score[i])), key=lambda i: (-score[i], i)
    )


def shown_lists(groups, position):
    out = {}
    for g in np.unique(groups):
        rows = np.flatnonzero((groups == g) & (position > 0))
        out[g] = list(rows[np.argsort(position[rows])])
    return out


@settings(max_examples=150, deadline=None)
@given(two_rankings(), st.integers(0, 2**32 - 1))
def test_team_draft_gives_valid_interleavings(data, seed):
    groups, a, b, k = data
    r = interleave(a, b, groups=groups, k=k, random_state=seed)
    for g, lst in shown_lists(groups, r.position).items():
        rows = np.flatnonzero(groups == g)
        n_show = len(rows) if k is None else min(k, len(rows))
        # Every item at most once, positions 1..n_show, every item when k is None.
        assert sorted(r.position[lst]) == list(range(1, n_show + 1))
        assert len(set(lst)) == len(lst)
        la, lb = ranked(rows, a), ranked(rows, b)
        team_a = [i for i in lst if r.team[i] == "a"]
        team_b = [i for i in lst if r.team[i] == "b"]
        assert len(team_a) + len(team_b) == len(lst)
        # Each team's picks are its ranking's best items not taken before.
        for team, mine in ((team_a, la), (team_b, lb)):
            assert [mine.index(i) for i in team] == sorted(mine.index(i) for i in team)
        for m in range(1, len(lst) + 1):
            prefix = lst[:m]
            na = sum(r.team[i] == "a" for i in prefix)
            nb = m - na
            both_left = any(i not in prefix[:-1] for i in la) and any(
                i not in prefix[:-1] for i in lb
            )
            if both_left:  # while both rankings have items, teams stay balanced
                assert abs(na - nb) <= 1 or not _both_alive(prefix, la, lb)
            pick = prefix[-1]
            mine = la if r.team[pick] == "a" else lb
            assert pick == next(i for i in mine if i not in prefix[:-1])
    assert (r.team[r.position == 0] == "").all()
    assert set(r.team[r.position > 0]) <= {"a", "b"}


def _both_alive(prefix, la, lb):
    """Both rankings still had an unshown item at every earlier pick."""
    for m in range(len(prefix)):
        seen = prefix[:m]
        if all(i in seen for i in la) or all(i in seen for i in lb):
            return False
    return True


@settings(max_examples=150, deadline=None)
@given(two_rankings(), st.integers(0, 2**32 - 1))
def test_balanced_gives_valid_interleavings(data, seed):
    groups, a, b, k = data
    r = interleave(a, b, groups=groups, k=k, method="balanced", random_state=seed)
    for g, lst in shown_lists(groups, r.position).items():
        rows = np.flatnonzero(groups == g)
        n_show = len(rows) if k is None else min(k, len(rows))
        assert sorted(r.position[lst]) == list(range(1, n_show + 1))
        la, lb = ranked(rows, a), ranked(rows, b)
        # Every prefix is the union of top-ka of A and top-kb of B, |ka - kb| <= 1
        # while both lists last (Joachims 2002).
        for m in range(1, len(lst) + 1):
            prefix = set(lst[:m])
            assert any(
                set(la[:i]) | set(lb[:j]) == prefix
                and (abs(i - j) <= 1 or i == len(la) or j == len(lb))
                for i in range(len(la) + 1)
                for j in range(len(lb) + 1)
            ), (m, la, lb, lst)
        # Each list's order is kept among the items it contributed.
        for team, mine in (("a", la), ("b", lb)):
            got = [mine.index(i) for i in lst if r.team[i] == team]
            assert got == sorted(got)


def test_team_draft_and_balanced_follow_their_distributions():
    # A = x, y, z and B = z, x, y in 4000 groups at once. Team-draft: four
    # outcomes, 1/4 each; balanced: two, 1/2 each.
    n = 4000
    groups = np.repeat(np.arange(n), 3)
    a = np.tile([3.0, 2.0, 1.0], n)
    b = np.tile([2.0, 1.0, 3.0], n)
    expected = {
        "team_draft": {
            ((1, 3, 2), ("a", "a", "b")): 0.25,  # A first, then B, A takes y
            ((1, 3, 2), ("a", "b", "b")): 0.25,  # A first, then B, B takes y
            ((2, 3, 1), ("a", "a", "b")): 0.25,  # B first, then A, A takes y
            ((2, 3, 1), ("a", "b", "b")): 0.25,  # B first, then A, B takes y
        },
        "balanced": {
            ((1, 3, 2), ("a", "a", "b")): 0.5,  # A leads: x, z, y
            ((2, 3, 1), ("a", "a", "b")): 0.5,  # B leads: z, x, (x again), y
        },
    }
    for method, law in expected.items():
        r = interleave(a, b, groups=groups, method=method, random_state=0)
        pos = r.position.reshape(n, 3)
        team = r.team.reshape(n, 3)
        pairs = zip(pos.tolist(), team.tolist(), strict=True)
        seen = Counter((tuple(p), tuple(t)) for p, t in pairs)
        assert set(seen) == set(law), (method, seen)
        for outcome, prob in law.items():
            se = math.sqrt(prob * (1 - prob) / n)
            assert abs(seen[outcome] / n - prob) < 4 * se, (method, outcome)


def test_credit_assignment_by_hand():
    # Team-draft list (x: a, z: b, y: a) from the distribution test.
    groups = [0, 0, 0]
    r = interleave([3, 2, 1], [2, 1, 3], groups=groups, random_state=1)
    assert r.position.tolist() == [2, 3, 1] and r.team.tolist() == ["a", "a", "b"]
    for clicks, outcome in [
        ([1, 0, 0], (1, 0, 0)),  # x (team a)
        ([0, 0, 1], (0, 0, 1)),  # z (team b)
        ([1, 0, 1], (0, 1, 0)),  # one each: tie
        ([1, 1, 1], (1, 0, 0)),  # two for a
        ([0, 0, 0], (0, 1, 0)),  # no click: tie
    ]:
        out = interleaving_outcome(clicks, r, groups=groups)
        assert (out.wins, out.ties, out.losses) == outcome, clicks
    # Balanced, A = x, y, z, B = z, x, y, list z, x, y (B led). A click on x only:
    # lowest click x at position 2, ranks 1 in A and 2 in B, cut at 1: A's top-1
    # {x} has 1 click, B's top-1 {z} none: A wins.
    rb = interleave(
        [3, 2, 1], [2, 1, 3], groups=groups, method="balanced", random_state=1
    )
    assert rb.position.tolist() == [2, 3, 1]
    assert interleaving_outcome([1, 0, 0], rb, groups=groups).wins == 1
    # Clicks on z and y: lowest y (ranks 2 in A, 3 in B): cut 2; A's top-2 {x, y}
    # holds 1 click, B's top-2 {z, x} holds 1: tie.
    assert interleaving_outcome([0, 1, 1], rb, groups=groups).ties == 1


def test_identical_rankings_tie_and_the_sign_test_holds_its_level():
    rng = np.random.default_rng(0)
    n_exp, per_exp, length = 400, 100, 5
    n = n_exp * per_exp
    groups = np.repeat(np.arange(n), length)
    grade = rng.integers(0, 4, groups.size)
    score = grade + rng.normal(size=groups.size)
    r = interleave(score, score, groups=groups, random_state=1)
    clicks = simulate_clicks(grade, groups=groups, position=r.position, random_state=2)
    out = interleaving_outcome(clicks, r, groups=groups)
    # A tie in expectation: the mean outcome is within 3 standard errors of 0.
    se = out.per_group.std() / math.sqrt(n)
    assert abs(out.per_group.mean()) < 3 * se
    assert out.p_value == pytest.approx(
        stats.binomtest(out.wins, out.wins + out.losses).pvalue
    )
    # 400 experiments of 100 groups each under the null: rejections at 5%.
    blocks = out.per_group.reshape(n_exp, per_exp)
    wins, losses = (blocks > 0).sum(axis=1), (blocks < 0).sum(axis=1)
    p = np.array(
        [stats.binomtest(w, w + x).pvalue for w, x in zip(wins, losses, strict=True)]
    )
    rate = (p < 0.05).mean()
    # The discrete sign test is conservative: the rate sits at or under alpha.
    assert 0.015 < rate < 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_exp), rate
    first = interleaving_outcome(
        clicks[: per_exp * length],
        _head(r, per_exp * length),
        groups=groups[: per_exp * length],
    )
    assert first.p_value == pytest.approx(p[0])


def _head(r, m):
    from sklearn_rank.online import Interleaving

    return Interleaving(
        r.position[:m], r.team[:m], r.rank_a[:m], r.rank_b[:m], r.method, r.codes[:m]
    )


def _sample_sizes(seed=0, n_pilot=40000, length=6, alpha=0.05, power=0.8):
    """Groups needed to detect the better ranker at (alpha, power): team-draft's
    sign test against a two-arm A/B test of per-group CTR (Welch, equal arms),
    from the effect sizes of one large pilot simulation (normal approximations).
    """
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_pilot), length)
    grade = rng.integers(0, 4, groups.size)
    good = grade + rng.normal(scale=1.0, size=groups.size)
    bad = grade + rng.normal(scale=2.0, size=groups.size)
    z_a, z_b = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(power)
    # Interleaving: share q of decided groups, win rate p among them.
    r = interleave(good, bad, groups=groups, random_state=seed + 1)
    clicks = simulate_clicks(
        grade, groups=groups, position=r.position, random_state=seed + 2
    )
    out = interleaving_outcome(clicks, r, groups=groups)
    q = (out.wins + out.losses) / n_pilot
    p = out.preference
    n_decided = ((z_a * 0.5 + z_b * math.sqrt(p * (1 - p))) / (p - 0.5)) ** 2
    n_interleave = math.ceil(n_decided / q)
    # A/B: each arm sees its own ranking; per-group CTR difference.
    ctr = {}
    for name, s in (("good", good), ("bad", bad)):
        order = np.lexsort((-s, groups))
        pos = np.empty(groups.size, dtype=int)
        pos[order] = np.tile(np.arange(1, length + 1), n_pilot)
        c = simulate_clicks(grade, groups=groups, position=pos, random_state=seed + 3)
        ctr[name] = c.reshape(n_pilot, length).mean(axis=1)
    diff = ctr["good"].mean() - ctr["bad"].mean()
    var = ctr["good"].var(ddof=1) + ctr["bad"].var(ddof=1)
    n_ab = 2 * math.ceil((z_a + z_b) ** 2 * var / diff**2)  # both arms
    return n_interleave, n_ab, good, bad


def test_team_draft_needs_fewer_groups_than_an_ab_test():
    n_interleave, n_ab, _, _ = _sample_sizes()
    print(f"groups for 80% power at 5%: team-draft {n_interleave}, A/B CTR {n_ab}")
    assert n_interleave * 3 < n_ab
    # Check the interleaving size by simulation: 200 experiments of that size.
    rng = np.random.default_rng(5)
    n_exp, length = 200, 6
    n = n_exp * n_interleave
    groups = np.repeat(np.arange(n), length)
    grade = rng.integers(0, 4, groups.size)
    good = grade + rng.normal(scale=1.0, size=groups.size)
    bad = grade + rng.normal(scale=2.0, size=groups.size)
    r = interleave(good, bad, groups=groups, random_state=6)
    clicks = simulate_clicks(grade, groups=groups, position=r.position, random_state=7)
    per = interleaving_outcome(clicks, r, groups=groups).per_group.reshape(n_exp, -1)
    w, x = (per > 0).sum(axis=1), (per < 0).sum(axis=1)
    p = np.array([stats.binomtest(a, a + b).pvalue for a, b in zip(w, x, strict=True)])
    hits = ((p < 0.05) & (w > x)).mean()
    assert 0.7 < hits < 0.92, hits


def test_interleave_errors():
    with pytest.raises(ValueError, match="'method' parameter of interleave"):
        interleave([1, 2], [2, 1], groups=[0, 0], method="optimized")
    with pytest.raises(ValueError, match="'k' parameter of interleave"):
        interleave([1, 2], [2, 1], groups=[0, 0], k=0)
    with pytest.raises(ValueError, match="in neither ranking"):
        interleave([1, np.nan], [2, np.nan], groups=[0, 0])
    r = interleave([1, 2], [2, 1], groups=[0, 0], k=1, random_state=0)
    with pytest.raises(ValueError, match="not shown"):
        interleaving_outcome([1, 1], r, groups=[0, 0])
    with pytest.raises(ValueError, match="differ from the groups"):
        interleaving_outcome([0, 0], r, groups=[0, 1])
    with pytest.raises(TypeError, match="'interleaved' parameter"):
        interleaving_outcome([0, 0], {"position": [1, 2]}, groups=[0, 0])


# -- probabilistic interleaving, multileaving, interleaving from document ids ------
def probabilistic_law(rank_a, rank_b, tau=3.0):
    """Exact probability of each full interleaved list (brute force)."""
    import itertools

    n = len(rank_a)
    law = {}
    for perm in itertools.permutations(range(n)):
        p, left = 1.0, set(range(n))
        for item in perm:
            step = 0.0
            for rank in (rank_a, rank_b):
                w = {i: rank[i] ** -tau for i in left}
                step += 0.5 * w[item] / sum(w.values())
            p *= step
            left.remove(item)
        position = [0] * n
        for pos, item in enumerate(perm, start=1):
            position[item] = pos
        law[tuple(position)] = p
    return law


def test_probabilistic_interleaving_follows_its_law():
    a, b = np.array([3.0, 2, 1]), np.array([1.0, 3, 2])
    law = probabilistic_law([1, 2, 3], [3, 1, 2])
    reps = 3000
    groups = np.repeat(np.arange(reps), 3)
    r = interleave(np.tile(a, reps), np.tile(b, reps), groups=groups,
                   method="probabilistic", random_state=0)  # fmt: skip
    seen = Counter(map(tuple, r.position.reshape(reps, 3).tolist()))
    keys = sorted(law)
    observed = np.array([seen[k] for k in keys])
    expected = np.array([law[k] for k in keys]) * reps
    assert stats.chisquare(observed, expected).pvalue > 0.001
    assert set(r.team.tolist()) == {"a", "b"}


@settings(max_examples=60, deadline=None)
@given(two_rankings(), st.integers(0, 2**32 - 1))
def test_probabilistic_gives_valid_lists(data, seed):
    groups, a, b, k = data
    r = interleave(a, b, groups=groups, k=k, method="probabilistic", random_state=seed)
    for g in np.unique(groups):
        rows = np.flatnonzero(groups == g)
        pos = r.position[rows]
        want = len(rows) if k is None else min(k, len(rows))
        assert sorted(pos[pos > 0].tolist()) == list(range(1, want + 1))
        for i in rows[pos > 0]:  # the team's ranking holds the item
            assert not np.isnan(a[i] if r.team[i] == "a" else b[i])


def replay_multileave(scores, groups, r):
    """Check every pick: in each round of m picks each ranker picks once, its
    best item (by score; ties any) not yet in the list."""
    m = scores.shape[1]
    for g in np.unique(groups):
        rows = np.flatnonzero(groups == g)
        shown = rows[np.argsort(r.position[rows])][(np.sort(r.position[rows]) > 0)]
        used = set()
        for t, row in enumerate(shown):
            if t % m == 0:
                round_teams = set()
            j = r.team[row]
            assert j not in round_teams
            round_teams.add(j)
            best = max(scores[i, j] for i in rows if i not in used)
            assert scores[row, j] == best
            used.add(row)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(1, 7), min_size=1, max_size=5),
    st.integers(2, 4),
    st.one_of(st.none(), st.integers(1, 8)),
    st.integers(0, 2**32 - 1),
)
def test_multileave_gives_valid_lists(sizes, m, k, seed):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(len(sizes)), sizes)
    scores = rng.integers(0, 3, (groups.size, m)).astype(float)  # ties occur
    r = multileave(scores, groups=groups, k=k, random_state=seed)
    for g, size in enumerate(sizes):
        pos = r.position[groups == g]
        want = size if k is None else min(k, size)
        assert sorted(pos[pos > 0].tolist()) == list(range(1, want + 1))
    replay_multileave(scores, groups, r)


def test_multileaving_outcome_finds_the_best_ranker_and_holds_its_level():
    rng = np.random.default_rng(7)
    n_groups, size = 600, 6
    groups = np.repeat(np.arange(n_groups), size)
    y = rng.integers(0, 3, groups.size)
    good = y + rng.normal(scale=0.3, size=y.size)
    bad = rng.normal(size=y.size)
    scores = np.column_stack([bad, good, bad.copy()])  # rankers 0 and 2 identical
    r = multileave(scores, groups=groups, k=4, random_state=0)
    clicks = simulate_clicks(y, groups=groups, position=r.position, random_state=1)
    out = multileaving_outcome(clicks, r, groups=groups)
    assert out.p_value[1, 0] < 1e-6 and out.p_value[1, 2] < 1e-6
    assert out.preference[1, 0] > 0.7 and out.preference[1, 2] > 0.7
    assert out.p_value[0, 2] > 0.001  # identical rankers
    np.testing.assert_array_equal(out.credit.sum(axis=1), np.bincount(groups, clicks))
    # by hand: wins[i, j] counts groups where i's team got more clicks
    team_clicks = np.zeros((n_groups, 3))
    np.add.at(team_clicks, (groups[r.team >= 0], r.team[r.team >= 0]),
              clicks[r.team >= 0])  # fmt: skip
    assert out.wins[1, 0] == (team_clicks[:, 1] > team_clicks[:, 0]).sum()


def test_interleave_ids_is_interleave_on_the_ranks():
    docs_a = ["x", "y", "z", "p", "q"]
    groups_a = ["q1", "q1", "q1", "q2", "q2"]
    docs_b = ["q", "r", "z", "w"]
    groups_b = ["q2", "q2", "q1", "q1"]
    r = interleave_ids(docs_a, docs_b, groups_a=groups_a, groups_b=groups_b,
                       random_state=3)  # fmt: skip
    assert r.groups.tolist() == ["q1"] * 4 + ["q2"] * 3
    assert r.doc_id.tolist() == ["x", "y", "z", "w", "p", "q", "r"]
    a = np.array([-0.0, -1, -2, np.nan, -0, -1, np.nan])
    b = np.array([np.nan, np.nan, -0.0, -1, np.nan, -0, -1])
    want = interleave(a, b, groups=r.groups, random_state=3)
    np.testing.assert_array_equal(r.interleaved.position, want.position)
    np.testing.assert_array_equal(r.interleaved.team, want.team)
    with pytest.raises(ValueError, match="lists document 'x' twice in group 'q1'"):
        interleave_ids(["x", "x"], ["y"], groups_a=["q1", "q1"], groups_b=["q1"])


def test_random_ties_give_every_order_of_a_tie_its_chance():
    # A ties all three items, B ranks them; team-draft with k=1: B or A picks
    # first. A's pick among its tied items must be uniform with ties="random"
    # and the first row with the default row order.
    reps = 3000
    groups = np.repeat(np.arange(reps), 3)
    a = np.zeros(3 * reps)
    b = np.tile([3.0, 2, 1], reps)
    r = interleave(a, b, groups=groups, k=1, ties="random", random_state=0)
    first_a = r.position.reshape(reps, 3)[(r.team == "a").reshape(reps, 3).any(1)]
    counts = (first_a == 1).sum(axis=0)
    assert stats.chisquare(counts).pvalue > 0.001
    r = interleave(a, b, groups=groups, k=1, random_state=0)
    first_a = r.position.reshape(reps, 3)[(r.team == "a").reshape(reps, 3).any(1)]
    assert (first_a[:, 0] == 1).all()


def marginal_outcome(rank_a, rank_b, position, clicks, tau=3.0):
    """E[sign(clicks_A - clicks_B) | list] by enumerating every assignment, with
    P(list, assignment) from the generative process written out step by step."""
    import itertools

    shown = sorted((p, i) for i, p in enumerate(position) if p > 0)
    items = [i for _, i in shown]
    ranks = (rank_a, rank_b)
    total, weighted = 0.0, 0.0
    for assign in itertools.product((0, 1), repeat=len(items)):
        prob, left = 1.0, set(range(len(position)))
        for item, j in zip(items, assign, strict=True):
            have = [any(r[i] > 0 for i in left) for r in ranks]
            choose = 0.5 if all(have) else float(have[j])
            w = {i: ranks[j][i] ** -tau for i in left if ranks[j][i] > 0}
            prob *= choose * (w.get(item, 0.0) / sum(w.values()) if w else 0.0)
            left.remove(item)
        ca = sum(clicks[i] for i, j in zip(items, assign, strict=True) if j == 0)
        cb = sum(clicks[i] for i, j in zip(items, assign, strict=True) if j == 1)
        total += prob
        weighted += prob * np.sign(ca - cb)
    return weighted / total


def test_marginalized_probabilistic_credit_matches_enumeration():
    rng = np.random.default_rng(19)
    sizes = [3, 4, 5, 2, 4]
    groups = np.repeat(np.arange(len(sizes)), sizes)
    a = rng.integers(0, 4, groups.size).astype(float)
    b = rng.normal(size=groups.size)
    a[[1, 6]] = np.nan  # items only B ranks
    r = interleave(a, b, groups=groups, method="probabilistic", k=4, random_state=2)
    clicks = (rng.random(groups.size) < 0.6) * (r.position > 0)
    got = interleaving_outcome(clicks, r, groups=groups, marginalize=True)
    for g in range(len(sizes)):
        rows = np.flatnonzero(groups == g)
        want = marginal_outcome(
            r.rank_a[rows], r.rank_b[rows], r.position[rows], clicks[rows]
        )
        assert got.per_group[g] == pytest.approx(want, abs=1e-12)
    assert got.wins == (got.per_group > 0).sum()
    with pytest.raises(ValueError, match="'marginalize' parameter"):
        interleaving_outcome(
            [0, 0, 1], interleave([3, 2, 1], [1, 2, 3], groups=[0] * 3),
            groups=[0] * 3, marginalize=True,
        )  # fmt: skip
