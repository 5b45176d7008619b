"""Info dicts that replay buffers and tensor wrappers can store: in every env of every
game (AEC and Parallel, the terminating and the raising ones, and the Gymnasium
single-agent view) the info dict has the same keys at every step, and every value is a
number of the same type, so a buffer that stacks infos key by key (as Tianshou's does)
or turns them into tensors (TorchRL's) never meets a shape or a type it did not see
before, even when a game ends by an illegal move."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from env_helpers import masked_action, play_aec, play_parallel

from parlour.games import GAMES, load_game
from parlour.registration import GYM_IDS
from parlour.training.single_agent import SingleAgentEnv

SMALL = {"sticks": {}, "goofspiel": {"num_cards": 4}, "tides_of_time": {"rounds": 1},
         "tribolo": {"width": 8, "height": 6, "start_cells": 3, "walls": 4}, "double_card": {}}
SCALARS = (bool, int, float)


class Buffer:
    """Infos stacked key by key, as a replay buffer does: the first info fixes the keys
    and each value's type; every later one must match."""

    def __init__(self) -> None:
        self.columns: dict[str, list[Any]] | None = None

    def add(self, info: dict[str, Any]) -> None:
        assert all(isinstance(value, SCALARS) for value in info.values()), info
        if self.columns is None:
            self.columns = {key: [] for key in info}
        assert set(info) == set(self.columns), (sorted(info), sorted(self.columns))
        for key, value in info.items():
            column = self.columns[key]
            assert not column or type(value) is type(column[0]), (key, value, column[0])
            column.append(value)

    def arrays(self) -> dict[str, np.ndarray]:
        arrays = {key: np.asarray(values) for key, values in self.columns.items()}
        assert all(array.shape == (len(values),) for array, values in zip(arrays.values(), self.columns.values()))
        return arrays


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("kind", ["env", "raw_env"])
def test_aec_infos_keep_their_shape(game, kind):
    module = __import__(f"parlour.envs.{game}_v0", fromlist=["env"])
    env = getattr(module, kind)(**SMALL[game])
    rng = np.random.default_rng(1)
    buffer, ended_illegally = Buffer(), 0
    for seed in range(12):
        env.reset(seed=seed)
        for agent in env.agents:
            buffer.add(env.infos[agent])
        illegal = 0.2 if kind == "env" else 0.0
        for _ in play_aec(env, rng, illegal):
            if env.agents:
                buffer.add(env.last()[4])
            for other in env.agents:
                buffer.add(env.infos[other])
        ended_illegally += buffer.columns["illegal_action"][-1]
    arrays = buffer.arrays()
    assert arrays["illegal_action"].dtype == bool and arrays["illegal_move"].dtype.kind == "i"
    if kind == "env" and GAMES[game](**SMALL[game]).num_actions > 1:
        assert ended_illegally > 0  # the illegal endings were exercised


@pytest.mark.parametrize("game", sorted(name for name, cls in GAMES.items() if cls.simultaneous))
def test_parallel_infos_keep_their_shape(game):
    module = __import__(f"parlour.envs.{game}_v0", fromlist=["parallel_env"])
    env = module.parallel_env(**SMALL[game])
    rng = np.random.default_rng(2)
    buffer, ended_illegally = Buffer(), 0
    for seed in range(12):
        observations, infos = env.reset(seed=seed)
        for info in infos.values():
            buffer.add(info)
        for _, (_, _, _, _, infos) in play_parallel(env, observations, rng, illegal=0.2):
            for info in infos.values():
                buffer.add(info)
        ended_illegally += buffer.columns["illegal_action"][-1]
    buffer.arrays()
    assert ended_illegally > 0


@pytest.mark.parametrize("game", sorted(GAMES))
def test_single_agent_infos_keep_their_shape(game):
    env = SingleAgentEnv(game, "random", seat="random", **SMALL[game])
    rng = np.random.default_rng(3)
    buffer, ended_illegally = Buffer(), 0
    for seed in range(40):
        _, info = env.reset(seed=seed)
        buffer.add(info)
        done = False
        while not done:
            _, _, done, _, info = env.step(masked_action(rng, env.action_masks().astype(np.int8), illegal=0.2))
            buffer.add(info)
        ended_illegally += info["illegal_action"]
    buffer.arrays()
    if load_game(game, **SMALL[game]).num_actions > 1:
        assert ended_illegally > 0
    assert GYM_IDS[game]  # the same view is registered with Gymnasium
