"""Teacher games: positions a strong player labels, for a learner to start from.

Kickstarting (``parlour.training.teacher``) asks its teacher at every step of the run,
so a teacher must answer at the engines' speed: in practice a one-ply evaluation.  A
deeper search plays far better (Tribolo's n-tuple evaluation at depth 3 rates +419 on
the bench, at one ply it loses to the original AI) but costs milliseconds a move.
Pretraining spends that cost once, before the run: the teacher plays ``games`` games
against itself (every seat its own, a share ``explore`` of the moves uniformly random so
that the positions leave its own lines), each decision is recorded with the teacher's
move distribution and the mover's final return, and the learner's network is fitted to
them (``parlour.training.backends.ppo.pretrain_fit``) before the first rollout: the
AlphaGo recipe's supervised policy, with the value head fitted on the same games.

A network fitted to the teacher's games plays them only about as well as it agrees with
the teacher, and its mistakes lead it to positions the teacher's own games never reach.
Student games (DAgger, Ross et al. 2011) show the teacher those positions: the fitted
network (``student``, a PPO model file) plays the moves, its most probable legal one with
the same share ``explore`` random, and the teacher still labels every position; the
network is then fitted to both sets of games.

Game ``g`` is played from its own generators (``numpy.random.default_rng([seed, g])``
for the deal, the opening of a game drawn to start deep and the exploring moves, the
teacher reseeded with the same pair), so the positions do not depend on how many
``workers`` play them; student games are numbered on from the teacher's (``first``), so
they are dealt other hands.  Deep starts (``starts``, ``ppo.pretrain_start_share``) matter
where the game has no chance and the teacher is deterministic: its games from the first
position are then one game but for the exploring moves.  This module knows no RL
library: it returns arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from parlour.baselines.learned.ppo_batched import FrozenPPO
from parlour.games import load_game
from parlour.games.base import Game
from parlour.processes import start_pool
from parlour.training.pretrain_lockstep import LOCKSTEP_TASK, Decision, lockstep_games, lockstep_refusal
from parlour.training.starts import SingleOpenings, Starts
from parlour.training.teacher import SingleTeacher

GAMES_PER_TASK = 8
"""Games one teacher plays in turn (a worker's task): fixed, not derived from ``workers``,
so that a search's memory between games (its tables) is the same for any number of them."""


@dataclass
class TeacherGames:
    """The recorded decisions of the teacher's games, one row each, games in order."""

    observations: np.ndarray
    """``(n, *observation_shape)`` float32: the mover's observation."""
    masks: np.ndarray
    """``(n, num_actions)`` bool: the mover's legal moves."""
    labels: np.ndarray
    """``(n, num_actions)`` float32: the teacher's distribution there (zero off the legal moves)."""
    values: np.ndarray
    """``(n,)`` float32: the mover's final return, discounted by ``gamma`` per later decision of its own."""
    games: np.ndarray
    """``(n,)`` int64: the game each row comes from."""

    def __len__(self) -> int:
        return len(self.labels)

    @staticmethod
    def join(parts: list[TeacherGames]) -> TeacherGames:
        return TeacherGames(*(np.concatenate([getattr(part, field.name) for part in parts]) for field in fields(TeacherGames)))


def play_teacher_game(game: Game, teacher: SingleTeacher, index: int, seed: int, explore: float,
                      gamma: float, student: FrozenPPO | None = None, openings: SingleOpenings | None = None) -> TeacherGames:
    """Game ``index`` of the run seeded ``seed``: the teacher at every seat, or the
    ``student`` moving where the teacher labels, from the deal or, with ``openings``, from
    where its drawn opening leaves it (see the module docstring)."""
    rng = np.random.default_rng([seed, index])
    teacher.reset(int(np.random.SeedSequence([seed, index]).generate_state(1)[0]))
    state = game.new_initial_state(rng) if openings is None else openings.deal(rng)
    decisions: list[Decision] = []
    while not state.is_terminal():
        chosen = {}
        for player in state.current_players():
            probs = teacher.distribution(state.info_state(player))
            observation = np.asarray(state.observation_tensor(player), dtype=np.float32)
            mask = state.legal_mask(player).astype(bool)
            decisions.append((observation, mask, probs, player))
            legal = np.flatnonzero(mask)
            if rng.random() < explore:
                chosen[player] = int(rng.choice(legal))
            elif student is None:  # the teacher's own move: its distribution's most probable legal one
                chosen[player] = int(legal[np.argmax(probs[legal])])
            else:
                chosen[player] = int(student.most_probable(observation[None], mask[None])[0])
        state.apply(next(iter(chosen.values())) if len(chosen) == 1 else chosen)
    return recorded(game, decisions, np.asarray(state.returns(), dtype=np.float64), index, gamma)


def recorded(game: Game, decisions: list[Decision], returns: np.ndarray, index: int, gamma: float) -> TeacherGames:
    """Game ``index``'s rows from its decisions in order and its final ``returns``: each
    mover's return discounted by ``gamma`` per later decision of its own."""
    later = np.zeros(game.num_players, dtype=np.int64)  # each seat's decisions after this row, walking back
    values = np.empty(len(decisions), dtype=np.float32)
    for row in range(len(decisions) - 1, -1, -1):
        player = decisions[row][3]
        values[row] = returns[player] * gamma ** later[player]
        later[player] += 1
    if not decisions:
        return TeacherGames(np.zeros((0, *game.observation_shape), dtype=np.float32), np.zeros((0, game.num_actions), dtype=bool),
                            np.zeros((0, game.num_actions), dtype=np.float32), values, np.zeros(0, dtype=np.int64))
    observations, masks, labels, _ = zip(*decisions)
    return TeacherGames(np.stack(observations), np.stack(masks), np.stack(labels).astype(np.float32), values,
                        np.full(len(decisions), index, dtype=np.int64))


@dataclass(frozen=True)
class _Task:
    """One worker's share of the teacher's games: what it needs to play them alone (the
    game by name and configuration, so that it pickles into a spawned process)."""

    game: str
    config: dict[str, Any]
    spec: str
    indices: list[int]
    seed: int
    explore: float
    gamma: float
    lockstep: int
    pooled: bool
    """Played in a worker process beside others (one torch thread each)."""
    student: str
    starts: Starts | None


def _play(task: _Task) -> TeacherGames:
    game = load_game(task.game, **task.config)
    if task.pooled and (task.lockstep or task.student):  # one torch thread a worker process: the workers share the cores
        import torch

        torch.set_num_threads(1)
    if task.lockstep:
        played = lockstep_games(game, task.spec, task.indices, task.seed, task.explore, task.gamma, task.lockstep,
                                task.student, task.starts)
        return TeacherGames.join([recorded(game, decisions, returns, index, task.gamma)
                                  for index, (decisions, returns) in zip(task.indices, played)])
    teacher = SingleTeacher(task.spec, game, seed=task.seed)
    mover = FrozenPPO(task.student, game, deterministic=True) if task.student else None
    openings = SingleOpenings(game, task.starts) if task.starts is not None else None
    return TeacherGames.join([play_teacher_game(game, teacher, index, task.seed, task.explore, task.gamma, mover, openings)
                              for index in task.indices])


def teacher_games(game: Game, spec: str, games: int, seed: int, explore: float = 0.1, gamma: float = 0.99,
                  workers: int = 1, lockstep: int = 0, student: str = "", first: int = 0,
                  starts: Starts | None = None) -> TeacherGames:
    """The ``games`` games of the teacher ``spec`` (module docstring), numbered from
    ``first``, played in ``workers`` processes; the same for any number of workers.
    ``lockstep``: an ``az`` search's games are played that many at once on the game's
    vectorised search (``parlour.training.pretrain_lockstep``); 0, one at a time by the
    player itself.  ``student``: a PPO model file that plays the moves the teacher labels
    (student games); '': the teacher plays them.  ``starts``: the share of the games that
    start deep, how deep and who plays their openings (``parlour.training.starts``); the
    opening's plies are not recorded.  ``None``: every game from the deal."""
    if games < 1:
        raise ValueError(f"pretraining needs at least one teacher game, got games={games!r}")
    if not 0.0 <= explore <= 1.0:
        raise ValueError(f"explore must be in [0, 1], got {explore!r}")
    if lockstep < 0:
        raise ValueError(f"lockstep must be 0 (one game at a time) or more, got {lockstep!r}")
    if lockstep and (refusal := lockstep_refusal(game, spec)) is not None:
        raise ValueError(f"pretraining in lockstep (lockstep={lockstep}): {refusal}")
    if first < 0:
        raise ValueError(f"first must be 0 or more, got {first!r}")
    size = lockstep * LOCKSTEP_TASK if lockstep else GAMES_PER_TASK
    end = first + games
    chunks = [list(range(start, min(end, start + size))) for start in range(first, end, size)]
    tasks = [_Task(game.name, dict(game.config), spec, chunk, seed, explore, gamma, lockstep, workers > 1, student, starts)
             for chunk in chunks]
    if workers == 1:
        parts = [_play(task) for task in tasks]
    else:
        with start_pool(workers) as pool:
            parts = list(pool.run(_play, tasks))
    return TeacherGames.join(parts)
