"""The ``parlour`` command: ``--version`` and a module per command that parses its
arguments, calls the library and prints: :mod:`.games` (``list``, ``demo``,
``policies``), :mod:`.arena`, :mod:`.play`, :mod:`.serve`, :mod:`.train` (``train``,
``train-ntuple``), and ``bench`` (:mod:`parlour.ladder.cli`).

Errors are one line on stderr, ``parlour COMMAND: error: ...``, with exit status 2 for
bad command-line input (``UsageError``; argparse's own errors print the usage first) and
1 for a failure (``Failure``: a damaged file, a game that failed, a missing extra; or an
unexpected exception, named by its type).  Ctrl-C prints where things stand and exits
with 130.  ``--debug`` or ``PARLOUR_DEBUG=1`` prints the traceback before that line.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import traceback
from collections.abc import Sequence
from typing import Any

import parlour
from parlour.cli import arena, games, play, serve, train
from parlour.cli.arena import DEFAULT_ARENA
from parlour.cli.common import parse_option_value, parse_options
from parlour.cli.train import DEFAULT_TRAINING
from parlour.errors import DamagedFileError, Failure, Interrupted, UsageError

__all__ = ["DEFAULT_ARENA", "DEFAULT_TRAINING", "Failure", "Interrupted", "Terminated", "UsageError",
           "build_parser", "error_line", "main", "parse_option_value", "parse_options"]


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, a job scheduler, ``docker stop``) raised in the main thread, so that
    the command stops as on Ctrl-C: worker pools are stopped and a run keeps its last
    checkpoint. Python's default would end the process at once and leave its workers
    playing their current games to the end. Exit code 143."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="parlour", description=parlour.__doc__.strip().splitlines()[0])
    parser.add_argument("--version", action="version", version=f"parlour {parlour.__version__}")
    debug_help = "on an error, print the Python traceback too (also: PARLOUR_DEBUG=1 in the environment)"
    parser.add_argument("--debug", action="store_true", help=debug_help)
    common = argparse.ArgumentParser(add_help=False)  # --debug after the command too
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=debug_help)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in (games, arena, play, serve, train):
        command.add_parser(sub, common)
    from parlour.ladder.cli import add_parser as add_bench_parser

    add_bench_parser(sub, common)
    return parser


def debug_wanted(args: argparse.Namespace) -> bool:
    """``--debug``, or ``PARLOUR_DEBUG`` set to anything but empty, 0, false, no or off."""
    value = os.environ.get("PARLOUR_DEBUG", "").strip().lower()
    return bool(getattr(args, "debug", False)) or value not in ("", "0", "false", "no", "off")


def error_line(error: BaseException) -> tuple[int, str]:
    """The exit status and the one line that reports ``error`` (after ``parlour COMMAND: ``)."""
    terminated = isinstance(error, Terminated) or isinstance(error.__cause__, Terminated)
    stopped, stop_code = ("terminated", 143) if terminated else ("interrupted", 130)
    if isinstance(error, Interrupted):
        code, text = stop_code, f"{stopped}; {error}"
    elif isinstance(error, KeyboardInterrupt):
        code, text = stop_code, stopped
    elif isinstance(error, UsageError):
        code, text = 2, f"error: {error}"
    elif isinstance(error, (Failure, DamagedFileError, ImportError, OSError)):
        code, text = 1, f"error: {error}"
    else:
        code, text = 1, f"error: {type(error).__name__}: {error} (unexpected; --debug or PARLOUR_DEBUG=1 shows the traceback)"
    return code, " ".join(line.strip() for line in text.splitlines() if line.strip())


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    if getattr(args, "games", 1) < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    handled = threading.current_thread() is threading.main_thread()  # signal handlers belong to the main thread
    previous = signal.signal(signal.SIGTERM, _raise_terminated) if handled else None
    try:
        return args.run(args)
    except (Exception, KeyboardInterrupt) as error:
        code, line = error_line(error)
        if debug_wanted(args):
            traceback.print_exc()
        elif code == 130 and sys.stderr.isatty():
            print(file=sys.stderr)  # off the line that the prompt, a progress bar or ^C left open
        print(f"parlour {args.command}: {line}", file=sys.stderr)
        return code
    finally:
        if handled:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
