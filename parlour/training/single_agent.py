"""A Gymnasium single-agent view of any parlour game: the learner at one seat, the
other seats played by parlour policies or frozen models.

Why not wrap the PettingZoo env the way PettingZoo's SB3 tutorial does?  There one
model plays every seat, and when the *opponent's* move ends the game the loser's -1
belongs to a transition that is never delivered.  Here the environment advances the
opponents itself until the learner must act (or the game is over), so every episode
ends with the learner's own final reward, whoever moved last:

- turn-based games: the opponents' moves (and, in Tribolo, skipped turns) happen
  inside ``reset`` and ``step``;
- simultaneous games: the opponents choose in the same step as the learner, each
  from its own information state, and the joint action is applied at once.

The observation is the seat's observation tensor (the same array the PettingZoo env
puts under ``"observation"``); the legal moves come from ``action_masks()``, a method
of the env itself, so MaskablePPO finds it through ``SubprocVecEnv`` too.  An action
inside the action space that the mask forbids ends the episode with -1 for the learner
(``illegal_action="terminate"``, as PettingZoo's ``env()`` does, because Gymnasium's and
SB3's env checkers step with unmasked samples) or raises ``IllegalActionError``
(``"raise"``); an action outside the space (not an integer, or out of range) is a
programming error and always raises, as in the PettingZoo envs.

Randomness: ``reset(seed=...)`` seeds ``self.np_random`` (via ``super().reset``);
the learner's seat, the opponents drawn from the pool, their seeds, the deal and the
opening of a deep start (``starts``) all come from it, so the same seeds give the same
episodes in any process.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from parlour.baselines import Policy
from parlour.baselines.playout import play_out, step
from parlour.envs.adapter import NO_MOVE, info, render_modes, render_state
from parlour.errors import IllegalActionError, illegal_mode
from parlour.games import load_game
from parlour.games.base import Game, State, integer_action
from parlour.training.opponents import OpponentPool, parse_opponents
from parlour.training.starts import SingleOpenings, Starts

SEAT_MODES = ("random",)
MAX_RESET_TRIES = 1000
"""Deals drawn before giving up when every game ends before the learner moves."""


class SingleAgentEnv(gymnasium.Env):
    """The learner's view of ``game`` (see the module docstring).

    ``game``: a game name (with ``game_options``) or a ``Game``.  ``opponent``: a
    policy spec, comma-separated specs, a list of specs, a ``Policy`` or an
    ``OpponentPool``; ``opponent_weights`` weighs a list of specs.  ``seat``: an int
    or ``"random"`` (uniform each episode).  ``starts``: a share of the episodes starts
    some plies deep (``parlour.training.starts``; ``None``: every episode from the deal).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}
    """Per instance, the game's own render modes replace this list."""

    def __init__(
        self,
        game: str | Game = "goofspiel",
        opponent: str | Sequence[str] | Policy | OpponentPool = "random",
        seat: int | str = "random",
        opponent_weights: Sequence[float] | None = None,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        starts: Starts | None = None,
        **game_options: Any,
    ) -> None:
        if isinstance(game, Game):
            if game_options:
                raise ValueError(f"game options {sorted(game_options)} given with a ready Game {game!r}")
            self.game = game
        else:
            self.game = load_game(game, **game_options)
        info = self.game.info
        if isinstance(seat, str):
            if seat not in SEAT_MODES:
                raise ValueError(f"seat must be an int in 0..{info.num_players - 1} or 'random', got {seat!r}")
        elif isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < info.num_players:
            raise ValueError(f"seat must be an int in 0..{info.num_players - 1} or 'random', got {seat!r}")
        illegal_action = illegal_mode(illegal_action)
        modes = render_modes(type(self.game))
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be one of {modes} or None, got {render_mode!r}")
        self.metadata = {"render_modes": modes, "render_fps": 4}
        self.seat_mode = seat
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.pool = self._make_pool(opponent, opponent_weights)
        self.openings = None if starts is None else SingleOpenings(self.game, starts)
        low, high = self.game.observation_bounds
        self.observation_space = spaces.Box(low, high, self.game.observation_shape, dtype=np.float32)
        self.action_space = spaces.Discrete(info.num_actions)
        self.seat = 0 if seat == "random" else int(seat)
        self.opponents: dict[int, Policy] = {}
        self.opponent_labels: dict[int, str] = {}
        self.end_reason = ""
        """Why the episode ended early, for a person (``"player_0 played illegal action 4;
        legal actions were [...]"``), or ``""``; the info holds the numbers."""
        self._state: State | None = None
        self._done = True
        self._mask: np.ndarray | None = None
        self._all_legal = np.ones(info.num_actions, dtype=bool)

    def _make_pool(self, opponent: Any, weights: Sequence[float] | None) -> OpponentPool:
        if isinstance(opponent, OpponentPool):
            if opponent.game != self.game:
                raise ValueError(f"the opponent pool is for {opponent.game!r}, not {self.game!r}")
            return opponent
        if isinstance(opponent, Policy):
            return OpponentPool.of_policy(opponent, self.game)
        return OpponentPool(self.game, parse_opponents(opponent, weights))

    # -- Gymnasium API -------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """A new episode (some plies deep where ``starts`` draws so).  ``options``:
        ``{"state": State}`` starts it from that position of this game (a copy; the episode
        is that game's, it is not redealt, no opening is played) and
        ``{"seat": int}`` puts the learner at that seat for this episode."""
        start, seat = self._reset_options(options)
        super().reset(seed=seed)
        rng = self.np_random
        for _ in range(MAX_RESET_TRIES):
            if seat is not None:
                self.seat = seat
            elif self.seat_mode == "random":
                self.seat = int(rng.integers(self.game.num_players))
            self.opponents, self.opponent_labels = {}, {}
            for other in range(self.game.num_players):
                if other != self.seat:
                    label, policy = self.pool.draw(rng)
                    policy.reset(int(rng.integers(2**63)))
                    self.opponents[other], self.opponent_labels[other] = policy, label
            deal = int(rng.integers(2**63))
            self._state = self.game.new_initial_state(deal) if start is None else start.clone()
            if start is None and self.openings is not None:
                self._state = self.openings.open(self._state, rng)
            self.end_reason = ""
            self._advance()
            self._done = self._state.is_terminal()
            if not self._done:
                return self._observation(), self._info()
            if start is not None:
                raise ValueError(f"the game of options['state'] ends before seat {self.seat} moves")
        raise RuntimeError(f"{MAX_RESET_TRIES} games of {self.game!r} in a row ended before seat {self.seat} moved")

    def _reset_options(self, options: dict[str, Any] | None) -> tuple[State | None, int | None]:
        """The checked ``state`` and ``seat`` of ``reset``'s options (``ValueError`` naming
        a bad one; nothing is changed)."""
        options = dict(options or {})
        unknown = sorted(set(options) - {"state", "seat"})
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; the single-agent view takes 'state' and 'seat'")
        start, seat = options.get("state"), options.get("seat")
        if start is not None:
            if not isinstance(start, State) or start.game != self.game:
                raise ValueError(f"options['state'] must be a state of {self.game!r}, got {start!r}")
            if start.is_terminal():
                raise ValueError("options['state'] is a finished game")
        if seat is not None:
            players = self.game.num_players
            if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < players:
                raise ValueError(f"options['seat'] must be an int in 0..{players - 1}, got {seat!r}")
            seat = int(seat)
        return start, seat

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        state = self._require_state()
        if self._done:
            raise RuntimeError("the episode is over; call reset()")
        seat = self.seat
        legal = self._legal()
        value = integer_action(action)
        if value is None or not 0 <= value < len(legal):
            raise IllegalActionError(
                f"{self.game.name}: action {action!r} is outside the action space Discrete({len(legal)}) "
                f"(an action is an int, a numpy integer or a 0-d integer array)",
                action=action,
                player=seat,
            )
        if not legal[value]:
            reason = f"player_{seat} played illegal action {value}; legal actions were {state.legal_actions(seat)}"
            if self.illegal_action == "raise":
                raise IllegalActionError(f"{self.game.name}: {reason}", action=value, player=seat, legal=state.legal_actions(seat))
            self._done = True
            self.end_reason = reason
            return self._observation(), -1.0, True, False, self._info(value)
        step(state, self.opponents, fixed={seat: value})
        self._advance()
        done = self._done = state.is_terminal()
        reward = float(state.returns()[seat]) if done else 0.0
        return self._observation(), reward, done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now (all True once the episode is over, so that a
        policy can still be queried on the final observation)."""
        self._require_state()
        if self._done:
            return self._all_legal.copy()
        return self._legal().copy()

    def _legal(self) -> np.ndarray:
        """The learner's legal mask, computed once per decision (masks and step share it)."""
        if self._mask is None:
            self._mask = self._require_state().legal_mask(self.seat).astype(bool)
        return self._mask

    def render(self) -> Any:  # text (ansi) or an RGB array, Gymnasium's RenderFrame
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        return render_state(self._require_state(), self.render_mode)

    def learner_info_state(self) -> Any:
        """The learner's information state now (what a teacher is asked about through
        ``env_method``); ``None`` once the episode is over."""
        state = self._require_state()
        return None if self._done else state.info_state(self.seat)

    # -- self-play -----------------------------------------------------------------

    def add_snapshot(self, path: str) -> None:
        """Tell this env's pool about a new frozen learner (called through ``env_method``)."""
        self.pool.add_snapshot(path)

    def snapshots(self) -> list[str]:
        return list(self.pool.snapshots)

    # -- internals -----------------------------------------------------------------

    @property
    def game_state(self) -> State:
        """The live rules state (read it or clone it)."""
        return self._require_state()

    def _require_state(self) -> State:
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def _advance(self) -> None:
        """Let the opponents move until the learner must act or the game is over."""
        self._mask = None
        play_out(self._require_state(), self.opponents, until=lambda state: self.seat in state.current_players())

    def _observation(self) -> np.ndarray:
        return self._require_state().observation_tensor(self.seat)

    def _info(self, illegal_move: int = NO_MOVE) -> dict[str, Any]:
        """The PettingZoo envs' info (:func:`parlour.envs.adapter.info`: the same keys at
        every step, numbers only) and the learner's seat; its opponents' names are
        ``opponent_labels``, the reason for a person ``end_reason``."""
        return {"seat": self.seat, **info(illegal_move != NO_MOVE, illegal_move)}
