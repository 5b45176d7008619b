"""``equilibrium``: exact Nash equilibrium play for small two-player zero-sum games.

Backward induction over the game tree (Kuhn 1953; for simultaneous steps, the
"Markov game" recursion of Shapley 1953): a terminal node is worth its return, a
single seat's node the best child for that seat, and a simultaneous node the value
of the matrix game of its children's values, solved exactly by
:func:`parlour.baselines.engines.matrix_game.solve_zero_sum`.  The policy plays the
mixed equilibrium strategy of its node, drawn with its own generator.

The policy asks a solver (:class:`ExactSolver`) for each decision.  :class:`GameSolver`
works on any game of the protocol with perfect information (simultaneous choices
aside), memoised on ``State.key()``.  A game whose structure allows much more (chance
nodes that a state does not hold, a reduction of its positions) registers its own
solver with :func:`register_solver` in its players module, as Goofspiel does in
``parlour.baselines.players.goofspiel_solver``; the policy looks it up by the game's
name.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from parlour.baselines.engines.matrix_game import solve_zero_sum
from parlour.baselines.engines.search import SearchPolicy
from parlour.baselines.policy import Param, register
from parlour.games.base import Game, State

# --- the solver interface ----------------------------------------------------------------


@dataclass
class Decision:
    """One seat's equilibrium strategy at one decision.

    ``value``: the seat's equilibrium value there; ``root_values``: each action's value
    for the seat against the other seat's equilibrium strategy (what ``pimc`` averages);
    ``stats``: the solver's counters (positions stored, ...).
    """

    actions: list[int]
    probs: np.ndarray
    value: float
    root_values: dict[int, float] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)


class ExactSolver(abc.ABC):
    """Solves one game exactly for the ``equilibrium`` player."""

    @classmethod
    @abc.abstractmethod
    def unsupported(cls, game: Game, full_states: bool = False) -> str | None:
        """Why this solver cannot solve ``game`` (``None`` if it can).  ``full_states``:
        the caller hands over complete (sampled) states, so hidden information is no
        obstacle."""

    @abc.abstractmethod
    def __init__(self, game: Game, full_states: bool = False) -> None: ...

    def decide_info(self, info: Any) -> Decision | None:
        """The decision from the information state alone, where what the seat knows is
        enough; ``None``: the policy solves a state sampled from it instead."""
        return None

    @abc.abstractmethod
    def decide(self, state: State, player: int) -> Decision:
        """``player``'s decision in the complete, non-terminal ``state``."""

    @abc.abstractmethod
    def game_value(self) -> float:
        """Seat 0's equilibrium value of the whole game."""

    @abc.abstractmethod
    def __len__(self) -> int:
        """Positions stored."""

    @abc.abstractmethod
    def forget(self) -> None:
        """Drop the stored positions (the policy's ``max_positions``)."""


_SOLVERS: dict[str, type[ExactSolver]] = {}


def register_solver(game_name: str) -> Callable[[type[ExactSolver]], type[ExactSolver]]:
    """Class decorator: the exact solver the ``equilibrium`` player uses for ``game_name``."""

    def decorate(cls: type[ExactSolver]) -> type[ExactSolver]:
        _SOLVERS[game_name] = cls
        return cls

    return decorate


def solver_class(game: Game) -> type[ExactSolver]:
    """The game's own solver if its players module registered one, else :class:`GameSolver`."""
    return _SOLVERS.get(game.name, GameSolver)


def game_value(game: Game) -> float:
    """Seat 0's equilibrium value of ``game`` (an expectation over its chance, where the
    game's solver models chance)."""
    return solver_class(game)(game).game_value()


# --- any perfect-information game -------------------------------------------------------


class GameSolver(ExactSolver):
    """Exact values of a two-player zero-sum game with perfect information.

    ``value(state)`` is seat 0's equilibrium value, memoised on ``state.key()``;
    ``strategy(state)`` the equilibrium of one node.  Chance is not modelled: the
    protocol draws it all at the start, so a state holds a fixed future (a game with
    hidden chance, such as Goofspiel's random prize order, needs a dedicated solver).
    """

    @classmethod
    def unsupported(cls, game: Game, full_states: bool = False) -> str | None:
        if game.num_players != 2:
            return f"the exact solver handles two players only, got {game.num_players}"
        if not game.info.zero_sum:
            return "its returns are not zero-sum"
        if not game.info.perfect_information and not full_states:
            return "it hides information from the players (use pimc or ismcts)"
        return None

    def __init__(self, game: Game, full_states: bool = False) -> None:
        reason = self.unsupported(game, full_states)
        if reason:
            raise ValueError(f"cannot solve {game.name} exactly: {reason}")
        self.game = game
        self.values: dict[Hashable, float] = {}

    def value(self, state: State) -> float:
        """Seat 0's value of ``state`` under equilibrium play."""
        key = state.key()
        value = self.values.get(key)
        if value is None:
            value = self._solve(state)[0]
            self.values[key] = value
        return value

    def strategy(self, state: State) -> tuple[float, dict[int, tuple[list[int], np.ndarray]]]:
        """``(value, {seat: (legal actions, probabilities)})`` at a non-terminal ``state``.

        At a single seat's node the strategy is pure (the first best action).
        """
        if state.is_terminal():
            raise ValueError("the game is over: there is no strategy to compute")
        value, strategies = self._solve(state)
        self.values.setdefault(state.key(), value)
        return value, strategies

    def matrix(self, state: State) -> tuple[list[int], list[int], np.ndarray]:
        """Seat 0's payoffs of every joint action at a simultaneous node."""
        rows, cols = state.legal_actions(0), state.legal_actions(1)
        matrix = np.empty((len(rows), len(cols)))
        for i, a in enumerate(rows):
            for j, b in enumerate(cols):
                child = state.clone()
                child.apply({0: a, 1: b})
                matrix[i, j] = self._leaf_or_value(child)
        return rows, cols, matrix

    def _leaf_or_value(self, state: State) -> float:
        return float(state.returns()[0]) if state.is_terminal() else self.value(state)

    def _solve(self, state: State) -> tuple[float, dict[int, tuple[list[int], np.ndarray]]]:
        if state.is_terminal():
            return float(state.returns()[0]), {}
        players = state.current_players()
        if len(players) == 1:
            (seat,) = players
            actions = state.legal_actions(seat)
            values = []
            for a in actions:
                child = state.clone()
                child.apply(a)
                values.append(self._leaf_or_value(child))
            best = int(np.argmax(values) if seat == 0 else np.argmin(values))
            probs = np.zeros(len(actions))
            probs[best] = 1.0
            return values[best], {seat: (actions, probs)}
        if tuple(players) != (0, 1):
            raise ValueError(f"{self.game.name}: unexpected seats to act {players}")
        rows, cols, matrix = self.matrix(state)
        value, x, y = solve_zero_sum(matrix)
        return value, {0: (rows, x), 1: (cols, y)}

    def decide(self, state: State, player: int) -> Decision:
        value, strategies = self.strategy(state)
        if player not in strategies:
            raise ValueError(f"equilibrium: seat {player} is not to act in this position")
        actions, probs = strategies[player]
        sign = 1.0 if player == 0 else -1.0
        if len(strategies) == 1:
            children = []
            for a in actions:
                child = state.clone()
                child.apply(a)
                children.append(self._leaf_or_value(child))
            own = sign * np.asarray(children)
        else:
            _, _, matrix = self.matrix(state)
            own = matrix @ strategies[1][1] if player == 0 else -(strategies[0][1] @ matrix)
        return Decision(
            actions=actions,
            probs=probs,
            value=sign * value,
            root_values={a: float(v) for a, v in zip(actions, own)},
            stats={"positions": len(self)},
        )

    def game_value(self) -> float:
        return self.value(self.game.new_initial_state(seed=0))

    def __len__(self) -> int:
        return len(self.values)

    def forget(self) -> None:
        self.values.clear()


# --- the policy --------------------------------------------------------------------------


@register
class EquilibriumPolicy(SearchPolicy):
    name = "equilibrium"
    summary = "exact equilibrium by backward induction, a matrix game at every simultaneous step (small two-player zero-sum games)"
    source = "backward induction (Kuhn 1953; Shapley 1953); Goofspiel positions as in Rhoads and Bartholdi 2012"
    params = {
        "max_positions": Param(None, "forget solved positions when more than this many are stored (None: keep all)", int),
    }

    @classmethod
    def unsupported(cls, game: Game, full_states: bool = False) -> str | None:
        return super().unsupported(game, full_states) or solver_class(game).unsupported(game, full_states)

    def setup(self) -> None:
        limit = self.config["max_positions"]
        if limit is not None and limit < 1:
            raise ValueError(f"parameter max_positions={limit}: must be at least 1 (or None)")
        self.solver = solver_class(self.game)(self.game, self.full_states)
        self.root_values = {}

    def act(self, info_state: Any) -> int:
        return self._play(self._decide(info_state))

    def strategy(self, info_state: Any) -> dict[int, float]:
        """The equilibrium strategy played at ``info_state``: action -> probability."""
        decision = self._decide(info_state)
        return {a: float(p) for a, p in zip(decision.actions, decision.probs)}

    def search(self, state: State, player: int) -> int:
        """Play ``player``'s equilibrium strategy in the complete ``state`` (for a
        Goofspiel determinization: the game with its prize order and bids known)."""
        return self._play(self.solver.decide(state, player))

    def _decide(self, info: Any) -> Decision:
        decision = self.solver.decide_info(info)
        if decision is None:
            decision = self.solver.decide(info.sample(self.rng), info.player)
        return decision

    def _play(self, decision: Decision) -> int:
        """Record the decision, then one draw from the policy's generator whatever the
        strategy, so the stream of random numbers does not depend on whether it is pure."""
        self.root_values = decision.root_values
        self.stats = {"value": decision.value, **decision.stats}
        limit = self.config["max_positions"]
        if limit is not None and len(self.solver) > limit:
            self.solver.forget()
        actions, probs = decision.actions, decision.probs
        u = self.rng.random()
        index = int(np.searchsorted(np.cumsum(probs), u * probs.sum(), side="right"))
        return actions[min(index, len(actions) - 1)]
