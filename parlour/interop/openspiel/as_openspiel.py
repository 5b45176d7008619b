"""parlour's games as OpenSpiel games: ``pyspiel.register_game`` for every one of them.

``register_parlour_games()`` registers ``parlour_<name>`` for each parlour game, its
scalar options as OpenSpiel parameters (``pyspiel.load_game("parlour_goofspiel",
{"num_cards": 4, "prize_order": "random"})``; list-valued options such as custom
hands stay parlour-only).  What a bridged game is, in OpenSpiel's terms:

- **Dynamics**: simultaneous for the games with simultaneous steps (Goofspiel, Tides of
  Time: every seat acts in every step), sequential for the others.
- **Chance**: parlour draws all chance when a game starts.  Where that draw is a uniform
  order of known items (``Game.start_deal``: Goofspiel's random prize order, Tides of
  Time's deck), the bridged game deals the items one by one in explicit chance nodes
  before the first move, so exact algorithms (CFR, ``nash_conv``, best responses) see
  every deal with its probability, while each seat's information state reveals only
  what parlour's does (a prize once it is turned up).  Dealing the whole order first
  is the same game as revealing it round by round (what is not yet revealed is hidden
  from everyone).  Tribolo's setup is not such an order (it is redrawn while nobody can
  move), so its bridge is a sampled-stochastic game, as OpenSpiel's own games with
  such chance are: setups come from the ``rng_seed`` parameter and a counter.
- **Information**: parlour's ``info_state`` for imperfect-information games (its
  fields make two equal exactly when the seat cannot tell the situations apart; their
  ``repr`` is the information-state string), the start position and the action history
  for perfect-information games (perfect recall, as OpenSpiel's own games).  The
  observation string and tensor are parlour's ``view_text`` and
  ``observation_tensor``; the information-state tensor is the observation tensor
  where that holds the whole information state (``Game.observation_is_information_state``:
  Goofspiel).
- **Utility**: zero-sum where parlour says so, within ``Game.returns_bounds``.

Why the parlour state inside a bridged state is built lazily: pyspiel clones a Python
state by making a new initial state and deep-copying its attributes, so building (for
Tribolo: drawing) a parlour state in ``__init__`` would be wasted work or consume a setup;
the one attribute, :class:`_Core`, deep-copies as a parlour ``clone()``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

try:
    import pyspiel
    from open_spiel.python import policy as openspiel_policy
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError("parlour.interop.openspiel needs OpenSpiel: pip install 'parlour[openspiel]'") from error

from parlour.games import GAMES, Game, State

PREFIX = "parlour_"
"""The OpenSpiel name of a parlour game is this prefix and the game's name."""

_T = pyspiel.GameType


def _parameters(game_cls: type[Game]) -> dict[str, Any]:
    """The scalar options of ``game_cls`` with their defaults, as OpenSpiel parameters."""
    default = game_cls()
    parameters = {key: value for key, value in default.config.items() if isinstance(value, (bool, int, float, str))}
    if _sampled(default):
        parameters["rng_seed"] = 0
    return parameters


def _sampled(game: Game) -> bool:
    """True for a game whose start has chance that is not a deal of known items."""
    return game.info.has_chance and game.start_deal() is None


def _game_type(game: Game, parameters: dict[str, Any]) -> pyspiel.GameType:
    info = game.info
    if not info.has_chance:
        chance = _T.ChanceMode.DETERMINISTIC
    else:
        chance = _T.ChanceMode.SAMPLED_STOCHASTIC if _sampled(game) else _T.ChanceMode.EXPLICIT_STOCHASTIC
    return pyspiel.GameType(
        short_name=PREFIX + game.name,
        long_name=f"parlour {game.name}",
        dynamics=_T.Dynamics.SIMULTANEOUS if game.simultaneous else _T.Dynamics.SEQUENTIAL,
        chance_mode=chance,
        information=_T.Information.PERFECT_INFORMATION if info.perfect_information else _T.Information.IMPERFECT_INFORMATION,
        utility=_T.Utility.ZERO_SUM if info.zero_sum else _T.Utility.GENERAL_SUM,
        reward_model=_T.RewardModel.TERMINAL,
        max_num_players=info.num_players,
        min_num_players=info.num_players,
        provides_information_state_string=True,
        provides_information_state_tensor=game.observation_is_information_state,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


def _game_info(game: Game) -> pyspiel.GameInfo:
    deal = game.start_deal()
    dealt = len(deal[1]) if deal else 0
    low, high = game.returns_bounds
    return pyspiel.GameInfo(
        num_distinct_actions=game.num_actions,
        max_chance_outcomes=dealt,
        num_players=game.num_players,
        min_utility=float(low),
        max_utility=float(high),
        utility_sum=0.0 if game.info.zero_sum else None,
        max_game_length=game.info.max_game_length + dealt,
    )


class _BridgedGame(pyspiel.Game):
    """A parlour game as a pyspiel game (one subclass per parlour game, made by
    :func:`register_parlour_games`)."""

    parlour_class: type[Game]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        spec = _parameters(self.parlour_class)
        options = {key: value for key, value in params.items() if key != "rng_seed"}
        self.parlour: Game = self.parlour_class(**options)
        self.deal = self.parlour.start_deal()
        self.sampled = _sampled(self.parlour)
        self.rng_seed = int(params.get("rng_seed", 0))
        if self.rng_seed < 0:
            raise ValueError(f"rng_seed must be >= 0, got {self.rng_seed}")
        self._setups = 0
        full = {**spec, **params}
        if not self.sampled:
            full.pop("rng_seed", None)
        super().__init__(_game_type(self.parlour, spec), _game_info(self.parlour), full)

    def new_initial_state(self) -> _BridgedState:
        return _BridgedState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> _Observer:
        return _Observer(self, iig_obs_type, params)

    def next_setup(self) -> int:
        """The index of the next sampled setup (sampled-stochastic games)."""
        self._setups += 1
        return self._setups - 1


class _Core:
    """Everything a bridged state holds: the game, the deal so far (indices of the
    deal's items), the sampled setup's index, and the parlour state once there is one.
    Deep-copied (pyspiel's ``clone``) as a parlour ``clone()`` sharing the game."""

    __slots__ = ("game", "dealt", "setup", "state", "start_text")

    def __init__(self, game: _BridgedGame) -> None:
        self.game = game
        self.dealt: list[int] = []
        self.setup = game.next_setup() if game.sampled else None
        self.state: State | None = None
        self.start_text = ""

    def __deepcopy__(self, memo: dict) -> _Core:
        other = _Core.__new__(_Core)
        other.game, other.setup, other.start_text = self.game, self.setup, self.start_text
        other.dealt = list(self.dealt)
        other.state = None if self.state is None else self.state.clone()
        return other

    def parlour(self) -> State | None:
        """The parlour state, built on first use; ``None`` while the deal goes on."""
        if self.state is None:
            game = self.game
            if game.deal is not None:
                option, items = game.deal
                if len(self.dealt) < len(items):
                    return None
                self.state = game.parlour.new_initial_state(None, **{option: [items[i] for i in self.dealt]})
            elif game.sampled:
                assert self.setup is not None  # a sampled game draws a setup per state
                self.state = game.parlour.new_initial_state(np.random.default_rng([game.rng_seed, self.setup]))
            else:
                self.state = game.parlour.new_initial_state()
            self.start_text = self.state.to_text()
        return self.state


class _BridgedState(pyspiel.State):
    """A parlour state as a pyspiel state (see the module docstring)."""

    def __init__(self, game: _BridgedGame) -> None:
        super().__init__(game)
        self._core = _Core(game)

    def current_player(self) -> int:
        state = self._core.parlour()
        if state is None:
            return pyspiel.PlayerId.CHANCE
        players = state.current_players()
        if not players:
            return pyspiel.PlayerId.TERMINAL
        if len(players) == 1:
            return players[0]
        if len(players) != self._core.game.parlour.num_players:  # pragma: no cover - no parlour game does this
            raise NotImplementedError(f"{self._core.game.parlour.name}: seats {players} act at once, OpenSpiel wants all or one")
        return pyspiel.PlayerId.SIMULTANEOUS

    def _legal_actions(self, player: int) -> list[int]:
        state = self._core.parlour()
        assert state is not None  # a player acts: the deal is over
        return state.legal_actions(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        core = self._core
        deal = core.game.deal
        assert deal is not None  # chance nodes are the deal's
        dealt = set(core.dealt)
        left = [i for i in range(len(deal[1])) if i not in dealt]
        return [(i, 1.0 / len(left)) for i in left]

    def _apply_action(self, action: int) -> None:
        core = self._core
        state = core.parlour()
        if state is not None:
            state.apply(int(action))
            return
        assert core.game.deal is not None  # no parlour state yet: the deal goes on
        items = core.game.deal[1]
        if not 0 <= action < len(items) or action in core.dealt:
            raise ValueError(f"{core.game.parlour.name}: chance outcome {action} is not among the items still to deal")
        core.dealt.append(int(action))

    def _apply_actions(self, actions: list[int]) -> None:
        state = self._core.parlour()
        assert state is not None  # the seats act: the deal is over
        state.apply({seat: int(action) for seat, action in enumerate(actions)})

    def _action_to_string(self, player: int, action: int) -> str:
        state = self._core.parlour()
        if state is None:
            assert self._core.game.deal is not None  # no parlour state yet: the deal goes on
            return f"deal {self._core.game.deal[1][action]}"
        return state.action_to_text(action)

    def is_terminal(self) -> bool:
        state = self._core.parlour()
        return state is not None and state.is_terminal()

    def returns(self) -> list[float]:
        state = self._core.parlour()
        if state is None:
            return [0.0] * self._core.game.parlour.num_players
        return [float(x) for x in state.returns()]

    def __str__(self) -> str:
        state = self._core.parlour()
        if state is None:
            assert self._core.game.deal is not None  # no parlour state yet: the deal goes on
            option, items = self._core.game.deal
            return f"dealing {option}: {' '.join(str(items[i]) for i in self._core.dealt)}"
        return state.to_text()


class _Observer:
    """pyspiel's observer protocol over parlour's observations and information states.

    ``perfect_recall`` (an information state): parlour's ``info_state`` as a string (its
    ``repr``) for imperfect-information games, the start position and the action history
    for perfect-information ones; otherwise (an observation) ``view_text``.  The tensor
    is ``observation_tensor`` either way (zeros while the deal goes on)."""

    def __init__(self, game: _BridgedGame, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"parlour games take no observation parameters, got {params}")
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.perfect_information = game.parlour.info.perfect_information
        shape = game.parlour.observation_shape
        self.tensor = np.zeros(int(np.prod(shape)), dtype=np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: _BridgedState, player: int) -> None:
        parlour = state._core.parlour()
        if parlour is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = parlour.observation_tensor(player).reshape(-1)

    def string_from(self, state: _BridgedState, player: int) -> str:
        parlour = state._core.parlour()
        if parlour is None:
            return f"p{player} dealing"
        if not self.perfect_recall:
            return parlour.view_text(player)
        if self.perfect_information:
            return f"p{player} start {state._core.start_text!r} moves {' '.join(map(str, state.history()))}"
        return repr(parlour.info_state(player))


def register_parlour_games() -> list[str]:
    """Register every parlour game with pyspiel as ``parlour_<name>`` (idempotent);
    return the OpenSpiel names."""
    registered = set(pyspiel.registered_names())
    names = []
    for name, cls in GAMES.items():
        short_name = PREFIX + name
        if short_name not in registered:
            bridged = type(f"Bridged{cls.__name__}", (_BridgedGame,),
                           {"parlour_class": cls, "__doc__": f"parlour's {name} as a pyspiel game."})
            pyspiel.register_game(_game_type(cls(), _parameters(cls)), bridged)
        names.append(short_name)
    return names


@functools.lru_cache(maxsize=64)
def _underlying(name: str, parameters: tuple[tuple[str, Any], ...]) -> pyspiel.Game:
    """A bridged game by name and parameters (cached: a policy reads many states)."""
    return pyspiel.load_game(name, dict(parameters))


def parlour_state(state: pyspiel.State) -> State | None:
    """The parlour state of a state of a bridged game, or of the turn-based conversion of
    one (``pyspiel.convert_to_turn_based``; there the history is replayed); ``None``
    while the start is being dealt."""
    core = getattr(state, "_core", None)
    if core is not None:
        return core.parlour()
    parameters = state.get_game().get_parameters()
    inner = parameters.get("game")
    if not isinstance(inner, dict) or not str(inner.get("name", "")).startswith(PREFIX):
        raise ValueError(f"not a state of a bridged parlour game: {state.get_game()}")
    game = _underlying(inner["name"], tuple(sorted((k, v) for k, v in inner.items() if k != "name")))
    replay = game.new_initial_state()
    pending: list[int] = []
    for action in state.history():
        if replay.is_simultaneous_node():
            pending.append(action)
            if len(pending) == game.num_players():
                replay.apply_actions(pending)
                pending = []
        else:
            replay.apply_action(action)
    return replay._core.parlour()


class ParlourPolicy(openspiel_policy.Policy):
    """An OpenSpiel policy from a parlour strategy: ``strategy(info_state) -> {action:
    probability}`` (e.g. ``EquilibriumPolicy.strategy``), read at the parlour state
    behind each OpenSpiel state, so OpenSpiel's ``exploitability``, best responses and
    ``expected_game_score`` evaluate parlour's players.  The strategy is asked once per
    information state (the answers are kept by OpenSpiel's information-state string,
    which the strategy cannot tell apart either)."""

    def __init__(self, game: pyspiel.Game, strategy: Callable[[Any], dict[int, float]]) -> None:
        super().__init__(game, list(range(game.num_players())))
        self.strategy = strategy
        self._answers: dict[tuple[int, str], dict[int, float]] = {}

    def action_probabilities(self, state: pyspiel.State, player_id: int | None = None) -> dict[int, float]:
        player = state.current_player() if player_id is None else player_id
        key = (player, state.information_state_string(player))
        answer = self._answers.get(key)
        if answer is None:
            parlour = parlour_state(state)
            assert parlour is not None  # a seat acts: the deal is over
            answer = {int(action): float(p) for action, p in self.strategy(parlour.info_state(player)).items()}
            self._answers[key] = answer
        return answer
