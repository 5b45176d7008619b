"""A PPO model file as a batched player: one forward pass for every game it plays in.

A learner training on a batched engine meets its own frozen snapshots (the opponent
``self`` of ``parlour.training.opponent_mix``) in many games at the same step.
:class:`FrozenPPO` answers all of them together: the observations and legal masks of
the seats it holds, one call of the network, then one uniform per game against the
masked policy's cumulative probabilities (the rule of ``ppo:PATH,deterministic=false``,
sampling from the masked distribution, with the batch's generator instead of the
policy's own stream).

It is also the registered batched form of ``ppo:PATH`` (for every game): the same network
call, then the most probable legal move (``deterministic=true``, the player's default:
the single-game ``act``'s move) or a draw from the masked policy with the batch's
generator (``deterministic=false``: the single-game player's distribution, drawn from
another stream).  Its ``probabilities`` is the masked policy in both cases (the
distribution a teacher distils, the single-game ``PPOPolicy.distribution``), so a PPO
model, the zoo's ``GAME-ppo`` entries among them, is a batched opponent and teacher.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.baselines.batched import EVERY_GAME, BatchedPolicy, register_batched
from parlour.baselines.learned.ppo import PPOPolicy, masked_policy
from parlour.baselines.policy import Policy
from parlour.games.base import Game
from parlour.games.engine import BatchedEngine, uniform_legal


class FrozenPPO(BatchedPolicy):
    """The model in ``path`` (a MaskablePPO written by ``parlour train``), its network
    on ``device``, loaded at its first move (see the module docstring): it samples its
    moves, or plays the most probable one with ``deterministic``; ``spec``: the spec it
    plays (default ``ppo:PATH,deterministic=...``)."""

    def __init__(self, path: str, game: Game, device: str = "cpu", deterministic: bool = False, spec: str | None = None) -> None:
        self.path = str(path)
        self.deterministic = deterministic
        self.spec = spec or f"ppo:{self.path},deterministic={str(deterministic).lower()}"
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
        masks = engine.legal_mask_at(rows, seats)
        if self.deterministic:
            return self.most_probable(observations, masks)
        return self.sample(observations, masks, rng)

    def probabilities(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The masked policy of seat ``seats[i]`` in game ``rows[i]`` (zero off its legal
        moves): what it samples from, whose mode it plays when deterministic."""
        rows, seats = np.asarray(rows, dtype=np.int64), np.asarray(seats, dtype=np.int64)
        if len(rows) == 0:
            return np.zeros((0, engine.num_actions))
        return self.policy(engine.decode(engine.observation_at(rows, seats)), engine.legal_mask_at(rows, seats))

    def policy(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``(k, num_actions)`` float64: the network's masked policy for a batch of
        observations and legal masks, one forward pass (zero off the legal moves)."""
        return masked_policy(self.model.policy, observations, masks)

    def most_probable(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Each row's most probable legal move (the first of equals, as ``ppo:``'s ``act``)."""
        legal = masks.astype(bool)
        return np.where(legal, self.policy(observations, masks), -1.0).argmax(axis=1).astype(np.int64)

    def sample(self, observations: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Moves for a batch of observations and legal masks: one forward pass, then one
        uniform per row against the masked policy's cumulative probabilities (a row whose
        legal moves all have probability 0 draws uniformly)."""
        legal = masks.astype(bool)
        cumulative = np.cumsum(self.policy(observations, masks), axis=1)
        total = cumulative[:, -1]
        u = rng.random(len(legal))
        chosen = (cumulative > (u * total)[:, None]).argmax(axis=1)
        empty = ~(total > 0)
        if empty.any():
            chosen[empty] = uniform_legal(legal[empty].astype(np.int8), rng)
        return chosen


@register_batched(EVERY_GAME, "ppo")
def ppo_form(policy: Policy, engine: BatchedEngine) -> BatchedPolicy | None:
    """``ppo:PATH`` (any parameters): :class:`FrozenPPO` on its model file (the loaded
    model is shared: ``load_model`` keeps one per file and device)."""
    if not isinstance(policy, PPOPolicy):
        return None
    return FrozenPPO(policy.config["path"], policy.game, deterministic=bool(policy.config["deterministic"]), spec=repr(policy))
