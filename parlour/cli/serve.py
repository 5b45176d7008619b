"""``parlour serve``: the games in the browser (``parlour.web``), with uvicorn."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from parlour.errors import Failure, UsageError


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    serve = sub.add_parser("serve", help="play the games in the browser (the web extra)", parents=[common],
                           description="Serve the games on a web page: play any game against baselines or trained models "
                           "by clicking, watch policies play, save and load games. Binds 127.0.0.1 unless told otherwise.")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--runs", default="runs", metavar="DIR",
                       help="the only directory trained models are loaded from (default: runs, when it exists)")
    serve.add_argument("--move-seconds", type=float, default=3.0, metavar="S",
                       help="the longest a player may think over one move, searches and hints included (default 3)")
    serve.add_argument("--state", metavar="DIR", help="keep the games in play in DIR, so that they survive a restart")
    serve.add_argument("--token", help="the token every API request must carry (made and printed when --host is not loopback)")
    serve.add_argument("--max-games", type=int, default=500,
                       help="games kept at most; past it, the one left alone longest goes (default 500)")
    serve.add_argument("--idle-minutes", type=float, default=60.0, help="a game nobody asked about for this long is dropped (default 60)")
    serve.add_argument("--workers", type=int, default=2, help="processes in which the players think (default 2)")
    serve.set_defaults(run=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    """``parlour serve``: the web page (parlour.web), with uvicorn."""
    try:
        import uvicorn

        from parlour.web.app import create_app
        from parlour.web.guard import LOOPBACK_HOSTS, is_loopback
    except ImportError as error:
        raise Failure(f"parlour serve needs the web extra: pip install 'parlour[web]' ({error})") from None
    if not 0 < args.port < 65536:
        raise UsageError(f"--port must be 1..65535, got {args.port}")
    if not 0 < args.move_seconds <= 600:
        raise UsageError(f"--move-seconds must be more than 0 and at most 600, got {args.move_seconds}")
    if not 1 <= args.max_games <= 100_000:
        raise UsageError(f"--max-games must be 1..100000, got {args.max_games}")
    if not 0 < args.idle_minutes <= 60 * 24 * 365:
        raise UsageError(f"--idle-minutes must be more than 0 and at most a year, got {args.idle_minutes}")
    if not 1 <= args.workers <= 64:
        raise UsageError(f"--workers must be 1..64, got {args.workers}")
    loopback = is_loopback(args.host)
    token = args.token
    if token is not None and len(token) < 16:
        raise UsageError("--token must be at least 16 characters (or leave it out and one is made for you)")
    if token is None and not loopback:
        import secrets

        token = secrets.token_urlsafe(24)  # beyond this machine, never without a token
    runs = Path(args.runs) if Path(args.runs).is_dir() else None
    app = create_app(runs, args.max_games, idle_seconds=args.idle_minutes * 60, state_dir=args.state, move_seconds=args.move_seconds,
                     workers=args.workers, token=token, hosts=(*LOOPBACK_HOSTS, args.host) if loopback else None)
    restored, problems = app.state.restored
    if args.state:
        print(f"parlour: {restored} game(s) in play restored from {args.state}")
        for line in problems:
            print(f"parlour: not restored (the file is kept): {line}", file=sys.stderr)
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    address = f"http://{shown_host}:{args.port}/" + (f"?token={token}" if token else "")
    reach = "this machine only" if loopback else "ANY machine that can reach this address, with the token"
    print(f"parlour: serving on {address} ({reach}; models from {runs or 'nowhere: no runs directory'}; "
          f"{args.move_seconds:g} s per move); Ctrl-C stops")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", timeout_keep_alive=5, limit_concurrency=1000)
    return 0
