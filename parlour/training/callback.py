"""The SB3 callback of a training run: the progress bar and self-play snapshots.

Its own module because it subclasses SB3's ``BaseCallback`` (the ``train`` extra),
which the rest of ``parlour.training`` must not need at import time.
"""

from __future__ import annotations

from typing import Any

from stable_baselines3.common.callbacks import BaseCallback


class TrainingCallback(BaseCallback):
    """Advance the progress bar every step; snapshot the learner when one is due."""

    def __init__(self, trainer: Any, vec_env: Any, snapshots: list[str], bar: Any) -> None:
        super().__init__()
        self.trainer = trainer
        self.vec_env = vec_env
        self.snapshots = snapshots
        self.bar = bar

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(self.training_env.num_envs)
        return True

    def _on_rollout_end(self) -> None:
        if self.trainer.snapshot_due(self.model.num_timesteps):
            self.trainer.snapshot(self.model, self.vec_env, self.snapshots)
