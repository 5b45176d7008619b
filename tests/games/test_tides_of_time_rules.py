"""Tides of Time rules: the rules file's test vectors, a vector for every card and
every tie rule, the round and relic structure, card accounting and bad input."""

import numpy as np
import pytest
from helpers import play_first_legal

from parlour import IllegalActionError
from parlour.games.bitmask import cards_of
from parlour.games.tides_of_time import (
    CARDS,
    SUITS,
    TidesOfTimeGame,
    score_breakdown,
    score_round,
)

DECK = [15, 6, 10, 11, 18, 2, 5, 7, 8, 14, 1, 3, 4, 9, 12, 13, 16, 17]


def points(a, b=(), **flags):
    """Per-card points of kingdom ``a`` against ``b``."""
    return score_breakdown(list(a), list(b), **flags)[0]


# --- the rules file's vectors ---------------------------------------------------------


def test_vector_1_seed_example():
    assert score_round([15, 6, 10, 11, 18], [2, 5, 7, 8, 14]) == (27, 9)
    a, b = score_breakdown([15, 6, 10, 11, 18], [2, 5, 7, 8, 14])
    assert a == {6: 7, 10: 7, 11: 5, 15: 0, 18: 8}
    assert b == {2: 0, 5: 6, 7: 0, 8: 0, 14: 3}


def test_vector_2_molehill_before_roof():
    assert score_round([17, 16, 2, 3, 6], [9, 1, 8, 4, 11]) == (27, 16)
    a, b = score_breakdown([17, 16, 2, 3, 6], [9, 1, 8, 4, 11])
    assert a == {2: 6, 3: 6, 6: 7, 16: 8, 17: 0}
    assert b == {1: 6, 4: 3, 8: 0, 9: 7, 11: 0}


def test_the_cards_are_the_seeds_deck():
    assert [c.number for c in CARDS] == list(range(1, 19))
    assert sum(c.suit is None for c in CARDS) == 3
    for suit in SUITS:
        assert sum(c.suit == suit for c in CARDS) == 3
    assert CARDS[14].name == "The King's Nest" and CARDS[11].ability.startswith("9 VP for each set")


# --- a vector for every card ------------------------------------------------------------


@pytest.mark.parametrize(
    "kingdom, card, expected",
    [
        ([1, 4, 7, 11], 1, 9),  # 3 per Temple, three Temples
        ([2, 3, 8, 10], 2, 6),  # 3 per Library
        ([3, 5, 6], 3, 6),  # 3 per Garden
        ([4, 2, 9], 4, 6),  # 3 per Palace
        ([5, 1, 8, 14], 5, 9),  # 3 per Stronghold
        ([1], 1, 0),  # no Temple
    ],
)
def test_for_each_cards(kingdom, card, expected):
    assert points(kingdom)[card] == expected


def test_set_cards_count_complete_sets():
    assert points([11, 3, 10, 5, 6])[11] == 10  # two Library + Garden sets
    assert points([11, 3, 10])[11] == 0  # Libraries but no Garden
    assert points([12, 2, 1, 4, 9, 8])[12] == 9  # P2 S2 T1: one set
    assert points([12, 2, 9, 1, 8, 4, 7])[12] == 18  # P2 S2 T2: two sets


@pytest.mark.parametrize(
    "a, b, card, expected",
    [
        ([6, 2], [9], 6, 0),  # Palaces 1 v 1: a tie, no King's Nest
        ([6, 2, 9], [15], 6, 7),  # 2 v 1
        ([6, 15], [2], 6, 7),  # 1 v 1 won with the King's Nest
        ([7, 5], [], 7, 7),  # Gardens 1 v 0
        ([8, 3], [10, 12], 8, 0),  # Libraries 1 v 2
        ([9, 1, 8], [14], 9, 7),  # Strongholds 2 v 1
        ([10, 4], [7, 11], 10, 0),  # Temples 1 v 2
        ([10, 4, 11], [7], 10, 7),  # Temples 2 v 1
    ],
)
def test_majority_cards(a, b, card, expected):
    assert points(a, b)[card] == expected


def test_maze_needs_all_five_suits_and_scores_once_unless_flagged():
    assert points([13, 2, 3, 4, 1])[13] == 13
    assert points([13, 2, 3, 4])[13] == 0  # no Stronghold
    two_sets = [13, 5, 2, 9, 3, 10, 4, 11, 1, 8]
    assert points(two_sets)[13] == 13
    assert points(two_sets, maze_counts_sets=True)[13] == 26
    assert points([13, 2, 3, 4], maze_counts_sets=True)[13] == 0


def test_eye_of_the_north_counts_missing_suits():
    assert points([14])[14] == 12  # only a Stronghold: four suits missing
    assert points([14, 2, 3, 5, 4])[14] == 0
    assert points([14, 17, 16, 18])[14] == 12  # unsuited cards are no suit


def test_kings_nest_and_roof_score_nothing_themselves():
    assert points([15, 17])[15] == 0 and points([15, 17])[17] == 0


def test_molehill_majority_of_single_card_suits():
    assert points([16, 2, 3], [9, 12, 4])[16] == 0  # 2 singles v 3
    assert points([16, 2, 3, 4], [9, 12])[16] == 8  # 3 v 2
    assert points([16, 15, 3], [2, 5])[16] == 8  # 2 v 2 won with the King's Nest
    assert points([16, 3, 5], [2, 4])[16] == 0  # 2 v 2, no King's Nest


def test_molehill_uses_counts_before_the_roof():
    # A: P1 L1 G1 (three singles); after the Roof they are 2 each, but the Molehill has already scored
    assert points([16, 17, 2, 3, 6], [9, 1, 8, 4, 11])[16] == 8


def test_roof_doubles_the_most_numerous_suits_for_both_players():
    assert points([17, 2, 3, 1])[2] == 6  # P1 L1 S1 all doubled: 3 x 2 Libraries
    assert points([17])[17] == 0 and score_round([17], []) == (0, 0)  # nothing to double
    # the opponent's majority compares with the doubled count: B's Gardens 2 v A's 1 -> 2
    assert points([7, 5, 6], [13])[7] == 7
    assert points([7, 5, 6], [13, 17])[7] == 0
    # only the largest count doubles: P2 G1 -> P4 G1, so 3 per Palace gives 12, per Garden 3
    assert points([17, 2, 9, 5, 4, 3])[4] == 12 and points([17, 2, 9, 5, 4, 3])[3] == 3


def test_sapphire_port_highest_single_card():
    assert points([18, 5, 1, 8], [4, 2])[18] == 8  # best 6 v 3
    assert points([18, 5, 1], [4, 2])[18] == 0  # 3 v 3 tie, no King's Nest (the seed's code gave 8)
    assert points([18, 5, 1, 15], [4, 2])[18] == 8  # 3 v 3 with the King's Nest
    assert points([18, 5, 1], [4, 2, 9])[18] == 0  # 3 v 6


def test_sapphire_port_counts_the_molehill():
    a, b = score_breakdown([18, 16, 2], [1, 8, 5, 6])  # B: S2 G2, no singles; Gods' Baths 6
    assert a == {2: 0, 16: 8, 18: 8} and max(b.values()) == 6


def test_sapphire_port_ties_with_and_without_the_kings_nest():
    # 0 v 0 (B's Molehill loses 0 singles v 1): a tie that only the King's Nest wins
    assert score_round([18, 15], [16]) == (8, 0)
    assert score_round([18, 15], [16], zero_ties_win=False) == (0, 0)
    # 7 v 7 (a majority each): won with the King's Nest, lost without it
    assert score_round([18, 15, 6, 2], [10, 4]) == (15, 7)
    assert score_round([18, 9, 6, 2], [10, 4]) == (7, 7)


@pytest.mark.parametrize("flag, expected", [(True, 7), (False, 0)])
def test_zero_ties_majority(flag, expected):
    assert points([7, 15], [], zero_ties_win=flag)[7] == expected  # Gardens 0 v 0


@pytest.mark.parametrize("flag, expected", [(True, 8), (False, 0)])
def test_zero_ties_molehill(flag, expected):
    assert points([16, 15, 2], [], zero_ties_win=flag)[16] == expected  # 0 singles v 0


@pytest.mark.parametrize("flag, expected", [(True, 8), (False, 0)])
def test_zero_ties_sapphire(flag, expected):
    assert points([18, 15], [], zero_ties_win=flag)[18] == expected  # best 0 v 0


def test_zero_tie_without_nest_never_scores():
    assert points([7], [], zero_ties_win=True)[7] == 0
    assert points([18], [])[18] == 0


def test_empty_and_large_kingdoms():
    assert score_round([], []) == (0, 0)
    everything = list(range(1, 19))
    total, _ = score_round(everything, [])
    assert total == sum(points(everything).values()) > 0


def test_score_round_rejects_bad_kingdoms():
    with pytest.raises(ValueError, match=r"kingdoms must be disjoint; both hold \[5\]"):
        score_round([1, 5], [5, 6])
    with pytest.raises(ValueError, match="card in kingdom_a must be between 1 and 18, got 19"):
        score_round([19], [])
    with pytest.raises(ValueError, match="kingdom_b holds a card twice"):
        score_round([], [3, 3])
    with pytest.raises(ValueError, match="zero_ties_win must be True or False"):
        score_round([], [], zero_ties_win="yes")


# --- rounds, relics, accounting ----------------------------------------------------------


def play(state, rng):
    while not state.is_terminal():
        state.apply({p: int(rng.choice(state.legal_actions(p))) for p in (0, 1)})
    return state


def test_deck_deals_five_each_then_the_pile():
    state = TidesOfTimeGame().new_initial_state(deck=DECK)
    assert cards_of(state.hands[0]) == [6, 10, 11, 15, 18]
    assert cards_of(state.hands[1]) == [2, 5, 7, 8, 14]
    assert state.start[2] == (1, 3, 4, 9, 12, 13, 16, 17)


def test_seed_game_one_round_scores_the_seed_example():
    game = TidesOfTimeGame(rounds=1, returns="score_difference")
    state = game.new_initial_state(deck=DECK)
    # player_0 ends with {15, 6, 10, 11, 18}, player_1 with {2, 5, 7, 8, 14}: picks alternate between hands
    plan0 = [15, 2, 6, 5, 10]  # from A, then B's, ...
    plan1 = [7, 11, 8, 18, 14]
    hands_seen = []
    for a, b in zip(plan0, plan1):
        hands_seen.append((cards_of(state.hands[0]), cards_of(state.hands[1])))
        state.apply({0: a - 1, 1: b - 1})
    assert hands_seen[1] == ([2, 5, 8, 14], [6, 10, 11, 18])  # the hands were exchanged
    assert state.is_terminal() and state.scores == [score_round(cards_of(state.kingdoms[0][0]), cards_of(state.kingdoms[0][1]))]
    k0, k1 = state.kingdoms[0]
    assert state.returns().tolist() == [state.scores[0][0] - state.scores[0][1], state.scores[0][1] - state.scores[0][0]]
    assert len(cards_of(k0)) == len(cards_of(k1)) == 5


def test_last_pick_is_forced_but_a_step():
    state = TidesOfTimeGame(rounds=1).new_initial_state(seed=0)
    play_first_legal(state, 4)
    assert len(state.legal_actions(0)) == len(state.legal_actions(1)) == 1
    assert state.current_players() == (0, 1) and not state.is_terminal()


@pytest.mark.parametrize("seed", range(20))
def test_three_round_card_accounting(seed):
    rng = np.random.default_rng(seed)
    state = TidesOfTimeGame().new_initial_state(rng)
    piles = []
    while not state.is_terminal():
        if state.phase == 0 and state.pick == 0:
            piles.append(len(state.start[2]) - state.pile_pos)
            assert bin(state.hands[0]).count("1") == bin(state.hands[1]).count("1") == 5
            relics = sum(bin(m).count("1") for m in state.relics)
            discards = sum(bin(m).count("1") for m in state.discards)
            assert relics == discards == 2 * state.round
            # kingdom sizes at scoring: 5, 6, 7
            assert all(bin(m).count("1") == state.round for m in state.relics)
        state.apply({p: int(rng.choice(state.legal_actions(p))) for p in (0, 1)})
    assert piles == [8, 4, 0]
    assert [bin(k0).count("1") for k0, _ in state.kingdoms] == [5, 6, 7]
    relics = state.relics[0] | state.relics[1]
    discards = state.discards[0] | state.discards[1]
    last_round = state.kingdoms[2][0] & ~state.relics[0] | state.kingdoms[2][1] & ~state.relics[1]
    assert [bin(m).count("1") for m in (relics, discards, last_round)] == [4, 4, 10]
    assert relics | discards | last_round == (1 << 18) - 1
    assert state.returns()[0] == np.sign(sum(s[0] - s[1] for s in state.scores))


def test_relics_stay_in_the_kingdom_and_returned_cards_go_to_their_owner():
    state = TidesOfTimeGame().new_initial_state(deck=DECK)
    play_first_legal(state, 5)
    drafted = list(state.drafted)
    r0, d0 = state.legal_actions(0)[:2]
    r1, d1 = state.legal_actions(1)[-2:]
    state.apply({0: r0, 1: r1})
    assert state.phase == 2 and state.legal_actions(0) == [a for a in range(18) if drafted[0] >> a & 1 and a != r0]
    state.apply({0: d0, 1: d1})
    assert state.relics == [1 << r0, 1 << r1] and state.discards == [1 << d0, 1 << d1]
    assert state.hands[0] == drafted[0] & ~(1 << r0 | 1 << d0) | (1 << 0 | 1 << 2)  # draws 1 and 3
    assert state.hands[1] == drafted[1] & ~(1 << r1 | 1 << d1) | (1 << 3 | 1 << 8)  # draws 4 and 9
    assert state.kingdom(0) == 1 << r0 and state.round == 1 and state.pick == 0


def test_returns_win_loss_and_score_difference():
    for returns in ("win_loss", "score_difference"):
        state = play(TidesOfTimeGame(returns=returns).new_initial_state(seed=4), np.random.default_rng(4))
        t0, t1 = state.totals()
        expected = np.sign(t0 - t1) if returns == "win_loss" else t0 - t1
        assert state.returns().tolist() == [expected, -expected]


def test_bad_options():
    with pytest.raises(ValueError, match=r"rounds must be one of \[1, 3\], got 2"):
        TidesOfTimeGame(rounds=2)
    with pytest.raises(ValueError, match=r"returns must be one of \['win_loss', 'score_difference'\]"):
        TidesOfTimeGame(returns="points")
    with pytest.raises(ValueError, match="unknown option"):
        TidesOfTimeGame(players=3)
    with pytest.raises(ValueError, match="unknown start option"):
        TidesOfTimeGame().new_initial_state(hands=[])


# --- bad input ---------------------------------------------------------------------


def _at_relic_step():
    state = TidesOfTimeGame().new_initial_state(deck=DECK)
    play_first_legal(state, 5)
    return state


def test_pick_not_in_hand():
    state = TidesOfTimeGame().new_initial_state(deck=DECK)
    before = state.to_text()
    with pytest.raises(IllegalActionError,
                       match=r"action 1 \(card 2\) is not in the hand of seat 0; legal actions are \[5, 9, 10, 14, 17\]") as info:
        state.apply({0: 1, 1: 1})
    assert info.value.player == 0 and info.value.legal == [5, 9, 10, 14, 17]
    assert state.to_text() == before


def test_relic_not_drafted_this_round():
    state = _at_relic_step()
    state.apply({0: state.legal_actions(0)[0], 1: state.legal_actions(1)[0]})
    state.apply({0: state.legal_actions(0)[0], 1: state.legal_actions(1)[0]})
    play_first_legal(state, 5)
    old_relic = state.relics[0].bit_length() - 1  # a relic from round 1: in the kingdom, not drafted this round
    before = state.to_text()
    with pytest.raises(IllegalActionError, match=rf"card {old_relic + 1}\) was not drafted this round by seat 0"):
        state.apply({0: old_relic, 1: state.legal_actions(1)[0]})
    assert state.to_text() == before


def test_same_card_as_relic_and_discard():
    state = _at_relic_step()
    r0, r1 = state.legal_actions(0)[0], state.legal_actions(1)[0]
    state.apply({0: r0, 1: r1})
    before = state.to_text()
    with pytest.raises(IllegalActionError, match="is already seat 1's relic: the discard must be a different card"):
        state.apply({0: state.legal_actions(0)[0], 1: r1})
    assert state.to_text() == before


def test_malformed_joint_actions():
    state = TidesOfTimeGame().new_initial_state(seed=1)
    with pytest.raises(IllegalActionError, match="apply takes"):
        state.apply(3)
    with pytest.raises(IllegalActionError, match="both seats act at every step"):
        state.apply({0: 3})
    with pytest.raises(IllegalActionError, match="is not an integer"):
        state.apply({0: "a", 1: 2})
    with pytest.raises(IllegalActionError, match=r"action 18 \(no such card"):
        state.apply({0: 18, 1: 2})
    a, b = state.legal_actions(0)[0], state.legal_actions(1)[0]
    state.apply({0: np.int64(a), 1: np.int32(b)})  # numpy integers are fine
    assert state.pick == 1
    over = play(state, np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match="the game is over"):
        over.apply({0: 0, 1: 1})


def test_action_text():
    state = TidesOfTimeGame().new_initial_state(seed=1)
    assert state.action_to_text(14) == "15"
    assert state.text_to_action("15") == 14 and state.text_to_action("the king's nest") == 14
    for bad in ["0", "19", "Nest", ""]:
        with pytest.raises(ValueError, match="card number 1..18 or a card name"):
            state.text_to_action(bad)
    with pytest.raises(ValueError, match="must be 0..17"):
        state.action_to_text(18)


def test_observation_layout():
    from parlour.games.tides_of_time import OBS_LAYOUT, OBS_SIZE

    assert OBS_SIZE == sum(w for _, w in OBS_LAYOUT) == 202
    state = TidesOfTimeGame().new_initial_state(deck=DECK)
    obs = state.observation_tensor(0)
    plane = lambda k: [c + 1 for c in np.flatnonzero(obs[18 * k : 18 * k + 18])]  # noqa: E731
    assert plane(0) == [6, 10, 11, 15, 18] and plane(4) == [] and len(plane(9)) == 13
    assert obs[180] == 1 and obs[183] == 1 and obs[188] == 1 and obs[192] == 1.0 and obs[193] == 1.0
    play_first_legal(state, 5)
    r0, r1 = state.legal_actions(0)[-1], state.legal_actions(1)[0]
    state.apply({0: r0, 1: r1})
    obs = state.observation_tensor(0)
    plane = lambda k: [c + 1 for c in np.flatnonzero(obs[18 * k : 18 * k + 18])]  # noqa: E731
    assert plane(8) == [r0 + 1] and obs[190] == 1 and not obs[183:188].any()
    s0, s1 = state.scores[0]
    assert obs[194] == pytest.approx(s0 / 128) and obs[195] == pytest.approx(s1 / 128)
    assert obs[200] == pytest.approx(s0 / 384)
    assert np.flatnonzero(state.observation_tensor(1)[144:162]).tolist() == [r1]  # only its own secret relic
