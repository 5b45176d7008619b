"""Random playouts per second: parlour's rules layer and envs against references.

Every contender is driven the same way from Python: a uniform random choice among
the legal actions, drawn from pre-generated floats of one seeded
``numpy.random.Generator`` so the policy costs the same everywhere.  Each figure is
the median of ``--runs`` timed runs; ratios are against references measured in the
same process (OpenSpiel's C++ ``goofspiel`` through pyspiel with the same prize order
and tie rule as the row it is compared with, PettingZoo's ``connect_four_v3`` and
``tictactoe_v3``, which need ``pip install -e .[bench]``).  The contenders take turns,
run by run, so that load from other jobs falls on all of them alike.

    python benchmarks/playouts.py            # full run, markdown table on stdout
    python benchmarks/playouts.py --quick    # a smoke run
    python benchmarks/playouts.py --only descending   # the rows whose label says so
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np

import parlour
from parlour.envs import goofspiel_v0, sticks_v0
from parlour.games.goofspiel import GoofspielGame
from parlour.games.sticks import SticksGame


class Uniform:
    """Uniform choice from a list of legal actions using pre-drawn floats."""

    def __init__(self, seed: int, size: int = 1 << 20) -> None:
        self.u = np.random.default_rng(seed).random(size).tolist()
        self.i = 0

    def __call__(self, legal):
        i = self.i = (self.i + 1) & 0xFFFFF
        return legal[int(self.u[i] * len(legal))]


def rules_playouts(game, games: int, pick: Uniform) -> int:
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


def pyspiel_playouts(game, games: int, pick: Uniform) -> int:
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


def aec_playouts(env, games: int, pick: Uniform) -> int:
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


def parallel_playouts(env, games: int, pick: Uniform) -> int:
    steps = 0
    for g in range(games):
        observations, _ = env.reset(seed=g)
        while env.agents:
            actions = {a: int(pick(np.flatnonzero(o["action_mask"]))) for a, o in observations.items()}
            observations, *_ = env.step(actions)
            steps += 1
    return steps


def timed(run: Callable[[int, Uniform], int], games: int, pick: Uniform) -> tuple[float, float]:
    """Games/s and steps/s of one run."""
    start = time.perf_counter()
    steps = run(games, pick)
    elapsed = time.perf_counter() - start
    return games / elapsed, steps / elapsed


def measure_all(rows: list[tuple[str, Callable[[int, Uniform], int], int]], runs: int) -> dict[str, tuple[float, float, float]]:
    """Median games/s, steps/s and the steps/s spread (max/min) per contender over
    ``runs`` rounds in which every contender runs once, in turn (interleaved, so that
    load from other jobs hits every contender alike), after one warm-up each."""
    for _label, run, games in rows:
        run(max(1, games // 10), Uniform(0))
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in rows}
    for r in range(runs):
        for label, run, games in rows:
            samples[label].append(timed(run, games, Uniform(r + 1)))
    return {
        label: (statistics.median(g for g, _ in got), statistics.median(s for _, s in got),
                max(s for _, s in got) / min(s for _, s in got))
        for label, got in samples.items()
    }


def contenders(scale: int) -> list[tuple[str, Callable[[int, Uniform], int], int]]:
    """(label, run(games, pick) -> steps, games per run)."""
    g13 = dict(num_cards=13, prize_order="descending", tie_rule="discard")
    rows: list[tuple[str, Callable[[int, Uniform], int], int]] = [
        ("goofspiel-13 rules (descending, discard)", lambda n, p: rules_playouts(GoofspielGame(**g13), n, p), 4000),
        ("goofspiel-13 rules (random order, discard)",
         lambda n, p: rules_playouts(GoofspielGame(num_cards=13, tie_rule="discard"), n, p), 4000),
        ("goofspiel-13 rules (random order, carry)", lambda n, p: rules_playouts(GoofspielGame(num_cards=13), n, p), 4000),
        ("sticks-10 rules", lambda n, p: rules_playouts(SticksGame(), n, p), 10000),
        ("sticks-100 rules (take 1-5)", lambda n, p: rules_playouts(SticksGame(num_sticks=100, max_take=5), n, p), 2000),
        ("goofspiel-13 AEC env()", lambda n, p: aec_playouts(goofspiel_v0.env(**g13), n, p), 500),
        ("goofspiel-13 parallel_env()", lambda n, p: parallel_playouts(goofspiel_v0.parallel_env(**g13), n, p), 500),
        ("sticks-10 AEC env()", lambda n, p: aec_playouts(sticks_v0.env(), n, p), 1000),
        ("goofspiel-13 AEC raw_env()", lambda n, p: aec_playouts(goofspiel_v0.raw_env(**g13), n, p), 500),
    ]
    try:
        import pyspiel

        # OpenSpiel's goofspiel discards tied prizes; a random order is a chance node per round.
        descending = pyspiel.load_game("goofspiel", {"num_cards": 13, "points_order": "descending", "imp_info": False})
        shuffled = pyspiel.load_game("goofspiel", {"num_cards": 13, "points_order": "random", "imp_info": False})
        rows.append(("REF pyspiel goofspiel-13 descending (C++)", lambda n, p: pyspiel_playouts(descending, n, p), 4000))
        rows.append(("REF pyspiel goofspiel-13 random order (C++)", lambda n, p: pyspiel_playouts(shuffled, n, p), 4000))
    except ImportError:
        print("(pyspiel not installed: pip install -e .[bench])")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from pettingzoo.classic import connect_four_v3, tictactoe_v3
        rows.append(("REF pettingzoo connect_four_v3 env()", lambda n, p: aec_playouts(connect_four_v3.env(), n, p), 200))
        rows.append(("REF pettingzoo tictactoe_v3 env()", lambda n, p: aec_playouts(tictactoe_v3.env(), n, p), 500))
    except ImportError:
        print("(PettingZoo classic envs need pygame: pip install -e .[bench])")
    return [(label, run, max(1, games // scale)) for label, run, games in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7, help="timed runs per contender (median reported)")
    parser.add_argument("--quick", action="store_true", help="few short runs, to check the script works")
    parser.add_argument("--only", help="run only the contenders whose label contains this text")
    args = parser.parse_args()
    runs, scale = (2, 20) if args.quick else (args.runs, 1)
    rows = [row for row in contenders(scale) if args.only is None or args.only in row[0]]
    print(f"parlour {parlour.__version__}, median of {runs} interleaved runs\n")
    results = measure_all(rows, runs)
    print("| contender | games/s | steps/s | steps/s max/min |")
    print("|---|---:|---:|---:|")
    for label, _, _ in rows:
        games_s, steps_s, spread = results[label]
        print(f"| {label} | {games_s:,.0f} | {steps_s:,.0f} | {spread:.2f} |")
    print()
    # Like with like: each rules row against pyspiel playing the same prize order and tie rule.
    for label, ref in (("goofspiel-13 rules (descending, discard)", "REF pyspiel goofspiel-13 descending (C++)"),
                       ("goofspiel-13 rules (random order, discard)", "REF pyspiel goofspiel-13 random order (C++)")):
        if ref in results and label in results:
            print(f"- {label} / {ref}: {results[label][0] / results[ref][0]:.2f}x games/s (target >= 1)")
    c4 = results.get("REF pettingzoo connect_four_v3 env()")
    if c4:
        for label, target in (("goofspiel-13 AEC env()", 5), ("sticks-10 AEC env()", 3), ("goofspiel-13 parallel_env()", 3)):
            if label not in results:
                continue
            print(f"- {label} / connect_four_v3 env(): {results[label][1] / c4[1]:.2f}x steps/s (target >= {target})")


if __name__ == "__main__":
    main()
