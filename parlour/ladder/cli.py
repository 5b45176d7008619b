"""``parlour bench``: rate an agent on the ladders, list them, or calibrate one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from parlour.ladder.ladders import LADDERS, data_path, ladder_spec, load_ladder


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    bench = sub.add_parser(
        "bench",
        help="rate an agent on a game's calibrated ladder of baselines (the standard benchmark)",
        description="Play an agent against the fixed ladder of baseline players of a game (protocol "
        "parlour-bench/v1: fixed seeds, every seat equally often, duplicate deals) and print one rating on "
        "the ladder's scale (random = 0) with its 95% interval; write the JSON card. See docs/benchmark.md.",
        epilog="--agent: a player spec (mcts:simulations=400, ppo:runs/x/best.zip, ...), a model file (.zip of SB3 or "
        "sb3-contrib, .pt TorchScript), an RLlib checkpoint directory, or MODULE:FUNCTION / FILE.py:FUNCTION taking "
        "(observation, action_mask). {game} in it is replaced by each game's name.",
        parents=[common],
    )
    which = bench.add_mutually_exclusive_group()
    which.add_argument("--game", choices=sorted(LADDERS), help="the ladder's game")
    which.add_argument("--all-games", action="store_true", help="every game's ladder in turn")
    bench.add_argument("--agent", metavar="SPEC", help="the agent to rate")
    bench.add_argument("--workers", type=int, default=1, help="worker processes (default 1; the card does not depend on it)")
    bench.add_argument("--adaptive", action="store_true", help="stop early once the 95%% interval is within +-TARGET")
    bench.add_argument("--target", type=float, default=50.0, help="half-width in Elo for --adaptive (default 50)")
    bench.add_argument("--out", default="bench", metavar="DIR", help="where the cards go, DIR/GAME.json (default: bench)")
    bench.add_argument("--force", action="store_true", help="replace cards (or, with --calibrate, a calibration) that exist")
    bench.add_argument("--quiet", action="store_true", help="no progress bar")
    bench.add_argument("--ladders", action="store_true", help="print the ladders and their calibrated ratings, then stop")
    bench.add_argument("--calibrate", action="store_true",
                       help="re-run a ladder's calibration round-robin (long) and write it to --calibration-file")
    bench.add_argument("--calibration-file", metavar="FILE",
                       help="with --calibrate: where to write (default: the package's own file, which needs --force)")
    bench.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from parlour.errors import Failure, UsageError
    from parlour.evaluation.arena import GameFailed

    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    games = sorted(LADDERS) if args.all_games else [args.game] if args.game else []
    if args.ladders:
        print(ladders_text(games or sorted(LADDERS)))
        return 0
    if not games:
        raise UsageError("give --game GAME or --all-games")
    if args.calibrate:
        return _calibrate(args, games)
    if not args.agent:
        raise UsageError("give the agent to rate: --agent SPEC")
    if not args.target > 0:
        raise UsageError(f"--target must be a positive number of Elo, got {args.target}")
    from parlour.ladder.run import bench, card_text, write_card

    paths = {game: Path(args.out) / f"{game}.json" for game in games}
    for path in paths.values():
        if path.exists() and not args.force:
            raise UsageError(f"{path} exists; pass --force to replace it, or another --out")
    for game in games:
        try:
            card = bench(game, args.agent, workers=args.workers, adaptive=args.adaptive, target=args.target, progress=not args.quiet)
        except GameFailed as error:
            raise Failure(str(error)) from error
        except ValueError as error:
            raise UsageError(str(error)) from None
        print(card_text(card))
        paths[game].parent.mkdir(parents=True, exist_ok=True)
        write_card(card, paths[game], force=args.force)
        print(f"wrote {paths[game]}\n")
    return 0


def _calibrate(args: argparse.Namespace, games: list[str]) -> int:
    from parlour.errors import UsageError
    from parlour.ladder.calibrate import calibrate_ladder, write_calibration

    if len(games) > 1 and args.calibration_file:
        raise UsageError("--calibration-file names one file: give one --game")
    for game in games:
        target = Path(args.calibration_file) if args.calibration_file else data_path(game)
        if target.exists() and not args.force:
            raise UsageError(f"{target} exists; pass --force to replace it, or --calibration-file")
        record = calibrate_ladder(ladder_spec(game), workers=args.workers, progress=not args.quiet)
        write_calibration(record, target, force=args.force)
        print(ladder_text(game, record))
        print(f"wrote {target}\n", file=sys.stderr)
    return 0


def ladder_text(game: str, record: dict | None = None) -> str:
    """One ladder as a table: rung, rating, 95% interval, ms per move at calibration."""
    if record is None:
        record = load_ladder(game).record
    spec = ladder_spec(game)
    options = ", ".join(f"{k}={v}" for k, v in spec.options.items()) or "default options"
    lines = [f"{spec.version} ({options}; calibrated {record['made']}, {record['games_per_pair']} games per pair"
             f"{' and direction' if spec.make_game().num_players > 2 else ''})"]
    for rung in record["rungs"]:
        lines.append(f"  {rung['rung']:46s} {rung['elo']:+6.0f} [{rung['low']:+.0f}, {rung['high']:+.0f}]  "
                     f"{rung['ms_per_move']:.2f} ms/move")
    return "\n".join(lines)


def ladders_text(games: list[str]) -> str:
    texts = []
    for game in games:
        try:
            texts.append(ladder_text(game))
        except ValueError as error:
            texts.append(f"{game}: {error}")
    return "\n\n".join(texts)

