"""Batched engines (parlour.vector, issue 15) against the single-game PettingZoo envs.

- Goofspiel-13 (descending prizes, discard ties, as in benchmarks/playouts.py): joint
  steps/s of ``GoofspielBatch`` at B = 1, 16, 1024, 8192, every step with the full
  observations of both seats and both masks, against ``goofspiel_v0.parallel_env()``
  (which also builds every observation and mask);
- pick-up sticks (10 sticks, take 1..3, misère): ``SticksBatch`` at B = 1024 against
  the AEC ``sticks_v0.env()``, steps/s (one move each);
- Tribolo (default 16 x 11 board): ``TriboloBatch`` at B = 1, 64, 1024 against the AEC
  ``tribolo_v0.env()``, steps/s (one move each).  A turn-based AEC step yields one
  observation and one mask (the agent to act's, from ``env.last()``), so each batched
  step here is followed by the movers' observation and mask (``observation(movers)``,
  ``legal_mask(movers)``), not all three seats'.

Both sides choose uniformly among the legal actions (the envs with benchmarks/playouts.py's
``Uniform``, the engines with ``random_actions``, one vectorised draw per step), so the
figures include the policy's cost.  The contenders are interleaved in one process and each
figure is the median of ``--runs`` timed runs of about ``--seconds`` each; the ratios are
of those medians.  Targets (issue 15): >= 100x ``parallel_env()`` at B = 1024 for
Goofspiel, >= 30x the AEC env for sticks and for Tribolo.

    python benchmarks/batched.py            # markdown table on stdout
    python benchmarks/batched.py --quick    # a smoke run
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np

import parlour
from parlour.envs import goofspiel_v0, sticks_v0, tribolo_v0
from parlour.vector import GoofspielBatch, SticksBatch, TriboloBatch
from playouts import Uniform, aec_playouts, parallel_playouts  # the same drivers as benchmarks/playouts.py

G13 = dict(num_cards=13, prize_order="descending", tie_rule="discard")
REFERENCE = {"goofspiel-13": "goofspiel-13 parallel_env()", "sticks-10": "sticks-10 AEC env()", "tribolo-16x11": "tribolo-16x11 AEC env()"}
"""The single-game env each contender is compared with (by the label's first word)."""


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


def turn_rate(engine, seconds: float) -> float:
    """Steps/s of a turn-based batched engine: a batch step (B moves), then the movers'
    observation and mask (what an AEC step gives), until ``seconds`` have passed."""
    steps = 0
    start = time.perf_counter()
    while True:
        for _ in range(10):
            engine.step(engine.random_actions())
            movers = engine.movers().clip(0)
            engine.observation(movers)
            engine.legal_mask(movers)
        steps += 10 * engine.num_envs
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per contender (median reported)")
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one timed run")
    parser.add_argument("--quick", action="store_true", help="two short runs, to check the script works")
    args = parser.parse_args()
    runs, seconds = (2, 0.2) if args.quick else (args.runs, args.seconds)
    sizes = (1, 16, 1024, 8192)
    goof = {b: GoofspielBatch(b, seed=0, **G13) for b in sizes}
    sticks = SticksBatch(1024, seed=0)
    tribolo = {b: TriboloBatch(b, seed=0) for b in (1, 64, 1024)}
    rows: dict[str, list[float]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        penv, aenv, tenv = goofspiel_v0.parallel_env(**G13), sticks_v0.env(), tribolo_v0.env()
        for engine in [*goof.values(), sticks]:  # warm-up
            batched_rate(engine, 0.05)
        for engine in tribolo.values():
            turn_rate(engine, 0.05)
        for r in range(runs):  # interleaved: every contender once per run
            rows.setdefault("goofspiel-13 parallel_env()", []).append(env_rate(lambda n, p: parallel_playouts(penv, n, p), seconds, r))
            for b, engine in goof.items():
                rows.setdefault(f"goofspiel-13 GoofspielBatch B={b}", []).append(batched_rate(engine, seconds))
            rows.setdefault("sticks-10 AEC env()", []).append(env_rate(lambda n, p: aec_playouts(aenv, n, p), seconds, r))
            rows.setdefault("sticks-10 SticksBatch B=1024", []).append(batched_rate(sticks, seconds))
            rows.setdefault("tribolo-16x11 AEC env()", []).append(env_rate(lambda n, p: aec_playouts(tenv, n, p), seconds, r))
            for b, engine in tribolo.items():
                rows.setdefault(f"tribolo-16x11 TriboloBatch B={b}", []).append(turn_rate(engine, seconds))
    median = {label: statistics.median(values) for label, values in rows.items()}
    print(f"parlour {parlour.__version__}, numpy {np.__version__}, median of {runs} runs of {seconds:g} s, interleaved\n")
    print("| contender | steps/s | x single-game env |")
    print("|---|---:|---:|")
    for label, value in median.items():
        base = median[REFERENCE[label.split(" ")[0]]]
        print(f"| {label} | {value:,.0f} | {value / base:.1f}x |")
    print()
    g = median["goofspiel-13 GoofspielBatch B=1024"] / median["goofspiel-13 parallel_env()"]
    s = median["sticks-10 SticksBatch B=1024"] / median["sticks-10 AEC env()"]
    print(f"- goofspiel-13, B=1024 / parallel_env(): {g:.1f}x joint steps/s (target >= 100)")
    print(f"- sticks-10, B=1024 / AEC env(): {s:.1f}x steps/s (target >= 30)")
    t = median["tribolo-16x11 TriboloBatch B=1024"] / median["tribolo-16x11 AEC env()"]
    print(f"- tribolo-16x11, B=1024 / AEC env(): {t:.1f}x steps/s (target >= 30)")


if __name__ == "__main__":
    main()
