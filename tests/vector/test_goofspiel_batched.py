"""The batched Goofspiel engine against B single games (parlour.games.goofspiel): the
same random bids through both must give the same observations, masks, rewards and
terminal flags at every step, for many option combinations (hypothesis), including
the automatic reset of finished games; plus determinism and the rejection of bad
actions without any change."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_seeded
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.errors import IllegalActionError
from parlour.games import load_game
from parlour.vector import GoofspielBatch, make_engine


def options_strategy() -> st.SearchStrategy[dict]:
    @st.composite
    def build(draw):
        players = draw(st.integers(2, 4))
        n = draw(st.integers(1, 6))
        opts = {
            "num_players": players,
            "prize_order": draw(st.sampled_from(["random", "descending", "ascending", "explicit"])),
            "tie_rule": draw(st.sampled_from(["carry", "discard"])),
            "returns": draw(st.sampled_from(["win_loss", "point_difference", "total_points"])),
            "imperfect_info": draw(st.booleans()),
        }
        if opts["prize_order"] == "explicit":
            opts["prize_order"] = draw(st.permutations(list(range(1, n + 1))))
        if draw(st.booleans()):  # custom hands: N distinct cards up to 2N per seat
            cards = st.lists(st.integers(1, 2 * n), min_size=n, max_size=n, unique=True)
            opts["hands"] = [draw(cards) for _ in range(players)]
        else:
            opts["num_cards"] = n
        return opts

    return build()


def check_against_single(opts: dict, num_envs: int, seed: int, episodes: int) -> None:
    engine = make_engine("goofspiel", num_envs, seed, **opts)
    game = load_game("goofspiel", **opts)
    players = game.num_players
    rng = np.random.default_rng(seed + 1)
    states = [game.new_initial_state(prizes=engine.prizes[b].tolist()) for b in range(num_envs)]
    for _ in range(episodes * game.num_cards):
        obs, masks = engine.observations(), engine.legal_masks()
        assert obs.dtype == np.float32 and obs.shape == (num_envs, players, *game.observation_shape)
        assert masks.dtype == np.int8
        for b, state in enumerate(states):
            assert not engine.terminated[b]
            for p in range(players):
                assert np.array_equal(obs[b, p], state.observation_tensor(p))
                assert np.array_equal(masks[b, p], state.legal_mask(p))
        actions = engine.random_actions(rng)
        result = engine.step(actions)
        for b, state in enumerate(states):
            state.apply({p: int(actions[b, p]) for p in range(players)})
            assert result.terminated[b] == state.is_terminal()
            assert np.array_equal(result.rewards[b], state.returns())
            if state.is_terminal():
                for p in range(players):
                    assert np.array_equal(result.final_observations[b, p], state.observation_tensor(p))
                states[b] = game.new_initial_state(prizes=engine.prizes[b].tolist())
        assert not engine.terminated.any()  # autoreset


@settings(max_examples=25, deadline=None)
@given(opts=options_strategy(), num_envs=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_same_as_single_games(opts: dict, num_envs: int, seed: int) -> None:
    check_against_single(opts, num_envs, seed, episodes=2)


def test_goofspiel_13_defaults() -> None:
    check_against_single({}, 4, 7, episodes=1)
    check_against_single({"num_cards": 13, "prize_order": "descending", "tie_rule": "discard"}, 3, 8, episodes=1)


def test_per_seat_reads_and_game_state() -> None:
    engine = make_engine("goofspiel", 6, 3, num_cards=5, num_players=3, imperfect_info=True)
    rng = np.random.default_rng(0)
    for _ in range(3):
        engine.step(engine.random_actions(rng))
    seats = np.array([0, 1, 2, 2, 1, 0])
    obs, masks = engine.observations(), engine.legal_masks()
    for b in range(6):
        state = engine.game_state(b)
        assert np.array_equal(engine.observation(seats)[b], state.observation_tensor(seats[b]))
        assert np.array_equal(engine.legal_mask(seats)[b], state.legal_mask(seats[b]))
        for p in range(3):
            assert np.array_equal(engine.observation(p)[b], obs[b, p])
            assert np.array_equal(engine.legal_mask(p)[b], masks[b, p])


def test_where_steps_only_the_selected_games() -> None:
    engine = make_engine("goofspiel", 4, 0, num_cards=4)
    before = engine.observations()
    where = np.array([True, False, True, False])
    engine.step(engine.random_actions(), where=where)
    after = engine.observations()
    assert np.array_equal(engine.round, [1, 0, 1, 0])
    assert np.array_equal(before[~where], after[~where])
    for b in range(4):
        state = engine.game_state(b)
        assert np.array_equal(after[b, 0], state.observation_tensor(0))


@pytest.mark.parametrize("opts", [{"num_cards": 4}, {"num_cards": 5, "num_players": 3, "tie_rule": "discard", "prize_order": "descending"}])
def test_games_out_of_step_match_single_games(opts: dict) -> None:
    """After a partial ``where`` step the games are at different rounds (the general
    path of ``step``, resetting only some games); once they are back in step, the
    lockstep path.  Both must match single games."""
    engine = make_engine("goofspiel", 5, 1, **opts)
    game = load_game("goofspiel", **opts)
    rng = np.random.default_rng(2)
    states = [game.new_initial_state(prizes=engine.prizes[b].tolist()) for b in range(5)]
    for i in range(3 * game.num_cards):
        where = rng.random(5) < 0.6 if i % 4 == 1 else None
        actions = engine.random_actions(rng)
        result = engine.step(actions, where=where)
        for b, state in enumerate(states):
            if where is not None and not where[b]:
                continue
            state.apply({p: int(actions[b, p]) for p in range(game.num_players)})
            assert result.terminated[b] == state.is_terminal()
            assert np.array_equal(result.rewards[b], state.returns())
            if state.is_terminal():
                for p in range(game.num_players):
                    assert np.array_equal(result.final_observations[b, p], state.observation_tensor(p))
                states[b] = game.new_initial_state(prizes=engine.prizes[b].tolist())
        obs, masks = engine.observations(), engine.legal_masks()
        for b, state in enumerate(states):
            for p in range(game.num_players):
                assert np.array_equal(obs[b, p], state.observation_tensor(p))
                assert np.array_equal(masks[b, p], state.legal_mask(p))


def test_without_autoreset_finished_games_stay_over() -> None:
    engine = make_engine("goofspiel", 3, 0, autoreset=False, num_cards=2, returns="total_points")
    for _ in range(2):
        result = engine.step(engine.random_actions())
    assert result.terminated.all() and engine.terminated.all()
    assert np.array_equal(engine.returns(), result.rewards)
    assert not engine.legal_masks().any() and not engine.to_act().any()
    with pytest.raises(IllegalActionError, match="game 0 of the batch is over"):
        engine.step(np.zeros((3, 2), dtype=np.int64))
    engine.reset_games(np.array([False, True, False]))
    assert np.array_equal(engine.terminated, [True, False, True])


def test_same_seed_same_batch() -> None:
    def run(seed: int) -> list[np.ndarray]:
        engine = make_engine("goofspiel", 8, seed, num_cards=5)
        out = [engine.prizes.copy()]
        for _ in range(12):  # past two autoresets
            result = engine.step(engine.random_actions())
            out += [engine.observations(), result.rewards]
        engine.reset(seed)
        out.append(engine.prizes.copy())
        return out

    first = assert_seeded(run)
    assert np.array_equal(first[0], first[-1])  # reset(seed) replays the batch


@pytest.mark.parametrize(
    ("actions", "error", "message"),
    [
        (np.array([[0, 0], [0, 7]]), IllegalActionError, r"action 7 \(outside 0..4\) for seat 1 in game 1"),
        (np.array([[0, 0], [-1, 0]]), IllegalActionError, r"action -1 .* for seat 0 in game 1"),
        (np.array([[0, 0], [0, 0], [0, 0]]), ValueError, r"shape \(2, 2\).*got shape \(3, 2\)"),
        (np.array([[0.0, 1.0], [1.0, 0.0]]), IllegalActionError, "must be integers"),
        ([[1, 2], [3, 4]], None, None),
    ],
)
def test_bad_actions_change_nothing(actions, error, message) -> None:
    engine = make_engine("goofspiel", 2, 0, num_cards=5)
    engine.step(np.array([[2, 2], [1, 3]]))
    snapshot = (engine.O.copy(), engine.points.copy(), engine.pot.copy(), engine.round.copy(), engine.prizes.copy())
    if error is None:  # a card already played is not in the hand any more
        actions = np.array([[1, 0], [0, 3]])
        error, message = IllegalActionError, r"action 3 \(card 4, not in the hand\) for seat 1 in game 1"
    with pytest.raises(error, match=message):
        engine.step(actions)
    after = (engine.O, engine.points, engine.pot, engine.round, engine.prizes)
    assert all(np.array_equal(x, y) for x, y in zip(snapshot, after))
    assert engine.rng.bit_generator.state == make_engine("goofspiel", 2, 0, num_cards=5).rng.bit_generator.state


def test_bad_options_are_the_single_games_errors() -> None:
    with pytest.raises(ValueError, match="tie_rule must be one of"):
        GoofspielBatch(2, tie_rule="split")
    with pytest.raises(ValueError, match="unknown option"):
        GoofspielBatch(2, cards=5)
    with pytest.raises(ValueError, match="num_envs"):
        GoofspielBatch(0)
    with pytest.raises(ValueError, match="no batched engine"):
        make_engine("chess", 2)


@settings(max_examples=15, deadline=None)
@given(opts=st.sampled_from([{"num_cards": 6}, {"num_cards": 5, "num_players": 3, "prize_order": "random"},
                             {"num_cards": 4, "hands": [[1, 3, 5, 7], [2, 4, 6, 8]], "prize_order": "ascending"}]),
       seed=st.integers(0, 10**6))
def test_the_batched_rudimentary_player_bids_as_the_single_one(opts: dict, seed: int) -> None:
    from parlour.baselines import make_from_spec

    engine = GoofspielBatch(6, seed=seed, autoreset=False, **opts)
    player = make_from_spec("rudimentary", engine.game)
    while not engine.terminated.all():
        bids = engine.opponent_actions("rudimentary")
        for b in range(engine.num_envs):
            state = engine.game_state(b)
            assert [player.act(state.info_state(seat)) for seat in range(engine.num_players)] == bids[b].tolist()
        engine.step(np.where(engine.round[:, None] % 2 == 0, bids, engine.random_actions()))
