"""Search speed and the node-count experiment of Shao and Ding's COMP 6721 Double Card
report, on every perfect-information game.

For depths 2..5 from a few positions of each game: nodes visited and time for plain
depth-limited minimax, alpha-beta without table or ordering, and alpha-beta with
transposition table, history ordering and iterative deepening; alpha-beta nodes/s;
and MCTS simulations/s where the ``mcts`` policy exists.  Times are medians of
``--runs`` runs.

    python benchmarks/search.py            # full run, markdown tables on stdout
    python benchmarks/search.py --quick    # a smoke run
"""

from __future__ import annotations

import argparse
import statistics
import time

import parlour
from parlour.baselines import REGISTRY, make
from parlour.games.sticks import SticksGame

VARIANTS = [
    ("minimax", "minimax", {"memo": False}),
    ("alpha-beta", "alphabeta", {"tt": False, "ordering": "none", "iterative": False}),
    ("alpha-beta + TT + history + ID", "alphabeta", {"tt": True, "ordering": "history", "iterative": True}),
]


def positions():
    """(label, game, state) for every perfect-information turn-based game available."""
    game = SticksGame(num_sticks=100, max_take=5)
    yield "sticks-100 take 1-5 (start)", game, game.new_initial_state()
    yield "sticks-100 take 1-5 (57 left)", game, game.new_initial_state(sticks=57)
    small = SticksGame(num_sticks=30, max_take=3)
    yield "sticks-30 take 1-3 (start)", small, small.new_initial_state()


def timed(fn, runs: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def node_counts(runs: int, depths: range) -> None:
    print("| position | depth | " + " | ".join(f"{label} nodes" for label, _, _ in VARIANTS) + " | alpha-beta+TT time (ms) | nodes/s |")
    print("|---|---:|" + "---:|" * (len(VARIANTS) + 2))
    for label, game, state in positions():
        player = state.current_players()[0]
        for depth in depths:
            counts, last_time, last_rate = [], 0.0, 0.0
            for _, name, params in VARIANTS:
                policy = make(name, game, depth=depth, **params)

                def run(policy=policy):
                    policy.reset()
                    policy.search(state.clone(), player)
                    return dict(policy.stats)

                seconds, stats = timed(run, runs)
                counts.append(stats["nodes"])
                last_time, last_rate = seconds, stats["nodes"] / seconds
            print(f"| {label} | {depth} | " + " | ".join(f"{c:,}" for c in counts) + f" | {last_time * 1000:.1f} | {last_rate:,.0f} |")


def mcts_rates(runs: int, simulations: int) -> None:
    if "mcts" not in REGISTRY:
        print("\n(mcts is not available)")
        return
    from parlour.games.goofspiel import GoofspielGame

    print("\n| game | simulations/move | time/move (ms) | simulations/s |")
    print("|---|---:|---:|---:|")
    cases = [("sticks-20", SticksGame(num_sticks=20)), ("goofspiel-13", GoofspielGame(num_cards=13))]
    for label, game in cases:
        state = game.new_initial_state(0)
        policy = make("mcts", game, seed=0, simulations=simulations)
        info = state.info_state(state.current_players()[0])
        seconds, _ = timed(lambda: policy.act(info), runs)
        print(f"| {label} | {simulations} | {seconds * 1000:.1f} | {simulations / seconds:,.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per figure (median reported)")
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    print(f"parlour {parlour.__version__}, median of {runs} runs\n")
    node_counts(runs, range(2, 4) if args.quick else range(2, 6))
    mcts_rates(runs, 100 if args.quick else 1000)


if __name__ == "__main__":
    main()
