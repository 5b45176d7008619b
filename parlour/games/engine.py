"""The interface every batched engine shares: B games of one configuration stepped at once.

Why a second engine next to the rules modules?  A learner that collects experience
from thousands of games spends nearly all of its time in Python: one ``apply``, one
``observation_tensor`` and one mask per game and per step.  A batched engine keeps the
state of all B games in numpy arrays with a leading batch axis and advances every game
with a handful of array operations, so the cost per game step falls by two orders of
magnitude once B is in the thousands.

The single-game rules stay the reference: a batched engine is built from a validated
single ``Game`` (the same options, the same errors for bad values), and its
observations, masks and returns are bit-for-bit the single game's
``observation_tensor``, ``legal_mask`` and ``returns`` (tests/vector checks this on
random play).  Every chance event comes from one ``numpy.random.Generator``
(:attr:`BatchedEngine.rng`), so the same seed and the same actions give the same batch.

Finished games are reset on the spot (``autoreset=True``, Gymnasium's "same step"
mode): :meth:`BatchedEngine.step` returns the final observations and returns of the
games that ended in a :class:`BatchStep`, and the engine's state already holds the
fresh games.  With ``autoreset=False`` finished games stay over (no seat to act, all-zero
masks, stepping them is an error) until :meth:`BatchedEngine.reset_games`.
"""

from __future__ import annotations

import abc
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from parlour.errors import IllegalActionError
from parlour.games.base import Game


@dataclass
class BatchStep:
    """What one batched step produced.

    ``rewards``: ``(B, P)`` float64, each finished game's ``returns()`` (zeros for the
    games still going); ``terminated``: ``(B,)`` bool, the games that ended in this step;
    ``final_observations``: ``(B, P, *observation_shape)`` float32, the last observation
    of every seat for the finished games (rows of the other games are zeros), ``None``
    when no game ended (so the common step allocates nothing for it);
    ``final_returns``: the same as ``rewards`` (the name Gymnasium users look for).
    """

    rewards: np.ndarray
    terminated: np.ndarray
    final_observations: np.ndarray | None

    @property
    def final_returns(self) -> np.ndarray:
        return self.rewards


class BatchedEngine(abc.ABC):
    """``num_envs`` games of one configuration of the game ``game_name``.

    Subclasses keep their state in arrays with a leading batch axis and implement the
    abstract methods; the checks shared by all games (action arrays, the ``where``
    selection) live here so every engine rejects bad input with the same messages.
    """

    game_class: ClassVar[type[Game]]
    """The game's ``Game`` class (the rules this engine is proven equal to)."""
    game_name: ClassVar[str]
    """The game's name (``game_class.name``, set for each subclass)."""
    STATE: ClassVar[tuple[str, ...]] = ()
    """The attributes that hold the games' state, each an array with a leading batch axis
    (what :meth:`copy_rows` copies; an engine that names none cannot be copied from)."""
    simultaneous: ClassVar[bool]
    """True: every seat acts in every step (``step`` takes ``(B, P)`` actions); False:
    one mover per game (``step`` takes ``(B,)`` actions, the movers')."""

    COMPACT: ClassVar[bool] = False
    """Whether the engine has compact observations (``compact=True``, see :meth:`decode`)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "game_class" in cls.__dict__:
            cls.game_name = cls.game_class.name

    def __init__(self, num_envs: int, seed: int | np.random.Generator | None = None, *, autoreset: bool = True,
                 compact: bool = False, **options: Any) -> None:
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        if not isinstance(compact, (bool, np.bool_)):
            raise ValueError(f"compact must be True or False, got {compact!r}")
        self.compact = bool(compact) and self.COMPACT
        """Observations as ``uint8`` codes (where the engine has them: ``COMPACT``), else float32."""
        self.observation_dtype = np.dtype(np.uint8 if self.compact else np.float32)
        self.num_envs = int(num_envs)
        self.game: Game = self.game_class(**options)
        self.autoreset = bool(autoreset)
        self.rng = np.random.default_rng(seed) if not isinstance(seed, np.random.Generator) else seed
        self._rows = np.arange(self.num_envs)

    # ----- facts ---------------------------------------------------------------------

    @property
    def num_players(self) -> int:
        return self.game.num_players

    @property
    def num_actions(self) -> int:
        return self.game.num_actions

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return self.game.observation_shape

    # ----- the interface -------------------------------------------------------------

    def reset(self, seed: int | np.random.Generator | None = None) -> None:
        """Start all B games afresh; a ``seed`` replaces the engine's generator first."""
        if seed is not None:
            self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self._reset_rows(self._rows)

    def reset_games(self, where: np.ndarray) -> None:
        """Start afresh the games where ``where`` (``(B,)`` bool) is True."""
        self._reset_rows(self._selected(where))

    @abc.abstractmethod
    def _reset_rows(self, rows: np.ndarray) -> None:
        """Start the games ``rows`` (an index array) afresh, drawing chance from ``rng``."""

    @property
    @abc.abstractmethod
    def terminated(self) -> np.ndarray:
        """``(B,)`` bool: the games that are over (only with ``autoreset=False``)."""

    @abc.abstractmethod
    def to_act(self) -> np.ndarray:
        """``(B, P)`` bool: the seats to act now in each game."""

    @abc.abstractmethod
    def legal_masks(self) -> np.ndarray:
        """``(B, P, A)`` int8: ``legal_mask(seat)`` of every game and seat."""

    def legal_mask(self, seat: int | np.ndarray) -> np.ndarray:
        """``(B, A)`` int8: the mask of ``seat`` (an int, or one seat per game)."""
        return self.legal_masks()[self._rows, self._seats(seat)]

    @abc.abstractmethod
    def observations(self) -> np.ndarray:
        """``(B, P, *observation_shape)`` float32: every seat's ``observation_tensor``."""

    def observations_of(self, rows: np.ndarray) -> np.ndarray:
        """``(k, P, *observation_shape)``: every seat's observation in the games ``rows``
        (engines that can, build only those)."""
        return self.observations()[rows]

    @abc.abstractmethod
    def observation(self, seat: int | np.ndarray) -> np.ndarray:
        """``(B, *observation_shape)`` float32: the observation of ``seat`` (an int, or
        one seat per game, e.g. each game's learner)."""

    def decode(self, observations: np.ndarray) -> np.ndarray:
        """Observations (any leading shape) as the float32 the single game gives: a
        compact engine's ``uint8`` codes converted (exactly the float32 values: binary
        entries are 0 and 1, a fraction k/n is stored as k and looked up), float32 ones
        returned as they are.  A learner's view converts once per batch."""
        return observations

    def observation_at(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """``(k, *observation_shape)``: the observation of seat ``seats[i]`` in game
        ``rows[i]`` (engines that can, build only those)."""
        return self.observations_of(rows)[np.arange(len(rows)), seats]

    def legal_mask_at(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """``(k, A)`` int8: the legal mask of seat ``seats[i]`` in game ``rows[i]``."""
        return self.legal_masks()[rows, seats]

    @abc.abstractmethod
    def returns(self) -> np.ndarray:
        """``(B, P)`` float64: ``state.returns()`` of every game (zeros until it is over)."""

    @abc.abstractmethod
    def step(self, actions: Any, where: np.ndarray | None = None) -> BatchStep:
        """Advance the games where ``where`` is True (all by default); the others are
        untouched and their actions ignored.  A bad action raises ``IllegalActionError``
        (or ``ValueError`` for a badly shaped array) and changes nothing."""

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """Uniformly random legal actions of the seats to act, from ``rng`` (default: the
        engine's generator): ``(B, P)`` for a simultaneous game, else ``(B,)`` (the
        movers'); 0 where a seat has no legal action.  A uniform legal draw is a
        mechanic every engine offers (the baselines' batched ``random`` plays it); the
        engines hold no player: the others are registered with the baselines
        (``parlour.baselines.batched``)."""
        rng = self.rng if rng is None else rng
        masks = self.legal_masks()
        if not self.simultaneous:
            masks = masks[self._rows, self.movers().clip(0)]
        return uniform_legal(masks, rng)

    # ----- single games in and out: every engine's contract ---------------------------

    @abc.abstractmethod
    def game_state(self, b: int) -> Any:
        """Game ``b`` as a single-game ``State`` of the rules module (the reference the
        conformance tests compare against; also for debugging and error messages)."""

    @abc.abstractmethod
    def load_states(self, states: Sequence[Any], rows: np.ndarray | None = None) -> None:
        """Make the games ``rows`` (default: all, in order) the single-game positions
        ``states`` (states of a game with this engine's options).  ``ValueError`` names
        what does not fit; with ``autoreset=True`` a finished game cannot be loaded (it
        would start afresh at once)."""

    def _load_rows(self, states: Sequence[Any], rows: np.ndarray | None) -> np.ndarray:
        """The checks every ``load_states`` shares: one state per row, of this engine's
        game and options; the rows as an index array."""
        rows = self._rows if rows is None else np.asarray(rows, dtype=np.int64)
        if rows.ndim != 1 or len(states) != len(rows):
            raise ValueError(f"{self.game_name}: {len(states)} states for {len(rows)} games")
        if rows.size and (rows.min() < 0 or rows.max() >= self.num_envs or len(set(rows.tolist())) < len(rows)):
            raise ValueError(f"{self.game_name}: rows must be distinct games in 0..{self.num_envs - 1}, got {rows.tolist()}")
        for state in states:
            if getattr(state, "game", None) != self.game:
                raise ValueError(f"{self.game_name}: load_states needs states of {self.game!r}, got {state!r}")
            if self.autoreset and state.is_terminal():
                raise ValueError(f"{self.game_name}: a finished game cannot be loaded into an engine with autoreset=True")
        return rows

    def _replay(self, rows: np.ndarray, histories: Sequence[Sequence[Any]]) -> None:
        """Step the games ``rows`` (each at its start) through their ``histories`` (one
        list of steps per row: an action, or for a simultaneous game a tuple of every
        seat's), all rows at once, each only while it has steps left."""
        longest = max((len(h) for h in histories), default=0)
        for i in range(longest):
            where = np.zeros(self.num_envs, dtype=bool)
            shape = (self.num_envs, self.num_players) if self.simultaneous else (self.num_envs,)
            actions = np.zeros(shape, dtype=np.int64)
            for row, history in zip(rows, histories):
                if i < len(history):
                    where[row] = True
                    actions[row] = history[i]
            self.step(actions, where=where)

    def movers(self) -> np.ndarray:
        """``(B,)`` int: the seat to move in a turn-based game, -1 where the game is over."""
        raise NotImplementedError(f"{self.game_name} is simultaneous: every seat acts in every step (see to_act)")

    def copy_rows(self, source: BatchedEngine, source_rows: np.ndarray, rows: np.ndarray) -> None:
        """Games ``rows`` become copies of ``source``'s games ``source_rows`` (an engine of
        the same game and options): a search copies its root into working rows."""
        if not self.STATE:
            raise NotImplementedError(f"{self.game_name}: this engine names no state arrays to copy")
        if type(source) is not type(self) or source.game != self.game:
            raise ValueError(f"{self.game_name}: copy_rows needs an engine of the same game and options")
        for name in self.STATE:
            array = getattr(self, name)
            if array is not None:  # (an engine may leave out an array it does not need)
                array[rows] = getattr(source, name)[source_rows]
        self._state_changed()

    def _state_changed(self) -> None:
        """Forget what was derived from the state (caches) after it was set from outside."""

    # ----- shared checks ---------------------------------------------------------------

    def _seats(self, seat: int | np.ndarray) -> np.ndarray | int:
        players = self.num_players
        if isinstance(seat, (int, np.integer)) and not isinstance(seat, (bool, np.bool_)):
            if not 0 <= seat < players:
                raise ValueError(f"{self.game_name}: no seat {seat}; seats are 0..{players - 1}")
            return int(seat)
        seats = np.asarray(seat)
        if seats.shape != (self.num_envs,) or seats.dtype.kind not in "iu":
            raise ValueError(f"{self.game_name}: seats must be an int or an integer array of shape ({self.num_envs},), got {seat!r}")
        if seats.size and (seats.min() < 0 or seats.max() >= players):
            raise ValueError(f"{self.game_name}: seats must be in 0..{players - 1}, got {seats.min()}..{seats.max()}")
        return seats

    def _selected(self, where: np.ndarray | None) -> np.ndarray:
        """The index array of the selected games (all for ``None``)."""
        if where is None:
            return self._rows
        mask = np.asarray(where)
        if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
            raise ValueError(f"{self.game_name}: where must be a bool array of shape ({self.num_envs},), got {where!r}")
        return np.flatnonzero(mask)

    def _action_array(self, actions: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
        """``actions`` as an integer array of ``shape``, or a clear error."""
        array = np.asarray(actions)
        if array.shape != shape:
            raise ValueError(f"{self.game_name}: actions must have shape {shape} ({what}), got shape {array.shape}")
        if array.dtype.kind not in "iu":
            raise IllegalActionError(
                f"{self.game_name}: actions must be integers, got dtype {array.dtype} ({actions!r})",
                action=actions,
            )
        return array


class SearchableEngine(BatchedEngine):
    """An engine the vectorised search can run on (``parlour.baselines.engines.vector_puct``:
    PUCT for many games at once, as array operations on working copies of the positions).

    What the search needs beyond every engine's contract:

    - ``STATE`` names every array of the games' state, so :meth:`copy_rows` copies a
      root into the working rows at the start of every simulation;
    - :meth:`deal` starts games with the chance the single game draws, each from its own
      generator, so a self-play game does not depend on the row it plays in;
    - where the game hides information, the engine is a :class:`DeterminizingEngine`;
    - at a simultaneous step, two seats (the search keys a node's children by the joint
      action of both; the search checks this against the game's options).

    ``parlour.baselines.engines.vector_puct.search_refusal`` checks an engine class by
    these types and says what is missing: self-play (which deals its games on the
    engine) needs all of it and falls back to the tree search with a warning where
    something is missing; a search from positions copied into an engine needs ``STATE``
    (and the determinization) only.
    """

    SEARCH_ON_ENGINE: ClassVar[bool] = True
    """Whether self-play searches on this engine by default (``self_play.play_games``
    with ``search="auto"``): False where measured slower than the tree searches."""

    @abc.abstractmethod
    def deal(self, rows: np.ndarray, rngs: list[np.random.Generator]) -> None:
        """Start the games ``rows`` with the deal ``game.new_initial_state(rngs[i])``
        draws: the single game's chance, each game from its own generator."""


class DeterminizingEngine(SearchableEngine):
    """A searchable engine of a game that hides information: the search starts every
    simulation from a fresh determinization of the searching seat's information."""

    DETERMINIZE_DRAWS: ClassVar[int]
    """The uniform floats one determinization of one game uses."""

    @abc.abstractmethod
    def determinize(self, rows: np.ndarray, seats: np.ndarray, draws: np.ndarray | list[np.random.Generator]) -> None:
        """Redraw in games ``rows`` what seat ``seats[i]`` cannot see, uniformly among the
        positions consistent with what it saw (as the rules' ``info_state(seat).sample``),
        in place; ``draws``: each row's own ``DETERMINIZE_DRAWS`` uniform floats in
        [0, 1) (``[k, DETERMINIZE_DRAWS]``), or its own generator to draw them from."""


class OutputBuffers:
    """Output arrays of one shape, reused once nothing outside holds them.

    Writing a fresh array of a megabyte or more costs several times writing a warm one
    (the allocator hands such blocks back to the system, so every new one page-faults:
    measured ~40 faults and ~1.5x the whole step for Goofspiel's 1.1 MB of
    observations at B = 1024; Double Card's are 9.4 MB).  A buffer is handed out
    again only when its reference count shows that the pool is its only holder (a
    caller's array, any view of it, a memoryview all hold a reference), so every
    returned array is as good as a fresh one for the caller.  ``zeroed=True``: the
    buffer is all zeros except the rows the last user wrote (``rows`` given to
    :meth:`get`), which are cleared on reuse."""

    KEEP = 4

    def __init__(self, shape: tuple[int, ...], dtype: npt.DTypeLike, zeroed: bool = False) -> None:
        self.shape, self.dtype, self.zeroed = shape, dtype, zeroed
        self.buffers: list[np.ndarray] = []
        self.dirty: list[np.ndarray | slice] = []

    def get(self, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """A free buffer; with ``zeroed``, zeros but for the ``rows`` the caller writes."""
        for i in range(len(self.buffers)):
            buf = self.buffers[i]
            if sys.getrefcount(buf) == 3:  # the list, ``buf``, the call's argument
                if self.zeroed:
                    buf[self.dirty[i]] = 0
                    self.dirty[i] = rows
                return buf
        buf = np.zeros(self.shape, self.dtype) if self.zeroed else np.empty(self.shape, self.dtype)
        if len(self.buffers) < self.KEEP:
            self.buffers.append(buf)
            self.dirty.append(rows)
        return buf


def uniform_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per mask row (last axis), uniform among its 1s (0 for an empty row):
    the k-th legal action with k = floor(u * count), from one float per row."""
    return legal_at(masks, rng.random(masks.shape[:-1]))


def legal_at(masks: np.ndarray, u: np.ndarray) -> np.ndarray:
    """For each mask row (last axis) and its uniform float ``u`` in [0, 1), the k-th
    legal action with k = floor(u * count) (0 for an empty row)."""
    k = (u * masks.sum(axis=-1)).astype(np.int64)
    # the first index whose running count of legal actions exceeds k
    return (np.cumsum(masks, axis=-1, dtype=np.int16) > k[..., None]).argmax(axis=-1)
