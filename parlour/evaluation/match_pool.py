"""The arena's local worker processes: a pool of spawned processes, each rebuilding the
game and the agents once, to which the games of a match are dealt in chunks.

What a game is and which seeds it gets come from the schedule (:mod:`parlour.evaluation.match_games`),
never from the process that plays it, so the records are those of one process playing
them all (:func:`parlour.evaluation.arena.play_specs` plays that way with one worker).
Workers are spawned (spawn-safe top-level functions) and end with their parent, even on
SIGKILL; Ctrl-C is the parent's to handle.
"""

from __future__ import annotations

import math
import pickle
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from parlour.evaluation.match_games import AgentLike, GameFailed, GameRecord, GameSpec, agent_labels, build_agents, play_reporting
from parlour.games.base import Game
from parlour.processes import die_with_parent, ignore_ctrl_c, start_pool, stopping

_WORKER: dict[str, Any] = {}


def _init_worker(game: Game, packed_agents: bytes | Sequence[AgentLike]) -> None:
    """Run once in each worker process: rebuild the game's policies.  Ctrl-C is the
    parent's to handle (it stops the workers), so the workers ignore it.

    The agents come pickled by the parent (or as they are) and are unpickled here, where a failure (a
    model file gone, a policy that cannot be rebuilt) is kept and raised by the first
    task, so the parent reports it.  Unpickled by the pool itself, such a failure would
    kill every worker at start, and a pool restarts dead workers forever."""
    die_with_parent()  # even a SIGKILL of the parent ends its workers
    ignore_ctrl_c()
    try:
        agents = pickle.loads(packed_agents) if isinstance(packed_agents, bytes) else packed_agents
        _WORKER["game"] = game
        _WORKER["policies"] = build_agents(game, agents)
        if "torch" in sys.modules:  # a trained player: one thread per worker, as many workers as cores
            sys.modules["torch"].set_num_threads(1)
        _WORKER["labels"] = agent_labels(agents)
    except Exception as error:  # noqa: BLE001 (any failure is reported by the first task)
        _WORKER["error"] = GameFailed(f"a worker could not set up the agents: {type(error).__name__}: {error}")


def _play_chunk(specs: Sequence[GameSpec]) -> tuple[list[GameRecord], np.ndarray]:
    """Play some games in a worker; returns their records and the timing added (the games
    before the match's first failure, if another worker's game failed meanwhile)."""
    if "error" in _WORKER:
        raise _WORKER["error"]
    game, policies, labels = _WORKER["game"], _WORKER["policies"], _WORKER["labels"]
    timing = np.zeros((len(policies), 2))
    records = []
    for spec in specs:
        if stopping():
            break
        records.append(play_reporting(game, policies, labels, spec, timing))
    return records, timing


def _chunks(items: Sequence[GameSpec], size: int) -> Iterable[Sequence[GameSpec]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def play_in_pool(
    game: Game,
    agents: Sequence[AgentLike],
    specs: Sequence[GameSpec],
    workers: int,
    timing: np.ndarray,
    progress: Callable[[int], None],
) -> list[GameRecord]:
    """Play ``specs`` in ``workers`` processes: their records (in the order they finish),
    the thinking time added to ``timing``, ``progress(count)`` told as chunks end."""
    size = max(1, min(64, math.ceil(len(specs) / (workers * 8))))
    records: list[GameRecord] = []
    # A failed game ends the match after the games being played (``WorkerPool.run``).
    # Leaving the block terminates the workers at once: idle after the last result or a
    # failure, busy after Ctrl-C (which the workers ignore, so that only this process
    # reports it), without waiting for the games still queued.
    with start_pool(workers, _init_worker, (game, pickle.dumps(list(agents)))) as pool:
        for chunk_records, chunk_timing in pool.run(_play_chunk, list(_chunks(specs, size)), ordered=False):
            records.extend(chunk_records)
            timing += chunk_timing
            progress(len(chunk_records))
    return records
