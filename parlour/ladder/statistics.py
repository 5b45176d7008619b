"""The benchmark's statistics: a ladder's calibration and a candidate's rating on it.

Both use the Bradley-Terry (logistic Elo) model of :mod:`parlour.evaluation.ratings`,
``P(i scores against j) = 1 / (1 + 10 ** (-(R_i - R_j) / 400))``, fitted to *per-game*
scores: in a two-player game a win is 1, a draw 1/2, a loss 0; in Tribolo (three seats,
the candidate against two copies of a rung) a game scores the mean of the candidate's
comparisons with the two other seats (1 for finishing above both, 1/2 for between...).
One game is one trial, never two: the two comparisons of one Tribolo game are not
independent, and counting them twice would halve the variance dishonestly.

Calibration (``anchor``): the round-robin's ratings are fitted jointly, then shifted so
that the anchor rung (``random``) is exactly 0; the covariance is shifted with them
(``Cov' = A Cov A^T`` for the shift ``A``), so the anchor's own variance is 0 and every
other rung's variance is that of its difference from the anchor.

A candidate (``rate_candidate``): the rungs' ratings are held fixed and only the
candidate's rating ``r`` is fitted, by Newton's method on the one-dimensional
log-likelihood (plus a weak Gaussian prior at the ladder's middle, which only matters
for a perfect record: an agent that beats every rung every time has no finite maximum
likelihood rating, and the card then says it is above the ladder).  Its variance has two
parts, both reported:

* the games: ``1 / I`` with ``I = sum_k n_k p_k (1 - p_k)`` (Fisher information, Elo
  units);
* the ladder: ``r`` is a function of the rungs' ratings through the likelihood equation
  ``sum_k (s_k - n_k p_k(r - R_k)) = 0``, so ``dr/dR_k = w_k / sum w`` with
  ``w_k = n_k p_k (1 - p_k)``; by the delta method its variance is ``g^T Cov g`` with
  the calibration's covariance.

The interval is ``r +- 1.96 sqrt(var_games + var_ladder)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from parlour.evaluation.ratings import ELO_PER_NAT, Z95, fit_ratings

CANDIDATE_PRIOR_SD = 1000.0
"""Standard deviation (Elo) of the candidate's prior, centred on the ladder's middle:
worth a small fraction of one game, so it shows only when a record is perfect."""


@dataclass(frozen=True)
class Calibration:
    """Ratings of the rungs with the anchor at 0, and their covariance (Elo squared)."""

    elo: np.ndarray
    covariance: np.ndarray

    @property
    def stderr(self) -> np.ndarray:
        return np.sqrt(np.clip(np.diag(self.covariance), 0, None))

    def interval(self, i: int) -> tuple[float, float]:
        half = Z95 * float(self.stderr[i])
        return (float(self.elo[i]) - half, float(self.elo[i]) + half)


def calibrate(num_rungs: int, results: Sequence[tuple[int, int, float, float]], anchor: int = 0, prior_sd: float = 400.0) -> Calibration:
    """Fit every rung jointly (``results``: ``(i, j, score_i, games)``), anchor at 0."""
    if not 0 <= anchor < num_rungs:
        raise ValueError(f"anchor {anchor} is outside 0..{num_rungs - 1}")
    ratings = fit_ratings(num_rungs, results, prior_sd=prior_sd)
    shift = np.eye(num_rungs)
    shift[:, anchor] -= 1.0  # R'_i = R_i - R_anchor
    return Calibration(elo=shift @ ratings.elo, covariance=shift @ ratings.covariance @ shift.T)


def expected_score(rating: float, opponent: np.ndarray | float) -> np.ndarray:
    """Bradley-Terry expected score of ``rating`` against ``opponent`` (Elo)."""
    return 1.0 / (1.0 + np.power(10.0, -(rating - np.asarray(opponent, dtype=np.float64)) / 400.0))


@dataclass(frozen=True)
class CandidateRating:
    elo: float
    stderr_games: float
    """From the candidate's own games only (the rungs taken as exact)."""
    stderr_ladder: float
    """From the rungs' calibration uncertainty (delta method)."""
    off_scale: str | None
    """``"above"`` or ``"below"`` the ladder when the record is perfect (the rating is
    then the prior-bounded estimate, a bound rather than a measurement), else ``None``."""

    @property
    def stderr(self) -> float:
        return math.hypot(self.stderr_games, self.stderr_ladder)

    @property
    def interval(self) -> tuple[float, float]:
        half = Z95 * self.stderr
        return (self.elo - half, self.elo + half)


def rate_candidate(
    scores: Sequence[float] | np.ndarray,
    games: Sequence[float] | np.ndarray,
    calibration: Calibration,
    rungs: Sequence[int] | None = None,
    prior_sd: float = CANDIDATE_PRIOR_SD,
    tol: float = 1e-9,
) -> CandidateRating:
    """The candidate's rating from its ``scores`` out of ``games`` against each rung.

    ``rungs``: the rungs played (indices into the calibration), default all, in order.
    """
    index = np.arange(len(calibration.elo)) if rungs is None else np.asarray(rungs, dtype=np.intp)
    s = np.asarray(scores, dtype=np.float64)
    n = np.asarray(games, dtype=np.float64)
    if not (len(s) == len(n) == len(index)):
        raise ValueError(f"need one score and one game count per rung played ({len(index)}), got {len(s)} and {len(n)}")
    if np.any(n < 0) or np.any(s < 0) or np.any(s > n):
        raise ValueError("every rung needs 0 <= score <= games")
    if n.sum() == 0:
        raise ValueError("no games were played: nothing to rate")
    ladder = calibration.elo[index] / ELO_PER_NAT  # natural units
    centre = float(ladder.mean())
    precision = 1.0 / (prior_sd / ELO_PER_NAT) ** 2
    r = centre
    for _ in range(200):
        p = 1.0 / (1.0 + np.exp(-(r - ladder)))
        gradient = float(np.sum(s - n * p)) - precision * (r - centre)
        curvature = float(np.sum(n * p * (1 - p))) + precision
        step = gradient / curvature
        step = max(-2.0, min(2.0, step))  # the likelihood is concave; the cap only tames a start far away
        r += step
        if abs(step) < tol:
            break
    p = 1.0 / (1.0 + np.exp(-(r - ladder)))
    w = n * p * (1 - p)
    information = float(w.sum())
    games_var = 1.0 / (information + precision)
    g = w / (information + precision)  # dr/dR_k
    ladder_var = float(g @ calibration.covariance[np.ix_(index, index)] @ g)  # already Elo^2
    off_scale = None
    if np.all(s == n):
        off_scale = "above"
    elif np.all(s == 0):
        off_scale = "below"
    return CandidateRating(
        elo=r * ELO_PER_NAT,
        stderr_games=math.sqrt(games_var) * ELO_PER_NAT,
        stderr_ladder=math.sqrt(max(0.0, ladder_var)),
        off_scale=off_scale,
    )
