"""The arena's games as Ray tasks (``parlour arena --backend ray``): the same schedule,
seeds and records as the local arena, spread over every CPU of a Ray cluster.

Each game's seeds come from the schedule alone (``match_games.make_schedule``), never from
where it is played, so the tables are exactly those of the local arena for the same
seed; a test compares them.  The agents travel once, pickled into Ray's object store;
each worker process rebuilds them once per match (keyed by the pickle's digest) and
keeps them for the chunks of games it is given.  A game that fails raises the same
``GameFailed`` as the local arena, naming the game and the seated agents.
"""

from __future__ import annotations

import hashlib
import math
import pickle
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from parlour.evaluation.match_games import (
    GameFailed,
    GameRecord,
    GameSpec,
    agent_labels,
    build_agents,
    play_reporting,
)
from parlour.games.base import Game
from parlour.ray_cluster import ray_session

_BUILT: dict[str, tuple[list[Any], list[str]]] = {}


def _play_chunk(game: Game, packed_agents: bytes, specs: Sequence[GameSpec]) -> tuple[list[GameRecord], np.ndarray]:
    """A Ray task: some games of the match, and the thinking time they added per agent."""
    key = hashlib.sha256(packed_agents).hexdigest()
    if key not in _BUILT:
        agents = pickle.loads(packed_agents)
        _BUILT.clear()  # one match's agents at a time per worker process
        _BUILT[key] = (build_agents(game, agents), agent_labels(agents))
    policies, labels = _BUILT[key]
    timing = np.zeros((len(policies), 2))
    return [play_reporting(game, policies, labels, spec, timing) for spec in specs], timing


def play_on_ray(game: Game, agents: Sequence[Any], specs: Sequence[GameSpec], timing: np.ndarray,
                progress: Callable[[int], None], address: str = "") -> tuple[list[GameRecord], int]:
    """Play ``specs`` as Ray tasks; the records (any order) and the cluster's CPU count
    (the thinking time added to ``timing``, ``progress(count)`` told as chunks end)."""
    import ray
    from ray.exceptions import RayTaskError

    with ray_session(address):
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = max(1, min(64, math.ceil(len(specs) / (cpus * 8))))
        task = ray.remote(num_cpus=1)(_play_chunk)
        packed = pickle.dumps(list(agents))
        pending = [task.remote(game, packed, specs[i:i + size]) for i in range(0, len(specs), size)]
        records: list[GameRecord] = []
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                try:
                    chunk_records, chunk_timing = ray.get(done[0])
                except RayTaskError as error:
                    cause = error.cause if isinstance(error.cause, BaseException) else error
                    raise GameFailed(str(cause)) from None
                records.extend(chunk_records)
                timing += chunk_timing
                progress(len(chunk_records))
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
    return records, cpus
