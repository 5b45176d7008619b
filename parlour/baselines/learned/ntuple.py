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
a *perspective seat*'s expected result mapped to [0, 1] by the game's returns range (in
a two-player game its probability of winning, a draw counting half), and the search
reads it mapped back to the returns range (``2p - 1`` for Double Card's colours seat,
and the negation for the other seat).  A game of more than two players has every seat
as a perspective, each seeing the board relative to itself, so one table serves all
(Tribolo).  Each game's players module registers its feature sets with
:func:`register_features` when imported (``players/double_card_ntuple.py``,
``players/tribolo_ntuple.py``: what the tuples are, how many weights, which search plays
with them, whose results the model predicts), the first its default, as the policy
registry works; this module names no game.  A model file names the set it was trained
on, so models of an older set keep loading; ``parlour.training.backends.ntuple`` trains
them.

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
from typing import Any, ClassVar

import numpy as np

from parlour.atomic import replace_atomic
from parlour.baselines.engines.alphabeta import AlphaBetaSearch, optional_seconds
from parlour.baselines.engines.search import positive_or_none
from parlour.baselines.learned.ppo import META_ENTRY, check_model_game, model_meta, read_model_meta
from parlour.baselines.policy import Param, Policy, lookup, register
from parlour.errors import DamagedFileError
from parlour.games.base import Game, State

KIND = "ntuple"
WEIGHTS_ENTRY = "weights.npy"


@dataclass(frozen=True)
class NTupleFeatures:
    """A game's n-tuple features.  ``indices(state)``: the weight index of each tuple
    occurrence as each perspective seat sees it, an int array ``[perspectives, tuples]``
    (the same shape for every position of a configuration); ``seats(game)``: the
    perspective seats, one per row, whose results the model predicts; ``size``
    weights in all; ``search``: the registered search policy that plays with the
    evaluation (its ``evaluate`` is replaced); ``logit`` (optional): given the weights, a
    faster function of a position to the first row's summed weights, for the search's
    leaves (Double Card's ``reach``: the weights laid out by window code).

    One row per seat lets one table serve every seat of a game with more than two
    players (Tribolo: cells coded mine / next / previous); a two-player zero-sum game may
    predict one seat's result only (Double Card: the colours seat's), the other's value
    being its negation."""

    name: str
    indices: Callable[[Any], np.ndarray]
    size: int
    search: str
    seats: Callable[[Game], tuple[int, ...]]
    logit: Callable[[np.ndarray], Callable[[Any], float]] | None = None


NTUPLE_FEATURE_SETS: dict[str, dict[str, NTupleFeatures]] = {}
"""The games with n-tuple features, and their sets by name, the default first (Double
Card: ``reach``, docs/double_card.md; its earlier ``windows`` still loads): filled by
:func:`register_features`."""


def register_features(game: str, features: NTupleFeatures) -> NTupleFeatures:
    """Make ``features`` a feature set of ``game`` (the game's first set is its default),
    and the ``ntuple`` player one that plays ``game``.  A game's players module calls it
    when imported (``parlour.baselines.players`` imports them all with the package)."""
    sets = NTUPLE_FEATURE_SETS.setdefault(game, {})
    if features.name in sets and sets[features.name] != features:
        raise ValueError(f"two n-tuple feature sets are called {features.name!r} for {game}")
    sets[features.name] = features
    if game not in (NTuplePolicy.games or ()):
        NTuplePolicy.games = (*(NTuplePolicy.games or ()), game)
        register(NTuplePolicy)  # (again: the registry indexes a policy by its games)
    return features


def ntuple_features(game: Game, name: str | None = None) -> NTupleFeatures:
    """The game's feature set ``name`` (``None`` or ``""``: its default); a clear error
    for a game without features or an unknown set."""
    sets = NTUPLE_FEATURE_SETS.get(game.name)
    if sets is None:
        raise ValueError(f"no n-tuple features for {game.name}; games with them: {sorted(NTUPLE_FEATURE_SETS)}")
    if not name:
        return next(iter(sets.values()))
    if name not in sets:
        raise ValueError(f"no n-tuple feature set {name!r} for {game.name}; its sets are {sorted(sets)}")
    return sets[name]


def result_in_unit(game: Game, returns: np.ndarray, seat: int) -> float:
    """``seat``'s return mapped to [0, 1] by the game's ``returns_bounds``: what the model
    predicts (a two-player game's win 1, draw 1/2, loss 0; Tribolo's ``win_loss``: a win
    1, a win shared by two 3/4, a three-way tie 1/2, a loss to one winner 1/4, to two 0)."""
    low, high = game.returns_bounds
    return float((returns[seat] - low) / (high - low))


@dataclass(frozen=True)
class _Frame:
    """What the evaluation needs of a game, worked out once: the perspective seats, the
    number of seats, and the returns range's midpoint and half width."""

    game: Game
    seats: tuple[int, ...]
    players: int
    middle: float
    half: float


class NTupleEvaluation:
    """The search's evaluation: a value per seat, inside the game's returns range, from
    the weights (see the module docstring).

    Each perspective seat's value is its expected return under the model: the logistic
    prediction ``p`` of its result in [0, 1] (:func:`result_in_unit`) mapped back,
    ``low + (high - low) p`` (computed as ``middle + half * tanh(logit / 2)``), so that
    leaves compare with the returns of finished games as the search needs.  With one
    perspective seat in a two-player zero-sum game, the other seat's value is the
    negation (bit for bit the evaluation Double Card's models were trained with).  The
    values of several seats are predicted separately, so they need not sum to zero:
    ``paranoid`` reads only the searcher's, ``values[me]``."""

    def __init__(self, weights: np.ndarray, features: NTupleFeatures) -> None:
        self.features = features
        self.weights = weights
        self._frame: _Frame | None = None

    @property
    def weights(self) -> np.ndarray:
        """The weights (read-only: set new ones, and the features' fast ``logit`` is made again)."""
        return self._weights

    @weights.setter
    def weights(self, weights: np.ndarray) -> None:
        self._weights = np.array(weights, dtype=np.float64)
        self._weights.flags.writeable = False
        self._first_logit = self.features.logit(self._weights) if self.features.logit else None

    def frame(self, game: Game) -> _Frame:
        """The game's frame (cached for the last game seen)."""
        frame = self._frame
        if frame is None or frame.game is not game:
            seats = tuple(self.features.seats(game))
            players = game.num_players
            if len(seats) != players and not (len(seats) == 1 and players == 2 and game.info.zero_sum):
                raise ValueError(f"n-tuple features {self.features.name!r} of {game.name} predict seats {seats}: "
                                 f"every seat of {players}, or one of a two-player zero-sum game")
            low, high = game.returns_bounds
            frame = self._frame = _Frame(game, seats, players, (low + high) / 2, (high - low) / 2)
        return frame

    def logits(self, state: State) -> np.ndarray:
        """The summed weights of the position's features for each perspective seat: the
        log-odds of its result (:func:`result_in_unit`)."""
        return self.weights.take(self.features.indices(state)).sum(axis=1)

    def logit(self, state: State, seat: int | None = None) -> float:
        """``seat``'s log-odds (``None``: the first perspective seat's)."""
        frame = self.frame(state.game)
        row = 0 if seat is None else frame.seats.index(seat)
        return float(self.weights[self.features.indices(state)[row]].sum())

    def win_probability(self, state: State, seat: int | None = None) -> float:
        """The model's expected result in [0, 1] for ``seat`` (``None``: the first
        perspective seat): in a two-player game its probability of winning, a draw half."""
        return float(1 / (1 + np.exp(-self.logit(state, seat))))

    def __call__(self, state: State) -> np.ndarray:
        frame = self.frame(state.game)
        if frame.players != len(frame.seats):  # one seat of two, zero-sum: exactly as trained
            (seat,) = frame.seats
            fast = self._first_logit
            logit = fast(state) if fast else float(self.weights[self.features.indices(state)[0]].sum())
            value = frame.half * float(np.tanh(logit / 2))  # zero-sum: the range is (-half, half); 2 sigmoid(x) - 1
            values = np.empty(2)
            values[seat], values[1 - seat] = value, -value
            return values
        scaled = frame.middle + frame.half * np.tanh(self.logits(state) / 2)
        if frame.seats == tuple(range(frame.players)):
            return scaled
        values = np.empty(frame.players)
        values[list(frame.seats)] = scaled
        return values


def save_ntuple(weights: np.ndarray, path: str | os.PathLike, game: Game, extra: dict[str, Any] | None = None,
                features: str | None = None) -> Path:
    """Write a model file of the feature set ``features`` (default: the game's)
    atomically (an existing file is replaced only once the new one is complete)."""
    feature_set = ntuple_features(game, features)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (feature_set.size,) or not np.isfinite(weights).all():
        raise ValueError(f"n-tuple weights for {game.name} must be {feature_set.size} finite numbers, got shape {weights.shape}")
    path = Path(path)
    meta = {**model_meta(game), "kind": KIND, "features": feature_set.name, "search": feature_set.search, **(extra or {})}
    array = io.BytesIO()
    np.save(array, weights, allow_pickle=False)

    def write(tmp: str) -> None:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(META_ENTRY, json.dumps(meta, default=list))
            archive.writestr(WEIGHTS_ENTRY, array.getvalue())

    replace_atomic(path, write)
    return path


def load_ntuple(path: str | os.PathLike, game: Game) -> tuple[np.ndarray, dict[str, Any]]:
    """``(weights, metadata)`` of a model file for ``game``, of the feature set its
    metadata names; ``ValueError`` (or its ``DamagedFileError``) naming what is wrong with
    any other file."""
    meta = read_model_meta(path)
    if meta.get("kind") != KIND:
        raise ValueError(f"model file {str(path)!r} is {meta.get('kind', 'a ppo')!r} model, not an n-tuple one: "
                         f"play it with `{meta.get('kind', 'ppo')}:`")
    check_model_game(meta, game, path)
    name = meta.get("features")
    sets = NTUPLE_FEATURE_SETS.get(game.name, {})
    if not isinstance(name, str) or name not in sets:
        raise ValueError(f"model file {str(path)!r} has features {name!r}; {game.name}'s are {sorted(sets)}")
    features = sets[name]
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
    games: ClassVar[tuple[str, ...] | None] = ()  # the games with registered features: register_features adds them
    params = {
        "path": Param(None, "the model file (a zip written by `parlour train-ntuple`)", type=str),
        "depth": Param(None, "deepest iteration in plies (None: until out of time)", int),
        "time_limit": Param(1.0, "seconds per move (none: no limit)", optional_seconds),
        "temperature": Param(None, "as a teacher (--pretrain): its distribution, a softmax of the root moves' exact "
                                   "values over this temperature (the root searched with the full window); unset: "
                                   "all weight on its move", float),
    }

    def setup(self) -> None:
        path = self.config["path"]
        if not path:
            raise ValueError("policy 'ntuple' needs a model file: ntuple:runs/NAME/best.zip or ntuple:path=...")
        weights, meta = load_ntuple(path, self.game)
        features = ntuple_features(self.game, meta["features"])
        search = lookup(features.search, self.game)
        temperature = self.config["temperature"]
        positive_or_none("temperature", temperature)
        searcher = search(self.game, self.seed, full_states=self.full_states, depth=self.config["depth"],
                          time_limit=self.config["time_limit"], root_window="narrow" if temperature is None else "full")
        assert isinstance(searcher, AlphaBetaSearch), f"{features.search!r} is an alpha-beta search with a leaf evaluation"
        self.search = searcher
        self.evaluation = NTupleEvaluation(weights, features)
        self.search.evaluate = self.evaluation
        self.meta = meta

    def act(self, info_state: Any) -> int:
        action = self.search.act(info_state)
        self.stats = self.search.stats
        return action

    def distribution(self, info_state: Any) -> np.ndarray | None:
        """With a ``temperature``: a softmax over the searched moves of their exact root
        values, each taken back to the evaluation's log-odds (the values are squashed into
        the returns range, where a lost position's moves all lie near the bottom) and
        divided by the temperature; zero for the moves never searched (the losing ones
        beside a win).  A teacher's soft labels: its ranking of the moves says more than
        its one move.  Without a temperature ``None`` (a teacher then puts all weight on
        :meth:`act`'s move)."""
        temperature = self.config["temperature"]
        if temperature is None:
            return None
        self.act(info_state)
        frame = self.evaluation.frame(self.game)
        actions = np.fromiter(self.search.root_values, dtype=np.int64)
        values = np.fromiter(self.search.root_values.values(), dtype=np.float64)
        inside = np.clip((values - frame.middle) / frame.half, -1 + 1e-6, 1 - 1e-6)
        scores = 2 * np.arctanh(inside) / temperature
        probs = np.exp(scores - scores.max())
        out = np.zeros(self.game.num_actions, dtype=np.float32)
        out[actions] = probs / probs.sum()
        return out

    def act_observation(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The search's move from the seat to move's observation and legal mask: the
        game's observation determines its position (``Game.state_from_observation``),
        so the search plays from a PettingZoo observation as from a state."""
        state = self.game.state_from_observation(observation, mask)
        return self.act(state.info_state(state.current_players()[0]))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.search.reset(seed)
