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
the offender gets -1 and the others 0, and every agent's info says so, as
PettingZoo's ``TerminateIllegalWrapper`` does (``parlour.errors.ILLEGAL_MODES``: the
learner views use the same two words).  An action outside the action
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
from pettingzoo.utils.env import AECIterable, AECIterator
from pettingzoo.utils.env_logger import EnvLogger

from parlour.errors import IllegalActionError, illegal_mode
from parlour.games.base import Game, State, integer_action
from parlour.render import has_picture, picture

RENDER_MODES = ["ansi", "human"]
"""Every game renders as text; a game with a picture (``parlour.render``: all five) also
renders ``"rgb_array"``, the picture rasterised (Pillow, the ``render`` extra)."""


def render_modes(game_cls: type[Game]) -> list[str]:
    return RENDER_MODES + (["rgb_array"] if has_picture(game_cls.name) else [])


NO_MOVE = -1
"""``illegal_move`` of an agent that played no illegal move."""


def info(ended_illegally: bool = False, illegal_move: int = NO_MOVE) -> dict[str, Any]:
    """An agent's info dict: always the same keys, and numbers only, so that replay
    buffers that stack infos (Tianshou's) and tensor wrappers (TorchRL's
    ``PettingZooWrapper``, BenchMARL) can store them.  ``illegal_action``: the game ended
    because of an illegal move (``env()`` and ``parallel_env()`` only); ``illegal_move``:
    the action this agent played that was illegal, ``NO_MOVE`` (-1) if it played none.
    The sentence for a person (who played what, and what was legal) is the env's
    ``end_reason``."""
    return {"illegal_action": ended_illegally, "illegal_move": illegal_move}


class _GameBinding:
    """What the AEC and Parallel faces share: the game, spaces, resets, observations."""

    game: Game
    render_mode: str | None

    def _bind(self, game_cls: type[Game], render_mode: str | None, illegal_action: str, config: dict) -> None:
        self.game = game_cls(**config)
        modes = render_modes(game_cls)
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be one of {modes} or None, got {render_mode!r}")
        self.illegal_action = illegal_mode(illegal_action)
        self.render_mode = render_mode
        self._last_move: Any = None  # (seat, action) or {seat: action}, for the picture
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
        self.action_spaces: dict[str, spaces.Space] = {agent: spaces.Discrete(info.num_actions) for agent in self.possible_agents}
        self._no_moves = np.zeros(info.num_actions, dtype=np.int8)
        self._num_actions = info.num_actions
        self._rng: np.random.Generator | None = None
        self._seed: int | None = None  # the seed of the generator not made yet (see _new_state)
        self._state: State | None = None
        self._obs_cache: dict[str, dict[str, np.ndarray]] = {}
        self.end_reason = ""
        """Why the game ended early, for a person: ``"player_0 played illegal action 4;
        legal actions were [...]"``, or ``""`` (the infos hold the numbers)."""

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
            if type(seed) is int and seed >= 0:
                # Seeding a Generator costs more than a whole Goofspiel step; a game without
                # chance never draws from it, so it is made when first needed (the same
                # generator then: same seed, nothing drawn before).  Other seeds are made
                # now, so that a bad one is an error at reset as before.
                self._rng, self._seed = None, seed
            else:
                self._rng, self._seed = np.random.default_rng(seed), None
        if self._rng is None and self.game.info.has_chance:
            self._rng = np.random.default_rng(self._seed)
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
        assert self._state is not None  # only a step of a live game plays an illegal action
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
        return render_state(self._state, self.render_mode, self._last_move)


def render_state(state: State, mode: str, last: Any = None) -> str | np.ndarray | None:
    """A state as ``mode`` asks: ``"ansi"`` its text form, ``"human"`` that text printed,
    ``"rgb_array"`` its picture with ``last``, the last move, marked (every parlour env
    renders through this)."""
    if mode == "rgb_array":
        return picture(state, last=last).rgb()
    text = state.to_text()
    if mode == "human":
        print(text)
        return None
    return text


class ParlourAECEnv(_GameBinding, AECEnv):
    """A parlour game as a PettingZoo ``AECEnv`` (see the module docstring)."""

    agent_selection: str

    def __init__(self, game_cls: type[Game], render_mode: str | None = None, illegal_action: str = "raise", **config: Any) -> None:
        super().__init__()
        self._bind(game_cls, render_mode, illegal_action, config)
        self.metadata = {
            "name": f"{self.game.name}_v0",
            "render_modes": render_modes(game_cls),
            "is_parallelizable": self.game.info.simultaneous,
        }
        self._pending: dict[int, int] = {}
        self._players: tuple[int, ...] = ()
        """The rules state's current players, kept by ``reset`` and ``step`` (the only
        places the state changes) so that a step and an observation do not ask again."""
        self._zero_rewards: dict[str, int] = {}
        self._has_updated = False  # set by step and reset; read by OrderEnforcing's agent_iter

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._has_updated = True
        self._state = self._new_state(seed, options)
        self._last_move = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._zero_rewards = dict.fromkeys(self.agents, 0)  # what AECEnv._clear_rewards writes
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: info() for agent in self.agents}
        self.end_reason = ""
        self._pending = {}
        self._obs_cache = {}
        self._advance()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        # The hot path: an agent already observed in this position (``last()`` then the
        # learner's own ``observe``, or the other seat of a round) is a dict lookup; the
        # cache only holds agents of a live position, so every check below still holds.
        # (``get``, not a subscript in ``try``: a miss, once a step, would raise KeyError.)
        try:
            observation = self._obs_cache.get(agent)
        except TypeError:  # an unhashable agent: _seat_of says what is wrong
            observation = None
        if observation is None:
            return self._observe_uncached(agent)
        return observation

    def _observe_uncached(self, agent: str) -> dict[str, np.ndarray]:
        if self._state is None:
            return self._observe_without_state(agent)
        return self._observe_seat(agent, self._seat_of(agent))

    def _observe_seat(self, agent: str, seat: int) -> dict[str, np.ndarray]:
        """Build (and cache until the next step) the observation of ``agent`` at ``seat``."""
        state = self._state
        assert state is not None  # its callers checked
        if seat in self._pending or self.terminations.get(agent, True) or seat not in self._players:
            mask = self._no_moves.copy()
        else:
            mask = state.legal_mask(seat)
        obs = self._obs_cache[agent] = {"observation": state.observation_tensor(seat), "action_mask": mask}
        return obs

    def _observe_without_state(self, agent: str) -> dict[str, np.ndarray]:
        """``observe`` before ``reset``: an error (``OrderEnforcing`` has its own)."""
        self._seat_of(agent)
        raise RuntimeError("call reset() before observe()")

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last`` with ``observe`` inlined (the same values, one call fewer)."""
        if self._state is None:
            return self._last_without_state(observe)
        agent = self.agent_selection
        assert agent is not None
        if observe:
            observation = self._obs_cache.get(agent)
            if observation is None:
                observation = self._observe_seat(agent, self._seat[agent])
        else:
            observation = None
        return (
            observation,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def _last_without_state(self, observe: bool):
        """``last`` before ``reset``: ``AECEnv.last``'s error (``OrderEnforcing`` has its own)."""
        return AECEnv.last(self, observe)

    def step(self, action: Any) -> None:
        self._has_updated = True
        state = self._state
        if state is None or not self.agents:
            return self._step_out_of_order(action)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        if type(action) is not int or not 0 <= action < self._num_actions:
            # Not the plain in-range int of the hot path: None, numpy integers, or an error.
            if action is None:
                raise IllegalActionError(f"{self.game.name}: {agent} is to act but the action is None", player=self._seat[agent])
            action = self._check_in_space(agent, action)
        players = self._players
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        try:
            if len(players) == 1:
                state.apply(action)
                self._last_move = (players[0], action)
            else:
                seat = self._seat[agent]
                self._check_legal(seat, action)
                pending = self._pending
                if len(pending) + 1 < len(players):
                    pending[seat] = action
                    self._obs_cache.pop(agent, None)
                    rewards.update(self._zero_rewards)  # AECEnv._clear_rewards, inlined
                    for other in players:  # the next seat of the round still to choose
                        if other not in pending:
                            self.agent_selection = self.possible_agents[other]
                            return
                    raise AssertionError("no seat left to act")
                joint = dict(pending)
                joint[seat] = action
                state.apply(joint)
                self._last_move = joint
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            return self._terminate_illegal(agent, action)
        if self._pending:
            self._pending = {}
        self._obs_cache = {}
        # _advance, inlined on the hot path
        self._players = players = state.current_players()
        if players:
            rewards.update(self._zero_rewards)
            self.agent_selection = self.possible_agents[players[0]]
        else:
            self._finish()
        if self.render_mode == "human":
            self.render()

    def _step_out_of_order(self, action: Any) -> None:
        """``step`` before ``reset`` or after the game is over (``raw_env``: errors)."""
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        raise IllegalActionError(f"{self.game.name}: the game is over; call reset()", action=action)

    def _check_legal(self, seat: int, action: int) -> None:
        state = self._state
        assert state is not None  # step checked
        legal = state.legal_actions(seat)
        if action not in legal:
            raise IllegalActionError(
                f"{self.game.name}: action {action} ({state.action_to_text(action)}) is "
                f"illegal for {self.possible_agents[seat]}",
                action=action,
                player=seat,
                legal=legal,
            )

    def _advance(self) -> None:
        """Set rewards, terminations and the next agent after a rules step."""
        assert self._state is not None  # reset made it
        self._players = players = self._state.current_players()
        if players:
            self._clear_rewards()
            self.agent_selection = self.possible_agents[players[0]]
            return
        self._finish()

    def _finish(self) -> None:
        """The game is over: every agent gets its return and is terminated."""
        assert self._state is not None  # a step or reset ended it
        returns = self._state.returns()
        for agent in self.agents:
            self.rewards[agent] = float(returns[self._seat[agent]])
            self.terminations[agent] = True
        self.agent_selection = self.agents[0]
        self._accumulate_rewards()

    def _terminate_illegal(self, agent: str, action: int) -> None:
        self.end_reason = self._illegal_reason(agent, action)
        for other in self.agents:
            self.rewards[other] = -1.0 if other == agent else 0.0
            self.terminations[other] = True
            self.infos[other] = info(True, action if other == agent else NO_MOVE)
        self._pending = {}
        self._obs_cache = {}
        self._accumulate_rewards()
        self.agent_selection = agent

    def render(self) -> str | np.ndarray | None:
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
        self._last_move = None
        self.agents = self.possible_agents[:] if not self._state.is_terminal() else []
        self._obs_cache = {}
        self.end_reason = ""
        return self._observations(), {agent: info() for agent in self.agents}

    def _observations(self, ended: bool = False, acting: tuple[int, ...] | None = None) -> dict[str, dict[str, np.ndarray]]:
        """Every agent's observation (``acting``: the current players, if known)."""
        state = self._state
        assert state is not None  # reset made it
        if ended:
            acting = ()
        elif acting is None:
            acting = state.current_players()
        seats, no_moves = self._seat, self._no_moves
        observations = {}
        for agent in self.agents:
            seat = seats[agent]
            observations[agent] = {
                "observation": state.observation_tensor(seat),
                "action_mask": state.legal_mask(seat) if seat in acting else no_moves.copy(),
            }
        return observations

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise IllegalActionError(f"{self.game.name}: the game is over; call reset()", action=actions)
        if not isinstance(actions, Mapping):
            raise ValueError(f"actions must be a dict {{agent: action}}, got {actions!r}")
        seats = self._seat
        for agent in actions:
            if agent not in seats:
                unknown = [a for a in actions if a not in seats]
                raise ValueError(f"actions for unknown agent(s) {unknown}; agents are {self.agents}")
        state = self._state
        acting = state.current_players()
        possible, n = self.possible_agents, self._num_actions
        joint: dict[int, Any] = {}  # None until the action is checked, just below
        for seat in acting:
            agent = possible[seat]
            if agent not in actions:
                missing = [possible[s] for s in acting if possible[s] not in actions]
                raise ValueError(f"{self.game.name}: no action for {missing}, who are to act now")
            action = actions[agent]
            joint[seat] = action if type(action) is int and 0 <= action < n else None
        for seat, action in joint.items():  # after the check for missing agents, as before
            if action is None:
                joint[seat] = self._check_in_space(possible[seat], actions[possible[seat]])
        agents = self.agents
        try:
            state.apply(joint if len(acting) > 1 else joint[acting[0]])
            self._last_move = dict(joint) if len(acting) > 1 else (acting[0], joint[acting[0]])
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            return self._terminate_illegal(joint)
        acting = state.current_players()
        observations = self._observations(acting=acting)
        if acting:
            rewards = dict.fromkeys(agents, 0.0)
        else:
            returns = state.returns()
            rewards = {agent: float(returns[seats[agent]]) for agent in agents}
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return (
            observations,
            rewards,
            dict.fromkeys(agents, not acting),
            dict.fromkeys(agents, False),
            {agent: {"illegal_action": False, "illegal_move": NO_MOVE} for agent in agents},  # info(), inlined
        )

    def _terminate_illegal(self, joint: dict[int, int]) -> tuple[dict, dict, dict, dict, dict]:
        state = self._state
        assert state is not None  # step checked
        offenders = [seat for seat, action in joint.items() if action not in state.legal_actions(seat)]
        agents = self.agents
        self.end_reason = "; ".join(self._illegal_reason(self.possible_agents[s], joint[s]) for s in offenders)
        self._obs_cache = {}
        observations = self._observations(ended=True)
        rewards = {agent: -1.0 if self._seat[agent] in offenders else 0.0 for agent in agents}
        self.agents = []
        return (
            observations,
            rewards,
            dict.fromkeys(agents, True),
            dict.fromkeys(agents, False),
            {agent: info(True, joint[self._seat[agent]] if self._seat[agent] in offenders else NO_MOVE) for agent in agents},
        )

    def render(self) -> str | np.ndarray | None:
        return self._render()

    def close(self) -> None:
        pass

    @property
    def unwrapped(self) -> ParlourParallelEnv:
        return self


_BEFORE_RESET = frozenset({"rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents"})
"""What PettingZoo's ``OrderEnforcingWrapper`` refuses to show before ``reset``."""


class OrderEnforcing(ParlourAECEnv):
    """``env()``'s env: PettingZoo's ``OrderEnforcingWrapper`` checks, done in the env.

    The wrapper puts a Python call and, for every attribute the AEC loop reads
    (``agents``, ``agent_selection``, ``rewards``, ...), two ``__getattr__`` hops
    between the user and the env: a third of ``env()``'s time per step on Goofspiel.
    This subclass makes the same checks with the same errors at no cost per step:

    - before ``reset``: ``step``, ``observe``, ``last``, ``render``, ``state`` and
      ``agent_iter`` raise the wrapper's ``AssertionError`` ("reset() needs to be called
      before step.", ...), and reading ``agents``, ``agent_selection``, ``rewards``,
      ``terminations``, ``truncations``, ``infos`` or ``num_agents`` raises its
      ``AttributeError`` ("agents cannot be accessed before reset");
    - ``step`` once every agent is gone warns and does nothing (``raw_env`` raises);
    - ``agent_iter`` asserts that ``step`` or ``reset`` was called between two agents.

    The checks before ``reset`` cost nothing afterwards: they sit on the paths that only
    run then (``__getattr__`` runs only for a missing attribute; the hot ``observe``,
    ``last`` and ``step`` look at ``_has_reset`` only when the position is missing).
    Unlike the wrapper it is not a ``BaseWrapper``: ``unwrapped`` is the env itself,
    and its private attributes are not hidden.
    """

    _has_reset = False

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails, so never for a set attribute.
        if name in _BEFORE_RESET and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __str__(self) -> str:
        return f"OrderEnforcing<{self.metadata['name']}>"

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._has_reset = True  # before the reset itself, as the wrapper does
        super().reset(seed=seed, options=options)

    def _step_out_of_order(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return None
        return super()._step_out_of_order(action)

    def _observe_without_state(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return super()._observe_without_state(agent)

    def _last_without_state(self, observe: bool):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return super()._last_without_state(observe)

    def render(self) -> str | np.ndarray | None:
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        return super().render()

    def state(self) -> np.ndarray:
        if not self._has_reset:
            EnvLogger.error_state_before_reset()
        return super().state()

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderEnforcingIterable(self, max_iter)


class _OrderEnforcingIterable(AECIterable):
    def __iter__(self) -> AECIterator:
        return _OrderEnforcingIterator(self.env, self.max_iter)


class _OrderEnforcingIterator(AECIterator):
    """PettingZoo's ``AECOrderEnforcingIterator`` for ``OrderEnforcing``."""

    def __next__(self) -> str:
        env = self.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return env.agent_selection


def aec_constructors(game_cls: type[Game]) -> tuple[Callable[..., AECEnv], Callable[..., ParlourAECEnv]]:
    """``env`` (PettingZoo's usual wrapping, illegal actions end the game) and ``raw_env``."""

    def raw_env(render_mode: str | None = None, **config: Any) -> ParlourAECEnv:
        return ParlourAECEnv(game_cls, render_mode=render_mode, illegal_action="raise", **config)

    def env(render_mode: str | None = None, **config: Any) -> AECEnv:
        return OrderEnforcing(game_cls, render_mode=render_mode, illegal_action="terminate", **config)

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
