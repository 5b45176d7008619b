"""The batched Tribolo engine against B single games (parlour.games.tribolo): the same
random moves through both give the same observations, masks, movers, rewards and
terminal flags at every step (hypothesis over small boards and every option, and a few
default 16 x 11 games), across autoresets: the engine's own fresh setups are read into
single states (``state_from_board``, which also checks the seat to move can move);
determinism; bad actions rejected without any change; the batched greedy against the
single-game one; the vector envs with ``opponent="greedy"``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.baselines.players.tribolo import GreedyCells
from parlour.errors import IllegalActionError
from parlour.games import load_game
from parlour.games.tribolo import SYMBOLS
from parlour.vector import TriboloBatch, make_engine
from parlour.vector.base import uniform_legal
from parlour.vector.gym_env import BatchedVectorEnv


def state_of(engine: TriboloBatch, game, b: int):
    """Game ``b`` of the batch as a single-game state."""
    H, W = engine.height, engine.width
    rows = ["".join(SYMBOLS[c] for c in engine.board[b, y, :W]) for y in range(H)]
    mover = int(engine.to_move[b])
    return game.state_from_board(rows, None if mover < 0 else mover)


def check_same(engine: TriboloBatch, states: list) -> None:
    obs, masks, movers, to_act = engine.observations(), engine.legal_masks(), engine.movers(), engine.to_act()
    assert obs.dtype == np.float32 and masks.dtype == np.int8
    assert obs.shape == (engine.num_envs, 3, *engine.observation_shape)
    for b, state in enumerate(states):
        assert (movers[b],) == state.current_players() or (movers[b] == -1 and state.is_terminal())
        assert np.array_equal(to_act[b], [p in state.current_players() for p in range(3)])
        for p in range(3):
            assert np.array_equal(obs[b, p], state.observation_tensor(p))
            assert np.array_equal(masks[b, p], state.legal_mask(p))
    for p in range(3):
        assert np.array_equal(engine.observation(p), obs[:, p])
        assert np.array_equal(engine.legal_mask(p), masks[:, p])


def run_against_singles(opts: dict, num_envs: int, seed: int, steps: int, load: bool, few_games: int | None = None) -> int:
    """Random moves through the engine and B single states; returns the games ended.
    ``few_games``: the engine's threshold for the Python path of the later seats."""
    engine = make_engine("tribolo", num_envs, seed, **opts)
    if few_games is not None:
        engine.few_games = few_games
    game = load_game("tribolo", **opts)
    if load:  # start from the single game's own setups
        states = [game.new_initial_state(seed + b) for b in range(num_envs)]
        engine.load_states(states)
    else:
        states = [state_of(engine, game, b) for b in range(num_envs)]
    rng = np.random.default_rng(seed)
    ended = 0
    for _ in range(steps):
        check_same(engine, states)
        actions = engine.random_actions(rng)
        result = engine.step(actions)
        for b, state in enumerate(states):
            state.apply(int(actions[b]))
            assert result.terminated[b] == state.is_terminal()
            assert np.array_equal(result.rewards[b], state.returns())
            if state.is_terminal():
                ended += 1
                for p in range(3):
                    assert np.array_equal(result.final_observations[b, p], state.observation_tensor(p))
                states[b] = state_of(engine, game, b)  # the engine's fresh setup
                assert states[b].counts() == [opts.get("start_cells", 12)] * 3
            elif result.final_observations is not None:
                assert not result.final_observations[b].any()
    return ended


@settings(max_examples=25, deadline=None)
@given(
    width=st.integers(3, 7),
    height=st.integers(2, 6),
    walls=st.integers(0, 3),
    start_cells=st.integers(1, 3),
    returns=st.sampled_from(["win_loss", "cell_share"]),
    num_envs=st.integers(1, 5),
    seed=st.integers(0, 2**32 - 1),
    load=st.booleans(),
)
def test_same_as_single_games_small_boards(width, height, walls, start_cells, returns, num_envs, seed, load) -> None:
    cells = width * height
    if 3 * start_cells + walls >= cells - 1:
        walls = max(0, cells - 2 - 3 * start_cells)
    if 3 * start_cells + walls >= cells - 1:
        return
    opts = dict(width=width, height=height, walls=walls, start_cells=start_cells, returns=returns)
    try:
        load_game("tribolo", **opts).new_initial_state(0)
    except ValueError:  # a board where no setup ever has a move
        with pytest.raises(ValueError, match="no setup with a legal move"):
            make_engine("tribolo", num_envs, seed, **opts)
        return
    run_against_singles(opts, num_envs, seed, 3 * cells, load)


@pytest.mark.parametrize(("opts", "load"), [({}, True), ({}, False), ({"returns": "cell_share"}, False)])
def test_same_as_single_games_default_board(opts: dict, load: bool) -> None:
    assert run_against_singles(opts, 3, 7, 160, load) >= 2


@pytest.mark.parametrize("few_games", [0, 1, 1000])
@pytest.mark.parametrize("opts", [{}, {"width": 5, "height": 4, "walls": 2, "start_cells": 2}])
def test_later_seats_batched_and_python(opts: dict, few_games: int) -> None:
    """The games whose next seat cannot move: all batched (0), Python one at a time
    (1000), or either depending on their number (1)."""
    ended = run_against_singles(opts, 12, 3, 100 if opts else 60, False, few_games)
    assert ended >= 1 or not opts  # (default board: 60 moves, mid-game)


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
    assert run_against_singles(opts, 21, 4, 90, False, few_games) >= 1


def test_where_steps_against_single_games() -> None:
    """Random subsets of the games step (the others keep their state, and the jumps
    kept for the next step are only those of the games just settled)."""
    opts = {"width": 6, "height": 5, "walls": 2, "start_cells": 3}
    engine = make_engine("tribolo", 10, 2, **opts)
    game = load_game("tribolo", **opts)
    states = [state_of(engine, game, b) for b in range(10)]
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(80):
        where = rng.random(10) < 0.5
        actions = engine.random_actions(rng)
        result = engine.step(actions, where=where)
        assert not result.terminated[~where].any()
        for b in np.flatnonzero(where):
            states[b].apply(int(actions[b]))
            assert result.terminated[b] == states[b].is_terminal()
            if states[b].is_terminal():
                ended += 1
                states[b] = state_of(engine, game, b)
        check_same(engine, states)
    assert ended >= 2


def test_largest_board_and_odd_widths() -> None:
    for opts in ({"width": 26, "height": 15, "walls": 100, "start_cells": 40}, {"width": 20, "height": 20, "walls": 60, "start_cells": 30}, {"width": 9, "height": 3, "walls": 1, "start_cells": 2}, {"width": 17, "height": 5}):
        run_against_singles(opts, 2, 1, 30, True)


def test_determinism_and_setup() -> None:
    a, b = make_engine("tribolo", 16, 5), make_engine("tribolo", 16, 5)
    assert np.array_equal(a.board, b.board) and np.array_equal(a.to_move, b.to_move)
    for _ in range(50):
        ra, rb = a.step(a.random_actions()), b.step(b.random_actions())
        assert np.array_equal(ra.rewards, rb.rewards) and np.array_equal(a.board, b.board)
        assert np.array_equal(a.opponent_actions("greedy"), b.opponent_actions("greedy"))
    c = make_engine("tribolo", 16, 6)
    assert not np.array_equal(a.board, c.board)
    a.reset(seed=9)
    c.reset(seed=9)
    assert np.array_equal(a.board, c.board)
    counts = a.counts()
    assert (counts == 12).all() and ((a.board == 4).sum(axis=(1, 2)) == 12).all()
    assert set(np.unique(a.to_move)) <= {0, 1, 2}


def test_random_actions_follow_uniform_legal() -> None:
    engine = make_engine("tribolo", 32, 0)
    for seed in range(5):
        mine = engine.random_actions(np.random.default_rng(seed))
        ref = uniform_legal(engine.legal_mask(engine.movers()), np.random.default_rng(seed))
        assert np.array_equal(mine, ref)


def test_where_and_no_autoreset() -> None:
    game = load_game("tribolo", width=4, height=1, walls=0, start_cells=1)
    over = game.state_from_board(["BRGB"], None)  # no empty cell left
    live = game.state_from_board(["BR.."], 0)
    engine = make_engine("tribolo", 2, 0, autoreset=False, width=4, height=1, walls=0, start_cells=1)
    engine.load_states([over, live])
    assert np.array_equal(engine.terminated, [True, False]) and np.array_equal(engine.movers(), [-1, 0])
    assert np.array_equal(engine.returns()[0], [1.0, -0.5, -0.5]) and not engine.returns()[1].any()
    assert not engine.legal_masks()[0].any()
    with pytest.raises(IllegalActionError, match="game 0 of the batch is over"):
        engine.step(np.array([3, 2]))
    result = engine.step(np.array([0, 2]), where=np.array([False, True]))
    assert np.array_equal(result.terminated, [False, True]) and np.array_equal(engine.terminated, [True, True])
    assert np.array_equal(result.rewards[1], [1.0, -0.5, -0.5])  # B took R: B 3, R 0, G 0
    engine.reset_games(np.array([True, False]))
    assert np.array_equal(engine.terminated, [False, True])


@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        ("occupied", IllegalActionError, r"action \d+ \([a-p]\d+\) is illegal for seat \d in game 1 of the batch; legal: "),
        ("off", IllegalActionError, r"action 176 \(off the board\) is illegal"),
        ("negative", IllegalActionError, r"action -1 \(off the board\)"),
        ("float", IllegalActionError, "must be integers"),
        ("shape", ValueError, r"shape \(3,\)"),
    ],
)
def test_bad_actions_change_nothing(bad: str, error: type, message: str) -> None:
    engine = make_engine("tribolo", 3, 0)
    engine.step(engine.random_actions())
    actions = engine.random_actions()
    if bad == "occupied":
        actions[1] = int(np.flatnonzero(engine.board[1, :11, :16].reshape(-1) < 3)[0])
    elif bad == "off":
        actions[1] = 176
    elif bad == "negative":
        actions[1] = -1
    elif bad == "float":
        actions = actions.astype(float)
    else:
        actions = actions[None]
    before = engine.board.copy(), engine.to_move.copy(), engine.legal.copy()
    with pytest.raises(error, match=message):
        engine.step(actions)
    assert np.array_equal(engine.board, before[0]) and np.array_equal(engine.to_move, before[1])
    assert np.array_equal(engine.legal, before[2])


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="width must be"):
        TriboloBatch(2, width=27)
    with pytest.raises(ValueError, match="must leave at least one empty cell"):
        TriboloBatch(2, width=3, height=3, start_cells=3)


@pytest.mark.parametrize("opts", [{}, {"width": 6, "height": 5, "walls": 3, "start_cells": 3}])
def test_greedy_picks_a_best_single_game_move(opts: dict) -> None:
    engine = make_engine("tribolo", 24, 3, **opts)
    game = load_game("tribolo", **opts)
    policy = GreedyCells(game)
    for _ in range(30):
        best = engine.greedy_choices()
        choice = engine.opponent_actions("greedy")
        for b in range(engine.num_envs):
            state = state_of(engine, game, b)
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


@pytest.mark.parametrize("opponent", ["greedy", "random"])
def test_vector_env_against_greedy(opponent: str) -> None:
    env = BatchedVectorEnv("tribolo", 4, opponent=opponent, seed=0, width=6, height=5, walls=2, start_cells=3)
    obs, infos = env.reset(seed=1)
    assert obs.shape == (4, 5, 5, 6) and obs in env.observation_space
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(60):
        masks = env.action_masks()
        assert masks.any(axis=1).all()
        assert np.array_equal(env.engine.movers(), infos["seat"])  # the learner is to move
        obs, rewards, terminated, truncated, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        assert np.array_equal(obs, env.engine.observation(infos["seat"]))
        assert not rewards[~terminated].any()
        episodes += int(terminated.sum())
    assert episodes >= 4


def test_sb3_vec_env() -> None:
    pytest.importorskip("stable_baselines3")
    from parlour.vector.sb3_env import BatchedSB3VecEnv

    env = BatchedSB3VecEnv("tribolo", 3, opponent="greedy", width=5, height=4, walls=1, start_cells=2)
    env.seed(0)
    obs = env.reset()
    assert obs.shape == (3, 5, 4, 5)
    for _ in range(20):
        masks = np.stack(env.env_method("action_masks"))
        env.step_async(np.array([np.flatnonzero(m)[0] for m in masks]))
        obs, rewards, dones, infos = env.step_wait()
        for b in np.flatnonzero(dones):
            assert "terminal_observation" in infos[b]
