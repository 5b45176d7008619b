"""Random playouts per second: parlour's rules layer and envs against references.

Every contender is driven the same way from Python: a uniform random choice among
the legal actions, drawn from pre-generated floats of one seeded
``numpy.random.Generator`` so the policy costs the same everywhere.  Each figure is
the median of ``--runs`` timed runs; ratios are against references measured in the
same process (OpenSpiel's C++ ``goofspiel`` through pyspiel with the same prize order
and tie rule as the row it is compared with, PettingZoo's ``connect_four_v3`` and
``tictactoe_v3``, which need ``pip install -e .[bench]``).  The contenders take turns,
run by run, so that load from other jobs falls on all of them alike.

    python -m benchmarks.rules_speed            # full run, markdown table on stdout
    python -m benchmarks.rules_speed --quick    # a smoke run
    python -m benchmarks.rules_speed --only descending   # the rows whose label says so
"""

from __future__ import annotations

import warnings

import parlour
from benchmarks.driver import header, parser, quick_or, row
from benchmarks.random_play import Playouts, aec_playouts, measure_all, parallel_playouts, pyspiel_playouts, rules_playouts
from parlour.envs import goofspiel_v0, sticks_v0
from parlour.games.goofspiel import GoofspielGame
from parlour.games.sticks import SticksGame


def contenders(scale: int) -> list[tuple[str, Playouts, int]]:
    """(label, run(games, pick) -> steps, games per run)."""
    g13 = dict(num_cards=13, prize_order="descending", tie_rule="discard")
    rows: list[tuple[str, Playouts, int]] = [
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


def main(argv: list[str] | None = None) -> None:
    args_parser = parser(__doc__, runs=7, runs_help="timed runs per contender (median reported)")
    args_parser.add_argument("--only", help="run only the contenders whose label contains this text")
    args = args_parser.parse_args(argv)
    runs, scale = quick_or(args.quick, (1, 200), (args.runs, 1))
    rows = [row for row in contenders(scale) if args.only is None or args.only in row[0]]
    print(f"parlour {parlour.__version__}, median of {runs} interleaved runs\n")
    results = measure_all(rows, runs)
    header(["contender", "games/s", "steps/s", "steps/s max/min"])
    for label, _, _ in rows:
        games_s, steps_s, spread = results[label]
        row(label, f"{games_s:,.0f}", f"{steps_s:,.0f}", f"{spread:.2f}")
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
