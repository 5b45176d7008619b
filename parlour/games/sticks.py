"""Pick-up sticks: a single-pile subtraction game (rules: docs/sticks.md).

Two players alternate taking 1..``max_take`` sticks from one pile; under ``misere``
(the default, the rule of the 2007 minimax tutorial the game comes from) whoever
takes the last stick loses, otherwise wins.  Action ``a`` takes ``a + 1`` sticks.
Perfect information, no chance, no draws.

Closed form (docs/sticks.md, "Losing positions"): the player to move loses with
perfect play exactly when ``sticks % (max_take + 1) == 1`` (misère) or ``== 0``
(normal play); see :func:`losing_position`.
"""

from __future__ import annotations

import re
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
    shown,
)


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
        match = _TEXT.fullmatch(text.strip())
        if not match:
            raise ValueError(
                f"malformed sticks position {shown(text)}; expected e.g. "
                f"'7 sticks | player_1 to move', '1 stick | player_0 to move' or "
                f"'0 sticks | player_0 took the last stick'"
            )
        sticks, seat, verb = int(match["sticks"]), int(match["seat"]), match["verb"]
        if sticks > self.num_sticks or seat > 1:
            raise ValueError(
                f"position {shown(text)} does not fit this game: at most {self.num_sticks} "
                f"sticks and seats player_0, player_1"
            )
        if (sticks == 0) != (verb == "took the last stick"):
            raise ValueError(
                f"malformed sticks position {shown(text)}: 'to move' needs sticks left, "
                f"'took the last stick' needs 0 sticks"
            )
        to_move = seat if sticks else 1 - seat
        state = SticksState(self, sticks, to_move)
        if state.to_text() not in (text.strip(), _OLD_ONE.sub("1 stick ", text.strip())):
            raise ValueError(f"malformed sticks position {shown(text)}; did you mean {state.to_text()!r}?")
        return state


_TEXT = re.compile(
    r"(?P<sticks>\d+) sticks? \| player_(?P<seat>\d) (?P<verb>to move|took the last stick)"
    r"(?: \| player_\d wins)?"
)
_OLD_ONE = re.compile(r"^1 sticks ")
"""One stick left was once written ``1 sticks``; ``state_from_text`` still reads that form."""


def losing_position(sticks: int, max_take: int, misere: bool) -> bool:
    """True if the player to move loses with perfect play (the closed form of docs/sticks.md)."""
    return sticks % (max_take + 1) == (1 if misere else 0)


class SticksState(State):
    """``sticks`` left and the seat ``to_move`` (at the end: the one who did not take last)."""

    __slots__ = ("game", "sticks", "to_move")

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
                f"with {self.sticks} sticks left",
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
        obs = np.zeros(self.game.observation_shape, dtype=np.float32)
        obs[0] = self.sticks
        obs[1] = self.game.max_take
        obs[2 + self.sticks] = 1.0
        return obs

    def action_to_text(self, action: int) -> str:
        if not 0 <= action < self.game.max_take:
            raise ValueError(f"sticks action must be 0..{self.game.max_take - 1}, got {action!r}")
        return str(action + 1)

    def text_to_action(self, text: str) -> int:
        text = text.strip()
        if not text.isdigit() or not 1 <= int(text) <= self.game.max_take:
            raise ValueError(
                f"a sticks move is how many to take, 1..{self.game.max_take}; got {shown(text)}"
            )
        return int(text) - 1

    def to_text(self) -> str:
        if self.sticks:
            return f"{self.sticks} stick{'s' if self.sticks != 1 else ''} | player_{self.to_move} to move"
        return (
            f"0 sticks | player_{1 - self.to_move} took the last stick | "
            f"player_{self.winner()} wins"
        )
