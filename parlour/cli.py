"""The ``parlour`` command: ``parlour --version``, ``parlour list``, ``parlour demo``."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import numpy as np

import parlour
from parlour.envs.registration import env_id
from parlour.games import GAMES


def _list(_args: argparse.Namespace) -> int:
    for name, cls in GAMES.items():
        kind = "simultaneous (AEC + Parallel)" if cls.simultaneous else "turn-based (AEC)"
        print(f"{name}: {env_id(name)}, {kind}")
        print(f"  {(cls.__module__ and sys.modules[cls.__module__].__doc__ or '').strip().splitlines()[0]}")
        for option, spec in cls.options.items():
            print(f"  {option}={spec.default!r}: {spec.help}")
        for option, text in cls.start_options.items():
            print(f"  reset option {option!r}: {text}")
        print()
    return 0


def _demo(args: argparse.Namespace) -> int:
    """Random games of every game through the AEC env; a summary line per game."""
    from importlib import import_module

    rng = np.random.default_rng(args.seed)
    print(f"parlour {parlour.__version__}: {args.games} random games of each game (seed {args.seed})\n")
    print(f"{'game':<12} {'games':>6} {'moves/game':>11} {'player_0 win':>13} {'player_1 win':>13} {'draw':>6} {'games/s':>9}")
    for name in GAMES:
        module = import_module(f"parlour.envs.{name}_v0")
        env = module.env()
        wins = np.zeros(len(env.possible_agents))
        draws = steps = 0
        start = time.perf_counter()
        for g in range(args.games):
            env.reset(seed=args.seed + g)
            final = {}
            for agent in env.agent_iter():
                obs, reward, term, trunc, _ = env.last()
                if term or trunc:
                    final[agent] = reward
                    env.step(None)
                    continue
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                steps += 1
            best = max(final.values())
            leaders = [a for a, r in final.items() if r == best]
            if len(leaders) == len(final):
                draws += 1
            else:
                for agent in leaders:
                    wins[env.possible_agents.index(agent)] += 1 / len(leaders)
        rate = args.games / (time.perf_counter() - start)
        print(
            f"{name:<12} {args.games:>6} {steps / args.games:>11.1f} {wins[0] / args.games:>13.1%} "
            f"{wins[1] / args.games:>13.1%} {draws / args.games:>6.1%} {rate:>9.0f}"
        )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="parlour", description=parlour.__doc__.strip().splitlines()[0])
    parser.add_argument("--version", action="version", version=f"parlour {parlour.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("list", help="the games, their env ids and options").set_defaults(run=_list)
    demo = sub.add_parser("demo", help="play random games of every game and print a summary")
    demo.add_argument("--games", type=int, default=200, help="games per game (default 200)")
    demo.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    demo.set_defaults(run=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    if getattr(args, "games", 1) < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
