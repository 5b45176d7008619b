"""``az:PATH,simulations=0`` as a batched player: the network alone, one forward pass for
every game it plays in.

Without search the single-game player (``AlphaZeroPolicy.act``) reads its seat's
observation tensor (of a sample of its information state: the observation is the
seat's own, the same for every sample) and plays from the network's policy head over
the legal moves: the most probable move (``deterministic=true``, the default), or one
drawn from the masked softmax (``deterministic=false``; ``temperature`` applies to a
search's visit counts only, so not here).  :class:`AlphaZeroBatched` does the same for
many games of a batched engine at once: the engine's observations of the seats asked
(equal to the rules module's, tests/vector), its legal masks, one call of the same
network object (torch, its bfloat16 copy or its numpy copy, as ``inference=`` chose),
``az_model.masked_policies`` for the distributions (the single-game player's own
arithmetic), then the argmax, or one uniform per row against the cumulative
probabilities drawn from the batch's generator.  A learner's opponent mix meets a
zoo ``az`` model this way without a move through the rules module.

Its ``probabilities`` is the masked policy distribution in both cases (not a one-hot of
the argmax): a teacher distils the network's policy, of which the deterministic player
plays the mode.  Registered as ``az`` for every game with a batched engine; the factory
gives ``None`` for a search (``simulations`` above 0), which plays through the rules module.
"""

from __future__ import annotations

import numpy as np

from parlour.baselines.batched import BatchedPolicy, register_batched
from parlour.baselines.learned.alphazero import AlphaZeroPolicy
from parlour.baselines.policy import Policy
from parlour.games.engine import BatchedEngine
from parlour.vector import ENGINES


class AlphaZeroBatched(BatchedPolicy):
    """The network of an ``az:...,simulations=0`` player (its loaded network, shared)
    over many games (see the module docstring)."""

    def __init__(self, policy: AlphaZeroPolicy) -> None:
        if policy.config["simulations"] != 0:
            raise ValueError(f"the batched az player is the network alone (simulations=0), got {policy!r}")
        self.spec = repr(policy)
        self.net = policy.evaluator.net
        self.deterministic = bool(policy.config["deterministic"])

    def probabilities(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The network's masked softmax for seat ``seats[i]`` in game ``rows[i]`` (the
        distribution it samples from, whose mode it plays when deterministic)."""
        from parlour.baselines.learned.az_model import masked_policies

        rows, seats = np.asarray(rows, dtype=np.int64), np.asarray(seats, dtype=np.int64)
        if len(rows) == 0:
            return np.zeros((0, engine.num_actions))
        observations = engine.decode(engine.observation_at(rows, seats))
        return masked_policies(self.net, observations, engine.legal_mask_at(rows, seats))

    def actions(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        probs = self.probabilities(engine, rows, seats)
        if self.deterministic:
            return probs.argmax(axis=1).astype(np.int64)
        cumulative = np.cumsum(probs, axis=1)
        u = rng.random(len(probs)) * cumulative[:, -1]
        chosen = (cumulative > u[:, None]).argmax(axis=1)
        # a draw at the very top of a row's total lands on its last move of probability > 0
        return np.where(probs[np.arange(len(probs)), chosen] > 0, chosen, last_positive(probs)).astype(np.int64)


def last_positive(probs: np.ndarray) -> np.ndarray:
    """Each row's last action of positive probability."""
    return probs.shape[1] - 1 - (probs[:, ::-1] > 0).argmax(axis=1)


def alphazero_form(policy: Policy, engine: BatchedEngine) -> BatchedPolicy | None:
    """``az`` with ``simulations=0``: :class:`AlphaZeroBatched`; a search: ``None``."""
    if not isinstance(policy, AlphaZeroPolicy) or policy.config["simulations"] != 0:
        return None
    return AlphaZeroBatched(policy)


for _game in ENGINES:
    register_batched(_game, "az")(alphazero_form)
