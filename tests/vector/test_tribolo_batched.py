"""What is Tribolo's own in its batched engine, against the single games on the
conformance harness: the later seats' moves found batched or in Python
(``few_games``), several games side by side in one uint64 word, the largest boards,
fresh setups; its reasons for a bad move, its bad options; the batched greedy against
the single-game one.  Everything every engine keeps (lockstep with the single games on
small boards under any options and on the default board, ``where``, no autoreset, bad
steps changing nothing, seeds, the base class's random draw, vector envs) is the
conformance suite's, ``test_engine_contract*.py``."""

from __future__ import annotations

import numpy as np
import pytest
from conformance import Lockstep, assert_refused, random_play

from parlour.baselines.players.tribolo import GreedyCells
from parlour.baselines.players.tribolo_batched import TriboloGreedyBatched
from parlour.errors import IllegalActionError
from parlour.games.tribolo import TriboloBatch
from parlour.vector import make_engine


def play_in_lockstep(opts: dict, num_envs: int, seed: int, steps: int, few_games: int | None = None, load: bool = False) -> int:
    """Random moves through the engine and its single games; the games ended.
    ``few_games``: the engine's threshold for the Python path of the later seats;
    ``load``: start from the single game's own setups."""
    engine = make_engine("tribolo", num_envs, seed, **opts)
    if few_games is not None:
        engine.few_games = few_games
    lockstep = Lockstep(engine)
    if load:
        lockstep.load([engine.game.new_initial_state(seed + b) for b in range(num_envs)], np.arange(num_envs))
    lockstep.play(random_play, np.random.default_rng(seed), steps)
    return lockstep.endings


@pytest.mark.parametrize("few_games", [0, 1, 1000])
@pytest.mark.parametrize("opts", [{}, {"width": 5, "height": 4, "walls": 2, "start_cells": 2}])
def test_later_seats_batched_and_python(opts: dict, few_games: int) -> None:
    """The games whose next seat cannot move: all batched (0), Python one at a time
    (1000), or either depending on their number (1)."""
    ended = play_in_lockstep(opts, 12, 3, 60 if opts else 40, few_games)
    assert ended >= 1 or not opts  # (default board: 40 moves, mid-game)


@pytest.mark.parametrize("few_games", [0, None])
@pytest.mark.parametrize(
    "opts",
    [
        {"width": 8, "height": 6, "walls": 3, "start_cells": 3},
        {"width": 16, "height": 5, "walls": 4, "start_cells": 4},
        {"width": 26, "height": 4, "walls": 4, "start_cells": 4},
    ],
)
def test_games_side_by_side_in_words(opts: dict, few_games: int | None) -> None:
    """Several games per uint64 word and several words: widths that fill their lanes
    (8, 16) and one that does not (26 of 32), so that runs, jumps and captures must stop
    at a lane's edge; ``few_games=0``: the games whose next seat is stuck, and the
    resets, through the batched move generation on a compact copy of their boards."""
    assert play_in_lockstep(opts, 21, 4, 60, few_games) >= 1


def test_largest_boards() -> None:
    for opts in ({"width": 26, "height": 15, "walls": 100, "start_cells": 40}, {"width": 20, "height": 20, "walls": 60, "start_cells": 30}):
        play_in_lockstep(opts, 2, 1, 30, load=True)


@pytest.mark.parametrize("opts", [{}, {"width": 5, "height": 4, "walls": 2, "start_cells": 2}])
def test_fresh_setups(opts: dict) -> None:
    """Every setup, the first ones and those of the games reset on the way, has the
    start cells of each seat and the walls, and a seat to move."""
    engine = make_engine("tribolo", 16, 5, **opts)
    game = engine.game
    rng = np.random.default_rng(5)
    fresh = np.ones(16, dtype=bool)
    for _ in range(60):
        assert (engine.counts()[fresh] == game.config["start_cells"]).all()
        assert ((engine.board[fresh] == 4).sum(axis=(1, 2)) == game.config["walls"]).all()
        assert set(engine.to_move[fresh].tolist()) <= {0, 1, 2}
        fresh = engine.step(engine.random_actions(rng)).terminated
    assert fresh.any() or not opts


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("occupied", r"action \d+ \([a-p]\d+\) is illegal for seat \d in game 1 of the batch; legal: "),
        ("off", r"action 176 \(off the board\) is illegal"),
        ("negative", r"action -1 \(off the board\)"),
    ],
)
def test_bad_move_messages(bad: str, message: str) -> None:
    engine = make_engine("tribolo", 3, 0)
    engine.step(engine.random_actions())
    actions = engine.random_actions()
    actions[1] = {"occupied": int(np.flatnonzero(engine.board[1].reshape(-1) < 3)[0]), "off": 176, "negative": -1}[bad]
    assert_refused(engine, actions, IllegalActionError, message)


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="width must be"):
        TriboloBatch(2, width=27)
    with pytest.raises(ValueError, match="must leave at least one empty cell"):
        TriboloBatch(2, width=3, height=3, start_cells=3)


@pytest.mark.parametrize("opts", [{}, {"width": 6, "height": 5, "walls": 3, "start_cells": 3}])
def test_greedy_picks_a_best_single_game_move(opts: dict) -> None:
    engine = make_engine("tribolo", 24, 3, **opts)
    policy = GreedyCells(engine.game)
    for _ in range(30):
        best = engine.most_capturing_cells()
        choice = TriboloGreedyBatched().actions(engine, np.arange(engine.num_envs), engine.movers(), engine.rng)
        for b in range(engine.num_envs):
            state = engine.game_state(b)
            if state.is_terminal():
                assert not best[b].any()
                continue
            seat = state.to_move
            gains = {c: sum(state.geo.captures(state.board, c, seat)) for c in state.legal_actions()}
            top = max(gains.values())
            assert set(np.flatnonzero(best[b])) == {c for c, g in gains.items() if g == top}
            assert gains[int(choice[b])] == top
            assert gains[policy.act(state.info_state(seat))] == top
        engine.step(choice)
