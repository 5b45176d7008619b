"""parlour's searchers against OpenSpiel's on the very same games (issue 16).

parlour plays an OpenSpiel game through its wrapper (``load_game("openspiel:<name>")``,
parlour/interop/openspiel/from_openspiel.py), whose states hold pyspiel's C++ states;
OpenSpiel's searchers play the same pyspiel game and the same position directly.  So
the rules cost the same on both sides and what differs is the searcher and, for
parlour, the wrapper's Python layer around each pyspiel call.

- **Alpha-beta, nodes/s**, same positions and depth: parlour's ``alphabeta`` against
  OpenSpiel's Python ``minimax.alpha_beta_search``.  A *node* is a position the search
  enters, i.e. one call of the recursive search (parlour's ``_search``, counted by the
  policy in ``stats["nodes"]``; OpenSpiel's ``_alpha_beta``, counted once by a
  counting wrapper in a separate, untimed search), the root excluded on both sides.
  parlour runs reduced to OpenSpiel's algorithm (no table, legal-move order, one
  search straight to the depth, no leaf cache) with the same leaf value (0 at the depth
  limit, the returns at the end of the game); both are fail-soft, so both visit the
  same nodes, which the script checks along with the root value.  parlour's defaults
  (table, history ordering, killers, iterative deepening, leaf cache) are a further row:
  other nodes, the same value.  OpenSpiel's C++ ``AlphaBetaSearch`` is compiled into
  pyspiel but has no Python binding in open_spiel 2.0.2 (no ``pyspiel.alpha_beta_search``),
  so there is no C++ row.
- **MCTS, simulations/s** at the same number of simulations with one uniformly random
  rollout per simulation: parlour's ``mcts`` against OpenSpiel's Python ``MCTSBot``
  (``RandomRolloutEvaluator(1)``, ``solve=False``) and C++ ``pyspiel.MCTSBot``
  (``pyspiel.RandomRolloutEvaluator(1)``, ``solve=False``); on Leduc poker parlour's
  ``ismcts`` against OpenSpiel's Python and C++ ``ISMCTSBot``.  A *simulation* is one
  descent from the root by UCB1, an expansion, one random playout to the end of the
  game and the backup; for IS-MCTS each starts from a new determinization
  (``resample_from_infostate`` on both sides).  OpenSpiel adds all of a node's children
  at its second visit, parlour one node per simulation.  The exploration constants
  match: OpenSpiel's ``uct_c`` is parlour's ``c`` (1.4, meant for returns in [0, 1])
  times the game's range of returns, the scale parlour reaches once it has seen both
  extremes.  parlour's ``mcts`` shares nodes between transpositions by default
  (``State.key()``); OpenSpiel's trees do not, so ``transpositions=False`` is the
  like-for-like row.

Convention of the other benchmarks (benchmarks/random_play.py's ``measure_all``): the
contenders of a position take turns run by run in one process, so that load from other
jobs falls on all of them alike; each figure is the median of ``--runs`` runs, with the
spread of the runs (max/min); ratios are of those medians.  A run is as many searches
as fill about ``--seconds`` (calibrated once per contender), since OpenSpiel's C++ bots
finish a search in a few milliseconds.  Only games implemented in C++ are used:
pyspiel's C++ bots crash on a game written in Python.

    python -m benchmarks.openspiel_search            # markdown tables on stdout
    python -m benchmarks.openspiel_search --quick    # a smoke run
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts as os_ismcts
from open_spiel.python.algorithms import mcts as os_mcts
from open_spiel.python.algorithms import minimax

import parlour
from benchmarks.driver import header, parser, quick_or, ratio, row
from benchmarks.random_play import measure_all
from parlour.baselines import make
from parlour.games import load_game
from parlour.interop.openspiel.from_openspiel import OpenSpielGame, OpenSpielState

Run = Callable[[int, object], int]
"""``run(searches, _pick) -> work``: ``searches`` searches, returning the nodes or
simulations done (the shape ``measure_all`` times; its random picker is not used)."""

PLAIN = {"tt": False, "ordering": "none", "iterative": False, "eval_cache": False}
"""parlour's alpha-beta reduced to OpenSpiel's: no table, legal order, no iterative
deepening, no leaf cache."""
UCT_C = 1.4
"""parlour's exploration constant (its default), for returns scaled to [0, 1]."""
REF_PY, REF_CPP = "REF OpenSpiel Python", "REF OpenSpiel C++"


@dataclass(frozen=True)
class Position:
    """A wrapped game, a position in it and the depth searched from there."""

    label: str
    game: OpenSpielGame
    state: OpenSpielState
    depth: int

    @property
    def player(self) -> int:
        return self.state.current_players()[0]


def position(game_name: str, opening: list[int], depth: int, label: str) -> Position:
    game = load_game(f"openspiel:{game_name}")
    state = game.new_initial_state(0)
    for action in opening:
        state.apply(action)
    return Position(label, game, state, depth)


def alphabeta_positions(quick: bool) -> list[Position]:
    """tic-tac-toe to the end; Connect Four at a fixed depth from the start (no game
    ends within it) and from a middle game (where many lines end in a win)."""
    return [
        position("tic_tac_toe", [], 4 if quick else 9, "tic_tac_toe (start)"),
        position("connect_four", [], 3 if quick else 8, "connect_four (start)"),
        position("connect_four", [3, 3, 3, 3, 2, 4, 2, 4, 5, 1], 3 if quick else 7, "connect_four (after 10 moves)"),
    ]


def is_cpp(spiel_game: pyspiel.Game) -> bool:
    """Whether a pyspiel game is implemented in C++ (pyspiel's C++ bots need one)."""
    return type(spiel_game).__module__.split(".")[0] == "pyspiel"


# --- alpha-beta ------------------------------------------------------------------------


def parlour_alphabeta(pos: Position, **params: object) -> tuple[Run, int, float]:
    """parlour's ``alphabeta`` on ``pos``: the timed run, nodes per search, root value."""
    policy = make("alphabeta", pos.game, depth=pos.depth, evaluation="zero", **params)

    def search() -> int:
        policy.reset()  # every search starts with empty tables, like OpenSpiel's
        policy.search(pos.state.clone(), pos.player)
        return policy.stats["nodes"]

    def run(searches: int, _pick: object) -> int:
        return sum(search() for _ in range(searches))

    nodes = search()
    return run, nodes, policy.stats["value"]


def _zero(_state: pyspiel.State) -> float:
    return 0.0


@contextlib.contextmanager
def counting_alpha_beta() -> Iterator[list[int]]:
    """Count the calls of OpenSpiel's recursive ``minimax._alpha_beta`` (which looks its
    own name up in the module at each call, so every node passes the wrapper)."""
    calls, inner = [0], minimax._alpha_beta

    def counted(*args, **kwargs):
        calls[0] += 1
        return inner(*args, **kwargs)

    minimax._alpha_beta = counted
    try:
        yield calls
    finally:
        minimax._alpha_beta = inner


def openspiel_alphabeta(pos: Position) -> tuple[Run, int, float]:
    """OpenSpiel's Python alpha-beta on ``pos``: the timed (uninstrumented) run, nodes
    per search (counted in a separate search, root excluded) and root value."""
    spiel_game, spiel_state = pos.game.spiel, pos.state.spiel

    def search() -> float:
        value, _action = minimax.alpha_beta_search(spiel_game, spiel_state, value_function=_zero,
                                                   maximum_depth=pos.depth, maximizing_player_id=pos.player)
        return value

    with counting_alpha_beta() as calls:
        value = search()
    nodes = calls[0] - 1

    def run(searches: int, _pick: object) -> int:
        for _ in range(searches):
            search()
        return searches * nodes

    return run, nodes, value


def alphabeta_rows(pos: Position) -> list[tuple[str, Run, int]]:
    """(label, run, nodes per search); raises if the like-for-like pair disagrees."""
    plain, plain_nodes, plain_value = parlour_alphabeta(pos, **PLAIN)
    ref, ref_nodes, ref_value = openspiel_alphabeta(pos)
    if (plain_nodes, plain_value) != (ref_nodes, ref_value):
        raise AssertionError(f"{pos.label}: parlour visits {plain_nodes} nodes (value {plain_value}), "
                             f"OpenSpiel {ref_nodes} (value {ref_value}): not the same search")
    full, full_nodes, full_value = parlour_alphabeta(pos)
    if full_value != ref_value:
        raise AssertionError(f"{pos.label}: parlour's defaults find {full_value}, OpenSpiel {ref_value}")
    return [
        ("parlour alphabeta, OpenSpiel's algorithm", plain, plain_nodes),
        ("parlour alphabeta, defaults (TT, history, ID)", full, full_nodes),
        (f"{REF_PY} minimax.alpha_beta_search", ref, ref_nodes),
    ]


# --- MCTS --------------------------------------------------------------------------------


def parlour_tree_search(name: str, pos: Position, simulations: int, **params: object) -> Run:
    """parlour's ``mcts`` or ``ismcts`` choosing a move at ``pos`` (its ``act``: the
    policy's view of the game, determinized per simulation where information is hidden)."""
    policy = make(name, pos.game, seed=0, simulations=simulations, **params)
    info = pos.state.info_state(pos.player)

    def run(searches: int, _pick: object) -> int:
        done = 0
        for _ in range(searches):
            policy.act(info)
            done += policy.stats["simulations"]
        return done

    return run


def openspiel_bot_run(bot: pyspiel.Bot, state: pyspiel.State, simulations: int, *keep: object) -> Run:
    """``bot.step`` at ``state`` as a run; ``keep`` holds what the bot must not outlive
    (pyspiel's C++ bots keep a bare pointer to their evaluator)."""

    def run(searches: int, _pick: object) -> int:
        for _ in range(searches):
            bot.step(state.clone())
        _ = keep
        return searches * simulations

    return run


def mcts_rows(pos: Position, simulations: int) -> list[tuple[str, Run, int]]:
    """(label, run, simulations per search) for parlour's and OpenSpiel's tree searches."""
    spiel_game, state = pos.game.spiel, pos.state.spiel
    uct_c = UCT_C * (spiel_game.max_utility() - spiel_game.min_utility())
    if pos.game.info.perfect_information:
        rows = [
            ("parlour mcts, defaults (transpositions)", parlour_tree_search("mcts", pos, simulations)),
            ("parlour mcts, transpositions=False", parlour_tree_search("mcts", pos, simulations, transpositions=False)),
            (f"{REF_PY} mcts.MCTSBot", openspiel_bot_run(
                os_mcts.MCTSBot(spiel_game, uct_c, simulations, os_mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                                solve=False, random_state=np.random.RandomState(0)), state, simulations)),
        ]
        cpp_label, make_cpp = f"{REF_CPP} pyspiel.MCTSBot", lambda ev: pyspiel.MCTSBot(
            spiel_game, ev, uct_c, simulations, 1000, False, 0, False)  # max_memory_mb, solve, seed, verbose
    else:
        rows = [
            ("parlour ismcts", parlour_tree_search("ismcts", pos, simulations)),
            (f"{REF_PY} ismcts.ISMCTSBot", openspiel_bot_run(
                os_ismcts.ISMCTSBot(spiel_game, os_mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), uct_c,
                                    simulations, random_state=np.random.RandomState(0)), state, simulations)),
        ]
        cpp_label, make_cpp = f"{REF_CPP} pyspiel.ISMCTSBot", lambda ev: pyspiel.ISMCTSBot(0, ev, uct_c, simulations)
    if is_cpp(spiel_game):
        evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
        rows.append((cpp_label, openspiel_bot_run(make_cpp(evaluator), state, simulations, evaluator)))
    return [(label, run, simulations) for label, run in rows]


def mcts_positions() -> list[Position]:
    """The starts of tic-tac-toe and Connect Four; Leduc poker after the deal."""
    return [position(name, [], 0, name) for name in ("tic_tac_toe", "connect_four", "leduc_poker")]


# --- measuring and printing -------------------------------------------------------------


def searches_per_run(run: Run, seconds: float) -> int:
    """How many searches fill about ``seconds`` (one search timed, which also warms up)."""
    start = time.perf_counter()
    run(1, None)
    return max(1, round(seconds / max(time.perf_counter() - start, 1e-9)))


def measure(rows: list[tuple[str, Run, int]], runs: int, seconds: float) -> list[tuple[str, int, float, float, float]]:
    """(label, work per search, ms per search, work/s, spread) per row, interleaved."""
    sized = [(label, run, searches_per_run(run, seconds)) for label, run, _ in rows]
    results = measure_all(sized, runs)
    return [(label, work, 1000 / results[label][0], results[label][1], results[label][2]) for label, _, work in rows]


def print_alphabeta(runs: int, seconds: float, quick: bool) -> None:
    header(["position", "depth", "contender", "nodes/search", "ms/search", "nodes/s", "max/min", "parlour / OpenSpiel Python"])
    for pos in alphabeta_positions(quick):
        measured = measure(alphabeta_rows(pos), runs, seconds)
        ref = next(rate for label, _, _, rate, _ in measured if label.startswith(REF_PY))
        for label, nodes, ms, rate, spread in measured:
            shown = None if label.startswith("REF") else ref
            row(pos.label, pos.depth, label, f"{nodes:,}", f"{ms:.1f}", f"{rate:,.0f}", f"{spread:.2f}", ratio(rate, shown))
    print("\nOpenSpiel's C++ alpha-beta (open_spiel::algorithms::AlphaBetaSearch) has no Python binding "
          f"in open_spiel {importlib.metadata.version('open_spiel')}: no C++ row.")


def print_mcts(runs: int, seconds: float, simulations: int) -> None:
    print()
    header(["game", "contender", "simulations/search", "ms/search", "simulations/s", "max/min",
            "parlour / OpenSpiel Python", "parlour / OpenSpiel C++"], numeric_from=2)
    for pos in mcts_positions():
        measured = measure(mcts_rows(pos, simulations), runs, seconds)
        refs = {prefix: next((rate for label, _, _, rate, _ in measured if label.startswith(prefix)), None)
                for prefix in (REF_PY, REF_CPP)}
        for label, sims, ms, rate, spread in measured:
            cells = ["", ""] if label.startswith("REF") else [ratio(rate, refs[REF_PY]), ratio(rate, refs[REF_CPP])]
            row(pos.label, label, f"{sims:,}", f"{ms:.1f}", f"{rate:,.0f}", f"{spread:.2f}", *cells)


def main(argv: list[str] | None = None) -> None:
    args_parser = parser(__doc__, runs=5, runs_help="interleaved timed runs per contender (median reported)",
                         quick_help="a smoke run: shallower, fewer simulations, short runs")
    args_parser.add_argument("--seconds", type=float, default=0.3, help="about how long one run of one contender lasts")
    args_parser.add_argument("--simulations", type=int, default=1000, help="MCTS simulations per search")
    args = args_parser.parse_args(argv)
    runs, seconds, simulations = quick_or(args.quick, (1, 0.01, 50), (args.runs, args.seconds, args.simulations))
    load = "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    print(f"parlour {parlour.__version__}, open_spiel {importlib.metadata.version('open_spiel')}, "
          f"median of {runs} interleaved runs of about {seconds} s; load average (1, 5, 15 min) at the start: {load}\n")
    print_alphabeta(runs, seconds, args.quick)
    print_mcts(runs, seconds, simulations)
    print("\nload average (1, 5, 15 min) at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
