"""The RLlib backend's batched path (``rllib.vec_env = "batched"``): every env runner
steps one batched numpy engine of B games, the learner's view against the opponent mix.

Which path, and why.  RLlib 2.60's new API stack has two env runners.  The
``MultiAgentEnvRunner`` (the ``dummy`` path, ``env.ParlourMultiAgentEnv``) steps its
``num_envs_per_env_runner`` multi-agent envs one by one in Python (a
``SyncVectorMultiAgentEnv``), one game per env, and has no hook for a vector env of
another kind.  The ``SingleAgentEnvRunner`` builds its env with ``gymnasium.make_vec``
and ``gym_env_vectorize_mode``: with ``VECTOR_ENTRY_POINT`` a callable env (this class)
is called once with the env config plus ``num_envs``, and must return a
``gymnasium.vector.VectorEnv`` of that many envs.  So the batched path is single-agent:
one learning seat per game (``seat``, drawn anew for each episode by default) and every
other seat played by ``parlour.training.opponent_mix.OpponentMix`` inside the env, as
the SB3 PPO backend's ``BatchedSB3VecEnv`` does (``parlour.vector.gym_env.LearnerCore``
is the same core).  RLlib's single module is ``default_policy`` (the checkpoint's module,
which ``rllib:`` players play).

What the single-agent view cannot hold: a ``self`` opponent, which on the RLlib backend
means a live learning seat (parameter-sharing self-play of the multi-agent env).  Frozen
learners play through ``league`` here too: one of the latest ``max_snapshots`` snapshots
of the learning module (``add_snapshot``, from ``league.add_league_snapshot``), played
by ``BatchedModule``, one forward pass for all the games it sits in (before the first
snapshot arrives, a ``league`` seat plays uniformly at random).  Policies with a batched
form (``random``, ``greedy``, ``original-alphabeta`` of Tides of Time ...) answer for the
whole batch; others play through the rules module in this process, as in the mix.

RLlib's conventions: observations ``{"observations", "action_mask"}`` (float32, what
``MaskedPPOModule`` reads), batched; ``AutoresetMode.NEXT_STEP``, the one RLlib's
``SingleAgentEnvRunner`` reads (a finished game returns its last observation, with an
empty mask, and its reward; the next step ignores that game's action and returns the new
episode's first observation with reward 0).  ``reset(seed=s)`` fixes the whole batch (one
generator: the engine's); RLlib seeds each env runner's env with ``seed + worker index``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from parlour.baselines.batched import RandomBatched
from parlour.baselines.learned.rllib_batched import BatchedModule
from parlour.games import load_game
from parlour.training.opponent_mix import OpponentMix
from parlour.training.opponents import LEAGUE, SELF, Entry, parse_opponents
from parlour.vector import ENGINES
from parlour.vector.gym_env import LearnerCore

KEYS = ("game", "options", "opponents", "opponent_weights", "seat", "max_snapshots", "num_envs")
"""The env config's keys (RLlib adds ``num_envs``, the games per env runner)."""


def live_self(opponents: Any, weights: Any) -> bool:
    """Whether an opponent pool seats live learners (``self`` with a weight > 0), which the
    batched path cannot hold (a pool that does not parse: ``False``, its check says why)."""
    try:
        entries = parse_opponents(opponents or SELF, weights)
    except ValueError:
        return False
    return any(entry.spec == SELF and entry.weight > 0 for entry in entries)


def batched_problem(game: str, opponents: Any, weights: Any) -> str | None:
    """What keeps a run of ``game`` against ``opponents`` off the batched path, or ``None``
    (opponents that do not parse: ``None``, their own check says why)."""
    if game not in ENGINES:
        return f"vec_env 'batched' needs a game with a batched engine ({sorted(ENGINES)}), got game {game!r}"
    if live_self(opponents, weights):
        return ("vec_env 'batched' holds one learning seat per game: opponent 'self' (a live learning seat of the "
                "RLlib backend) needs vec_env 'dummy'; for frozen copies of the learner use 'league'")
    return None


def batched_entries(game: str, opponents: Any, weights: Any) -> list[Entry]:
    """The pool as the batched mix plays it (``league`` -> the mix's snapshot entry);
    ``ValueError`` naming what the batched path lacks."""
    problem = batched_problem(game, opponents, weights)
    if problem:
        raise ValueError(problem)
    entries = parse_opponents(opponents or SELF, weights)
    return [Entry(SELF, entry.weight) if entry.spec == LEAGUE else entry for entry in entries if entry.spec != SELF]


class ModuleSnapshots:
    """The ``league`` entry's players for an ``OpponentMix`` (in place of its snapshot
    files): frozen modules, each a :class:`BatchedModule`; until the first arrives, a
    uniformly random player (index 0, never drawn once there are snapshots)."""

    def __init__(self, max_snapshots: int) -> None:
        self.max_snapshots = max_snapshots
        self.paths: list[str] = ["random"]
        self._players: list[Any] = [RandomBatched()]

    def add(self, label: str, module: Any) -> None:
        self.paths.append(label)
        self._players.append(BatchedModule(module, label))
        for old in range(1, len(self._players) - self.max_snapshots):
            self._players[old] = None  # never drawn again: let the module go

    def recent(self) -> int:
        return min(len(self.paths) - 1, self.max_snapshots) or 1

    def player(self, index: int) -> Any:
        return self._players[index]


class BatchedRLlibEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games seen by the learner, for RLlib's ``SingleAgentEnvRunner`` (see
    the module docstring); ``config``: the keys of :data:`KEYS`."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, config: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        settings: dict[str, Any] = {"game": None, "options": {}, "opponents": "random", "opponent_weights": None,
                                    "seat": "random", "max_snapshots": 20, "num_envs": 1}
        given = {**dict(config or {}), **kwargs}
        unknown = sorted(set(given) - set(KEYS))
        if unknown:
            raise ValueError(f"unknown env_config key(s) {unknown}; keys are {sorted(KEYS)}")
        settings.update(given)
        name, options = settings["game"], dict(settings["options"] or {})
        if not isinstance(name, str):
            raise ValueError(f"the env config must name a game (one of {sorted(ENGINES)}), got {name!r}")
        num_envs = settings["num_envs"]
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        entries = batched_entries(name, settings["opponents"], settings["opponent_weights"])
        self.game = load_game(name, **options)
        self.mix = OpponentMix(self.game, entries, max_snapshots=settings["max_snapshots"])
        self.league = ModuleSnapshots(settings["max_snapshots"])
        self.mix.snapshots = self.league  # type: ignore[assignment]  # the same calls: paths, recent(), player(i)
        try:
            self.core = LearnerCore(name, num_envs, opponent=self.mix, seat=settings["seat"], illegal_action="raise", **options)
        except BaseException:
            self.mix.close()
            raise
        engine = self.core.engine
        self.num_envs = num_envs
        low, high = self.game.observation_bounds
        self.single_observation_space = spaces.Dict({
            "observations": spaces.Box(low, high, engine.observation_shape, dtype=np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (engine.num_actions,), dtype=np.float32),
        })
        self.single_action_space = spaces.Discrete(engine.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}
        self._ended = np.zeros(num_envs, dtype=bool)
        self._started = False

    @property
    def engine(self) -> Any:
        """The batched engine (``parlour.games.engine.BatchedEngine``) these games run on."""
        return self.core.engine

    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict]:
        if options:
            raise ValueError(f"reset options are not supported by the batched envs, got {options!r}")
        if isinstance(seed, (list, tuple)):  # one seed per env: the first seeds the batch
            seed = seed[0]
        self.core.reset(seed)
        self._ended[:] = False
        self._started = True
        return self._observations(None), {}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict]:
        if not self._started:
            raise RuntimeError("call reset() first")
        where = ~self._ended  # the games that ended last step start their next episode now
        _, rewards, ended, final, _ = self.core.step(np.asarray(actions).astype(np.int64, copy=False), where=where)
        self._ended = ended
        obs = self._observations(final if ended.any() else None)
        return obs, rewards.astype(np.float32), ended.copy(), np.zeros(self.num_envs, dtype=bool), {}

    def add_snapshot(self, label: str, module: Any) -> None:
        """A frozen learning module (eval mode) for the ``league`` seats, played as ``label``."""
        self.league.add(label, module)

    def close_extras(self, **kwargs: Any) -> None:
        mix = getattr(self, "mix", None)  # None when the constructor refused its arguments
        if mix is not None:
            mix.close()

    def _observations(self, final: np.ndarray | None) -> dict[str, np.ndarray]:
        """The learner's observations and masks; a finished game's last observation (with an
        empty mask) where ``final`` holds one."""
        obs = self.core.observation()
        masks = self.core.action_masks().astype(np.float32)
        if final is not None:
            done = self._ended
            obs[done] = final[done]
            masks[done] = 0.0
        return {"observations": obs, "action_mask": masks}
