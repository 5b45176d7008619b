"""Training throughput: env-steps/s of MaskablePPO on parlour's single-agent view against
the same SB3 setup on PettingZoo's ``tictactoe_v3`` wrapped as in PettingZoo's tutorial.

Target: our wrapper's overhead at most 1.2x (reference steps/s / ours <= 1.2).

Reference: PettingZoo's "SB3: Action Masked PPO for Connect Four" tutorial
(https://pettingzoo.farama.org/tutorials/sb3/connect_four/, source
``tutorials/SB3/connect_four/sb3_connect_four_action_mask.py`` in
Farama-Foundation/PettingZoo; its test file runs the same code on ``tictactoe_v3``).
``SB3ActionMaskWrapper`` below reproduces its wrapper (a ``pettingzoo.utils.BaseWrapper``
that is also a ``gymnasium.Env``, around the AEC ``env()``) and ``tutorial_env`` its
construction: wrap, ``reset(seed=...)`` to define the spaces, then sb3-contrib's
``ActionMasker`` with ``mask_fn``.  One model plays both seats there, so one env step is
one move; our env's step is the learner's move plus the opponents' replies (a random
policy here), so it does more game work per step.

Both sides get identical MaskablePPO settings (``parlour train``'s defaults:
``PPOSettings``, ``MlpPolicy`` with net_arch [128, 128], device cpu, seed = run number),
for n_envs 1 (the env passed directly; SB3 adds its ``Monitor`` and ``DummyVecEnv``) and
n_envs 4 (``DummyVecEnv`` and ``SubprocVecEnv`` of ``Monitor``-wrapped envs, as
``parlour train`` builds them).  Only ``learn(total_timesteps=N)`` is timed (not the model
or worker start-up).  Runs are interleaved (for each setup, each run, every env in
turn) so that load from other jobs hits both sides alike; medians are reported.

The pure step rate (no PPO) drives each env with uniform random masked actions,
querying ``action_masks()`` before every step as MaskablePPO does: it shows the
wrappers' own cost.  ``--control`` adds, per game, a no-cost replay of that game
(``ReplayEnv``: same observations, masks, rewards, episode lengths): PPO's own cost per
step grows with the observation and action sizes, so for games much larger than
tic-tac-toe the ratio to the replay, not to the reference, isolates what the env costs.

``--same-game`` adds a second, same-game reference: the tutorial's wrapper and
``ActionMasker`` applied to parlour's own PettingZoo AEC env of each game
(``<game>_v0.env()``, observation ``obs["observation"]``, mask ``obs["action_mask"]``; a
simultaneous step becomes one AEC turn per seat, handled like any turn).  Same observation
and action sizes as ours, so PPO's cost is alike and the ratio isolates the wrappers.  The
work per env step still differs: the tutorial's step is one move of the shared model for
whichever seat is to act; ours is the learner's move plus the opponents' replies.

``--torch-threads`` (default 1) sets ``torch.set_num_threads`` for the PPO process; on
a 2-core machine shared with other jobs torch's default (one OpenMP thread per core)
made runs erratic and often ~10x slower for this small network, for both sides.

    python -m benchmarks.training            # full run (~5-10 min on 2 cores), markdown on stdout
    python -m benchmarks.training --quick    # a smoke run
    python -m benchmarks.training --games tides_of_time,tribolo,double_card --control
    python -m benchmarks.training --games sticks,goofspiel6,goofspiel13,tides_of_time,tribolo,double_card --same-game

The reference needs pygame (the ``bench`` extra); without it the script says so and
times parlour's envs alone.
"""

from __future__ import annotations

import functools
import time
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pettingzoo.utils

import parlour
from benchmarks.driver import header, interleaved, medians, parser, quick_or, row
from parlour.training.backends.ppo.backend import ALGORITHM, PPOSettings
from parlour.training.single_agent import SingleAgentEnv

GAMES: dict[str, tuple[str, dict[str, Any]]] = {
    "sticks": ("sticks", {}),
    "goofspiel6": ("goofspiel", {"num_cards": 6}),
    "goofspiel13": ("goofspiel", {"num_cards": 13}),
    "tides_of_time": ("tides_of_time", {}),
    "tribolo": ("tribolo", {}),
    "double_card": ("double_card", {}),
}
REFERENCE = "REF tictactoe_v3 (PettingZoo tutorial wrapper)"
SAME = "tutorial wrapper on parlour AEC "
NULL = "control: no-cost replay of "
SETUPS = ("n_envs=1", "4 x DummyVecEnv", "4 x SubprocVecEnv")
TARGET = 1.2


# -- the reference: PettingZoo's SB3 action-mask tutorial, reproduced ---------------------


class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gym.Env):
    """PettingZoo's tutorial wrapper, as published (only comments shortened): makes an
    AEC env look like a Gymnasium env for SB3, one shared model playing every seat."""

    def reset(self, seed=None, options=None):
        """Assigns the same obs/action spaces to every agent (SB3 expects attributes)."""
        super().reset(seed, options)
        # Strip the action mask out from the observation space
        self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
        self.action_space = super().action_space(self.possible_agents[0])
        return self.observe(self.agent_selection), {}

    def step(self, action):
        """Observation for the next agent; reward, termination, truncation, info for the
        agent that just acted."""
        current_agent = self.agent_selection
        super().step(action)
        next_agent = self.agent_selection
        return (
            self.observe(next_agent),
            self._cumulative_rewards[current_agent],
            self.terminations[current_agent],
            self.truncations[current_agent],
            self.infos[current_agent],
        )

    def observe(self, agent):
        """Return only raw observation, removing action mask."""
        return super().observe(agent)["observation"]

    def action_mask(self):
        """Separate function used in order to access the action mask."""
        return super().observe(self.agent_selection)["action_mask"]


def mask_fn(env):
    return env.action_mask()


def tutorial_env(seed: int = 0) -> gym.Env:
    """The tutorial's construction (``train_action_mask``) on ``tictactoe_v3``."""
    from sb3_contrib.common.wrappers import ActionMasker

    with warnings.catch_warnings():  # tictactoe_v3 needs pygame (the bench extra), so imported here
        warnings.simplefilter("ignore")
        from pettingzoo.classic import tictactoe_v3
    env = SB3ActionMaskWrapper(tictactoe_v3.env())
    env.reset(seed=seed)  # Must call reset() in order to re-define the spaces
    return ActionMasker(env, mask_fn)


def same_game_env(name: str, seed: int = 0) -> gym.Env:
    """The tutorial's construction around parlour's own AEC env of game ``name``."""
    import importlib

    from sb3_contrib.common.wrappers import ActionMasker

    game, options = GAMES[name]
    module = importlib.import_module(f"parlour.envs.{game}_v0")
    env = SB3ActionMaskWrapper(module.env(**options))
    env.reset(seed=seed)  # Must call reset() in order to re-define the spaces
    return ActionMasker(env, mask_fn)


def our_env(name: str) -> gym.Env:
    game, options = GAMES[name]
    return SingleAgentEnv(game, opponent="random", seat="random", **options)


class ReplayEnv(gym.Env):
    """A control with (almost) no cost per step: it replays, in a loop, a recording of
    the env ``label`` (ours or the reference) played with random masked actions (the same observations, masks,
    rewards and episode lengths) whatever the action.  PPO's own cost per step grows with
    the observation and action sizes; against this control a game's slowdown is its
    env's share alone.  (Real data matters: a constant observation with zero rewards
    drives the gradients into denormal floats and slows the backward pass ~5x.)"""

    def __init__(self, label: str, length: int = 512, seed: int = 12345) -> None:
        view = maker(label)()
        self.observation_space = view.observation_space
        self.action_space = view.action_space
        rng = np.random.default_rng(seed)
        self._episodes: list[tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, float, bool, np.ndarray]]]] = []
        total = 0
        while total < length:  # whole episodes: (first obs, first mask, steps)
            obs, _ = view.reset(seed=int(rng.integers(2**31)))
            first, steps, done = (obs, view.action_masks()), [], False
            while not done:
                legal = np.flatnonzero(view.action_masks())
                obs, reward, terminated, truncated, _ = view.step(int(legal[rng.integers(len(legal))]))
                done = terminated or truncated
                steps.append((obs, float(reward), done, view.action_masks()))
            self._episodes.append((*first, steps))
            total += len(steps)
        self._episode = -1
        self._steps = self._episodes[0][2]
        self._mask = self._episodes[0][1]
        self._i = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self._episode = (self._episode + 1) % len(self._episodes)
        obs, self._mask, self._steps = self._episodes[self._episode]
        self._i = 0
        return obs.copy(), {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        obs, reward, done, self._mask = self._steps[self._i]
        self._i += 1
        return obs.copy(), reward, done, False, {}

    def action_masks(self) -> np.ndarray:
        return self._mask.copy()


def monitored(make: Callable[[], gym.Env]) -> gym.Env:
    """One vec-env worker's env, wrapped as ``parlour train`` and SB3's make_vec_env do."""
    from stable_baselines3.common.monitor import Monitor

    return Monitor(make())


def maker(label: str) -> Callable[[], gym.Env]:
    if label == REFERENCE:
        return tutorial_env
    if label.startswith(NULL):
        return functools.partial(ReplayEnv, label[len(NULL) :])
    if label.startswith(SAME):
        return functools.partial(same_game_env, label[len(SAME) :])
    return functools.partial(our_env, label)


# -- measurements ----------------------------------------------------------------------


def pure_rate(make: Callable[[], gym.Env], steps: int, seed: int) -> float:
    """Env steps/s with uniform random masked actions (masks queried every step)."""
    env = make()
    u = np.random.default_rng(seed).random(steps).tolist()
    env.reset(seed=seed)
    start = time.perf_counter()
    for i in range(steps):
        legal = np.flatnonzero(env.action_masks())
        _obs, _reward, terminated, truncated, _info = env.step(int(legal[int(u[i] * len(legal))]))
        if terminated or truncated:
            env.reset()
    elapsed = time.perf_counter() - start
    env.close()
    return steps / elapsed


def ppo_rate(make: Callable[[], gym.Env], setup: str, steps: int, seed: int) -> float:
    """Env steps/s of ``MaskablePPO.learn(steps)`` (model and workers built untimed)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if setup == "n_envs=1":
        env = make()
    else:
        fns = [functools.partial(monitored, make) for _ in range(4)]
        env = DummyVecEnv(fns) if setup == "4 x DummyVecEnv" else SubprocVecEnv(fns)
    ppo = PPOSettings.defaults()
    kwargs = {key: ppo[key] for key in ALGORITHM}  # MaskablePPO's own (the others place its games and network)
    model = MaskablePPO("MlpPolicy", env, seed=seed, device="cpu", verbose=0, policy_kwargs={"net_arch": list(ppo["net_arch"])}, **kwargs)
    try:
        start = time.perf_counter()
        model.learn(total_timesteps=steps)
        elapsed = time.perf_counter() - start
        return model.num_timesteps / elapsed
    finally:
        model.get_env().close()


def interleaved_medians(labels: list[str], runs: int, measure: Callable[[str, int], float]) -> dict[str, float]:
    """Median of ``runs`` per label, the labels taking turns within every run."""
    return medians(interleaved({label: functools.partial(measure, label) for label in labels}, runs))


def has_reference() -> bool:
    """Whether PettingZoo's ``tictactoe_v3`` loads (it needs pygame, the ``bench`` extra)."""
    try:
        tutorial_env()
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> None:
    args_parser = parser(__doc__, runs=3, runs_help="timed runs per env and setup (median reported)",
                         quick_help="a smoke run: sticks, n_envs=1, a few hundred steps")
    args_parser.add_argument("--steps", type=int, default=8192, help="total_timesteps per PPO run")
    args_parser.add_argument("--pure-steps", type=int, default=20000, help="env steps per pure (no PPO) run")
    args_parser.add_argument("--games", default="sticks,goofspiel6,goofspiel13", help=f"our envs, from {sorted(GAMES)}")
    args_parser.add_argument("--torch-threads", type=int, default=1, help="torch.set_num_threads for the PPO process (0: torch's default)")
    args_parser.add_argument("--control", action="store_true", help="also time a no-cost replay of each game (see ReplayEnv)")
    args_parser.add_argument("--same-game", action="store_true", help="also time the tutorial wrapper on parlour's AEC env of each game")
    args_parser.add_argument("--setups", default=",".join(SETUPS), help=f"PPO setups, from {list(SETUPS)}")
    args = args_parser.parse_args(argv)
    if args.quick:
        args.games, args.setups = "sticks", "n_envs=1"
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        raise ValueError(f"unknown game(s) {unknown}; choose from {sorted(GAMES)}")
    setups = [s.strip() for s in args.setups.split(",") if s.strip()]
    if any(s not in SETUPS for s in setups):
        raise ValueError(f"unknown setup(s) {[s for s in setups if s not in SETUPS]}; choose from {list(SETUPS)}")
    runs, steps, pure_steps = quick_or(args.quick, (1, 128, 200), (args.runs, args.steps, args.pure_steps))

    import torch

    if args.torch_threads > 0:
        torch.set_num_threads(args.torch_threads)
    warnings.filterwarnings("ignore")
    reference = has_reference()
    if not reference:
        print("(the reference, PettingZoo's tictactoe_v3, needs pygame: pip install -e .[bench]; parlour's envs alone)\n")
    labels = [REFERENCE, *games] if reference else list(games)
    if args.same_game:
        labels += [SAME + g for g in games]
    if args.control:
        labels += [NULL + label for label in labels]
    print(
        f"parlour {parlour.__version__}, torch {torch.__version__} ({torch.get_num_threads()} threads), "
        f"median of {runs} interleaved runs, PPO total_timesteps {steps:,}, pure runs {pure_steps:,} steps\n"
    )

    # Warm-up (torch and import start-up costs) outside the timed runs.
    for label in labels:
        ppo_rate(maker(label), "n_envs=1", quick_or(args.quick, 64, 256), 0)
        pure_rate(maker(label), quick_or(args.quick, 50, 500), 0)

    results: dict[str, dict[str, float]] = {label: {} for label in labels}
    pure = interleaved_medians(labels, runs, lambda label, run: pure_rate(maker(label), pure_steps, run))
    for label in labels:
        results[label]["pure"] = pure[label]
    for setup in setups:
        rates = interleaved_medians(labels, runs, lambda label, run, setup=setup: ppo_rate(maker(label), setup, steps, run))
        for label in labels:
            results[label][setup] = rates[label]

    columns = ["pure", *setups]
    print("Env steps/s (median):\n")
    header(["env", "pure env (random masked actions)", *(f"MaskablePPO {s}" for s in setups)])
    for label in labels:
        row(label, *(f"{results[label][c]:,.0f}" for c in columns))
    if reference:
        ref = results[REFERENCE]
        print(f"\nRatio reference / ours (steps/s; target for PPO: <= {TARGET}):\n")
        print("| ours | pure env | " + " | ".join(f"PPO {s}" for s in setups) + " | PPO within 1.2x |")
        print("|---|" + "---:|" * len(columns) + "---|")
        for label in games:
            ratios = [ref[c] / results[label][c] for c in columns]
            ok = all(r <= TARGET for r in ratios[1:])
            print(f"| {label} | " + " | ".join(f"{r:.2f}x" for r in ratios) + f" | {'yes' if ok else 'NO'} |")
    if args.same_game:
        print(f"\nRatio same-game tutorial wrapper / ours (steps/s; target for PPO: <= {TARGET}):\n")
        print("| ours | pure env | " + " | ".join(f"PPO {s}" for s in setups) + " | PPO within 1.2x |")
        print("|---|" + "---:|" * len(columns) + "---|")
        for label in games:
            same = results[SAME + label]
            ratios = [same[c] / results[label][c] for c in columns]
            ok = all(r <= TARGET for r in ratios[1:])
            print(f"| {label} | " + " | ".join(f"{r:.2f}x" for r in ratios) + f" | {'yes' if ok else 'NO'} |")
    if args.control:
        print("\nRatio no-cost replay of the same env / the env (what the env itself costs PPO):\n")
        print("| env | pure env | " + " | ".join(f"PPO {s}" for s in setups) + " |")
        print("|---|" + "---:|" * len(columns))
        for label in [label for label in labels if not label.startswith(NULL)]:
            replay = results[NULL + label]
            print(f"| {label} | " + " | ".join(f"{replay[c] / results[label][c]:.2f}x" for c in columns) + " |")


if __name__ == "__main__":
    main()
