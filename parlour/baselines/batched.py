"""Players that choose for many games of a batched engine at once.

A learner training on a batched engine (``parlour.training.opponent_mix``) meets the
same opponents as on single games.  Where a player's rule is a handful of array
operations over the batch (a uniform draw, a one-ply heuristic, a network's forward
pass), it has a batched form, the same rule as its single-game ``Policy`` (the same
choice wherever that is deterministic; ties and samples drawn from the batch's
generator).  This module is their one registry: a game's players module registers the
forms it defines with :func:`register_batched` (``players/<game>_batched.py``:
Goofspiel's ``rudimentary``, Tides of Time's ``greedy`` and ``original-alphabeta``,
Tribolo's ``greedy``, Double Card's one-ply ``alphabeta``, both games' one-ply
``ntuple``), a learned player's form registers beside that player
(``learned/alphazero_batched.py``: ``az`` without search, for every game), and
``random``, which every engine can play (its ``random_actions``, a uniform legal draw),
is registered here for every game.  The engines themselves hold no player: they offer
the game facts a form reads (legal masks, the points each card would give, the cells that capture most).
Every other player plays each game through the rules module, as in the arena.

``batched_policy(policy, engine)`` gives the batched form of a ``Policy`` object, or
``None``; :class:`BatchedSeats` seats one batched player at every seat a learner's
vector env (``parlour.vector``) leaves to its opponents.
"""

from __future__ import annotations

import abc
from collections.abc import Callable

import numpy as np

from parlour.baselines.policy import Policy, make_from_spec
from parlour.games.engine import BatchedEngine
from parlour.vector.seat_players import SeatPlayers

EVERY_GAME = "*"
"""The game a form registered for every engine is registered under (``random``)."""


class BatchedPolicy(abc.ABC):
    """A player's rule over many games of one engine (see the module docstring)."""

    spec: str
    """The policy spec it plays (as ``repr(policy)`` writes it)."""

    @abc.abstractmethod
    def actions(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``(k,)`` int64: the action of seat ``seats[i]`` in game ``rows[i]`` (each one to
        act there), drawing from ``rng`` where the rule draws."""

    def probabilities(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray) -> np.ndarray | None:
        """``(k, num_actions)`` float: the distribution seat ``seats[i]`` draws its move from
        in game ``rows[i]`` (zero off the legal moves; one-hot for a rule that does not
        draw), for a learner distilling this player (a teacher); ``None`` for a player
        that cannot say one (the default)."""
        return None


def pick(engine: BatchedEngine, every: np.ndarray, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The entries ``(rows, seats)`` of a choice made for the whole batch (``(B, P)`` for
    a simultaneous engine, else ``(B,)``, the movers')."""
    return every[rows, seats] if engine.simultaneous else every[rows]


class RandomBatched(BatchedPolicy):
    """``random``: a uniformly random legal action (the engine's ``random_actions``; it
    draws for the whole batch, as the engines' players always did, so a seed gives the
    same games as before the players left the engines)."""

    spec = "random"

    def actions(self, engine: BatchedEngine, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return pick(engine, engine.random_actions(rng), rows, seats)


Factory = Callable[[Policy, BatchedEngine], "BatchedPolicy | None"]
_FACTORIES: dict[tuple[str, str], Factory] = {}


def register_batched(game: str, name: str) -> Callable[[Factory], Factory]:
    """Register ``factory(policy, engine)``: the batched form of the ``Policy`` named
    ``name`` for ``game`` (``EVERY_GAME``: for every engine), or ``None`` for the
    parameters it does not cover."""

    def decorate(factory: Factory) -> Factory:
        _FACTORIES[(game, name)] = factory
        return factory

    return decorate


def registered_forms() -> dict[tuple[str, str], Factory]:
    """Every registered factory by ``(game, policy name)`` (``EVERY_GAME`` for the forms
    of every game): where each form lives is checked against docs/architecture.md."""
    return dict(_FACTORIES)


def batched_names(game: str) -> list[str]:
    """The policy names with a batched form registered for ``game`` (some cover only
    some parameters: ``batched_policy`` says for a given policy)."""
    return sorted({name for (g, name) in _FACTORIES if g in (game, EVERY_GAME)})


def batched_policy(policy: Policy, engine: BatchedEngine) -> BatchedPolicy | None:
    """The batched form of ``policy`` on ``engine`` (a game of the same options), or
    ``None`` when it has none."""
    if policy.game != engine.game:
        raise ValueError(f"policy {policy!r} was made for {policy.game!r}, the engine plays {engine.game!r}")
    factory = _FACTORIES.get((engine.game_name, policy.name)) or _FACTORIES.get((EVERY_GAME, policy.name))
    return None if factory is None else factory(policy, engine)


@register_batched(EVERY_GAME, "random")
def _random(policy: Policy, engine: BatchedEngine) -> BatchedPolicy | None:
    return RandomBatched() if repr(policy) == "random" else None


class BatchedSeats(SeatPlayers):
    """The batched player ``spec`` (a policy spec with a batched form, e.g. ``greedy``) at
    every seat of every game that the learner does not hold: the ``opponent`` of a
    learner's vector env (``parlour.vector.gym_env.BatchedVectorEnv``,
    ``parlour.vector.sb3_env.BatchedSB3VecEnv``) beyond ``random``."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.form: BatchedPolicy | None = None

    def bind(self, engine: BatchedEngine, rng: np.random.Generator) -> None:
        if getattr(self, "engine", None) is not engine:
            form = batched_policy(make_from_spec(self.spec, engine.game), engine)
            if form is None:
                raise ValueError(f"{self.spec!r} has no batched form for {engine.game_name}; batched players are "
                                 f"{batched_names(engine.game_name)} (some only with their default parameters)")
            self.form = form
        super().bind(engine, rng)

    def actions(self, need: np.ndarray) -> np.ndarray:
        engine, form = self.engine, self.form
        assert form is not None, "bind comes first"
        out = np.zeros(need.shape, dtype=np.int64)
        rng = engine.rng  # the engine's generator as it is now (a reset with a seed replaces it)
        if engine.simultaneous:
            rows, seats = np.nonzero(need)
            out[rows, seats] = form.actions(engine, rows, seats, rng)
        else:
            rows = np.flatnonzero(need)
            out[rows] = form.actions(engine, rows, engine.movers()[rows], rng)
        return out

    def describe(self) -> str:
        return self.spec
