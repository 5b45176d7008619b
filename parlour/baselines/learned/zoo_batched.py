"""``zoo:ENTRY`` as a batched player: the batched form of the card's own player.

A zoo agent is its card's player (``az:``, ``ppo:`` or ``ntuple:`` on the shipped model
file, with the card's parameters and the spec's overrides: ``ZooPolicy.inner``), so its
batched form is that player's, where the registry has one: ``zoo:tides_of_time-ppo`` (a
``ppo`` card, the network alone: ``ppo_batched``), ``zoo:tides_of_time,simulations=0``
(an ``az`` card's network without its search: ``alphazero_batched``).  A card whose
player searches (``zoo:tides_of_time`` at its card's simulations, the n-tuple agents at
depth 3 or 4) has none, and plays through the rules module.  This lets a learner meet a
shipped agent as an opponent, or distil it as a teacher, in one call per batch.
"""

from __future__ import annotations

import numpy as np

from parlour.baselines.batched import EVERY_GAME, BatchedPolicy, batched_policy, register_batched
from parlour.baselines.learned.zoo_player import ZooPolicy
from parlour.baselines.policy import Policy
from parlour.games.engine import BatchedEngine


class ZooBatched(BatchedPolicy):
    """The batched form ``inner`` of a zoo agent's own player, under the zoo spec."""

    def __init__(self, spec: str, inner: BatchedPolicy) -> None:
        self.spec = spec
        self.inner = inner

    def actions(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self.inner.actions(engine, rows, seats, rng)

    def probabilities(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray) -> np.ndarray | None:
        return self.inner.probabilities(engine, rows, seats)


@register_batched(EVERY_GAME, "zoo")
def zoo_form(policy: Policy, engine: BatchedEngine) -> BatchedPolicy | None:
    """``zoo:ENTRY``: :class:`ZooBatched` over its card's player's batched form, or
    ``None`` when that player has none (a search)."""
    if not isinstance(policy, ZooPolicy):
        return None
    inner = batched_policy(policy.inner, engine)
    return None if inner is None else ZooBatched(repr(policy), inner)
