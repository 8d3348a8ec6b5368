"""Intervals that invert a test: the shifts ``delta`` the test does not reject.

The interval of a difference printed next to a p-value is the set of shifts
``delta`` at which the same test, applied to ``d - delta`` with the same
resamples, gives ``p > alpha``. Then "the interval excludes 0" and "p <= alpha"
are one statement (``alpha = 1 - confidence_level``), in every row.

* Sign-flip randomization test. A resample with signs ``s`` gives
  ``T*(delta) = A - delta C`` with ``A = sum s_i x_i`` and ``C = sum s_i c_i``
  (``x_i = w_i d_i / W``, ``c_i = w_i / W``), the observed statistic is
  ``m - delta``. Each resample is "as extreme" on a closed interval of shifts
  around ``m`` (two-sided: between the roots of ``(A - delta C)**2 =
  (m - delta)**2``; one-sided: a half-line), so the accepted shifts are an
  interval whose ends are order statistics of the resamples' roots.
* Bootstrap-t and shifted bootstrap tests: the resampled pivots ``t*`` do not
  depend on ``delta``; the observed pivot is ``(m - delta) / se``, so the ends
  are ``m -+ se * u`` with ``u`` an order statistic of ``t*``.
* t-test: scipy's t interval. Wilcoxon: the shifts where scipy's p-value
  exceeds alpha, searched over the stretches between Walsh averages.

A float rounding at the boundary (a resample within rounding of the observed
value) could still split the two; :func:`reconcile` moves that end to 0.
"""

from __future__ import annotations

import numpy as np


def needed_count(n_total: int, alpha: float) -> int:
    """Smallest count c (observed included) with ``c / n_total > alpha``."""
    c = int(np.floor(alpha * n_total)) + 1
    while c > 1 and (c - 1) / n_total > alpha:
        c -= 1
    while c / n_total <= alpha:
        c += 1
    return c


def _kth_smallest(v: np.ndarray, k: int) -> float:
    return float(np.partition(v, k - 1)[k - 1])


def _kth_largest(v: np.ndarray, k: int) -> float:
    return float(-np.partition(-v, k - 1)[k - 1])


def randomization_interval(a, c, m, alternative, alpha, observed_extra):
    """Shifts not rejected by the sign-flip test with these resamples.

    ``a``, ``c``: ``A`` and ``C`` of every resample (all 2**n for the exact
    test, the identity among them: ``observed_extra=0``; the drawn ones for
    Monte Carlo, where the observed data count once more: ``observed_extra=1``).
    """
    n_total = a.size + observed_extra
    k = needed_count(n_total, alpha) - observed_extra
    if k <= 0:
        return -np.inf, np.inf
    # All signs + (the identity): as extreme at every shift; all signs - too
    # for the two-sided test (|-(m - delta)| = |m - delta|).
    always = (np.abs(c) if alternative == "two-sided" else c) > 1 - 1e-12
    with np.errstate(divide="ignore", invalid="ignore"):
        r1 = np.where(always, -np.inf, (m - a) / (1 - c))
        if alternative == "greater":
            return _kth_smallest(r1, k), np.inf
        if alternative == "less":
            return -np.inf, _kth_largest(np.where(always, np.inf, r1), k)
        r2 = np.where(always, np.inf, (m + a) / (1 + c))
    lo = np.where(always, -np.inf, np.minimum(r1, r2))
    hi = np.where(always, np.inf, np.maximum(r1, r2))
    return _kth_smallest(lo, k), _kth_largest(hi, k)


def pivot_interval(t_star, m, se, alternative, alpha):
    """Shifts not rejected by a bootstrap test of pivot ``(m - delta) / se``.

    ``t_star``: the resampled pivots (the observed data count once more, as in
    ``(b + 1) / (n + 1)``).
    """
    k = needed_count(t_star.size + 1, alpha) - 1
    if k <= 0:
        return -np.inf, np.inf

    def end(u):
        if se == 0:
            return m if np.isfinite(u) else np.copysign(np.inf, u)
        return m - se * u

    if alternative == "greater":
        return end(_kth_largest(t_star, k)), np.inf
    if alternative == "less":
        return -np.inf, end(_kth_smallest(t_star, k))
    u = _kth_largest(np.abs(t_star), k)
    return end(u), end(-u)


def walsh_interval(p_at, d, alternative, alpha):
    """Shifts where ``p_at(delta) > alpha`` for a signed-rank test.

    The signed-rank statistic of ``d - delta`` changes only where ``delta``
    crosses a Walsh average ``(d_i + d_j) / 2``; between two of them it is
    constant. The test is run at one shift per stretch (the midpoints, and
    beyond the outermost) and at the Walsh averages themselves: there some
    differences of ``d - delta`` are 0, which the zero method drops or splits,
    so on tied scores the test can accept a Walsh average (often the shift 0)
    and reject the stretches on both sides. A binary search finds the first
    and last accepted point; the ends are the Walsh averages at or next to
    them. Returns ``(nan, nan)`` when the test rejects every shift it is run
    at (the caller says so).
    """
    all_walsh = (d[:, None] + d[None, :])[np.triu_indices(d.size)] / 2
    walsh = np.unique(all_walsh)
    spread = float(np.ptp(d)) + 1.0
    # points[2k + 1] is walsh[k]; points[2k] lies between walsh[k - 1] and walsh[k].
    points = np.empty(2 * walsh.size + 1)
    points[1::2] = walsh
    points[2:-1:2] = (walsh[:-1] + walsh[1:]) / 2
    points[0], points[-1] = walsh[0] - spread, walsh[-1] + spread
    accepted = {}

    def ok(i):
        if i not in accepted:
            accepted[i] = p_at(float(points[i])) > alpha
        return accepted[i]

    last = points.size - 1
    if alternative == "greater":  # p grows with the shift
        start = last
    elif alternative == "less":
        start = 0
    else:  # the stretch of the Hodges-Lehmann estimate
        start = int(np.searchsorted(points, np.median(all_walsh)))
        start = min(max(start, 0), last)
    if not ok(start):  # look outward from there for an accepted stretch
        near = np.argsort(np.abs(np.arange(points.size) - start), kind="stable")
        found = next((int(i) for i in near[1:128] if ok(int(i))), None)
        if found is None:  # the shift 0 itself: the p-value printed with the interval
            k = int(np.searchsorted(walsh, 0.0))
            zero = 2 * k + 1 if k < walsh.size and walsh[k] == 0 else 2 * k
            found = zero if ok(zero) else None
        if found is None:
            return np.nan, np.nan
        start = found

    def first_accepted(lo, hi):  # ok(hi) is True; smallest accepted index
        while lo < hi:
            mid = (lo + hi) // 2
            if ok(mid):
                hi = mid
            else:
                lo = mid + 1
        return lo

    def last_accepted(lo, hi):  # ok(lo) is True; largest accepted index
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if ok(mid):
                lo = mid
            else:
                hi = mid - 1
        return lo

    low, high = -np.inf, np.inf
    if alternative != "less":  # a Walsh average itself, or the one below a stretch
        i = first_accepted(0, start)
        low = -np.inf if i == 0 else float(walsh[(i - 1) // 2])
    if alternative != "greater":  # a Walsh average itself, or the one above
        i = last_accepted(start, last)
        high = np.inf if i == last else float(walsh[i // 2])
    return low, high


def reconcile(p: float, low: float, high: float, alpha: float, mean: float):
    """Make "the interval excludes 0" say what "p <= alpha" says.

    The two are the same statement in exact arithmetic; they can differ only
    when 0 is within float rounding of an end. Then that end moves to 0 (p >
    alpha: 0 inside) or just past it (p <= alpha: 0 outside).
    """
    if np.isnan(p) or np.isnan(low) or np.isnan(high):
        return low, high
    excludes = low > 0 or high < 0
    if (p <= alpha) == excludes:
        return low, high
    if excludes:  # p > alpha: take 0 in
        return (0.0, high) if low > 0 else (low, 0.0)
    tiny = np.nextafter(0.0, 1.0)
    if mean >= 0 and np.isfinite(low):
        return tiny, max(high, tiny)
    if np.isfinite(high):
        return min(low, -tiny), -tiny
    return tiny, max(high, tiny)
