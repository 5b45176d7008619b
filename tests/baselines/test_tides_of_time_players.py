"""Tides of Time players: the seed's bot (its vectorised first pick against per-hand
alpha-beta, the fixed leaf), greedy, exact simultaneous play, relic choices, the
generic searchers, and information hiding."""

import numpy as np
import pytest

from parlour.baselines import REGISTRY, make, make_from_spec
from parlour.baselines.engines.heuristics import get_evaluation
from parlour.baselines.engines.matrix_game import solve_zero_sum
from parlour.baselines.players.tides_of_time import (
    RoundSolver,
    SequentialAlphaBeta,
    opponent_hands,
    solve_all_hands,
)
from parlour.games.bitmask import mask_of
from parlour.games.bitmask import set_bits as bits
from parlour.games.tides_of_time import TidesOfTimeGame, score_masks

GAME1 = TidesOfTimeGame(rounds=1)
GAME3 = TidesOfTimeGame(rounds=3)
DECK = [15, 6, 10, 11, 18, 2, 5, 7, 8, 14, 1, 3, 4, 9, 12, 13, 16, 17]


def minimax(kb, ko, hb, ho, leaf):
    """The seed's tree without pruning or memo (bot max, then opponent min, exchange)."""
    if hb & (hb - 1) == 0:
        return leaf(kb | hb, ko | ho)
    return max(
        min(minimax(kb | 1 << c, ko | 1 << d, ho & ~(1 << d), hb & ~(1 << c), leaf) for d in bits(ho))
        for c in bits(hb)
    )


def own_leaf(kb, ko):
    return score_masks(kb, ko)[0]


def advance(state, steps, rng=None):
    rng = rng or np.random.default_rng(0)
    for _ in range(steps):
        state.apply({p: int(rng.choice(state.legal_actions(p))) for p in (0, 1)})
    return state


def test_players_are_registered_for_tides_only():
    for name in ["original-alphabeta", "greedy", "tides-equilibrium"]:
        assert REGISTRY[name].games == ("tides_of_time",)
    assert "C# article" in REGISTRY["original-alphabeta"].source
    from parlour.games.sticks import SticksGame

    with pytest.raises(ValueError, match="it is made for tides_of_time"):
        make("original-alphabeta", SticksGame())


@pytest.mark.parametrize("seed", range(4))
def test_alphabeta_equals_plain_minimax(seed):
    rng = np.random.default_rng(seed)
    state = advance(GAME1.new_initial_state(seed), 1, rng)  # hands known from here on
    kb, ko = state.drafted
    search = SequentialAlphaBeta(own_leaf)
    value, card, _ = search.root(kb, ko, state.hands[0], state.hands[1])
    assert value == minimax(kb, ko, state.hands[0], state.hands[1], own_leaf)
    exact = {c: min(minimax(kb | 1 << c, ko | 1 << d, state.hands[1] & ~(1 << d), state.hands[0] & ~(1 << c), own_leaf)
                    for d in bits(state.hands[1]))
             for c in bits(state.hands[0])}
    assert card == min(c for c, v in exact.items() if v == value)  # the first best card, as the seed


def test_leaf_scores_both_complete_kingdoms():
    """The seed's leaf dropped the opponent's last card; ours scores 5 v 5 cards."""
    sizes = set()

    def leaf(kb, ko):
        sizes.add((kb.bit_count(), ko.bit_count()))
        return score_masks(kb, ko)[0]

    state = GAME1.new_initial_state(deck=DECK)
    SequentialAlphaBeta(leaf).root(0, 0, state.hands[0], state.hands[1])
    assert sizes == {(5, 5)}


@pytest.mark.parametrize("objective", ["own", "difference"])
def test_vectorised_first_pick_equals_alphabeta_per_hand(objective):
    rng = np.random.default_rng(1)
    info = GAME1.new_initial_state(7).info_state(0)
    hands = opponent_hands(info)
    assert len(hands) == 1287 and len(set(hands)) == 1287
    sample = [hands[i] for i in rng.choice(len(hands), 12, replace=False)]
    values = solve_all_hands(GAME1, 0, 0, info.hand, sample, objective)
    policy = make("original-alphabeta", GAME1, objective=objective)
    for row, opp in enumerate(sample):
        value, card, _ = SequentialAlphaBeta(policy._leaf()).root(0, 0, info.hand, opp)
        assert values[row].max() == value
        assert bits(info.hand)[int(values[row].argmax())] == card


def test_first_pick_votes_match_the_slow_enumeration_with_relics():
    """Round 2: kingdoms start with the relics, 15 possible opponent hands."""
    state = advance(GAME3.new_initial_state(3), 7)
    info = state.info_state(1)
    assert info.round == 1 and info.opp_hidden == 2 and len(opponent_hands(info)) == 15
    fast = make("original-alphabeta", GAME3, seed=0)
    slow = make("original-alphabeta", GAME3, seed=0, first_solver="alphabeta")
    assert fast.act(info) == slow.act(info)
    assert fast.stats["votes"] == slow.stats["votes"] and fast.stats["hands"] == 15


def test_seed_alphabeta_mid_round_plays_the_alphabeta_move():
    state = advance(GAME1.new_initial_state(5), 2)
    info = state.info_state(0)
    policy = make("original-alphabeta", GAME1, seed=0)
    action = policy.act(info)
    kb, ko = info.kingdoms
    value = minimax(kb, ko, info.hand, info.opp_hand, own_leaf)
    assert policy.stats["value"] == value and action in info.legal_actions()


def test_round_three_first_pick_is_a_single_known_hand():
    state = advance(GAME3.new_initial_state(2), 14)
    info = state.info_state(0)
    assert info.round == 2 and info.pick == 0 and info.opp_hidden == 2
    assert len(opponent_hands(info)) == 1  # the pile is empty: the opponent's draw is known


def test_greedy_takes_the_best_immediate_gain():
    state = GAME1.new_initial_state(deck=DECK)
    policy = make("greedy", GAME1, seed=0)
    info = state.info_state(0)
    gains = {c: score_masks(1 << c, 0)[0] - score_masks(1 << c, 0)[1] for c in bits(info.hand)}
    best = max(gains.values())
    assert gains[policy.act(info)] == best


def test_round_solver_is_an_equilibrium():
    state = advance(GAME1.new_initial_state(9), 1)
    k0, k1 = state.drafted
    solver = RoundSolver(GAME1)
    value, x, y, matrix = solver.strategy(k0, k1, state.hands[0], state.hands[1])
    assert np.all(x @ matrix >= value - 1e-9) and np.all(matrix @ y <= value + 1e-9)
    # the last two picks: a 2 x 2 game whose entries are final score differences
    end = advance(state.clone(), 2)
    a, b = end.drafted
    h0, h1 = end.hands
    entries = [[score_masks(a | 1 << c | h1 & ~(1 << d), b | 1 << d | h0 & ~(1 << c)) for d in bits(h1)] for c in bits(h0)]
    direct = solve_zero_sum(np.array([[e[0] - e[1] for e in row] for row in entries]))[0]
    assert solver.value(a, b, h0, h1) == pytest.approx(direct)


def test_equilibrium_first_pick_mixes_over_sampled_hands():
    policy = make("tides-equilibrium", GAME1, seed=3, samples=4)
    info = GAME1.new_initial_state(4).info_state(1)
    action = policy.act(info)
    assert action in info.legal_actions() and policy.stats["hands"] == 4
    assert sum(policy.stats["strategy"].values()) == pytest.approx(1.0)
    best = make("tides-equilibrium", GAME1, seed=3, samples=4, first="best")
    assert best.act(info) == max(best.stats["values"], key=best.stats["values"].get)


@pytest.mark.parametrize("spec", ["original-alphabeta", "greedy", "tides-equilibrium:samples=2", "original-alphabeta:keep=greedy",
                                  "tides-equilibrium:samples=2,keep_samples=2"])
def test_relic_and_discard_choices_are_legal(spec):
    state = advance(GAME3.new_initial_state(11), 5)
    policy = make_from_spec(spec, GAME3, seed=0)
    relic = policy.act(state.info_state(0))
    assert relic in state.legal_actions(0)
    state.apply({0: relic, 1: state.legal_actions(1)[0]})
    discard = policy.act(state.info_state(0))
    assert discard in state.legal_actions(0) and discard != relic


def test_bad_parameters():
    with pytest.raises(ValueError, match="keep_samples=0: must be at least 1"):
        make("original-alphabeta", GAME3, keep_samples=0)
    with pytest.raises(ValueError, match="samples=0: must be at least 1"):
        make("tides-equilibrium", GAME3, samples=0)
    with pytest.raises(ValueError, match=r"allowed values are \['own', 'difference'\]"):
        make("original-alphabeta", GAME1, objective="mine")


SPECS = [
    "original-alphabeta",
    "greedy",
    "tides-equilibrium:samples=2,keep_samples=2",
    "pimc:samples=2,base_params=simulations=20",
    "pimc:base=sm-mcts,samples=2,base_params=simulations=20",
    "ismcts:simulations=40",
    "sm-mcts:simulations=40",
]


@pytest.mark.parametrize("rounds", [1, 3])
@pytest.mark.parametrize("spec", SPECS)
def test_policies_play_whole_games(spec, rounds):
    game = GAME1 if rounds == 1 else GAME3
    policy = make_from_spec(spec, game, seed=1)
    other = make("random", game, seed=2)
    state = game.new_initial_state(6)
    while not state.is_terminal():
        state.apply({0: policy.act(state.info_state(0)), 1: other.act(state.info_state(1))})
    assert state.returns().sum() == 0


def _same_view_decks():
    """Two deals that look the same to player_0: its hand, but another opponent hand and pile."""
    a = DECK
    b = DECK[:5] + DECK[10:15] + DECK[5:10] + DECK[15:]
    return a, b


@pytest.mark.parametrize("spec", SPECS)
def test_hidden_cards_do_not_change_a_seeded_action(spec):
    a, b = _same_view_decks()
    sa = GAME3.new_initial_state(deck=a)
    sb = GAME3.new_initial_state(deck=b)
    assert sa.info_state(0) == sb.info_state(0)
    assert np.array_equal(sa.observation_tensor(0), sb.observation_tensor(0))
    acts = [make_from_spec(spec, GAME3, seed=4).act(s.info_state(0)) for s in (sa, sb)]
    assert acts[0] == acts[1]


def test_hidden_pile_does_not_change_a_seeded_action_later():
    """Same history and opponent hand, different pile: the relic choice (which samples
    the pile) is the same."""
    deck_a = DECK
    deck_b = DECK[:10] + DECK[10:][::-1]
    states = []
    for deck in (deck_a, deck_b):
        s = GAME3.new_initial_state(deck=deck)
        for _ in range(5):
            s.apply({p: s.legal_actions(p)[0] for p in (0, 1)})
        states.append(s)
    assert states[0].info_state(0) == states[1].info_state(0)
    for spec in ["original-alphabeta", "tides-equilibrium:keep_samples=3"]:
        acts = [make_from_spec(spec, GAME3, seed=8).act(s.info_state(0)) for s in states]
        assert acts[0] == acts[1]


def test_same_seed_same_action():
    info = GAME1.new_initial_state(12).info_state(0)
    for spec in ["tides-equilibrium", "greedy"]:
        first = [make_from_spec(spec, GAME1, seed=5).act(info) for _ in range(2)]
        assert first[0] == first[1]


def test_evaluation_is_inside_the_returns_range():
    evaluate = get_evaluation(GAME3, "default")
    rng = np.random.default_rng(0)
    state = GAME3.new_initial_state(0)
    while not state.is_terminal():
        value = evaluate(state)
        assert -1 < value[0] < 1 and value[0] == -value[1]
        advance(state, 1, rng)
    assert mask_of([1]) == 1
