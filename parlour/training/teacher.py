"""Teachers: the move distributions a PPO learner is pulled towards early in its run.

Kickstarting (Schmitt et al., 2018) adds to the learner's loss the cross-entropy from a
teacher's move distribution to the learner's masked policy, on the positions the learner
itself meets, with a weight that decays, so that the learner starts from the teacher's
play and the reward takes over.  This project's zoo holds strong players that answer in
well under a millisecond (the AlphaZero network alone, an n-tuple evaluation at one ply),
which makes them teachers a learner can ask at every step.

A teacher is any policy spec (``ppo.teacher``, ``parlour train --teacher SPEC``), asked
where the learner's games are played:

- on the batched engine, its batched form (``parlour.baselines.batched``): one
  ``probabilities`` call for every game of the batch (:class:`BatchedTeacher`), or, for a
  form that cannot say a distribution (``greedy``), all weight on the move it plays; a
  spec without a batched form (a search through the rules module) is refused with the
  list of those that have one;
- on single games, the policy itself on the learner's information state
  (:class:`SingleTeacher`): its distribution where it can say one (``distribution``:
  ``az:...,simulations=0``'s masked softmax, the batched form's own; an ``az`` search's
  visit counts), else all weight on the move it plays.

The weight at step ``t`` (:func:`teacher_weight`) depends on ``t`` alone, so a run resumed
from a checkpoint weighs every update as the uninterrupted run did.  This module knows no
RL library: the PPO backend's ``kickstart`` module puts the distributions beside its
rollout buffer and the term into MaskablePPO's loss.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from parlour.baselines import Policy, make_from_spec
from parlour.baselines.batched import BatchedPolicy, batched_names, batched_policy
from parlour.games.base import Game
from parlour.games.engine import BatchedEngine

SCHEDULES = ("linear", "constant")
"""``ppo.teacher_schedule``: ``linear``, the weight falls from ``teacher_weight`` to 0 over
``teacher_steps`` steps and stays 0; ``constant``, ``teacher_weight`` throughout."""


def teacher_weight(settings: Mapping[str, Any], step: int) -> float:
    """The distillation term's weight at environment step ``step`` for a ``[ppo]`` table
    (0 without a teacher)."""
    if not settings.get("teacher"):
        return 0.0
    weight = float(settings["teacher_weight"])
    if settings["teacher_schedule"] == "constant":
        return weight
    return weight * max(0.0, 1.0 - step / int(settings["teacher_steps"]))


def one_hot(action: int, num_actions: int) -> np.ndarray:
    out = np.zeros(num_actions, dtype=np.float32)
    out[action] = 1.0
    return out


class SingleTeacher:
    """A teacher on single games: the policy ``spec`` on the learner's information states."""

    def __init__(self, spec: str, game: Game, seed: int | None = None) -> None:
        self.spec = spec
        self.game = game
        self.policy: Policy = make_from_spec(spec, game, seed=seed)

    def reset(self, seed: int) -> None:
        """Reseed the teacher's own draws (every training segment, so that a resumed run
        draws as the uninterrupted one did)."""
        self.policy.reset(seed)

    def distribution(self, info_state: Any) -> np.ndarray:
        """``(num_actions,)`` float32: the teacher's distribution over the moves of
        ``info_state`` (its own ``distribution`` where the policy has one, else a one-hot
        of its move); all zero for ``None`` (no position: the term skips that row)."""
        num_actions = self.game.num_actions
        if info_state is None:
            return np.zeros(num_actions, dtype=np.float32)
        own = getattr(self.policy, "distribution", None)
        if own is not None:
            probs = own(info_state)
            if probs is not None:
                return np.asarray(probs, dtype=np.float32)
        return one_hot(int(self.policy.act(info_state)), num_actions)

    def distributions(self, info_states: Sequence[Any]) -> np.ndarray:
        """``(n, num_actions)`` float32: :meth:`distribution` of each."""
        return np.stack([self.distribution(state) for state in info_states])


class BatchedTeacher:
    """A teacher on the batched engine: the batched form of ``spec`` (made for the engine
    on first use), one ``probabilities`` call for the learner's seat of every game."""

    def __init__(self, spec: str, game: Game, seed: int | None = None) -> None:
        self.spec = spec
        self.game = game
        self.policy = make_from_spec(spec, game)
        self.rng = np.random.default_rng(seed)
        """Where a form without ``probabilities`` draws its moves (its ties), apart from the games'."""
        self._engine: BatchedEngine | None = None
        self._form: BatchedPolicy | None = None

    def reset(self, seed: int) -> None:
        """Reseed the teacher's own draws (see :meth:`SingleTeacher.reset`)."""
        self.rng = np.random.default_rng(seed)

    def form(self, engine: BatchedEngine) -> BatchedPolicy:
        """The batched form on ``engine``; ``ValueError`` for a spec that has none or cannot
        say a distribution."""
        if self._engine is not engine:
            form = batched_policy(self.policy, engine)
            if form is None:
                raise ValueError(f"teacher {self.spec!r} has no batched form for {engine.game_name}; on the batched engine "
                                 f"a teacher is one of {batched_names(engine.game_name)} (some only with certain "
                                 f"parameters, e.g. az:PATH,simulations=0, ntuple:PATH,depth=1,time_limit=none), "
                                 f"or train on single games (ppo.vec_env=dummy) where any policy can teach")
            self._engine, self._form = engine, form
        assert self._form is not None
        return self._form

    def distributions(self, engine: BatchedEngine, seats: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """``(k, num_actions)`` float32: the teacher's distribution for seat ``seats[i]`` of
        game ``rows[i]`` (each one to act there; ``rows``: every game of the batch)."""
        rows = np.arange(engine.num_envs) if rows is None else np.asarray(rows, dtype=np.int64)
        seats = np.asarray(seats, dtype=np.int64)
        form = self.form(engine)
        probs = form.probabilities(engine, rows, seats)
        if probs is not None:
            return np.asarray(probs, dtype=np.float32)
        moves = form.actions(engine, rows, seats, self.rng)  # a rule that cannot say one: all weight on its move
        out = np.zeros((len(rows), engine.num_actions), dtype=np.float32)
        out[np.arange(len(rows)), moves] = 1.0
        return out


def check_teacher(spec: str, game: Game) -> None:
    """``ValueError`` naming a bad teacher spec (an unknown policy, a bad parameter), before
    a run writes anything."""
    make_from_spec(spec, game)
