"""The benchmark's statistics: anchored calibration, a candidate rated against fixed rungs."""

from __future__ import annotations

import numpy as np
import pytest

from parlour.ladder.statistics import Calibration, calibrate, expected_score, rate_candidate


def simulated_pairs(ratings: np.ndarray, games: int, rng: np.random.Generator) -> list[tuple[int, int, float, float]]:
    results = []
    for i in range(len(ratings)):
        for j in range(i + 1, len(ratings)):
            wins = rng.binomial(games, float(expected_score(ratings[i], ratings[j])))
            results.append((i, j, float(wins), float(games)))
    return results


def test_calibration_puts_the_anchor_at_zero_with_no_variance_and_recovers_known_ratings():
    truth = np.array([0.0, 150.0, 300.0, 500.0])
    calibration = calibrate(4, simulated_pairs(truth, 2000, np.random.default_rng(0)), anchor=0)
    assert calibration.elo[0] == 0.0
    assert calibration.covariance[0, 0] == pytest.approx(0.0, abs=1e-9)
    assert np.all(calibration.stderr[1:] > 0)
    for k in range(1, 4):
        low, high = calibration.interval(k)
        assert low - 10 <= truth[k] <= high + 10  # 95% intervals; the small slack covers the prior's pull
    with pytest.raises(ValueError, match="anchor 4"):
        calibrate(4, [], anchor=4)


def test_the_anchor_can_be_any_rung():
    truth = np.array([200.0, 0.0, 400.0])
    calibration = calibrate(3, simulated_pairs(truth, 3000, np.random.default_rng(1)), anchor=1)
    assert calibration.elo[1] == 0.0
    assert calibration.elo[0] == pytest.approx(200, abs=40)


def test_a_candidate_is_recovered_within_its_interval_most_of_the_time():
    ladder = Calibration(elo=np.array([0.0, 200.0, 400.0, 600.0]), covariance=np.zeros((4, 4)))
    rng = np.random.default_rng(2)
    inside = 0
    for _ in range(200):
        truth = 310.0
        p = expected_score(truth, ladder.elo)
        scores = rng.binomial(100, p).astype(float)
        rating = rate_candidate(scores, [100] * 4, ladder)
        low, high = rating.interval
        inside += low <= truth <= high
        assert rating.stderr_ladder == 0.0
    assert 180 <= inside <= 200  # about 95% coverage


def test_the_ladder_part_of_the_variance_is_the_delta_method_of_the_fit():
    elo = np.array([0.0, 200.0, 400.0])
    covariance = np.diag([0.0, 30.0**2, 40.0**2])
    scores, games = [90.0, 60.0, 30.0], [100, 100, 100]
    rating = rate_candidate(scores, games, Calibration(elo=elo, covariance=covariance))
    gradient = []
    for k in range(3):  # numerical dr/dR_k
        moved = elo.copy()
        moved[k] += 1.0
        gradient.append(rate_candidate(scores, games, Calibration(elo=moved, covariance=covariance)).elo - rating.elo)
    gradient = np.array(gradient)
    assert rating.stderr_ladder == pytest.approx(float(np.sqrt(gradient @ covariance @ gradient)), rel=1e-3)
    assert rating.stderr == pytest.approx(np.hypot(rating.stderr_games, rating.stderr_ladder))


def test_a_perfect_record_is_marked_off_the_scale():
    ladder = Calibration(elo=np.array([0.0, 300.0]), covariance=np.zeros((2, 2)))
    above = rate_candidate([50, 50], [50, 50], ladder)
    below = rate_candidate([0, 0], [50, 50], ladder)
    assert above.off_scale == "above" and above.elo > 300
    assert below.off_scale == "below" and below.elo < 0
    assert rate_candidate([40, 10], [50, 50], ladder).off_scale is None


@pytest.mark.parametrize(
    ("scores", "games", "message"),
    [([1.0], [1, 1], "one score and one game count"), ([3.0, 0.0], [2, 2], "0 <= score <= games"), ([0.0, 0.0], [0, 0], "no games")],
)
def test_bad_results_are_refused(scores, games, message):
    ladder = Calibration(elo=np.array([0.0, 300.0]), covariance=np.zeros((2, 2)))
    with pytest.raises(ValueError, match=message):
        rate_candidate(scores, games, ladder)
