"""Training an n-tuple evaluation by temporal differences inside the game's alpha-beta
search (``algo = "ntuple"``, ``parlour train --algo ntuple`` or its shorthand ``parlour
train-ntuple``; the model and its player: ``baselines.learned.ntuple``).  A backend of
the one training loop (``trainer.py``): config.toml, evaluations, checkpoints, resume,
best.zip and last.zip as for every run.

Every segment of the run (``eval_every`` games; ``timesteps`` counts games) is a
*generation*:

1. **Games.** The search plays itself at a fixed ``depth`` with the current best weights
   (generation 0: with its own hand-made evaluation, the *teacher*, or with all weights
   zero, tabula rasa), the first ``opening`` plies of every game random so that the games
   differ.  Every position after a move is recorded as its feature indices, every game
   with its result for the perspective seat (win 1, draw 1/2, loss 0; in general the
   seat's return mapped to [0, 1] by the game's returns range).  A game whose features
   see the board from every seat (Tribolo's three) gives one chain of positions per
   seat, each with that seat's result: to the fit, each is a game of its own.
2. **TD(lambda).**  The logistic model is fitted to the lambda-returns of the newest
   ``window`` generations' games (Sutton 1988): the target of a position is
   ``(1 - lambda) * V(next) + lambda * target(next)``, the game's result at its end, with
   ``V`` the model's own prediction; targets are recomputed from the current weights at
   every epoch (full-batch Adam on the cross-entropy, L2 ``l2``).  lambda = 1 is
   regression on results (the Texel method of chess programmers), lambda = 0 one-step TD.
3. **Gating.**  The new weights become ``best.zip`` only by scoring at least
   ``gate_threshold`` against the current best (at first the zero weights) in
   ``gate_games`` games at ``play_depth`` (default: the games' depth), each seat equally often, each game starting
   with ``opening`` random plies (without them two deterministic searchers replay one
   game); gating.csv keeps every match.

Everything random comes from the run's seed: game ``i`` of the run has the seed
``seed * 1_000_003 + i``, so the same seed gives the same games, weights and gates with
any number of ``workers``.  A checkpoint keeps the weights, the best weights and which
weights played each generation of the window; a resume plays the window's games again
(the same games, from their seeds) rather than storing them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from parlour.baselines.engines.alphabeta import AlphaBetaSearch
from parlour.baselines.learned.ntuple import NTupleEvaluation, NTupleFeatures, ntuple_features, result_in_unit, save_ntuple
from parlour.baselines.playout import play_out
from parlour.baselines.policy import lookup
from parlour.games import load_game
from parlour.games.base import Game
from parlour.processes import start_pool
from parlour.training.backend import Backend, BestSoFar, RunContext
from parlour.training.backend_settings import BackendSettings, setting
from parlour.training.gating import GATING_FIELDS, gating_match, untrained_best_warning
from parlour.training.run_files import Checkpoint, write_csv


@dataclass(frozen=True)
class NTupleSettings(BackendSettings):
    """Settings of ``algo = "ntuple"`` (the ``[ntuple]`` table; ``this module``):
    the self-play games' search ``depth`` and ``opening`` random plies; ``play_depth``: the
    depth of the evaluations and gating matches, the depth the model will play at (0:
    ``depth``; a deeper search can rank two evaluations otherwise); ``teacher``: the
    first generation plays with the search's own evaluation (else with all weights zero);
    TD(``lam``) fits of ``epochs`` full-batch Adam steps (``learning_rate``, L2 ``l2``) on
    the newest ``window`` generations' games; a generation becomes best by scoring at
    least ``gate_threshold`` in ``gate_games`` games against the best (0: always);
    self-play and gating in ``workers`` processes (the results do not depend on it);
    ``features``: the game's n-tuple feature set (empty: its default,
    ``baselines.learned.ntuple.NTUPLE_FEATURE_SETS``).  A generation is a segment of the
    run: ``eval_every`` games; ``timesteps`` counts games."""

    depth: int = setting(2, low=1, help="search depth of the self-play games")
    opening: int = setting(4, low=0, help="random plies that start every self-play game")
    play_depth: int = setting(0, low=0, help="search depth of the evaluations and gating matches, the depth the model will "
                              "play at (0: depth)")
    teacher: bool = setting(True, help="generation 0 plays with the search's own evaluation (--no-teacher: with all weights zero)")
    lam: float = setting(0.7, low=0, high=1, help="TD(lambda)'s lambda (1: fit the results)")
    epochs: int = setting(300, low=1, help="full-batch epochs per fit")
    learning_rate: float = setting(0.01, positive=True, help="the fits' Adam step size")
    l2: float = setting(1e-5, low=0, help="the fits' L2 penalty")
    window: int = setting(3, low=1, help="fit on the newest this many generations' games")
    gate_games: int = setting(100, low=0, help="games of each gating match (0: every generation is best)")
    gate_threshold: float = setting(0.55, low=0, high=1, help="the score against the best that makes a generation best")
    workers: int = setting(1, low=1, help="worker processes for self-play and gating")
    features: str = setting("", help="the game's n-tuple feature set (empty: its newest; Double Card: reach, or windows)")

    legacy: ClassVar[dict[str, Any]] = {"features": "windows"}
    """Runs from before ``features`` used every game's first feature set, ``windows``."""


Recorded = tuple[np.ndarray, float]
"""A chain of positions seen from one perspective seat: their feature indices ``[positions,
tuples]`` and the seat's result mapped to [0, 1] (``result_in_unit``).  TD(lambda) fits
each chain as a game of its own."""

SETUP_STREAM = 1
"""The random setup of game ``seed`` (Tribolo's walls and cells) is drawn from
``default_rng([seed, SETUP_STREAM])``, apart from its opening plies' ``default_rng(seed)``."""


def record_game(game: Game, weights: np.ndarray | None, depth: int, opening: int, seed: int,
                features: str | None = None) -> list[Recorded]:
    """One game of the search against itself (``weights``: the n-tuple evaluation's of the
    feature set ``features``, default the game's; ``None``: the search's own), its first
    ``opening`` plies drawn uniformly from ``seed``: a chain of its positions for each
    perspective seat of the features (one for Double Card, three for Tribolo), each with
    that seat's result."""
    feature_set = ntuple_features(game, features)
    search = lookup(feature_set.search, game)
    players = [search(game, seed * game.num_players + seat, depth=depth, time_limit=None) for seat in range(game.num_players)]
    if weights is not None:
        for player in players:
            assert isinstance(player, AlphaBetaSearch), f"{feature_set.search!r} is an alpha-beta search with a leaf evaluation"
            player.evaluate = NTupleEvaluation(weights, feature_set)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(seed=np.random.default_rng([seed, SETUP_STREAM]))
    shape = feature_set.indices(state).shape  # [perspectives, tuples]
    positions = []

    def act(seat: int) -> int:
        nonlocal opening
        if opening > 0:
            opening -= 1
            legal = state.legal_actions(seat)
            return legal[int(rng.integers(len(legal)))]
        return players[seat].act(state.info_state(seat))

    def apply(action: int | dict[int, int]) -> None:
        """The step, and the position it leads to if the game goes on (a training position)."""
        state.apply(action)
        if not state.is_terminal():
            positions.append(feature_set.indices(state))

    play_out(state, act=act, apply=apply)
    returns = state.returns()
    chains = np.array(positions, dtype=np.int32).reshape(len(positions), *shape)
    return [(np.ascontiguousarray(chains[:, row]), result_in_unit(game, returns, seat))
            for row, seat in enumerate(feature_set.seats(game))]


def _record(task: tuple[str, dict[str, Any], np.ndarray | None, int, int, int, str | None]) -> list[Recorded]:
    name, options, weights, depth, opening, seed, features = task
    return record_game(load_game(name, **options), weights, depth, opening, seed, features)


def record_games(game: Game, weights: np.ndarray | None, depth: int, opening: int, seeds: list[int], workers: int = 1,
                 features: str | None = None) -> list[Recorded]:
    """``record_game`` for every seed, in seed order, in ``workers`` processes: the chains
    of every game, one after another."""
    tasks = [(game.name, game.config, weights, depth, opening, seed, features) for seed in seeds]
    if workers == 1:
        games = [_record(task) for task in tasks]
    else:
        with start_pool(workers) as pool:
            games = list(pool.run(_record, tasks, chunksize=max(1, len(tasks) // (8 * workers))))
    return [chain for chains in games for chain in chains]


def td_targets(predictions: np.ndarray, lengths: np.ndarray, results: np.ndarray, lam: float) -> np.ndarray:
    """The lambda-returns of every position, games one after another in ``predictions``:
    ``G_t = (1 - lam) * V_{t+1} + lam * G_{t+1}``, and the game's result at its last position."""
    targets = np.empty_like(predictions)
    ends = np.cumsum(lengths)
    following = results.astype(np.float64).copy()  # G_{t+1} of each game, walking back
    for k in range(int(lengths.max(initial=0))):  # all the games at once, k positions from their ends
        alive = lengths > k
        rows = ends[alive] - 1 - k
        if k == 0:
            targets[rows] = results[alive]
        else:
            targets[rows] = (1 - lam) * predictions[rows + 1] + lam * following[alive]
        following[alive] = targets[rows]
    return targets


@dataclass
class FitReport:
    """How a fit went: positions, and the cross-entropy against the games' results
    (the Monte Carlo targets) before and after."""

    positions: int
    result_loss_before: float
    result_loss_after: float


def td_fit(games: list[Recorded], weights: np.ndarray, settings: NTupleSettings) -> tuple[np.ndarray, FitReport]:
    """New weights from ``weights`` by TD(lambda) on ``games`` (see the module docstring)."""
    features = np.concatenate([positions for positions, _ in games]).astype(np.intp)
    lengths = np.array([len(positions) for positions, _ in games])
    results = np.array([result for _, result in games])
    finals = np.repeat(results, lengths)
    rows, tuples = features.shape
    flat = features.ravel()
    w = weights.astype(np.float64).copy()
    first = second = np.zeros_like(w)
    beta1, beta2 = 0.9, 0.999

    def predict(w: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-w[features].sum(axis=1)))

    def result_loss(p: np.ndarray) -> float:
        p = np.clip(p, 1e-9, 1 - 1e-9)
        return float(-np.mean(finals * np.log(p) + (1 - finals) * np.log(1 - p)))

    before = result_loss(predict(w))
    for epoch in range(1, settings.epochs + 1):
        p = predict(w)
        error = p - td_targets(p, lengths, results, settings.lam)  # the cross-entropy's gradient in the logit
        gradient = np.bincount(flat, weights=np.repeat(error, tuples), minlength=len(w)) / rows + settings.l2 * w
        first = beta1 * first + (1 - beta1) * gradient
        second = beta2 * second + (1 - beta2) * gradient**2
        w -= settings.learning_rate * (first / (1 - beta1**epoch)) / (np.sqrt(second / (1 - beta2**epoch)) + 1e-8)
    return w, FitReport(rows, before, result_loss(predict(w)))


class NTupleBackend(Backend):
    """The n-tuple learner (see the module docstring)."""

    algo = "ntuple"
    Settings = NTupleSettings
    summary = "an n-tuple evaluation by TD(lambda) inside alpha-beta; steps are games, a generation every --eval-every games"

    def __init__(self, run: RunContext) -> None:
        super().__init__(run)
        self.settings = NTupleSettings(**self.config.ntuple)
        self.eval_workers = self.settings.workers
        self.eval_opening = self.settings.opening

    def check_settings(self) -> None:
        # a game without features, or without the set named, is refused here
        self.features: NTupleFeatures = ntuple_features(self.game, self.settings.features)

    def learner_spec(self, path: str) -> str:
        """How a model of the run plays in its evaluations and gating matches: at ``play_depth``."""
        return f"ntuple:{path},depth={self.settings.play_depth or self.settings.depth},time_limit=none"

    def untrained_best_warning(self) -> str:
        return untrained_best_warning(self.gating, self.settings.gate_threshold, self.settings.gate_games, "model")

    # -- the model ---------------------------------------------------------------------

    def start(self) -> None:
        self.weights = np.zeros(self.features.size)
        self.best_weights = self.weights.copy()
        self.generation = 0
        self.window: list[tuple[int, int, np.ndarray | None]] = []
        """The newest generations: (first game index, games, the weights that played; None: the teacher)."""
        self.games: list[list[Recorded]] = []
        self.gating: list[dict[str, Any]] = []

    def restore(self, checkpoint: Checkpoint) -> None:
        state = checkpoint.state
        self.weights, self.best_weights = state["weights"], state["best_weights"]
        self.generation, self.window, self.gating = state["generation"], state["window"], state["gating"]
        self.run.log(f"playing the {sum(count for _, count, _ in self.window):,} games of the last {len(self.window)} "
                     "generations again (the fits' window)")
        self.games = [self._record(first, count, playing) for first, count, playing in self.window]

    def _record(self, first: int, count: int, playing: np.ndarray | None) -> list[Recorded]:
        seeds = [self.config.seed * 1_000_003 + first + i for i in range(count)]
        settings = self.settings
        return record_games(self.game, playing, settings.depth, settings.opening, seeds, settings.workers, self.features.name)

    def train(self, step: int, until: int, advance: Callable[[int], None]) -> int:
        """One generation: ``until - step`` games of self-play, then a fit on the window."""
        settings, start = self.settings, time.perf_counter()
        playing = None if (self.generation == 0 and settings.teacher) else self.best_weights.copy()
        count = until - step
        self.games = (self.games + [self._record(step, count, playing)])[-settings.window:]
        self.window = (self.window + [(step, count, playing)])[-settings.window:]
        self.weights, report = td_fit([recorded for part in self.games for recorded in part], self.weights, settings)
        self.run.log(f"generation {self.generation}: {report.positions:,} positions, result loss "
                     f"{report.result_loss_before:.4f} -> {report.result_loss_after:.4f} ({time.perf_counter() - start:.0f} s)")
        self.generation += 1
        advance(count)
        return until

    # -- evaluation and checkpoints ----------------------------------------------------

    def save_candidate(self, path: Path, step: int) -> Path:
        return save_ntuple(self.weights, path.with_suffix(".zip"), self.game,
                           {"generation": self.generation, "step": step, "settings": asdict(self.settings)},
                           features=self.features.name)

    def candidate_agent(self, candidate: Path) -> Any:
        """The spec of the search with the candidate's weights (a spec, so that worker processes make it)."""
        return self.learner_spec(str(candidate))

    def earns_best(self, agent: Any, candidate: Path, step: int, score: float, best: BestSoFar) -> bool:
        """The zero weights are best at step 0; later weights by a gating match (always, with no gate games)."""
        settings = self.settings
        if step > 0 and settings.gate_games > 0:
            row = gating_match(self.run, agent, self.learner_spec(str(self.files.best)), step, best.step,
                               settings.gate_games, settings.gate_threshold, workers=settings.workers, opening=settings.opening)
            self.gating.append(row)
        write_csv(self.files.gating, GATING_FIELDS, self.gating)
        return step == 0 or settings.gate_games == 0 or bool(self.gating[-1]["passed"])

    def keep_best(self, candidate: Path) -> None:
        super().keep_best(candidate)
        self.best_weights = self.weights.copy()

    def state(self) -> dict[str, Any]:
        return {"weights": self.weights, "best_weights": self.best_weights, "generation": self.generation,
                "window": list(self.window), "gating": list(self.gating)}
