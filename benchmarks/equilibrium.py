"""Exact equilibrium of Goofspiel: parlour's solver against OpenSpiel's sequence-form LP.

For N = 3..8 cards, with descending and with random prize order (ties discarded,
``point_difference`` returns, public bids, two players), this times
``GoofspielSolver.root_strategies()``: the equilibrium strategies at every first
reveal, which needs the value of every position of the game.  Each time is the median
of several fresh solves when one takes under a second.  The exploitability column is
the NashConv of the solver's strategies over the whole game (0 up to rounding); the
value of the game is 0 by symmetry.

In the same run, OpenSpiel's ``sequence_form_lp.solve_zero_sum_game`` (Koller, Megiddo
and von Stengel 1994, solved by cvxpy/ECOS) solves the same configurations on
``convert_to_turn_based(goofspiel)``.  It is slow and memory hungry (N = 4 with random
order needs about 4.5 GB; N = 5 with random order does not fit in memory), so by
default it runs only where it is known to fit (descending N <= 5, random N <= 4), each
in a child process whose address space is capped (``--memory-gb``, default 6).  It
needs ``pip install cvxpy ecos`` besides ``open_spiel``; without them its columns
say so.

``--largest`` also looks for the largest N solved within ``--budget`` seconds (default
600) for each prize order, going up from N = 9 while the growth of the solve times
predicts that the next N may fit, each attempt in a child process stopped at the
budget.  That takes up to an hour; the normal run takes a few minutes.

    python -m benchmarks.equilibrium                  # markdown table on stdout
    python -m benchmarks.equilibrium --largest        # plus the largest N in 10 minutes
    python -m benchmarks.equilibrium --quick          # a smoke run: N = 3, one solve each
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.driver import parser

ORDERS = ("descending", "random")
# Where OpenSpiel's sequence-form LP is known to fit in a few GB (see the docstring).
OPENSPIEL_MAX_N = {"descending": 5, "random": 4}


# --- child processes: one measurement each, printed as JSON -----------------------------


def _limit_memory(gb: float) -> None:
    limit = int(gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # ru_maxrss is in KiB


def child_parlour(n: int, order: str, min_runs: int, exploitability: bool) -> dict:
    from parlour.baselines.players.goofspiel_solver import GoofspielSolver, goofspiel_exploitability
    from parlour.games.goofspiel import GoofspielGame

    game = GoofspielGame(num_cards=n, prize_order=order, tie_rule="discard", returns="point_difference")
    times = []
    while True:
        solver = GoofspielSolver(game)
        start = time.perf_counter()
        strategies = solver.root_strategies()
        times.append(time.perf_counter() - start)
        if len(times) >= min_runs or sum(times) > 2.0 or times[-1] > 1.0:
            break
    values = [v for v, _, _ in strategies.values()]
    result = {
        "time": statistics.median(times),
        "runs": len(times),
        "value": sum(values) / len(values),
        "positions": len(solver),
        "matrices": solver.matrices,
        "peak_gb": _peak_gb(),
    }
    if exploitability:
        result["exploitability"] = goofspiel_exploitability(solver)
    return result


def child_openspiel(n: int, order: str) -> dict:
    try:
        import pyspiel
        from open_spiel.python.algorithms import sequence_form_lp
    except ImportError as error:
        return {"error": f"not installed ({error.name}; pip install cvxpy ecos)"}
    game = pyspiel.load_game(
        "goofspiel",
        {"num_cards": n, "points_order": order, "returns_type": "point_difference", "imp_info": False},
    )
    game = pyspiel.convert_to_turn_based(game)
    start = time.perf_counter()
    value, _, _, _ = sequence_form_lp.solve_zero_sum_game(game)
    return {"time": time.perf_counter() - start, "value": float(value), "peak_gb": _peak_gb()}


def run_child(job: dict, timeout: float, memory_gb: float) -> dict:
    """Run one measurement in a fresh process with capped memory and time."""
    command = [sys.executable, "-m", __spec__.name, "--child", json.dumps(job), "--memory-gb", str(memory_gb)]
    try:  # from the repository's root, where ``benchmarks`` is
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=Path(__file__).resolve().parents[1])
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:.0f} s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        memory = "MemoryError" in done.stderr or "bad_alloc" in done.stderr
        reason = f"out of memory at the {memory_gb:g} GB cap" if memory else f"failed (exit {done.returncode})"
        tail = done.stderr.strip().splitlines()[-1:] if done.stderr.strip() else []
        return {"error": reason, "detail": tail[0] if tail else ""}
    return json.loads(lines[-1])


# --- the report -----------------------------------------------------------------------------


def seconds(value: float) -> str:
    if value < 0.01:
        return f"{value * 1000:.2f} ms"
    if value < 10:
        return f"{value:.3f} s"
    return f"{value:.1f} s"


def main_table(args: argparse.Namespace) -> list[str]:
    rows = [
        "| N | prize order | parlour solve | runs | positions | matrix games | peak memory | game value | exploitability "
        "| OpenSpiel sequence_form_lp | its value | its peak memory | speed-up |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for order in ORDERS:
        for n in range(3, args.max_n + 1):
            ours = run_child(
                {"kind": "parlour", "n": n, "order": order, "runs": args.runs, "exploitability": args.exploitability},
                args.budget,
                args.memory_gb,
            )
            os_cells = ["-", "-", "-", "-"]
            if args.openspiel and (args.openspiel_all or n <= OPENSPIEL_MAX_N[order]):
                theirs = run_child({"kind": "openspiel", "n": n, "order": order}, args.budget, args.memory_gb)
                if "error" in theirs:
                    os_cells = [theirs["error"], "-", "-", "-"]
                else:
                    speedup = theirs["time"] / ours["time"] if "time" in ours else float("nan")
                    os_cells = [seconds(theirs["time"]), f"{theirs['value']:.1e}", f"{theirs['peak_gb']:.2f} GB", f"{speedup:,.0f}x"]
            elif args.openspiel:
                os_cells = ["not run: size guard (see --openspiel-all)", "-", "-", "-"]
            if "error" in ours:
                cells = [ours["error"], "-", "-", "-", "-", "-", "-"]
            else:
                exploit = f"{ours['exploitability']:.1e}" if "exploitability" in ours else "-"
                cells = [
                    seconds(ours["time"]), str(ours["runs"]), f"{ours['positions']:,}", f"{ours['matrices']:,}",
                    f"{ours['peak_gb']:.2f} GB", f"{ours['value']:.1e}", exploit,
                ]
            rows.append("| " + " | ".join([str(n), order, *cells, *os_cells]) + " |")
            print(rows[-1], file=sys.stderr, flush=True)
    return rows


def largest(args: argparse.Namespace) -> list[str]:
    """Go up in N while the next solve may fit in the budget; report the largest that did."""
    rows = [
        f"| prize order | largest N solved within {args.budget:.0f} s | its solve time | positions | peak memory | next N |",
        "|---|---|---|---|---|---|",
    ]
    for order in ORDERS:
        best, times, n, note = None, [], 8 if order == "descending" else 7, ""
        while True:
            n += 1
            if len(times) >= 2:
                predicted = times[-1] ** 2 / times[-2]
                if predicted > 2 * args.budget:
                    note = f"N = {n} not tried: predicted about {seconds(predicted)}"
                    break
            result = run_child({"kind": "parlour", "n": n, "order": order, "runs": 1, "exploitability": False}, args.budget, args.memory_gb)
            print(f"largest {order} N={n}: {result}", file=sys.stderr, flush=True)
            if "error" in result:
                note = f"N = {n}: {result['error']}"
                break
            best = (n, result)
            times.append(result["time"])
        if best is None:
            rows.append(f"| {order} | none | - | - | - | {note} |")
        else:
            n, result = best
            rows.append(f"| {order} | {n} | {seconds(result['time'])} | {result['positions']:,} | {result['peak_gb']:.2f} GB | {note} |")
    return rows


def main(argv: list[str] | None = None) -> None:
    args_parser = parser(__doc__.split("\n\n")[0], quick_help="a smoke run: N = 3 only, one solve each")
    args_parser.add_argument("--max-n", type=int, default=8, help="largest N of the main table (default 8)")
    args_parser.add_argument("--runs", type=int, default=5, help="solves per configuration when each takes under a second")
    args_parser.add_argument("--no-exploitability", dest="exploitability", action="store_false", help="skip the NashConv check")
    args_parser.add_argument("--no-openspiel", dest="openspiel", action="store_false", help="skip OpenSpiel's sequence-form LP")
    args_parser.add_argument("--openspiel-all", action="store_true", help="try OpenSpiel on every N (under the memory cap)")
    args_parser.add_argument("--largest", action="store_true", help="also find the largest N solved within --budget seconds (slow)")
    args_parser.add_argument("--budget", type=float, default=600.0, help="seconds allowed for one solve (default 600)")
    args_parser.add_argument("--memory-gb", type=float, default=6.0, help="address-space cap of every child process (default 6)")
    args_parser.add_argument("--child", help=argparse.SUPPRESS)
    args = args_parser.parse_args(argv)
    if args.quick:
        args.max_n, args.runs = 3, 1
    if args.child:
        _limit_memory(args.memory_gb)
        job = json.loads(args.child)
        if job["kind"] == "parlour":
            result = child_parlour(job["n"], job["order"], job["runs"], job["exploitability"])
        else:
            result = child_openspiel(job["n"], job["order"])
        print(json.dumps(result))
        return
    start = time.perf_counter()
    lines = [
        "Goofspiel, 2 players, public bids, ties discarded, point_difference returns; "
        "solve = equilibrium strategies at the first reveal (every position solved).",
        "",
        *main_table(args),
    ]
    if args.largest:
        lines += ["", *largest(args)]
    lines += ["", f"(total {time.perf_counter() - start:.0f} s; {os.cpu_count()} CPUs; memory cap {args.memory_gb:g} GB per process)"]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
