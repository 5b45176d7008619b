"""Double Card's one-ply searches over many games at once (a batched form).

``alphabeta:depth=1,evaluation=h1`` (and the report's other weights, ``h1-w1`` and
``h1-w3``) looks at every legal move once: the position after it is worth the mover's
return if the game is over, else the report's h1 for the mover, and the first best
move in the order of the legal actions is played (at depth 1 no ordering rule of the
search reorders them: nothing is cut off below the root).  For a learner on the batched
engine this is array work over the batch: every legal move of every game is applied on
a scratch copy of the engine (one ``copy_rows``, one ``step``), and h1 is counted on all
the resulting boards at once (:func:`h1_counts`, the single-game scan of
``parlour.baselines.players.double_card.h1_features`` as gathers: the same runs, the
same first-found rule, the same float arithmetic).  Tests compare the moves with the
single-game player's.

``ntuple:PATH,depth=1,time_limit=none`` with a ``reach`` model is the same one-ply
search with the n-tuple evaluation (``parlour.baselines.learned.ntuple_batched``; its
logits from the engine's boards: ``double_card_ntuple.ReachChildLogits``), the search's
hints deciding between moves of equal value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.baselines.batched import BatchedPolicy, register_batched
from parlour.baselines.learned.ntuple_batched import one_ply_ntuple
from parlour.baselines.one_ply import ChildExpander
from parlour.baselines.players.double_card import H1_SCAN, REPORT_WEIGHTS, SQUASH
from parlour.baselines.players.double_card_ntuple import ReachChildLogits
from parlour.baselines.policy import Policy
from parlour.games.double_card import CELLS, COLS, ROWS

WEIGHTS = {"h1": REPORT_WEIGHTS, "h1-w1": (5.0, 0.2, -5.0, -0.2), "h1-w3": (5.0, 0.2, -15.0, -0.2)}
"""The h1 evaluations this form plays, by name: the weights of ``_per_seat``."""

OFF = CELLS
"""The index of the off-board cell that pads the scan's rays."""
_RAYS = np.array([[[OFF if c < 0 else c for c in ray] for _, ray in entries] for entries in H1_SCAN], dtype=np.int16)  # (96, 4, 7)


def h1_counts(board: np.ndarray) -> np.ndarray:
    """``(N, 4)``: h1's (colour threes, colour twos, dot threes, dot twos) of the boards
    ``board`` (``(N, 12)`` row words of ``DoubleCardBatch``).

    As the single-game scan: from every occupied cell at the surface (nothing above) or
    beside an empty cell, in each direction and for each feature, the run of equal
    values within two cells each way (vertically, below only) counts if it is two or
    three long and an on-board cell just outside it is empty, once per (direction,
    feature, first cell): the first start in cell order that finds it decides its
    length."""
    n = len(board)
    lanes = np.unpackbits(board.view(np.uint8).reshape(n, ROWS, 8), axis=2, bitorder="little").reshape(n, ROWS, 8, COLS)
    red, white, filled, ring = (lanes[:, :, lane, :].reshape(n, CELLS) for lane in range(4))
    pad = np.full((n, 1), -1, dtype=np.int8)
    features = (np.hstack([(red + 2 * white).astype(np.int8), pad]), np.hstack([(filled + 2 * ring).astype(np.int8), pad]))
    occupied = (red | white).astype(bool)
    empty = np.hstack([~occupied, np.zeros((n, 1), dtype=bool)])  # the off-board cell is not empty
    above = np.zeros_like(occupied)
    above[:, : CELLS - COLS] = occupied[:, COLS:]
    column = np.arange(CELLS) % COLS
    left = np.zeros_like(occupied)
    left[:, 1:] = ~occupied[:, :-1]
    right = np.zeros_like(occupied)
    right[:, :-1] = ~occupied[:, 1:]
    lateral = (left & (column > 0)) | (right & (column < COLS - 1))
    games, starts = np.nonzero(occupied & (~above | lateral))  # in (game, cell) order: the scan's
    rays = _RAYS[starts]  # (K, 4, 7)
    cells = games.astype(np.int32)[:, None, None] * (OFF + 1) + rays  # into the flattened (n, 97) arrays
    empty = empty.reshape(-1)
    valid_parts: list[np.ndarray] = []
    first_parts: list[np.ndarray] = []
    length_parts: list[np.ndarray] = []
    for feature in features:  # colours, then dots
        values = feature.reshape(-1)[cells]  # (K, 4, 7)
        same = values == values[:, :, 3:4]
        two_back = same[:, :, 2] & same[:, :, 1]
        back_one, fore_one = same[:, :, 2], same[:, :, 4]
        fore_one[:, 3] = False  # vertically only the cells below
        two_fore = fore_one & same[:, :, 5]
        run = 1 + back_one.astype(np.int8) + two_back + fore_one + two_fore
        before = np.where(two_back, cells[:, :, 0], np.where(back_one, cells[:, :, 1], cells[:, :, 2]))
        after = np.where(two_fore, cells[:, :, 6], np.where(fore_one, cells[:, :, 5], cells[:, :, 4]))
        valid_parts.append(((run == 2) | (run == 3)) & (empty[before] | empty[after]))
        first_parts.append(np.where(two_back, rays[:, :, 1], np.where(back_one, rays[:, :, 2], rays[:, :, 3])))
        length_parts.append(run)
    valid, first, length = (np.stack(parts, axis=2) for parts in (valid_parts, first_parts, length_parts))  # (K, 4 directions, 2 kinds)
    direction = np.arange(4)[None, :, None]
    kind = np.arange(2)[None, None, :]
    key = ((games[:, None, None] * 4 + direction) * 2 + kind) * (OFF + 1) + first.astype(np.int64)
    pick = valid.reshape(-1)
    keys = key.reshape(-1)[pick]
    _, once = np.unique(keys, return_index=True)  # the first start that finds each run
    category = (2 * np.broadcast_to(kind, valid.shape).reshape(-1)[pick] + (length.reshape(-1)[pick] == 2))[once]
    owner = np.broadcast_to(games[:, None, None], valid.shape).reshape(-1)[pick][once]
    return np.bincount(owner * 4 + category, minlength=n * 4).reshape(n, 4)


def h1_values(counts: np.ndarray, colours: np.ndarray, weights: tuple[float, ...]) -> np.ndarray:
    """h1 for one seat of each board: ``colours[i]`` whether that seat plays colours
    (``_per_seat``'s arithmetic, in its order)."""
    w1, w2, w3, w4 = weights
    c3, c2, d3, d2 = (counts[:, i].astype(np.float64) for i in range(4))
    h = np.where(colours, w1 * c3 + w2 * c2 + w3 * d3 + w4 * d2, w1 * d3 + w2 * d2 + w3 * c3 + w4 * c2)
    return h / (np.abs(h) + SQUASH)


class OnePlyH1(BatchedPolicy):
    """A one-ply search with an h1 evaluation over many games (see the module docstring)."""

    def __init__(self, policy: Policy) -> None:
        self.spec = repr(policy)
        self.weights = WEIGHTS[policy.config["evaluation"]]
        self.expander = ChildExpander()

    def actions(self, engine: Any, rows: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        children = self.expander.children(engine, rows, seats)
        n = len(children.moves)
        colours = children.movers == engine.game.colors_seat
        scratch: Any = children.scratch  # a DoubleCardBatch: the engine asked is one
        values = children.values(h1_values(h1_counts(scratch.board[:n]), colours, self.weights))
        return children.moves[children.first_best(values)]


@register_batched("double_card", "alphabeta")
def _one_ply(policy: Policy, engine: Any) -> BatchedPolicy | None:
    config = policy.config
    if (config["depth"] == 1 and config["evaluation"] in WEIGHTS and config["time_limit"] is None
            and config["ordering"] in ("history", "none")):
        return OnePlyH1(policy)
    return None


@register_batched("double_card", "ntuple")
def _ntuple(policy: Policy, engine: Any) -> BatchedPolicy | None:
    return one_ply_ntuple(policy, engine, {"reach": ReachChildLogits})
