"""A PPO model file as a batched player: one forward pass for every game it plays in.

A learner training on a batched engine meets its own frozen snapshots (the opponent
``self`` of ``parlour.training.opponent_mix``) in many games at the same step.
:class:`FrozenPPO` answers all of them together: the observations and legal masks of
the seats it holds, one call of the network, then one uniform per game against the
masked policy's cumulative probabilities (the rule of ``ppo:PATH,deterministic=false``,
sampling from the masked distribution, with the batch's generator instead of the
policy's own stream).  It is a :class:`~parlour.baselines.batched.BatchedPolicy` like
the registered forms; it is not registered for ``ppo:`` itself, whose single-game
stream a mix's seeds already fix.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.baselines.batched import BatchedPolicy
from parlour.games.base import Game
from parlour.games.engine import BatchedEngine, uniform_legal


class FrozenPPO(BatchedPolicy):
    """The model in ``path`` (a MaskablePPO written by ``parlour train``), its network
    on ``device``, loaded at its first move (see the module docstring)."""

    def __init__(self, path: str, game: Game, device: str = "cpu") -> None:
        self.path = str(path)
        self.spec = f"ppo:{self.path},deterministic=false"
        self.game = game
        self.device = device
        self._model: Any = None

    @property
    def model(self) -> Any:
        if self._model is None:
            from parlour.baselines.learned.ppo import load_model

            self._model = load_model(self.path, self.game, device=self.device)
        return self._model

    def actions(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        observations = engine.decode(engine.observation_at(rows, seats))
        return self.sample(observations, engine.legal_mask_at(rows, seats), rng)

    def sample(self, observations: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Moves for a batch of observations and legal masks: one forward pass, then one
        uniform per row against the masked policy's cumulative probabilities (a row whose
        legal moves all have probability 0 draws uniformly)."""
        import torch

        policy = self.model.policy
        legal = masks.astype(bool)
        with torch.no_grad():
            obs = torch.as_tensor(observations, dtype=torch.float32, device=policy.device)
            probs = policy.get_distribution(obs, action_masks=legal).distribution.probs
        cumulative = np.cumsum(np.where(legal, probs.cpu().numpy().astype(np.float64), 0.0), axis=1)
        total = cumulative[:, -1]
        u = rng.random(len(legal))
        chosen = (cumulative > (u * total)[:, None]).argmax(axis=1)
        empty = ~(total > 0)
        if empty.any():
            chosen[empty] = uniform_legal(legal[empty].astype(np.int8), rng)
        return chosen
