"""Tribolo invariants under hypothesis: the bitboard rules against a naive cell-by-cell
reference, the cell count grows by exactly one per move, walls never change, counts
match the board, rule 7's turn order (the protocol itself, text round trips, clones and
undo included, is checked by test_conformance.py)."""

import numpy as np
from helpers import random_game
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parlour.games.tribolo import TriboloGame

DIRS = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]


@st.composite
def configs(draw):
    width = draw(st.integers(1, 12))
    height = draw(st.integers(1, 10))
    cells = width * height
    assume(cells >= 4)
    start = draw(st.integers(1, max(1, (cells - 1) // 4)))
    walls = draw(st.integers(0, max(0, cells - 3 * start - 1) // 2))
    returns = draw(st.sampled_from(["win_loss", "cell_share"]))
    return dict(width=width, height=height, walls=walls, start_cells=start, returns=returns)


def grid(state):
    """The board as rows of symbols, from the text form (a second source of truth)."""
    return [list(row) for row in state.to_text().splitlines()[1:]]


def naive_jumps(rows, x, y, symbol):
    """Cells captured by ``symbol`` playing (x, y), walking each direction cell by cell."""
    h, w = len(rows), len(rows[0])
    if rows[y][x] != ".":
        return []
    taken = []
    for dx, dy in DIRS:
        cx, cy, run, opp = x + dx, y + dy, [], None
        while 0 <= cx < w and 0 <= cy < h:
            v = rows[cy][cx]
            if opp is None:
                if v in ".#" or v == symbol:
                    break
                opp = v
            if v == opp:
                run.append((cx, cy))
            else:
                if v == symbol and run:
                    taken += run
                break
            cx, cy = cx + dx, cy + dy
    return taken


def naive_moves(rows, symbol):
    return sorted(
        y * len(rows[0]) + x
        for y in range(len(rows))
        for x in range(len(rows[0]))
        if naive_jumps(rows, x, y, symbol)
    )


def playout(game, seed):
    """``random_game``, skipping the tiny boards where no setup allows a move."""
    try:
        return random_game(game, seed)
    except ValueError as error:
        assert "no setup" in str(error)
        assume(False)


@settings(max_examples=150, deadline=None)
@given(configs(), st.integers(0, 2**32 - 1))
def test_invariants_against_a_naive_reference(config, seed):
    game = TriboloGame(**config)
    w = game.width
    states = playout(game, seed)
    state = next(states)
    walls = state.walls
    assert state.counts() == [config["start_cells"]] * 3
    assert int(walls).bit_count() == config["walls"]
    while True:
        rows = grid(state)
        flat = "".join("".join(r) for r in rows)
        # counts match the board; every cell has exactly one owner code
        assert state.counts() == [flat.count(s) for s in "BRG"]
        assert state.walls == walls and flat.count("#") == config["walls"]
        obs = state.observation_tensor(0)
        assert (obs.sum(axis=0) == 1).all()
        # legal moves agree with the naive reference, for every seat
        movers = [s for s in range(3) if naive_moves(rows, "BRG"[s])]
        for seat in range(3):
            assert sorted(np.flatnonzero([(state.moves_of(seat) >> c) & 1 for c in range(len(flat))])) == naive_moves(rows, "BRG"[seat])
        if state.is_terminal():
            assert movers == []
            returns = state.returns()
            counts = state.counts()
            leaders = [s for s in range(3) if counts[s] == max(counts)]
            if config["returns"] == "win_loss" and len(leaders) < 3:
                assert all(returns[s] > 0 for s in leaders)
                assert all(returns[s] < 0 for s in range(3) if s not in leaders)
            break
        (mover,) = state.current_players()
        assert mover in movers
        legal = state.legal_actions(mover)
        assert legal == naive_moves(rows, "BRG"[mover])
        # the cells a move changes: the naive jumps
        copy = state.clone()
        action = legal[seed % len(legal)]
        copy.apply(action)
        expected = sorted([action] + [y * w + x for x, y in naive_jumps(rows, action % w, action // w, "BRG"[mover])])
        after = grid(copy)
        changed = sorted(c for c in range(len(flat)) if "".join("".join(r) for r in after)[c] != flat[c])
        assert changed == expected
        assert all("".join("".join(r) for r in after)[c] == "BRG"[mover] for c in changed)
        assert sum(copy.counts()) == sum(state.counts()) + 1
        # rule 7: next, next-but-one, then the mover itself
        after_movers = [s for s in range(3) if copy.moves_of(s)]
        expected_next = next((s for s in ((mover + 1) % 3, (mover + 2) % 3, mover) if s in after_movers), None)
        assert copy.current_players() == (() if expected_next is None else (expected_next,))
        state = next(states)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_default_board_each_move_adds_exactly_one_cell(seed):
    game = TriboloGame()
    previous = None
    walls = None
    for state in playout(game, seed):
        total = sum(state.counts())
        if previous is not None:
            assert total == previous + 1
            assert state.walls == walls
        previous, walls = total, state.walls
    assert state.is_terminal()
    empties = int(state.empty()).bit_count()
    assert previous == 176 - 12 - empties
