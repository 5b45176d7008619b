"""The statistics of a match: Wilson intervals, mean returns, Bradley-Terry (Elo) ratings.

* Wilson score interval for a binomial proportion (Wilson 1927; recommended over the
  normal "Wald" interval by Brown, Cai and DasGupta 2001, Statistical Science 16(2)),
  because win rates near 0 or 1 are common in an arena and the Wald interval collapses
  to a point there.
* Mean return with a normal-approximation 95% interval (mean +- 1.96 s / sqrt(n)).
* Ratings: the Bradley-Terry model (Bradley and Terry 1952), which is the logistic Elo
  model: ``P(i beats j) = 1 / (1 + 10 ** (-(R_i - R_j) / 400))``.  Draws count as half
  a win for each side (as in Elo's own scoring).  The ratings maximise the likelihood
  plus a weak Gaussian prior on each rating (mean 0, standard deviation ``prior_sd``
  Elo, worth well under one game), so a perfect record gives a large but finite gap and
  the ratings sum to 0.  The fit is Newton's method with step halving on this strictly
  concave objective; the 95% intervals come from the inverse of the observed Fisher
  information (the negative Hessian) at the optimum.  numpy only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per unit of the logistic (natural-log odds) scale."""


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``successes`` out of ``trials`` (default 95%).

    ``(nan, nan)`` for zero trials.  ``successes`` may be fractional (a score with half
    draws); the formula is the same, which is the usual approximation for scores.
    """
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got successes={successes}, trials={trials}")
    if trials == 0:
        return (math.nan, math.nan)
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: Sequence[float] | np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean with a normal-approximation interval (nan if n < 2)."""
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(data.mean())
    if data.size < 2:
        return (mean, math.nan, math.nan)
    half = z * float(data.std(ddof=1)) / math.sqrt(data.size)
    return (mean, mean - half, mean + half)


@dataclass(frozen=True)
class Ratings:
    """Fitted Elo ratings (summing to 0), their standard errors and 95% intervals."""

    elo: np.ndarray
    stderr: np.ndarray
    covariance: np.ndarray
    """Covariance of the Elo ratings (Elo squared), after centring."""
    iterations: int

    def interval(self, i: int, z: float = Z95) -> tuple[float, float]:
        return (float(self.elo[i] - z * self.stderr[i]), float(self.elo[i] + z * self.stderr[i]))

    def difference_stderr(self, i: int, j: int) -> float:
        """Standard error of ``elo[i] - elo[j]``."""
        c = self.covariance
        return math.sqrt(max(0.0, c[i, i] + c[j, j] - 2 * c[i, j]))


def fit_ratings(
    num_agents: int,
    results: Sequence[tuple[int, int, float, float]],
    prior_sd: float = 400.0,
    tol: float = 1e-10,
    max_iter: int = 200,
) -> Ratings:
    """Bradley-Terry / Elo ratings by maximum a-posteriori estimation.

    ``results``: ``(i, j, score_i, games)`` tuples, ``score_i`` = wins of ``i`` over ``j``
    plus half the draws (repeated pairs add up).  ``prior_sd``: standard deviation of
    the Gaussian prior on each rating, in Elo; it keeps the fit finite (an agent that
    won every game) and defined (agents with no games get 0 +- the prior).
    """
    if num_agents < 1:
        raise ValueError(f"need at least one agent, got {num_agents}")
    if prior_sd <= 0:
        raise ValueError(f"prior_sd must be positive, got {prior_sd}")
    rows = np.array([(i, j) for i, j, _, _ in results], dtype=np.intp).reshape(-1, 2)
    score = np.array([s for _, _, s, _ in results], dtype=np.float64)
    games = np.array([n for _, _, _, n in results], dtype=np.float64)
    if rows.size and (rows.min() < 0 or rows.max() >= num_agents or np.any(rows[:, 0] == rows[:, 1])):
        raise ValueError(f"results name agents outside 0..{num_agents - 1} or an agent against itself")
    if np.any(games < 0) or np.any(score < 0) or np.any(score > games):
        raise ValueError("every result needs 0 <= score <= games")
    i, j = rows[:, 0], rows[:, 1]
    precision = 1.0 / (prior_sd / ELO_PER_NAT) ** 2  # prior precision in natural units

    def objective(r: np.ndarray) -> float:
        d = r[i] - r[j]
        # log sigmoid(d) = -log(1 + exp(-d)), computed stably
        return float(np.sum(-score * np.logaddexp(0, -d) - (games - score) * np.logaddexp(0, d)) - 0.5 * precision * r @ r)

    def gradient_hessian(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = 1.0 / (1.0 + np.exp(-(r[i] - r[j])))
        g = -precision * r
        resid = score - games * p
        np.add.at(g, i, resid)
        np.add.at(g, j, -resid)
        w = games * p * (1 - p)
        h = -precision * np.eye(num_agents)
        np.add.at(h, (i, i), -w)
        np.add.at(h, (j, j), -w)
        np.add.at(h, (i, j), w)
        np.add.at(h, (j, i), w)
        return g, h

    r = np.zeros(num_agents)
    value = objective(r)
    iterations = 0
    for iterations in range(1, max_iter + 1):  # noqa: B007 (the count is read after the loop)
        g, h = gradient_hessian(r)
        step = np.linalg.solve(-h, g)
        scale = 1.0
        while True:  # step halving: the objective must not decrease
            candidate = r + scale * step
            new_value = objective(candidate)
            if new_value >= value - 1e-12 or scale < 1e-6:
                break
            scale *= 0.5
        r, value = candidate, new_value
        if float(np.max(np.abs(scale * step))) < tol:
            break
    _, h = gradient_hessian(r)
    cov = np.linalg.inv(-h)
    centre = np.eye(num_agents) - 1.0 / num_agents
    cov = centre @ cov @ centre * ELO_PER_NAT**2
    elo = (r - r.mean()) * ELO_PER_NAT
    return Ratings(elo=elo, stderr=np.sqrt(np.clip(np.diag(cov), 0, None)), covariance=cov, iterations=iterations)
