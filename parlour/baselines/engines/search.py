"""What the tree searchers share: which games they can search, budgets, statistics."""

from __future__ import annotations

import abc
import math
import time
from dataclasses import dataclass, field
from typing import Any

from parlour.baselines.policy import Policy
from parlour.games.base import Game, State


def sequential_perfect_info(game: Game, full_states: bool = False) -> str | None:
    """Why an exact tree search cannot play ``game`` honestly (``None`` if it can).

    With ``full_states`` the caller hands over complete (sampled) states, so only
    simultaneous moves are an obstacle.
    """
    if game.info.simultaneous:
        return "its moves are simultaneous (use sm-mcts or equilibrium)"
    if not game.info.perfect_information and not full_states:
        return "it hides information from the players (use pimc or ismcts)"
    return None


class SearchPolicy(Policy):
    """A policy that searches complete states.

    ``act`` searches a state drawn from the information state (for a perfect-
    information game, the state itself); ``search(state, player)`` is the search on
    a given complete state, which ``pimc`` calls on each determinization.  After a
    search, ``self.stats`` holds its statistics and ``self.root_values`` maps each
    root action searched to its value for ``player`` (exact for minimax and MCTS
    estimates; bounds for alpha-beta's non-best moves, see there).
    """

    root_values: dict[int, float]
    exact_root_values: bool = True
    """False where the root values of moves other than the best are only bounds
    (alpha-beta), so that they must not be averaged (``pimc``'s ``combine=average``) nor
    shown as values (a hint); an instance may know better than its class (alpha-beta with
    the full root window)."""

    def act(self, info_state: Any) -> int:
        return self.search(info_state.sample(self.rng), info_state.player)

    @abc.abstractmethod
    def search(self, state: State, player: int) -> int:
        """The chosen action for ``player`` in the complete ``state``."""


class OutOfTime(Exception):
    """Raised inside a search when its time budget is spent."""


@dataclass
class Budget:
    """A per-move time budget checked every ``every`` nodes (cheap on the hot path)."""

    seconds: float | None
    every: int = 256
    start: float = field(default_factory=time.perf_counter)
    count: int = 0

    def tick(self) -> None:
        if self.seconds is None:
            return
        self.count += 1
        if self.count % self.every == 0 and time.perf_counter() - self.start > self.seconds:
            raise OutOfTime

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def left(self) -> bool:
        return self.seconds is None or self.elapsed() < self.seconds


def positive_or_none(name: str, value: float | int | None) -> None:
    if value is not None and not (value > 0 and (not isinstance(value, float) or math.isfinite(value))):  # a NaN or inf is no budget
        raise ValueError(f"parameter {name}={value!r}: must be positive and finite (or unset)")
