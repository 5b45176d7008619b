"""A small three-player turn-based game for testing multi-player searchers.

Three players take 1 or 2 counters in turn from a pile; whoever takes the last
counter loses (-1) and the other two get +0.5 each (zero-sum).  Small enough to
solve by brute force, big enough for max^n and paranoid search to disagree.
"""

from __future__ import annotations

import numpy as np

from parlour.games.base import Game, GameInfo, Option, PerfectInfoState, State, check_int


class TakeThreeGame(Game):
    name = "take-three"
    options = {"pile": Option(7, "counters at the start")}

    def _configure(self, values):
        return {"pile": check_int("pile", values["pile"], 1)}

    def _info(self):
        return GameInfo(self.name, 3, 2, False, True, True, False, self.config["pile"])

    @property
    def observation_shape(self):
        return (1,)

    def new_initial_state(self, seed=None, **start):
        self._check_start(start)
        return TakeThreeState(self, self.config["pile"], 0)

    def state_from_text(self, text):
        pile, mover = text.split()
        return TakeThreeState(self, int(pile), int(mover))


class TakeThreeState(State):
    def __init__(self, game, pile, mover):
        self.game, self.pile, self.mover = game, pile, mover

    def current_players(self):
        return (self.mover,) if self.pile else ()

    def legal_actions(self, player):
        return list(range(min(2, self.pile))) if self.pile and player == self.mover else []

    def apply(self, action):
        player, action = self._single_action(action)
        self.pile -= action + 1
        self.last = player
        self.mover = (player + 1) % 3

    def clone(self):
        other = TakeThreeState(self.game, self.pile, self.mover)
        other.last = getattr(self, "last", None)
        return other

    def is_terminal(self):
        return self.pile == 0

    def returns(self):
        if self.pile:
            return np.zeros(3)
        loser = (self.mover - 1) % 3
        values = np.full(3, 0.5)
        values[loser] = -1.0
        return values

    def key(self):
        return (self.pile, self.mover)

    def info_state(self, player):
        return PerfectInfoState(player, self.clone())

    def observation_tensor(self, player):
        return np.array([self.pile], dtype=np.float32)

    def action_to_text(self, action):
        return str(action + 1)

    def text_to_action(self, text):
        return int(text) - 1

    def to_text(self):
        return f"{self.pile} {self.mover}"
