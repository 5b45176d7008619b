"""Tribolo speed: random playouts (rules layer and env), legal-move generation, and the
time per move of ``original-strategy`` (the AI of the Tribolo series' AI post) and of
paranoid alpha-beta and max^n minimax.

Positions: the openings of seeds 0..N-1 (16 x 11, 12 walls, 12 cells each) and the
middle games reached from them after 60 random plies.  Every figure is the median of
``--runs`` runs (per position for the searches, then the median over positions).
Targets: ``original-strategy``'s move (depth 2) under 100 ms median, paranoid depth 3
under 1 s.

    python -m benchmarks.tribolo            # full run, markdown tables on stdout
    python -m benchmarks.tribolo --quick    # a smoke run
"""

from __future__ import annotations

import statistics

import numpy as np

import parlour
from benchmarks.driver import header, median_seconds, parser, quick_or, row
from benchmarks.random_play import Uniform, aec_playouts
from parlour.baselines import make
from parlour.envs import tribolo_v0
from parlour.games.tribolo import TriboloGame

MIDDLE_PLIES = 60


def rules_playouts(game: TriboloGame, count: int) -> int:
    """``count`` uniformly random games on the rules layer; returns the moves played."""
    rng = np.random.default_rng(0)
    moves = 0
    for _ in range(count):
        state = game.new_initial_state(rng)
        while state.to_move >= 0:
            legal = state.legal_actions(state.to_move)
            state.apply(legal[int(rng.integers(len(legal)))])
            moves += 1
    return moves


def env_playouts(count: int) -> int:
    """``count`` random games through the AEC env (masked actions); returns the steps."""
    return aec_playouts(tribolo_v0.raw_env(), count, Uniform(0))


def positions(game: TriboloGame, count: int) -> dict[str, list]:
    openings, middles = [], []
    for seed in range(count):
        state = game.new_initial_state(seed)
        openings.append(state.clone())
        rng = np.random.default_rng(seed)
        for _ in range(MIDDLE_PLIES):
            if state.is_terminal():
                break
            legal = state.legal_actions(state.to_move)
            state.apply(legal[int(rng.integers(len(legal)))])
        if not state.is_terminal():
            middles.append(state)
    return {"opening": openings, f"middle (after {MIDDLE_PLIES} random plies)": middles}


def speed_table(game: TriboloGame, runs: int, playouts: int, positions_count: int = 10, calls: int = 200) -> None:
    header(["measure", "value"])
    moves = rules_playouts(game, 1)
    seconds = median_seconds(lambda: rules_playouts(game, playouts), runs)
    moves = rules_playouts(game, playouts)
    print(f"| random playouts/s, rules layer | {playouts / seconds:,.0f} |")
    print(f"| moves/s, rules layer (apply + legal_actions + rng) | {moves / seconds:,.0f} |")
    env_games = max(1, playouts // 5)
    steps = env_playouts(env_games)
    seconds = median_seconds(lambda: env_playouts(env_games), runs)
    print(f"| random playouts/s, AEC env (raw_env, masked actions) | {env_games / seconds:,.0f} |")
    print(f"| steps/s, AEC env | {steps / seconds:,.0f} |")
    states = [s for group in positions(game, positions_count).values() for s in group]

    def generate():
        for state in states:
            for _ in range(calls):
                state.moves_of(state.to_move)

    seconds = median_seconds(generate, runs)
    print(f"| legal-move generations/s (bitboard of one seat) | {len(states) * calls / seconds:,.0f} |")

    def listing():
        for state in states:
            for _ in range(calls):
                state.legal_actions(state.to_move)

    seconds = median_seconds(listing, runs)
    print(f"| legal_actions() lists/s (cached bitboard to list) | {len(states) * calls / seconds:,.0f} |")

    def clone_apply():
        for state in states:
            a = state.legal_actions(state.to_move)[0]
            for _ in range(calls):
                child = state.clone()
                child.apply(a)

    seconds = median_seconds(clone_apply, runs)
    print(f"| clone + apply (next turn included)/s | {len(states) * calls / seconds:,.0f} |")


def search_table(game: TriboloGame, runs: int, count: int, depths: range, quick: bool = False) -> None:
    cases = [("original-strategy", "original-strategy", {})]
    cases += [(f"original-strategy depth {d}", "original-strategy", {"depth": d}) for d in (() if quick else (3,))]
    cases += [(f"paranoid depth {d}", "paranoid", {"depth": d}) for d in depths]
    cases += [(f"minimax (max^n) depth {d}", "minimax", {"depth": d}) for d in ((2,) if quick else (2, 3))]
    print()
    header(["player", "position", "median time/move (ms)", "max time/move (ms)", "median nodes", "nodes/s"], numeric_from=2)
    for label, states in positions(game, count).items():
        for name, policy_name, params in cases:
            policy = make(policy_name, game, seed=0, **params)
            times, nodes = [], []
            for state in states:
                seat = state.to_move
                info = state.info_state(seat)

                def run(policy=policy, info=info):
                    policy.reset(0)
                    policy.act(info)

                times.append(median_seconds(run, runs))
                nodes.append(policy.stats["nodes"])
            rate = sum(nodes) / sum(times)
            row(name, label, f"{statistics.median(times) * 1000:.1f}", f"{max(times) * 1000:.1f}",
                f"{statistics.median(nodes):,.0f}", f"{rate:,.0f}")


def main(argv: list[str] | None = None) -> None:
    args_parser = parser(__doc__, runs=5)
    args_parser.add_argument("--positions", type=int, default=10, help="opening seeds (and middle games from them)")
    args = args_parser.parse_args(argv)
    runs = quick_or(args.quick, 1, args.runs)
    count = quick_or(args.quick, 1, args.positions)
    game = TriboloGame()
    print(f"parlour {parlour.__version__}, tribolo 16 x 11, 12 walls, 12 cells each; median of {runs} runs\n")
    speed_table(game, runs, *quick_or(args.quick, (2, 2, 10), (100, 10, 200)))
    search_table(game, runs, count, quick_or(args.quick, range(2, 3), range(2, 5)), args.quick)


if __name__ == "__main__":
    main()
