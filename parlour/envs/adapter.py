"""One generic adapter: any games-layer ``Game`` as PettingZoo AEC and Parallel envs.

The rules stay in ``parlour.games``; this module only translates.  Seats are the
agents ``player_0``, ``player_1``, ...; the observation of an agent is
``{"observation": game's observation_tensor, "action_mask": legal mask (int8)}``,
all zeros in the mask when the agent is not to act.

A simultaneous step of the rules (several current players) becomes, in the AEC
env, one turn per acting seat in seat order: each choice is held back, unseen by
the others, and the step is applied when the last acting seat has chosen.  The
Parallel env hands the whole step over at once.

Illegal actions: with ``illegal_action="raise"`` (``raw_env``, ``raw_parallel_env``)
an ``IllegalActionError`` names the action, the agent and the legal actions and
nothing changes; with ``"terminate"`` (``env``, ``parallel_env``) the game ends,
the offender gets -1 and the others 0, and every agent's info says why, as
PettingZoo's ``TerminateIllegalWrapper`` does.  An action outside the action
space, a wrong agent, or a missing action is always an error.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from parlour.errors import IllegalActionError
from parlour.games.base import Game, State, integer_action

ILLEGAL_MODES = ("raise", "terminate")
RENDER_MODES = ["ansi", "human"]
"""Every game renders as text; a game whose states have ``to_rgb_array()`` (and say so
with ``Game.rgb_render = True``) also renders ``"rgb_array"``."""


def render_modes(game_cls: type[Game]) -> list[str]:
    return RENDER_MODES + (["rgb_array"] if getattr(game_cls, "rgb_render", False) else [])


def info(reason: str = "") -> dict[str, Any]:
    """An agent's info dict: always the same keys and value types, so that replay buffers
    that store infos (Tianshou's, say) can stack them.  ``illegal_action``: the game
    ended because of an illegal move (``env()`` and ``parallel_env()`` only);
    ``reason``: who played what, and what was legal ("" otherwise)."""
    return {"illegal_action": bool(reason), "reason": reason}


class _GameBinding:
    """What the AEC and Parallel faces share: the game, spaces, resets, observations."""

    game: Game
    render_mode: str | None

    def _bind(self, game_cls: type[Game], render_mode: str | None, illegal_action: str, config: dict) -> None:
        self.game = game_cls(**config)
        modes = render_modes(game_cls)
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be one of {modes} or None, got {render_mode!r}")
        if illegal_action not in ILLEGAL_MODES:
            raise ValueError(f"illegal_action must be one of {list(ILLEGAL_MODES)}, got {illegal_action!r}")
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        info = self.game.info
        self.possible_agents = [f"player_{i}" for i in range(info.num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        low, high = self.game.observation_bounds
        shape = self.game.observation_shape
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, shape, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (info.num_actions,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(info.num_actions) for agent in self.possible_agents}
        self._no_moves = np.zeros(info.num_actions, dtype=np.int8)
        self._rng: np.random.Generator | None = None
        self._state: State | None = None
        self._obs_cache: dict[str, dict[str, np.ndarray]] = {}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def game_state(self) -> State:
        """The live rules state (read it, or ``clone()`` it; do not change it)."""
        if self._state is None:
            raise RuntimeError("call reset() before reading the game state")
        return self._state

    def info_state(self, agent: str) -> Any:
        """What ``agent``'s seat may know now (see the games protocol)."""
        return self.game_state.info_state(self._seat_of(agent))

    def _seat_of(self, agent: str) -> int:
        try:
            return self._seat[agent]
        except (KeyError, TypeError):
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}") from None

    def _new_state(self, seed: int | None, options: Mapping[str, Any] | None) -> State:
        """A start position from ``reset``'s seed and options; nothing changes on error."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        elif self._rng is None:
            self._rng = np.random.default_rng()
        if options is None:
            return self.game.new_initial_state(self._rng)
        if not isinstance(options, Mapping):
            raise ValueError(f"reset options must be a dict, got {options!r}")
        known = {k: v for k, v in options.items() if k in self.game.start_options or k == "position"}
        if len(known) < len(options):
            # PettingZoo's api_test resets with options={"options": 1}, so a key we do not
            # know cannot be an error; it is a loud warning instead.
            allowed = sorted(self.game.start_options) + ["position"]
            warnings.warn(
                f"ignoring unknown reset option(s) {sorted(set(options) - set(known), key=repr)} "
                f"for {self.game.name}; allowed: {allowed}",
                stacklevel=3,
            )
        if "position" in known:
            if len(known) != 1:
                raise ValueError(f"reset option 'position' cannot be combined with {sorted(set(known) - {'position'})}")
            text = known["position"]
            if not isinstance(text, str):
                raise ValueError(f"reset option 'position' must be the text form of a position, got {text!r}")
            return self.game.state_from_text(text)
        return self.game.new_initial_state(self._rng, **known)

    def _observation(self, agent: str, can_act: bool) -> dict[str, np.ndarray]:
        obs = self._obs_cache.get(agent)
        if obs is None:
            seat = self._seat[agent]
            state = self._state
            obs = {
                "observation": state.observation_tensor(seat),
                "action_mask": state.legal_mask(seat) if can_act else self._no_moves.copy(),
            }
            self._obs_cache[agent] = obs
        return obs

    def _check_in_space(self, agent: str, action: Any) -> int:
        """The action as an int in ``range(num_actions)``, else an error naming it (the
        games layer's rule for what an integer is: ``integer_action``)."""
        n = self.game.info.num_actions
        value = integer_action(action)
        if value is None:
            raise IllegalActionError(
                f"{self.game.name}: action {action!r} for {agent} is not an integer (an int, a numpy "
                f"integer or a 0-d integer array); the action space is Discrete({n})",
                action=action,
                player=self._seat.get(agent),
            )
        if not 0 <= value < n:
            raise IllegalActionError(
                f"{self.game.name}: action {action!r} for {agent} is outside the action space Discrete({n})",
                action=action,
                player=self._seat.get(agent),
            )
        return value

    def _illegal_reason(self, agent: str, action: int) -> str:
        legal = self._state.legal_actions(self._seat[agent])
        return f"{agent} played illegal action {action}; legal actions were {legal}"

    def _render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode "
                f"(choose one of {render_modes(type(self.game))})."
            )
            return None
        if self._state is None:
            raise RuntimeError("call reset() before render()")
        return render_state(self._state, self.render_mode)


def render_state(state: State, mode: str) -> str | np.ndarray | None:
    """A state as ``mode`` asks: ``"ansi"`` its text form, ``"human"`` that text printed,
    ``"rgb_array"`` its image (every parlour env renders through this)."""
    if mode == "rgb_array":
        return state.to_rgb_array()
    text = state.to_text()
    if mode == "human":
        print(text)
        return None
    return text


class ParlourAECEnv(_GameBinding, AECEnv):
    """A parlour game as a PettingZoo ``AECEnv`` (see the module docstring)."""

    def __init__(self, game_cls: type[Game], render_mode: str | None = None, illegal_action: str = "raise", **config: Any) -> None:
        super().__init__()
        self._bind(game_cls, render_mode, illegal_action, config)
        self.metadata = {
            "name": f"{self.game.name}_v0",
            "render_modes": render_modes(game_cls),
            "is_parallelizable": self.game.info.simultaneous,
        }
        self._pending: dict[int, int] = {}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._state = self._new_state(seed, options)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: info() for agent in self.agents}
        self._pending = {}
        self._obs_cache = {}
        self._advance()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat_of(agent)
        state = self._state
        if state is None:
            raise RuntimeError("call reset() before observe()")
        can_act = (
            seat not in self._pending
            and not self.terminations.get(agent, True)
            and seat in state.current_players()
        )
        return self._observation(agent, can_act)

    def step(self, action: Any) -> None:
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise IllegalActionError(f"{self.game.name}: the game is over; call reset()", action=action)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        if action is None:
            raise IllegalActionError(f"{self.game.name}: {agent} is to act but the action is None", player=self._seat[agent])
        action = self._check_in_space(agent, action)
        seat = self._seat[agent]
        state = self._state
        players = state.current_players()
        self._cumulative_rewards[agent] = 0.0
        try:
            if len(players) == 1:
                state.apply(action)
            else:
                self._check_legal(seat, action)
                if len(self._pending) + 1 < len(players):
                    self._pending[seat] = action
                    self._obs_cache.pop(agent, None)
                    self._clear_rewards()
                    self.agent_selection = self.possible_agents[self._next_to_act(players)]
                    return
                joint = dict(self._pending)
                joint[seat] = action
                state.apply(joint)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            return self._terminate_illegal(agent, action)
        self._pending = {}
        self._obs_cache = {}
        self._advance()
        if self.render_mode == "human":
            self.render()

    def _check_legal(self, seat: int, action: int) -> None:
        legal = self._state.legal_actions(seat)
        if action not in legal:
            raise IllegalActionError(
                f"{self.game.name}: action {action} ({self._state.action_to_text(action)}) is "
                f"illegal for {self.possible_agents[seat]}",
                action=action,
                player=seat,
                legal=legal,
            )

    def _next_to_act(self, players: tuple[int, ...]) -> int:
        for seat in players:
            if seat not in self._pending:
                return seat
        raise AssertionError("no seat left to act")

    def _advance(self) -> None:
        """Set rewards, terminations and the next agent after a rules step."""
        state = self._state
        players = state.current_players()
        if players:
            self._clear_rewards()
            self.agent_selection = self.possible_agents[players[0]]
            return
        returns = state.returns()
        for agent in self.agents:
            self.rewards[agent] = float(returns[self._seat[agent]])
            self.terminations[agent] = True
        self.agent_selection = self.agents[0]
        self._accumulate_rewards()

    def _terminate_illegal(self, agent: str, action: int) -> None:
        reason = self._illegal_reason(agent, action)
        for other in self.agents:
            self.rewards[other] = -1.0 if other == agent else 0.0
            self.terminations[other] = True
            self.infos[other] = info(reason)
        self._pending = {}
        self._obs_cache = {}
        self._accumulate_rewards()
        self.agent_selection = agent

    def render(self) -> str | None:
        return self._render()

    def close(self) -> None:
        pass


class ParlourParallelEnv(_GameBinding, ParallelEnv):
    """A simultaneous-move parlour game as a PettingZoo ``ParallelEnv``.

    Every step takes an action from each agent that is to act (actions of agents
    not to act are ignored); all agents get observations, rewards and infos.
    """

    def __init__(self, game_cls: type[Game], render_mode: str | None = None, illegal_action: str = "raise", **config: Any) -> None:
        self._bind(game_cls, render_mode, illegal_action, config)
        self.metadata = {"name": f"{self.game.name}_v0", "render_modes": render_modes(game_cls), "is_parallelizable": True}
        self.agents: list[str] = []

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self._state = self._new_state(seed, options)
        self.agents = self.possible_agents[:] if not self._state.is_terminal() else []
        self._obs_cache = {}
        return self._observations(), {agent: info() for agent in self.agents}

    def _observations(self, ended: bool = False) -> dict[str, dict[str, np.ndarray]]:
        acting = () if ended else self._state.current_players()
        return {agent: self._observation(agent, self._seat[agent] in acting) for agent in self.agents}

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise IllegalActionError(f"{self.game.name}: the game is over; call reset()", action=actions)
        if not isinstance(actions, Mapping):
            raise ValueError(f"actions must be a dict {{agent: action}}, got {actions!r}")
        unknown = [a for a in actions if a not in self._seat]
        if unknown:
            raise ValueError(f"actions for unknown agent(s) {unknown}; agents are {self.agents}")
        state = self._state
        acting = state.current_players()
        missing = [self.possible_agents[s] for s in acting if self.possible_agents[s] not in actions]
        if missing:
            raise ValueError(f"{self.game.name}: no action for {missing}, who are to act now")
        joint = {seat: self._check_in_space(self.possible_agents[seat], actions[self.possible_agents[seat]]) for seat in acting}
        agents = self.agents
        try:
            state.apply(joint if len(acting) > 1 else joint[acting[0]])
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            return self._terminate_illegal(joint)
        self._obs_cache = {}
        terminal = not state.current_players()
        returns = state.returns() if terminal else None
        rewards = {agent: float(returns[self._seat[agent]]) if terminal else 0.0 for agent in agents}
        observations = self._observations()
        flags = dict.fromkeys(agents, terminal)
        if terminal:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, flags, dict.fromkeys(agents, False), {agent: info() for agent in agents}

    def _terminate_illegal(self, joint: dict[int, int]) -> tuple[dict, dict, dict, dict, dict]:
        state = self._state
        offenders = [seat for seat, action in joint.items() if action not in state.legal_actions(seat)]
        agents = self.agents
        reason = "; ".join(self._illegal_reason(self.possible_agents[s], joint[s]) for s in offenders)
        self._obs_cache = {}
        observations = self._observations(ended=True)
        rewards = {agent: -1.0 if self._seat[agent] in offenders else 0.0 for agent in agents}
        self.agents = []
        return (
            observations,
            rewards,
            dict.fromkeys(agents, True),
            dict.fromkeys(agents, False),
            {agent: info(reason) for agent in agents},
        )

    def render(self) -> str | None:
        return self._render()

    def close(self) -> None:
        pass

    @property
    def unwrapped(self) -> ParlourParallelEnv:
        return self


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with a direct ``last()``.

    The base class reaches every attribute ``last()`` reads through two
    ``__getattr__`` hops, which halves the steps/s of a fast env; after ``reset``
    the inner env's own ``last()`` gives the same answer.
    """

    def last(self, observe: bool = True):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)


def aec_constructors(game_cls: type[Game]) -> tuple[Callable[..., AECEnv], Callable[..., ParlourAECEnv]]:
    """``env`` (PettingZoo's usual wrapping, illegal actions end the game) and ``raw_env``."""

    def raw_env(render_mode: str | None = None, **config: Any) -> ParlourAECEnv:
        return ParlourAECEnv(game_cls, render_mode=render_mode, illegal_action="raise", **config)

    def env(render_mode: str | None = None, **config: Any) -> AECEnv:
        inner = ParlourAECEnv(game_cls, render_mode=render_mode, illegal_action="terminate", **config)
        return OrderEnforcing(inner)

    raw_env.__doc__ = f"{game_cls.name} as an AEC env; illegal actions raise IllegalActionError."
    env.__doc__ = f"{game_cls.name} as an AEC env; an illegal action ends the game (-1 to the offender)."
    return env, raw_env


def parallel_constructors(game_cls: type[Game]) -> tuple[Callable[..., ParlourParallelEnv], Callable[..., ParlourParallelEnv]]:
    """``parallel_env`` (illegal actions end the game) and ``raw_parallel_env`` (they raise)."""
    if not game_cls.simultaneous:
        raise TypeError(f"{game_cls.name} has no simultaneous steps; it has no Parallel env")

    def parallel_env(render_mode: str | None = None, **config: Any) -> ParlourParallelEnv:
        return ParlourParallelEnv(game_cls, render_mode=render_mode, illegal_action="terminate", **config)

    def raw_parallel_env(render_mode: str | None = None, **config: Any) -> ParlourParallelEnv:
        return ParlourParallelEnv(game_cls, render_mode=render_mode, illegal_action="raise", **config)

    parallel_env.__doc__ = f"{game_cls.name} as a Parallel env; an illegal action ends the game (-1 to the offender)."
    raw_parallel_env.__doc__ = f"{game_cls.name} as a Parallel env; illegal actions raise IllegalActionError."
    return parallel_env, raw_parallel_env
