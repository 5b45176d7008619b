"""Wilson intervals, mean intervals and the Bradley-Terry (Elo) fit against known values."""

import math

import numpy as np
import pytest

from parlour.evaluation.ratings import (
    ELO_PER_NAT,
    fit_ratings,
    mean_interval,
    wilson_interval,
)


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (5, 10, 0.236593, 0.763407),  # the textbook example (e.g. statsmodels proportion_confint)
        (0, 10, 0.0, 0.277533),
        (10, 10, 0.722467, 1.0),
        (1, 20, 0.008881, 0.236131),
        (81, 263, 0.255289, 0.366210),
    ],
)
def test_wilson_known_values(k, n, low, high):
    got = wilson_interval(k, n)
    assert got == pytest.approx((low, high), abs=2e-6)


@pytest.mark.parametrize(("k", "n"), [(3, 7), (40, 41), (123, 500)])
def test_wilson_bounds_solve_the_defining_equation(k, n):
    """The bounds are the p with (k/n - p)^2 = z^2 p (1 - p) / n."""
    z = 1.959963984540054
    for p in wilson_interval(k, n):
        assert (k / n - p) ** 2 == pytest.approx(z * z * p * (1 - p) / n, rel=1e-9)


def test_wilson_edge_cases():
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    low, high = wilson_interval(2.5, 5)  # a score with half draws
    assert low < 0.5 < high and low == pytest.approx(1 - high)
    with pytest.raises(ValueError, match="successes=11"):
        wilson_interval(11, 10)


def test_mean_interval():
    mean, low, high = mean_interval([1, 2, 3, 4])
    half = 1.959963984540054 * np.std([1, 2, 3, 4], ddof=1) / 2
    assert (mean, low, high) == pytest.approx((2.5, 2.5 - half, 2.5 + half))
    assert math.isnan(mean_interval([3.0])[1])
    assert math.isnan(mean_interval([])[0])


def test_two_agents_match_the_closed_form():
    """Without the prior the gap is logit(score); the weak prior moves it by < 1 Elo."""
    ratings = fit_ratings(2, [(0, 1, 700.0, 1000)])
    gap = ratings.elo[0] - ratings.elo[1]
    assert gap == pytest.approx(math.log(0.7 / 0.3) * ELO_PER_NAT, abs=1.0)
    assert ratings.elo.sum() == pytest.approx(0.0, abs=1e-9)
    # Fisher information of the gap: n p (1 - p) in natural units
    assert ratings.difference_stderr(0, 1) == pytest.approx(ELO_PER_NAT / math.sqrt(1000 * 0.21), rel=0.01)
    low, high = ratings.interval(0)
    assert low < ratings.elo[0] < high


def test_perfect_record_stays_finite_and_ordered():
    ratings = fit_ratings(3, [(0, 1, 200.0, 200), (1, 2, 150.0, 200), (0, 2, 200.0, 200)])
    assert np.all(np.isfinite(ratings.elo)) and np.all(np.isfinite(ratings.stderr))
    assert ratings.elo[0] > ratings.elo[1] > ratings.elo[2]
    assert ratings.elo[0] - ratings.elo[1] > 400


def test_draws_count_half_and_order_does_not_matter():
    even = fit_ratings(2, [(0, 1, 50.0, 100)])  # e.g. 100 draws
    assert even.elo == pytest.approx([0.0, 0.0], abs=1e-9)
    a = fit_ratings(3, [(0, 1, 30.0, 50), (2, 1, 10.0, 40), (0, 2, 25.5, 30)])
    b = fit_ratings(3, [(1, 0, 20.0, 50), (1, 2, 30.0, 40), (2, 0, 4.5, 30)])
    assert a.elo == pytest.approx(b.elo, abs=1e-7)
    assert a.stderr == pytest.approx(b.stderr, abs=1e-7)


def test_fit_recovers_synthetic_ratings():
    """Games drawn from known Elo ratings: the fit lands within its intervals."""
    true = np.array([-250.0, 0.0, 60.0, 300.0])
    true -= true.mean()
    rng = np.random.default_rng(7)
    results = []
    for i in range(4):
        for j in range(i + 1, 4):
            p = 1 / (1 + 10 ** (-(true[i] - true[j]) / 400))
            results.append((i, j, float(rng.binomial(3000, p)), 3000))
    ratings = fit_ratings(4, results)
    assert list(np.argsort(ratings.elo)) == list(np.argsort(true))
    assert np.all(np.abs(ratings.elo - true) < 3 * ratings.stderr)
    assert np.all(ratings.stderr < 15)


def test_fit_rejects_bad_results():
    with pytest.raises(ValueError, match="outside"):
        fit_ratings(2, [(0, 2, 1.0, 2)])
    with pytest.raises(ValueError, match="score"):
        fit_ratings(2, [(0, 1, 3.0, 2)])
    with pytest.raises(ValueError, match="prior_sd"):
        fit_ratings(2, [], prior_sd=0)
    unplayed = fit_ratings(3, [(0, 1, 5.0, 10)])
    assert unplayed.elo[2] == pytest.approx(0.0, abs=1e-9)
