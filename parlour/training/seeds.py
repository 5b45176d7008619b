"""The seeds of a training run, each drawn from the run's seed and a key of its own
(``numpy.random.SeedSequence`` spawn keys), so that any part of a run can be replayed
alone: a PPO segment's environments, an evaluation, a gating match, a self-play game."""

from __future__ import annotations

import numpy as np


def segment_seed(seed: int, segment: int) -> int:
    """The seed of one use in a run (independent per ``segment`` key): the PPO envs of a
    segment, an evaluation (``10**6 + step``), a gating match (``2 * 10**6 + step``)."""
    return int(np.random.SeedSequence(seed, spawn_key=(2, segment)).generate_state(1)[0])


def game_seed(seed: int, iteration: int, index: int) -> int:
    """The seed of self-play game ``index`` of ``iteration``."""
    return int(np.random.SeedSequence(seed, spawn_key=(3, iteration, index)).generate_state(1)[0])
