"""Double Card players: Shao and Ding's heuristics h1 and h2, their tournament player,
and ours (all documented in docs/double_card.md).

Jun Shao and Zhiyi Ding ("Heuristic Minimax search with Alpha-Beta pruning for the
Double Card game", a COMP 6721 project report, Concordia University, winter 2019) score a
position for the searching player Max by counting *alive* two- and three-in-a-rows (runs
of equal colour, or of equal dot, that an empty cell next to them could still extend to
four):

    h = w1 * threes(own) + w2 * twos(own) + w3 * threes(opp) + w4 * twos(opp)

with ``(w1, w2, w3, w4) = (5, 0.2, -10, -0.2)``; "own" is the searcher's objective
(colors: red and white runs; dots: filled and empty runs).

* ``h1`` finds the runs by scanning from the board's *surface* (the top cell of each
  column) and the *lateral* cells (filled cells next to an empty cell in their row):
  two cells either side horizontally and diagonally, the cell and two below vertically.
  Each run is counted once, whichever start cell finds it.
* ``h2`` counts the same features on every line of the board, kept per line and updated
  incrementally by a :class:`LineCounts` cache on the evaluation's side: it remembers
  the bitboards and per-line counts of the position it evaluated last, finds the cells
  that differ by XOR of the bitboards, and recounts only the lines through them (the
  report's e(s) = e'(s) + e(parent), without its error-prone tree of visited states).
* ``h1-w1`` and ``h1-w3``: h1 with the other weights of the report's Table 1,
  (5, 0.2, -5, -0.2) and (5, 0.2, -15, -0.2).
* ``windows`` (ours, the best we found): every 4-cell window of the board that holds
  only one colour (or only one dot kind) plus empty cells, weighted by how full it is,
  with a bonus when its missing cells can be filled right away (they are at the surface).

An evaluation returns one value per seat: each seat's own ``h`` (from its objective),
squashed by ``h / (|h| + 50)`` into (-1, 1) so a proven win outranks any heuristic.
``alphabeta`` reads only the searcher's value, so it is exactly the report's alpha-beta;
``minimax`` backs up max^n vectors, where each seat maximises its own ``h`` (the
heuristic is not zero-sum because w3 != -w1).

Policies: ``original-tournament`` (alpha-beta, h1, the report's depth schedule, 6 s per
move, no transposition table, as its authors played their tournament) and
``double-card-best`` (alpha-beta with transposition table and iterative deepening under a
time budget, with the ``windows`` evaluation; moves ordered by :func:`placement_hints`
-- the rest by the change in the window weights they cause -- then killer moves and
history, with three exact shortcuts: a win on the spot is searched alone (and the last
one found at each depth is tried before the moves are generated), a move that completes
only the opponent's line is skipped, and so, with at least two plies left, is a move
that leaves the opponent a win on the spot (an open three of its kind not covered);
principal variation search (Marsland and Campbell 1982); leaf evaluations cached by
board, the report's table of visited states).  The ``windows`` evaluation and the hints
share base-5 window codes so that all 222 windows of a position are one numpy gather.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from parlour.baselines.engines.alphabeta import WINS, AlphaBetaSearch, optional_seconds
from parlour.baselines.engines.heuristics import register_evaluation
from parlour.baselines.policy import Param, register
from parlour.baselines.references import References, register_references
from parlour.games.base import Game, State
from parlour.games.bitmask import iter_bits
from parlour.games.double_card import (
    CARDS,
    CELLS,
    COLS,
    COLUMN_A,
    FULL,
    LAST_COLUMN,
    LINES,
    LINES_OF,
    PICK_BASE,
    PLACEMENTS,
    ROWS,
    TOP_ROW,
    WINDOWS,
    DoubleCardState,
)

REPORT_WEIGHTS = (5.0, 0.2, -10.0, -0.2)
SQUASH = 50.0

# feature of a segment code: colour (1 red, 2 white) and dot (1 filled, 2 empty); 0 = empty
_COLOUR = (0, 1, 1, 2, 2)
_DOT = (0, 1, 2, 1, 2)


def _squash(h: float) -> float:
    return h / (abs(h) + SQUASH)


def _per_seat(state: Any, colour3: float, colour2: float, dot3: float, dot2: float, weights=REPORT_WEIGHTS) -> np.ndarray:
    w1, w2, w3, w4 = weights
    h_colours = w1 * colour3 + w2 * colour2 + w3 * dot3 + w4 * dot2
    h_dots = w1 * dot3 + w2 * dot2 + w3 * colour3 + w4 * colour2
    values = np.empty(2)
    colors_seat = state.game.colors_seat
    values[colors_seat] = _squash(h_colours)
    values[1 - colors_seat] = _squash(h_dots)
    return values


# --- h2: alive runs on every line, per line, incrementally ----------------------------------


def line_features(seg: list[int], line: tuple[int, ...]) -> tuple[int, int, int, int]:
    """(colour threes, colour twos, dot threes, dot twos) of the alive runs on one line."""
    c3 = c2 = d3 = d2 = 0
    n = len(line)
    for table, is_colour in ((_COLOUR, True), (_DOT, False)):
        i = 0
        while i < n:
            value = table[seg[line[i]]]
            if not value:
                i += 1
                continue
            j = i + 1
            while j < n and table[seg[line[j]]] == value:
                j += 1
            length = j - i
            if length == 2 or length == 3:
                if (i > 0 and not seg[line[i - 1]]) or (j < n and not seg[line[j]]):
                    if is_colour:
                        if length == 3:
                            c3 += 1
                        else:
                            c2 += 1
                    elif length == 3:
                        d3 += 1
                    else:
                        d2 += 1
            i = j
    return c3, c2, d3, d2


_LINE_BITS_OF = [sum(1 << index for index in LINES_OF[cell]) for cell in range(CELLS)]
"""Per cell: the lines through it, as a bitmask over the indices of ``LINES``."""
_NO_RUNS = (0, 0, 0, 0)


class LineCounts:
    """h2's cache: the board (``occ``, ``red``, ``filled``) evaluated last, the alive-run
    counts of each of its lines and their totals.

    :meth:`features` recounts only the lines through the cells where the position it is
    given differs from that board (XOR of the bitboards), then remembers the new board.
    The counts depend on the board alone, so any position may follow any other (another
    game, another policy, another thread): a distant one costs more recounting, never a
    wrong count.  The memory is one tuple, replaced whole, so a reader never sees half an
    update.  It starts from the empty board, whose lines hold no runs.
    """

    __slots__ = ("memory",)

    def __init__(self) -> None:
        self.memory: tuple[int, int, int, tuple, tuple[int, int, int, int]] = (
            0, 0, 0, (_NO_RUNS,) * len(LINES), _NO_RUNS)

    def features(self, state: Any) -> tuple[int, int, int, int]:
        """(colour threes, colour twos, dot threes, dot twos) of the alive runs on the board."""
        occ, red, filled = state.occ, state.red, state.filled
        c_occ, c_red, c_filled, per_line, totals = self.memory
        changed = (occ ^ c_occ) | (red ^ c_red) | (filled ^ c_filled)
        if not changed:
            return totals
        lines = 0
        for cell in iter_bits(changed):
            lines |= _LINE_BITS_OF[cell]
        seg = state.seg
        lines_now = list(per_line)
        c3, c2, d3, d2 = totals
        for index in iter_bits(lines):
            new = line_features(seg, LINES[index])
            old = lines_now[index]
            if new != old:
                lines_now[index] = new
                c3 += new[0] - old[0]
                c2 += new[1] - old[1]
                d3 += new[2] - old[2]
                d2 += new[3] - old[3]
        totals = (c3, c2, d3, d2)
        self.memory = (occ, red, filled, tuple(lines_now), totals)
        return totals


_LINE_COUNTS = LineCounts()
"""The cache of the registered ``h2`` (searchers call ``evaluation(state)``)."""


def h2_features(state: Any, cache: LineCounts | None = None) -> tuple[int, int, int, int]:
    """Whole-board alive runs, counted incrementally from ``cache`` (default: the one
    the registered ``h2`` uses)."""
    return (cache or _LINE_COUNTS).features(state)


def h2_features_full(state: Any) -> tuple[int, int, int, int]:
    """The same features counted from scratch (tests check the incremental version)."""
    per_line = [line_features(state.seg, line) for line in LINES]
    c3, c2, d3, d2 = (sum(f[k] for f in per_line) for k in range(4))
    return c3, c2, d3, d2


@register_evaluation("double_card", "h1")
def h1(state: DoubleCardState) -> np.ndarray:
    """The report's h1: alive runs found from the surface and lateral cells."""
    return _per_seat(state, *h1_features(state))


@register_evaluation("double_card", "h1-w1")
def h1_weights1(state: DoubleCardState) -> np.ndarray:
    """h1 with the report's Table 1 weights W1 = (5, 0.2, -5, -0.2)."""
    return _per_seat(state, *h1_features(state), weights=(5.0, 0.2, -5.0, -0.2))


@register_evaluation("double_card", "h1-w3")
def h1_weights3(state: DoubleCardState) -> np.ndarray:
    """h1 with the report's Table 1 weights W3 = (5, 0.2, -15, -0.2)."""
    return _per_seat(state, *h1_features(state), weights=(5.0, 0.2, -15.0, -0.2))


@register_evaluation("double_card", "h2")
def h2(state: DoubleCardState) -> np.ndarray:
    """The report's h2: the same features on every line, recounted only on the lines
    through the cells that changed since the last evaluation (:class:`LineCounts`)."""
    return _per_seat(state, *h2_features(state))


# --- h1: scan from the surface ---------------------------------------------------------------

_DIRECTIONS = ((0, 1), (1, 1), (1, -1))  # horizontal and the two diagonals: +-2 cells


def _cell(row: int, col: int) -> int:
    return row * COLS + col if 0 <= row < ROWS and 0 <= col < COLS else -1


def _build_scan() -> list[list[tuple[int, tuple[int, ...]]]]:
    """For each start cell: (direction id, the 5 cells -2..+2 around it, -1 off board);
    vertical: the cell, two below, and the cell above (to tell if the run is alive)."""
    scan = []
    for cell in range(ROWS * COLS):
        r, c = divmod(cell, COLS)
        entries = []
        for d, (dr, dc) in enumerate(_DIRECTIONS):
            entries.append((d, tuple(_cell(r + k * dr, c + k * dc) for k in range(-3, 4))))
        entries.append((3, (_cell(r - 3, c), _cell(r - 2, c), _cell(r - 1, c), cell, _cell(r + 1, c), -1, -1)))
        scan.append(entries)
    return scan


H1_SCAN = _build_scan()
"""Per cell: h1's four rays (direction, the seven cells around it, -1 off the board)."""


def h1_features(state: Any) -> tuple[int, int, int, int]:
    """Count alive 2- and 3-runs touching a surface or lateral cell (the report's h1).

    From each start cell the scan looks two cells each way (vertically: two below); a run
    is the maximal group of equal feature values around the start cell inside that span;
    it is alive if a cell just outside it (the 7-cell ray) is on the board and empty.
    A run is counted once (by its direction, kind and first cell)."""
    seg = state.seg
    occ = state.occ
    empty = ~occ & FULL
    top = occ & ~(occ >> COLS)  # the top segment of each column
    lateral = occ & (empty << 1 & ~COLUMN_A | empty >> 1 & ~LAST_COLUMN)  # an empty cell beside it
    seen = set()
    counts = [0, 0, 0, 0]  # colour3, colour2, dot3, dot2
    for start in iter_bits(top | lateral):
        for d, ray in H1_SCAN[start]:
            for kind, table in ((0, _COLOUR), (2, _DOT)):
                value = table[seg[start]]
                lo = 3
                while lo > 1 and ray[lo - 1] >= 0 and table[seg[ray[lo - 1]]] == value:
                    lo -= 1
                hi = 3
                while d != 3 and hi < 5 and ray[hi + 1] >= 0 and table[seg[ray[hi + 1]]] == value:
                    hi += 1
                length = hi - lo + 1
                if length not in (2, 3):
                    continue
                before, after = ray[lo - 1], ray[hi + 1]
                if not ((before >= 0 and not seg[before]) or (after >= 0 and not seg[after])):
                    continue
                key = (d, kind, ray[lo])
                if key in seen:
                    continue
                seen.add(key)
                counts[kind + (length == 2)] += 1
    return counts[0], counts[1], counts[2], counts[3]


# --- window codes (shared by the windows evaluation and the move hints) ----------------------
#
# A 4-cell window's content is a base-5 code of its four segments (0 = empty), so what a
# window is worth is a table lookup, and all 222 windows of a position are one numpy
# gather.  Weights are kept in twentieths (integers) so sums do not depend on their order.

_CODES = 5**4
FEATURE_WINDOW_CELLS = [tuple(c for c in range(ROWS * COLS) if w >> c & 1) for w in sorted({w for ws in WINDOWS for w in ws})]
"""The cells of every distinct 4-cell window, in the order of the window features."""
_NUM_WINDOWS = len(FEATURE_WINDOW_CELLS)
_NO_CELL = ROWS * COLS  # an always-empty, never-playable cell for padding
_WINDOW_INDEX = np.array(FEATURE_WINDOW_CELLS + [(_NO_CELL,) * 4])  # the last row: padding
_WINDOW_INDEX5 = np.concatenate([_WINDOW_INDEX, np.full((_NUM_WINDOWS + 1, 1), _NO_CELL)], axis=1)
_POWERS = np.array([125, 25, 5, 1])
_ROWS_RANGE = np.arange(_NUM_WINDOWS)


def _code_tables(weights: tuple[float, ...], line: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per code: the colour weight, the dot weight (``weights[n]`` for n held cells of one
    colour / one dot kind, ``line`` when all four are), the missing cell's position of a
    three (4: not a three)."""
    colour_value, dot_value = np.zeros(_CODES), np.zeros(_CODES)
    missing = np.full(_CODES, 4, dtype=np.intp)
    for code in range(_CODES):
        segs = [code // 5 ** (3 - i) % 5 for i in range(4)]
        held = [x for x in segs if x]
        if not held:
            continue
        value = line if len(held) == 4 else weights[len(held)]
        colour_value[code] = value if len({_COLOUR[x] for x in held}) == 1 else 0.0
        dot_value[code] = value if len({_DOT[x] for x in held}) == 1 else 0.0
        if len(held) == 3:
            missing[code] = segs.index(0)
    return colour_value, dot_value, missing


# --- ours: windows ---------------------------------------------------------------------------

_WINDOW_WEIGHT = (0, 1, 10, 60)  # twentieths: ones 0.05, twos 0.5, threes 3
_PLAYABLE_BONUS = 60  # 3.0: a 3-window whose empty cell can be filled now: a threat
_TO_MOVE_BONUS = 200  # 10.0: ... and the side to move owns one: it can likely complete it
_W_COLOUR, _W_DOT, _MISSING = _code_tables(_WINDOW_WEIGHT, 0.0)
_W_COLOUR, _W_DOT = _W_COLOUR.astype(np.int64), _W_DOT.astype(np.int64)
_W_COLOUR3 = (_MISSING < 4) & (_W_COLOUR > 0)
_W_DOT3 = (_MISSING < 4) & (_W_DOT > 0)


def window_codes(state: Any) -> np.ndarray:
    """The code of every window (and 0 for the padding window at the end)."""
    seg = np.zeros(ROWS * COLS + 1, dtype=np.intp)
    seg[:-1] = state.seg
    return seg[_WINDOW_INDEX] @ _POWERS


def _missing_at_surface(state: Any, codes: np.ndarray) -> np.ndarray:
    """Per window (of ``codes``): whether it is a three whose empty cell is at the
    surface, so that a move can fill it now."""
    surface = np.zeros(ROWS * COLS + 1, dtype=bool)
    cells = state.surface
    while cells:  # by hand, not iter_bits: the generator and a list index cost 10% of the windows evaluation
        low = cells & -cells
        surface[low.bit_length() - 1] = True
        cells ^= low
    return surface[_WINDOW_INDEX5[_ROWS_RANGE, _MISSING[codes]]]


@register_evaluation("double_card", "windows")
def windows(state: DoubleCardState) -> np.ndarray:
    """Windows of 4 that one colour (or one dot kind) can still fill, weighted by how many
    of their cells it holds; threats (3 held, the fourth cell at the surface) weigh more,
    and a threat of the side to move counts double (it is its turn)."""
    codes = window_codes(state)[:-1]
    playable = _missing_at_surface(state, codes)
    colour_threats = int(np.count_nonzero(playable & _W_COLOUR3[codes]))
    dot_threats = int(np.count_nonzero(playable & _W_DOT3[codes]))
    colours = int(_W_COLOUR[codes].sum()) + _PLAYABLE_BONUS * colour_threats
    dots = int(_W_DOT[codes].sum()) + _PLAYABLE_BONUS * dot_threats
    colors_seat = state.game.colors_seat
    if state.to_move == colors_seat:
        colours += _TO_MOVE_BONUS if colour_threats else 0
    else:
        dots += _TO_MOVE_BONUS if dot_threats else 0
    values = np.empty(2)
    h = (colours - dots) / 20  # for colors
    values[colors_seat] = _squash(h)
    values[1 - colors_seat] = _squash(-h)
    return values


# --- features of a learned evaluation (``parlour.baselines.learned.ntuple``) ---------------

WINDOW_FEATURES = 4 * _CODES
"""Feature indices of :func:`window_features`: a window's code, whether it is a three
whose missing cell is at the surface, and whether the colours seat is to move."""


def window_features(state: Any) -> np.ndarray:
    """One feature index per window (222): its code (the four segments it holds, in
    ``[0, 625)``), plus 625 if it is a three whose missing cell can be filled now, plus
    1250 if the colours seat is to move.  An n-tuple network over these is the
    ``windows`` evaluation with every weight learned: its ones, twos and threes, its
    threat and to-move bonuses, and what ``windows`` leaves out (windows mixing colours
    and dots, a three with a filled-in cell of the other kind)."""
    codes = window_codes(state)[:-1]
    playable = _missing_at_surface(state, codes)
    side = 2 * _CODES if state.to_move == state.game.colors_seat else 0
    return codes + _CODES * playable + side


# --- move hints for ordering (only the windows through the two cells a move fills) ----------
#
# A placement adds a fixed offset to the code of every window through its two cells, so the
# hints of all the legal placements of a node are a few numpy gathers (about 12x faster
# than looping over the windows in Python).


def _build_move_tables() -> tuple[np.ndarray, np.ndarray]:
    """Per placement action (0..767): the windows through either of its cells (padded with
    the empty window) and the code offset the placement adds to each."""
    windows_of: list[list[int]] = [[] for _ in range(ROWS * COLS)]
    for index, cells in enumerate(FEATURE_WINDOW_CELLS):
        for cell in cells:
            windows_of[cell].append(index)
    rows: list[list[tuple[int, int]]] = []  # per action: (window index, code offset) pairs
    for action in range(8 * ROWS * COLS):
        p, anchor = action // (ROWS * COLS) + 1, action % (ROWS * COLS)
        horizontal, a_seg, o_seg = PLACEMENTS[p]
        other = anchor + 1 if horizontal else anchor + COLS
        if other >= ROWS * COLS or (horizontal and anchor % COLS == COLS - 1):
            rows.append([])
            continue
        row = []
        for index in sorted(set(windows_of[anchor]) | set(windows_of[other])):
            cells = FEATURE_WINDOW_CELLS[index]
            offset = sum(seg * 5 ** (3 - cells.index(cell)) for cell, seg in ((anchor, a_seg), (other, o_seg)) if cell in cells)
            row.append((index, offset))
        rows.append(row)
    width = max(len(r) for r in rows)
    pad = _NUM_WINDOWS
    windows = np.full((len(rows), width), pad, dtype=np.intp)
    offsets = np.zeros((len(rows), width), dtype=np.intp)
    for action, row in enumerate(rows):
        for k, (index, offset) in enumerate(row):
            windows[action, k], offsets[action, k] = index, offset
    return windows, offsets


_MOVE_WINDOWS, _MOVE_OFFSETS = _build_move_tables()
_MOVE_CELLS = np.array([(a % (ROWS * COLS), a % (ROWS * COLS) + (1 if PLACEMENTS[a // (ROWS * COLS) + 1][0] else COLS))
                        for a in range(8 * ROWS * COLS)])
"""Per placement action: its two cells (the anchor and the other)."""

_HINT_WEIGHT = (0.0, 0.05, 0.5, 3.0)
_LINE = 1e6
_WIN_HINT = 1000.0
_COLOUR_VALUE, _DOT_VALUE, _ = _code_tables(_HINT_WEIGHT, _LINE)


def placement_hints(state: Any, actions: list[int], decisive: float = _WIN_HINT, forced: bool = False) -> list[float] | None:
    """A score per placement for the player to move, from the windows through the cells
    it fills: +``decisive`` (1000) if it wins on the spot, -``decisive`` if it completes
    only the opponent's line (so loses on the spot), else the change of the window
    weights, own minus the opponent's (so blocks and new threats come first).  ``None``
    when the actions take cards (recycling's first half).

    ``forced``: also -``decisive`` for a move that leaves the opponent a win on the spot:
    the opponent holds three of a window of its kind whose fourth cell is at the surface
    below the top row (any segment can go there, as the bottom of a vertical card), and
    the move neither covers that cell nor ends the game (by a line, the move limit, or
    the 24th card, after which the opponent must first take a card).  Such a move loses
    in two plies: only exact for a search that looks at least two plies ahead."""
    if not actions or actions[0] >= PICK_BASE:
        return None
    codes = window_codes(state)
    moves = np.asarray(actions)
    before = codes[_MOVE_WINDOWS[moves]]
    after = before + _MOVE_OFFSETS[moves]
    colour = (_COLOUR_VALUE[after] - _COLOUR_VALUE[before]).sum(axis=1)
    dot = (_DOT_VALUE[after] - _DOT_VALUE[before]).sum(axis=1)
    colours_move = state.to_move == state.game.colors_seat
    hints = colour - dot if colours_move else dot - colour
    colour_line = colour > _LINE / 2
    dot_line = dot > _LINE / 2
    lines = colour_line | dot_line
    if forced and state.taken is None and state.cards + 1 < CARDS and state.moves + 1 < state.game.max_moves:
        opponent_three = (_W_DOT3 if colours_move else _W_COLOUR3)[codes[:-1]]
        if opponent_three.any():
            threes = np.flatnonzero(opponent_three)
            playable = state.surface & ~TOP_ROW  # any segment can go there: the bottom of a vertical card
            open_cells = {c for c in _WINDOW_INDEX[threes, _MISSING[codes[threes]]].tolist() if playable >> c & 1}
            if open_cells:
                cells = _MOVE_CELLS[moves]
                gives = np.zeros(len(actions), dtype=bool)
                for cell in open_cells:
                    gives |= (cells != cell).all(axis=1)
                hints[gives] = -decisive  # the line moves among them are settled below
    if lines.any():
        wins = (colour_line & dot_line) | (colour_line if colours_move else dot_line)
        hints[lines] = -decisive
        hints[wins] = decisive
    return hints.tolist()


# --- policies --------------------------------------------------------------------------------


def tournament_depth(move_number: int) -> int:
    """The report's tournament schedule, in moves, for the move about to be played (1-based)."""
    if move_number <= 2:
        return 2
    if move_number <= 10:
        return 3
    if move_number <= 21:
        return 4
    if move_number <= 24:
        return 5
    return 2


@register
class OriginalTournament(AlphaBetaSearch):
    name = "original-tournament"
    summary = "the original report's tournament player: alpha-beta with h1 and its depth schedule, 6 s per move"
    source = ('Jun Shao and Zhiyi Ding, "Heuristic Minimax search with Alpha-Beta pruning for the Double Card game" '
              "(COMP 6721 report, Concordia University, 2019), section 3.5")
    games = ("double_card",)
    params = {
        **AlphaBetaSearch.params,
        "depth": Param(None, "fixed depth in moves (None: the report's schedule)", int),
        "time_limit": Param(6.0, "seconds per move (the tournament's 6 s; none: no limit)", optional_seconds),
        "ordering": Param("none", "move ordering (the report's player had none)", str, ("history", "evaluation", "none")),
        "tt": Param(False, "transposition table (the report's player dropped it for the tournament)", bool),
        "evaluation": Param("h1", "evaluation at the depth limit", str),
        "killers": Param(False, "killer moves (the report's player had none)", bool),
        "eval_cache": Param(False, "cache leaf evaluations (the report's player dropped its table)", bool),
    }

    def search(self, state: DoubleCardState, player: int) -> int:  # type: ignore[override]  # games = ("double_card",)
        moves = self.config["depth"] or tournament_depth(state.moves + 1)
        # A recycling move is two sub-steps (take, place): two plies per move.
        plies = moves if state.cards < CARDS and state.taken is None else 2 * moves - (state.taken is not None)
        saved = self.config["depth"]
        self.config["depth"] = plies
        try:
            return super().search(state, player)
        finally:
            self.config["depth"] = saved


@register
class DoubleCardBest(AlphaBetaSearch):
    """Ours: the generic alpha-beta with this game's hints (wins, blocks and threats
    first; wins on the spot searched alone, moves that lose on the spot or hand the
    opponent one skipped), the recent win tried first, and an evaluation cache keyed
    by the board alone."""

    name = "double-card-best"
    summary = ("alpha-beta with transposition table, move hints (wins, blocks, threats first), killer moves, history, "
               "principal variation search, an evaluation cache and iterative deepening under a time budget, windows evaluation")
    source = "parlour (improves on the players of Shao and Ding's Double Card report)"
    games = ("double_card",)
    params = {
        **AlphaBetaSearch.params,
        "time_limit": Param(1.0, "seconds per move (none: no limit)", optional_seconds),
        "evaluation": Param("windows", "evaluation at the depth limit", str),
        "pvs": Param(True, "principal variation search (null windows after the first move)", bool),
        "hint_depth": Param(1, "order moves by this game's hints (wins, blocks, threats) at nodes with at least this many plies left", int),
    }

    def setup(self) -> None:
        super().setup()
        if self.config["hint_depth"] < 1:
            raise ValueError(f"parameter hint_depth={self.config['hint_depth']}: must be at least 1")
        self.recent_wins: dict[int, int] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.recent_wins.clear()

    def move_hints(self, state: State, player: int, actions: list[int], depth: int) -> list[float] | None:
        if depth < self.config["hint_depth"]:
            return None
        # WINS / LOSES: a win on the spot is searched alone, losses on the spot skipped, and
        # so, two or more plies from the horizon, are moves that hand the opponent one
        hints = placement_hints(state, actions, WINS, forced=depth >= 2)
        if hints is not None and WINS in hints:
            self.recent_wins[depth] = actions[hints.index(WINS)]
        return hints

    def winning_move(self, state: DoubleCardState, player: int, depth: int) -> tuple[int, State] | None:  # type: ignore[override]
        """The last win on the spot found at this depth, if it is legal and wins here too
        (checked on a copy): a threat the side to move left open is usually still open in
        the sibling positions, and this skips generating and ordering all their moves."""
        action = self.recent_wins.get(depth)
        if action is None or (state.cards >= CARDS and state.taken is None):  # recycling: take a card first
            return None
        if state.placement_error(action // CELLS + 1, action % CELLS) is not None:
            return None
        child = state.clone()
        child.apply(action)
        return (action, child) if child.winner == player else None

    def leaf_key(self, state: DoubleCardState) -> tuple:  # type: ignore[override]  # games = ("double_card",)
        """The board and the side to move: all that h1, h2 and windows read, so leaves
        reached by the same placements in another order share one evaluation (the
        report's table of visited states; the full key also holds the last-moved card)."""
        return (state.occ, state.red, state.filled, state.to_move)


@register_references("double_card")
def double_card_references(game: Game) -> References:
    """The original tournament player at 1 s per move (its 6 s would make a final arena
    take hours)."""
    return References(
        original="original-tournament:time_limit=1.0",
        quick="alphabeta:depth=2,evaluation=h1",
        strongest="double-card-best",
        final_games=10,
    )
