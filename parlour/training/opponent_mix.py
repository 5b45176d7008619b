"""Self-play on a batched engine: every game of the batch meets the run's opponent mix.

``parlour train --opponents random,greedy,original-alphabeta,self --weights 1,1,1,2`` on
single games draws, at every episode, an entry of that pool for each seat the learner
does not hold (``parlour.training.opponents.OpponentPool``).  :class:`OpponentMix` does
the same for the B games of a batched engine, as the
:class:`~parlour.vector.seat_players.SeatPlayers` of the learner's batched view
(``parlour.vector.sb3_env.BatchedSB3VecEnv``): the same entries, weights, snapshots and
snapshot schedule.  Who plays a seat decides how it is answered; there are two kinds:

- a batched player, one call for every game where it is to act: a player with a
  batched form in the one registry, ``parlour.baselines.batched.batched_policy``
  (``random``, Goofspiel's ``rudimentary``, Tides of Time's and Tribolo's ``greedy``,
  the one-ply searches registered there), or ``self``, one of the latest
  ``max_snapshots`` frozen learners (``parlour.baselines.learned.ppo_batched.FrozenPPO``:
  one network call per snapshot and step, the move sampled from its masked policy);
- any other policy (a search such as ``original-strategy``): each of its games keeps a
  single-game copy (``engine.game_state`` when the episode starts, then every step the
  engine takes), and the policy acts on the seat's information state, as in the arena;
  with ``workers`` > 0 these searches run in worker processes
  (:class:`parlour.training.policy_workers.PolicyWorkers`) while this process goes on
  with the rest of the batch, and the step waits only for them.

Randomness: every draw (which entry, which snapshot, the policies' seeds, the snapshots'
samples, the batched players' ties) comes from the engine's generator, in a fixed order
per step, so the engine's seed fixes the whole batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from parlour.baselines import Policy, make_from_spec
from parlour.baselines.batched import BatchedPolicy, batched_policy
from parlour.baselines.learned.ppo_batched import FrozenPPO
from parlour.games.base import State
from parlour.games.engine import BatchedEngine
from parlour.training.opponents import LEAGUE, SELF, Entry, describe_entries
from parlour.training.policy_workers import PolicyJob, PolicyTable, PolicyWorkers
from parlour.vector.seat_players import SeatPlayers

LEARNER = -1
"""The entry index of the learner's own seat."""


class SnapshotPlayers:
    """The learner's frozen snapshots, each a batched player
    (:class:`~parlour.baselines.learned.ppo_batched.FrozenPPO`: one network call, on
    ``device``, for every game it plays in); the latest ``max_snapshots`` are kept."""

    def __init__(self, game: Any, max_snapshots: int, device: str = "cpu") -> None:
        self.game = game
        self.max_snapshots = max_snapshots
        self.device = device
        self.paths: list[str] = []
        self._players: dict[str, FrozenPPO] = {}

    def add(self, path: str) -> None:
        self.paths.append(str(path))

    def recent(self) -> int:
        """How many snapshots a draw chooses among (the latest ``max_snapshots``)."""
        return min(len(self.paths), self.max_snapshots)

    def player(self, index: int) -> FrozenPPO:
        """Snapshot ``index`` as a batched player (the older ones are let go)."""
        path = self.paths[index]
        player = self._players.get(path)
        if player is None:
            player = self._players[path] = FrozenPPO(path, self.game, self.device)
            keep = set(self.paths[-self.max_snapshots :])
            for old in [p for p in self._players if p not in keep and p != path]:
                del self._players[old]
        return player


class OpponentMix(SeatPlayers):
    """The seats the learner does not hold, in every game of a batch, played by a
    weighted mix of policies and snapshots (see the module docstring).

    ``entries``: ``parse_opponents``'s; ``snapshots``: paths of frozen learners already
    taken (more with :meth:`add_snapshot`); ``device``: where the snapshots' networks
    run; ``workers``: processes for the policies that play through the rules module
    (0: in this process)."""

    def __init__(self, game: Any, entries: Sequence[Entry], snapshots: Sequence[str] = (), max_snapshots: int = 20,
                 device: str = "cpu", workers: int = 0) -> None:
        if not entries:
            raise ValueError("an opponent mix needs at least one entry")
        if max_snapshots < 1:
            raise ValueError(f"max_snapshots must be at least 1, got {max_snapshots}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
            raise ValueError(f"workers must be an integer >= 0, got {workers!r}")
        for entry in entries:
            if entry.spec == LEAGUE:
                raise ValueError(f"opponent {LEAGUE!r} is the RLlib backend's league of frozen snapshots; "
                                 f"here the learner's snapshots are {SELF!r}")
        self.game = game
        self.entries = list(entries)
        self.workers = workers
        self._cumulative = np.cumsum([e.weight for e in self.entries])
        self._self = [i for i, e in enumerate(self.entries) if e.spec == SELF]
        self.snapshots = SnapshotPlayers(game, max_snapshots, device)
        for path in snapshots:
            self.snapshots.add(path)
        # one Policy object per entry, to validate the spec now; games get their own
        self._specs: dict[int, Policy] = {i: make_from_spec(e.spec, game) for i, e in enumerate(self.entries) if e.spec != SELF}
        self._batched: dict[int, BatchedPolicy] = {}
        self._local = PolicyTable(game)
        self._shadows: dict[int, State] = {}
        self._fresh: set[tuple[int, int]] = set()  # (row, seat) whose policy starts an episode at its next move
        self._pool: Any = None

    # ----- SeatPlayers -----------------------------------------------------------------

    def bind(self, engine: BatchedEngine, rng: np.random.Generator) -> None:
        if engine.game != self.game:
            raise ValueError(f"the opponent mix is for {self.game!r}, the engine plays {engine.game!r}")
        same = getattr(self, "engine", None) is engine  # a reset with a seed: a new generator, the same games
        super().bind(engine, rng)
        if same:
            return
        self._shadows.clear()
        self._fresh.clear()
        B, P = engine.num_envs, engine.num_players
        self.entry = np.full((B, P), LEARNER, dtype=np.int64)
        self.snapshot = np.zeros((B, P), dtype=np.int64)
        self.seeds = np.zeros((B, P), dtype=np.int64)
        self._batched = {}
        for i, policy in self._specs.items():
            form = batched_policy(policy, engine)
            if form is not None:
                self._batched[i] = form
        self._slow = np.array([i in self._specs and i not in self._batched for i in range(len(self.entries))] + [False])
        """Per entry (and, last, the learner's -1): played through the rules module."""
        if self.workers and self._slow.any() and self._pool is None:
            self._pool = PolicyWorkers(self.game, self.workers)

    def start(self, rows: np.ndarray, learner: np.ndarray) -> None:
        """Draw every seat's entry (the learner's is ``LEARNER``), and for each the
        snapshot and the policy seed it would use; start the games' single-game copies."""
        k, P = len(rows), self.engine.num_players
        if not k:
            return
        rng = self.rng
        u = rng.random((k, P)) * self._cumulative[-1]
        entry = np.searchsorted(self._cumulative, u, side="right")
        entry[np.arange(k), learner] = LEARNER
        self.entry[rows] = entry
        if self._self:
            recent = self.snapshots.recent()
            if recent == 0 and np.isin(entry, self._self).any():
                raise ValueError("the 'self' opponent has no snapshot yet; add one with add_snapshot(path)")
            self.snapshot[rows] = len(self.snapshots.paths) - recent + rng.integers(max(recent, 1), size=(k, P))
        if self._slow.any():
            self.seeds[rows] = rng.integers(2**63, size=(k, P))
            slow = self._slow[entry].any(axis=1)
            for b in rows[~slow]:
                self._shadows.pop(int(b), None)
            for b in rows[slow]:
                self._shadows[int(b)] = self.engine.game_state(int(b))
                self._fresh.update((int(b), s) for s in range(P))

    def actions(self, need: np.ndarray) -> np.ndarray:
        engine = self.engine
        out = np.zeros(need.shape, dtype=np.int64)
        if engine.simultaneous:
            rows, seats = np.nonzero(need)
        else:
            rows = np.flatnonzero(need)
            seats = engine.movers()[rows]
        if not len(rows):
            return out
        entries = self.entry[rows, seats]
        slow = self._slow[entries]
        pending = self._ask_slow(rows[slow], seats[slow], entries[slow]) if slow.any() else None
        for e in np.unique(entries[~slow]):
            pick = entries == e
            r, s = rows[pick], seats[pick]
            self._put(out, r, s, self._fast_actions(int(e), r, s))
        if pending is not None:
            r, s, acts = pending()
            self._put(out, r, s, acts)
        return out

    def applied(self, actions: np.ndarray, where: np.ndarray, terminated: np.ndarray) -> None:
        if not self._shadows:
            return
        simultaneous = self.engine.simultaneous
        for b in list(self._shadows):
            if not where[b]:
                continue
            if terminated[b]:
                del self._shadows[b]
                continue
            state = self._shadows[b]
            if simultaneous:
                state.apply({p: int(actions[b, p]) for p in state.current_players()})
            else:
                state.apply(int(actions[b]))

    def describe(self) -> str:
        return describe_entries(self.entries)

    # ----- self-play ---------------------------------------------------------------------

    def add_snapshot(self, path: str) -> None:
        """A new frozen learner for the ``self`` entry (only the latest ``max_snapshots``
        are drawn)."""
        self.snapshots.add(path)

    @property
    def snapshot_paths(self) -> list[str]:
        return list(self.snapshots.paths)

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    # ----- internals -----------------------------------------------------------------------

    def _put(self, out: np.ndarray, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        if self.engine.simultaneous:
            out[rows, seats] = actions
        else:
            out[rows] = actions

    def _fast_actions(self, entry: int, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """A batched player's moves in the games ``rows``: a registered one's, or the
        snapshots' (each answering its games in one call)."""
        if entry in self._batched:
            return self._batched[entry].actions(self.engine, rows, seats, self.rng)
        out = np.zeros(len(rows), dtype=np.int64)
        snapshot = self.snapshot[rows, seats]
        for index in np.unique(snapshot):
            pick = snapshot == index
            out[pick] = self.snapshots.player(int(index)).actions(self.engine, rows[pick], seats[pick], self.rng)
        return out

    def _ask_slow(self, rows: np.ndarray, seats: np.ndarray, entries: np.ndarray) -> Any:
        """Start the rules-module policies' decisions (in the workers, if any); return a
        call that waits for them: ``(rows, seats, actions)``."""
        jobs = []
        for b, s, e in zip(rows.tolist(), seats.tolist(), entries.tolist()):
            fresh = (b, s) in self._fresh
            self._fresh.discard((b, s))
            jobs.append(PolicyJob(self.entries[e].spec, b, s, int(self.seeds[b, s]) if fresh else None, self._shadows[b]))
        if self._pool is not None:
            ticket = self._pool.submit(jobs)
            return lambda: (rows, seats, np.asarray(self._pool.collect(ticket), dtype=np.int64))
        actions = np.array([self._local.act(job) for job in jobs], dtype=np.int64)
        return lambda: (rows, seats, actions)
