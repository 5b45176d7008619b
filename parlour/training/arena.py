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
Workers are spawned processes (spawn-safe top-level functions) that rebuild the game
and the policies from their specs (or unpickle policy objects).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import pickle
import signal
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from parlour.baselines import Policy, make_from_spec
from parlour.baselines.playout import joint_action
from parlour.games.base import Game
from parlour.processes import die_with_parent

MAX_PERMUTED_SEATS = 4
"""Up to this many seats every permutation is a seating; beyond it, the rotations."""


@dataclass(frozen=True)
class Schedule:
    """Which agents sit where in every game, and every game's seeds."""

    num_agents: int
    num_seats: int
    groups: tuple[tuple[int, ...], ...]
    seatings: tuple[tuple[int, ...], ...]
    """``seating[seat]`` = position in the group of the agent who sits there."""
    games_per_group: int
    seed: int

    @property
    def cycles(self) -> int:
        return self.games_per_group // len(self.seatings)

    @property
    def num_games(self) -> int:
        return self.games_per_group * len(self.groups)

    def game(self, index: int) -> GameSpec:
        """The seats and seeds of game ``index``."""
        if not 0 <= index < self.num_games:
            raise IndexError(f"game index {index} is outside 0..{self.num_games - 1}")
        cycle, rest = divmod(index, len(self.groups) * len(self.seatings))
        group_index, seating_index = divmod(rest, len(self.seatings))
        group = self.groups[group_index]
        agents = tuple(group[k] for k in self.seatings[seating_index])
        deal = _seed_from(self.seed, (0, cycle))
        seat_seeds = tuple(_seed_from(self.seed, (1, index, seat)) for seat in range(self.num_seats))
        return GameSpec(index=index, agents=agents, game_seed=deal, seat_seeds=seat_seeds)


@dataclass(frozen=True)
class GameSpec:
    index: int
    agents: tuple[int, ...]
    """The agent (index into the agent list) at each seat."""
    game_seed: int
    seat_seeds: tuple[int, ...]
    opening: int = 0
    """Moves played uniformly at random, from ``game_seed``, before the agents take over
    (the benchmark's openings for games without chance; 0 in an ordinary arena)."""


def opening_rng(game_seed: int) -> np.random.Generator:
    """The generator of a game's random opening: a child of its game seed."""
    return np.random.default_rng(np.random.SeedSequence(game_seed, spawn_key=(1,)))


@dataclass(frozen=True)
class GameRecord:
    """The outcome of one game."""

    index: int
    agents: tuple[int, ...]
    returns: tuple[float, ...]
    length: int
    game_seed: int
    moves: tuple = ()
    """What was applied at each step: an action, or ``((seat, action), ...)`` for a
    simultaneous step (the game replays from ``game_seed`` with them)."""


def _seed_from(master: int, key: tuple[int, ...]) -> int:
    sequence = np.random.SeedSequence(master, spawn_key=key)
    return int(sequence.generate_state(1, dtype=np.uint64)[0])


def make_schedule(num_agents: int, num_seats: int, games: int, seed: int) -> Schedule:
    """The schedule for ``games`` games per group of agents (rounded up to whole cycles)."""
    if num_agents < 2:
        raise ValueError(f"an arena needs at least 2 agents, got {num_agents}")
    if num_agents < num_seats:
        raise ValueError(f"this game has {num_seats} seats but only {num_agents} agents were given; give at least {num_seats}")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if num_seats <= MAX_PERMUTED_SEATS:
        seatings = tuple(itertools.permutations(range(num_seats)))
    else:
        seatings = tuple(tuple((seat + shift) % num_seats for seat in range(num_seats)) for shift in range(num_seats))
    per_group = math.ceil(games / len(seatings)) * len(seatings)
    return Schedule(
        num_agents=num_agents,
        num_seats=num_seats,
        groups=tuple(itertools.combinations(range(num_agents), num_seats)),
        seatings=seatings,
        games_per_group=per_group,
        seed=int(seed),
    )


# --- playing ----------------------------------------------------------------------------

AgentLike = str | Policy


def build_agents(game: Game, agents: Sequence[AgentLike]) -> list[Policy]:
    """Policies from specs (``name:key=value,...``) or ready policy objects.

    A bad spec raises ``ValueError`` with the policy library's message.
    """
    built = []
    for agent in agents:
        if isinstance(agent, Policy):
            if agent.game != game:
                raise ValueError(f"policy {agent!r} was made for {agent.game!r}, not {game!r}")
            built.append(agent)
        elif isinstance(agent, str):
            built.append(make_from_spec(agent, game))
        else:
            raise ValueError(f"an agent is a spec such as 'random' or a Policy, got {agent!r}")  # noqa: TRY004 (bad input is a ValueError here)
    return built


def agent_labels(agents: Sequence[AgentLike]) -> list[str]:
    """Distinct display names: the spec (or ``repr`` of a policy), ``#2``... for repeats."""
    names = [agent if isinstance(agent, str) else repr(agent) for agent in agents]
    labels, seen = [], {}
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        labels.append(name if names.count(name) == 1 else f"{name}#{seen[name]}")
    return labels


def play_game(game: Game, policies: Sequence[Policy], spec: GameSpec, timing: np.ndarray | None = None) -> GameRecord:
    """Play one scheduled game; ``policies`` is the full agent list.

    ``timing`` (optional, shape ``(K, 2)``): adds seconds spent in ``act`` and moves
    made per agent.
    """
    seated = [policies[a] for a in spec.agents]
    for policy, seed in zip(seated, spec.seat_seeds):
        policy.reset(seed)
    state = game.new_initial_state(spec.game_seed)
    limit = game.info.max_game_length
    clock = time.perf_counter

    def act(seat: int) -> int:
        start = clock()
        action = int(seated[seat].act(state.info_state(seat)))
        if timing is not None:
            timing[spec.agents[seat]] += (clock() - start, 1)
        return action

    moves: list[int | tuple[tuple[int, int], ...]] = []
    if spec.opening:
        rng = opening_rng(spec.game_seed)
        while len(moves) < spec.opening and not state.is_terminal():
            action = joint_action(state, lambda seat: int(rng.choice(state.legal_actions(seat))))
            state.apply(action)
            moves.append(tuple(sorted(action.items())) if isinstance(action, dict) else action)
    while not state.is_terminal():
        if len(moves) >= limit:
            raise RuntimeError(f"{game.name}: game {spec.index} did not end within max_game_length={limit} steps")
        action = joint_action(state, act)
        state.apply(action)
        moves.append(tuple(sorted(action.items())) if isinstance(action, dict) else action)
    return GameRecord(
        index=spec.index,
        agents=spec.agents,
        returns=tuple(float(x) for x in state.returns()),
        length=len(moves),
        game_seed=spec.game_seed,
        moves=tuple(moves),
    )


BACKENDS = ("local", "ray")
"""Where ``play_match`` plays: local processes, or Ray tasks (``arena_ray``)."""

_WORKER: dict[str, Any] = {}


def _init_worker(game: Game, packed_agents: bytes | Sequence[AgentLike]) -> None:
    """Run once in each worker process: rebuild the game's policies.  Ctrl-C is the
    parent's to handle (it stops the workers), so the workers ignore it.

    The agents come pickled by the parent (or as they are) and are unpickled here, where a failure (a
    model file gone, a policy that cannot be rebuilt) is kept and raised by the first
    task, so the parent reports it.  Unpickled by the pool itself, such a failure would
    kill every worker at start, and a pool restarts dead workers forever."""
    die_with_parent()  # even a SIGKILL of the parent ends its workers
    signal.signal(signal.SIGINT, signal.SIG_IGN)
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
    """Play some games in a worker; returns their records and the timing added."""
    if "error" in _WORKER:
        raise _WORKER["error"]
    game, policies, labels = _WORKER["game"], _WORKER["policies"], _WORKER["labels"]
    timing = np.zeros((len(policies), 2))
    records = [_play_reporting(game, policies, labels, spec, timing) for spec in specs]
    return records, timing


class GameFailed(RuntimeError):
    """A policy or the game raised during an arena game (the message says which)."""


def _play_reporting(game: Game, policies: Sequence[Policy], labels: Sequence[str], spec: GameSpec, timing: np.ndarray) -> GameRecord:
    """``play_game``, naming the game and the seated agents if anything goes wrong."""
    try:
        return play_game(game, policies, spec, timing)
    except Exception as error:
        seats = ", ".join(f"seat {s}: {labels[a]}" for s, a in enumerate(spec.agents))
        raise GameFailed(f"game {spec.index} ({seats}) failed: {type(error).__name__}: {error}") from error


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

    ``summary()`` (in :mod:`parlour.training.report`) turns it into the tables.
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
    cluster at ``address`` (see ``arena_ray``; ``workers`` is then the cluster's CPUs),
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
            from parlour.training.arena_ray import play_on_ray

            records, workers = play_on_ray(game, agents, specs, timing, bar, address)
        elif workers == 1:
            with _one_torch_thread():
                for spec in specs:
                    records.append(_play_reporting(game, policies, labels, spec, timing))
                    bar.update(1)
        else:
            records = _play_parallel(game, agents, specs, workers, timing, bar)
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


def _chunks(items: Sequence[GameSpec], size: int) -> Iterable[Sequence[GameSpec]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _play_parallel(
    game: Game,
    agents: Sequence[AgentLike],
    specs: Sequence[GameSpec],
    workers: int,
    timing: np.ndarray,
    bar: _Progress,
) -> list[GameRecord]:
    import multiprocessing

    size = max(1, min(64, math.ceil(len(specs) / (workers * 8))))
    context = multiprocessing.get_context("spawn")
    records: list[GameRecord] = []
    # Leaving the block terminates the workers at once, whatever ended it: the last
    # result, a failed game, or Ctrl-C (which the workers ignore, so that only this
    # process reports it), instead of waiting for the games still queued.
    with context.Pool(workers, initializer=_init_worker, initargs=(game, pickle.dumps(list(agents)))) as pool:
        for chunk_records, chunk_timing in pool.imap_unordered(_play_chunk, list(_chunks(specs, size))):
            records.extend(chunk_records)
            timing += chunk_timing
            bar.update(len(chunk_records))
    return records
