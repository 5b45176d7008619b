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
        self.new_file = False
        """Whether :meth:`acquire` made the lock file (it was not there before)."""

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
            path = self.root / LOCK_FILE
            while True:
                self.new_file = not path.exists()
                stream = open(path, "a+")  # noqa: SIM115 (held open as long as the lock)
                if not _try_lock(stream):
                    stream.seek(0)
                    holder = _describe(stream.read())
                    stream.close()
                    raise DirectoryLocked(f"{str(self.root)!r} is being written by {holder}; "
                                          "wait for it to end, or choose another directory")
                if _same_file(stream, path):
                    break
                stream.close()  # the holder removed the file as we opened it: the lock is on the new one
            stream.seek(0)
            stream.truncate()
            stream.write(json.dumps({"job": self.job, "pid": os.getpid(), "host": socket.gethostname(),
                                     "command": " ".join(sys.argv)[:500], "since": time.strftime("%Y-%m-%d %H:%M:%S")}))
            stream.flush()
            DirectoryLock._held[self.key] = [stream, 1]
            self.locked = True
            return self

    def release(self, remove: bool = False) -> None:
        """Give the lock back.  The file stays (an unheld lock file means nothing), unless
        ``remove`` and this was the last hold: then it goes first, while still locked, so
        that no other process can take a lock on a file about to vanish."""
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
                if remove:
                    (self.root / LOCK_FILE).unlink(missing_ok=True)
                _unlock(held[0])
                held[0].close()

    def __enter__(self) -> DirectoryLock:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()


def _same_file(stream: Any, path: Path) -> bool:
    """Whether ``path`` still names the file ``stream`` has open."""
    try:
        return os.fstat(stream.fileno()).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


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
