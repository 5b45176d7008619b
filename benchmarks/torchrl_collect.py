"""TorchRL collection: the native batched env (``parlour.vector.torchrl_env``, issue 50)
against ``PettingZooWrapper`` over the single-game ``parallel_env()``, in one process.

Both sides run ``env.rollout(N, break_when_any_done=False)`` with no policy: TorchRL
draws random legal actions from the action spec's mask (the wrapper's
``use_mask=True, categorical_actions=True``), restarts finished games itself and stacks
the steps into one tensordict, so each figure includes TorchRL's own cost per step (the
random draw, ``step_mdp``, the final stack).  A figure is joint steps per second (every
game of the batch advancing once is B joint steps), the median of ``--runs`` timed
rollouts, the contenders taking turns within every run; the ratio is of the medians.
Target (issue 50): the native env at B = 256 >= 100x the wrapper, for Goofspiel with
6 cards and for Tides of Time (the full three-round game).

    python -m benchmarks.torchrl_collect                    # markdown table on stdout
    python -m benchmarks.torchrl_collect --quick            # a smoke run
    python -m benchmarks.torchrl_collect --num-envs 1024 --steps 50 --games goofspiel
    python -m benchmarks.torchrl_collect --threads 1      # on a busy machine

torch's intra-op threads: the native env's tensors are large enough for torch to split
its copies and the rollout's final stack over threads, and on a machine whose cores are
busy with other jobs those threads wait for each other (measured on 2 shared cores:
Double Card's rollouts 10x slower with 2 threads than with 1); the wrapper's small
tensors never split.  The table's first line names the threads.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch

from benchmarks.driver import header, interleaved, medians, parser, quick_or, row, spread, timed
from parlour.envs import goofspiel_v0, tides_of_time_v0
from parlour.vector import torchrl_env

GAMES: dict[str, tuple[str, str, Any, dict[str, Any]]] = {
    "goofspiel": ("goofspiel-6", "goofspiel", goofspiel_v0, {"num_cards": 6}),
    "tides": ("tides_of_time", "tides_of_time", tides_of_time_v0, {}),
}
"""Section -> (label, game, its PettingZoo module, the game's options)."""
TARGET = 100


def wrapper(module: Any, options: dict[str, Any]) -> Any:
    """``PettingZooWrapper`` over one ``parallel_env()``, as docs/integrations.md builds it."""
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")  # it names the version it was tested with
        return PettingZooWrapper(module.parallel_env(**options), use_mask=True, categorical_actions=True, seed=0)


def rollout_rate(env: Any, steps: int, games: int) -> Callable[[int], float]:
    """A measure for ``interleaved``: joint steps per second of one random rollout."""
    env.rollout(min(steps, 10), break_when_any_done=False)  # warm up (specs, caches, buffers)

    def measure(run: int) -> float:
        torch.manual_seed(run)
        seconds, _ = timed(lambda: env.rollout(steps, break_when_any_done=False))
        return steps * games / seconds

    return measure


def main(argv: list[str] | None = None) -> None:
    p = parser(__doc__, runs=5)
    p.add_argument("--num-envs", type=int, default=256, help="games in the native env (B)")
    p.add_argument("--steps", type=int, default=100, help="rollout length of the native env (each a step of all B games)")
    p.add_argument("--wrapper-steps", type=int, default=500, help="rollout length of the wrapper (one game)")
    p.add_argument("--threads", type=int, default=0,
                   help="torch's intra-op threads (0: torch's default); on a busy machine 1 is steadier")
    p.add_argument("--games", nargs="+", choices=sorted(GAMES), default=list(GAMES), help="sections to run")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    runs = quick_or(args.quick, 1, args.runs)
    games = quick_or(args.quick, 8, args.num_envs)
    steps, wrapper_steps = quick_or(args.quick, 5, args.steps), quick_or(args.quick, 5, args.wrapper_steps)
    print(f"rollout(N, break_when_any_done=False), random legal actions; median of {runs} runs; torch threads "
          f"{torch.get_num_threads()}\n")
    header(["game", "env", "N", "joint steps/s", "spread", "vs wrapper"], numeric_from=2)
    for section in args.games:
        label, game, module, options = GAMES[section]
        native = f"native torchrl_env B={games}"
        measures = {
            "PettingZooWrapper(parallel_env())": rollout_rate(wrapper(module, options), wrapper_steps, 1),
            native: rollout_rate(torchrl_env(game, games, seed=0, **options), steps, games),
        }
        samples = interleaved(measures, runs)
        rates = medians(samples)
        reference = rates["PettingZooWrapper(parallel_env())"]
        for name, rate in rates.items():
            n = wrapper_steps if name.startswith("Petting") else steps
            row(label, name, n, f"{rate:,.0f}", f"{spread(samples[name]):.2f}", f"{rate / reference:,.1f}x")
    print(f"\ntarget: the native env >= {TARGET}x the wrapper at B = 256 (issue 50)")


if __name__ == "__main__":
    main()
