"""The learner's vector envs over the batched engines: the learner's observation is
the single game's, determinism, illegal actions, and MaskablePPO training on the SB3
VecEnv.  Gymnasium's VectorEnv API and the single-agent conventions (learner seat,
reward only at the end, opponents move inside ``step``), and the SB3 VecEnv, on every
engine and each of its batched opponents: ``test_engine_contract_batch.py``."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence

from parlour.errors import IllegalActionError
from parlour.vector.gym_env import BatchedVectorEnv


def play(env: BatchedVectorEnv, steps: int, seed: int) -> Iterator[tuple]:
    """Random legal learner moves; each step's results as it happens."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        masks = env.action_masks()
        yield env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))


def test_learner_observation_is_the_single_games() -> None:
    env = BatchedVectorEnv("goofspiel", 4, num_cards=5, num_players=3)
    obs, infos = env.reset(seed=0)
    for _ in range(3):
        for b in range(4):
            state = env.engine.game_state(b)
            assert np.array_equal(obs[b], state.observation_tensor(int(infos["seat"][b])))
        obs, *_, infos = env.step(env.action_masks().argmax(axis=1))


def test_same_seed_same_run() -> None:
    def run(seed):
        env = BatchedVectorEnv("sticks", 5, num_sticks=7)
        first = env.reset(seed=seed)
        return [first, *play(env, 15, 1)]

    a, b, c = run(1), run(1), run(2)
    assert data_equivalence(a, b)
    assert not data_equivalence(a, c)


def test_illegal_and_outside_actions() -> None:
    env = BatchedVectorEnv("goofspiel", 2, seat=0, num_cards=3, prize_order="descending")
    env.reset(seed=0)
    env.step(np.array([2, 0]))
    obs_before = env.engine.decode(env.engine.observation(0))
    _, rewards, terminated, _, infos = env.step(np.array([2, 1]))  # card 3 was played in game 0
    assert np.array_equal(terminated, [True, False]) and rewards[0] == -1.0
    assert np.array_equal(infos["final_obs"][0], obs_before[0]) and infos["final_info"]["illegal_action"][0]
    assert env.engine.round[0] == 0  # a new game
    with pytest.raises(IllegalActionError, match="outside Discrete"):
        env.step(np.array([3, 0]))
    with pytest.raises(IllegalActionError, match="shape"):
        env.step(np.array([0]))
    strict = BatchedVectorEnv("sticks", 2, seat=0, illegal_action="raise", num_sticks=2)
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="illegal action 2"):
        strict.step(np.array([0, 2]))
    with pytest.raises(ValueError, match="opponent must be .random. or a SeatPlayers"):
        BatchedVectorEnv("sticks", 2, opponent="minimax")


def test_sb3_vec_env_masks_and_maskable_ppo() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    from parlour.vector.sb3_env import BatchedSB3VecEnv

    for game, opts in [("sticks", {}), ("goofspiel", {"num_cards": 4})]:
        venv = BatchedSB3VecEnv(game, 8, seed=0, **opts)
        assert is_masking_supported(venv)
        obs = venv.reset()
        assert obs.shape == (8, *venv.observation_space.shape)
        assert np.array_equal(get_action_masks(venv), venv.core.action_masks())
        obs, rewards, dones, infos = venv.step(get_action_masks(venv).argmax(axis=1))
        assert rewards.dtype == np.float32 and len(infos) == 8
        model = MaskablePPO("MlpPolicy", VecMonitor(venv), n_steps=8, batch_size=32, n_epochs=1, seed=0, device="cpu")
        model.learn(total_timesteps=128)
