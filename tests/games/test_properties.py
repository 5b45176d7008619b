"""Goofspiel and sticks rules invariants (hypothesis) over random playouts of every
configuration; the protocol itself is checked by test_conformance.py."""

from helpers import random_game
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


@settings(max_examples=150, deadline=None)
@given(goofspiel_configs, st.integers(0, 2**32 - 1))
def test_goofspiel_invariants(config, seed):
    game = GoofspielGame(**config)
    n, players = game.num_cards, game.num_players
    rounds = 0
    for state in random_game(game, seed):
        # cards conserved: hand + cards bid = the starting hand, each card bid at most once
        for seat in range(players):
            played = [bids[seat] for bids in state.bids]
            assert len(set(played)) == len(played)
            hand = state.legal_actions(seat) if not state.is_terminal() else []
            assert sorted(hand + played) == list(range(n)) or state.is_terminal()
        assert len(state.bids) == state.round == rounds
        rounds += 1
    assert state.round == n and state.is_terminal()
    # prizes won + prizes lost to ties = all prizes
    if game.discard_ties:
        lost = sum(state.prizes[r] for r, w in enumerate(state.winners) if w < 0)
    else:
        lost = state.pot
    assert sum(state.points) + lost == game.total_prize


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 60), st.integers(1, 6), st.booleans(), st.integers(0, 2**32 - 1))
def test_sticks_invariants(num_sticks, max_take, misere, seed):
    game = SticksGame(num_sticks=num_sticks, max_take=max_take, misere=misere)
    previous = None
    for state in random_game(game, seed):
        assert 0 <= state.sticks <= num_sticks
        if previous is not None:
            assert 1 <= previous - state.sticks <= max_take
        previous = state.sticks
        copy = state.clone()
        if not copy.is_terminal():
            copy.apply(0)
            assert copy.sticks == state.sticks - 1
    assert state.is_terminal() and sorted(state.returns().tolist()) == [-1.0, 1.0]
