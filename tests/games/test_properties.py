"""Property tests (hypothesis): rules invariants over random playouts of every config."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.games.goofspiel import GoofspielGame
from parlour.games.sticks import SticksGame

goofspiel_configs = st.fixed_dictionaries(
    {
        "num_cards": st.integers(1, 9),
        "num_players": st.integers(2, 4),
        "prize_order": st.sampled_from(["random", "descending", "ascending"]),
        "tie_rule": st.sampled_from(["carry", "discard"]),
        "returns": st.sampled_from(["win_loss", "point_difference", "total_points"]),
        "imperfect_info": st.booleans(),
    }
)


def random_playout(game, seed):
    """Yield every state of one random game (the start included)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(rng)
    yield state
    while not state.is_terminal():
        players = state.current_players()
        if len(players) == 1:
            state.apply(int(rng.choice(state.legal_actions(players[0]))))
        else:
            state.apply({p: int(rng.choice(state.legal_actions(p))) for p in players})
        yield state


@settings(max_examples=150, deadline=None)
@given(goofspiel_configs, st.integers(0, 2**32 - 1))
def test_goofspiel_invariants(config, seed):
    game = GoofspielGame(**config)
    n, players = game.num_cards, game.num_players
    rounds = 0
    for state in random_playout(game, seed):
        # cards conserved: hand + cards bid = the starting hand, each card bid at most once
        for seat in range(players):
            played = [bids[seat] for bids in state.bids]
            assert len(set(played)) == len(played)
            hand = state.legal_actions(seat) if not state.is_terminal() else []
            assert sorted(hand + played) == list(range(n)) or state.is_terminal()
        assert len(state.bids) == state.round == rounds
        rounds += 1
    assert state.round == n and state.is_terminal() and state.current_players() == ()
    # prizes won + prizes lost to ties = all prizes
    if game.discard_ties:
        lost = sum(state.prizes[r] for r, w in enumerate(state.winners) if w < 0)
    else:
        lost = state.pot
    assert sum(state.points) + lost == game.total_prize
    returns = state.returns()
    assert returns.shape == (players,)
    if game.info.zero_sum:
        assert abs(returns.sum()) < 1e-9


@settings(max_examples=100, deadline=None)
@given(goofspiel_configs, st.integers(0, 2**32 - 1))
def test_goofspiel_text_round_trips_every_reachable_state(config, seed):
    game = GoofspielGame(**config)
    for state in random_playout(game, seed):
        text = state.to_text()
        parsed = game.state_from_text(text)
        assert parsed.to_text() == text
        assert parsed.prizes == state.prizes and parsed.points == state.points
        assert parsed.bids == state.bids and parsed.hands == state.hands and parsed.pot == state.pot
        for seat in range(game.num_players):
            assert parsed.info_state(seat) == state.info_state(seat)
            assert np.array_equal(parsed.observation_tensor(seat), state.observation_tensor(seat))


@settings(max_examples=100, deadline=None)
@given(goofspiel_configs, st.integers(0, 2**32 - 1))
def test_goofspiel_clone_is_independent(config, seed):
    game = GoofspielGame(**config)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(rng)
    if state.is_terminal():
        return
    state.apply({p: state.legal_actions(p)[0] for p in state.current_players()})
    copy = state.clone()
    text = state.to_text()
    while not copy.is_terminal():
        copy.apply({p: int(rng.choice(copy.legal_actions(p))) for p in copy.current_players()})
    assert state.to_text() == text
    assert copy != state or game.num_cards == 1


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 60), st.integers(1, 6), st.booleans(), st.integers(0, 2**32 - 1))
def test_sticks_invariants_and_round_trip(num_sticks, max_take, misere, seed):
    game = SticksGame(num_sticks=num_sticks, max_take=max_take, misere=misere)
    previous = None
    for state in random_playout(game, seed):
        assert 0 <= state.sticks <= num_sticks
        if previous is not None:
            assert 1 <= previous - state.sticks <= max_take
        previous = state.sticks
        assert game.state_from_text(state.to_text()) == state
        copy = state.clone()
        if not copy.is_terminal():
            copy.apply(0)
            assert copy.sticks == state.sticks - 1
    assert state.is_terminal() and sorted(state.returns().tolist()) == [-1.0, 1.0]
