"""Who sits at the seats a learner does not hold, in every game of a batch.

A learner's vector env (:class:`parlour.vector.gym_env.LearnerCore`) holds one seat of
every game and leaves the others to a :class:`SeatPlayers`: the view tells it when
episodes start (with the learner's seat in each), asks it for the actions of the seats
it plays, and reports every step the engine took, so that a player that keeps a
single-game copy of some games (a search that needs the rules' ``State``) can follow.

This layer knows one player, ``random`` (:class:`RandomSeats`: the engine's uniform
legal draw); the players hold no other.  The batched players registered with the
baselines (``parlour.baselines.batched``: ``greedy``, ``rudimentary``, the one-ply
searches) sit at the seats through its ``BatchedSeats``, and the training layer's
``parlour.training.opponent_mix.OpponentMix`` plays a weighted mix of policies and the
learner's snapshots, all through the same four calls.
"""

from __future__ import annotations

import abc

import numpy as np

from parlour.games.engine import BatchedEngine


class SeatPlayers(abc.ABC):
    """The non-learner seats of every game of one engine (see the module docstring).

    The calls come in this order: :meth:`bind` once; then, for every game, :meth:`start`
    when its episode begins, and any number of :meth:`actions` / :meth:`applied` pairs
    until it ends.  ``need`` and ``actions`` are shaped as the engine's ``step`` takes
    them: ``(B, P)`` for a simultaneous game (every seat to act but the learner's), else
    ``(B,)`` (the games whose mover is not the learner).
    """

    engine: BatchedEngine

    def bind(self, engine: BatchedEngine, rng: np.random.Generator) -> None:
        """The engine whose games these players play, and the generator of the learner's
        view that every draw they make comes from (it is the engine's own: one seed fixes
        the whole batch)."""
        self.engine = engine
        self.rng = rng

    def start(self, rows: np.ndarray, learner: np.ndarray) -> None:
        """New episodes in the games ``rows`` (an index array), the learner at seat
        ``learner[i]`` of game ``rows[i]``; the engine already holds their first position."""

    @abc.abstractmethod
    def actions(self, need: np.ndarray) -> np.ndarray:
        """The actions of the seats ``need`` selects (``(B, P)`` or ``(B,)`` bool, see the
        class docstring), in an integer array of the same shape (entries outside ``need``
        are ignored)."""

    def applied(self, actions: np.ndarray, where: np.ndarray, terminated: np.ndarray) -> None:
        """The engine stepped the games ``where`` with ``actions`` (every seat's in a
        simultaneous game); ``terminated``: those that ended (and were dealt afresh)."""

    def describe(self) -> str:
        return type(self).__name__

    def close(self) -> None:
        """Release what the players hold (worker processes); the view's ``close`` calls it."""


class RandomSeats(SeatPlayers):
    """``random`` at every seat the learner does not hold: the engine's own uniform legal
    draw (``random_actions``), the one player this layer knows."""

    def actions(self, need: np.ndarray) -> np.ndarray:
        return self.engine.random_actions()  # the engine's generator, as it is now

    def describe(self) -> str:
        return "random"
