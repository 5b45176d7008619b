"""The policy protocol and the registry of named baselines.

A policy plays one seat: ``act(info_state) -> action`` sees only what that seat may
know (the games protocol's information state), never the full state.  ``reset(seed)``
starts a new game with fresh randomness, so the arena can give every game and seat
its own seed and get the same table whatever the number of worker processes.

Policies declare their parameters (:class:`Param`) so that ``make(name, game,
**params)`` validates them, ``describe()`` documents them, and the command line can
read ``name:key=value,...`` specs.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from parlour.games import load_game
from parlour.games.base import Game


@dataclass(frozen=True)
class Param:
    """One parameter of a policy: default, type (used to read command-line text), help."""

    default: Any
    help: str
    type: Callable[[str], Any] | None = None
    choices: tuple[Any, ...] | None = None

    def parse(self, name: str, value: Any) -> Any:
        """Check (and, for text, convert) a value; ``ValueError`` naming what is allowed."""
        if value is None and self.default is None:  # "not set": the policy works it out
            return None
        kind = self.type or (type(self.default) if self.default is not None else None)
        if isinstance(value, str) and kind not in (None, str):
            try:
                value = _parse_bool(value) if kind is bool else kind(value)
            except ValueError:
                raise ValueError(f"parameter {name}={value!r}: expected {getattr(kind, '__name__', kind)}") from None
        if kind is bool and not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"parameter {name}={value!r}: expected true or false")
        if kind in (int, float) and (isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating))):
            if value is not None or self.default is not None:
                raise ValueError(f"parameter {name}={value!r}: expected {kind.__name__}")
        if kind is int and isinstance(value, (float, np.floating)) and not float(value).is_integer():
            raise ValueError(f"parameter {name}={value!r}: expected an integer")
        if kind is int and value is not None:
            value = int(value)
        if kind is float and value is not None:
            value = float(value)
        if isinstance(value, float) and not math.isfinite(value):  # (an int is always finite)
            raise ValueError(f"parameter {name}={value!r}: expected a finite number")
        # an array is never one of the choices (and ``array in choices`` compares elementwise:
        # numpy 1.x warns, numpy 2 raises that its truth is ambiguous)
        if self.choices is not None and (isinstance(value, np.ndarray) or value not in self.choices):
            raise ValueError(f"parameter {name}={value!r}: allowed values are {list(self.choices)}")
        return value


def _parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)


class Policy(abc.ABC):
    """A player for one seat.  Subclasses set ``name``, ``params`` and ``summary``.

    ``games``: the game names it is made for (``None``: any game it ``supports``).
    ``seed``: the policy's own ``numpy.random.Generator`` comes from it (and from
    ``reset(seed)``); a policy uses no other randomness.
    """

    name: ClassVar[str]
    summary: ClassVar[str]
    params: ClassVar[dict[str, Param]] = {}
    games: ClassVar[tuple[str, ...] | None] = None
    source: ClassVar[str] = "parlour"
    """Where the algorithm comes from (a seed document, a paper, or parlour itself)."""
    positional: ClassVar[str | None] = None
    """The parameter a bare first spec item sets (``ppo:runs/x/best.zip`` sets ``path``)."""

    def __init__(self, game: Game, seed: int | None = None, *, full_states: bool = False, **params: Any) -> None:
        self.full_states = full_states
        reason = self.unsupported(game, full_states)
        if reason:
            raise ValueError(f"policy {self.name!r} cannot play {game.name}: {reason}")
        unknown = sorted(set(params) - set(self.params))
        if unknown:
            raise ValueError(
                f"unknown parameter(s) {unknown} for policy {self.name!r}; "
                f"parameters are: {self.param_text()}"
            )
        self.game = game
        self.config = {key: spec.parse(key, params.get(key, spec.default)) for key, spec in self.params.items()}
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.stats: dict[str, Any] = {}
        self.setup()

    def setup(self) -> None:
        """Validate ``self.config`` further and precompute; called by ``__init__``."""

    @classmethod
    def unsupported(cls, game: Game, full_states: bool = False) -> str | None:
        """Why this policy cannot play ``game`` (``None`` if it can).

        ``full_states``: the caller (e.g. ``pimc``) will hand the policy complete
        sampled states through ``search``, so hidden information is no obstacle.
        """
        if cls.games is not None and game.name not in cls.games:
            return f"it is made for {', '.join(cls.games)}"
        return None

    @abc.abstractmethod
    def act(self, info_state: Any) -> int:
        """The action for the seat whose information state this is."""

    def reset(self, seed: int | None = None) -> None:
        """Forget the last game; with ``seed``, restart the policy's randomness from it."""
        if seed is not None:
            self.seed = seed
            self.rng = np.random.default_rng(seed)

    @classmethod
    def param_text(cls) -> str:
        if not cls.params:
            return "none"
        return ", ".join(f"{key}={spec.default!r}" for key, spec in cls.params.items())

    @classmethod
    def describe(cls) -> str:
        """A paragraph for ``--help`` and the docs: what it is, where from, parameters."""
        lines = [f"{cls.name}: {cls.summary}"]
        if cls.games:
            lines.append(f"  games: {', '.join(cls.games)}")
        lines.append(f"  source: {cls.source}")
        for key, spec in cls.params.items():
            choices = f" (one of {', '.join(map(str, spec.choices))})" if spec.choices else ""
            lines.append(f"  {key}={spec.default!r}: {spec.help}{choices}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.config.items() if v != self.params[k].default}
        args = ",".join(f"{k}={v}" for k, v in changed.items())
        return f"{self.name}:{args}" if args else self.name


RENAMED = {
    "seed-minimax": "original-minimax",
    "seed-search": "original-search",
    "seed-alphabeta": "original-alphabeta",
    "seed-strategy": "original-strategy",
    "seed-tournament": "original-tournament",
}
"""Old names of the original AIs (before 0.2), for an error that says the new one."""


def _unknown(name: str, where: str = "") -> ValueError:
    hint = f" (renamed {RENAMED[name]!r})" if name in RENAMED else ""
    return ValueError(f"unknown policy {name!r}{hint}{where}; policies are {sorted(REGISTRY)}")


REGISTRY: dict[str, type[Policy]] = {}
"""Policy name -> class (for a name several games define, the first registered)."""

_PER_GAME: dict[tuple[str, str], type[Policy]] = {}


def register(cls: type[Policy]) -> type[Policy]:
    """Class decorator: make a policy available to ``make`` under ``cls.name``.

    Game-specific policies (``games`` set) may share a name when their games differ,
    e.g. each game's own ``greedy``; ``make`` picks the one for the game.
    """
    existing = REGISTRY.get(cls.name)
    if existing is not None and existing is not cls:
        if cls.games is None or existing.games is None or set(cls.games) & set(existing.games):
            raise ValueError(f"two policies are called {cls.name!r} for the same game")
    else:
        REGISTRY[cls.name] = cls
    for game_name in cls.games or ():
        _PER_GAME[(cls.name, game_name)] = cls
    return cls


def lookup(name: str, game: Game) -> type[Policy]:
    """The class that ``make(name, game)`` builds; ``ValueError`` listing the names."""
    cls = _PER_GAME.get((name, game.name)) or REGISTRY.get(name)
    if cls is None:
        raise _unknown(name)
    if cls.games is not None and game.name not in cls.games:
        games = sorted(g for (n, g) in _PER_GAME if n == name)
        raise ValueError(f"policy {name!r} cannot play {game.name}: it is made for {', '.join(games)}")
    return cls


def unregister(name: str) -> None:
    """Forget every class registered as ``name`` (the shared one and each game's own), as
    a test or a notebook does after :func:`register`; ``ValueError`` for an unknown name."""
    if name not in REGISTRY:
        raise _unknown(name)
    del REGISTRY[name]
    for key in [key for key in _PER_GAME if key[0] == name]:
        del _PER_GAME[key]


def variants(name: str) -> list[type[Policy]]:
    """The classes registered as ``name``: each game's own, sorted by their games, where
    games define the name separately (``greedy``), else the one class; ``ValueError``
    for an unknown name."""
    if name not in REGISTRY:
        raise _unknown(name)
    own = {cls for (n, _), cls in _PER_GAME.items() if n == name}
    return sorted(own, key=lambda cls: cls.games or ()) or [REGISTRY[name]]  # (each game's own class names its games)


def playable(game: Game) -> list[str]:
    """The names of the policies that can play ``game``, sorted."""
    names = []
    for name in sorted(REGISTRY):
        try:
            if lookup(name, game).unsupported(game) is None:
                names.append(name)
        except ValueError:
            continue
    return names


def as_game(game: Game | str) -> Game:
    """``game`` itself, or the game of that name with its default options."""
    if isinstance(game, Game):
        return game
    if isinstance(game, str):
        return load_game(game)
    raise ValueError(f"expected a Game or a game name such as 'goofspiel', got {game!r}")


def make(name: str, game: Game | str, seed: int | None = None, *, full_states: bool = False, **params: Any) -> Policy:
    """The policy called ``name`` for ``game`` (a ``Game``, or a game's name for its
    default options); clear errors for unknown names or params."""
    game = as_game(game)
    return lookup(name, game)(game, seed=seed, full_states=full_states, **params)


POSITIONAL = ""
"""The key ``parse_spec`` gives a bare first item (``name:value,key=value``)."""


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,key=value`` into the name and its (text) parameters.

    The first item may be a bare value (``ppo:runs/x/best.zip``), returned under the
    key ``POSITIONAL`` for the policy's ``positional`` parameter.
    """
    name, _, rest = spec.partition(":")
    name = name.strip()
    if not name:
        raise ValueError(f"agent spec {spec!r} has no policy name; expected name:key=value,...")
    params: dict[str, str] = {}
    if rest.strip():
        for index, item in enumerate(rest.split(",")):
            key, eq, value = item.partition("=")
            if not eq and index == 0 and item.strip():
                params[POSITIONAL] = item.strip()
                continue
            if not eq or not key.strip():
                raise ValueError(f"agent spec {spec!r}: {item!r} is not key=value")
            params[key.strip()] = value.strip()
    return name, params


def make_from_spec(spec: str, game: Game | str, seed: int | None = None) -> Policy:
    """``make`` from a command-line spec such as ``mcts:simulations=400``."""
    game = as_game(game)
    name, params = parse_spec(spec)
    if name not in REGISTRY:
        raise _unknown(name, f" in {spec!r}")
    if POSITIONAL in params:
        key = lookup(name, game).positional
        if key is None:
            raise ValueError(f"agent spec {spec!r}: {params[POSITIONAL]!r} is not key=value")
        if key in params:
            raise ValueError(f"agent spec {spec!r} sets {key} twice")
        params[key] = params.pop(POSITIONAL)
    settings: dict[str, Any] = dict(params)  # text values; make() parses each by its Param
    return make(name, game, seed=seed, **settings)


def describe(names: list[str] | None = None, game: Game | None = None) -> str:
    """Text describing the policies (all, or ``names``; those that can play ``game``)."""
    if game is None:
        chosen = [REGISTRY[n] for n in (names or sorted(REGISTRY))]
    else:
        chosen = []
        for n in names or sorted(REGISTRY):
            try:
                cls = lookup(n, game)
            except ValueError:
                continue
            if cls.unsupported(game) is None:
                chosen.append(cls)
    return "\n\n".join(cls.describe() for cls in chosen)
