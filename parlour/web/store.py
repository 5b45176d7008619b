"""The games in play on a server: how many, for how long, and (optionally) on disk.

- At most ``limit`` games: a new game past the limit drops the one left alone longest.
- A game nobody has asked about for ``idle_seconds`` is dropped.
- With a ``state_dir`` (``parlour serve --state DIR``), every game is kept there as one
  JSON file (``<id>.json``: :meth:`GameSession.snapshot`), written atomically after every
  change (a crash leaves the old file or the new one, never half of one) and removed when
  the game is dropped; a server started on the same directory has the games again, under
  the same ids, and lists them.

Memory is then bounded by ``limit`` times the largest game (docs/web.md gives figures).
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from parlour.atomic import write_atomic
from parlour.table.errors import SessionError
from parlour.table.session import GameSession
from parlour.web.http_errors import NotFound

ID = re.compile(r"[A-Za-z0-9_-]{16}")
"""What an id looks like (``secrets.token_urlsafe(12)``); anything else is unknown."""


class Sessions:
    """The games in play, by id (thread-safe)."""

    def __init__(self, limit: int = 500, idle_seconds: float = 3600.0, state_dir: Path | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        if limit < 1 or idle_seconds <= 0:
            raise ValueError(f"the games kept must be at least 1 and their idle time positive, got {limit} and {idle_seconds}")
        self.limit, self.idle_seconds, self.state_dir, self.clock = limit, idle_seconds, state_dir, clock
        self.items: OrderedDict[str, tuple[GameSession, float]] = OrderedDict()  # least recently used first
        self.lock = threading.Lock()
        if state_dir is not None:
            state_dir.mkdir(parents=True, exist_ok=True)

    def __len__(self) -> int:
        return len(self.items)

    def add(self, session: GameSession) -> str:
        key = secrets.token_urlsafe(12)
        with self.lock:
            self.items[key] = (session, self.clock())
            dropped = self._trim()
        self._forget_files(dropped)
        self.save(key, session)
        return key

    def get(self, key: str) -> GameSession:
        """The game ``key`` (its idle time starts again); :class:`NotFound` if there is none."""
        with self.lock:
            dropped = self._trim()
            found = self.items.get(key) if ID.fullmatch(key) else None
            if found is not None:
                self.items[key] = (found[0], self.clock())
                self.items.move_to_end(key)
        self._forget_files(dropped)
        if found is None:
            raise NotFound(f"no game {key[:40]!r}: unknown, or dropped (after {self.idle_seconds:g} s without a request, "
                           f"or to make room: at most {self.limit} games are kept)")
        return found[0]

    def save(self, key: str, session: GameSession) -> None:
        """Write the game to the state directory (if any), as it is now."""
        if self.state_dir is None:
            return
        data = session.snapshot()
        data["id"], data["last_active"] = key, self.clock()
        path = self.state_dir / f"{key}.json"
        write_atomic(path, json.dumps(data))  # the caller holds the game's lock: one write at a time
        with self.lock:
            dropped = key not in self.items
        if dropped:  # dropped while it was written
            path.unlink(missing_ok=True)

    def listing(self, most: int = 100) -> list[dict[str, Any]]:
        """The games in play, the most recently used first."""
        with self.lock:
            dropped = self._trim()
            recent = list(reversed(self.items.items()))[:most]
        self._forget_files(dropped)
        now, rows = self.clock(), []
        for key, (session, used) in recent:
            if session.lock.acquire(timeout=0.05):  # a game busy with a move is listed as busy
                try:
                    summary = session.summary()
                finally:
                    session.lock.release()
            else:
                summary = {"game": session.game.name, "seats": session.seats, "steps": None, "over": None, "status": "busy"}
            rows.append({"id": key, "idle_seconds": round(now - used, 1), **summary})
        return rows

    def _trim(self) -> list[str]:
        """Drop the games idle too long, and the least recently used past the limit (with
        the lock held); the ids dropped."""
        dropped, now = [], self.clock()
        while self.items:
            key, (_, used) = next(iter(self.items.items()))
            if len(self.items) <= self.limit and now - used < self.idle_seconds:
                break
            self.items.popitem(last=False)
            dropped.append(key)
        return dropped

    def _forget_files(self, keys: list[str]) -> None:
        if self.state_dir is not None:
            for key in keys:
                (self.state_dir / f"{key}.json").unlink(missing_ok=True)

    def restore(self, make: Callable[[dict[str, Any]], GameSession]) -> tuple[int, list[str]]:
        """Load the games kept in the state directory with ``make`` (a snapshot's data ->
        a session); the number restored and a line for each file that was not."""
        if self.state_dir is None:
            return 0, []
        problems, loaded = [], []
        for path in sorted(self.state_dir.glob("*.json")):
            try:
                data = json.loads(path.read_text())
                key, used = data["id"], float(data["last_active"])
                if not ID.fullmatch(key) or path.stem != key:
                    raise SessionError(f"the file's name and id {key!r} differ")
                if self.clock() - used >= self.idle_seconds:
                    path.unlink(missing_ok=True)
                    continue
                loaded.append((used, key, make(data)))
            except Exception as error:  # noqa: BLE001 (whatever is in a file, the server starts and names it)
                problems.append(f"{path.name}: {type(error).__name__}: {' '.join(str(error).split())[:200]}")
        with self.lock:
            for used, key, session in sorted(loaded, key=lambda item: item[0]):
                self.items[key] = (session, used)
            dropped = self._trim()
        self._forget_files(dropped)
        return len(loaded) - len(dropped), problems
