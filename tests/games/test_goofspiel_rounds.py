"""Goofspiel's round settlement: ``settle_round`` (which the information state's
``rounds()`` and its text use) agrees with the copy inlined in ``apply``."""

import numpy as np
import pytest

from parlour.games.goofspiel import GoofspielGame, settle_round


@pytest.mark.parametrize("tie_rule", ["carry", "discard"])
@pytest.mark.parametrize("players", [2, 3])
def test_settle_round_agrees_with_apply(tie_rule, players):
    game = GoofspielGame(num_cards=6, num_players=players, tie_rule=tie_rule)
    rng = np.random.default_rng(7)
    ties = 0
    for seed in range(60):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            pot, points, prize = state.pot, list(state.points), state.current_prize
            state.apply({p: int(rng.choice(state.legal_actions(p))) for p in range(players)})
            winner = state.winners[-1]
            ties += winner < 0
            won, carried = settle_round(pot, prize, winner, tie_rule == "discard")
            assert state.pot == carried
            gained = [after - before for after, before in zip(state.points, points)]
            assert gained == [won if seat == winner else 0 for seat in range(players)]
        info = state.info_state(0)
        stakes = [stake for _, stake, _, _ in info.rounds()]
        assert sum(stakes[r] for r, w in enumerate(state.winners) if w >= 0) == sum(state.points)
    assert ties > 10  # the ties, where carry and discard differ, were exercised


def test_info_state_text_spells_out_the_rounds():
    game = GoofspielGame(num_cards=3, prize_order="descending", tie_rule="carry")
    state = game.new_initial_state(0)
    state.apply({0: 1, 1: 1})  # prize 3: a tie, carried
    state.apply({0: 2, 1: 0})  # prize 2 + 3 carried: player_0 takes 5
    text = str(state.info_state(1))
    assert "round 3 of 3: prize 1" in text
    assert "1. prize 3: bids player_0 2, you 2 -> tie: 3 carried over" in text
    assert "2. prize 2: bids player_0 3, you 1 -> player_0 takes 5" in text
    assert "points: player_0 5 | you 0" in text
