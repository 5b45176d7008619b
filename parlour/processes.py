"""Worker processes that end with their parent.

A pool worker whose parent is killed with ``SIGKILL`` (or crashes) gets no chance to be
stopped: it goes on playing its games, holding a core and memory, or waits for work
forever.  :func:`die_with_parent` is the first thing every worker parlour starts does
(the arena's and self-play's pools, the envs of ``SubprocVecEnv``, the web server's
thinkers), with two guards:

- on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills the worker as soon
  as the thread that started it ends (so a pool must start its workers from a thread
  that lives as long as the pool: the main thread, or the pool's own);
- everywhere, a daemon thread that looks every second whether the parent is still the
  process that started the worker (``os.getppid()``: an orphan is adopted by another
  process) and ends the worker at once if not.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
WATCH_SECONDS = 1.0
"""How often the watchdog looks at the parent."""

_watching: set[int] = set()


def die_with_parent(parent: int | None = None, *, kernel: bool = True) -> None:
    """End this process when ``parent`` (default: the current parent) ends.

    ``kernel=False`` keeps only the watchdog: for a worker started by a thread that may
    end before the process does (the kernel's signal follows the starting thread).
    Calling it twice in one process is harmless."""
    parent = os.getppid() if parent is None else parent
    if kernel and sys.platform.startswith("linux"):
        _set_parent_death_signal()
    if os.getppid() != parent:  # the parent died before we could ask
        os._exit(1)
    if parent in _watching:
        return
    _watching.add(parent)
    threading.Thread(target=_watch, args=(parent,), name="parlour-parent-watchdog", daemon=True).start()


def _set_parent_death_signal() -> None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # no prctl here: the watchdog alone guards
        pass


def _watch(parent: int) -> None:
    while True:
        time.sleep(WATCH_SECONDS)
        if os.getppid() != parent:
            os._exit(1)


def in_child_process() -> bool:
    """True in a process started by ``multiprocessing`` (a pool worker)."""
    import multiprocessing

    return multiprocessing.parent_process() is not None
