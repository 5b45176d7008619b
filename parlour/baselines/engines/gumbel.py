"""Gumbel root selection for ``PUCT``: sequential halving over actions sampled without
replacement, and the improved policy that makes a good training target from few
simulations (Danihelka, Guez, Schrittwieser and Silver, "Policy improvement by planning
with Gumbel", ICLR 2022).

Why: AlphaZero's root (Dirichlet noise, PUCT, visit counts as the target) needs many
simulations before the visit counts say more than the priors; at 8-32 simulations the
target is mostly the prior again, and the move can even be worse than the prior's.
Gumbel AlphaZero instead

1. draws ``g(a) ~ Gumbel(0, 1)`` per legal action and keeps the ``considered`` actions
   with the largest ``g(a) + logit(a)`` (sampling without replacement from the prior);
2. splits the simulations into ``ceil(log2(considered))`` phases; in each, every action
   still in gets the same number of simulations, then the better half by
   ``g(a) + logit(a) + sigma(q(a))`` stays (sequential halving);
3. plays the last action standing (argmax of the same score), which improves on the
   prior in expectation whatever the number of simulations; and
4. trains the policy toward ``softmax(logit + sigma(completed_q))``, where an unvisited
   action's ``q`` is completed by ``v_mix`` (the network's value mixed with the visited
   actions' values under the prior).

``sigma(q) = (c_visit + max_b n(b)) * c_scale * q`` with ``q`` normalised to [0, 1]; the
paper's ``c_visit = 50``, ``c_scale = 1``.  Below the root the search stays ``PUCT``'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Gumbel:
    """Gumbel root settings: ``considered`` actions at most (the paper's 16 for Go's
    self-play at 200 simulations), ``c_visit`` and ``c_scale`` of ``sigma``; ``sample``:
    draw the Gumbel noise (self-play), or ``False`` for the deterministic choice."""

    considered: int = 16
    c_visit: float = 50.0
    c_scale: float = 1.0
    sample: bool = True

    def __post_init__(self) -> None:
        if self.considered < 1:
            raise ValueError(f"Gumbel considered must be at least 1, got {self.considered}")
        if not (self.c_visit >= 0 and self.c_scale >= 0):
            raise ValueError(f"Gumbel c_visit and c_scale must be >= 0, got {self.c_visit}, {self.c_scale}")

    def sigma(self, q: np.ndarray, visits: np.ndarray) -> np.ndarray:
        """The monotone transform of normalised values added to the logits."""
        return (self.c_visit + float(visits.max(initial=0))) * self.c_scale * q


def logits_of(prior: np.ndarray) -> np.ndarray:
    """Log-probabilities of the legal actions' priors (renormalised; zeros become very unlikely)."""
    p = np.asarray(prior, dtype=np.float64)
    p = p / p.sum() if p.sum() > 0 else np.full(len(p), 1.0 / len(p))
    return np.log(np.maximum(p, 1e-30))


def phases(considered: int) -> int:
    """Sequential halving's number of phases for ``considered`` actions."""
    return max(1, math.ceil(math.log2(considered))) if considered > 1 else 1


def visits_per_action(simulations: int, considered: int, remaining: int) -> int:
    """Simulations each remaining action gets in a phase (at least one)."""
    return max(1, simulations // (phases(considered) * remaining))


def halve(remaining: list[int], scores: dict[int, float]) -> list[int]:
    """The better half of ``remaining`` (rounded up) by ``scores``; ties: the lower index
    of ``remaining`` (an action's place in the sampled order)."""
    keep = max(1, math.ceil(len(remaining) / 2))
    order = sorted(range(len(remaining)), key=lambda i: (-scores[remaining[i]], i))
    return [remaining[i] for i in sorted(order[:keep])]


def sampled_order(logits: np.ndarray, noise: np.ndarray, considered: int) -> list[int]:
    """The ``considered`` actions (indices) with the largest ``noise + logits``, best
    first: ``considered`` draws without replacement from the prior (Gumbel-top-k)."""
    return sorted(range(len(logits)), key=lambda i: (-(noise[i] + logits[i]), i))[:considered]


class SequentialHalving:
    """The root action (an index) of each simulation in turn, iterating: every action of
    ``order`` still in (``remaining``) gets ``visits_per_action`` simulations a phase,
    then ``rescore(remaining)`` scores them (``noise + logit + sigma(q)``, after the
    phase's simulations) and the better half stays; once one is left it takes what
    remains of the budget.  ``remaining`` is then the candidates to choose among."""

    def __init__(self, simulations: int, order: list[int], rescore: Callable[[list[int]], dict[int, float]]) -> None:
        self.simulations, self.order, self.rescore = simulations, order, rescore
        self.remaining = list(order)

    def __iter__(self) -> Iterator[int]:
        done = 0
        while done < self.simulations:
            for i in list(self.remaining):
                for _ in range(visits_per_action(self.simulations, len(self.order), len(self.remaining))):
                    if done == self.simulations:
                        return
                    yield i
                    done += 1
            if len(self.remaining) > 1:
                self.remaining = halve(self.remaining, self.rescore(self.remaining))


def completed_q(q: np.ndarray, visits: np.ndarray, prior: np.ndarray, value: float) -> np.ndarray:
    """Each action's value, an unvisited one's completed by ``v_mix`` (appendix D of the
    paper): the node's own ``value`` mixed with the prior-weighted mean of the visited
    actions' values, by their total visits."""
    seen = visits > 0
    total = float(visits.sum())
    if not seen.any():
        return np.full(len(q), value)
    weight = float(prior[seen].sum())
    mean_seen = float((prior[seen] * q[seen]).sum() / weight) if weight > 0 else float(q[seen].mean())
    v_mix = (value + total * mean_seen) / (1.0 + total)
    return np.where(seen, q, v_mix)


def improved_policy(logits: np.ndarray, q: np.ndarray, visits: np.ndarray, prior: np.ndarray, value: float,
                    settings: Gumbel) -> np.ndarray:
    """``softmax(logits + sigma(completed_q))`` over the legal actions (values in [0, 1])."""
    scores = logits + settings.sigma(completed_q(q, visits, prior, value), visits)
    scores = scores - scores.max()
    weights = np.exp(scores)
    return weights / weights.sum()


class GumbelRoot:
    """One search's Gumbel root, whatever holds its tree (``PUCT`` and the vectorised
    search share it): the legal actions' normalised ``prior``, the Gumbel draws from
    ``rng``, the sequential halving schedule (``halving``, to iterate), and at the end
    the chosen action and the improved policy.  ``statistics()`` gives the legal actions'
    normalised mean values and visits and the root's own normalised value, as they stand."""

    def __init__(self, settings: Gumbel, prior: np.ndarray, rng: np.random.Generator, simulations: int,
                 statistics: Callable[[], tuple[np.ndarray, np.ndarray, float]]) -> None:
        prior = np.asarray(prior, dtype=np.float64)
        self.settings, self.statistics = settings, statistics
        self.prior = prior / prior.sum() if prior.sum() > 0 else np.full(len(prior), 1.0 / len(prior))
        self.logits = logits_of(self.prior)
        self.noise = rng.gumbel(size=len(prior)) if settings.sample else np.zeros(len(prior))
        order = sampled_order(self.logits, self.noise, min(settings.considered, len(prior)))
        self.halving = SequentialHalving(simulations, order, self.scores)

    def scores(self, remaining: list[int]) -> dict[int, float]:
        """``noise + logit + sigma(q)`` of the actions (indices) in ``remaining``."""
        q, visits, _ = self.statistics()
        sigma = self.settings.sigma(q, visits)
        return {i: float(self.noise[i] + self.logits[i] + sigma[i]) for i in remaining}

    def choose(self) -> tuple[int, np.ndarray]:
        """The chosen action (an index) and the improved policy over the legal actions."""
        scores = self.scores(self.halving.remaining)
        best = max(self.halving.remaining, key=lambda i: (scores[i], -i))
        q, visits, value = self.statistics()
        return best, improved_policy(self.logits, q, visits, self.prior, value, self.settings)
