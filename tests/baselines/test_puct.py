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
    runs = [PUCT(uniform_evaluator(game), game.num_actions, noise=(10.0, 0.25)).search(state, state.clone, seat, 50, np.random.default_rng(7))
            for _ in range(2)]
    assert runs[0] == runs[1]
    other = PUCT(uniform_evaluator(game), game.num_actions, noise=(10.0, 0.25)).search(state, state.clone, seat, 50, np.random.default_rng(8))
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
