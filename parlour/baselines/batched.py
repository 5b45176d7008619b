"""Players that choose for many games of a batched engine at once.

A learner training on a batched engine (``parlour.training.opponent_mix``) meets the
same opponents as on single games.  Where a player's rule is a handful of array
operations over the batch (a uniform draw, a one-ply heuristic), it has a batched
form here, the same rule as its single-game ``Policy`` (the same choice wherever that
is deterministic; ties and samples drawn from the batch's generator): the engines'
own players (``random``, ``greedy``, ``rudimentary``: ``engine.opponents``) and the
forms registered with :func:`register_batched`.  Every other player plays each game
through the rules module, as in the arena.

``batched_policy(policy, engine)`` gives the batched form of a ``Policy`` object, or
``None``.
"""

from __future__ import annotations

import abc
from collections.abc import Callable

import numpy as np

from parlour.baselines.policy import Policy
from parlour.games.engine import BatchedEngine


class BatchedPolicy(abc.ABC):
    """A player's rule over many games of one engine (see the module docstring)."""

    spec: str
    """The policy spec it plays (as ``repr(policy)`` writes it)."""

    @abc.abstractmethod
    def actions(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``(k,)`` int64: the action of seat ``seats[i]`` in game ``rows[i]`` (each one to
        act there), drawing from ``rng`` where the rule draws."""


class EngineBuiltin(BatchedPolicy):
    """One of the engine's own players (``engine.opponent_actions(name)``)."""

    def __init__(self, name: str) -> None:
        self.spec = name

    def actions(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        every = engine.opponent_actions(self.spec, rng)
        return every[rows, seats] if engine.simultaneous else every[rows]


Factory = Callable[[Policy, BatchedEngine], "BatchedPolicy | None"]
_FACTORIES: dict[tuple[str, str], Factory] = {}


def register_batched(game: str, name: str) -> Callable[[Factory], Factory]:
    """Register ``factory(policy, engine)``: the batched form of the ``Policy`` named
    ``name`` for ``game``, or ``None`` for the parameters it does not cover."""

    def decorate(factory: Factory) -> Factory:
        _FACTORIES[(game, name)] = factory
        return factory

    return decorate


def batched_policy(policy: Policy, engine: BatchedEngine) -> BatchedPolicy | None:
    """The batched form of ``policy`` on ``engine`` (a game of the same options), or
    ``None`` when it has none."""
    if policy.game != engine.game:
        raise ValueError(f"policy {policy!r} was made for {policy.game!r}, the engine plays {engine.game!r}")
    spec = repr(policy)
    if spec in engine.opponents:
        return EngineBuiltin(spec)
    factory = _FACTORIES.get((engine.game_name, policy.name))
    return None if factory is None else factory(policy, engine)
