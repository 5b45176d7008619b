"""Double Card: the node-count experiment of Shao and Ding's COMP 6721 report (its Fig. 1),
the arena runs and the speed figures of docs/double_card.md.

``python -m benchmarks.double_card nodes [--games 5] [--depths 2 3 4]``
    Plays whole games (h1 alpha-beta at depth 2 for both seats, from random 2-move
    openings) and, at every position, counts the nodes *evaluated* (depth-limit leaves
    evaluated, terminal positions reached, and any evaluation made to order moves;
    ``stats["evaluated"]`` of the searchers) by
      - minimax: exact, by enumerating the tree to depth d - 1 and counting the
        children of the last level (no evaluation needed to count them); at depth 4 in
        the first moves this enumerates ~200,000 positions per move, so with
        ``--estimate`` depth 4 is instead the product of the sampled branching factors;
      - alpha-beta as the original report ran it (no table, no ordering, one search to depth d);
      - alpha-beta with a transposition table and a cache of leaf evaluations (keyed by
        the full state; no ordering, one search);
      - ours: ``double-card-best`` with h1 (table, move hints, killers, history,
        principal variation search, leaf evaluations cached by board, iterative
        deepening), a fresh policy per position; the same with one search straight to
        depth d (no iterative deepening); the same without the leaf cache (so no
        transposed leaf is saved: the textbook minimal tree applies); and as it really
        plays: one policy per seat for the whole game, its table, cache and history kept
        from move to move;
    and prints the median per move, the fraction pruned (1 - evaluated / minimax's) and
    the median seconds per move (minimax's: its leaves x the measured time of one
    evaluation, since running it is the slow thing being avoided).  Depth is in plies;
    a recycling move is two plies (take, place).
    ``--deep 6``: also times ``double-card-best`` (windows, no time limit) at depth 6 on
    every move of ``--deep-games`` games (as ``deep`` below).
``python -m benchmarks.double_card deep [--games 8] [--depth 6] [--verbose]``
    The longer depth check: ``double-card-best`` (windows, no time limit) at a fixed
    depth on every move of whole games from random 2-move openings (the first games are
    those of ``nodes --deep``); CPU seconds per move (``time.process_time``), median,
    90th percentile, maximum, and the moves over the 6 s tournament budget.
``python -m benchmarks.double_card speed [--runs 5]``
    Throughput, in CPU seconds (``time.process_time``) so that other jobs on the machine
    inflate it less, median of ``--runs`` runs: random playouts on the rules layer
    (games/s, steps/s) and through the AEC ``env()`` (the driver of
    ``benchmarks/random_play.py``); legal-move generations/s and clone + apply/s over 40
    positions of quiet random games (two thirds of them recycling); ms per move and
    nodes/s of alpha-beta at depth 3 with h2 (the report's: no table, no ordering; and
    ordered by evaluation, where h2's incremental cache serves siblings) and of
    ``double-card-best`` at depth 4 (windows; h1), over 8 positions of random openings.
``python -m benchmarks.double_card arena NAME``
    One of the arena runs of the docs (``h1-vs-h2``, ``depths``, ``best``), with random
    2-move openings drawn from the arena's per-cycle seed so deterministic players meet
    many positions; markdown table on stdout.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from benchmarks.driver import CPU, median_seconds, quick_or
from benchmarks.random_play import Uniform, aec_playouts, rules_playouts
from parlour.baselines import make
from parlour.baselines.players.double_card import h1
from parlour.envs import double_card_v0
from parlour.games.base import make_rng
from parlour.games.double_card import DoubleCardGame


class OpeningDoubleCard(DoubleCardGame):
    """Double Card starting after ``OPENING`` random moves that do not end the game,
    drawn from the seed (the arena's chance), so fixed-depth searchers play varied games."""

    OPENING = 2

    def new_initial_state(self, seed=None, **start):
        state = super().new_initial_state(None, **start)
        if start:
            return state
        rng = make_rng(seed)
        for _ in range(self.OPENING):
            legal = state.legal_actions(state.to_move)
            state.apply(int(legal[int(rng.integers(len(legal)))]))
        return state


def _leaves(state, depth: int) -> int:
    """Minimax's evaluated nodes below ``state`` searched ``depth`` plies (exact)."""
    if state.is_terminal() or depth == 0:
        return 1
    legal = state.legal_actions(state.to_move)
    if depth == 1:
        return len(legal)
    total = 0
    for action in legal:
        child = state.clone()
        child.apply(action)
        total += _leaves(child, depth - 1)
    return total


def _estimate(state, depth: int, rng) -> float:
    """Product of branching factors along sampled lines (for minimax where exact is slow)."""
    samples = []
    for _ in range(20):
        s, product = state.clone(), 1.0
        for _ in range(depth):
            if s.is_terminal():
                break
            legal = s.legal_actions(s.to_move)
            product *= len(legal)
            s.apply(int(legal[int(rng.integers(len(legal)))]))
        samples.append(product)
    return float(np.mean(samples))


PLAIN = dict(ordering="none", iterative=False, killers=False, pvs=False)
VARIANTS = {
    "alpha-beta": ("alphabeta", dict(PLAIN, tt=False, eval_cache=False)),
    "alpha-beta + TT": ("alphabeta", dict(PLAIN, tt=True, eval_cache=True)),
    "ours (TT, ordering, ID)": ("double-card-best", dict(time_limit=None)),
    "ours, one search (no ID)": ("double-card-best", dict(time_limit=None, iterative=False)),
    "ours without the leaf cache": ("double-card-best", dict(time_limit=None, eval_cache=False)),
}
OURS = "ours (TT, ordering, ID)"
KEPT = "ours, table kept between moves"


def nodes(games: int, depths: list[int], estimate: bool, seed: int) -> None:
    game = OpeningDoubleCard()
    rng = np.random.default_rng(seed)
    # time of one h1 evaluation (minimax's time per move = leaves x this)
    probe = game.new_initial_state(1)
    start = time.perf_counter()
    for _ in range(2000):
        h1(probe)
    eval_seconds = (time.perf_counter() - start) / 2000
    rows: dict[tuple[int, str], list[tuple[float, float]]] = {}
    exactness = {}
    for _g in range(games):
        state = game.new_initial_state(int(rng.integers(2**31)))
        # the driver as in earlier runs (no killer moves), so the games stay the same
        driver = make("alphabeta", game, seed=0, depth=2, evaluation="h1", killers=False)
        kept = {}  # ours as it plays: one policy per seat, its table kept from move to move
        while not state.is_terminal():
            for depth in depths:
                exact = not (estimate and depth >= 4)
                exactness[depth] = "exact" if exact else "estimated"
                leaves = _leaves(state, depth) if exact else _estimate(state, depth, rng)
                rows.setdefault((depth, "minimax"), []).append((leaves, leaves * eval_seconds))
                for label, (name, params) in VARIANTS.items():
                    policy = make(name, game, seed=0, depth=depth, evaluation="h1", **params)
                    t0 = time.perf_counter()
                    policy.search(state.clone(), state.to_move)
                    elapsed = time.perf_counter() - t0
                    rows.setdefault((depth, label), []).append((policy.stats["evaluated"], elapsed, leaves))
                if (depth, state.to_move) not in kept:
                    name, params = VARIANTS[OURS]
                    kept[(depth, state.to_move)] = make(name, game, seed=0, depth=depth, evaluation="h1", **params)
                policy = kept[(depth, state.to_move)]
                t0 = time.perf_counter()
                policy.search(state.clone(), state.to_move)
                elapsed = time.perf_counter() - t0
                rows.setdefault((depth, KEPT), []).append((policy.stats["evaluated"], elapsed, leaves))
            state.apply(driver.search(state.clone(), state.to_move))
    print(f"Double Card node counts: {games} whole games, h1, medians per position (n = positions); "
          f"one h1 evaluation = {eval_seconds * 1e6:.0f} us\n")
    print("| depth | search | evaluated nodes (median) | min - max | pruned (median) | pruned min - max | s / move (median) |")
    print("|---|---|---|---|---|---|---|")
    for depth in depths:
        mm = rows[(depth, "minimax")]
        print(f"| {depth} | minimax ({exactness[depth]}) | {statistics.median(x[0] for x in mm):,.0f} | "
              f"{min(x[0] for x in mm):,.0f} - {max(x[0] for x in mm):,.0f} | - | - | {statistics.median(x[1] for x in mm):.3f} (est.) |")
        for label in [*VARIANTS, KEPT]:
            data = rows[(depth, label)]
            pruned = [1 - n / max(leaves, 1) for n, _, leaves in data]
            print(f"| {depth} | {label} | {statistics.median(x[0] for x in data):,.0f} | "
                  f"{min(x[0] for x in data):,} - {max(x[0] for x in data):,} | {statistics.median(pruned):.1%} | "
                  f"{min(pruned):.1%} - {max(pruned):.1%} | {statistics.median(x[1] for x in data):.3f} |")


def deep(games: int, depth: int, seed: int, verbose: bool = False) -> None:
    """CPU seconds per move of our search at a fixed depth over whole games (CPU time,
    ``time.process_time``, so that other jobs on the machine do not inflate it)."""
    game = OpeningDoubleCard()
    rng = np.random.default_rng(seed)
    times = []
    for g in range(games):
        state = game.new_initial_state(int(rng.integers(2**31)))
        player = make("double-card-best", game, seed=0, depth=depth, time_limit=None)
        while not state.is_terminal():
            t0 = time.process_time()
            action = player.search(state.clone(), state.to_move)
            times.append(time.process_time() - t0)
            if verbose:
                print(f"game {g} move {state.moves + 1}: {times[-1]:.2f} s CPU, {player.stats['nodes']:,} nodes, "
                      f"value {player.stats['value']:+.4f}, {state.action_to_text(action)}")
            state.apply(action)
    times.sort()
    print(f"\ndouble-card-best (windows, no time limit) at depth {depth}, {games} games: {len(times)} moves, CPU seconds: "
          f"median {statistics.median(times):.2f}, 90th percentile {times[int(0.9 * (len(times) - 1))]:.2f}, "
          f"max {times[-1]:.2f}; {sum(t > 6 for t in times)} moves over 6 s")


def _cpu_median(fn, runs: int) -> float:
    """Median CPU seconds of ``fn()`` over ``runs`` runs (after one warm-up)."""
    return median_seconds(fn, runs, clock=CPU, warm_up=True)


def _quiet_positions(count: int, seed: int) -> list:
    """Positions of random games that avoid ending moves while they can (max_moves 60),
    so that a third of them are in the recycling phase."""
    game = DoubleCardGame(max_moves=60)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(out) < count:
            if rng.random() < 0.25:
                out.append(state.clone())
            legal = list(state.legal_actions(state.to_move))
            rng.shuffle(legal)
            for action in legal:
                child = state.clone()
                child.apply(action)
                if not child.is_terminal():
                    break
            state = child
    return out


def speed(runs: int, seed: int, scale: int = 1) -> None:
    """The speed table; ``scale`` divides every size and, above 1, makes the searches shallow (``--quick``)."""
    game = DoubleCardGame()
    print(f"Double Card speed, CPU seconds, median of {runs} runs\n")
    print("| measure | value |")
    print("|---|---:|")
    games = max(1, 300 // scale)
    steps = rules_playouts(game, games, Uniform(1))
    seconds = _cpu_median(lambda: rules_playouts(game, games, Uniform(1)), runs)
    print(f"| random playouts/s, rules layer | {games / seconds:,.0f} |")
    print(f"| steps/s, rules layer | {steps / seconds:,.0f} |", flush=True)
    env = double_card_v0.env()
    env_games = max(1, 60 // scale)
    steps = aec_playouts(env, env_games, Uniform(1))
    seconds = _cpu_median(lambda: aec_playouts(env, env_games, Uniform(1)), runs)
    print(f"| random playouts/s, AEC env() | {env_games / seconds:,.0f} |")
    print(f"| steps/s, AEC env() | {steps / seconds:,.0f} |", flush=True)
    states = _quiet_positions(max(1, 40 // scale), seed)
    repeat = max(1, 50 // scale)

    def generate():
        for _ in range(repeat):
            for s in states:
                s.legal_actions(s.to_move)

    seconds = _cpu_median(generate, runs)
    recycling = sum(s.phase in ("pick", "place") for s in states)
    print(f"| legal-move generations/s ({recycling} of {len(states)} positions recycling) | "
          f"{repeat * len(states) / seconds:,.0f} |")
    children = [(s, s.legal_actions(s.to_move)) for s in states]

    def clone_apply():
        n = 0
        for s, legal in children:
            for action in legal[::3]:
                s.clone().apply(action)
                n += 1
        return n

    n = clone_apply()
    seconds = _cpu_median(clone_apply, runs)
    print(f"| clone + apply/s | {n / seconds:,.0f} |", flush=True)
    opening = OpeningDoubleCard()
    roots = [opening.new_initial_state(seed + k) for k in range(max(1, 8 // scale))]
    shallow, deep_ = (3, 4) if scale == 1 else (1, 2)
    for label, spec, params in (
        (f"alpha-beta depth {shallow}, h2 (the report's)", "alphabeta",
         dict(PLAIN, depth=shallow, evaluation="h2", tt=False, eval_cache=False)),
        (f"alpha-beta depth {shallow}, h2, ordered by evaluation", "alphabeta",
         dict(depth=shallow, evaluation="h2", ordering="evaluation")),
        (f"double-card-best depth {deep_} (windows)", "double-card-best", dict(depth=deep_, time_limit=None)),
        (f"double-card-best depth {deep_} (h1)", "double-card-best", dict(depth=deep_, time_limit=None, evaluation="h1")),
    ):
        per_move, nodes_s = [], []
        for root in roots:
            def run(root=root, spec=spec, params=params):
                policy = make(spec, opening, seed=0, **params)
                policy.search(root.clone(), root.to_move)
                return policy.stats["nodes"]

            nodes_count = run()
            seconds = _cpu_median(run, runs)
            per_move.append(seconds)
            nodes_s.append(nodes_count / seconds)
        print(f"| {label}: ms/move (median of {len(roots)} positions) | {1000 * statistics.median(per_move):.1f} |")
        print(f"| {label}: nodes/s | {statistics.median(nodes_s):,.0f} |", flush=True)


ARENAS = {
    "h1-vs-h2": [
        ("depth 2", ["alphabeta:depth=2,evaluation=h1,tt=false,ordering=none,iterative=false",
                     "alphabeta:depth=2,evaluation=h2,tt=false,ordering=none,iterative=false"], 200),
        ("depth 3", ["alphabeta:depth=3,evaluation=h1", "alphabeta:depth=3,evaluation=h2"], 100),
    ],
    "depths": [
        ("h1, depth 2 vs 3 vs 4", ["alphabeta:depth=2,evaluation=h1", "alphabeta:depth=3,evaluation=h1",
                                   "alphabeta:depth=4,evaluation=h1"], 100),
    ],
    "weights": [
        ("h1 weights W1 / W2 / W3 at depth 2", ["alphabeta:depth=2,evaluation=h1-w1", "alphabeta:depth=2,evaluation=h1",
                                                "alphabeta:depth=2,evaluation=h1-w3"], 100),
        ("h1 weights W1 / W2 / W3 at depth 3", ["alphabeta:depth=3,evaluation=h1-w1", "alphabeta:depth=3,evaluation=h1",
                                                "alphabeta:depth=3,evaluation=h1-w3"], 50),
    ],
    "evaluations": [
        ("evaluations at depth 2", ["alphabeta:depth=2,evaluation=h1", "alphabeta:depth=2,evaluation=h2",
                                    "alphabeta:depth=2,evaluation=windows"], 100),
        ("evaluations at depth 3", ["alphabeta:depth=3,evaluation=h2", "alphabeta:depth=3,evaluation=windows"], 100),
    ],
    "best": [
        ("ours vs the report's players", ["double-card-best", "original-tournament",
                                        "alphabeta:depth=3,evaluation=h2"], 30),
    ],
}


def arena(name: str, workers: int, seed: int, quick: bool = False) -> None:
    from parlour.evaluation.arena import play_match
    from parlour.evaluation.report import summarize, to_markdown

    game = OpeningDoubleCard()
    for title, agents, games in ARENAS[name]:
        games = quick_or(quick, 2, games)
        result = play_match(game, agents, games=games, seed=seed, workers=workers, progress=False)
        print(f"\n### {title} ({games} games per pair, random 2-move openings, seed {seed}, {result.seconds:.0f} s)\n")
        print(to_markdown(summarize(result)))
        first = [r.returns[0] for r in result.records]
        print(f"\nfirst mover: {sum(x > 0 for x in first)} wins, {sum(x == 0 for x in first)} draws, "
              f"{sum(x < 0 for x in first)} losses; mean length {np.mean([r.length for r in result.records]):.1f} steps")
        print("seconds per move: " + ", ".join(f"{lab} {t:.3f}" for lab, t in zip(result.labels, result.seconds_per_move)))


def main(argv: list[str] | None = None) -> None:
    args_parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = args_parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("nodes")
    p.add_argument("--games", type=int, default=5)
    p.add_argument("--depths", type=int, nargs="+", default=[2, 3, 4])
    p.add_argument("--estimate", action="store_true", help="estimate minimax at depth 4 from branching factors")
    p.add_argument("--deep", type=int, default=6, help="also time our search at this depth (0: skip)")
    p.add_argument("--deep-games", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    d = sub.add_parser("deep")
    d.add_argument("--games", type=int, default=8)
    d.add_argument("--depth", type=int, default=6)
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--verbose", action="store_true", help="one line per move")
    sp = sub.add_parser("speed")
    sp.add_argument("--runs", type=int, default=5)
    sp.add_argument("--seed", type=int, default=0)
    a = sub.add_parser("arena")
    a.add_argument("name", choices=sorted(ARENAS))
    a.add_argument("--workers", type=int, default=2)
    a.add_argument("--seed", type=int, default=0)
    for command in (p, d, sp, a):
        command.add_argument("--quick", action="store_true", help="a smoke run: one game, depth 2, one run, tiny sizes")
    args = args_parser.parse_args(argv)
    if args.command == "nodes":
        games, depths, deep_depth = quick_or(args.quick, (1, [2], 2), (args.games, args.depths, args.deep))
        nodes(games, depths, args.estimate, args.seed)
        if deep_depth:
            deep(quick_or(args.quick, 1, args.deep_games), deep_depth, args.seed)
    elif args.command == "deep":
        deep(*quick_or(args.quick, (1, 2), (args.games, args.depth)), args.seed, args.verbose)
    elif args.command == "speed":
        speed(quick_or(args.quick, 1, args.runs), args.seed, quick_or(args.quick, 20, 1))
    else:
        arena(args.name, quick_or(args.quick, 1, args.workers), args.seed, args.quick)


if __name__ == "__main__":
    main()
