"""The games protocol: what every rules module provides and every searcher relies on.

A rules module defines a ``Game`` (immutable, validated configuration plus the facts
searchers check before they run: :class:`GameInfo`) and a ``State`` (one position,
changed in place by ``apply``).  The shape follows OpenSpiel's Python games: a small
surface (``current_players``, ``legal_actions``, ``apply``, ``is_terminal``,
``returns``, ``clone``) that environments, baselines and tests all share, so no rule
is ever written twice.  See ``docs/games_protocol.md``.
"""

from __future__ import annotations

import abc
import operator
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from parlour.errors import IllegalActionError

Action = int
JointAction = Mapping[int, int]


@dataclass(frozen=True)
class GameInfo:
    """Declarative facts about a configured game, read by searchers and adapters.

    ``simultaneous``: some steps have several current players (Parallel API applies).
    ``perfect_information``: every seat always knows the whole state (its information
    state determines the state; simultaneous choices not yet revealed aside).
    ``max_game_length``: an upper bound on the number of ``apply`` calls.
    """

    name: str
    num_players: int
    num_actions: int
    simultaneous: bool
    perfect_information: bool
    zero_sum: bool
    has_chance: bool
    max_game_length: int


@dataclass(frozen=True)
class Symmetry:
    """One symmetry of a game's rules (``Game.symmetries``): action ``a`` becomes
    ``actions[a]``, and ``transform`` maps the trailing axes of an observation (or of a
    batch of them, or of any array laid out like the board) to the symmetric one."""

    name: str
    actions: np.ndarray
    transform: Callable[[np.ndarray], np.ndarray]

    def observations(self, observations: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(self.transform(observations))

    def over_actions(self, values: np.ndarray) -> np.ndarray:
        """Per-action arrays (masks, policies; the last axis) of the symmetric positions."""
        out = np.empty_like(values)
        out[..., self.actions] = values
        return out


@dataclass(frozen=True)
class Option:
    """One configuration option of a game: its default, what it means, and the values
    it may take.

    Every option is bounded, so that no configuration makes one state, observation,
    picture or game too large to hold or too long to play (each game's docs page states
    its bounds and why).  An integer option has ``low`` and ``high``; a choice has
    ``choices`` (``(False, True)`` for a flag); an option of another shape (a list of
    cards, say) has neither and is checked by its game, which says what is allowed in
    ``allowed``.  :meth:`check` refuses a value with a one-line ``ValueError`` naming the
    option, the value and what is allowed, the same for every front end (the CLI, the
    envs, the web and the OpenSpiel bridge all build games here).
    """

    default: Any
    help: str
    low: int | None = None
    high: int | None = None
    choices: tuple[Any, ...] | None = None
    allowed: str = ""
    """The allowed values in words, where the bounds alone do not say it."""

    def check(self, name: str, value: object) -> Any:
        """``value`` checked against the bounds (normalised: a numpy integer becomes an
        ``int``); ``ValueError`` if it is out of them."""
        if self.choices == (False, True):
            return check_bool(name, value)
        if self.choices is not None:
            return check_choice(name, value, self.choices)
        if self.low is not None:
            return check_int(name, value, self.low, self.high)
        return value

    def allowed_text(self) -> str:
        """What the option may be, in words (``parlour list``, the catalog, the docs)."""
        if self.allowed:
            return self.allowed
        if self.choices == (False, True):
            return "True or False"
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        return f"an integer from {self.low} to {self.high}"


class Game(abc.ABC):
    """A configured game.  Subclasses declare ``name`` and ``options``.

    The constructor accepts exactly the declared options (an unknown name is an error
    that lists the known ones) and checks each value against its :class:`Option`'s
    bounds; ``_configure`` checks what depends on several options and normalises.
    """

    name: str
    """The game's name (``parlour list``): a class attribute, but for a wrapper whose
    name depends on its options (``openspiel:<game>``), which sets it per instance."""
    summary: ClassVar[str]
    """One sentence saying what the game is (``parlour list`` prints it)."""
    options: ClassVar[dict[str, Option]]
    simultaneous: ClassVar[bool] = False
    """True if some steps have several current players (then a Parallel env exists)."""
    observation_is_information_state: ClassVar[bool] = False
    """True if ``observation_tensor`` holds all a seat knows, history included (then it
    can serve as OpenSpiel's information-state tensor)."""
    rules_version: ClassVar[int] = 1
    """Which edition of the game's rules this module plays: raised whenever a change of
    the rules changes what a position, an observation or a move means.  Model files
    record it, and a model made for another version is refused rather than played wrongly."""
    start_options: ClassVar[dict[str, str]] = {}
    """Keyword arguments ``new_initial_state`` accepts for a fixed start, with help."""
    notation: ClassVar[str] = "a move is written as in the list of legal moves"
    """How a person writes a move (``parlour play``'s ``help``): a sentence or two that
    each game states for itself; :meth:`notation_help` fills in ``{option}`` fields from
    the configuration."""

    info: GameInfo

    def __init__(self, /, **config: Any) -> None:
        unknown = sorted(set(config) - set(self.options))
        if unknown:
            raise ValueError(
                f"unknown option(s) {shown(unknown)} for {self.name}; "
                f"options are {sorted(self.options)}"
            )
        values = {key: opt.default for key, opt in self.options.items()}
        values.update(config)
        for key, option in self.options.items():
            if values[key] is not None or option.default is not None:  # a None default: the game works it out
                values[key] = option.check(key, values[key])
        self.config: dict[str, Any] = self._configure(values)
        self.info = self._info()

    @abc.abstractmethod
    def _configure(self, values: dict[str, Any]) -> dict[str, Any]:
        """Validate the option values; return the normalised configuration."""

    @abc.abstractmethod
    def _info(self) -> GameInfo:
        """The facts of this configuration (built with :meth:`_game_info`)."""

    def _game_info(self, **facts: Any) -> GameInfo:
        """A :class:`GameInfo` of ``facts``; ``name`` and ``simultaneous`` come from the
        class, which stores them once."""
        return GameInfo(name=self.name, simultaneous=self.simultaneous, **facts)

    def notation_help(self) -> str:
        """:attr:`notation` for this configuration (its ``{option}`` fields filled in)."""
        return self.notation.format(**self.config)

    @property
    def num_players(self) -> int:
        return self.info.num_players

    @property
    def num_actions(self) -> int:
        return self.info.num_actions

    @abc.abstractmethod
    def new_initial_state(self, seed: int | np.random.Generator | None = None, **start: Any) -> State:
        """A fresh game.  All chance comes from ``numpy.random.default_rng(seed)``.

        ``start`` fixes the start instead (see ``start_options``), e.g. Goofspiel's
        ``prizes`` and ``hands``; a bad value raises ``ValueError``.
        """

    @abc.abstractmethod
    def state_from_text(self, text: str) -> State:
        """Parse the text form written by ``State.to_text``; ``ValueError`` if malformed."""

    def state_from_observation(self, observation: np.ndarray, mask: np.ndarray) -> State:
        """The position a seat's observation and legal mask show, that seat to move, for
        a game whose observation determines the position (so that a search can play from
        a PettingZoo observation, as the zoo's search agents do); ``ValueError`` if they
        show no position.  Default: not possible (hidden information, or history the
        observation leaves out)."""
        raise NotImplementedError(f"{self.name}'s observation does not determine its position")

    @property
    @abc.abstractmethod
    def observation_shape(self) -> tuple[int, ...]:
        """Shape of ``State.observation_tensor(player)``."""

    @property
    def observation_bounds(self) -> tuple[float | np.ndarray, float | np.ndarray]:
        """Lowest and highest values of the observation tensor (for the Box space)."""
        return 0.0, 1.0

    @property
    def returns_bounds(self) -> tuple[float, float]:
        """The lowest and highest value one seat's return can take in this configuration
        (as docs/<game>.md states them); frameworks such as OpenSpiel need them.  Every
        parlour game declares its own; a game that does not cannot be bridged."""
        raise NotImplementedError(f"{self.name} does not declare its returns_bounds")

    @property
    def actions_public(self) -> bool:
        """True if every seat learns every action once its step is applied (a
        simultaneous step reveals all its choices together); False where some stay hidden
        (Goofspiel with ``imperfect_info``).  A move log shown to a person follows it."""
        return True

    @property
    def action_planes(self) -> int | None:
        """``k`` when every action is one of ``k`` kinds of move on one board cell laid out
        as the observation's: with observations of shape ``(planes, rows, columns)``,
        action ``a`` is kind ``a // (rows * columns)`` on the cell at ``(row, column) =
        divmod(a % (rows * columns), columns)`` of the observation.  A network may then
        give each action its logit from its own cell's features (a convolutional policy
        head); ``None`` (the default) claims nothing.  tests/games/test_action_planes.py
        checks each claim: a move changes the observation at its own cell."""
        return None

    def symmetries(self) -> list[Symmetry]:
        """The maps of positions under which the rules do not change (the identity left
        out): a symmetric position has the symmetric legal moves, observations and
        returns.  Learners use them to augment their data (``[]``: none)."""
        return []

    def start_deal(self) -> tuple[str, tuple[Any, ...]] | None:
        """The chance of the start, when it is a uniformly random order of known items:
        ``(start option, items)``, such that ``new_initial_state(seed)`` plays every
        order of ``items`` equally often and ``new_initial_state(**{option: order})``
        plays the given one.  ``None`` when the start has no chance, or chance of another
        kind.  This lets a framework deal the start item by item as explicit chance
        events (``parlour.interop.openspiel``) without knowing the game."""
        return None

    def _check_start(self, start: Mapping[str, Any]) -> None:
        unknown = sorted(set(start) - set(self.start_options))
        if unknown:
            allowed = sorted(self.start_options) or "none"
            raise ValueError(
                f"unknown start option(s) {unknown} for {self.name}; allowed: {allowed}"
            )

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.config.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and type(other) is type(self) and other.config == self.config

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(self)))

    def __reduce__(self) -> tuple[Callable[..., Game], tuple[()], dict[str, Any]]:
        return (_rebuild_game, (type(self), dict(self.config)))  # type: ignore[return-value]


def _rebuild_game(cls: type[Game], config: dict[str, Any]) -> Game:
    return cls(**config)


class State(abc.ABC):
    """One position of a game.  ``apply`` changes it in place; ``clone`` copies it."""

    game: Game

    @abc.abstractmethod
    def current_players(self) -> tuple[int, ...]:
        """Seats to act now: one for a turn, several for a simultaneous step, () at the end."""

    @abc.abstractmethod
    def legal_actions(self, player: int) -> list[int]:
        """Legal actions of ``player`` now, ascending; [] if that seat is not to act."""

    def legal_mask(self, player: int) -> np.ndarray:
        """``int8`` vector of length ``num_actions``: 1 where the action is legal."""
        mask = np.zeros(self.game.info.num_actions, dtype=np.int8)
        mask[self.legal_actions(player)] = 1
        return mask

    @abc.abstractmethod
    def apply(self, action: int | JointAction) -> None:
        """Play one step: an int for the single current player, or ``{seat: action}``.

        Raises ``IllegalActionError`` and leaves the state unchanged on any bad action.
        """

    @abc.abstractmethod
    def clone(self) -> State:
        """An independent copy."""

    # ``undo()`` (no argument): takes back the last ``apply`` on this object.  Optional:
    # a game defines it only where a searcher needs it and it is much faster than
    # ``clone`` (Tribolo, whose original AI plays and undoes moves on one board).

    @abc.abstractmethod
    def is_terminal(self) -> bool: ...

    @abc.abstractmethod
    def returns(self) -> np.ndarray:
        """One float per seat; zeros until the game is over."""

    @abc.abstractmethod
    def info_state(self, player: int) -> Any:
        """What ``player`` may know: an immutable, hashable value with ``player``,
        ``legal_actions()`` and ``sample(rng) -> State`` (a full state consistent with it)."""

    @abc.abstractmethod
    def observation_tensor(self, player: int) -> np.ndarray:
        """``float32`` encoding of ``info_state(player)``; shape ``game.observation_shape``."""

    @abc.abstractmethod
    def action_to_text(self, action: int) -> str: ...

    @abc.abstractmethod
    def text_to_action(self, text: str) -> int: ...

    @abc.abstractmethod
    def to_text(self) -> str:
        """Compact, human-readable text of the whole state; ``game.state_from_text`` reads it."""

    # ----- what a person sees (``parlour play``); optional, with generic defaults ------

    def view_text(self, seat: int) -> str:
        """The position as the person at ``seat`` sees it in the terminal (the text of a
        ``PerfectInfoState``).  Default: :meth:`to_text`; a game adds what helps a person
        (board labels, which symbol is theirs) without changing the text form."""
        return self.to_text()

    def legal_moves_text(self, player: int) -> str:
        """The legal moves of ``player`` in notation, for a person: by default separated
        by spaces, or by commas when a move's text holds a space.  A game with many moves
        may summarise them instead, as long as every legal move can be read off."""
        texts = [self.action_to_text(a) for a in self.legal_actions(player)]
        return (", " if any(" " in t for t in texts) else " ").join(texts)

    def skipped_seats(self, mover: int) -> tuple[int, ...]:
        """Called on the position right after ``mover``'s move: the seats the turn
        passed over because they had no legal move, in turn order (Tribolo).  Default:
        none (in most games a turn is never skipped)."""
        return ()

    def key(self) -> Hashable:
        """A hashable value equal for equal positions (transposition tables, memos).

        Games override it with something much faster than the text form.
        """
        return self.to_text()

    def __str__(self) -> str:
        return self.to_text()

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, State)
            and other.game == self.game
            and other.to_text() == self.to_text()
        )

    def __hash__(self) -> int:
        return hash(self.to_text())

    # ----- helpers shared by the rules modules -------------------------------------

    def _single_action(self, action: int | JointAction) -> tuple[int, int]:
        """Normalise ``apply``'s argument for a turn-based step: (player, action)."""
        players = self.current_players()
        if not players:
            raise IllegalActionError(
                f"{self.game.name}: the game is over; no action is allowed", action=action
            )
        if isinstance(action, Mapping):
            if len(action) != 1 or next(iter(action)) != players[0]:
                raise IllegalActionError(
                    f"{self.game.name}: only seat {players[0]} acts now, got actions for "
                    f"seats {shown(sorted(action, key=repr))}",
                    action=action,
                    player=players[0],
                )
            (action,) = action.values()
        return players[0], as_action(action, players[0], self)


def integer_action(action: object) -> int | None:
    """``action`` as a plain int if it is an integer, else ``None``: the one rule every
    layer applies to an action's type.

    An integer is a Python ``int``, a numpy integer scalar or a 0-d numpy integer array
    (what ``operator.index`` accepts); not a ``bool``, a float (even ``2.0``) or an
    array with a dimension (``np.array([1])``).
    """
    if type(action) is int:
        return action
    if isinstance(action, (bool, np.bool_)):
        return None
    try:
        return operator.index(action)  # type: ignore[arg-type]
    except TypeError:
        return None


def as_action(action: object, player: int, state: State) -> int:
    """``action`` as a plain int, or ``IllegalActionError`` if it is not an integer."""
    if type(action) is int:  # the hot path of every apply, without a call
        return action
    value = integer_action(action)
    if value is None:
        raise IllegalActionError(
            f"{state.game.name}: action {action!r} for seat {player} is not an integer "
            f"(an int, a numpy integer or a 0-d integer array)",
            action=action,
            player=player,
            legal=state.legal_actions(player),
        )
    return value


def make_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    """The one way the games turn a seed into randomness."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


@dataclass(frozen=True, eq=False)
class PerfectInfoState:
    """The information state of a perfect-information game: the state itself, read-only.

    Equality and hashing go by the text form of the position and the seat.
    """

    player: int
    _state: State

    @property
    def state(self) -> State:
        """A fresh copy of the position (searchers may change it freely)."""
        return self._state.clone()

    def legal_actions(self) -> list[int]:
        return self._state.legal_actions(self.player)

    def sample(self, rng: np.random.Generator | None = None) -> State:
        """Nothing is hidden: the only consistent state is the state itself."""
        return self._state.clone()

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, PerfectInfoState)
            and other.player == self.player
            and other._state == self._state
        )

    def __hash__(self) -> int:
        return hash((self.player, self._state.to_text()))

    def __str__(self) -> str:
        """What the seat sees: the position's :meth:`State.view_text` (by default its
        text form)."""
        return self._state.view_text(self.player)


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for one-line error messages (a value
    sent by a client may be a megabyte long, or an integer too long to print)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of {value.bit_length()} bits"
    try:
        text = repr(value)
    except ValueError:  # e.g. an integer too long for repr deep inside a list
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def counted(n: int, noun: str, nouns: str | None = None) -> str:
    """``1 step``, ``2 steps``, ``1,000 steps``: a count with its noun, singular for one
    (``nouns``: the plural where it is not the noun and an s)."""
    return f"{n:,} {noun if n == 1 else nouns or noun + 's'}"


def check_choice(name: str, value: object, allowed: tuple[Any, ...]) -> Any:
    # ``True in (1, 3)`` and ``[1] == ...`` must not pass: only values of the choices' kinds
    kinds = {type(choice) for choice in allowed}
    if isinstance(value, np.integer):
        value = int(value)
    if type(value) not in kinds or value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {shown(value)}")
    return value


def check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {shown(value)}")
    value = int(value)
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"between {low} and {high}"
        raise ValueError(f"{name} must be {bound}, got {shown(value)}")
    return value


def check_bool(name: str, value: object) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {shown(value)}")
    return bool(value)
