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


def plain_moves(width, height, me, o1, o2, empty):
    """The move generator before the packed boards: one flood per direction and
    opponent on plain bitboards (the reference for the packed one)."""
    moves = 0
    for dx, dy in DIRS:
        step = lambda b: b << (dy * width + dx) if dy * width + dx > 0 else b >> -(dy * width + dx)  # noqa: E731
        keep = sum(1 << c for c in range(width * height)
                   if 0 <= c % width + dx < width and 0 <= c // width + dy < height)
        for o in (o1, o2):
            run = step(me & keep) & o
            grown = run
            while grown:
                grown = step(grown & keep) & o
                run |= grown
            moves |= step(run & keep) & empty
    return moves


def assert_caches_fresh(state):
    """Everything ``apply``/``undo`` keep up to date equals a fresh computation."""
    geo, own = state.geo, state.own
    vacant = geo.full & ~(own[0] | own[1] | own[2] | state.walls)
    assert state.vacant == state.empty() == vacant
    assert state.packed == [geo.pack(o) for o in own] and state.packed_vacant == geo.pack(vacant)
    assert list(state.board) == [next((s for s in range(3) if own[s] >> c & 1), 4 if state.walls >> c & 1 else 3)
                                 for c in range(geo.cells)]
    for seat in range(3):
        expected = plain_moves(geo.width, geo.height, own[seat], own[(seat + 1) % 3], own[(seat + 2) % 3], vacant)
        assert state.moves_of(seat) == expected == geo.moves(own[seat], own[(seat + 1) % 3], own[(seat + 2) % 3], vacant)
    if state.to_move >= 0:
        assert state.legal == state.moves_of(state.to_move)
        mask = state.legal_mask(state.to_move)
        assert mask.dtype == np.int8 and mask.shape == (geo.cells,) and mask.flags.writeable
        assert not np.shares_memory(mask, state.legal_mask(state.to_move))  # a fresh array each call
        assert mask.tolist() == [state.legal >> c & 1 for c in range(geo.cells)]
    for seat in range(3):
        planes = (own[seat], own[(seat + 1) % 3], own[(seat + 2) % 3], state.walls, vacant)
        expected = np.array([[p >> c & 1 for c in range(geo.cells)] for p in planes], dtype=np.float32)
        obs = state.observation_tensor(seat)
        assert obs.dtype == np.float32 and obs.flags.writeable and obs.flags.c_contiguous
        assert np.array_equal(obs, expected.reshape(5, geo.height, geo.width))
        assert not np.shares_memory(obs, state.planes)
    if state.planes is not None:  # the planes apply keeps equal fresh ones
        kept = state.planes.copy()
        state.planes = state._pv = None
        assert np.array_equal(state.observation_tensor(0), kept[[0, 1, 2, 3, 4]])
        assert np.array_equal(state.planes, kept)


@settings(max_examples=60, deadline=None)
@given(configs(), st.integers(0, 2**32 - 1))
def test_incremental_boards_equal_fresh_computation(config, seed):
    """The packed boards, empty cells, owner bytes and legal moves kept by ``apply`` and
    ``undo`` (and copied by ``clone``) equal fresh ones, on every board size."""
    game = TriboloGame(**config)
    rng = np.random.default_rng(seed)
    state = playout(game, seed)
    state = next(state)
    played = 0
    while not state.is_terminal():
        assert_caches_fresh(state)
        legal = state.legal_actions(state.to_move)
        handed_out = state.observation_tensor(state.to_move)
        before = handed_out.copy()
        state.apply(legal[int(rng.integers(len(legal)))])
        assert np.array_equal(handed_out, before)  # apply never writes into a returned observation
        played += 1
        if rng.random() < 0.2:
            state = state.clone()  # a clone cannot undo what came before it
            played = 0
        elif played and rng.random() < 0.3:
            state.undo()
            played -= 1
            assert_caches_fresh(state)
            legal = state.legal_actions(state.to_move)
            state.apply(legal[int(rng.integers(len(legal)))])
            played += 1
    assert_caches_fresh(state)
    while played:
        state.undo()
        played -= 1
        assert_caches_fresh(state)
