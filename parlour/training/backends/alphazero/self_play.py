"""Self-play games of the search-guided learner, and the buffer their positions go to.

Every seat is played by ``PUCT`` guided by the same network, each from its own
information state (a seat never searches what it cannot see).  Each decision yields
one training example: the deciding seat's observation and legal mask, the search's
visit distribution (AlphaZero's ``pi``) and, once the game is over, every seat's
return relative to that seat (the network's value target, see ``az_model``).  At a
simultaneous step every seat to move searches and decides on its own, and the joint
action is applied.  A run may begin with games of a *teacher* policy instead
(``play_teacher_game``): the same examples, with the teacher's move as the target.

A seat's first ``temperature_moves`` decisions (forced moves included) are drawn from the
visit counts (so that self-play games differ), the later ones take the most visited move;
Dirichlet noise is added to the searching seat's root priors (AlphaZero).  A forced move
(one legal action) is not searched; it is still an example, with all weight on it.  A game's randomness
all comes from its seed, so a game is the same in any worker process.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from parlour.baselines import playout
from parlour.baselines.engines.gumbel import Gumbel
from parlour.baselines.engines.puct import PUCT, Searching, drive, evaluate_each
from parlour.baselines.learned.alphazero import inference_network, searching_from
from parlour.baselines.learned.az_model import (
    SEARCH_BATCH,
    NetworkEvaluator,
    PolicyValueNet,
    evaluate_together,
    network_leaves,
    relative_values,
)
from parlour.games.base import Game, State, Symmetry
from parlour.games.engine import SearchableEngine

FIELDS = ("observations", "masks", "policies", "values", "seats", "full")


@dataclass
class Examples:
    """Training examples as arrays with one row per decision (``seats``: who decided;
    ``full``: the policy target is a full search's, see playout cap randomization)."""

    observations: np.ndarray
    masks: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    seats: np.ndarray
    full: np.ndarray

    def __len__(self) -> int:
        return len(self.observations)

    @staticmethod
    def concatenate(parts: list[Examples]) -> Examples:
        return Examples(*(np.concatenate([getattr(p, f) for p in parts]) for f in FIELDS))




SEARCHES = ("auto", "tree", "vector")


class TreeSearchFallback(UserWarning):
    """Self-play with ``search="auto"`` plays with the tree search because the game's
    batched engine lacks what the vectorised search needs (the warning says what)."""


def play_games(game: Game, net: PolicyValueNet, settings: dict[str, Any], seeds: list[int],
               search: str = "auto", lockstep: int | None = None) -> list[tuple[Examples, np.ndarray]]:
    """Self-play games, one from each seed, with the network's search at every seat, all
    played at once: on a batched engine with the vectorised search where the game has
    one that can (``vector_puct.search_refusal``), else with the tree search (with a
    ``TreeSearchFallback`` warning naming what the engine lacks), every round of
    the searches' simulations evaluating the positions they wait for in one call of the
    network (``puct.drive``).  Each game is the game its seed plays alone (``play_game``),
    whatever the other seeds; its examples and returns.  ``search``: ``"tree"`` or
    ``"vector"`` chooses (the two play different games from a seed: the same search,
    its random draws made in another order); ``lockstep``: at most this many games at once
    on the vectorised search (a finished game's place taken by the next)."""
    from parlour.baselines.engines.vector_puct import search_refusal
    from parlour.vector import ENGINES

    if search not in SEARCHES:
        raise ValueError(f"search must be one of {list(SEARCHES)}, got {search!r}")
    engine = ENGINES.get(game.name)
    refusal = search_refusal(engine, game) if search != "tree" else None
    if search == "vector" and refusal is not None:
        raise ValueError(f"{game.name}: no batched engine the vectorised search can run on: {refusal}")
    if search == "auto" and refusal is not None:
        warnings.warn(f"{game.name}'s self-play searches with the tree search: {refusal}", TreeSearchFallback, stacklevel=2)
    net = inference_network(net, settings.get("inference", "float32"))
    if search == "vector" or (search == "auto" and refusal is None and engine.SEARCH_ON_ENGINE):  # type: ignore[union-attr]
        return _vector_games(game, net, settings, seeds, lockstep)
    return drive([_self_play(game, net, settings, seed) for seed in seeds], evaluate_together)


def _vector_games(game: Game, net: PolicyValueNet, settings: dict[str, Any], seeds: list[int],
                  lockstep: int | None = None) -> list[tuple[Examples, np.ndarray]]:
    """``play_games`` on the game's batched engine: at most ``lockstep`` games at once
    (default: all), a finished game's row taking the next seed's game, so that the batch
    stays full; each round, the searches of every game's deciding seats run together
    (``VectorPUCT``).  The rest is ``_record_game``'s (the same examples, forced moves
    and opening temperature), each game drawing from its own generator only, so a game
    does not depend on which row it plays in or beside which others."""
    from parlour.baselines.engines.vector_puct import VectorPUCT
    from parlour.vector.lockstep import lockstep_engine, play_in_lockstep, round_of

    G, P, A = len(seeds), game.num_players, game.num_actions
    rngs = [np.random.default_rng(seed) for seed in seeds]
    games = lockstep_engine(game, G, lockstep)  # play_games checked search_refusal
    gumbel = Gumbel(considered=settings["gumbel_considered"]) if settings["gumbel"] else None
    noise = None if gumbel else (settings["dirichlet_alpha"], settings["dirichlet_fraction"])
    search = VectorPUCT(games, c=settings["c"], noise=noise, gumbel=gumbel)
    leaves = network_leaves(net, settings["rollout_mix"], game.info.max_game_length)
    decided = np.zeros((G, P), dtype=np.int64)
    records: list[list[tuple[np.ndarray, np.ndarray, np.ndarray, int, bool]]] = [[] for _ in range(G)]

    def decide(games: SearchableEngine, alive: np.ndarray, playing: np.ndarray) -> np.ndarray:
        now = round_of(games, alive)
        full = {(b, p): full_search(rngs[playing[b]], settings) for b, p in now.searched}
        policies: dict[tuple[int, int], tuple[np.ndarray, int]] = {}
        for group, simulations in ((True, settings["simulations"]), (False, settings["fast_simulations"])):
            chosen = [key for key in now.searched if full[key] == group]
            if chosen:
                rows, seats = np.array([b for b, _ in chosen]), np.array([p for _, p in chosen])
                result = search.run(games, rows, seats, [rngs[playing[b]] for b in rows], simulations, leaves)
                policies.update(zip(chosen, zip(result.policies(), result.actions.tolist())))
        for i, b, p in now.deciding:
            g = playing[b]
            if (b, p) in policies:
                pi, best = policies[(b, p)]
                opening = decided[g, p] < settings["temperature_moves"] and gumbel is None  # (Gumbel draws vary the moves)
                move = int(rngs[g].choice(A, p=pi)) if opening else best
            else:  # nothing to decide: the target is the forced move
                move = int(np.flatnonzero(now.legal[b, p])[0])
                pi = np.zeros(A)
                pi[move] = 1.0
            records[g].append((now.observations[i, p], now.legal[b, p], pi.astype(np.float32), p, full.get((b, p), True)))
            decided[g, p] += 1
            now.play(b, p, move)
        return now.joint

    returns = play_in_lockstep(game, games, rngs, decide)
    return [_examples(records[g], returns[g]) for g in range(G)]


def _examples(records: list[tuple[np.ndarray, np.ndarray, np.ndarray, int, bool]], returns: np.ndarray) -> tuple[Examples, np.ndarray]:
    """A finished game's examples: its decisions and, for each, the returns relative to the seat."""
    observations, masks, policies, seats, full = zip(*records)
    values = np.stack([relative_values(returns, seat) for seat in seats]).astype(np.float32)
    return (Examples(np.stack(observations).astype(np.float32), np.stack(masks), np.stack(policies), values, np.array(seats),
                     np.array(full, dtype=bool)), np.asarray(returns, dtype=np.float64))


def full_search(rng: np.random.Generator, settings: dict[str, Any]) -> bool:
    """Whether a decision gets the full search (playout cap randomization, KataGo: Wu
    2019): always without ``fast_simulations``, else with probability ``full_fraction``.
    The cheap searches still play the game, so it goes on at a fraction of the cost, and
    their positions still teach the value; only the full searches' policies are targets,
    since a search of a few simulations says little more than the prior it started from."""
    return settings["fast_simulations"] == 0 or bool(rng.random() < settings["full_fraction"])


def play_game(game: Game, net: PolicyValueNet, settings: dict[str, Any], seed: int) -> tuple[Examples, np.ndarray]:
    """One self-play game from ``seed`` with the network's search at every seat: its
    examples and its returns."""
    return play_games(game, net, settings, [seed])[0]


def _self_play(game: Game, net: PolicyValueNet, settings: dict[str, Any], seed: int) -> Searching:
    """One self-play game as a generator of the positions its searches need evaluated."""
    rng = np.random.default_rng(seed)
    evaluator = NetworkEvaluator(net, game, settings["rollout_mix"], rng, min_batch=SEARCH_BATCH)
    gumbel = Gumbel(considered=settings["gumbel_considered"]) if settings["gumbel"] else None
    noise = None if gumbel else (settings["dirichlet_alpha"], settings["dirichlet_fraction"])
    puct = PUCT(evaluator, game.num_actions, c=settings["c"], noise=noise, gumbel=gumbel)
    perfect = game.info.perfect_information

    def decide(state: State, player: int, legal: list[int], opening: bool) -> Searching:
        full = full_search(rng, settings)
        simulations = settings["simulations"] if full else settings["fast_simulations"]
        result = yield from searching_from(puct, state.info_state(player), simulations, rng, perfect)
        pi = result.policy(game.num_actions)
        if gumbel is not None:  # the Gumbel draws already vary the moves
            return pi, result.action, full
        return pi, int(rng.choice(game.num_actions, p=pi)) if opening else result.action, full

    return (yield from _record_game(game, rng, settings["temperature_moves"], decide))


def play_teacher_game(game: Game, settings: dict[str, Any], seed: int) -> tuple[Examples, np.ndarray]:
    """One game from ``seed`` played by the ``teacher`` policy at every seat (each seat
    its own copy, acting from its own information state): its examples and its returns.

    The policy target is the teacher's move (all weight on it, as AlphaGo's supervised
    phase learned expert moves), the value targets are the returns as in ``play_game``.
    During a seat's first ``temperature_moves`` decisions, half the moves played are
    uniformly random legal moves instead (the targets stay the teacher's): a
    deterministic teacher would otherwise replay one game."""
    from parlour.baselines.policy import make_from_spec

    rng = np.random.default_rng(seed)
    teachers = [make_from_spec(settings["teacher"], game, seed=int(rng.integers(2**63))) for _ in range(game.num_players)]

    def decide(state: State, player: int, legal: list[int], opening: bool) -> Searching:
        move = int(teachers[player].act(state.info_state(player)))
        pi = np.zeros(game.num_actions)
        pi[move] = 1.0
        return pi, legal[int(rng.integers(len(legal)))] if opening and rng.random() < 0.5 else move, True
        yield  # a generator that asks for no evaluation (the teacher does not search)

    return drive([_record_game(game, rng, settings["temperature_moves"], decide)], evaluate_each)[0]


Decide = Callable[[State, int, list[int], bool], Searching]
"""``decide(state, seat, legal, opening)``, a generator of evaluation requests that
returns ``(policy target, move played, full)`` (``full``: the target counts), for a seat to move with more than one legal
action; ``opening``: the seat is within its first ``temperature_moves`` decisions, where
moves are varied."""


def _record_game(game: Game, rng: np.random.Generator, opening_moves: int, decide: Decide) -> Searching:
    """Play a game from ``game.new_initial_state(rng)`` with ``decide`` at every seat,
    recording one example per decision; returns ``(examples, returns)``.  Its steps are
    ``playout.playing``'s (``play_out``'s loop, with its limit): the searches wait for the
    network within a step, so the step is chosen here rather than by ``play_out``'s ``act``."""
    state = game.new_initial_state(rng)
    decided = np.zeros(game.num_players, dtype=np.int64)
    records = []
    for _ in playout.playing(state):
        joint = {}
        for player in state.current_players():
            legal = state.legal_actions(player)
            observation, mask = state.observation_tensor(player), state.legal_mask(player).astype(bool)
            if len(legal) == 1:  # nothing to decide: the target is the forced move
                pi = np.zeros(game.num_actions)
                pi[legal[0]] = 1.0
                joint[player], full = legal[0], True
            else:
                pi, joint[player], full = yield from decide(state, player, legal, decided[player] < opening_moves)
            records.append((observation, mask, pi.astype(np.float32), player, full))
            decided[player] += 1
        state.apply(joint if len(joint) > 1 else next(iter(joint.values())))
    return _examples(records, state.returns())


class ReplayBuffer:
    """The newest ``capacity`` examples (a ring), sampled uniformly for training."""

    def __init__(self, capacity: int, observation_shape: tuple[int, ...], num_actions: int, num_players: int) -> None:
        self.capacity = capacity
        self.observations = np.zeros((capacity, *observation_shape), dtype=np.float32)
        self.masks = np.zeros((capacity, num_actions), dtype=bool)
        self.policies = np.zeros((capacity, num_actions), dtype=np.float32)
        self.values = np.zeros((capacity, num_players), dtype=np.float32)
        self.seats = np.zeros(capacity, dtype=np.int64)
        self.full = np.ones(capacity, dtype=bool)
        self.size = 0
        self.next = 0

    def __len__(self) -> int:
        return self.size

    def add(self, examples: Examples) -> None:
        for i in range(len(examples)):
            j = self.next
            for name in FIELDS:
                getattr(self, name)[j] = getattr(examples, name)[i]
            self.next = (j + 1) % self.capacity
            self.size = min(self.size + 1, self.capacity)

    def sample(self, batch: int, rng: np.random.Generator) -> Examples:
        index = rng.integers(self.size, size=batch)
        return Examples(*(getattr(self, name)[index] for name in FIELDS))

    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps (the filled rows only)."""
        n = self.size
        return {**{name: getattr(self, name)[:n].copy() for name in FIELDS}, "next": self.next}

    def restore(self, saved: dict[str, Any]) -> None:
        n = len(saved["observations"])
        if n > self.capacity:
            raise ValueError(f"the saved replay buffer holds {n} examples, more than its capacity {self.capacity}")
        for name in FIELDS:
            getattr(self, name)[:n] = saved[name] if name in saved else True  # buffers saved before "full": all full
        self.size, self.next = n, int(saved["next"])


def augment(batch: Examples, symmetries: list[Symmetry], rng: np.random.Generator) -> Examples:
    """``batch`` with each example replaced by a uniformly drawn symmetric image of it
    (the identity among them): the observation, mask and policy moved by the symmetry,
    the values unchanged (``Game.symmetries``; AlphaGo Zero's augmentation)."""
    if not symmetries:
        return batch
    choice = rng.integers(len(symmetries) + 1, size=len(batch))
    out = Examples(*(getattr(batch, name).copy() for name in FIELDS))
    for index, symmetry in enumerate(symmetries, start=1):
        rows = np.flatnonzero(choice == index)
        if len(rows):
            out.observations[rows] = symmetry.observations(batch.observations[rows])
            out.masks[rows] = symmetry.over_actions(batch.masks[rows])
            out.policies[rows] = symmetry.over_actions(batch.policies[rows])
    return out
