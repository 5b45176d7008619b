"""The searches among a batch's opponents, played on single-game copies of their games.

A batched learner view (``parlour.training.opponent_mix``) answers most opponents with
array operations over the batch; a player without a batched form (a search such as
Tribolo's ``original-strategy``) plays each of its games through the rules module, on a
copy of the game's ``State``.  A :class:`PolicyJob` is one such decision; a
:class:`PolicyTable` holds the player objects (one per game, seat and spec, so that a
player's memory and generator follow its own game) and answers jobs;
:class:`PolicyWorkers` spreads the jobs over worker processes, each game always to the
same worker, so that the moves do not depend on the number of workers.
"""

from __future__ import annotations

import multiprocessing
import pickle
from dataclasses import dataclass
from typing import Any

from parlour.baselines import Policy, make_from_spec
from parlour.games.base import Game, State
from parlour.processes import die_with_parent, hold_ctrl_c, ignore_ctrl_c


@dataclass
class PolicyJob:
    """Seat ``seat`` of game ``row`` is to move in ``state`` and the policy ``spec`` plays
    it; ``seed``: the seed of a new episode at this seat (``None``: the episode goes on)."""

    spec: str
    row: int
    seat: int
    seed: int | None
    state: State


class PolicyTable:
    """The players of the games' seats (see the module docstring)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._players: dict[tuple[str, int, int], Policy] = {}

    def act(self, job: PolicyJob) -> int:
        key = (job.spec, job.row, job.seat)
        policy = self._players.get(key)
        if policy is None:
            policy = self._players[key] = make_from_spec(job.spec, self.game)
        if job.seed is not None:
            policy.reset(job.seed)
        return int(policy.act(job.state.info_state(job.seat)))


def _serve(connection: Any, game_bytes: bytes) -> None:
    """A worker: answer lists of jobs until the pipe closes (Ctrl-C is the trainer's to report)."""
    die_with_parent()
    ignore_ctrl_c()
    table = PolicyTable(pickle.loads(game_bytes))
    while True:
        try:
            jobs = connection.recv()
        except EOFError:
            return
        try:
            connection.send(("ok", [table.act(job) for job in jobs]))
        except Exception as error:  # noqa: BLE001 (reported to the parent, which raises it)
            connection.send(("error", f"{type(error).__name__}: {error}"))


class PolicyWorkers:
    """``workers`` processes playing :class:`PolicyJob` lists; game ``row`` always goes to
    worker ``row % workers``.  :meth:`submit` sends a list and returns at once;
    :meth:`collect` waits for its answers, in the list's order."""

    def __init__(self, game: Game, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        context = multiprocessing.get_context("spawn")
        self.connections = []
        self.processes = []
        data = pickle.dumps(game)
        for _ in range(workers):
            parent, child = context.Pipe()
            process = context.Process(target=_serve, args=(child, data), daemon=True, name="parlour-policy-worker")
            with hold_ctrl_c():
                process.start()
            child.close()
            self.connections.append(parent)
            self.processes.append(process)
        self._next = 0
        self._open: dict[int, list[list[int]]] = {}

    def submit(self, jobs: list[PolicyJob]) -> int:
        n = len(self.connections)
        parts: list[list[int]] = [[] for _ in range(n)]
        for i, job in enumerate(jobs):
            parts[job.row % n].append(i)
        for worker, indices in enumerate(parts):
            if indices:
                self.connections[worker].send([jobs[i] for i in indices])
        ticket = self._next
        self._next += 1
        self._open[ticket] = parts
        return ticket

    def collect(self, ticket: int) -> list[int]:
        parts = self._open.pop(ticket)
        actions = [0] * sum(len(p) for p in parts)
        errors = []
        for worker, indices in enumerate(parts):
            if not indices:
                continue
            status, answer = self.connections[worker].recv()
            if status != "ok":
                errors.append(answer)
                continue
            for i, action in zip(indices, answer):
                actions[i] = action
        if errors:
            raise RuntimeError(f"an opponent's search failed in a worker: {errors[0]}")
        return actions

    def close(self) -> None:
        for connection in self.connections:
            connection.close()
        for process in self.processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
        self.connections, self.processes = [], []
