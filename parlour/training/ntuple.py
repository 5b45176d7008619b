"""Training an n-tuple evaluation by temporal differences inside the game's alpha-beta
search (``parlour train-ntuple``; the model and its player: ``baselines.learned.ntuple``).

Each generation:

1. **Games.** The search plays itself at a fixed ``depth`` with the current best weights
   (generation 0: with its own hand-made evaluation, the *teacher*, or with all weights
   zero, tabula rasa), the first ``opening`` plies of every game random so that the games
   differ.  Every position after a move is recorded as its feature indices, every game
   with its result for the perspective seat (win 1, draw 1/2, loss 0).
2. **TD(lambda).**  The logistic model is fitted to the lambda-returns of the newest
   ``window`` generations' games (Sutton 1988): the target of a position is
   ``(1 - lambda) * V(next) + lambda * target(next)``, the game's result at its end, with
   ``V`` the model's own prediction; targets are recomputed from the current weights at
   every epoch (full-batch Adam on the cross-entropy, L2 ``l2``).  lambda = 1 is
   regression on results (the Texel method of chess programmers), lambda = 0 one-step TD.
3. **Gating.**  The new weights become ``best.zip`` only by scoring at least
   ``gate_threshold`` against the current best in ``gate_games`` games of the arena at
   the same depth, each seat equally often, each game starting with ``opening`` random
   plies (without them two deterministic searchers replay one game).

Everything random comes from ``seed``: the same seed gives the same games, weights and
gates with any number of ``workers``.
"""

from __future__ import annotations

import json
import multiprocessing
import signal
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from parlour.baselines.learned.ntuple import NTupleEvaluation, NTupleFeatures, ntuple_features, save_ntuple
from parlour.baselines.playout import play_out
from parlour.baselines.policy import lookup
from parlour.games import load_game
from parlour.games.base import Game
from parlour.processes import die_with_parent

Recorded = tuple[np.ndarray, float]
"""A game: its positions' feature indices ``[positions, tuples]`` and its result for the perspective seat."""


@dataclass(frozen=True)
class NTupleSettings:
    """What ``train_ntuple`` does (see the module docstring)."""

    generations: int = 4
    games: int = 1000
    depth: int = 2
    opening: int = 4
    teacher: bool = True
    lam: float = 0.7
    epochs: int = 300
    learning_rate: float = 0.01
    l2: float = 1e-5
    window: int = 3
    gate_games: int = 100
    gate_threshold: float = 0.55
    workers: int = 1
    seed: int = 0

    def __post_init__(self) -> None:
        for key in ("generations", "games", "depth", "epochs", "window", "workers"):
            if getattr(self, key) < 1:
                raise ValueError(f"{key} must be at least 1, got {getattr(self, key)}")
        for key in ("opening", "gate_games"):
            if getattr(self, key) < 0:
                raise ValueError(f"{key} must be at least 0, got {getattr(self, key)}")
        for key in ("lam", "gate_threshold"):
            if not 0 <= getattr(self, key) <= 1:
                raise ValueError(f"{key} must be in [0, 1], got {getattr(self, key)}")
        if not self.learning_rate > 0 or self.l2 < 0:
            raise ValueError(f"learning_rate must be positive and l2 at least 0, got {self.learning_rate} and {self.l2}")


def record_game(game: Game, weights: np.ndarray | None, depth: int, opening: int, seed: int) -> Recorded:
    """One game of the search against itself (``weights``: the n-tuple evaluation's; ``None``:
    the search's own), its first ``opening`` plies drawn uniformly from ``seed``."""
    features = ntuple_features(game)
    search = lookup(features.search, game)
    players = [search(game, seed * 2 + seat, depth=depth, time_limit=None) for seat in range(game.num_players)]
    if weights is not None:
        for player in players:
            player.evaluate = NTupleEvaluation(weights, features)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
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
            positions.append(features.indices(state))

    play_out(state, act=act, apply=apply)
    result = (state.returns()[features.perspective(state)] + 1) / 2
    return np.array(positions, dtype=np.int32).reshape(len(positions), -1), float(result)


def _record(task: tuple[str, dict[str, Any], np.ndarray | None, int, int, int]) -> Recorded:
    name, options, weights, depth, opening, seed = task
    return record_game(load_game(name, **options), weights, depth, opening, seed)


def _init_worker() -> None:
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to report


def record_games(game: Game, weights: np.ndarray | None, depth: int, opening: int, seeds: list[int], workers: int = 1) -> list[Recorded]:
    """``record_game`` for every seed, in seed order, in ``workers`` processes."""
    tasks = [(game.name, game.config, weights, depth, opening, seed) for seed in seeds]
    if workers == 1:
        return [_record(task) for task in tasks]
    with multiprocessing.get_context("spawn").Pool(workers, initializer=_init_worker) as pool:
        return pool.map(_record, tasks, chunksize=max(1, len(tasks) // (8 * workers)))


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


def gate_score(game: Game, challenger: Path, best: Path, settings: NTupleSettings, seed: int) -> float:
    """The challenger's score against the best at the same depth, each seat equally often."""
    from parlour.evaluation.arena import play_match
    from parlour.evaluation.report import summarize

    spec = f"depth={settings.depth},time_limit=none"
    agents = [f"ntuple:{challenger},{spec}", f"ntuple:{best},{spec}"]
    match = play_match(game, agents, games=settings.gate_games, seed=seed, workers=settings.workers, progress=False,
                       opening=settings.opening)
    return float(next(row["score"] for row in summarize(match)["agents"] if row["index"] == 0))


def train_ntuple(game: Game, out: str | Path, settings: NTupleSettings, log: Callable[[str], None] = print) -> dict[str, Any]:
    """A training run into the new directory ``out``: ``generation_K.zip`` for every
    generation, ``best.zip`` the gated best, ``summary.json`` the settings and a row per
    generation.  Returns the summary."""
    features: NTupleFeatures = ntuple_features(game)
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"output directory {str(out)!r} is not empty: choose a new one (nothing is overwritten)")
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    weights = best_weights = np.zeros(features.size)
    best: Path | None = None
    history: list[list[Recorded]] = []
    rows: list[dict[str, Any]] = []
    summary: dict[str, Any] = {"game": game.name, "options": game.config, "features": features.name, "search": features.search,
                               "settings": asdict(settings), "generations": rows}
    for generation in range(settings.generations):
        playing = None if (generation == 0 and settings.teacher) else best_weights  # (None: the search's own evaluation)
        seeds = [settings.seed * 1_000_003 + generation * settings.games + i for i in range(settings.games)]
        history.append(record_games(game, playing, settings.depth, settings.opening, seeds, settings.workers))
        history = history[-settings.window:]
        games = [recorded for part in history for recorded in part]
        weights, report = td_fit(games, weights, settings)
        path = save_ntuple(weights, out / f"generation_{generation}.zip", game,
                           {"generation": generation, "settings": asdict(settings)})
        row: dict[str, Any] = {"generation": generation, **asdict(report), "seconds": round(time.perf_counter() - start, 1)}
        if best is None or settings.gate_games == 0:
            promoted, row["gate_score"] = True, None
        else:
            row["gate_score"] = score = gate_score(game, path, best, settings, seed=settings.seed + generation)
            promoted = score >= settings.gate_threshold
        if promoted:
            best_weights = weights.copy()
            best = save_ntuple(best_weights, out / "best.zip", game, {"generation": generation, "settings": asdict(settings)})
        row["best"] = promoted
        rows.append(row)
        log(f"generation {generation}: {report.positions} positions, result loss {report.result_loss_before:.4f} -> "
            f"{report.result_loss_after:.4f}, gate {row['gate_score']}, {'best' if promoted else 'kept the best'} "
            f"({row['seconds']} s)")
        (out / "summary.json").write_text(json.dumps(summary, indent=2, default=list))
    return summary
