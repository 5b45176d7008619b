"""A Gymnasium ``VectorEnv``: the learner's view of B batched games, as
``parlour.training.single_agent.SingleAgentEnv`` gives of one.

The conventions are the single-agent view's: the learner holds one seat per game
(``seat="random"``: drawn anew for every episode, or a fixed int), the other seats are
played by ``opponent``: ``"random"`` (uniform among the legal actions, the engine's
``random_actions``), or any :class:`~parlour.vector.seat_players.SeatPlayers`: a
batched player of the baselines' registry at every such seat
(``parlour.baselines.batched.BatchedSeats("greedy")``), or the training layer's
opponent mix (policies and snapshots, ``parlour.training.opponent_mix``).  The observation is the
learner's ``observation_tensor`` (float32: the engine runs with compact observations
where it has them and decodes the learners' once per batch), the reward is 0 until the episode ends and
then the learner's return, and the legal moves come from :meth:`action_masks` (what
sb3-contrib's MaskablePPO reads).  Opponents act inside ``step``: in a simultaneous
game they bid in the same step as the learner; in a turn-based game they move until
the learner must act again, so every episode ends with the learner's own reward even
when an opponent's move ends it.  An action the mask forbids ends that game's episode
with -1 (``illegal_action="terminate"``, because checkers step with unmasked samples) or
raises (``"raise"``); an action outside ``Discrete(A)`` always raises.

Finished games are reset in the same step (``AutoresetMode.SAME_STEP``): the returned
observation is the new episode's and ``infos["final_obs"]`` (an object array, ``None``
for games still going, with the mask ``infos["_final_obs"]``) holds the last one, as
Gymnasium's ``SyncVectorEnv`` does in that mode.

Randomness: the engine's one generator serves everything (prize orders, the
learner's seats, the opponents' moves), so ``reset(seed=s)`` fixes the whole batch.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from parlour.errors import IllegalActionError, illegal_mode
from parlour.games.engine import BatchedEngine
from parlour.vector import make_engine
from parlour.vector.seat_players import RandomSeats, SeatPlayers

MAX_REDEALS = 1000
"""Rounds of opponents' moves in one call before giving up (games that keep ending
before the learner ever moves, e.g. sticks with one stick and the learner second)."""


class LearnerCore:
    """The learner-versus-opponents logic over a batched engine, shared by the
    Gymnasium and the SB3 vector envs: ``reset`` and ``step`` return plain arrays.

    ``opponent``: ``"random"`` (the engine's uniform legal draw), or a
    :class:`~parlour.vector.seat_players.SeatPlayers` (a registered batched player at
    every seat, ``parlour.baselines.batched.BatchedSeats``; the training layer's mix of
    policies and snapshots)."""

    def __init__(self, game: str, num_envs: int, opponent: str | SeatPlayers = "random", seat: int | str = "random",
                 illegal_action: str = "terminate", seed: int | None = None, **game_options: Any) -> None:
        illegal_action = illegal_mode(illegal_action)
        # compact observations (uint8 where the engine has them), decoded once per batch below
        self.engine: BatchedEngine = make_engine(game, num_envs, seed, autoreset=True, compact=True, **game_options)
        players = self.engine.num_players
        if seat != "random" and (isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < players):
            raise ValueError(f"seat must be an int in 0..{players - 1} or 'random', got {seat!r}")
        if not isinstance(opponent, SeatPlayers) and opponent != "random":
            raise ValueError(f"opponent must be 'random' or a SeatPlayers (a batched player of the baselines' registry: "
                             f"BatchedSeats(spec); an opponent mix), got {opponent!r}")
        self.players = opponent if isinstance(opponent, SeatPlayers) else RandomSeats()
        self.players.bind(self.engine, self.engine.rng)
        self.opponent = self.players.describe()
        self.seat_mode = seat
        self.illegal_action = illegal_action
        self.num_envs = num_envs
        self.seats = np.zeros(num_envs, dtype=np.int64)
        self._rows = np.arange(num_envs)
        self._masks: np.ndarray | None = None

    @property
    def rng(self) -> np.random.Generator:
        return self.engine.rng

    def _start(self, rows: np.ndarray) -> None:
        """Episodes begin in the games ``rows``: the learner's seats, then the players'."""
        if self.seat_mode == "random":
            self.seats[rows] = self.rng.integers(self.engine.num_players, size=len(rows))
        else:
            self.seats[rows] = int(self.seat_mode)
        self.players.start(rows, self.seats[rows])

    def reset(self, seed: int | None = None) -> np.ndarray:
        self.engine.reset(seed)
        self.players.bind(self.engine, self.engine.rng)  # a seed replaces the engine's generator
        self._start(self._rows)
        ended = np.zeros(self.num_envs, dtype=bool)
        self._advance(ended, np.zeros(self.num_envs), None, fresh=np.ones(self.num_envs, dtype=bool))
        return self.observation()

    def observation(self) -> np.ndarray:
        """``(B, *observation_shape)`` float32: every learner's observation."""
        return self.engine.decode(self.engine.observation(self.seats))

    def action_masks(self) -> np.ndarray:
        """``(B, A)`` bool: the learner's legal actions in each game."""
        if self._masks is None:
            self._masks = self.engine.legal_mask(self.seats).astype(bool)
        return self._masks

    def step(self, actions: Any,
             where: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
        """``(observations, rewards, terminated, final_observations or None, illegal)``.

        ``where`` (``(B,)`` bool, default every game): the games the learner moves in; the
        others stand still, their actions ignored (a vector env that resets a finished game
        one step later, Gymnasium's ``AutoresetMode.NEXT_STEP``, holds those games)."""
        engine, B, A = self.engine, self.num_envs, self.engine.num_actions
        array = np.asarray(actions)
        if array.shape != (B,) or array.dtype.kind not in "iu":
            raise IllegalActionError(
                f"{engine.game_name}: actions must be an integer array of shape ({B},) in Discrete({A}), got {actions!r}",
                action=actions,
            )
        held = np.zeros(B, dtype=bool) if where is None else ~np.asarray(where, dtype=bool)
        if held.any():
            array = np.where(held, 0, array)  # any in-range action: those games do not move
        outside = (array < 0) | (array >= A)
        if outside.any():
            b = int(np.argmax(outside))
            raise IllegalActionError(f"{engine.game_name}: action {int(array[b])} of game {b} is outside Discrete({A})",
                                     action=int(array[b]))
        masks = self.action_masks()
        illegal = ~masks[self._rows, array] & ~held
        if illegal.any() and self.illegal_action == "raise":
            b = int(np.argmax(illegal))
            raise IllegalActionError(
                f"{engine.game_name}: player_{self.seats[b]} played illegal action {int(array[b])} in game {b}",
                action=int(array[b]),
                player=int(self.seats[b]),
                legal=np.flatnonzero(masks[b]).tolist(),
            )
        rewards = np.zeros(B)
        final = None
        if illegal.any():  # those episodes end here with -1, on their current observation
            final = np.zeros((B, *engine.observation_shape), dtype=np.float32)
            final[illegal] = self.observation()[illegal]
            rewards[illegal] = -1.0
            engine.reset_games(illegal)
        play = ~illegal & ~held
        if engine.simultaneous:
            need = engine.to_act() & play[:, None]
            need[self._rows, self.seats] = False
            joint = self.players.actions(need)
            joint[self._rows, self.seats] = array
            result = engine.step(joint, where=play)
            self.players.applied(joint, play, result.terminated)
        else:
            result = engine.step(array, where=play)
            self.players.applied(array, play, result.terminated)
        ended = illegal | result.terminated
        final = self._collect(result, result.terminated, rewards, final)
        self._start(np.flatnonzero(ended))
        fresh = ended.copy()
        final = self._advance(ended, rewards, final, fresh)
        return self.observation(), rewards, ended, final, illegal

    def _collect(self, result: Any, done: np.ndarray, rewards: np.ndarray, final: np.ndarray | None) -> np.ndarray | None:
        """Record the learner's reward and last observation of the games ``done``."""
        if not done.any():
            return final
        if final is None:
            final = np.zeros((self.num_envs, *self.engine.observation_shape), dtype=np.float32)
        rows = np.flatnonzero(done)
        seats = self.seats[rows]
        rewards[rows] = result.rewards[rows, seats]
        final[rows] = self.engine.decode(result.final_observations[rows, seats])
        return final

    def _advance(self, ended: np.ndarray, rewards: np.ndarray, final: np.ndarray | None, fresh: np.ndarray) -> np.ndarray | None:
        """Turn-based games: let the opponents move until the learner is to move in every
        game.  ``fresh``: games whose episode started in this call (an opponent ending one
        of those before the learner moved just redeals it)."""
        self._masks = None
        engine = self.engine
        if engine.simultaneous:
            return final
        for _ in range(MAX_REDEALS):
            need = engine.movers() != self.seats
            if not need.any():
                return final
            actions = self.players.actions(need)
            result = engine.step(actions, where=need)
            done = result.terminated
            self.players.applied(actions, need, done)
            if done.any():
                mid = done & ~fresh  # the learner's episode ended on an opponent's move
                final = self._collect(result, mid, rewards, final)
                ended |= mid
                fresh |= done
                self._start(np.flatnonzero(done))
        raise RuntimeError(f"{MAX_REDEALS} rounds of {engine.game_name} games ended before the learner moved")


class BatchedVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of ``game`` (any game of ``parlour.vector.ENGINES``, with
    ``game_options``) seen by a learner (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, game: str = "goofspiel", num_envs: int = 8, opponent: str | SeatPlayers = "random",
                 seat: int | str = "random", illegal_action: str = "terminate", seed: int | None = None,
                 **game_options: Any) -> None:
        self.core = LearnerCore(game, num_envs, opponent, seat, illegal_action, seed, **game_options)
        engine = self.core.engine
        self.num_envs = num_envs
        low, high = engine.game.observation_bounds
        self.single_observation_space = spaces.Box(low, high, engine.observation_shape, dtype=np.float32)
        self.single_action_space = spaces.Discrete(engine.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}
        self._started = False

    @property
    def engine(self) -> BatchedEngine:
        return self.core.engine

    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        if options:
            raise ValueError(f"reset options are not supported by the batched envs, got {options!r}")
        if isinstance(seed, (list, tuple)):  # Gymnasium may pass one seed per env: the first seeds the batch
            seed = seed[0]
        if seed is not None:
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)
        obs = self.core.reset(seed)
        self._started = True
        return obs, self._infos(np.zeros(self.num_envs, dtype=bool), None, np.zeros(self.num_envs, dtype=bool))

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() first")
        obs, rewards, ended, final, illegal = self.core.step(actions)
        return obs, rewards, ended, np.zeros(self.num_envs, dtype=bool), self._infos(ended, final, illegal)

    def action_masks(self) -> np.ndarray:
        """``(num_envs, A)`` bool: the learner's legal actions in each game."""
        return self.core.action_masks().copy()

    def close_extras(self, **kwargs: Any) -> None:
        core = getattr(self, "core", None)  # None when the constructor refused its arguments
        if core is not None:
            core.players.close()

    def _infos(self, ended: np.ndarray, final: np.ndarray | None, illegal: np.ndarray) -> dict[str, Any]:
        everyone = np.ones(self.num_envs, dtype=bool)
        infos: dict[str, Any] = {"seat": self.core.seats.copy(), "_seat": everyone}
        if ended.any():
            assert final is not None  # the core gives a final observation whenever a game ends
            final_obs = np.full(self.num_envs, None, dtype=object)
            for b in np.flatnonzero(ended):
                final_obs[b] = final[b]
            infos["final_obs"], infos["_final_obs"] = final_obs, ended.copy()
            infos["final_info"] = {"illegal_action": illegal.copy(), "_illegal_action": ended.copy()}
            infos["_final_info"] = ended.copy()
        return infos
