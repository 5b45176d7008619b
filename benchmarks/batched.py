"""Batched engines (parlour.vector, issue 15) against the single-game PettingZoo envs.

- Goofspiel-13 (descending prizes, discard ties, as in benchmarks/playouts.py): joint
  steps/s of ``GoofspielBatch`` at B = 1, 16, 1024, 8192, every step with the full
  observations of both seats and both masks, against ``goofspiel_v0.parallel_env()``
  (which also builds every observation and mask);
- pick-up sticks (10 sticks, take 1..3, misère): ``SticksBatch`` at B = 1024 against
  the AEC ``sticks_v0.env()``, steps/s (one move each);
- Double Card (default options): ``DoubleCardBatch`` at B = 1, 64, 1024 against the AEC
  ``double_card_v0.env()``, steps/s (one step each: a placement, or either sub-step of a
  recycling move), every batched step with both seats' observations and masks.

Both sides choose uniformly among the legal actions (the envs with benchmarks/playouts.py's
``Uniform``, the engines with ``random_actions``, one vectorised draw per step), so the
figures include the policy's cost.  The contenders are interleaved in one process and each
figure is the median of ``--runs`` timed runs of about ``--seconds`` each; the ratios are
of those medians.  Targets (issue 15): >= 100x ``parallel_env()`` at B = 1024 for
Goofspiel, >= 30x the AEC env for sticks and for Double Card.

    python benchmarks/batched.py            # markdown table on stdout
    python benchmarks/batched.py --quick    # a smoke run
    python benchmarks/batched.py --games double_card --runs 3    # one section
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np

import parlour
from parlour.envs import double_card_v0, goofspiel_v0, sticks_v0
from parlour.vector import DoubleCardBatch, GoofspielBatch, SticksBatch
from playouts import Uniform, aec_playouts, parallel_playouts  # the same drivers as benchmarks/playouts.py

G13 = dict(num_cards=13, prize_order="descending", tie_rule="discard")


def env_rate(run: Callable[[int, Uniform], int], seconds: float, seed: int) -> float:
    """Steps/s of a single-game env loop: whole games until ``seconds`` have passed."""
    pick = Uniform(seed)
    steps, games = 0, 1
    start = time.perf_counter()
    while True:
        steps += run(games, pick)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed
        games = min(games * 2, 64)


def batched_rate(engine, seconds: float) -> float:
    """Joint steps/s of a batched engine: a batch step (B games), then every
    observation and mask, until ``seconds`` have passed."""
    steps = 0
    start = time.perf_counter()
    while True:
        for _ in range(10):
            engine.step(engine.random_actions())
            engine.observations()
            engine.legal_masks()
        steps += 10 * engine.num_envs
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed


GAMES = ("goofspiel", "sticks", "double_card")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per contender (median reported)")
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one timed run")
    parser.add_argument("--quick", action="store_true", help="two short runs, to check the script works")
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES), help="the sections to run (default: all)")
    args = parser.parse_args()
    runs, seconds = (2, 0.2) if args.quick else (args.runs, args.seconds)
    games = set(args.games)
    goof = {b: GoofspielBatch(b, seed=0, **G13) for b in (1, 16, 1024, 8192)} if "goofspiel" in games else {}
    sticks = {1024: SticksBatch(1024, seed=0)} if "sticks" in games else {}
    dc = {b: DoubleCardBatch(b, seed=0) for b in (1, 64, 1024)} if "double_card" in games else {}
    rows: dict[str, list[float]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        penv, aenv, denv = goofspiel_v0.parallel_env(**G13), sticks_v0.env(), double_card_v0.env()
        for engine in [*goof.values(), *sticks.values(), *dc.values()]:  # warm-up
            batched_rate(engine, 0.05)
        for r in range(runs):  # interleaved: every contender once per run
            if goof:
                rows.setdefault("goofspiel-13 parallel_env()", []).append(env_rate(lambda n, p: parallel_playouts(penv, n, p), seconds, r))
                for b, engine in goof.items():
                    rows.setdefault(f"goofspiel-13 GoofspielBatch B={b}", []).append(batched_rate(engine, seconds))
            if sticks:
                rows.setdefault("sticks-10 AEC env()", []).append(env_rate(lambda n, p: aec_playouts(aenv, n, p), seconds, r))
                rows.setdefault("sticks-10 SticksBatch B=1024", []).append(batched_rate(sticks[1024], seconds))
            if dc:
                rows.setdefault("double_card AEC env()", []).append(env_rate(lambda n, p: aec_playouts(denv, n, p), seconds, r))
                for b, engine in dc.items():
                    rows.setdefault(f"double_card DoubleCardBatch B={b}", []).append(batched_rate(engine, seconds))
    median = {label: statistics.median(values) for label, values in rows.items()}
    print(f"parlour {parlour.__version__}, numpy {np.__version__}, median of {runs} runs of {seconds:g} s, interleaved\n")
    print("| contender | steps/s | x single-game env |")
    print("|---|---:|---:|")
    bases = {"goofspiel": "goofspiel-13 parallel_env()", "sticks": "sticks-10 AEC env()", "double_card": "double_card AEC env()"}
    for label, value in median.items():
        base = median[bases[next(g for g in GAMES if label.startswith(g))]]
        print(f"| {label} | {value:,.0f} | {value / base:.1f}x |")
    print()
    if goof:
        g = median["goofspiel-13 GoofspielBatch B=1024"] / median["goofspiel-13 parallel_env()"]
        print(f"- goofspiel-13, B=1024 / parallel_env(): {g:.1f}x joint steps/s (target >= 100)")
    if sticks:
        s = median["sticks-10 SticksBatch B=1024"] / median["sticks-10 AEC env()"]
        print(f"- sticks-10, B=1024 / AEC env(): {s:.1f}x steps/s (target >= 30)")
    if dc:
        d = median["double_card DoubleCardBatch B=1024"] / median["double_card AEC env()"]
        print(f"- double_card, B=1024 / AEC env(): {d:.1f}x steps/s (target >= 30)")


if __name__ == "__main__":
    main()
