"""The single-agent Gymnasium view's step alone: steps per second of
``SingleAgentEnv.step`` (the learner's move and the opponents' replies through
``play_out``) against ``random``, the learner's moves uniform among the legal ones,
drawn before the timer; only ``env.step`` is timed.  A before/after check of the game
loop the learner views share (run it with each checkout on ``PYTHONPATH``, in turn).

    python -m benchmarks.single_agent_step
    python -m benchmarks.single_agent_step --quick    # a smoke run
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.driver import parser, quick_or
from parlour.games import load_game
from parlour.training.opponents import OpponentPool, parse_opponents
from parlour.training.single_agent import SingleAgentEnv

GAMES = (("sticks", {}, 20_000), ("goofspiel", {"num_cards": 6}, 20_000), ("tribolo", {}, 5_000))


def steps_per_second(name: str, options: dict, steps: int) -> float:
    game = load_game(name, **options)
    env = SingleAgentEnv(game, OpponentPool(game, parse_opponents(["random"], None)), seat="random")
    draws = np.random.default_rng(0).random(steps)
    env.reset(seed=0)
    timed = 0.0
    for i in range(steps):
        legal = np.flatnonzero(env.action_masks())
        action = int(legal[int(draws[i] * len(legal))])
        start = time.perf_counter()
        _, _, terminated, truncated, _ = env.step(action)
        timed += time.perf_counter() - start
        if terminated or truncated:
            env.reset()
    return steps / timed


def main(argv: list[str] | None = None) -> None:
    args = parser(__doc__).parse_args(argv)
    for name, options, steps in GAMES:
        print(f"{name} {steps_per_second(name, options, quick_or(args.quick, 100, steps)):,.0f} steps/s")


if __name__ == "__main__":
    main()
