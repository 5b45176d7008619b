"""Batched engines (parlour.vector, issue 15) against the single-game PettingZoo envs.

- Goofspiel-13 (descending prizes, discard ties, as in benchmarks/rules_speed.py): joint
  steps/s of ``GoofspielBatch`` at B = 1, 16, 1024, 8192, every step with the full
  observations of both seats and both masks, against ``goofspiel_v0.parallel_env()``
  (which also builds every observation and mask);
- pick-up sticks (10 sticks, take 1..3, misère): ``SticksBatch`` at B = 1024 against
  the AEC ``sticks_v0.env()``, steps/s (one move each);
- Tides of Time (the full three-round game, 19 joint steps: picks, relics, discards):
  joint steps/s of ``TidesOfTimeBatch`` at B = 1, 64, 1024, with both seats'
  observations and masks every step, against ``tides_of_time_v0.parallel_env()``;
- Tribolo (default 16 x 11 board): ``TriboloBatch`` at B = 1, 64, 1024 against the AEC
  ``tribolo_v0.env()``, steps/s (one move each).  A turn-based AEC step yields one
  observation and one mask (the agent to act's, from ``env.last()``), so each batched
  step of a turn-based game is followed by the movers' observation and mask
  (``observation(movers)``, ``legal_mask(movers)``), not every seat's;
- Double Card (default options): ``DoubleCardBatch`` at B = 1, 64, 1024 against the AEC
  ``double_card_v0.env()``, steps/s (a placement, or either sub-step of a recycling
  move), turn-based like Tribolo.

Goofspiel and Tribolo also run at B = 1024 with compact observations (``compact=True``:
uint8 codes that ``decode`` turns into exactly the float32 ones; the learner views
decode once per batch, which this env-only loop does not).

Goofspiel-13 at B = 8192 is also compared with pgx's ``connect_four`` at B = 8192 (JAX
on this CPU, jitted and vmapped, observations included; needs pgx from the ``bench``
extra), the yardstick issue 15 names.

Both sides choose uniformly among the legal actions (the envs with benchmarks/random_play.py's
``Uniform``, the engines with ``random_actions``, one vectorised draw per step), so the
figures include the policy's cost.  The contenders are interleaved in one process and each
figure is the median of ``--runs`` timed runs of about ``--seconds`` each; the ratios are
of those medians.  Targets (issue 15): >= 100x ``parallel_env()`` at B = 1024 for
Goofspiel, >= 30x the single-game env at B = 1024 for every other game.  Sticks and the
two board games, turn-based, are driven like Tribolo (the movers' observation and mask).

    python -m benchmarks.batched                  # markdown table on stdout
    python -m benchmarks.batched --quick          # a smoke run
    python -m benchmarks.batched --games tides    # some sections (goofspiel, sticks, tides, tribolo, double_card)
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import parlour
from benchmarks.driver import header, medians, parser, quick_or, row, spread
from benchmarks.random_play import Uniform, aec_playouts, parallel_playouts
from parlour.envs import double_card_v0, goofspiel_v0, sticks_v0, tides_of_time_v0, tribolo_v0
from parlour.games.double_card import DoubleCardBatch
from parlour.games.goofspiel import GoofspielBatch
from parlour.games.sticks import SticksBatch
from parlour.games.tides_of_time import TidesOfTimeBatch
from parlour.games.tribolo import TriboloBatch

G13 = dict(num_cards=13, prize_order="descending", tie_rule="discard")
PGX = "REF pgx connect_four B=8192 (JAX, CPU)"
COMPACT_B = "1024 compact"
"""The size key of an engine at B = 1024 with compact (uint8) observations."""
TARGETS = {"goofspiel": 100}
"""The B = 1024 ratio each section aims at (30 where not listed)."""


def sections() -> dict[str, tuple[str, Callable[[], Any], Callable[[int], Any], tuple[int, ...], str]]:
    """Section -> (reference label, its env, an engine of B games, the sizes B, the driver)."""
    return {
        "goofspiel": ("goofspiel-13 parallel_env()", lambda: goofspiel_v0.parallel_env(**G13),
                      lambda b, compact=False: GoofspielBatch(b, seed=0, compact=compact, **G13), (1, 16, 1024, 8192, COMPACT_B),
                      "parallel"),
        "sticks": ("sticks-10 AEC env()", sticks_v0.env, lambda b: SticksBatch(b, seed=0), (1024,), "aec"),
        "tides": ("tides_of_time parallel_env()", tides_of_time_v0.parallel_env,
                  lambda b: TidesOfTimeBatch(b, seed=0), (1, 64, 1024), "parallel"),
        "tribolo": ("tribolo-16x11 AEC env()", tribolo_v0.env, lambda b, compact=False: TriboloBatch(b, seed=0, compact=compact),
                    (1, 64, 1024, COMPACT_B), "aec"),
        "double_card": ("double_card AEC env()", double_card_v0.env, lambda b: DoubleCardBatch(b, seed=0), (1, 64, 1024),
                        "aec"),
    }


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


def pgx_connect_four(batch: int) -> Callable[[float], float] | None:
    """pgx's ``connect_four`` (JAX, on this CPU) at ``batch`` games: steps/s of a jitted
    vmapped step with pgx's auto-reset and a random legal action per game (drawn in JAX),
    the state's observation included; ``None`` when pgx is not installed (the ``bench`` extra)."""
    try:
        import jax
        import jax.numpy as jnp
        import pgx
        from pgx.experimental import auto_reset
    except ImportError:
        return None
    env = pgx.make("connect_four")
    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))

    @jax.jit
    def act(state, key):
        return jax.random.categorical(key, jnp.where(state.legal_action_mask, 0.0, -jnp.inf), axis=-1)

    box = {"state": jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), batch)), "key": jax.random.PRNGKey(1)}

    def rate(seconds: float) -> float:
        steps, start = 0, time.perf_counter()
        while True:
            for _ in range(10):
                box["key"], k1, k2 = jax.random.split(box["key"], 3)
                box["state"] = step(box["state"], act(box["state"], k1), jax.random.split(k2, batch))
            box["state"].observation.block_until_ready()
            steps += 10 * batch
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return steps / elapsed

    return rate


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


def main(argv: list[str] | None = None) -> None:
    table = sections()
    args_parser = parser(__doc__, runs=5, runs_help="timed runs per contender (median reported)")
    args_parser.add_argument("--seconds", type=float, default=1.0, help="length of one timed run")
    args_parser.add_argument("--games", nargs="+", choices=sorted(table), default=list(table), help="the sections to run (default: all)")
    args = args_parser.parse_args(argv)
    runs, seconds = quick_or(args.quick, (1, 0.01), (args.runs, args.seconds))
    chosen = {name: table[name] for name in args.games}
    rows: dict[str, list[float]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        setups = []
        for name, (label, make_env, make_engine, sizes, driver) in chosen.items():
            env = make_env()
            play = parallel_playouts if driver == "parallel" else aec_playouts
            rate = batched_rate if driver == "parallel" else turn_rate
            engines = {b: make_engine(1024, compact=True) if b == COMPACT_B else make_engine(b) for b in sizes}
            for engine in engines.values():
                rate(engine, quick_or(args.quick, 0.0, 0.05))  # warm-up
            setups.append((name, label, env, play, rate, engines))
        pgx_rate = pgx_connect_four(8192) if "goofspiel" in chosen else None
        if pgx_rate is not None:
            pgx_rate(0.2)  # compiles
        for r in range(runs):  # interleaved: every contender once per run
            for name, label, env, play, rate, engines in setups:
                rows.setdefault(label, []).append(env_rate(lambda n, p: play(env, n, p), seconds, r))
                for b, engine in engines.items():
                    rows.setdefault(f"{name} {type(engine).__name__} B={b}", []).append(rate(engine, seconds))
            if pgx_rate is not None:
                rows.setdefault(PGX, []).append(pgx_rate(seconds))
    median = medians(rows)
    steadiness = {label: spread(values) for label, values in rows.items()}
    print(f"parlour {parlour.__version__}, numpy {np.__version__}, median of {runs} runs of {seconds:g} s, interleaved\n")
    header(["contender", "steps/s", "max/min", "x single-game env"])
    for name, label, _env, _play, _rate, engines in setups:
        base = median[label]
        for label_ in [label, *(f"{name} {type(e).__name__} B={b}" for b, e in engines.items())]:
            row(label_, f"{median[label_]:,.0f}", f"{steadiness[label_]:.2f}", f"{median[label_] / base:.1f}x")
    if PGX in median:
        row(PGX, f"{median[PGX]:,.0f}", f"{steadiness[PGX]:.2f}", "")
    print()
    if PGX in median:
        ratio = median["goofspiel GoofspielBatch B=8192"] / median[PGX]
        print(f"- goofspiel, B=8192 / {PGX}: {ratio:.2f}x (target >= 2)")
    for name, label, _env, _play, _rate, engines in setups:
        if 1024 in engines:
            for size in (1024, COMPACT_B):
                if size in engines:
                    ratio = median[f"{name} {type(engines[size]).__name__} B={size}"] / median[label]
                    print(f"- {name}, B={size} / {label}: {ratio:.1f}x (target >= {TARGETS.get(name, 30)})")


if __name__ == "__main__":
    main()
