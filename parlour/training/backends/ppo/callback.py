"""The SB3 callback of a PPO run: progress and self-play snapshots.

Its own module because it subclasses SB3's ``BaseCallback`` (the ``train`` extra),
which the rest of ``parlour.training`` must not need at import time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback


class TrainingCallback(BaseCallback):
    """Report every step's progress (``advance(n)``); snapshot the learner when one is
    due (``backend``: the run's ``PPOBackend``)."""

    def __init__(self, backend: Any, advance: Callable[[int], None]) -> None:
        super().__init__()
        self.backend = backend
        self.advance = advance

    def _on_step(self) -> bool:
        self.advance(self.training_env.num_envs)
        return True

    def _on_rollout_end(self) -> None:
        if self.backend.snapshot_due(self.model.num_timesteps):
            self.backend.snapshot()
