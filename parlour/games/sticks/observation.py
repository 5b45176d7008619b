"""Sticks' observation encoding, the same for both seats (the envs' and the batched
engine's vector): ``[sticks left, max_take, one-hot of sticks left]``."""

from __future__ import annotations

import numpy as np


def observation_vector(sticks: int, max_take: int, shape: tuple[int, ...]) -> np.ndarray:
    """The ``float32`` observation of a pile of ``sticks`` (``shape``: the game's
    ``observation_shape``, ``(num_sticks + 3,)``)."""
    obs = np.zeros(shape, dtype=np.float32)
    obs[0] = sticks
    obs[1] = max_take
    obs[2 + sticks] = 1.0
    return obs
