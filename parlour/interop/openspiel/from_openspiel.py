"""OpenSpiel's games as parlour games: any pyspiel game in parlour's games protocol.

``load_openspiel("connect_four")`` (or ``load_game("openspiel:connect_four")``; options
become OpenSpiel parameters: ``load_game("openspiel:leduc_poker", players=3)``) returns
an :class:`OpenSpielGame`, which parlour's baselines, arena, PettingZoo envs
(``parlour.envs.openspiel_v0``) and training use like any parlour game.  What the
wrapper does with what parlour's protocol does not have:

- **Chance anywhere in a game** (a deal, Leduc's public card, a die): parlour draws all
  chance from the generator a game starts with, and ``apply`` is then a function of the
  state and the action.  So a wrapped state keeps a chance seed drawn at the start and
  resolves each chance node the moment it is reached, the k-th one from
  ``numpy.random.default_rng([seed, k])`` with OpenSpiel's own probabilities: the same
  seed gives the same game, clones draw the same chance, and the text form (the seed and
  OpenSpiel's serialization) reads back.  Sampled-stochastic games (whose chance comes
  from OpenSpiel's generator inside the game object) are refused: no per-game seed can
  make them repeatable.
- **Simultaneous nodes**: every seat acts (``apply({seat: action, ...})``), as in
  parlour's simultaneous games; turn nodes take an int.
- **Information states**: perfect-information games use parlour's
  ``PerfectInfoState``; the others an :class:`OpenSpielInfoState` keyed by OpenSpiel's
  information-state string (its observation string where the game has none), whose
  ``sample(rng)`` is OpenSpiel's ``resample_from_infostate`` where the game implements it
  (Kuhn and Leduc poker, ...).  Elsewhere it raises ``NotImplementedError``, so the
  searchers that determinize (PIMC, IS-MCTS) say they cannot play that game.
- **Observations**: OpenSpiel's observation tensor (else its information-state
  tensor), float32, unbounded (OpenSpiel's tensors are not always in [0, 1]).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError("parlour.interop.openspiel needs OpenSpiel: pip install 'parlour[openspiel]'") from error

from parlour.errors import IllegalActionError
from parlour.games.base import Game, GameInfo, JointAction, Option, PerfectInfoState, State, as_action, make_rng

_T = pyspiel.GameType
_SIMULTANEOUS = int(pyspiel.PlayerId.SIMULTANEOUS)


@functools.lru_cache(maxsize=128)
def _load(text: str) -> pyspiel.Game:
    return pyspiel.load_game(text)


def _chance_events(spiel: pyspiel.State) -> int:
    """How many chance outcomes are in the history of ``spiel``."""
    return sum(1 for step in spiel.full_history() if step.player == pyspiel.PlayerId.CHANCE)


def game_string(name: str, params: dict[str, Any]) -> str:
    """An OpenSpiel game string: ``name`` with ``params`` (``leduc_poker(players=3)``)."""
    if not params:
        return name
    inner = ",".join(f"{key}={str(value).lower() if isinstance(value, bool) else value}" for key, value in sorted(params.items()))
    return f"{name}({inner})"


class OpenSpielGame(Game):
    """A pyspiel game (option ``game``: an OpenSpiel game string) as a parlour game.

    ``name`` is ``openspiel:<game string>`` on each instance.  Games with simultaneous
    nodes are :class:`OpenSpielSimultaneousGame` instances (``OpenSpielGame(game=...)``
    picks the class), so that ``simultaneous`` stays a class fact as for every game.
    """

    name = "openspiel"
    summary = "Any OpenSpiel game (pyspiel.load_game) through parlour's protocol: its baselines, arena, envs and training."
    options = {"game": Option("tic_tac_toe",
                              "an OpenSpiel game string: a registered name, with parameters if any, e.g. leduc_poker(players=3)")}
    notation = "a move is written as OpenSpiel writes it (the list of legal moves shows them)"

    def __new__(cls, /, **config: Any) -> OpenSpielGame:
        if cls is OpenSpielGame:
            text = config.get("game", cls.options["game"].default)
            try:
                simultaneous = _load(text).get_type().dynamics == _T.Dynamics.SIMULTANEOUS
            except Exception:  # noqa: BLE001 - _configure says what is wrong with the name
                simultaneous = False
            if simultaneous:
                cls = OpenSpielSimultaneousGame
        return super().__new__(cls)

    def _configure(self, values: dict[str, Any]) -> dict[str, Any]:
        text = values["game"]
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"game must be an OpenSpiel game string such as 'connect_four', got {text!r}")
        text = text.strip()
        try:
            spiel = _load(text)
        except Exception as error:  # noqa: BLE001 - pyspiel raises its own SpielError
            reason = str(error).split(" Available games are:")[0]  # not the list of 150 names
            raise ValueError(f"OpenSpiel cannot load the game {text!r}: {reason} (pyspiel.registered_names() lists the games)") from None
        kind = spiel.get_type()
        if kind.dynamics not in (_T.Dynamics.SEQUENTIAL, _T.Dynamics.SIMULTANEOUS):
            raise ValueError(f"openspiel:{text}: only sequential and simultaneous games can be wrapped, not {kind.dynamics}")
        if kind.chance_mode == _T.ChanceMode.SAMPLED_STOCHASTIC:
            raise ValueError(f"openspiel:{text} is sampled-stochastic: its chance comes from OpenSpiel's own generator, "
                             "which parlour cannot seed per game")
        self.spiel = spiel
        self.name = f"openspiel:{text}"
        self.seats = tuple(range(spiel.num_players()))
        return {"game": text}

    def _info(self) -> GameInfo:
        spiel, kind = self.spiel, self.spiel.get_type()
        return self._game_info(
            num_players=spiel.num_players(),
            num_actions=spiel.num_distinct_actions(),
            perfect_information=kind.information == _T.Information.PERFECT_INFORMATION and not self.simultaneous,
            zero_sum=kind.utility == _T.Utility.ZERO_SUM,
            has_chance=kind.chance_mode != _T.ChanceMode.DETERMINISTIC,
            max_game_length=spiel.max_game_length(),
        )

    @property
    def observation_shape(self) -> tuple[int, ...]:
        kind = self.spiel.get_type()
        if kind.provides_observation_tensor:
            return tuple(self.spiel.observation_tensor_shape())
        if kind.provides_information_state_tensor:
            return tuple(self.spiel.information_state_tensor_shape())
        return (0,)

    @property
    def observation_bounds(self) -> tuple[float, float]:
        return -math.inf, math.inf

    @property
    def returns_bounds(self) -> tuple[float, float]:
        return float(self.spiel.min_utility()), float(self.spiel.max_utility())

    def new_initial_state(self, seed: int | np.random.Generator | None = None, **start: Any) -> OpenSpielState:
        """A fresh game; chance nodes draw from a seed taken from ``seed``'s generator."""
        self._check_start(start)
        chance_seed = int(make_rng(seed).integers(2**63)) if self.info.has_chance else 0
        return OpenSpielState(self, self.spiel.new_initial_state(), chance_seed)

    def state_from_text(self, text: str) -> OpenSpielState:
        """The inverse of :meth:`OpenSpielState.to_text`."""
        head, sep, body = text.partition("\n")
        if not sep or not head.startswith("chance seed "):
            raise ValueError(f"{self.name}: a state's text starts with 'chance seed N' and a line break, got {text[:40]!r}")
        try:
            seed = int(head[len("chance seed "):])
            spiel_state = self.spiel.deserialize_state(body)
        except Exception as error:  # noqa: BLE001 - pyspiel raises its own SpielError
            raise ValueError(f"{self.name}: cannot read the state {text[:60]!r}: {error}") from None
        chance = _chance_events(spiel_state)
        return OpenSpielState(self, spiel_state, seed, chance)


class OpenSpielSimultaneousGame(OpenSpielGame):
    """An OpenSpiel game with simultaneous nodes (see :class:`OpenSpielGame`)."""

    simultaneous = True

    def _configure(self, values: dict[str, Any]) -> dict[str, Any]:
        config = super()._configure(values)
        if self.spiel.get_type().dynamics != _T.Dynamics.SIMULTANEOUS:
            raise ValueError(f"{self.name} has no simultaneous nodes: it is a turn-based game (an AEC env, OpenSpielGame)")
        return config


class OpenSpielState(State):
    """A pyspiel state (``spiel``) with its chance seed and the number of chance events
    drawn so far; chance nodes are resolved as soon as they are reached."""

    game: OpenSpielGame

    def __init__(self, game: OpenSpielGame, spiel: pyspiel.State, seed: int, chance: int = 0) -> None:
        self.game = game
        self.spiel = spiel
        self.seed = seed
        self.chance = chance
        self._resolve_chance()

    def _resolve_chance(self) -> None:
        spiel = self.spiel
        while spiel.is_chance_node():
            outcomes = spiel.chance_outcomes()
            u = np.random.default_rng([self.seed, self.chance]).random()
            cumulative = np.cumsum([p for _, p in outcomes])
            index = min(int(np.searchsorted(cumulative, u * cumulative[-1], side="right")), len(outcomes) - 1)
            spiel.apply_action(outcomes[index][0])
            self.chance += 1

    def current_players(self) -> tuple[int, ...]:
        # one call into pyspiel: a seat, SIMULTANEOUS, or TERMINAL (chance is never left pending)
        player = self.spiel.current_player()
        if player >= 0:
            return (player,)
        return self.game.seats if player == _SIMULTANEOUS else ()

    def legal_actions(self, player: int) -> list[int]:
        if player not in self.current_players():
            return []
        return list(self.spiel.legal_actions(player))

    def legal_mask(self, player: int) -> np.ndarray:
        mask = np.zeros(self.game.num_actions, dtype=np.int8)
        mask[self.legal_actions(player)] = 1
        return mask

    def apply(self, action: int | JointAction) -> None:
        player = self.spiel.current_player()
        name = self.game.name
        if player >= 0:
            if isinstance(action, dict):
                if list(action) != [player]:
                    raise IllegalActionError(f"{name}: only seat {player} acts now, got actions for seats {sorted(action)}", action=action,
                                             player=player)
                action = action[player]
            self.spiel.apply_action(self._checked(player, action))
        elif player == _SIMULTANEOUS:
            seats = self.game.seats
            if not isinstance(action, dict) or sorted(action) != list(seats):
                raise IllegalActionError(f"{name}: every seat acts now: apply takes {{seat: action}} for seats {list(seats)}, "
                                         f"got {action!r}", action=action)
            self.spiel.apply_actions([self._checked(seat, action[seat]) for seat in seats])
        else:
            raise IllegalActionError(f"{name}: the game is over", action=action)
        if self.game.info.has_chance:
            self._resolve_chance()

    def _checked(self, seat: int, action: Any) -> int:
        """``action`` as an int if it is legal for ``seat``, else ``IllegalActionError``."""
        legal = self.spiel.legal_actions(seat)
        value = as_action(action, seat, self)
        if value not in legal:
            raise IllegalActionError(f"{self.game.name}: action {value!r} is illegal for seat {seat}; legal actions are {list(legal)}",
                                     action=action, player=seat, legal=list(legal))
        return value

    def clone(self) -> OpenSpielState:
        other = OpenSpielState.__new__(OpenSpielState)
        other.game, other.spiel, other.seed, other.chance = self.game, self.spiel.clone(), self.seed, self.chance
        return other

    def is_terminal(self) -> bool:
        return self.spiel.is_terminal()

    def returns(self) -> np.ndarray:
        return np.asarray(self.spiel.returns(), dtype=np.float64)

    def info_state(self, player: int) -> PerfectInfoState | OpenSpielInfoState:
        if not 0 <= player < self.game.num_players:
            raise ValueError(f"{self.game.name}: no seat {player!r}; seats are 0..{self.game.num_players - 1}")
        if self.game.info.perfect_information:
            return PerfectInfoState(player, self.clone())
        kind = self.game.spiel.get_type()
        spiel = self.spiel
        if kind.provides_information_state_string:
            key = spiel.information_state_string(player)
        else:
            key = spiel.observation_string(player)
        return OpenSpielInfoState(player, key, self.clone())

    def observation_tensor(self, player: int) -> np.ndarray:
        kind = self.game.spiel.get_type()
        if kind.provides_observation_tensor:
            values = self.spiel.observation_tensor(player)
        elif kind.provides_information_state_tensor:
            values = self.spiel.information_state_tensor(player)
        else:
            raise NotImplementedError(f"{self.game.name} provides no observation or information-state tensor")
        return np.asarray(values, dtype=np.float32).reshape(self.game.observation_shape)

    def action_to_text(self, action: int) -> str:
        if not 0 <= action < self.game.num_actions:
            raise ValueError(f"{self.game.name}: actions are 0..{self.game.num_actions - 1}, got {action!r}")
        players = self.current_players()
        return self.spiel.action_to_string(players[0] if players else 0, action)

    def text_to_action(self, text: str) -> int:
        text = text.strip()
        players = self.current_players()
        for seat in players:
            for action in self.spiel.legal_actions(seat):
                if self.spiel.action_to_string(seat, action) == text:
                    return action
        if text.isdigit() and int(text) < self.game.num_actions:
            return int(text)
        raise ValueError(f"{self.game.name}: no legal move is written {text!r}")

    def to_text(self) -> str:
        """The chance seed, then OpenSpiel's serialization of the state."""
        return f"chance seed {self.seed}\n{self.spiel.serialize()}"

    def view_text(self, seat: int) -> str:
        kind = self.game.spiel.get_type()
        if kind.provides_observation_string:
            return self.spiel.observation_string(seat)
        if kind.provides_information_state_string:
            return self.spiel.information_state_string(seat)
        return str(self.spiel)


@dataclass(frozen=True, eq=False)
class OpenSpielInfoState:
    """What one seat knows, keyed by OpenSpiel's information-state string."""

    player: int
    key: str
    _state: OpenSpielState = field(repr=False)

    def legal_actions(self) -> list[int]:
        return self._state.legal_actions(self.player)

    def sample(self, rng: np.random.Generator | None = None) -> OpenSpielState:
        """A full state consistent with what the seat knows (OpenSpiel's
        ``resample_from_infostate``), with a fresh chance seed from ``rng``."""
        rng = make_rng(rng)
        state = self._state
        try:
            spiel = state.spiel.resample_from_infostate(self.player, lambda: float(rng.random()))
        except Exception as error:  # noqa: BLE001 - pyspiel raises its own SpielError
            raise NotImplementedError(f"{state.game.name} cannot sample a state from an information state "
                                      f"(OpenSpiel's resample_from_infostate): {error}") from None
        chance = _chance_events(spiel)
        return OpenSpielState(state.game, spiel, int(rng.integers(2**63)), chance)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpenSpielInfoState) and (other.player, other.key) == (self.player, self.key)

    def __hash__(self) -> int:
        return hash((self.player, self.key))

    def __str__(self) -> str:
        return self.key


def load_openspiel(game: str, /, **params: Any) -> OpenSpielGame:
    """The OpenSpiel game ``game`` (a game string) with ``params`` as a parlour game."""
    if params.keys() == {"game"}:  # load_game(game.name, **game.config) round trip
        if params["game"] != game:
            raise ValueError(f"openspiel:{game} was given another game={params['game']!r}")
        params = {}
    return OpenSpielGame(game=game_string(game, params))
