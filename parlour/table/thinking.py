"""Where the policies at a table think: worker processes, with a deadline per move.

No policy runs in the server's process (``parlour serve``).  A move is a :class:`Job`
(the policy's spec, the game, the seat's information state, a seed) sent to an idle
worker, which builds the policy (or takes the one it built before for that spec and game: ``reset(seed)``
makes it as good as new), lets it choose, and answers a :class:`Choice`.  So:

- the event loop and every other game go on while a policy thinks (in another process,
  on another core, holding none of the server's locks or its GIL);
- a policy that runs past its deadline is interrupted inside its worker (an alarm
  signal) and, should it not stop, its worker is killed and replaced: a search asked for
  100,000,000 simulations cannot hold a core for long;
- a move depends only on the job, never on which worker made it or on what that worker
  made before, so a game is the same for the same seed, and survives a restart.

:class:`LocalThinker` makes the same choices in the calling process, for programs that
use :class:`parlour.table.session.GameSession` without a server.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from parlour.games import Game
from parlour.processes import hold_ctrl_c

BUILD_SECONDS = 60.0
"""How long a worker may take to start and to build a policy (loading a model included);
the move's own deadline starts after that."""
ALARM_SECONDS = 0.5
"""How far past its deadline a policy is interrupted inside its worker (a search with a
time limit stops at the deadline by itself; one without is stopped here)."""
GRACE_SECONDS = 2.0
"""How far past its deadline a worker may answer before it is killed."""
CACHED_POLICIES = 16
"""Policies a worker keeps built (the least recently used go first)."""


class Overrun(Exception):
    """A policy did not choose within its deadline."""


class NoThinker(Exception):
    """Every worker stayed busy for as long as the caller would wait."""


@dataclass(frozen=True)
class Job:
    """One choice to make: ``spec`` at ``game``, from ``info_state``, seeded by ``seed``,
    within ``seconds`` (``None``: no limit, for the in-process :class:`LocalThinker` of
    the terminal; the thinking processes need one).  ``explain``: also say how the
    policy rates its choice (a hint)."""

    spec: str
    game: Game
    info_state: Any
    seed: int
    seconds: float | None
    explain: bool = False


@dataclass(frozen=True)
class Choice:
    """The action chosen, and (for a hint) the facts of :func:`parlour.baselines.explain.choice_facts`."""

    action: int
    facts: dict[str, Any] = field(default_factory=dict)


class _Policies:
    """The policies one process has built, by (spec, game)."""

    def __init__(self) -> None:
        self.built: OrderedDict[tuple[str, Game], Any] = OrderedDict()

    def get(self, spec: str, game: Game) -> Any:
        from parlour.baselines import make_from_spec

        key = (spec, game)
        policy = self.built.get(key)
        if policy is None:
            policy = self.built[key] = make_from_spec(spec, game)
            while len(self.built) > CACHED_POLICIES:
                self.built.popitem(last=False)
        self.built.move_to_end(key)
        return policy

    def forget(self, spec: str, game: Game) -> None:
        self.built.pop((spec, game), None)

    def choose(self, job: Job, policy: Any) -> Choice:
        from parlour.baselines.explain import choice_facts

        policy.reset(job.seed)
        action = int(policy.act(job.info_state))
        return Choice(action, choice_facts(policy) if job.explain else {})


class LocalThinker:
    """Choices made in this process (no deadline is enforced: the caller waits)."""

    def __init__(self) -> None:
        self.policies = _Policies()
        self.lock = threading.Lock()

    def check(self, spec: str, game: Game) -> None:
        """Build the policy once; ``ValueError`` (or ``ImportError``, ``OSError``) if it cannot be."""
        with self.lock:
            self.policies.get(spec, game)

    def think(self, job: Job, wait: float | None = None) -> Choice:
        with self.lock:
            return self.policies.choose(job, self.policies.get(job.spec, job.game))

    def close(self) -> None:
        pass


class Thinkers:
    """``workers`` processes that make choices, each within its deadline (module docstring).

    Thread-safe: the server's request threads call :meth:`think` and :meth:`check` at
    once; each call takes an idle worker (waiting at most ``wait`` seconds for one) and
    gives it back.  Workers start when first needed and end with this process (or at
    :meth:`close`), even if it is killed (``parlour.processes.die_with_parent``)."""

    def __init__(self, workers: int = 2) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._lock = threading.Lock()
        self._started = False
        self._closed = False
        self._checked: OrderedDict[tuple[str, Game], bool] = OrderedDict()
        self._missing = 0
        self.replaced = 0
        """Workers killed and replaced (a policy that would not stop)."""

    def start(self) -> None:
        """Start the workers now and wait until they are ready (they start when first
        needed otherwise, and the first requests wait for them)."""
        self._start()
        workers = []
        try:
            for _ in range(self.workers):
                workers.append(self._idle.get(timeout=BUILD_SECONDS))
                workers[-1].wait_ready()
        except queue.Empty:
            pass  # one could not start: the first request that needs it makes it again
        finally:
            for worker in workers:
                self._idle.put(worker)

    def _start(self) -> None:
        with self._lock:
            if self._closed:
                raise NoThinker("the server is stopping")
            if not self._started:
                self._missing, self._started = self.workers, True
            missing, self._missing = self._missing, 0
        for _ in range(missing):  # at the start, or workers that could not be replaced before
            worker = self._spawn()
            if worker is not None:
                with self._lock:
                    if not self._closed:
                        self._idle.put(worker)
                        continue
                worker.kill()

    def check(self, spec: str, game: Game, wait: float = BUILD_SECONDS) -> None:
        """Have a worker build ``spec`` for ``game``; ``ValueError`` with the reason if it
        cannot.  A spec that built once is not built again to be checked."""
        key = (spec, game)
        with self._lock:
            if key in self._checked:
                self._checked.move_to_end(key)
                return
        status, payload = self._ask(("check", spec, game), BUILD_SECONDS, wait)
        if status != "ok":
            raise ValueError(payload)
        with self._lock:
            self._checked[key] = True
            while len(self._checked) > 1000:
                self._checked.popitem(last=False)

    def think(self, job: Job, wait: float | None = None) -> Choice:
        """The choice of ``job``'s policy; :class:`Overrun` past ``job.seconds``,
        ``ValueError`` if the policy failed, :class:`NoThinker` if no worker was free
        within ``wait`` seconds (default: the job's own deadline)."""
        if job.seconds is None:
            raise ValueError("a thinking process needs a time per move (Job.seconds); only LocalThinker thinks without one")
        status, payload = self._ask(("think", job), job.seconds + GRACE_SECONDS, job.seconds if wait is None else wait)
        if status == "ok":
            return payload
        if status == "overrun":
            raise Overrun(payload)
        raise ValueError(payload)

    def _ask(self, message: tuple[Any, ...], seconds: float, wait: float) -> tuple[str, Any]:
        self._start()
        worker: _Worker | None
        try:
            worker = self._idle.get(timeout=max(wait, 0.001))
        except queue.Empty:
            raise NoThinker(f"all {self.workers} thinking processes stayed busy for {wait:g} s") from None
        keep = False
        try:
            assert worker is not None
            status, payload, keep = worker.ask(message, seconds)
            return status, payload
        finally:
            if not keep:
                worker.kill()
                self.replaced += 1
                worker = self._spawn()
            with self._lock:  # close() empties the queue under this lock: nothing is put back after it
                if not self._closed and worker is not None:
                    self._idle.put(worker)
                    worker = None
            if worker is not None:
                worker.kill()

    def _spawn(self) -> _Worker | None:
        """A new worker to replace one that was killed (``None`` if none can start now:
        the next request makes it)."""
        try:
            return _Worker()
        except OSError:
            with self._lock:
                self._missing += 1
            return None

    def close(self) -> None:
        """Stop the workers (those busy now stop when they give their worker back)."""
        idle = []
        with self._lock:
            self._closed = True
            while True:
                try:
                    idle.append(self._idle.get_nowait())
                except queue.Empty:
                    break
        for worker in idle:
            worker.kill()

    def pids(self) -> list[int]:
        """The process ids of the idle workers (tests)."""
        return [w.process.pid for w in list(self._idle.queue) if w.process.pid is not None]


class _Worker:
    """One worker process and the pipe to it."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")  # nothing of the server's threads or locks is inherited
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, os.getpid()), name="parlour-thinker", daemon=True)
        with hold_ctrl_c():
            self.process.start()
        child.close()
        self.ready = False

    def wait_ready(self) -> bool:
        """Wait for the worker's imports (once); False if it did not start."""
        if not self.ready:
            try:
                if not self.conn.poll(BUILD_SECONDS):
                    return False
                self.conn.recv()
            except (EOFError, OSError):
                return False
            self.ready = True
        return True

    def ask(self, message: tuple[Any, ...], seconds: float) -> tuple[str, Any, bool]:
        """Send ``message``; (status, payload, whether the worker can be used again)."""
        try:
            if not self.wait_ready():
                return "error", "a thinking process did not start", False
            self.conn.send(message)
            if not self.conn.poll(BUILD_SECONDS):  # "built": the policy is ready, its deadline starts
                return "overrun", "the policy could not be built in time", False
            status, payload = self.conn.recv()
            if status != "built":
                return status, payload, True
            if not self.conn.poll(seconds):
                return "overrun", f"no choice within {seconds - GRACE_SECONDS:g} s", False
            status, payload = self.conn.recv()
            return status, payload, True
        except (EOFError, OSError):
            return "error", "a thinking process died", False

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


def _serve(conn: Any, parent: int) -> None:
    """A worker's life: take messages until the pipe closes."""
    from parlour.processes import die_with_parent, ignore_ctrl_c

    # The watchdog alone: a worker may be started by a request thread, which can end first.
    die_with_parent(parent, kernel=False)
    ignore_ctrl_c()  # Ctrl-C is the server's to handle
    import parlour.baselines  # noqa: F401  (registers every policy before the first job)

    policies = _Policies()
    conn.send(("ready", os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        kind, rest = message[0], message[1:]
        spec, game = (rest[0].spec, rest[0].game) if kind == "think" else rest
        try:
            policy = policies.get(spec, game)
        except Exception as error:  # noqa: BLE001 (any failure to build is the request's answer)
            conn.send(("error", _reason(error)))
            continue
        conn.send(("built", None))
        if kind == "check":
            conn.send(("ok", None))
            continue
        job = rest[0]
        try:
            with _alarm(job.seconds + ALARM_SECONDS):
                choice = policies.choose(job, policy)
            conn.send(("ok", choice))
        except Overrun:
            policies.forget(spec, game)  # interrupted mid-search: build it afresh next time
            conn.send(("overrun", f"no choice within {job.seconds:g} s"))
        except Exception as error:  # noqa: BLE001
            policies.forget(spec, game)
            conn.send(("error", _reason(error)))


class _alarm:
    """Raise :class:`Overrun` in this (main) thread after ``seconds``, where the platform
    has interval timers; elsewhere the parent's kill is the only guard."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.armed = hasattr(signal, "setitimer")

    def __enter__(self) -> None:
        if self.armed:
            signal.signal(signal.SIGALRM, _overrun)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc: Any) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)


def _overrun(signum: int, frame: Any) -> None:
    raise Overrun


def _reason(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text if isinstance(error, (ValueError, ImportError, OSError)) else f"{type(error).__name__}: {text}"
