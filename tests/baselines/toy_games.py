"""Toy games for testing the searchers, small enough to solve by hand or brute force.

- ``TakeThreeGame``: three players take 1 or 2 counters in turn; whoever takes the last
  loses (max^n and paranoid search disagree on it).
- ``RandomTreeGame``: a uniform two-player tree with an arbitrary evaluation at every
  node (alpha-beta's options must keep the exact value).
- ``MultiplierGame``: a turn-based step, then a simultaneous one (equilibrium solver).
- ``WeightedRPS``: one round of rock-paper-scissors where rock beating scissors pays 2
  (simultaneous-move MCTS).
"""

from __future__ import annotations

import numpy as np

from parlour.games.base import Game, GameInfo, Option, PerfectInfoState, State, check_int


class ToyGame(Game):
    """What the toy games share: no options, a one-number observation, no text form."""

    options = {}

    def _configure(self, values):
        return {}

    returns_bounds = (-float("inf"), float("inf"))

    @property
    def observation_shape(self):
        return (1,)

    def state_from_text(self, text):
        raise ValueError(f"{self.name} has no text form: {text!r}")


class ToyState(State):
    """What the toy states share: nothing hidden, a blank observation, actions as numbers."""

    def info_state(self, player):
        return PerfectInfoState(player, self.clone())

    def observation_tensor(self, player):
        return np.zeros(1, dtype=np.float32)

    def action_to_text(self, action):
        return str(action)

    def text_to_action(self, text):
        return int(text)


# --- take three: three players, one pile ------------------------------------------------------


class TakeThreeGame(ToyGame):
    """Three players take 1 or 2 counters in turn from a pile; whoever takes the last
    counter loses (-1) and the other two get +0.5 each (zero-sum)."""

    name = "take-three"
    options = {"pile": Option(7, "counters at the start")}

    def _configure(self, values):
        return {"pile": check_int("pile", values["pile"], 1)}

    def _info(self):
        return GameInfo(self.name, 3, 2, False, True, True, False, self.config["pile"])

    def new_initial_state(self, seed=None, **start):
        self._check_start(start)
        return TakeThreeState(self, self.config["pile"], 0)

    def state_from_text(self, text):
        pile, mover = text.split()
        return TakeThreeState(self, int(pile), int(mover))


class TakeThreeState(ToyState):
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

    def observation_tensor(self, player):
        return np.array([self.pile], dtype=np.float32)

    def action_to_text(self, action):
        return str(action + 1)

    def text_to_action(self, text):
        return int(text) - 1

    def to_text(self):
        return f"{self.pile} {self.mover}"


# --- a random tree: an arbitrary evaluation at every node -------------------------------------


def _noise(path: tuple[int, ...], salt: int) -> float:
    """A deterministic value in (-0.9, 0.9) for a path (no Python hash: it is salted)."""
    x = salt
    for a in path:
        x = (x * 1_000_003 + a + 1) % 2_147_483_647
    return (x * 2_654_435_761 % 10_007) / 10_007 * 1.8 - 0.9


class RandomTreeGame(ToyGame):
    """Two players alternate on a uniform tree (4 moves, 7 plies); a few positions end
    early; every position has its own arbitrary evaluation, so values rarely tie and a
    search that mishandles a bound gets a wrong root value.  The seed salts the tree."""

    name = "random-tree-test"

    def _info(self):
        return GameInfo(self.name, 2, 4, False, True, True, False, 7)

    def new_initial_state(self, seed=None, **start):
        return RandomTreeState(self, (), int(seed or 0))


class RandomTreeState(ToyState):
    def __init__(self, game, path, salt):
        self.game, self.path, self.salt = game, path, salt

    def current_players(self):
        return () if self.is_terminal() else (len(self.path) % 2,)

    def legal_actions(self, player):
        return [0, 1, 2, 3] if not self.is_terminal() and player == len(self.path) % 2 else []

    def apply(self, action):
        _, action = self._single_action(action)
        self.path = self.path + (action,)

    def clone(self):
        return RandomTreeState(self.game, self.path, self.salt)

    def is_terminal(self):
        return len(self.path) >= 7 or (len(self.path) >= 3 and abs(_noise(self.path, self.salt + 1)) > 0.8)

    def returns(self):
        if not self.is_terminal():
            return np.zeros(2)
        win = 1.0 if _noise(self.path, self.salt + 2) > 0 else -1.0
        return np.array([win, -win])

    def evaluation(self):
        value = _noise(self.path, self.salt)
        return np.array([value, -value])

    def key(self):
        return self.path

    def to_text(self):
        return " ".join(map(str, self.path))


# --- a turn-based step, then a simultaneous one -------------------------------------------------


class MultiplierGame(ToyGame):
    """Seat 0 picks a multiplier 1 or 2, then both play [[3, -1], [-2, 1]] times it.

    The matrix game is worth 1/7 (rows and columns mixed 3:4), so the game is worth 2/7.
    """

    name = "multiplier"
    simultaneous = True

    def _info(self):
        return GameInfo(self.name, 2, 2, True, True, True, False, 2)

    def new_initial_state(self, seed=None, **start):
        return MultiplierState(self, None, None)


class MultiplierState(ToyState):
    PAYOFF = ((3.0, -1.0), (-2.0, 1.0))

    def __init__(self, game, multiplier, bids):
        self.game, self.multiplier, self.bids = game, multiplier, bids

    def current_players(self):
        if self.multiplier is None:
            return (0,)
        return () if self.bids else (0, 1)

    def legal_actions(self, player):
        return [0, 1] if player in self.current_players() else []

    def apply(self, action):
        if self.multiplier is None:
            self.multiplier = self._single_action(action)[1] + 1
        else:
            self.bids = (action[0], action[1])

    def clone(self):
        return MultiplierState(self.game, self.multiplier, self.bids)

    def is_terminal(self):
        return self.bids is not None

    def returns(self):
        if self.bids is None:
            return np.zeros(2)
        value = self.multiplier * self.PAYOFF[self.bids[0]][self.bids[1]]
        return np.array([value, -value])

    def key(self):
        return (self.multiplier, self.bids)

    def to_text(self):
        return f"{self.multiplier} {self.bids}"


# --- weighted rock-paper-scissors: one simultaneous round ----------------------------------------

RPS_PAYOFF = [[0, -1, 2], [1, 0, -1], [-2, 1, 0]]
"""The row seat's payoff; the equilibrium is (1/4, 1/2, 1/4) for both seats."""


class WeightedRPS(ToyGame):
    """One simultaneous round of rock-paper-scissors where rock beating scissors pays 2."""

    name = "weighted-rps"
    simultaneous = True

    def _info(self):
        return GameInfo(self.name, 2, 3, True, True, True, False, 1)

    def new_initial_state(self, seed=None, **start):
        return RPSState(self)


class RPSState(ToyState):
    def __init__(self, game, moves=None):
        self.game, self.moves = game, moves

    def current_players(self):
        return () if self.moves else (0, 1)

    def legal_actions(self, player):
        return [] if self.moves else [0, 1, 2]

    def apply(self, action):
        self.moves = (action[0], action[1])

    def clone(self):
        return RPSState(self.game, self.moves)

    def is_terminal(self):
        return self.moves is not None

    def returns(self):
        if not self.moves:
            return np.zeros(2)
        value = RPS_PAYOFF[self.moves[0]][self.moves[1]]
        return np.array([value, -value], dtype=float)

    def key(self):
        return self.moves

    def info_state(self, player):
        raise NotImplementedError("simultaneous-move search works on the full state")

    def action_to_text(self, action):
        return "RPS"[action]

    def text_to_action(self, text):
        return "RPS".index(text)

    def to_text(self):
        return str(self.moves)
