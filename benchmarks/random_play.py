"""Random games driven the same way in every speed benchmark: a uniform choice among the
legal actions, drawn from pre-generated floats of one seeded ``numpy.random.Generator``,
so the policy costs the same whatever plays (the rules layer, an env, pyspiel).

Each ``*_playouts(..., games, pick)`` plays ``games`` games and returns the steps taken;
``measure_all`` times such loops against each other, interleaved.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.driver import interleaved, spread, timed


class Uniform:
    """Uniform choice from a list of legal actions using pre-drawn floats."""

    def __init__(self, seed: int, size: int = 1 << 20) -> None:
        self.u = np.random.default_rng(seed).random(size).tolist()
        self.i = 0

    def __call__(self, legal: Any) -> Any:
        i = self.i = (self.i + 1) & 0xFFFFF
        return legal[int(self.u[i] * len(legal))]


Playouts = Callable[[int, Uniform], int]
"""``run(games, pick) -> steps``: a loop of random games."""


def rules_playouts(game: Any, games: int, pick: Uniform) -> int:
    """Play ``games`` random games on the rules layer; return the steps taken."""
    steps = 0
    rng = np.random.default_rng(0)  # one generator for every deal, as an env does
    for _ in range(games):
        state = game.new_initial_state(rng)
        players = state.current_players()
        while players:
            if len(players) == 1:
                state.apply(pick(state.legal_actions(players[0])))
            else:
                state.apply({p: pick(state.legal_actions(p)) for p in players})
            steps += 1
            players = state.current_players()
        state.returns()
    return steps


def pyspiel_playouts(game: Any, games: int, pick: Uniform) -> int:
    """Random games of a pyspiel game (chance outcomes drawn uniformly too)."""
    steps = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_simultaneous_node():
                state.apply_actions([pick(state.legal_actions(p)) for p in range(game.num_players())])
            elif state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(pick(outcomes)[0])
            else:
                state.apply_action(pick(state.legal_actions()))
            steps += 1
        state.returns()
    return steps


def aec_playouts(env: Any, games: int, pick: Uniform) -> int:
    """The standard PettingZoo AEC loop with masked random actions."""
    steps = 0
    for g in range(games):
        env.reset(seed=g)
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                action = None
            else:
                action = int(pick(np.flatnonzero(obs["action_mask"])))
                steps += 1
            env.step(action)
    return steps


def parallel_playouts(env: Any, games: int, pick: Uniform) -> int:
    """The PettingZoo Parallel loop with masked random actions, every seat at once."""
    steps = 0
    for g in range(games):
        observations, _ = env.reset(seed=g)
        while env.agents:
            actions = {a: int(pick(np.flatnonzero(o["action_mask"]))) for a, o in observations.items()}
            observations, *_ = env.step(actions)
            steps += 1
    return steps


def measure_all(rows: list[tuple[str, Playouts, int]], runs: int) -> dict[str, tuple[float, float, float]]:
    """Median games/s, steps/s and the steps/s spread (max/min) per contender
    ``(label, run, games per run)`` over ``runs`` interleaved rounds, after one warm-up each."""
    for _label, run, games in rows:
        run(max(1, games // 10), Uniform(0))

    def measure(run: Playouts, games: int) -> Callable[[int], tuple[float, float]]:
        def once(r: int) -> tuple[float, float]:
            seconds, steps = timed(lambda: run(games, Uniform(r + 1)))
            return games / seconds, steps / seconds

        return once

    samples = interleaved({label: measure(run, games) for label, run, games in rows}, runs)
    return {
        label: (statistics.median(g for g, _ in got), statistics.median(s for _, s in got), spread(s for _, s in got))
        for label, got in samples.items()
    }
