"""Any parlour game as an RLlib ``MultiAgentEnv``, in the form RLlib's masking modules read.

RLlib (new API stack) asks a multi-agent env for observations of the agents that act
next only, and for rewards of any agent at any step; an episode ends for everyone with
``terminateds["__all__"]``.  This env speaks that directly to the rules module (no
PettingZoo layer in between, so no AEC bookkeeping per step):

- the agents are ``player_0`` .. ``player_{n-1}``, as in the PettingZoo envs;
- an observation is ``{"observations": float32 tensor, "action_mask": float32 mask}``,
  the keys and dtypes RLlib's action-masking modules expect (the PettingZoo envs say
  ``observation`` and an int8 mask);
- turn-based games return one agent's observation per step (Tribolo's skipped turns
  simply never show up), simultaneous games every seat that chooses now, and
  ``step`` applies their actions as one joint action;
- every learning agent gets its return (the game's ``returns()``) in the step that
  ends the game, with a final observation, and 0 before: the rewards of the rules
  files, nothing shaped.

Who learns: ``opponents`` is a weighted pool of policy specs as in ``parlour train``,
but here ``self`` means a *live* learning seat.  Every episode, ``seat`` (an int, or
``"random"``: uniform) is a learning agent and every other seat draws an entry from the
pool: ``self`` makes it a learning agent too, any other spec (a baseline, or a frozen
``ppo:``/``az:``/``rllib:`` model) is played inside the env by that parlour policy, from
its own information state, and is not an RLlib agent at all.  The default pool,
``self``, makes every seat learn (parameter-sharing self-play with ``policies="shared"``).
The pool may also hold ``league``: one of the latest ``max_snapshots`` frozen snapshots
of the learning modules (``add_snapshot``; ``parlour.training.backends.rllib.league`` takes them
during a run), drawn uniformly and played inside the env like a baseline; before the
first snapshot arrives, a ``league`` draw seats a live learner.
Randomness: ``reset(seed=...)`` restarts the env's generator; the seats, the opponents
drawn, their seeds and the deal all come from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from parlour.baselines import Policy
from parlour.baselines.learned.rllib import SnapshotPolicy
from parlour.baselines.playout import joint_action, play_out
from parlour.games import load_game
from parlour.games.base import Game, State
from parlour.training.opponents import LEAGUE, SELF, OpponentPool, parse_opponents

MAX_RESET_TRIES = 1000
"""Deals drawn before giving up when every game ends before a learning agent moves."""


def agent_name(seat: int) -> str:
    return f"player_{seat}"


class ParlourMultiAgentEnv(MultiAgentEnv):
    """``game`` (a name plus ``options``, or a ``Game``) for RLlib; see the module docstring.

    RLlib builds envs from one dict, so ``ParlourMultiAgentEnv(config)`` with
    ``config = {"game": ..., "options": {...}, "opponents": ..., ...}`` works too.
    """

    def __init__(
        self,
        config: Mapping[str, Any] | None = None,
        *,
        game: str | Game | None = None,
        options: Mapping[str, Any] | None = None,
        opponents: str | Sequence[str] = SELF,
        opponent_weights: Sequence[float] | None = None,
        seat: int | str = "random",
        max_snapshots: int = 20,
    ) -> None:
        super().__init__()
        settings: dict[str, Any] = {"game": game, "options": options, "opponents": opponents, "opponent_weights": opponent_weights,
                    "seat": seat, "max_snapshots": max_snapshots}
        if config:
            unknown = sorted(set(config) - set(settings))
            if unknown:
                raise ValueError(f"unknown env_config key(s) {unknown}; keys are {sorted(settings)}")
            settings.update(config)
        self.game = make_game(settings["game"], settings["options"])
        n = self.game.num_players
        seat = settings["seat"]
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n):
            raise ValueError(f"seat must be an int in 0..{n - 1} or 'random', got {seat!r}")
        self.seat_mode = seat
        self.pool = OpponentPool(self.game, parse_opponents(settings["opponents"] or SELF, settings["opponent_weights"]),
                                 max_snapshots=settings["max_snapshots"], special=(SELF, LEAGUE))
        self.league: list[SnapshotPolicy] = []
        self.possible_agents = [agent_name(s) for s in range(n)]
        self.agents = list(self.possible_agents)
        low, high = self.game.observation_bounds
        num_actions = self.game.num_actions
        observation = spaces.Dict({
            "observations": spaces.Box(low, high, self.game.observation_shape, dtype=np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (num_actions,), dtype=np.float32),
        })
        self.observation_spaces: dict[str, spaces.Space] = {agent: observation for agent in self.possible_agents}
        self.action_spaces: dict[str, spaces.Space] = {agent: spaces.Discrete(num_actions) for agent in self.possible_agents}
        self.rng = np.random.default_rng()
        self.state: State | None = None
        self.learning_seats: tuple[int, ...] = ()
        self.opponents: dict[int, Policy] = {}
        self.opponent_labels: dict[int, str] = {}

    # -- RLlib's MultiAgentEnv API ---------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if options:
            raise ValueError(f"reset options are not supported by the RLlib env, got {options!r}")
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        for _ in range(MAX_RESET_TRIES):
            self._draw_seats()
            self.state = self.game.new_initial_state(int(self.rng.integers(2**63)))
            self._advance()
            if not self.state.is_terminal():
                return self._observations(self._to_move()), {}
        raise RuntimeError(f"{MAX_RESET_TRIES} games of {self.game!r} in a row ended before a learning seat moved")

    # RLlib's MultiAgentEnv inherits gymnasium.Env's single-agent step annotation; its
    # documented multi-agent contract is this one (dicts keyed by agent id).
    def step(self, action_dict: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        state = self.state
        if state is None or state.is_terminal():
            raise RuntimeError("call reset() before step(): the game is over or has not begun")
        movers = self._to_move()
        expected = sorted(agent_name(s) for s in movers)
        if sorted(action_dict) != expected:
            raise ValueError(f"actions for {sorted(action_dict)}, but the agents to act are {expected}")
        fixed = {seat: int(action_dict[agent_name(seat)]) for seat in movers}
        state.apply(joint_action(state, self._opponent_act, fixed))  # an illegal action raises and changes nothing
        self._advance()
        if state.is_terminal():
            returns = state.returns()
            everyone = self.learning_seats
            rewards = {agent_name(s): float(returns[s]) for s in everyone}
            done = {agent_name(s): True for s in everyone} | {"__all__": True}
            return self._observations(everyone), rewards, done, {"__all__": False}, {}
        nxt = self._to_move()
        return self._observations(nxt), {agent_name(s): 0.0 for s in movers}, {"__all__": False}, {"__all__": False}, {}

    def add_snapshot(self, label: str, modules: Mapping[str, Any]) -> None:
        """A frozen snapshot for the ``league`` entry: ``modules`` (module id -> RLModule,
        the shared one or one per seat) played as ``label``; the latest ``max_snapshots`` play."""
        self.league.append(SnapshotPolicy(self.game, dict(modules), label))
        del self.league[: -self.pool.max_snapshots]

    # -- inside ------------------------------------------------------------------------

    def _draw_seats(self) -> None:
        """This episode's learning seats and env-side opponents (see the module docstring)."""
        rng, n = self.rng, self.game.num_players
        learner = int(rng.integers(n)) if self.seat_mode == "random" else int(self.seat_mode)
        self.opponents, self.opponent_labels = {}, {}
        for seat in range(n):
            if seat == learner:
                continue
            spec = self.pool.draw_entry(rng).spec
            if spec == SELF or (spec == LEAGUE and not self.league):
                continue
            policy = self.league[int(rng.integers(len(self.league)))] if spec == LEAGUE else self.pool.policy(spec)
            policy.reset(int(rng.integers(2**63)))
            self.opponents[seat], self.opponent_labels[seat] = policy, repr(policy) if spec == LEAGUE else spec
        self.learning_seats = tuple(s for s in range(n) if s not in self.opponents)
        self.agents = [agent_name(s) for s in self.learning_seats]

    def _live(self) -> State:
        """The game being played (``reset`` starts one)."""
        if self.state is None:
            raise RuntimeError("call reset() first")
        return self.state

    def _opponent_act(self, seat: int) -> int:
        return int(self.opponents[seat].act(self._live().info_state(seat)))

    def _to_move(self) -> tuple[int, ...]:
        return tuple(s for s in self._live().current_players() if s not in self.opponents)

    def _advance(self) -> None:
        """Play the env's own seats until a learning seat must choose or the game ends
        (at a simultaneous step with learners in it, the opponents choose in ``step``)."""
        play_out(self._live(), act=self._opponent_act, until=lambda _: bool(self._to_move()))

    def _observations(self, seats: Sequence[int]) -> dict[str, dict[str, np.ndarray]]:
        state = self._live()
        over = state.is_terminal()
        out = {}
        for seat in seats:
            mask = np.zeros(self.game.num_actions, np.float32) if over else state.legal_mask(seat).astype(np.float32)
            out[agent_name(seat)] = {"observations": state.observation_tensor(seat), "action_mask": mask}
        return out


def make_game(game: str | Game | None, options: Mapping[str, Any] | None) -> Game:
    """The ``Game`` an env config names; a clear error for a missing or doubled one."""
    if isinstance(game, Game):
        if options:
            raise ValueError(f"game options {sorted(options)} given with a ready Game {game!r}")
        return game
    if not isinstance(game, str):
        raise ValueError(f"the env config must name a game (one of the parlour games), got {game!r}")
    return load_game(game, **dict(options or {}))
