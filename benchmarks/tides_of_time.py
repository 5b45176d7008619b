"""Tides of Time benchmark: random playouts, env steps and ``original-alphabeta``'s first pick.

- rules layer: uniformly random games (both seats' legal cards), games/s and steps/s;
- envs: the PettingZoo Parallel and AEC loops with masked random actions, steps/s;
- ``original-alphabeta``'s first pick of round 1 (every one of the 1287 possible opponent
  hands solved exactly, then a vote), seconds per decision on one core and nodes per
  decision (tree positions evaluated: hands x slot-tree size), over ``--deals``
  random deals; the same decision by one alpha-beta per hand (the C# article's method,
  with a transposition table) for comparison, on fewer deals;
- ``tides-equilibrium``'s first pick (16 sampled hands) for reference.

Every figure is the median of ``--runs`` timed runs (deals for decisions).

    python -m benchmarks.tides_of_time            # full run, markdown table on stdout
    python -m benchmarks.tides_of_time --quick    # a smoke run
"""

from __future__ import annotations

import statistics
import time
import warnings

import numpy as np

import parlour
import parlour.envs.tides_of_time_v0 as tides_v0
from benchmarks.driver import header, parser, quick_or, row
from benchmarks.random_play import Uniform, aec_playouts, parallel_playouts
from parlour.baselines import make
from parlour.games.tides_of_time import TidesOfTimeGame


def rules_playouts(game, games: int, pick: Uniform) -> int:
    """Random games on the rules layer, both seats picking every step (every step of
    Tides of Time is simultaneous)."""
    steps = 0
    rng = np.random.default_rng(0)
    for _ in range(games):
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            state.apply({0: pick(state.legal_actions(0)), 1: pick(state.legal_actions(1))})
            steps += 1
        state.returns()
    return steps




def rate(run, games: int, runs: int) -> tuple[float, float]:
    run(max(1, games // 10), Uniform(0))
    games_s, steps_s = [], []
    for r in range(runs):
        start = time.perf_counter()
        steps = run(games, Uniform(r + 1))
        elapsed = time.perf_counter() - start
        games_s.append(games / elapsed)
        steps_s.append(steps / elapsed)
    return statistics.median(games_s), statistics.median(steps_s)


def decision(spec: str, deals: int, **params) -> tuple[float, float, float]:
    """Median seconds and nodes of the first pick of round 1 over random deals, and the max."""
    game = TidesOfTimeGame(rounds=1)
    policy = make(spec, game, seed=0, **params)
    policy.act(game.new_initial_state(10_000).info_state(0))  # warm-up (builds the slot tree)
    times, nodes = [], []
    for d in range(deals):
        info = game.new_initial_state(d).info_state(0)
        start = time.perf_counter()
        policy.act(info)
        times.append(time.perf_counter() - start)
        nodes.append(policy.stats.get("nodes", 0))
    return statistics.median(times), statistics.median(nodes), max(times)


def main(argv: list[str] | None = None) -> None:
    args_parser = parser(__doc__, runs=7, runs_help="timed runs per playout row (median reported)")
    args_parser.add_argument("--deals", type=int, default=15, help="deals for the decision rows (median reported)")
    args = args_parser.parse_args(argv)
    runs, scale, deals = quick_or(args.quick, (1, 100, 1), (args.runs, 1, args.deals))
    print(f"parlour {parlour.__version__}, one core, median of {runs} runs / {deals} deals\n")
    header(["measure", "games/s", "steps/s"])
    rows = [
        ("rules layer, rounds=1 (5 steps)", lambda n, p: rules_playouts(TidesOfTimeGame(rounds=1), n, p), 5000),
        ("rules layer, rounds=3 (19 steps)", lambda n, p: rules_playouts(TidesOfTimeGame(), n, p), 2000),
        ("parallel_env(), rounds=3", lambda n, p: parallel_playouts(tides_v0.parallel_env(), n, p), 300),
        ("AEC env(), rounds=3 (2 agent steps per game step)", lambda n, p: aec_playouts(tides_v0.env(), n, p), 200),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for label, run, games in rows:
            g, s = rate(run, max(1, games // scale), runs)
            row(label, f"{g:,.0f}", f"{s:,.0f}")
    print()
    header(["first pick of round 1 (one core)", "median s", "max s", "nodes per decision"])
    for label, spec, n, params in [
        ("original-alphabeta, 1287 hands, vectorised (default)", "original-alphabeta", deals, {}),
        ("original-alphabeta, 1287 hands, one alpha-beta per hand", "original-alphabeta",
         0 if args.quick else max(1, deals // 5), {"first_solver": "alphabeta"}),
        ("tides-equilibrium, 16 sampled hands", "tides-equilibrium", deals, {}),
    ]:
        if not n:
            continue  # --quick: not the seconds-long per-hand solver
        t, nodes, worst = decision(spec, n, **params)
        shown = f"{nodes:,.0f}" if nodes else "-"
        row(label, f"{t:.3f}", f"{worst:.3f}", shown)
    print("\ntarget: original-alphabeta's first pick <= 1 s median")


if __name__ == "__main__":
    main()
