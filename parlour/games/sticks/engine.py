"""Pick-up sticks, B games at once: the mover of every game takes sticks in one ``step``.

The whole state of a game is two integers (sticks left, seat to move), so the batch is
two arrays of shape (B,).  Observations and masks depend only on the sticks left and
are read from lookup tables built once from the single game itself (row ``s`` is
the observation (``observation.py``) / ``legal_mask`` of a pile of ``s``), so they are the single
game's values by construction.  No chance: the generator only serves
:meth:`random_actions` (random opponents).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from parlour.errors import IllegalActionError
from parlour.games.base import counted
from parlour.games.engine import BatchedEngine, BatchStep
from parlour.games.sticks.observation import observation_vector
from parlour.games.sticks.rules import SticksGame, SticksState


class SticksBatch(BatchedEngine):
    """B pick-up sticks games (options of ``SticksGame``: ``num_sticks``, ``max_take``,
    ``misere``).  ``step(actions)`` takes the movers' actions, shape ``(B,)`` (action
    ``a`` takes ``a + 1`` sticks)."""

    game: SticksGame

    game_class = SticksGame
    STATE = ("sticks", "to_move")
    simultaneous = False

    def __init__(self, num_envs: int, seed: int | np.random.Generator | None = None, *, autoreset: bool = True, **options: Any) -> None:
        super().__init__(num_envs, seed, autoreset=autoreset, **options)
        game: SticksGame = self.game
        n = game.num_sticks
        self.misere = game.misere
        self.max_take = game.max_take
        # row s: the single game's tensors with s sticks left
        self.obs_table = np.stack([observation_vector(s, game.max_take, game.observation_shape) for s in range(n + 1)])
        self.mask_table = np.stack([SticksState(game, s, 0).legal_mask(0) for s in range(n + 1)])
        self.take_limit = np.minimum(np.arange(n + 1), self.max_take)  # legal actions: 0..limit-1
        self.sticks = np.zeros(self.num_envs, dtype=np.int64)
        self.to_move = np.zeros(self.num_envs, dtype=np.int64)
        self.reset()

    def _reset_rows(self, rows: np.ndarray) -> None:
        self.sticks[rows] = self.game.num_sticks
        self.to_move[rows] = 0

    @property
    def terminated(self) -> np.ndarray:
        return self.sticks == 0

    def game_state(self, b: int) -> SticksState:
        return SticksState(self.game, int(self.sticks[b]), int(self.to_move[b]))

    def load_states(self, states: Sequence[SticksState], rows: np.ndarray | None = None) -> None:
        rows = self._load_rows(states, rows)
        self.sticks[rows] = [state.sticks for state in states]
        self.to_move[rows] = [state.to_move for state in states]

    def movers(self) -> np.ndarray:
        return np.where(self.sticks > 0, self.to_move, -1)

    def to_act(self) -> np.ndarray:
        out = np.zeros((self.num_envs, 2), dtype=bool)
        out[self._rows, self.to_move] = self.sticks > 0
        return out

    def legal_masks(self) -> np.ndarray:
        out = np.zeros((self.num_envs, 2, self.num_actions), dtype=np.int8)
        out[self._rows, self.to_move] = self.mask_table[self.sticks]
        return out

    def legal_mask(self, seat: int | np.ndarray) -> np.ndarray:
        seats = self._seats(seat)
        return self.mask_table[self.sticks] * (self.to_move == seats)[:, None].astype(np.int8)

    def observations(self) -> np.ndarray:
        # the same vector for both seats (perfect information, no seat in it)
        return np.repeat(self.obs_table[self.sticks][:, None], 2, axis=1)

    def observation(self, seat: int | np.ndarray) -> np.ndarray:
        self._seats(seat)
        return self.obs_table[self.sticks]

    def observation_at(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        return self.obs_table[self.sticks[rows]]

    def returns(self) -> np.ndarray:
        out = np.zeros((self.num_envs, 2))
        done = np.flatnonzero(self.sticks == 0)
        self._write_returns(out, done)
        return out

    def _write_returns(self, out: np.ndarray, rows: np.ndarray) -> None:
        """+1 / -1 for the games ``rows``, which are over: ``to_move`` is then the seat
        that did not take the last stick, the winner under misère."""
        winner = self.to_move[rows] if self.misere else 1 - self.to_move[rows]
        out[rows, winner] = 1.0
        out[rows, 1 - winner] = -1.0

    def step(self, actions: Any, where: np.ndarray | None = None) -> BatchStep:
        """The mover of every selected game takes ``actions[b] + 1`` sticks."""
        actions = self._action_array(actions, (self.num_envs,), "the mover's action in each game")
        rows = self._selected(where)
        acts = actions[rows].astype(np.int64, copy=False)
        sticks = self.sticks[rows]
        bad = (acts < 0) | (acts >= self.take_limit[sticks])
        if bad.any():
            i = int(np.argmax(bad))
            b, a, left = int(rows[i]), int(acts[i]), int(sticks[i])
            seat = int(self.to_move[b])
            if not left:
                raise IllegalActionError(f"sticks: game {b} of the batch is over; reset it first (or use autoreset=True)", action=a)
            raise IllegalActionError(
                f"sticks: action {a} (take {a + 1}) is illegal for seat {seat} in game {b} of the batch "
                f"with {counted(left, 'stick')} left",
                action=a,
                player=seat,
                legal=list(range(int(self.take_limit[left]))),
            )
        left = sticks - acts - 1
        self.sticks[rows] = left
        self.to_move[rows] = 1 - self.to_move[rows]
        rewards = np.zeros((self.num_envs, 2))
        terminated = np.zeros(self.num_envs, dtype=bool)
        final = None
        done = rows[left == 0]
        if len(done):
            terminated[done] = True
            self._write_returns(rewards, done)
            final = np.zeros((self.num_envs, 2, *self.observation_shape), dtype=np.float32)
            final[done] = self.obs_table[0]
            if self.autoreset:
                self._reset_rows(done)
        return BatchStep(rewards, terminated, final)
