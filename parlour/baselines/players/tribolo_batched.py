"""Tribolo's ``greedy`` for many games at once (its batched form).

``greedy`` (:class:`~parlour.baselines.players.tribolo.GreedyCells`, with its default
``tie_break=random``) plays a cell that captures the most cells now.  The engine counts
the captures of every legal cell of every game in bit-sliced array work
(``TriboloBatch.most_capturing_words``); this form draws one of the best cells
uniformly, one uniform per game from the batch's generator (not the policy's own
stream), with the rule of ``uniform_legal`` (``TriboloBatch.random_among``).

``ntuple:PATH,depth=1,time_limit=none`` (the n-tuple player's ``paranoid`` at depth 1)
plays the first move of best value in the legal order, every child evaluated at once
(``parlour.baselines.learned.ntuple_batched``; the logits from the engine's owner codes:
``tribolo_ntuple.WindowChildLogits``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.baselines.batched import BatchedPolicy, register_batched
from parlour.baselines.learned.ntuple_batched import one_ply_ntuple
from parlour.baselines.players.tribolo_ntuple import WindowChildLogits
from parlour.baselines.policy import Policy
from parlour.games.engine import BatchedEngine
from parlour.games.tribolo.engine import TriboloBatch


class TriboloGreedyBatched(BatchedPolicy):
    """``greedy`` on the batched engine (see the module docstring).  It draws for every
    game (one uniform each, whichever games are asked), so a seed gives the same games
    whoever asks."""

    spec = "greedy"

    def actions(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        assert isinstance(engine, TriboloBatch)
        return engine.random_among(engine.most_capturing_words(), rng)[rows]


@register_batched("tribolo", "greedy")
def _greedy(policy: Policy, engine: Any) -> BatchedPolicy | None:
    return TriboloGreedyBatched() if repr(policy) == "greedy" else None


@register_batched("tribolo", "ntuple")
def _ntuple(policy: Policy, engine: Any) -> BatchedPolicy | None:
    return one_ply_ntuple(policy, engine, {"windows": WindowChildLogits})
