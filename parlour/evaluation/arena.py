"""The arena: matches between any number of policies, with seat rotation and seeds that
make the result independent of the number of worker processes.

Schedule.  With ``K`` agents and a game of ``P`` seats, every group of ``P`` agents
(all ``C(K, P)`` combinations; the one group when ``K == P``) plays ``games`` games.
Within a group the games cycle through its *seatings*: all ``P!`` assignments of the
group's agents to the seats (for ``P > 4``, the ``P`` cyclic rotations, which still put
every agent in every seat once per cycle), so ``games`` is rounded up to a whole number
of cycles and every agent plays every seat equally often against every opponent.
Games are numbered cycle by cycle (``index = (cycle * groups + group) * seatings +
seating``), so a run cut short is still nearly balanced.

Seeds.  Everything comes from one master seed through ``numpy.random.SeedSequence``
(spawn keys, as in ``SeedSequence.spawn``): the game's own chance (the deal, the prize
order) from key ``(0, cycle)``, shared by every group and seating of a cycle, so each
agent meets the same deals from each seat ("duplicate" play, which removes the luck of
the deal from comparisons); each policy's randomness from key ``(1, index, seat)``,
handed over through ``policy.reset(seed)`` before every game.  A game's result thus
depends only on its index, never on which process plays it or what it played before:
the same table for 1 or N workers.

Policies act only on ``state.info_state(seat)``; at a simultaneous step every current
seat chooses from its information state before the joint action is applied.

This module is the match: its schedule and one game are :mod:`parlour.evaluation.match_games`,
and the games are played here (one worker), in local worker processes
(:mod:`parlour.evaluation.match_pool`: spawned processes that rebuild the game and the
policies from their specs, or unpickle policy objects) or as Ray tasks
(:mod:`parlour.evaluation.match_ray`).
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from parlour.baselines import Policy
from parlour.evaluation.match_games import (  # the games' names, also imported from here
    MAX_PERMUTED_SEATS,  # noqa: F401
    AgentLike,
    GameFailed,  # noqa: F401
    GameRecord,
    GameSpec,
    Schedule,
    agent_labels,
    build_agents,
    make_schedule,
    opening_rng,  # noqa: F401
    play_game,  # noqa: F401
    play_reporting,
)
from parlour.evaluation.match_pool import play_in_pool
from parlour.games.base import Game

BACKENDS = ("local", "ray")
"""Where ``play_match`` plays: local processes, or Ray tasks (``match_ray``)."""

class _Progress:
    """tqdm if installed (it comes with the ``train`` extra), else a plain stderr counter."""

    def __init__(self, total: int, enabled: bool, description: str) -> None:
        self.total, self.done, self.enabled = total, 0, enabled
        self.bar = None
        self.last_shown = -1
        self.interactive = sys.stderr.isatty()
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                pass
            else:
                self.bar = tqdm(total=total, desc=description, unit="game", file=sys.stderr, leave=False)
        self.description = description

    def update(self, count: int) -> None:
        self.done += count
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(count)
            return
        tenth = 10 * self.done // self.total
        if self.interactive:
            print(f"\r{self.description}: {self.done}/{self.total} games", end="", file=sys.stderr, flush=True)
        elif tenth != self.last_shown:  # logs: one line per tenth
            self.last_shown = tenth
            print(f"{self.description}: {self.done}/{self.total} games", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.enabled and self.interactive:
            print(file=sys.stderr)


@dataclass
class MatchResult:
    """Every game of a match and the schedule that produced them.

    ``summary()`` (in :mod:`parlour.evaluation.report`) turns it into the tables.
    """

    game: Game
    labels: list[str]
    schedule: Schedule
    records: list[GameRecord]
    seconds: float = 0.0
    seconds_per_move: list[float] = field(default_factory=list)
    workers: int = 1


def play_match(
    game: Game,
    agents: Sequence[AgentLike],
    games: int,
    seed: int = 0,
    workers: int = 1,
    progress: bool = True,
    backend: str = "local",
    address: str = "",
    opening: int = 0,
) -> MatchResult:
    """Play ``games`` games per group of agents (see the module docstring for the
    schedule and seeds) with ``workers`` processes; the records are the same for any
    number of workers.  ``backend="ray"``: the games are Ray tasks over every CPU of the
    cluster at ``address`` (see ``match_ray``; ``workers`` is then the cluster's CPUs),
    with the same records again.  ``opening``: every game starts with this many plies
    drawn uniformly at random from its seed (as the benchmark's ladders do), so that
    deterministic searchers do not replay one game.

    ``agents``: specs such as ``"mcts:simulations=400"`` or ``Policy`` objects (these
    are pickled to the workers, so with ``workers > 1`` they must be importable there).
    """
    if opening < 0:
        raise ValueError(f"opening must be at least 0, got {opening}")
    policies = build_agents(game, agents)  # fail early, in this process, on bad specs
    labels = agent_labels(agents)
    schedule = make_schedule(len(policies), game.num_players, games, seed)
    specs = [replace(schedule.game(i), opening=opening) for i in range(schedule.num_games)]
    records, seconds, seconds_per_move, workers = play_specs(
        game, agents, specs, workers=workers, progress=progress, backend=backend, address=address, policies=policies
    )
    return MatchResult(
        game=game,
        labels=labels,
        schedule=schedule,
        records=records,
        seconds=seconds,
        seconds_per_move=seconds_per_move,
        workers=workers,
    )


def play_specs(
    game: Game,
    agents: Sequence[AgentLike],
    specs: Sequence[GameSpec],
    workers: int = 1,
    progress: bool = True,
    backend: str = "local",
    address: str = "",
    policies: Sequence[Policy] | None = None,
    description: str = "",
) -> tuple[list[GameRecord], float, list[float], int]:
    """Play the given games (any specs, e.g. a benchmark's chosen pairings) among
    ``agents``: ``(records sorted by index, seconds, seconds per move of each agent,
    workers used)``.  The records depend only on the specs, not on ``workers``."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {list(BACKENDS)}, got {backend!r}")
    if policies is None:
        policies = build_agents(game, agents)
    labels = agent_labels(agents)
    bar = _Progress(len(specs), progress, description or f"{game.name} arena")
    timing = np.zeros((len(policies), 2))
    start = time.perf_counter()
    records: list[GameRecord] = []
    try:
        if backend == "ray":
            from parlour.evaluation.match_ray import play_on_ray

            records, workers = play_on_ray(game, agents, specs, timing, bar.update, address)
        elif workers == 1:
            with _one_torch_thread():
                for spec in specs:
                    records.append(play_reporting(game, policies, labels, spec, timing))
                    bar.update(1)
        else:
            records = play_in_pool(game, agents, specs, workers, timing, bar.update)
    finally:
        bar.close()
    records.sort(key=lambda r: r.index)
    moves = np.maximum(timing[:, 1], 1)
    return records, time.perf_counter() - start, (timing[:, 0] / moves).tolist(), workers


@contextlib.contextmanager
def _one_torch_thread() -> Iterator[None]:
    """Trained players evaluate one position at a time, where torch's threads cost more
    than they give (on a busy machine, tens of times more): the games are played with one
    torch thread, as in the workers, and the caller's setting is restored after."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
