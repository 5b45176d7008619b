"""``ntuple:runs/NAME/best.zip``: a learned evaluation inside the game's strongest
alpha-beta search.

Where a policy-value network on two CPU cores is too slow to beat a well-tuned search at
its own time per move (Double Card: a board network's evaluation costs what the search's
``windows`` evaluation does a hundred times), the strongest Othello programs learn a
cheap evaluation instead: an *n-tuple network*, a table of weights indexed by what a
few fixed groups of cells hold, summed over every place those groups occur on the board
(Buro's Logistello; Lucas 2008; Jaskowski 2016), trained by temporal differences from
games of the search itself.  Its cost is one gather and one sum: the search keeps its
depth, and only what it knows at its horizon changes.

The model is a logistic one: ``sigmoid(sum of the weights of a position's features)`` is
the probability that the *perspective seat* wins (a draw counting half), and the search
reads ``2p - 1`` for that seat and its negation for the other.  Each game registers its
features in :data:`NTUPLE_GAMES` (what the tuples are, how many weights, which search
plays with them, whose win the model predicts); ``parlour.training.ntuple`` trains them.

A model file is a zip like the others (``parlour.json`` with the game, its rules
version and options, ``kind = "ntuple"`` and the feature set; ``weights.npy``, read with
``allow_pickle=False``, so loading runs no code).  Needs numpy only.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from parlour.atomic import replace_atomic
from parlour.baselines.learned.ppo import META_ENTRY, check_model_game, model_meta, read_model_meta
from parlour.baselines.players.double_card import WINDOW_FEATURES, window_features
from parlour.baselines.engines.alphabeta import optional_seconds
from parlour.baselines.policy import Param, Policy, lookup, register
from parlour.errors import DamagedFileError
from parlour.games.base import Game, State

KIND = "ntuple"
WEIGHTS_ENTRY = "weights.npy"


@dataclass(frozen=True)
class NTupleFeatures:
    """A game's n-tuple features: ``indices(state)`` gives the weight index of each tuple
    occurrence (an int array, the same length for every position), ``size`` weights in
    all; ``search`` is the registered search policy that plays with the evaluation
    (its ``evaluate`` is replaced) and ``perspective(state)`` the seat whose win the
    model predicts."""

    name: str
    indices: Callable[[Any], np.ndarray]
    size: int
    search: str
    perspective: Callable[[Any], int]


NTUPLE_GAMES: dict[str, NTupleFeatures] = {
    "double_card": NTupleFeatures("windows", window_features, WINDOW_FEATURES, "double-card-best",
                                  lambda state: state.game.colors_seat),
}
"""The games with n-tuple features, and which."""


def ntuple_features(game: Game) -> NTupleFeatures:
    """The game's features; a clear error for a game that has none."""
    features = NTUPLE_GAMES.get(game.name)
    if features is None:
        raise ValueError(f"no n-tuple features for {game.name}; games with them: {sorted(NTUPLE_GAMES)}")
    return features


class NTupleEvaluation:
    """The search's evaluation: per-seat values in (-1, 1) from the weights (see the
    module docstring); a two-player zero-sum game's, the other seat's is the negation."""

    def __init__(self, weights: np.ndarray, features: NTupleFeatures) -> None:
        self.weights = weights
        self.features = features

    def logit(self, state: State) -> float:
        """The summed weights of the position's features: the log-odds of the perspective seat's win."""
        return float(self.weights[self.features.indices(state)].sum())

    def win_probability(self, state: State) -> float:
        """The model's probability that the perspective seat wins (draws half)."""
        return float(1 / (1 + np.exp(-self.logit(state))))

    def __call__(self, state: State) -> np.ndarray:
        value = float(np.tanh(self.logit(state) / 2))  # 2 sigmoid(x) - 1
        seat = self.features.perspective(state)
        values = np.empty(2)
        values[seat], values[1 - seat] = value, -value
        return values


def save_ntuple(weights: np.ndarray, path: str | os.PathLike, game: Game, extra: dict[str, Any] | None = None) -> Path:
    """Write a model file atomically (an existing file is replaced only once the new one
    is complete)."""
    features = ntuple_features(game)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (features.size,) or not np.isfinite(weights).all():
        raise ValueError(f"n-tuple weights for {game.name} must be {features.size} finite numbers, got shape {weights.shape}")
    path = Path(path)
    meta = {**model_meta(game), "kind": KIND, "features": features.name, "search": features.search, **(extra or {})}
    array = io.BytesIO()
    np.save(array, weights, allow_pickle=False)

    def write(tmp: str) -> None:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(META_ENTRY, json.dumps(meta, default=list))
            archive.writestr(WEIGHTS_ENTRY, array.getvalue())

    replace_atomic(path, write)
    return path


def load_ntuple(path: str | os.PathLike, game: Game) -> tuple[np.ndarray, dict[str, Any]]:
    """``(weights, metadata)`` of a model file for ``game``; ``ValueError`` (or its
    ``DamagedFileError``) naming what is wrong with any other file."""
    meta = read_model_meta(path)
    if meta.get("kind") != KIND:
        raise ValueError(f"model file {str(path)!r} is {meta.get('kind', 'a ppo')!r} model, not an n-tuple one: "
                         f"play it with `{meta.get('kind', 'ppo')}:`")
    check_model_game(meta, game, path)
    features = ntuple_features(game)
    if meta.get("features") != features.name:
        raise ValueError(f"model file {str(path)!r} has features {meta.get('features')!r}; {game.name}'s are {features.name!r}")
    try:
        with zipfile.ZipFile(path) as archive:
            weights = np.load(io.BytesIO(archive.read(WEIGHTS_ENTRY)), allow_pickle=False)
    except (KeyError, ValueError, OSError, zipfile.BadZipFile) as error:
        raise DamagedFileError(f"model file {str(path)!r} has no readable {WEIGHTS_ENTRY} ({error})") from None
    if weights.shape != (features.size,) or weights.dtype != np.float64 or not np.isfinite(weights).all():
        raise DamagedFileError(f"model file {str(path)!r}: {WEIGHTS_ENTRY} must hold {features.size} finite float64 "
                               f"weights, got {weights.dtype} of shape {weights.shape}")
    return weights, meta


@register
class NTuplePolicy(Policy):
    name = "ntuple"
    summary = ("A learned n-tuple evaluation (`parlour train-ntuple`) inside the game's strongest alpha-beta search "
               "(spec `ntuple:runs/NAME/best.zip,time_limit=1.0`); numpy only.")
    source = "n-tuple networks: Lucas 2008, Jaskowski 2016; TD(lambda): Sutton 1988; TD-Leaf: Baxter, Tridgell and Weaver 1998"
    positional = "path"
    games = tuple(NTUPLE_GAMES)
    params = {
        "path": Param(None, "the model file (a zip written by `parlour train-ntuple`)", type=str),
        "depth": Param(None, "deepest iteration in plies (None: until out of time)", int),
        "time_limit": Param(1.0, "seconds per move (none: no limit)", optional_seconds),
    }

    def setup(self) -> None:
        path = self.config["path"]
        if not path:
            raise ValueError("policy 'ntuple' needs a model file: ntuple:runs/NAME/best.zip or ntuple:path=...")
        weights, meta = load_ntuple(path, self.game)
        features = ntuple_features(self.game)
        search = lookup(features.search, self.game)
        self.search = search(self.game, self.seed, full_states=self.full_states, depth=self.config["depth"],
                             time_limit=self.config["time_limit"])
        self.search.evaluate = NTupleEvaluation(weights, features)
        self.meta = meta

    def act(self, info_state: Any) -> int:
        action = self.search.act(info_state)
        self.stats = self.search.stats
        return action

    def act_observation(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The search's move from the seat to move's observation and legal mask: the
        game's observation determines its position (``Game.state_from_observation``),
        so the search plays from a PettingZoo observation as from a state."""
        state = self.game.state_from_observation(observation, mask)
        return self.act(state.info_state(state.current_players()[0]))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.search.reset(seed)
