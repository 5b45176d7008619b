"""Worker processes that end with their parent.

A pool worker whose parent is killed with ``SIGKILL`` (or crashes) gets no chance to be
stopped: it goes on playing its games, holding a core and memory, or waits for work
forever.  :func:`die_with_parent` is the first thing every worker parlour starts does
(the arena's and self-play's pools, the envs of ``SubprocVecEnv``, the web server's
thinkers), with two guards:

- on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills the worker as soon
  as the thread that started it ends (so a pool must start its workers from a thread
  that lives as long as the pool: the main thread, or the pool's own);
- everywhere, a daemon thread that looks every second whether the parent still lives
  and ends the worker at once if not.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from collections.abc import Callable

PR_SET_PDEATHSIG = 1
WATCH_SECONDS = 1.0
"""How often the watchdog looks at the parent."""

_watching = False


def die_with_parent(parent: int | None = None, *, kernel: bool = True) -> None:
    """End this process when its parent ends: the process that started it with
    ``multiprocessing`` (watched through the pipe ``multiprocessing`` keeps to it, which
    no reused process id can fool), else ``parent`` (default: the current parent).

    ``kernel=False`` keeps only the watchdog: for a worker started by a thread that may
    end before the process does (the kernel's signal follows the starting thread).
    Calling it twice in one process is harmless."""
    import multiprocessing

    starter = multiprocessing.parent_process()
    if starter is not None and parent in (None, starter.pid):
        alive = starter.is_alive
    else:
        expected = os.getppid() if parent is None else parent
        alive = lambda: os.getppid() == expected  # noqa: E731 (an orphan is adopted by another process)
    if kernel and sys.platform.startswith("linux"):
        _set_parent_death_signal()
    if not alive():  # the parent died before we could ask
        os._exit(1)
    global _watching
    if _watching:
        return
    _watching = True
    threading.Thread(target=_watch, args=(alive,), name="parlour-parent-watchdog", daemon=True).start()


def pool_worker() -> None:
    """A ``multiprocessing.Pool`` initializer for workers that only compute: they end with
    their parent and ignore Ctrl-C, which is the parent's to report (it stops the pool)."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _set_parent_death_signal() -> None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # no prctl here: the watchdog alone guards
        pass


def _watch(alive: Callable[[], bool]) -> None:
    while True:
        time.sleep(WATCH_SECONDS)
        if not alive():
            os._exit(1)
