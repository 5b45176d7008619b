"""Search speed and the node-count experiment of Shao and Ding's COMP 6721 Double Card
report, on every perfect-information game.

For depths 2..5 from a few positions of each game: nodes visited and time for plain
depth-limited minimax, alpha-beta without table or ordering, and alpha-beta with
transposition table, history ordering and iterative deepening; alpha-beta nodes/s;
and MCTS simulations/s where the ``mcts`` policy exists.  Times are medians of
``--runs`` runs.

    python -m benchmarks.search            # full run, markdown tables on stdout
    python -m benchmarks.search --quick    # a smoke run
"""

from __future__ import annotations

import statistics

import parlour
from benchmarks.driver import header, parser, quick_or, row
from benchmarks.driver import timed as timed_once
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
    """Median seconds of ``runs`` calls of ``fn``, and what the last returned."""
    samples = [timed_once(fn) for _ in range(runs)]
    return statistics.median(seconds for seconds, _ in samples), samples[-1][1]


def node_counts(runs: int, depths: range) -> None:
    header(["position", "depth", *(f"{label} nodes" for label, _, _ in VARIANTS), "alpha-beta+TT time (ms)", "nodes/s"])
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
            row(label, depth, *(f"{c:,}" for c in counts), f"{last_time * 1000:.1f}", f"{last_rate:,.0f}")


def mcts_rates(runs: int, simulations: int) -> None:
    if "mcts" not in REGISTRY:
        print("\n(mcts is not available)")
        return
    from parlour.games.goofspiel import GoofspielGame

    print()
    header(["game", "simulations/move", "time/move (ms)", "simulations/s"])
    cases = [("sticks-20", SticksGame(num_sticks=20)), ("goofspiel-13", GoofspielGame(num_cards=13))]
    for label, game in cases:
        state = game.new_initial_state(0)
        policy = make("mcts", game, seed=0, simulations=simulations)
        info = state.info_state(state.current_players()[0])
        seconds, _ = timed(lambda: policy.act(info), runs)
        row(label, simulations, f"{seconds * 1000:.1f}", f"{simulations / seconds:,.0f}")


def main(argv: list[str] | None = None) -> None:
    args = parser(__doc__, runs=5).parse_args(argv)
    runs = quick_or(args.quick, 1, args.runs)
    print(f"parlour {parlour.__version__}, median of {runs} runs\n")
    node_counts(runs, quick_or(args.quick, range(2, 4), range(2, 6)))
    mcts_rates(runs, quick_or(args.quick, 100, 1000))


if __name__ == "__main__":
    main()
