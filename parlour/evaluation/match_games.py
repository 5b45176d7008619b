"""The games of a match: who sits where and with which seeds (``Schedule``, see
:mod:`parlour.evaluation.arena` for the scheme), building the agents, and one scheduled
game played and recorded.  What every way of playing a match (this process, local
worker processes: :mod:`parlour.evaluation.match_pool`, Ray tasks:
:mod:`parlour.evaluation.match_ray`) plays; the arena deals the games out and gathers
the records."""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from parlour.baselines import Policy, make_from_spec
from parlour.baselines.playout import play_out
from parlour.games.base import Game

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
    labels: list[str] = []
    seen: dict[str, int] = {}
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

    applied: list[int | dict[int, int]] = []
    if spec.opening:
        rng = opening_rng(spec.game_seed)
        play_out(state, act=lambda seat: int(rng.choice(state.legal_actions(seat))), record=applied,
                 until=lambda _: len(applied) >= spec.opening)
    play_out(state, act=act, record=applied, max_steps=limit - len(applied))
    moves = tuple(tuple(sorted(action.items())) if isinstance(action, dict) else action for action in applied)
    return GameRecord(
        index=spec.index,
        agents=spec.agents,
        returns=tuple(float(x) for x in state.returns()),
        length=len(moves),
        game_seed=spec.game_seed,
        moves=moves,
    )


class GameFailed(RuntimeError):
    """A policy or the game raised during an arena game (the message says which)."""


def play_reporting(game: Game, policies: Sequence[Policy], labels: Sequence[str], spec: GameSpec, timing: np.ndarray) -> GameRecord:
    """``play_game``, naming the game and the seated agents if anything goes wrong."""
    try:
        return play_game(game, policies, spec, timing)
    except Exception as error:
        seats = ", ".join(f"seat {s}: {labels[a]}" for s, a in enumerate(spec.agents))
        raise GameFailed(f"game {spec.index} ({seats}) failed: {type(error).__name__}: {error}") from error
