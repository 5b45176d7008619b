"""Tides of Time properties (hypothesis): rules invariants over random playouts of every
configuration, the text form's checks, and information hiding (the protocol itself is
checked by test_conformance.py)."""

import numpy as np
import pytest
from helpers import play_first_legal, random_game
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.games.bitmask import cards_of
from parlour.games.tides_of_time import TidesOfTimeGame, score_masks

configs = st.fixed_dictionaries(
    {
        "rounds": st.sampled_from([1, 3]),
        "returns": st.sampled_from(["win_loss", "score_difference"]),
        "zero_ties_win": st.booleans(),
        "maze_counts_sets": st.booleans(),
    }
)


@settings(max_examples=60, deadline=None)
@given(configs, st.integers(0, 2**32 - 1))
def test_invariants(config, seed):
    game = TidesOfTimeGame(**config)
    steps = 0
    for state in random_game(game, seed):
        places = state.hands + state.drafted + state.relics + state.discards
        assert sum(bin(m).count("1") for m in places) + len(state.start[2]) - state.pile_pos == 18
        union = 0
        for m in places:
            assert not union & m  # every card in one place
            union |= m
        for k, (k0, k1) in enumerate(state.kingdoms):
            assert state.scores[k] == score_masks(k0, k1, *game.flags)
        steps += not state.is_terminal()
    assert steps == game.info.max_game_length  # every game has exactly this length


def test_text_rejects_edits():
    game = TidesOfTimeGame()
    state = game.new_initial_state(seed=3)
    play_first_legal(state, 6)
    text = state.to_text()
    score_line = next(line for line in text.splitlines() if line.startswith("r1 score"))
    forged = text.replace(score_line, score_line.replace("r1 score: ", "r1 score: 9"))
    with pytest.raises(ValueError, match="inconsistent tides_of_time position"):
        game.state_from_text(forged)
    with pytest.raises(ValueError, match="malformed tides_of_time position"):
        game.state_from_text("hello")
    with pytest.raises(ValueError, match="each dealt hand has 5 cards"):
        game.state_from_text(text.replace("deal: ", "deal: 1 ", 1))
    deal = text.splitlines()[1]
    with pytest.raises(ValueError, match=r"deck must be a permutation .*\(missing \[\d+\]\)"):
        game.state_from_text(text.replace(deal, deal.rsplit(" ", 1)[0]))
    bad_pick = text.replace("r1 picks: ", "r1 picks: 1-1 ", 1)
    with pytest.raises(ValueError, match="inconsistent tides_of_time position"):
        game.state_from_text(bad_pick)


# --- information hiding ---------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(configs, st.integers(0, 2**32 - 1))
def test_observation_marks_no_unseen_card(config, seed):
    """No plane of a seat's observation marks a card it has not seen (that samples look
    the same to the seat is checked by test_conformance.py)."""
    game = TidesOfTimeGame(**config)
    for state in random_game(game, seed):
        for me in (0, 1):
            info = state.info_state(me)
            unseen = info.unseen
            planes = state.observation_tensor(me)[: 9 * 18].reshape(9, 18)
            for card in cards_of(unseen):
                assert not planes[:, card - 1].any()
            if state.phase == 0 and state.pick == 0 and state.round == 0:
                assert info.opp_hand == 0 and info.opp_hidden == 5 and bin(unseen).count("1") == 13


def test_sample_is_uniform_over_the_opponent_hand():
    game = TidesOfTimeGame(rounds=1)
    info = game.new_initial_state(seed=0).info_state(0)
    rng = np.random.default_rng(1)
    counts = np.zeros(18)
    n = 2000
    for _ in range(n):
        counts[[c - 1 for c in cards_of(info.sample(rng).hands[1])]] += 1
    unseen = [c - 1 for c in cards_of(info.unseen)]
    freq = counts[unseen] / n  # each unseen card is in the opponent's hand with probability 5/13
    assert np.all(np.abs(freq - 5 / 13) < 0.05)
    assert counts[[c - 1 for c in cards_of(info.hand)]].sum() == 0


def test_secret_relic_is_hidden_until_the_discards():
    game = TidesOfTimeGame()
    state = game.new_initial_state(seed=5)
    play_first_legal(state, 5)
    a = state.clone()
    b = state.clone()
    a.apply({0: a.legal_actions(0)[0], 1: a.legal_actions(1)[0]})
    b.apply({0: b.legal_actions(0)[0], 1: b.legal_actions(1)[-1]})
    assert a.info_state(0) == b.info_state(0)
    assert np.array_equal(a.observation_tensor(0), b.observation_tensor(0))
    assert a.info_state(1) != b.info_state(1)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_people_view_shows_no_unseen_card(seed):
    from parlour.games.tides_of_time import CARDS

    game = TidesOfTimeGame()
    for state in random_game(game, seed):
        for me in (0, 1):
            info = state.info_state(me)
            text = str(info)
            for card in cards_of(info.unseen):
                assert CARDS[card - 1].name not in text


def test_sample_is_uniform_over_the_opponent_draw():
    """Round 2, first pick: the opponent's 3 returned cards are known, its 2 drawn cards
    are any 2 of the 6 cards the seat has not seen (the pile order is hidden)."""
    game = TidesOfTimeGame()
    state = game.new_initial_state(seed=2)
    play_first_legal(state, 7)
    info = state.info_state(0)
    assert info.opp_hidden == 2 and bin(info.unseen).count("1") == 6 and bin(info.opp_hand).count("1") == 3
    assert info.passed == 0
    rng = np.random.default_rng(3)
    counts = np.zeros(18)
    n = 3000
    for _ in range(n):
        sample = info.sample(rng)
        assert sample.hands[1] & info.opp_hand == info.opp_hand
        counts[[c - 1 for c in cards_of(sample.hands[1] & ~info.opp_hand)]] += 1
    unseen = [c - 1 for c in cards_of(info.unseen)]
    assert np.all(np.abs(counts[unseen] / n - 2 / 6) < 0.04) and counts.sum() == 2 * n
    play_first_legal(state, 1)
    after = state.info_state(0)
    assert after.opp_hidden == 0 and after.passed == state.hands[1]
