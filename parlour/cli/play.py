"""``parlour play``: a game in the terminal against a policy (``parlour.terminal``)."""

from __future__ import annotations

import argparse
from typing import Any

from parlour.cli.common import (
    OPTION_HELP,
    check_spec,
    game_name,
    make_game,
    parse_options,
)
from parlour.errors import UsageError
from parlour.games import GAMES, OPENSPIEL_PREFIX


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    games = sorted(GAMES)
    play = sub.add_parser("play", help="play a game in the terminal against a policy", parents=[common])
    play.add_argument("game", type=game_name, metavar="GAME",
                      help=f"one of {', '.join(games)}, or {OPENSPIEL_PREFIX}NAME (an OpenSpiel game)")
    play.add_argument("--opponent", default="random", metavar="SPEC", help="policy spec for every other seat (default random)")
    play.add_argument("--seat", type=int, default=0, help="your seat, from 0 (default 0)")
    play.add_argument("--option", action="append", metavar="KEY=VALUE", help=OPTION_HELP)
    play.add_argument("--seed", type=int, default=None, help="seed for the deal and the opponents (default: fresh, printed)")
    play.set_defaults(run=run_play)


def run_play(args: argparse.Namespace) -> int:
    from parlour.terminal import play

    game = make_game(args.game, parse_options(args.option))
    check_spec(args.opponent, game)
    if not 0 <= args.seat < game.num_players:
        raise UsageError(f"--seat must be 0..{game.num_players - 1} for {game.name}, got {args.seat}")
    if args.seed is not None and not 0 <= args.seed < 2**63:
        raise UsageError(f"--seed must be an integer from 0 to 2**63 - 1, got {args.seed}")
    return play(game, args.opponent, seat=args.seat, seed=args.seed)
