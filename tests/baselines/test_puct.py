"""PUCT on its own, with hand-made evaluators: the priors steer it, values decide it,
several seats and simultaneous moves work, and it is deterministic."""

import numpy as np
import pytest

from parlour.baselines.engines.puct import PUCT
from parlour.games import load_game


def uniform_evaluator(game, value=None):
    def evaluate(state, players):
        priors = {p: np.full(game.num_actions, 1.0 / game.num_actions) for p in players}
        return priors, np.zeros(game.num_players) if value is None else value(state)
    return evaluate


def peaked_evaluator(game, favourite):
    """Priors all on ``favourite`` (where legal), values all zero."""
    def evaluate(state, players):
        priors = {}
        for p in players:
            prior = np.full(game.num_actions, 1e-3)
            prior[favourite] = 1.0
            priors[p] = prior / prior.sum()
        return priors, np.zeros(game.num_players)
    return evaluate


def sticks_truth(state):
    """The exact value of a sticks position (misère, take 1..3: the mover loses iff
    sticks % 4 == 1) for both seats."""
    if state.is_terminal():
        return state.returns()
    mover = state.current_players()[0]
    win = 1.0 if state.sticks % 4 != 1 else -1.0
    values = np.zeros(2)
    values[mover], values[1 - mover] = win, -win
    return values


def test_the_priors_reach_the_search():
    game = load_game("sticks", num_sticks=10, max_take=3)
    state = game.new_initial_state()
    for favourite in range(3):
        result = PUCT(peaked_evaluator(game, favourite), game.num_actions).search(state, state.clone, 0, 30, np.random.default_rng(0))
        assert result.action == favourite
        assert result.visits[favourite] > 20 and sum(result.visits.values()) == 30


def test_values_overrule_the_priors():
    """A prior on a losing move is overcome by exact values: from 10 sticks (misère) the
    winning take is 1 (action 0), leaving 9 = 4*2 + 1."""
    game = load_game("sticks", num_sticks=10, max_take=3)
    state = game.new_initial_state()
    def evaluate(state, players):
        priors, _ = peaked_evaluator(game, 2)(state, players)
        return priors, sticks_truth(state)
    result = PUCT(evaluate, game.num_actions).search(state, state.clone, 0, 200, np.random.default_rng(0))
    winning = [a for a in state.legal_actions(0) if sticks_truth(after(state, a))[0] > 0]
    assert winning == [0] and result.action == 0
    assert result.value > 0.5  # the mean over the subtree, exploration included


def after(state, action):
    child = state.clone()
    child.apply(action)
    return child


def test_deterministic_and_noise_from_the_generator():
    game = load_game("tribolo", width=6, height=5, walls=2, start_cells=2)
    state = game.new_initial_state(seed=3)
    (seat,) = state.current_players()
    runs = [PUCT(uniform_evaluator(game), game.num_actions, noise=(10.0, 0.25)).search(
        state, state.clone, seat, 50, np.random.default_rng(7)) for _ in range(2)]
    assert runs[0] == runs[1]
    other = PUCT(uniform_evaluator(game), game.num_actions, noise=(10.0, 0.25)).search(
        state, state.clone, seat, 50, np.random.default_rng(8))
    assert other.visits != runs[0].visits  # the noise differs with the generator


def test_three_seats_each_maximise_their_own_value():
    """Tribolo: a value vector that rewards only seat 0 for its own cells makes seat 0
    prefer its captures while the others' values stay zero (max^n, not zero-sum)."""
    game = load_game("tribolo", width=6, height=5, walls=2, start_cells=2)
    state = game.new_initial_state(seed=1)
    (seat,) = state.current_players()
    def value(s):
        counts = np.array([bin(s.own[p]).count("1") for p in range(3)], dtype=float)
        return counts - counts.mean()
    result = PUCT(uniform_evaluator(game, value), game.num_actions).search(state, state.clone, seat, 100, np.random.default_rng(0))
    assert result.action in state.legal_actions(seat)
    assert sum(result.visits.values()) == 100


@pytest.mark.parametrize("name, options", [("goofspiel", {"num_cards": 5}), ("tides_of_time", {"rounds": 1})])
def test_simultaneous_moves_and_hidden_information(name, options):
    """Decoupled selection at simultaneous steps, each simulation from a fresh sample of
    the seat's information state: the result is a legal move of that seat."""
    game = load_game(name, **options)
    state = game.new_initial_state(seed=2)
    info = state.info_state(0)
    rng = np.random.default_rng(0)
    puct = PUCT(uniform_evaluator(game), game.num_actions)
    result = puct.search(info.sample(rng), lambda: info.sample(rng), 0, 64, rng)
    assert result.action in state.legal_actions(0)
    assert sum(result.visits.values()) == 64
    assert puct.evaluations > 1


def test_policy_is_the_visit_distribution():
    game = load_game("sticks", num_sticks=10, max_take=3)
    state = game.new_initial_state()
    result = PUCT(uniform_evaluator(game), game.num_actions).search(state, state.clone, 0, 40, np.random.default_rng(0))
    pi = result.policy(game.num_actions)
    assert pi.sum() == pytest.approx(1.0)
    assert np.allclose(pi * 40, [result.visits.get(a, 0) for a in range(game.num_actions)])
    greedy = result.policy(game.num_actions, temperature=0)
    assert greedy[result.action] == 1.0


def test_bad_arguments():
    game = load_game("sticks")
    state = game.new_initial_state()
    puct = PUCT(uniform_evaluator(game), game.num_actions)
    with pytest.raises(ValueError, match="simulations must be at least 1, got 0"):
        puct.search(state, state.clone, 0, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"seat 1 is not to move \(current players: \[0\]\)"):
        puct.search(state, state.clone, 1, 5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="exploration constant c must be >= 0, got -1"):
        PUCT(uniform_evaluator(game), game.num_actions, c=-1)
    with pytest.raises(ValueError, match="noise must be"):
        PUCT(uniform_evaluator(game), game.num_actions, noise=(0.0, 0.25))


def test_root_noise_only_on_the_searching_seat():
    """At a simultaneous step the opponent's priors stay the evaluator's: its model of
    the opponent is not randomised, only its own exploration."""
    game = load_game("goofspiel", num_cards=5)
    state = game.new_initial_state(seed=2)
    puct = PUCT(uniform_evaluator(game), game.num_actions, noise=(10.0, 0.5))
    puct.search(state, state.clone, 0, 1, np.random.default_rng(0))
    priors = puct.root.priors
    assert np.allclose(priors[1], 1.0 / game.num_actions)  # untouched
    assert not np.allclose(priors[0], 1.0 / game.num_actions)
    assert sum(priors[0]) == pytest.approx(1.0)


def test_a_finished_position_is_refused():
    game = load_game("sticks", num_sticks=1)
    state = game.new_initial_state()
    state.apply(0)
    with pytest.raises(ValueError, match="the position is over"):
        PUCT(uniform_evaluator(game), game.num_actions).search(state, state.clone, 0, 5, np.random.default_rng(0))


# --- the Gumbel root ----------------------------------------------------------------------

from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.baselines.engines.gumbel import Gumbel, completed_q, halve, improved_policy, logits_of, phases, visits_per_action


def test_sequential_halving_spends_the_budget_in_equal_phases():
    """16 considered actions, 64 simulations: four phases of 16 simulations (16 x 1, 8 x 2,
    4 x 4, 2 x 8), every legal action of Goofspiel-16's first bid considered."""
    game = load_game("goofspiel", num_cards=16)
    state = game.new_initial_state()
    search = PUCT(uniform_evaluator(game), game.num_actions, gumbel=Gumbel(considered=16))
    result = search.search(state, state.clone, 0, 64, np.random.default_rng(0))
    counts = sorted(result.visits.values(), reverse=True)
    assert sum(counts) == 64 and counts == [1 + 2 + 4 + 8 + 8 - 8, 1 + 2 + 4 + 8] + [1 + 2 + 4] * 2 + [1 + 2] * 4 + [1] * 8
    assert phases(16) == 4 and visits_per_action(64, 16, 16) == 1 and visits_per_action(64, 16, 2) == 8


@pytest.mark.parametrize("favourite, simulations", [(None, 8), (2, 200)])
def test_gumbel_finds_the_winning_move_and_targets_it(favourite, simulations):
    """Exact values: the Gumbel root plays the winning take from 10 sticks (action 0) and
    its improved policy puts most weight there, with 8 simulations and uniform priors,
    and with 200 against priors that all but exclude it (below the root, PUCT follows
    those priors at first, so the values it backs up take a few simulations to settle)."""
    game = load_game("sticks", num_sticks=10, max_take=3)
    state = game.new_initial_state()
    def evaluate(state, players):
        priors, _ = (uniform_evaluator(game) if favourite is None else peaked_evaluator(game, favourite))(state, players)
        return priors, sticks_truth(state)
    for seed in range(5):
        search = PUCT(evaluate, game.num_actions, gumbel=Gumbel())
        result = search.search(state, state.clone, 0, simulations, np.random.default_rng(seed))
        assert result.action == 0 and sum(result.visits.values()) == simulations
        pi = result.policy(game.num_actions)
        assert pi.argmax() == 0 and pi[0] > 0.9 and np.isclose(pi.sum(), 1.0)


def test_gumbel_is_deterministic_and_refuses_dirichlet_noise():
    game = load_game("tribolo", width=6, height=5, walls=2, start_cells=2)
    state = game.new_initial_state(seed=1)
    (seat,) = state.current_players()
    runs = [PUCT(uniform_evaluator(game), game.num_actions, gumbel=Gumbel(considered=4)).search(
        state, state.clone, seat, 20, np.random.default_rng(7)) for _ in range(2)]
    assert runs[0] == runs[1]
    quiet = PUCT(uniform_evaluator(game), game.num_actions, gumbel=Gumbel(sample=False)).search(state, state.clone, seat, 20,
                                                                                               np.random.default_rng(7))
    again = PUCT(uniform_evaluator(game), game.num_actions, gumbel=Gumbel(sample=False)).search(state, state.clone, seat, 20,
                                                                                               np.random.default_rng(8))
    assert quiet == again  # no Gumbel draws: the generator does not matter in a game without chance
    with pytest.raises(ValueError, match="Dirichlet noise or a Gumbel root, not both"):
        PUCT(uniform_evaluator(game), game.num_actions, noise=(10.0, 0.25), gumbel=Gumbel())
    with pytest.raises(ValueError, match="Gumbel considered must be at least 1, got 0"):
        Gumbel(considered=0)


def test_gumbel_at_simultaneous_moves_with_hidden_information():
    game = load_game("tides_of_time")
    state = game.new_initial_state(seed=3)
    info = state.info_state(0)
    rng = np.random.default_rng(0)
    result = PUCT(uniform_evaluator(game), game.num_actions, gumbel=Gumbel()).search(
        info.sample(rng), lambda: info.sample(rng), 0, 24, rng)
    assert result.action in state.legal_actions(0) and sum(result.visits.values()) == 24
    assert set(result.improved) == set(state.legal_actions(0))


def test_completed_q_literally():
    """Appendix D: v_mix = (v + N * sum_seen(pi q) / sum_seen(pi)) / (1 + N)."""
    q = np.array([0.8, 0.0, 0.2])
    visits = np.array([3.0, 0.0, 1.0])
    prior = np.array([0.5, 0.3, 0.2])
    v_mix = (0.4 + 4 * (0.5 * 0.8 + 0.2 * 0.2) / 0.7) / 5
    assert np.allclose(completed_q(q, visits, prior, 0.4), [0.8, v_mix, 0.2])
    assert np.allclose(completed_q(q, np.zeros(3), prior, 0.4), [0.4] * 3)
    assert halve([5, 2, 7], {5: 1.0, 2: 3.0, 7: 3.0}) == [2, 7]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=2, max_size=12), st.floats(0, 1), st.integers(0, 2**32 - 1))
def test_the_improved_policy_is_the_prior_before_any_visit_and_prefers_better_values(prior, value, seed):
    prior = np.array(prior) / np.sum(prior)
    logits = logits_of(prior)
    unvisited = improved_policy(logits, np.zeros(len(prior)), np.zeros(len(prior)), prior, value, Gumbel())
    assert np.allclose(unvisited, prior)
    rng = np.random.default_rng(seed)
    visits = rng.integers(1, 5, size=len(prior)).astype(float)
    q = rng.random(len(prior))
    pi = improved_policy(logits, q, visits, prior, value, Gumbel())
    assert np.isclose(pi.sum(), 1.0) and (pi >= 0).all()
    ratio = pi / prior  # the policy moves weight toward the better values, in their order
    order = np.argsort(q, kind="stable")
    assert np.all(np.diff(ratio[order]) >= -1e-9)
