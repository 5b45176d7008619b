"""Pick-up sticks' rules: ``SticksGame`` (options, the start) and ``SticksState`` (the
move, the winner, the returns); the game and its closed form are described in the
package's docstring (``parlour.games.sticks``) and docs/sticks.md."""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.errors import IllegalActionError
from parlour.games.base import (
    Game,
    GameInfo,
    Option,
    PerfectInfoState,
    State,
    check_int,
    counted,
)
from parlour.games.sticks.notation import action_text, check_written, parse_position, position_text, text_action
from parlour.games.sticks.observation import observation_vector

MAX_STICKS = 1000
"""The largest pile and the most one move may take: the observation holds a one-hot of the
pile (``num_sticks + 1`` entries), the picture draws every stick, the action space has
``max_take`` actions and a game lasts up to ``num_sticks`` moves (docs/sticks.md)."""


class SticksGame(Game):
    name = "sticks"
    summary = "Pick-up sticks: two players take 1 to max_take sticks from one pile; under misère, whoever takes the last stick loses."
    options = {
        "num_sticks": Option(10, f"sticks in the pile at the start, 1..{MAX_STICKS}", low=1, high=MAX_STICKS),
        "max_take": Option(3, f"most sticks one move may take, 1..{MAX_STICKS} (it may exceed num_sticks)", low=1, high=MAX_STICKS),
        "misere": Option(True, "True: taking the last stick loses; False: it wins", choices=(False, True)),
    }
    start_options = {"sticks": "pile size to start from, 1..num_sticks"}
    notation = (
        "a move is how many sticks you take: a number from 1 to {max_take}, and never more "
        "than are left"
    )

    def notation_help(self) -> str:
        last = "loses" if self.misere else "wins"
        return f"{super().notation_help()}. Whoever takes the last stick {last}."

    def _configure(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)  # each option stands alone: Game checked them against their bounds

    def _info(self) -> GameInfo:
        return self._game_info(
            num_players=2,
            num_actions=self.config["max_take"],
            perfect_information=True,
            zero_sum=True,
            has_chance=False,
            max_game_length=self.config["num_sticks"],
        )

    @property
    def num_sticks(self) -> int:
        return self.config["num_sticks"]

    @property
    def max_take(self) -> int:
        return self.config["max_take"]

    @property
    def misere(self) -> bool:
        return self.config["misere"]

    @property
    def observation_bounds(self) -> tuple[float, np.ndarray]:
        high = np.ones(self.observation_shape, dtype=np.float32)
        high[0], high[1] = self.num_sticks, self.max_take
        return 0.0, high

    @property
    def returns_bounds(self) -> tuple[float, float]:
        return (-1.0, 1.0)

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (2 + self.num_sticks + 1,)

    def new_initial_state(self, seed=None, **start: Any) -> SticksState:
        """The start position; ``sticks=n`` starts from a smaller pile.  No chance."""
        self._check_start(start)
        sticks = self.num_sticks
        if "sticks" in start:
            sticks = check_int("start option sticks", start["sticks"], 1, self.num_sticks)
        return SticksState(self, sticks, 0)

    def state_from_text(self, text: str) -> SticksState:
        sticks, to_move = parse_position(text, self.num_sticks)
        state = SticksState(self, sticks, to_move)
        check_written(text, state.to_text())
        return state


def losing_position(sticks: int, max_take: int, misere: bool) -> bool:
    """True if the player to move loses with perfect play (the closed form of docs/sticks.md)."""
    return sticks % (max_take + 1) == (1 if misere else 0)


class SticksState(State):
    """``sticks`` left and the seat ``to_move`` (at the end: the one who did not take last)."""

    __slots__ = ("game", "sticks", "to_move")
    game: SticksGame

    def __init__(self, game: SticksGame, sticks: int, to_move: int) -> None:
        self.game = game
        self.sticks = sticks
        self.to_move = to_move

    def current_players(self) -> tuple[int, ...]:
        return (self.to_move,) if self.sticks else ()

    def legal_actions(self, player: int) -> list[int]:
        if player != self.to_move or not self.sticks:
            return []
        return list(range(min(self.game.max_take, self.sticks)))

    def apply(self, action) -> None:
        player, action = self._single_action(action)
        if not 0 <= action < min(self.game.max_take, self.sticks):
            raise IllegalActionError(
                f"sticks: action {action} (take {action + 1}) is illegal for seat {player} "
                f"with {counted(self.sticks, 'stick')} left",
                action=action,
                player=player,
                legal=self.legal_actions(player),
            )
        self.sticks -= action + 1
        self.to_move = 1 - player

    def key(self) -> tuple[int, int]:
        return (self.sticks, self.to_move)

    def clone(self) -> SticksState:
        return SticksState(self.game, self.sticks, self.to_move)

    def is_terminal(self) -> bool:
        return self.sticks == 0

    def winner(self) -> int | None:
        """The winning seat once the game is over, else ``None``."""
        if self.sticks:
            return None
        last_taker = 1 - self.to_move
        return 1 - last_taker if self.game.misere else last_taker

    def returns(self) -> np.ndarray:
        result = np.zeros(2)
        winner = self.winner()
        if winner is not None:
            result[winner], result[1 - winner] = 1.0, -1.0
        return result

    def info_state(self, player: int) -> PerfectInfoState:
        return PerfectInfoState(player, self.clone())

    def observation_tensor(self, player: int) -> np.ndarray:
        """[sticks left, max_take, one-hot of sticks left (length num_sticks + 1)]."""
        return observation_vector(self.sticks, self.game.max_take, self.game.observation_shape)

    def action_to_text(self, action: int) -> str:
        return action_text(action, self.game.max_take)

    def text_to_action(self, text: str) -> int:
        return text_action(text, self.game.max_take)

    def to_text(self) -> str:
        return position_text(self.sticks, self.to_move, self.winner())
