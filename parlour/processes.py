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

Ctrl-C is the parent's to report: it stops its workers.  A worker ignores it from its
first instruction on, not only from its initializer: the starter holds Ctrl-C
(:func:`hold_ctrl_c`) while it spawns, the children inherit the held signal, and
:func:`ignore_ctrl_c` drops it.  Otherwise a Ctrl-C during a spawned child's start-up
(its imports, its unpickling) raises ``KeyboardInterrupt`` there and prints a traceback.

A task that fails stops the rest cleanly (:meth:`WorkerPool.run`): the tasks not yet
started are skipped, the ones running finish, and only then is the failure raised and the
pool torn down.  ``multiprocessing.Pool.terminate`` kills workers wherever they are, and a
worker killed while it writes a result holds the result queue's lock for ever: the pool's
own shutdown then waits on that lock and never returns.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import multiprocessing
import multiprocessing.pool
import multiprocessing.resource_tracker
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from typing import Any

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


_DONE, _SKIPPED, _FAILED = 0, 1, 2
"""What became of a task of :meth:`WorkerPool.run`."""
_STOP: Any = None
"""In a worker: its pool's stop event (set once a task of the current run has failed)."""


class WorkerTraceback(Exception):
    """The traceback of a failure in a worker, as text: the ``__cause__`` of the failure
    :meth:`WorkerPool.run` raises, as ``multiprocessing`` does for its own."""

    def __str__(self) -> str:
        return f"\n{self.args[0]}" if self.args else ""


class WorkerPool(multiprocessing.pool.Pool):
    """A ``multiprocessing.Pool`` of spawned workers (make one with :func:`start_pool`)
    whose :meth:`run` stops at a failure without killing a worker mid-write (module
    docstring).  Its other methods are the standard pool's."""

    def __init__(self, workers: int, initializer: Callable[..., None], initargs: tuple[Any, ...]) -> None:
        context = multiprocessing.get_context("spawn")
        self.stop_event = context.Event()
        super().__init__(workers, _start_worker, (self.stop_event, initializer, initargs), context=context)

    def run(self, function: Callable[[Any], Any], tasks: Iterable[Any], *, chunksize: int = 1,
            ordered: bool = True) -> Iterator[Any]:
        """``function(task)`` of every task, computed in the workers: in the tasks' order,
        or as they finish (``ordered=False``).  At the first failure the tasks not yet
        started are skipped (a long task may ask :func:`stopping` to end early), every
        task is waited for, and then the failure is raised here, so that leaving the pool
        finds its workers idle."""
        self.stop_event.clear()
        calls = ((function, task) for task in tasks)
        results = (self.imap if ordered else self.imap_unordered)(_guarded, calls, chunksize)
        failure: tuple[BaseException, str | None] | None = None
        while True:
            try:
                status, value = next(results)
            except StopIteration:
                break
            except Exception as unsent:  # noqa: BLE001 (a result the pool could not send back)
                status, value = _FAILED, (unsent, None)
            if status == _FAILED and failure is None:
                self.stop_event.set()
                failure = value
            elif status == _DONE and failure is None:
                yield value
        if failure is not None:
            raised, text = failure
            if text is not None:
                raised.__cause__ = WorkerTraceback(text)
            raise raised


def start_pool(workers: int, initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()
               ) -> WorkerPool:
    """A pool of ``workers`` spawned processes, started with Ctrl-C held; ``initializer``
    (default :func:`pool_worker`, for workers that only compute) must call
    :func:`ignore_ctrl_c`.  A Ctrl-C held meanwhile is raised here, the pool terminated."""
    pool = None
    try:
        with hold_ctrl_c():
            pool = WorkerPool(workers, initializer or pool_worker, initargs)
    except BaseException:
        if pool is not None:
            pool.terminate()
        raise
    return pool


def stopping() -> bool:
    """In a worker of :func:`start_pool`: whether a task of the current run has failed,
    so that a long task can end early (its result is not used)."""
    return _STOP is not None and _STOP.is_set()


def _start_worker(stop: Any, initializer: Callable[..., None], initargs: tuple[Any, ...]) -> None:
    global _STOP
    _STOP = stop
    initializer(*initargs)


def _guarded(call: tuple[Callable[[Any], Any], Any]) -> tuple[int, Any]:
    """A task of :meth:`WorkerPool.run` in a worker: skipped once the run has failed; a
    failure is returned (with its traceback as text), not raised, and stops the run."""
    function, task = call
    if stopping():
        return _SKIPPED, None
    try:
        return _DONE, function(task)
    except Exception as error:  # noqa: BLE001 (every failure is the parent's to raise)
        if _STOP is not None:
            _STOP.set()
        return _FAILED, (error, traceback.format_exc())


def pool_worker() -> None:
    """A ``multiprocessing.Pool`` initializer for workers that only compute: they end with
    their parent and ignore Ctrl-C, which is the parent's to report (it stops the pool)."""
    die_with_parent()
    ignore_ctrl_c()


_HOLDS = hasattr(signal, "pthread_sigmask")  # POSIX; elsewhere a worker ignores Ctrl-C from its initializer on


@contextlib.contextmanager
def hold_ctrl_c() -> Iterator[None]:
    """Start worker processes inside this block: they begin with SIGINT blocked (the
    calling thread's mask, which a child inherits) until :func:`ignore_ctrl_c`.  In this
    process a Ctrl-C that comes meanwhile waits for the block's end instead of being
    lost or raised halfway through starting a pool: blocked in the calling thread (any
    thread may call this), and, in the main thread, noted by a handler of the block's own
    (another thread may take a process's signal, and Python then runs the handler in the
    main thread whatever its mask), then raised again at the end."""
    if not _HOLDS:
        yield
        return
    # The first spawn of a process starts multiprocessing's resource tracker, and
    # unblocks SIGINT after it: start it before blocking, or the hold would end there.
    multiprocessing.resource_tracker.ensure_running()
    came: list[int] = []
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum)) if main else None
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        if main:
            # (runs the note for a Ctrl-C pending until now first)
            signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)
            if came:
                signal.raise_signal(signal.SIGINT)  # to the handler as it was: KeyboardInterrupt, as a rule


def ignore_ctrl_c() -> None:
    """In a worker: ignore Ctrl-C from now on, dropping one held since its start."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _HOLDS:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


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
