"""The batched Double Card engine against B single games (parlour.games.double_card):
the same legal moves through both give the same observations, masks, rewards, terminal
flags and movers at every step, across autoresets, under every option (hypothesis);
the games are played "quietly" (moves that end the game mostly avoided) so they reach
the recycling moves, the draw at the move limit and every kind of win; determinism;
bad actions are rejected with the single game's reason and change nothing; the vector
envs run."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import DOUBLE_CARD_SETUP_24, assert_seeded
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.errors import IllegalActionError
from parlour.games import load_game
from parlour.games.double_card import PICK_BASE, RECYCLE_RULES
from parlour.vector import DoubleCardBatch, make_engine
from parlour.vector.gym_env import BatchedVectorEnv

# from tests/games/test_double_card_rules.py: after the 24th move (D12-E12) every other card
# has a card resting on it, so the next player cannot take any card: a draw
PYRAMID_24 = [
    "0 6 A 1", "0 8 B 1", "0 4 C 1", "0 2 D 1", "0 2 E 1", "0 6 F 1", "0 4 G 1", "0 2 H 1",
    "0 7 A 3", "0 1 C 3", "0 5 E 3", "0 5 G 3", "0 3 B 4", "0 3 D 4", "0 7 F 4", "0 1 C 5",
    "0 7 E 5", "0 1 D 6", "0 4 D 7", "0 2 E 7", "0 5 D 9", "0 6 D 10", "0 4 E 10", "0 3 D 12",
]


def _state_fields(engine: DoubleCardBatch) -> list[np.ndarray]:
    return [engine.board.copy(), engine.moves.copy(), engine.to_move.copy(), engine.last.copy(),
            engine.taken_anchor.copy(), engine.taken_p.copy(), engine.winner.copy()]


def _pick_actions(engine: DoubleCardBatch, states: list, rng: np.random.Generator, quiet: float) -> np.ndarray:
    """Legal moves of the movers: uniformly random with probability ``1 - quiet``, else a
    random move that does not end the game (when there is one)."""
    masks = engine.legal_mask(engine.movers())
    actions = np.zeros(engine.num_envs, dtype=np.int64)
    for b, state in enumerate(states):
        legal = np.flatnonzero(masks[b])
        rng.shuffle(legal)
        actions[b] = legal[0]
        if rng.random() < quiet:
            for action in legal:
                child = state.clone()
                child.apply(int(action))
                if not child.is_terminal():
                    actions[b] = action
                    break
    return actions


def play_against_singles(opts: dict, num_envs: int, seed: int, steps: int, quiet: float, starts: dict | None = None) -> Counter:
    """Step the engine and ``num_envs`` single games with the same moves, comparing
    everything at every step; returns what happened (for the coverage checks).
    ``starts``: game index -> list of moves in notation to start that game from."""
    engine = make_engine("double_card", num_envs, seed, **opts)
    game = load_game("double_card", **opts)
    states = [game.new_initial_state() for _ in range(num_envs)]
    for b, moves in (starts or {}).items():
        states[b] = game.new_initial_state(moves=moves)
        engine.load_states([states[b]], [b])
    rng = np.random.default_rng(seed)
    seen: Counter = Counter()
    for _ in range(steps):
        obs, masks, movers, to_act = engine.observations(), engine.legal_masks(), engine.movers(), engine.to_act()
        assert obs.dtype == np.float32 and masks.dtype == np.int8 and obs.shape == (num_envs, 2, 12, 12, 8)
        assert not engine.terminated.any() and not engine.returns().any()
        for b, state in enumerate(states):
            assert (movers[b],) == state.current_players()
            assert to_act[b].tolist() == [p in state.current_players() for p in range(2)]
            for p in range(2):
                expected = state.observation_tensor(p)
                assert np.array_equal(obs[b, p], expected)
                assert np.array_equal(masks[b, p], state.legal_mask(p))
                assert np.array_equal(engine.observation(p)[b], expected)
                assert np.array_equal(engine.legal_mask(p)[b], state.legal_mask(p))
        assert np.array_equal(engine.observation(movers), obs[np.arange(num_envs), movers])
        actions = _pick_actions(engine, states, rng, quiet)
        result = engine.step(actions)
        for b, state in enumerate(states):
            action = int(actions[b])
            seen["take" if action >= PICK_BASE else "recycled place" if state.taken is not None else "place"] += 1
            state.apply(action)
            assert result.terminated[b] == state.is_terminal()
            assert np.array_equal(result.rewards[b], state.returns())
            assert np.array_equal(result.final_returns[b], state.returns())
            if state.is_terminal():
                colour, dot = state.lines()
                kind = "draw (move limit)" if state.winner == 2 and state.moves >= game.max_moves else "draw (stuck)" if state.winner == 2 else (
                    "both lines" if colour and dot else "colour line" if colour else "dot line")
                seen[kind] += 1
                for p in range(2):
                    assert np.array_equal(result.final_observations[b, p], state.observation_tensor(p))
                states[b] = game.new_initial_state()
            elif result.final_observations is not None:
                assert not result.final_observations[b].any()
        if not result.terminated.any():
            assert result.final_observations is None
    return seen


def test_every_kind_of_move_and_end() -> None:
    """Fixed seeds: recycling moves, wins by each kind of line and by both at once,
    the draw at the move limit, all identical to the single games."""
    seen = play_against_singles({}, 4, 0, 160, quiet=0.97, starts={1: DOUBLE_CARD_SETUP_24})
    seen += play_against_singles({"max_moves": 60, "recycle_rule": "same_placement", "first_player": "dots"}, 3, 1, 120, quiet=0.8)
    for kind in ("place", "take", "recycled place", "colour line", "dot line", "both lines", "draw (move limit)"):
        assert seen[kind] > 0, (kind, seen)



def test_steps_of_some_games_in_the_recycling_phase() -> None:
    """Steps that move only some games (``where``), with every card down: the free cards
    a placement found are reused for the masks only for the same games (the others
    computed afresh), so masks and observations stay the single games'."""
    game = load_game("double_card")
    engine = DoubleCardBatch(5, 3)
    states = [game.new_initial_state(moves=DOUBLE_CARD_SETUP_24) for _ in range(5)]
    for b, state in enumerate(states):
        engine.load_states([state], [b])
    rng = np.random.default_rng(3)
    for _ in range(40):
        where = rng.random(5) < 0.6
        actions = _pick_actions(engine, states, rng, quiet=1.0)
        engine.step(actions, where=where)
        for b in np.flatnonzero(where):
            states[b].apply(int(actions[b]))
            if states[b].is_terminal():
                states[b] = game.new_initial_state()
        masks, obs = engine.legal_masks(), engine.observations()
        for b, state in enumerate(states):
            for seat in range(2):
                assert np.array_equal(masks[b, seat], state.legal_mask(seat))
                assert np.array_equal(obs[b, seat], state.observation_tensor(seat))

def test_draw_when_no_card_can_be_taken() -> None:
    game = load_game("double_card")
    engine = DoubleCardBatch(2, 0, autoreset=False)
    state = game.new_initial_state(moves=PYRAMID_24[:-1])
    engine.load_states([state], [1])
    action = state.text_to_action(PYRAMID_24[-1])
    result = engine.step(np.array([0, action]))
    state.apply(action)
    assert state.winner == 2 and engine.winner.tolist() == [-1, 2]
    assert result.terminated.tolist() == [False, True] and not result.rewards.any()
    for p in range(2):
        assert np.array_equal(result.final_observations[1, p], state.observation_tensor(p))
        assert np.array_equal(engine.observations()[1, p], state.observation_tensor(p))


@settings(max_examples=12, deadline=None)
@given(
    max_moves=st.sampled_from([3, 25, 30, 40]),
    recycle_rule=st.sampled_from(RECYCLE_RULES),
    first_player=st.sampled_from(["colors", "dots"]),
    num_envs=st.integers(1, 4),
    quiet=st.sampled_from([0.0, 0.9, 1.0]),
    seed=st.integers(0, 2**32 - 1),
)
def test_same_as_single_games(max_moves: int, recycle_rule: str, first_player: str, num_envs: int, quiet: float, seed: int) -> None:
    opts = {"max_moves": max_moves, "recycle_rule": recycle_rule, "first_player": first_player}
    play_against_singles(opts, num_envs, seed, 40, quiet, starts={0: DOUBLE_CARD_SETUP_24} if max_moves > 24 else None)


def test_game_state_and_load_states_round_trip() -> None:
    game = load_game("double_card")
    state = game.new_initial_state(moves=DOUBLE_CARD_SETUP_24)
    state.play("D 1 D 2")  # a card in hand
    engine = DoubleCardBatch(2, 0)
    engine.load_states([state], [1])
    back = engine.game_state(1)
    assert back.key() == state.key() and back.seg == state.seg and back.vanch == state.vanch
    assert np.array_equal(engine.observation(0)[1], state.observation_tensor(0))
    assert engine.game_state(0).key() == game.new_initial_state().key()
    with pytest.raises(ValueError, match="load_states needs states of"):
        engine.load_states([load_game("double_card", max_moves=60).new_initial_state()], [0])


def test_same_seed_same_batch() -> None:
    def run(seed: int) -> list[np.ndarray]:
        engine = DoubleCardBatch(16, seed)
        out = []
        for _ in range(60):
            actions = engine.random_actions()
            result = engine.step(actions)
            out += [actions, result.rewards, engine.observations()]
        return out

    assert_seeded(run)


@pytest.mark.parametrize("recycle_rule", RECYCLE_RULES)
def test_random_actions_are_the_base_class_draw(recycle_rule: str) -> None:
    """The two-level draw picks what ``uniform_legal`` picks from the same floats, also
    while cards are recycled under each rule (the running counts of the blocks)."""
    from parlour.vector.base import uniform_legal

    engine = DoubleCardBatch(64, 3, recycle_rule=recycle_rule)
    game = load_game("double_card", recycle_rule=recycle_rule)
    for b in range(16):
        engine.load_states([game.new_initial_state(moves=DOUBLE_CARD_SETUP_24)], [b])
    for _ in range(30):
        ours = engine.random_actions(np.random.default_rng(7))
        base = uniform_legal(engine.legal_mask(engine.movers()), np.random.default_rng(7))
        assert np.array_equal(ours, base)
        engine.step(ours)


@pytest.mark.parametrize(
    ("actions", "error", "message"),
    [
        (np.array([0, 16]), IllegalActionError, r"action 16 \('0 1 A 3'\) is illegal for seat 1 in game 1 of the batch: cell A 3 would hang over the empty A 2; legal actions are \["),
        (np.array([0, 97]), IllegalActionError, r"action 97 .* in game 1 of the batch: cell B 1 is occupied"),
        (np.array([0, 7]), IllegalActionError, r"action 7 .* its right cell would be off the board"),
        (np.array([0, PICK_BASE]), IllegalActionError, r"action 768 .* taking a card is only allowed when recycling"),
        (np.array([864, 0]), IllegalActionError, r"action 864 \(not an action\) is illegal for seat 0 in game 0 of the batch: outside 0..863"),
        (np.array([0, -1]), IllegalActionError, r"action -1 .*outside 0..863"),
        (np.array([[0, 1]]), ValueError, r"shape \(2,\)"),
        (np.array([0, 1, 2]), ValueError, r"shape \(2,\)"),
        (np.array([0.0, 1.0]), IllegalActionError, "must be integers, got dtype float64"),
        (np.array([True, False]), IllegalActionError, "must be integers"),
    ],
)
def test_bad_actions_change_nothing(actions, error, message) -> None:
    engine = DoubleCardBatch(2, 0)
    engine.step(np.array([0, 1]), where=np.array([False, True]))  # game 1: placement 1 on B1, seat 1 to move
    before = _state_fields(engine)
    with pytest.raises(error, match=message):
        engine.step(actions)
    assert all(np.array_equal(x, y) for x, y in zip(before, _state_fields(engine)))


def test_recycling_errors_and_where() -> None:
    game = load_game("double_card")
    engine = DoubleCardBatch(2, 0, autoreset=False)
    state = game.new_initial_state(moves=DOUBLE_CARD_SETUP_24)
    engine.load_states([state], [0])
    before = _state_fields(engine)
    with pytest.raises(IllegalActionError, match="a recycling move starts by taking a card"):
        engine.step(np.array([0, 0]))
    a1 = PICK_BASE  # A1 holds the bottom of a vertical card with another on top of it
    with pytest.raises(IllegalActionError, match=r"in game 0 of the batch: taking it would leave A 3 hanging"):
        engine.step(np.array([a1, 0]))
    assert all(np.array_equal(x, y) for x, y in zip(before, _state_fields(engine)))
    take = state.text_to_action("D 1 D 2")
    engine.step(np.array([take, 0]), where=np.array([True, False]))  # game 1 untouched
    state.apply(take)
    assert engine.game_state(0).key() == state.key() and engine.moves[1] == 0 and not engine.board[1].any()
    back = 1 * 96 + take - PICK_BASE  # placement 2 (vertical) on D1: the same two cells
    with pytest.raises(IllegalActionError, match="may not go back onto the same two cells"):
        engine.step(np.array([back, 0]), where=np.array([True, False]))


def test_no_autoreset_keeps_finished_games() -> None:
    engine = DoubleCardBatch(2, 0, autoreset=False, max_moves=1)
    result = engine.step(np.array([0, 0]), where=np.array([True, False]))
    assert result.terminated.tolist() == [True, False] and engine.terminated.tolist() == [True, False]
    assert engine.movers().tolist() == [-1, 0] and not engine.legal_masks()[0].any()
    assert engine.returns().tolist() == [[0.0, 0.0], [0.0, 0.0]]  # a draw at the move limit
    with pytest.raises(IllegalActionError, match="game 0 of the batch is over"):
        engine.step(np.array([0, 0]))
    engine.reset_games(np.array([True, False]))
    assert engine.movers().tolist() == [0, 0]


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="recycle_rule"):
        DoubleCardBatch(2, recycle_rule="sometimes")
    with pytest.raises(ValueError, match="max_moves"):
        DoubleCardBatch(2, max_moves=0)
    with pytest.raises(ValueError, match="first_player"):
        DoubleCardBatch(2, first_player="white")


def test_vector_env_runs() -> None:
    env = BatchedVectorEnv("double_card", 4, seed=0, max_moves=30)
    obs, infos = env.reset(seed=1)
    assert obs.shape == (4, 12, 12, 8) and obs in env.observation_space
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(60):
        masks = env.action_masks()
        assert masks.any(axis=1).all() and np.array_equal(env.engine.movers(), infos["seat"])
        obs, rewards, terminated, truncated, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        assert np.array_equal(obs, env.engine.observation(infos["seat"]))
        episodes += int(terminated.sum())
    assert episodes > 0


def test_sb3_vec_env_runs() -> None:
    pytest.importorskip("stable_baselines3")
    from parlour.vector.sb3_env import BatchedSB3VecEnv

    venv = BatchedSB3VecEnv("double_card", 3, seed=0)
    obs = venv.reset()
    assert obs.shape == (3, 12, 12, 8)
    done_any = False
    for _ in range(40):
        masks = np.stack(venv.env_method("action_masks"))
        obs, rewards, dones, infos = venv.step(masks.argmax(axis=1))
        done_any |= bool(dones.any())
        for b in np.flatnonzero(dones):
            assert infos[b]["terminal_observation"].shape == (12, 12, 8)
    assert done_any


def test_returned_arrays_are_never_overwritten() -> None:
    """Outputs are written into reused buffers, but only into ones nobody holds: arrays
    (and views of them) kept by the caller stay as they were."""
    engine = DoubleCardBatch(8, 0)
    kept = []
    for _ in range(40):
        result = engine.step(engine.random_actions())
        arrays = [engine.observations(), engine.observations()[:, 1], engine.observation(0), engine.legal_masks()]
        if result.final_observations is not None:
            arrays.append(result.final_observations)
        kept += [(a, a.copy()) for a in arrays]
        engine.observations(), engine.legal_masks()  # dropped at once: their buffers are reused
    assert all(np.array_equal(a, copy) for a, copy in kept)


def test_final_observations_read_after_later_steps() -> None:
    """Final observations are built when first read, from what the games were when they
    ended: reading them after the engine has reset and stepped on gives the same arrays."""
    engine, twin = DoubleCardBatch(16, 3), DoubleCardBatch(16, 3)
    kept = []
    for _ in range(120):
        result, expected = engine.step(engine.random_actions()), twin.step(twin.random_actions())
        if expected.final_observations is not None:
            kept.append((result, expected.final_observations.copy()))
    assert len(kept) >= 3
    for result, expected in kept:
        assert np.array_equal(result.final_observations, expected)


def test_row_shift_matches_slices() -> None:
    from parlour.vector.double_card import _row_shift

    rows = np.random.default_rng(0).integers(0, 256, (5, 12), dtype=np.uint8)
    for by, fill in ((1, 0xFF), (-1, 0), (-2, 0), (2, 7)):
        expected = np.full_like(rows, fill)
        if by > 0:
            expected[:, by:] = rows[:, :-by]
        else:
            expected[:, :by] = rows[:, -by:]
        assert np.array_equal(_row_shift(rows, by, fill), expected)
