"""A directory that one job writes at a time (a training run's ``--out``).

:class:`DirectoryLock` holds an exclusive ``flock`` on ``DIR/.lock``.  The kernel
releases it when the holding process ends, however it ends (``SIGKILL`` included), so
a lock is never left behind to be cleaned up by hand.  The file names its holder (the
command, the process id, the host, since when), so a second job is refused with a
message that says who is writing: two trainers writing one run would interleave their
checkpoints and lose both.  A process may take a lock it already holds (the count goes
up), so one program may open a run twice (train, then resume).
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

LOCK_FILE = ".lock"
"""The lock's name inside the directory (files a job lists or clears leave it alone)."""


class DirectoryLocked(RuntimeError):
    """Another process writes the directory; the message names it."""


class DirectoryLock:
    """An exclusive lock on ``root`` for ``job`` (e.g. ``"parlour train"``)."""

    _held: ClassVar[dict[Path, list[Any]]] = {}  # resolved root -> [open file, count], in this process
    _guard: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, root: str | os.PathLike[str], job: str) -> None:
        self.root, self.job = Path(root), job
        self.key = self.root.resolve()
        self.locked = False

    def acquire(self) -> DirectoryLock:
        """Take the lock (creating the directory); :class:`DirectoryLocked` if another
        process holds it."""
        with DirectoryLock._guard:
            held = DirectoryLock._held.get(self.key)
            if held is not None:
                held[1] += 1
                self.locked = True
                return self
            self.root.mkdir(parents=True, exist_ok=True)
            stream = open(self.root / LOCK_FILE, "a+")  # noqa: SIM115 (held open as long as the lock)
            if not _try_lock(stream):
                stream.seek(0)
                holder = _describe(stream.read())
                stream.close()
                raise DirectoryLocked(f"{str(self.root)!r} is being written by {holder}; wait for it to end, or choose another directory")
            stream.seek(0)
            stream.truncate()
            stream.write(json.dumps({"job": self.job, "pid": os.getpid(), "host": socket.gethostname(),
                                     "command": " ".join(sys.argv)[:500], "since": time.strftime("%Y-%m-%d %H:%M:%S")}))
            stream.flush()
            DirectoryLock._held[self.key] = [stream, 1]
            self.locked = True
            return self

    def release(self) -> None:
        """Give the lock back (the file stays; an unheld lock file means nothing)."""
        if not self.locked:
            return
        self.locked = False
        with DirectoryLock._guard:
            held = DirectoryLock._held.get(self.key)
            if held is None:
                return
            held[1] -= 1
            if held[1] == 0:
                del DirectoryLock._held[self.key]
                _unlock(held[0])
                held[0].close()

    def __enter__(self) -> DirectoryLock:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()


def _describe(text: str) -> str:
    try:
        holder = json.loads(text)
        return f"{holder['job']} (pid {holder['pid']} on {holder['host']}, since {holder['since']}: {holder['command']})"
    except (ValueError, KeyError, TypeError):
        return "another process"


if sys.platform == "win32":  # pragma: no cover - not run on the CI machines
    import msvcrt

    def _try_lock(stream: Any) -> bool:
        try:
            stream.seek(0)
            msvcrt.locking(stream.fileno(), msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock(stream: Any) -> None:
        stream.seek(0)
        msvcrt.locking(stream.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(stream: Any) -> bool:
        try:
            fcntl.flock(stream.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            return False

    def _unlock(stream: Any) -> None:
        fcntl.flock(stream.fileno(), fcntl.LOCK_UN)
