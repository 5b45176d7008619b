"""parlour's envs with the MARL tools people already use: Tianshou's own collector and
random policy on every env, TorchRL's ``PettingZooWrapper`` (which BenchMARL builds on)
on every AEC and Parallel env, SuperSuit's vector-env path into Stable-Baselines3, and
PettingZoo's SB3 action-mask tutorial pattern under Gymnasium 1.x."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pettingzoo.utils
import pytest

from parlour.envs import double_card_v0, goofspiel_v0, sticks_v0, tides_of_time_v0, tribolo_v0

ENVS = {
    "sticks": lambda: sticks_v0.env(),
    "goofspiel": lambda: goofspiel_v0.env(num_cards=5),
    "tides_of_time": lambda: tides_of_time_v0.env(rounds=1),
    "tribolo": lambda: tribolo_v0.env(width=6, height=5, walls=2, start_cells=2),
    "double_card": lambda: double_card_v0.env(max_moves=30),
}


@pytest.mark.parametrize("name", sorted(ENVS))
def test_tianshous_collector_and_random_policy_run_every_env(name):
    pytest.importorskip("tianshou", reason="needs tianshou (the dev extra)")
    from tianshou.algorithm import MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make():
        return PettingZooEnv(ENVS[name]())

    env = make()
    players = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=players, env=env)
    envs = DummyVectorEnv([make, make])
    envs.seed(0)
    stats = Collector(algorithm, envs).collect(n_episode=4, reset_before_collect=True)
    assert stats.n_collected_episodes >= 4 and stats.returns.shape[1] == len(env.agents)
    low, high = ENVS[name]().unwrapped.game.returns_bounds
    assert np.all(stats.returns >= low) and np.all(stats.returns <= high)


TORCHRL_ENVS = {
    **{f"{name} (AEC)": make for name, make in ENVS.items() if name != "tribolo"},
    "tribolo (AEC)": lambda: tribolo_v0.env(),  # the small board can end within check_env_specs' three random steps
    "goofspiel (Parallel)": lambda: goofspiel_v0.parallel_env(num_cards=5),
    "tides_of_time (Parallel)": lambda: tides_of_time_v0.parallel_env(rounds=1),
}


@pytest.mark.parametrize("name", sorted(TORCHRL_ENVS))
def test_torchrls_pettingzoo_wrapper_checks_specs_and_rolls_out_every_env(name):
    """TorchRL builds its specs from the first reset's infos (tensors of every value), so
    the infos must hold numbers only: this failed on every parlour env while they held a
    text ``reason``.  Its spec check passes, a random rollout plays games to their end, and
    the infos arrive as tensors."""
    pytest.importorskip("torchrl", reason="needs torchrl (the dev extra)")
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    torch.manual_seed(0)
    with warnings.catch_warnings():  # TorchRL names the one PettingZoo version it was tested with
        warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested", category=UserWarning)
        env = PettingZooWrapper(TORCHRL_ENVS[name](), use_mask=True, categorical_actions=True, seed=0)
    check_env_specs(env)
    rollout = env.rollout(400)
    assert rollout["next", "done"][-1].item(), "a random rollout plays the game to its end"
    for group in env.group_map:
        info = rollout["next", group, "info"]
        assert set(info.keys()) == {"illegal_action", "illegal_move"}
        assert not info["illegal_action"].any() and (info["illegal_move"] == -1).all()  # masked actions only
        mask = rollout[group, "action_mask"]
        actions = rollout[group, "action"]
        acting = rollout[group, "mask"]
        assert mask.gather(-1, actions.unsqueeze(-1)).squeeze(-1)[acting].all()  # every move played was legal


def test_supersuits_vector_env_path_into_stable_baselines3():
    ss = pytest.importorskip("supersuit", reason="needs supersuit (the dev extra)")
    pytest.importorskip("stable_baselines3", reason="needs the train extra")
    from stable_baselines3 import PPO

    vec = ss.pettingzoo_env_to_vec_env_v1(goofspiel_v0.parallel_env(num_cards=5))
    venv = ss.concat_vec_envs_v1(vec, 3, num_cpus=0, base_class="stable_baselines3")
    assert venv.num_envs == 6  # 3 games x 2 seats, one policy for both (parameter sharing)
    observations = venv.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(12):
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in observations["action_mask"]])
        observations, rewards, dones, infos = venv.step(actions)
        assert observations["observation"].shape == (6, 54) and rewards.shape == (6,)
        finished += int(dones.sum())
        assert all(not info.get("illegal_action") for info in infos)  # masked actions are always legal
    assert finished == 12  # every game ends after 5 rounds, both seats at once: 12 steps, two endings of 6
    # SuperSuit's SB3 wrapper has no seed(), which PPO(seed=...) calls: seed the envs by reset(seed) instead
    model = PPO("MultiInputPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, device="cpu")
    model.learn(192)
    assert model.num_timesteps >= 192


def tutorial() -> Any:
    """benchmarks/training.py, which reproduces PettingZoo's SB3 action-mask tutorial
    wrapper (with ``gymnasium.Env`` as its second base) and builds it around parlour's
    envs."""
    from benchmarks import training

    return training


def test_the_sb3_action_mask_tutorial_pattern_needs_one_change_under_gymnasium_1():
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker

    class WithoutGymnasiumEnv(pettingzoo.utils.BaseWrapper):
        pass

    with pytest.raises(AssertionError, match="Expected env to be a `gymnasium.Env`"):
        ActionMasker(WithoutGymnasiumEnv(sticks_v0.env()), lambda env: env.action_mask())
    env = tutorial().same_game_env("sticks")  # the tutorial's wrapper with the one change, on parlour's sticks
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0, device="cpu")
    model.learn(128)
    assert model.num_timesteps >= 128
