"""Goofspiel rules: the rules file's test vectors, returns, options and bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour import IllegalActionError
from parlour.games.goofspiel import GoofspielGame, points_to_returns


def play(game, bids, **start):
    """Play rounds given as card values per seat: ``bids[seat][round]``."""
    state = game.new_initial_state(**start)
    for round_bids in zip(*bids):
        state.apply({seat: card - 1 for seat, card in enumerate(round_bids)})
    return state


def test_vector_discard_3_2_1():
    """N=3 descending, discard: P0 3,2,1 vs P1 2,3,1 -> points 3:2."""
    for returns, expected in [("win_loss", [1, -1]), ("point_difference", [1, -1]), ("total_points", [3, 2])]:
        game = GoofspielGame(num_cards=3, prize_order="descending", tie_rule="discard", returns=returns)
        state = play(game, [[3, 2, 1], [2, 3, 1]])
        assert state.is_terminal()
        assert state.points == [3, 2]
        assert state.returns().tolist() == expected


def test_vector_carry_last_pot_lost():
    game = GoofspielGame(num_cards=3, prize_order="descending", tie_rule="carry")
    state = play(game, [[3, 2, 1], [2, 3, 1]])
    assert state.points == [3, 2]
    assert state.pot == 1  # the tied last prize stays in the middle, lost to everyone
    assert state.returns().tolist() == [1, -1]


def test_vector_carry_pot_taken():
    """Round 1 tied (pot 3), round 2 P0 takes 3+2, round 3 P1 takes 1 -> 5:1; discard -> 2:1."""
    carry = play(GoofspielGame(num_cards=3, prize_order="descending"), [[1, 3, 2], [1, 2, 3]])
    assert carry.points == [5, 1]
    assert carry.winners == [-1, 0, 1]
    discard = play(GoofspielGame(num_cards=3, prize_order="descending", tie_rule="discard"), [[1, 3, 2], [1, 2, 3]])
    assert discard.points == [2, 1]


@pytest.mark.parametrize("order", ["descending", "ascending", "random"])
def test_vector_seed_dominating_hands(order):
    """Seed: hands [4,5,6] vs [1,2,3]: the first player wins every round whatever the order."""
    game = GoofspielGame(hands=[[4, 5, 6], [1, 2, 3]], prize_order=order)
    assert game.num_cards == 3 and game.num_actions == 6
    rng = np.random.default_rng(7)
    for _ in range(50):
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            state.apply({p: int(rng.choice(state.legal_actions(p))) for p in (0, 1)})
        assert state.winners == [0, 0, 0]
        assert state.points == [6, 0]
        assert state.returns().tolist() == [1, -1]


def test_three_player_tie_for_highest_only():
    """With three players only a tie for the highest bid matters."""
    game = GoofspielGame(num_cards=3, num_players=3, prize_order="descending", tie_rule="discard")
    state = play(game, [[3, 1, 2], [2, 1, 3], [2, 3, 1]])
    # round 1: 3 beats 2,2 -> P0 takes 3; round 2: 1,1,3 -> P2 takes 2; round 3: 2,3,1 -> P1 takes 1
    assert state.winners == [0, 2, 1]
    assert state.points == [3, 1, 2]
    state = play(game, [[3, 2, 1], [3, 1, 2], [1, 2, 3]])
    assert state.winners == [-1, -1, 2]  # 3,3 tie; 2,2 tie for highest; 3 wins
    assert state.points == [0, 0, 1]


def test_returns_many_players():
    assert points_to_returns([5, 5, 1], "win_loss").tolist() == [0.5, 0.5, -1.0]
    assert points_to_returns([6, 0, 0], "win_loss").tolist() == [1.0, -0.5, -0.5]
    assert points_to_returns([2, 2, 2], "win_loss").tolist() == [0.0, 0.0, 0.0]
    assert points_to_returns([6, 3, 0], "point_difference").tolist() == [4.5, 0.0, -4.5]
    assert points_to_returns([6, 3, 0], "total_points").tolist() == [6, 3, 0]
    assert points_to_returns([4, 4], "win_loss").tolist() == [0.0, 0.0]


def test_returns_zero_before_the_end():
    state = GoofspielGame(num_cards=3).new_initial_state(0)
    state.apply({0: 2, 1: 0})
    assert state.returns().tolist() == [0.0, 0.0]


def test_prize_orders():
    assert GoofspielGame(num_cards=4, prize_order="descending").new_initial_state().prizes == (4, 3, 2, 1)
    assert GoofspielGame(num_cards=4, prize_order="ascending").new_initial_state().prizes == (1, 2, 3, 4)
    assert GoofspielGame(num_cards=4, prize_order=[2, 4, 1, 3]).new_initial_state().prizes == (2, 4, 1, 3)
    game = GoofspielGame(num_cards=13)
    a, b = game.new_initial_state(5).prizes, game.new_initial_state(5).prizes
    assert a == b and sorted(a) == list(range(1, 14))
    assert len({game.new_initial_state(s).prizes for s in range(20)}) > 15


def test_fixed_start_options():
    game = GoofspielGame(num_cards=3)
    state = game.new_initial_state(prizes=[1, 3, 2], hands=[[1, 2, 3], [2, 3, 1]])
    assert state.prizes == (1, 3, 2)
    assert state.legal_actions(0) == [0, 1, 2]
    with pytest.raises(ValueError, match="permutation of 1..3"):
        game.new_initial_state(prizes=[1, 1, 2])
    with pytest.raises(ValueError, match="distinct cards"):
        game.new_initial_state(hands=[[1, 1, 2], [1, 2, 3]])
    with pytest.raises(ValueError, match="between 1 and 3"):
        game.new_initial_state(hands=[[1, 2, 4], [1, 2, 3]])
    with pytest.raises(ValueError, match="unknown start option"):
        game.new_initial_state(deck=[1, 2, 3])


def test_large_game_works():
    """The seed mentions 200 cards: bitmask hands beyond 64 bits must work."""
    game = GoofspielGame(num_cards=200, prize_order="descending")
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        state.apply({p: int(rng.choice(state.legal_actions(p))) for p in (0, 1)})
    assert sum(state.points) + state.pot <= game.total_prize
    assert state.observation_tensor(0).shape == game.observation_shape


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"num_cards": 0}, "num_cards must be between 1 and 1000, got 0"),
        ({"num_cards": 2.5}, "num_cards must be an integer"),
        ({"num_players": 1}, "num_players must be between 2 and 10"),
        ({"prize_order": "shuffled"}, "prize_order must be one of"),
        ({"num_cards": 3, "prize_order": [1, 2]}, "permutation of 1..3"),
        ({"tie_rule": "split"}, "tie_rule must be one of"),
        ({"returns": "score"}, "returns must be one of"),
        ({"imperfect_info": "yes"}, "imperfect_info must be True or False"),
        ({"hands": [[1, 2], [1, 2, 3]]}, "distinct cards"),
        ({"hands": [[1, 2, 3]], "num_players": 2}, "one list of cards per player"),
        ({"hands": "123"}, "hands must be a list"),
        ({"hands": [[0, 1, 2], [1, 2, 3]]}, "must be between 1 and 1000"),
        ({"num_card": 3}, r"unknown option\(s\) \['num_card'\]"),
    ],
)
def test_bad_configuration(config, message):
    with pytest.raises(ValueError, match=message):
        GoofspielGame(**config)


def test_illegal_actions_raise_and_change_nothing():
    game = GoofspielGame(num_cards=3, prize_order="descending")
    state = game.new_initial_state()
    state.apply({0: 2, 1: 0})
    before = state.to_text()
    bad = [
        ({0: 2, 1: 1}, "not in the hand of seat 0"),  # card 3 already played
        ({0: 0, 1: 5}, "not in the hand of seat 1"),
        ({0: 0, 1: -1}, "not in the hand of seat 1"),
        ({0: 0}, "every seat bids"),
        ({0: 0, 1: 1, 2: 1}, "every seat bids"),
        (0, "simultaneous"),
        ({0: 0, 1: "x"}, "not an integer"),
        ({0: 0.5, 1: 1}, "not an integer"),
        ({0: True, 1: 1}, "not an integer"),
    ]
    for action, message in bad:
        with pytest.raises(IllegalActionError, match=message) as info:
            state.apply(action)
        assert state.to_text() == before, action
    assert info.value.player is None or info.value.player in (0, 1)
    state.apply({0: np.int64(0), 1: np.int32(1)})  # numpy integers are fine
    state.apply({0: 1, 1: 2})
    assert state.is_terminal()
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply({0: 0, 1: 0})


def test_illegal_action_error_lists_legal_actions():
    state = GoofspielGame(num_cards=4).new_initial_state(0)
    state.apply({0: 3, 1: 3})
    with pytest.raises(IllegalActionError) as info:
        state.apply({0: 3, 1: 0})
    assert info.value.legal == [0, 1, 2]
    assert info.value.player == 0
    assert "legal actions are [0, 1, 2]" in str(info.value)


def test_action_text():
    state = GoofspielGame(num_cards=5).new_initial_state(0)
    assert state.action_to_text(4) == "5"
    assert state.text_to_action(" 5 ") == 4
    for bad in ["0", "6", "five", ""]:
        with pytest.raises(ValueError, match="card value 1..5"):
            state.text_to_action(bad)


def test_text_form_example_and_malformed():
    game = GoofspielGame(num_cards=3, prize_order="descending")
    state = play(game, [[1], [1]])
    assert state.to_text() == (
        "round 2/3\n"
        "prizes: 3 [2] 1\n"
        "pot: 3\n"
        "player_0: hand 2 3 | bids 1 | points 0\n"
        "player_1: hand 2 3 | bids 1 | points 0"
    )
    assert game.state_from_text(state.to_text()) == state
    for bad in [
        "",
        "round 2/3",
        state.to_text().replace("pot: 3", "pot: 4"),  # contradicts the bids
        state.to_text().replace("bids 1 |", "bids 1 2 |", 1),
        state.to_text().replace("prizes: 3 [2] 1", "prizes: 3 [2] 2"),
        state.to_text().replace("player_1", "player_7"),
    ]:
        with pytest.raises(ValueError, match="goofspiel position|permutation|same number|distinct cards"):
            game.state_from_text(bad)


def test_info_state_hides_future_prizes_and_hidden_bids():
    game = GoofspielGame(num_cards=5, imperfect_info=True)
    state = game.new_initial_state(3)
    state.apply({0: 4, 1: 0})
    info = state.info_state(0)
    assert info.prizes_seen == state.prizes[:2]
    assert info.bids == ((4, None),)
    assert info.legal_actions() == state.legal_actions(0)
    rng = np.random.default_rng(0)
    samples = [info.sample(rng) for _ in range(200)]
    for sample in samples:
        assert sample.info_state(0) == info
    # the opponent's bid is any card below 5; the next prizes are shuffled
    assert {s.bids[0][1] for s in samples} == {0, 1, 2, 3}
    assert len({s.prizes for s in samples}) > 1
    with pytest.raises(ValueError, match="no seat 2"):
        state.info_state(2)


@pytest.mark.parametrize("options", [{"num_cards": 6}, {"num_cards": 5, "num_players": 3},
                                     {"num_cards": 6, "prize_order": "descending", "tie_rule": "discard"}])
def test_a_sample_with_public_bids_is_the_replayed_history(options):
    """With every bid public, ``sample`` builds the state from the history's outcome
    instead of replaying it: the same state, field by field, as the replay of the same
    prizes, and it plays on identically (its observations too)."""
    game = GoofspielGame(**options)
    rng = np.random.default_rng(5)
    for game_seed in range(6):
        state = game.new_initial_state(game_seed)
        while not state.is_terminal():
            for seat in range(game.num_players):
                info = state.info_state(seat)
                built = info.sample(np.random.default_rng(game_seed))
                replayed = game.state_from_deal(built.prizes, list(info.start_hands))
                for bids in info.bids:
                    replayed.apply(dict(enumerate(bids)))
                for name in ("prizes", "round", "hands", "start_hands", "pot", "points", "bids", "winners"):
                    assert getattr(built, name) == getattr(replayed, name), name
                assert built.info_state(seat) == info
                if not built.is_terminal():
                    joint = {p: built.legal_actions(p)[-1] for p in range(game.num_players)}
                    built.apply(joint)
                    replayed.apply(joint)
                    assert built.to_text() == replayed.to_text()
                    assert np.array_equal(built.observation_tensor(seat), replayed.observation_tensor(seat))
            state.apply({p: int(rng.choice(state.legal_actions(p))) for p in range(game.num_players)})


def test_hidden_bid_sampling_is_uniform():
    """Seat 0 won round 1 with card 3: the hidden bid was 1 or 2, equally likely."""
    game = GoofspielGame(num_cards=3, prize_order="descending", imperfect_info=True)
    state = game.new_initial_state()
    state.apply({0: 2, 1: 0})  # 3 beats 1
    info = state.info_state(0)
    rng = np.random.default_rng(1)
    counts = {}
    for _ in range(3000):
        bid = info.sample(rng).bids[0][1]
        counts[bid] = counts.get(bid, 0) + 1
    assert set(counts) == {0, 1}
    assert abs(counts[0] - counts[1]) < 250


def test_three_player_hidden_bids_sample_consistently():
    game = GoofspielGame(num_cards=4, num_players=3, imperfect_info=True)
    state = game.new_initial_state(0)
    rng = np.random.default_rng(2)
    for _ in range(3):
        state.apply({p: int(rng.choice(state.legal_actions(p))) for p in range(3)})
    for seat in range(3):
        info = state.info_state(seat)
        for _ in range(20):
            assert info.sample(rng).info_state(seat) == info


def test_observation_layout():
    game = GoofspielGame(num_cards=3, prize_order="descending")
    state = game.new_initial_state()
    state.apply({0: 2, 1: 0})  # P0 takes 3
    obs = state.observation_tensor(1)
    assert obs.dtype == np.float32 and obs.shape == (2 * 3 + 6 + 2 + 2 + 3 * 6,)
    assert obs[:3].tolist() == [0, 1, 1]  # own hand (seat 1 played 1)
    assert obs[3:6].tolist() == [1, 1, 0]  # seat 0's hand (played 3)
    assert obs[6:9].tolist() == [0, 1, 0]  # current prize 2
    assert obs[9:12].tolist() == [1, 0, 0]  # prize 1 still to come
    assert obs[12] == 0  # pot
    assert obs[13:15].tolist() == pytest.approx([0, 3 / 6])  # own points first
    assert obs[15] == pytest.approx(1 / 3)
    # history, round 1: own bid card 1, seat 0's bid card 3, prize 3, winner = the next seat
    assert obs[16:22].tolist() == pytest.approx([1 / 3, 1, 1, 0, 0, 1])
    assert not obs[22:].any()
    hidden_obs = GoofspielGame(num_cards=3, prize_order="descending", imperfect_info=True).new_initial_state()
    hidden_obs.apply({0: 2, 1: 0})
    assert hidden_obs.observation_tensor(1)[16:22].tolist() == pytest.approx([1 / 3, 0, 1, 0, 0, 1])
    hidden = GoofspielGame(num_cards=3, imperfect_info=True).new_initial_state(0)
    assert hidden.observation_tensor(0)[3:6].tolist() == [0, 0, 0]


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 4),
    cards=st.integers(1, 7),
    order=st.sampled_from(["random", "descending", "ascending"]),
    tie=st.sampled_from(["carry", "discard"]),
    hidden=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_observations_kept_up_to_date_equal_the_ones_built_afresh(players, cards, order, tie, hidden, seed):
    """``apply`` updates the observations already built in place; at every step they equal
    a fresh build, for seats observed from the start and seats first observed later; a
    clone starts without them and a mutated copy does not reach the state."""
    game = GoofspielGame(num_players=players, num_cards=cards, prize_order=order, tie_rule=tie, imperfect_info=hidden)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(rng)
    state.observation_tensor(0)[:] = 7.0  # a copy: changing it changes nothing
    while True:
        for seat in range(players):
            if seat == 0 or rng.random() < 0.5:
                assert np.array_equal(state.observation_tensor(seat), state._build_observation(seat)), seat
        clone = state.clone()
        assert np.array_equal(clone.observation_tensor(players - 1), state._build_observation(players - 1))
        if state.is_terminal():
            break
        state.apply({seat: int(rng.choice(state.legal_actions(seat))) for seat in range(players)})


def test_observing_a_seat_that_does_not_exist_is_an_error():
    state = GoofspielGame(num_cards=3).new_initial_state(0)
    for seat in (-1, 2):
        with pytest.raises(ValueError, match=f"no seat {seat}"):
            state.observation_tensor(seat)


def test_random_prize_order_is_the_seeds_permutation():
    """``prize_sequence`` shuffles a list (cheaper) but must draw exactly what
    ``rng.permutation(n) + 1`` drew, leaving the generator in the same state, so that a
    seed gives the same games as before."""
    for n in (1, 2, 5, 13, 40):
        game = GoofspielGame(num_cards=n)
        for seed in range(30):
            ours, reference = np.random.default_rng(seed), np.random.default_rng(seed)
            for _ in range(4):
                assert game.new_initial_state(ours).prizes == tuple((reference.permutation(n) + 1).tolist())
            assert ours.bit_generator.state == reference.bit_generator.state


def test_two_player_returns_are_fresh_arrays():
    for returns, points in (("win_loss", (9, 3)), ("win_loss", (3, 9)), ("win_loss", (6, 6)), ("point_difference", (9, 3))):
        game = GoofspielGame(num_cards=3, prize_order="descending", returns=returns)
        state = game.new_initial_state()
        state.points = list(points)
        state.round = 3
        first = state.returns()
        assert first.tolist() == points_to_returns(list(points), returns).tolist() and first.dtype == np.float64
        first[:] = 7  # a caller may change its copy
        assert state.returns().tolist() == points_to_returns(list(points), returns).tolist()


def test_an_observed_state_pickles_and_rebuilds_its_observations():
    import pickle

    state = GoofspielGame(num_cards=4).new_initial_state(1)
    before = state.observation_tensor(0)
    state.apply({0: 0, 1: 1})
    copy = pickle.loads(pickle.dumps(state))
    assert copy == state and np.array_equal(copy.observation_tensor(0), state.observation_tensor(0))
    assert not np.array_equal(before, copy.observation_tensor(0))
