"""``parlour list``, ``parlour demo`` and ``parlour policies``: what parlour has."""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

import parlour
from parlour.cli.common import GAME_ARG, OPTION_HELP, make_game, parse_options
from parlour.errors import UsageError
from parlour.games import GAMES, OPENSPIEL_PREFIX
from parlour.registration import env_id


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    sub.add_parser("list", help="the games, their env ids and options", parents=[common]).set_defaults(run=run_list)
    demo = sub.add_parser("demo", help="play random games of every game and print a summary", parents=[common])
    demo.add_argument("--games", type=int, default=200, help="games per game (default 200)")
    demo.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    demo.set_defaults(run=run_demo)
    policies = sub.add_parser("policies", help="the baseline policies and their parameters", parents=[common])
    policies.add_argument("--game", **GAME_ARG, help="only those that can play this game")
    policies.add_argument("--option", action="append", metavar="KEY=VALUE", help=OPTION_HELP)
    policies.set_defaults(run=run_policies)


def run_list(_args: argparse.Namespace) -> int:
    for name, cls in GAMES.items():
        kind = "simultaneous (AEC + Parallel)" if cls.simultaneous else "turn-based (AEC)"
        print(f"{name}: {env_id(name)}, {kind}")
        print(f"  {cls.summary}")
        for option, spec in cls.options.items():
            print(f"  {option}={spec.default!r}: {spec.help} [{spec.allowed_text()}]")
        for option, text in cls.start_options.items():
            print(f"  reset option {option!r}: {text}")
        print()
    print(f"{OPENSPIEL_PREFIX}NAME: {env_id('openspiel')} (option game=NAME), any OpenSpiel game, e.g. {OPENSPIEL_PREFIX}connect_four")
    print("  needs open_spiel (the openspiel extra); see docs/integrations.md")
    return 0


def run_demo(args: argparse.Namespace) -> int:
    """Random games of every game through the AEC env; a summary line per game."""
    from importlib import import_module

    if args.seed < 0:
        raise UsageError(f"--seed must be a non-negative integer, got {args.seed}")
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


def run_policies(args: argparse.Namespace) -> int:
    from parlour.baselines import describe

    if args.game is None:
        if args.option:
            raise UsageError("--option needs --game")
        print(describe())
        return 0
    game = make_game(args.game, parse_options(args.option))
    print(f"policies that can play {game!r}:\n")
    print(describe(game=game))
    return 0
