"""``parlour arena``: play agents against each other and print their ratings."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from typing import Any

from parlour.cli.common import (
    GAME_ARG,
    OPTION_HELP,
    check_out,
    check_spec,
    make_game,
    parse_options,
)
from parlour.errors import Failure, UsageError


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    arena = sub.add_parser(
        "arena",
        help="play policies against each other and print ratings (no arguments: a default arena)",
        description="Play every group of agents against each other with seat rotation; print ratings and "
        "pairwise results (see parlour.evaluation.arena for the schedule and seeds).",
        epilog="agent specs: name or name:key=value,... (e.g. mcts:simulations=400); `parlour policies --game GAME` lists them",
        parents=[common],
    )
    arena.add_argument("--game", **GAME_ARG, help="the game (default: the default arena's)")
    arena.add_argument("--agents", nargs="+", metavar="SPEC", help="two or more agent specs")
    arena.add_argument("--option", action="append", metavar="KEY=VALUE", help=OPTION_HELP)
    arena.add_argument("--games", type=int, default=200,
                       help="games per pairing of agents, rounded up so every agent plays every seat equally often (default 200)")
    arena.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    arena.add_argument("--workers", type=int, default=1, help="worker processes (default 1; the results do not depend on it)")
    arena.add_argument("--opening", type=int, default=0,
                       help="plies played at random (from each game's seed) before the agents take over, so that "
                            "deterministic searchers do not replay one game (default 0)")
    arena.add_argument("--backend", choices=["local", "ray"], default="local",
                       help="local worker processes (default) or Ray tasks over a cluster's CPUs (the same tables; needs the rllib extra)")
    arena.add_argument("--address", metavar="HOST:PORT",
                       help="with --backend ray: the Ray cluster to join (default: RAY_ADDRESS, else a local Ray on 127.0.0.1)")
    arena.add_argument("--out", metavar="DIR", help="also write arena.md, arena.json, CSVs and a PNG heatmap into DIR")
    arena.add_argument("--force", action="store_true", help="overwrite result files that already exist in --out")
    arena.add_argument("--no-plot", action="store_true", help="do not draw the PNG heatmap")
    arena.add_argument("--quiet", action="store_true", help="no progress bar")
    arena.set_defaults(run=run_arena)


DEFAULT_ARENA: dict[str, Any] = {
    "game": "goofspiel",
    "options": {"num_cards": 6},
    "agents": ["random", "rudimentary", "original-search", "mcts:simulations=200", "equilibrium"],
}
"""What ``parlour arena`` plays without arguments (the README's command without extras):
Goofspiel with six cards (random prize order, carried ties, win/loss), the two players
of "Making the Tree Search" (``rudimentary``, ``original-search``), MCTS and the exact
equilibrium player against random; a minute or two on two cores."""


def run_arena(args: argparse.Namespace) -> int:
    from parlour.evaluation.arena import GameFailed, play_match
    from parlour.evaluation.report import (
        check_writable,
        summarize,
        timing_text,
        to_markdown,
        write_report,
    )

    if args.game is None and args.agents is None:
        if args.option:
            raise UsageError("--option needs --game (and --agents)")
        name, options, agents = DEFAULT_ARENA["game"], dict(DEFAULT_ARENA["options"]), list(DEFAULT_ARENA["agents"])
        print(f"no --game/--agents given: the default arena ({name}, agents {' '.join(agents)})", file=sys.stderr)
    elif args.game is None or args.agents is None:
        if args.game is not None:
            make_game(args.game, parse_options(args.option))  # a bad option is the first thing to say
        raise UsageError("give both --game and --agents (or neither, for the default arena)")
    else:
        name, options, agents = args.game, parse_options(args.option), args.agents
    game = make_game(name, options)
    if len(agents) < 2:
        raise UsageError(f"--agents needs at least 2 agents, got {len(agents)}")
    if len(agents) < game.num_players:
        raise UsageError(f"{game.name} has {game.num_players} seats: give at least {game.num_players} agents, got {len(agents)}")
    for spec in agents:
        check_spec(spec, game)
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    if args.seed < 0:
        raise UsageError(f"--seed must be a non-negative integer, got {args.seed}")
    if args.opening < 0:
        raise UsageError(f"--opening must be at least 0, got {args.opening}")
    plot = not args.no_plot
    if args.out is not None:
        check_out(args.out)
        if plot and importlib.util.find_spec("matplotlib") is None:
            print("note: matplotlib is not installed, so no PNG heatmap is drawn (pip install 'parlour[plot]')", file=sys.stderr)
            plot = False
        try:
            check_writable(args.out, plot, args.force)  # before the games, not after
        except FileExistsError as error:
            raise UsageError(str(error)) from None
    try:
        result = play_match(game, agents, args.games, args.seed, workers=args.workers, progress=not args.quiet,
                            backend=args.backend, address=args.address or "", opening=args.opening)
    except GameFailed as error:
        raise Failure(str(error)) from error
    summary = summarize(result)
    print(to_markdown(summary))
    print()
    print(timing_text(summary))
    if args.out is not None:
        try:
            written = write_report(result, summary, args.out, force=args.force, plot=plot)
        except FileExistsError as error:
            raise UsageError(str(error)) from None
        print(f"wrote {', '.join(str(path) for path in written.values())}")
    return 0
