"""An RLlib module as a batched player: one forward pass for every game it plays in.

The RLlib backend's batched path (``parlour.training.backends.rllib.batched_env``) meets
frozen snapshots of its learning module (the opponent ``league``) in many games of one
engine at the same step.  :class:`BatchedModule` answers all of them together, as
``ppo_batched.FrozenPPO`` does for a MaskablePPO file: the observations and legal masks
of the seats it holds, one call of the module's ``forward_inference`` (its logits are
already masked: ``rllib_module.MaskedPPOModule``), then one uniform per game against the
masked policy's cumulative probabilities, drawn from the batch's generator (the rule of
the multi-agent env's league snapshots, ``rllib.SnapshotPolicy``, which samples).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.baselines.batched import BatchedPolicy
from parlour.games.engine import BatchedEngine, uniform_legal


class BatchedModule(BatchedPolicy):
    """A masked RLlib module (``MaskedPPOModule`` in eval mode) sampling its moves for many
    games at once (see the module docstring); ``spec`` names it (``league:step_N``)."""

    def __init__(self, module: Any, spec: str) -> None:
        import torch

        self.module = module
        self.spec = spec
        self._torch = torch

    def probabilities(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        rows, seats = np.asarray(rows, dtype=np.int64), np.asarray(seats, dtype=np.int64)
        if len(rows) == 0:
            return np.zeros((0, engine.num_actions))
        return self.policy(engine.decode(engine.observation_at(rows, seats)), engine.legal_mask_at(rows, seats))

    def policy(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``(k, num_actions)`` float64: the module's masked policy, one forward pass."""
        torch = self._torch
        legal = masks.astype(bool)
        batch = {"obs": {"observations": torch.as_tensor(observations, dtype=torch.float32),
                         "action_mask": torch.as_tensor(legal, dtype=torch.float32)}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"]
            probs = torch.softmax(logits.double(), dim=1).numpy()
        return np.where(legal, probs, 0.0)

    def actions(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if len(rows) == 0:
            return np.zeros(0, dtype=np.int64)
        masks = engine.legal_mask_at(rows, seats)
        legal = masks.astype(bool)
        cumulative = np.cumsum(self.policy(engine.decode(engine.observation_at(rows, seats)), masks), axis=1)
        total = cumulative[:, -1]
        u = rng.random(len(legal))
        chosen = (cumulative > (u * total)[:, None]).argmax(axis=1).astype(np.int64)
        empty = ~(total > 0)
        if empty.any():
            chosen[empty] = uniform_legal(legal[empty].astype(np.int8), rng)
        return chosen
