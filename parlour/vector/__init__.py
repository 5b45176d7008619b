"""Batched numpy engines: B games of one configuration stepped at once (issue 15).

``make_engine(name, num_envs, seed, **options)`` builds the engine of a game;
``parlour.vector.gym_env`` and ``parlour.vector.sb3_env`` turn one into a
single-agent vector env for learners.  Observations, masks and returns are exactly
the single-game engines' (tests/vector).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.vector.base import BatchedEngine, BatchStep, uniform_legal
from parlour.vector.double_card import DoubleCardBatch
from parlour.vector.goofspiel import GoofspielBatch
from parlour.vector.sticks import SticksBatch
from parlour.vector.tides_of_time import TidesOfTimeBatch
from parlour.vector.tribolo import TriboloBatch

ENGINES: dict[str, type[BatchedEngine]] = {
    DoubleCardBatch.game_name: DoubleCardBatch,
    GoofspielBatch.game_name: GoofspielBatch,
    SticksBatch.game_name: SticksBatch,
    TidesOfTimeBatch.game_name: TidesOfTimeBatch,
    TriboloBatch.game_name: TriboloBatch,
}


def make_engine(name: str, num_envs: int, seed: int | np.random.Generator | None = None, *, autoreset: bool = True, **options: Any) -> BatchedEngine:
    """The batched engine of the game ``name``; a clear error for a game without one."""
    try:
        cls = ENGINES[name]
    except KeyError:
        raise ValueError(f"no batched engine for game {name!r}; batched games are {sorted(ENGINES)}") from None
    return cls(num_envs, seed, autoreset=autoreset, **options)


__all__ = ["ENGINES", "BatchStep", "BatchedEngine", "DoubleCardBatch", "GoofspielBatch", "SticksBatch", "TidesOfTimeBatch",
           "TriboloBatch", "make_engine", "uniform_legal"]
