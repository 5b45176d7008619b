"""Helpers of the env tests (fixtures are in ``tests/envs/conftest.py``).

- ``pettingzoo_battery``: PettingZoo's ``api_test`` and ``seed_test`` (and, for
  simultaneous games, ``parallel_api_test`` and ``parallel_seed_test``) on one config.
- ``play_aec`` / ``play_parallel``: play a reset env to the end with random actions,
  yielding after every step so a test can look at the env in between.
- ``aec_snapshot`` / ``parallel_snapshot``: everything an env shows now as plain data,
  so two runs compare with ``==``.
- Fixed starts that reach a game's special phases (Double Card's recycling, Tribolo's
  skipped turns) or fix its chance (a Tides of Time deck).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
from helpers import DOUBLE_CARD_SETUP_24  # noqa: F401  (re-exported for the env tests)
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

KNOWN_WARNINGS = (
    r"ignoring unknown reset option\(s\) \['options'\]",  # api_test resets with options={"options": 1}
    r"Observation is not a NumPy array",  # api_test on any Dict observation
    r"Observation space for each agent probably should be",  # likewise
    r"Observation numpy array is all zeros",  # Double Card's empty board seen by the "dots" seat
)

@contextlib.contextmanager
def known_warnings_only() -> Iterator[None]:
    """Every UserWarning is an error inside, except ``KNOWN_WARNINGS`` (PettingZoo's tests
    report some real conformance problems only as warnings)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        for message in KNOWN_WARNINGS:
            warnings.filterwarnings("ignore", message=message, category=UserWarning)
        yield


TIDES_DECK = [15, 6, 10, 11, 18, 2, 5, 7, 8, 14, 1, 3, 4, 9, 12, 13, 16, 17]
"""A Tides of Time deal: cards 15 6 10 11 18 to player_0, 2 5 7 8 14 to player_1."""

TRIBOLO_SKIPS = "\n".join(["player_0 to move | B 2 R 1 G 2", "..B...B.", "..GG....", "R#......", "##......"])
"""An 8 x 4 Tribolo position (``width=8, height=4``) in which player_1 never moves again."""


def pettingzoo_battery(module: Any, config: Mapping[str, Any], num_cycles: int) -> None:
    """PettingZoo's own tests on every constructor of ``module`` that they apply to.

    ``parallel_seed_test`` samples actions without the mask, so it runs on
    ``parallel_env()`` (illegal actions end the game), not on ``raw_parallel_env()``.
    """
    api_test(module.env(**config), num_cycles=num_cycles)
    api_test(module.raw_env(**config), num_cycles=num_cycles)
    seed_test(lambda: module.env(**config), num_cycles=num_cycles)
    if hasattr(module, "parallel_env"):
        parallel_api_test(module.parallel_env(**config), num_cycles=num_cycles)
        parallel_api_test(module.raw_parallel_env(**config), num_cycles=num_cycles)
        parallel_seed_test(lambda: module.parallel_env(**config), num_cycles=num_cycles)


def masked_action(rng: np.random.Generator, mask: np.ndarray, illegal: float = 0.0) -> int:
    """A random legal action; with probability ``illegal`` a masked-out one if there is one."""
    banned = np.flatnonzero(mask == 0)
    if banned.size and rng.random() < illegal:
        return int(rng.choice(banned))
    return int(rng.choice(np.flatnonzero(mask)))


def play_aec(env: Any, rng: np.random.Generator, illegal: float = 0.0) -> Iterator[tuple[str, int | None]]:
    """Play a reset AEC env to the end (finished agents step ``None``); yield
    ``(agent, action)`` after each step.  See ``masked_action`` for ``illegal``."""
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else masked_action(rng, obs["action_mask"], illegal)
        env.step(action)
        yield agent, action


def play_parallel(
    env: Any, observations: dict, rng: np.random.Generator, illegal: float = 0.0
) -> Iterator[tuple[dict, tuple]]:
    """Play a Parallel env from the ``observations`` of its reset to the end; yield
    ``(actions, step result)`` after each step.  Every agent with a mask acts."""
    while env.agents:
        masks = {agent: observations[agent]["action_mask"] for agent in env.agents}
        actions = {agent: masked_action(rng, mask, illegal) for agent, mask in masks.items() if mask.any()}
        result = env.step(actions)
        observations = result[0]
        yield actions, result


def observation_data(obs: Mapping[str, np.ndarray]) -> tuple[bytes, bytes]:
    return obs["observation"].tobytes(), obs["action_mask"].tobytes()


def aec_snapshot(env: Any) -> tuple:
    """All an AEC env shows now: ``last()``, every live agent's observation, the reward,
    termination, truncation and info dicts, and the whole rules state as text."""
    if not env.agents:
        return ([], env.unwrapped.game_state.to_text())
    obs, reward, term, trunc, info = env.last()
    return (
        env.agent_selection,
        list(env.agents),
        observation_data(obs),
        reward,
        term,
        trunc,
        info,
        {agent: observation_data(env.observe(agent)) for agent in env.agents},
        dict(env.rewards),
        dict(env.terminations),
        dict(env.truncations),
        dict(env.infos),
        env.unwrapped.game_state.to_text(),
    )


def parallel_snapshot(env: Any, result: tuple) -> tuple:
    """A Parallel ``reset`` or ``step`` result as plain data, with the agents left and
    the whole rules state as text."""
    observations, *rest = result
    return (
        {agent: observation_data(obs) for agent, obs in observations.items()},
        *rest,
        list(env.agents),
        env.game_state.to_text(),
    )
