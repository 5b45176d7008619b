"""parlour's games inside OpenSpiel (``parlour.interop.openspiel.register_parlour_games``):
OpenSpiel's own random-simulation checks pass on every bridged game, its algorithms run
unchanged (CFR converges to parlour's game values, ``nash_conv`` finds parlour's
equilibrium unexploitable and a perturbed one exploitable, MCTS and ``evaluate_bots``
play), and what OpenSpiel sees (chance, information states, tensors) is parlour's."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs open_spiel (the openspiel extra)")

from open_spiel.python.algorithms import cfr, evaluate_bots, expected_game_score, exploitability  # noqa: E402
from open_spiel.python.algorithms import mcts as openspiel_mcts  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402

from parlour.baselines import make  # noqa: E402
from parlour.baselines.engines.equilibrium import game_value  # noqa: E402
from parlour.games import load_game  # noqa: E402
from parlour.interop.openspiel import parlour_state, register_parlour_games  # noqa: E402
from parlour.interop.openspiel.as_openspiel import ParlourPolicy  # noqa: E402

register_parlour_games()

SMALL_TRIBOLO = {"width": 6, "height": 5, "walls": 2, "start_cells": 2}
BRIDGED = [
    ("sticks", {}),
    ("sticks", {"num_sticks": 7, "max_take": 2, "misere": False}),
    ("goofspiel", {"num_cards": 4}),
    ("goofspiel", {"num_cards": 5, "prize_order": "descending", "tie_rule": "discard"}),
    ("goofspiel", {"num_cards": 3, "num_players": 3, "imperfect_info": True, "returns": "total_points"}),
    ("tides_of_time", {}),
    ("tides_of_time", {"rounds": 1, "returns": "score_difference"}),
    ("tribolo", SMALL_TRIBOLO),
    ("tribolo", {}),
    ("double_card", {"max_moves": 30}),
]


def load(name: str, options: dict) -> pyspiel.Game:
    return pyspiel.load_game(f"parlour_{name}", options)


@pytest.mark.parametrize(("name", "options"), BRIDGED, ids=lambda x: x if isinstance(x, str) else str(x))
def test_openspiel_random_simulations_pass(name, options):
    game = load(name, options)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        pyspiel.random_sim_test(pyspiel.convert_to_turn_based(game), num_sims=2, serialize=False, verbose=False)


def test_the_game_type_says_what_the_parlour_game_is():
    kinds = {name: load(name, options).get_type() for name, options in [("sticks", {}), ("goofspiel", {"num_cards": 4}),
                                                                          ("tribolo", SMALL_TRIBOLO), ("tides_of_time", {})]}
    T = pyspiel.GameType
    assert load("goofspiel", {"num_cards": 4, "prize_order": "descending"}).get_type().chance_mode == T.ChanceMode.DETERMINISTIC
    assert kinds["sticks"].dynamics == T.Dynamics.SEQUENTIAL and kinds["sticks"].information == T.Information.PERFECT_INFORMATION
    assert kinds["sticks"].chance_mode == T.ChanceMode.DETERMINISTIC
    assert kinds["goofspiel"].dynamics == T.Dynamics.SIMULTANEOUS and kinds["goofspiel"].chance_mode == T.ChanceMode.EXPLICIT_STOCHASTIC
    assert kinds["tribolo"].chance_mode == T.ChanceMode.SAMPLED_STOCHASTIC
    assert kinds["tides_of_time"].information == T.Information.IMPERFECT_INFORMATION
    game = load("goofspiel", {"num_cards": 6, "returns": "point_difference"})
    assert (game.num_distinct_actions(), game.max_chance_outcomes(), game.num_players()) == (6, 6, 2)
    assert (game.min_utility(), game.max_utility(), game.max_game_length()) == (-21.0, 21.0, 12)
    assert game.observation_tensor_shape() == [load_game("goofspiel", num_cards=6).observation_shape[0]]


def test_the_deal_is_explicit_chance_and_the_state_is_parlours():
    game = load("goofspiel", {"num_cards": 4})
    state = game.new_initial_state()
    for prize in (3, 1, 4, 2):  # the outcome is the prize's index among 1..N
        assert state.is_chance_node()
        outcomes = dict(state.chance_outcomes())
        assert sum(outcomes.values()) == pytest.approx(1.0) and prize - 1 in outcomes
        state.apply_action(prize - 1)
    assert state.is_simultaneous_node() and state.legal_actions(0) == [0, 1, 2, 3]
    parlour = parlour_state(state)
    assert parlour.prizes == (3, 1, 4, 2) and parlour.round == 0
    state.apply_actions([3, 0])
    for player in (0, 1):
        assert np.array_equal(state.observation_tensor(player), parlour_state(state).observation_tensor(player))
        assert state.information_state_string(player) == repr(parlour_state(state).info_state(player))
        assert state.observation_string(player) == parlour_state(state).view_text(player)
    with pytest.raises(Exception):  # noqa: B017 (pyspiel raises its own SpielError) an outcome that was dealt already
        replay = game.new_initial_state()
        replay.apply_action(0)
        replay.apply_action(0)


def test_information_states_hide_what_the_seat_does_not_see():
    """Goofspiel with hidden bids: after the same first round from seat 0's point of
    view (the same own bid and the same result) but different opponent bids, seat 0's
    information state is the same and seat 1's differs; future prizes are hidden."""
    game = load("goofspiel", {"num_cards": 4, "imperfect_info": True})

    def play(prizes, bids):
        state = game.new_initial_state()
        for prize in prizes:
            state.apply_action(prize - 1)
        state.apply_actions(bids)
        return state

    a, b = play([4, 1, 2, 3], [3, 1]), play([4, 1, 2, 3], [3, 2])
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.information_state_string(1) != b.information_state_string(1)
    assert play([4, 1, 2, 3], [3, 1]).information_state_string(0) == play([4, 1, 3, 2], [3, 1]).information_state_string(0)
    assert np.array_equal(a.information_state_tensor(0), b.information_state_tensor(0))


def test_perfect_information_states_are_the_start_and_the_moves():
    game = load("tribolo", SMALL_TRIBOLO)
    first, second = game.new_initial_state(), game.new_initial_state()
    assert str(first) != str(second)  # two sampled setups
    clone = first.clone()  # the clone keeps the setup (and does not use up one)
    assert str(clone) == str(first)
    assert first.information_state_string(0).startswith("p0 start")
    assert first.information_state_string(0) != second.information_state_string(0)
    again = pyspiel.load_game("parlour_tribolo", SMALL_TRIBOLO)
    assert str(again.new_initial_state()) == str(first)  # the same rng_seed, the same first setup


def parlour_equilibrium(game: pyspiel.Game) -> tuple[pyspiel.Game, ParlourPolicy]:
    """The turn-based conversion of a bridged Goofspiel and parlour's exact equilibrium on it."""
    turn_based = pyspiel.convert_to_turn_based(game)
    return turn_based, ParlourPolicy(turn_based, make("equilibrium", game.parlour).strategy)


NASH = [
    pytest.param({"num_cards": 3}, id="N3-random"),
    pytest.param({"num_cards": 4}, id="N4-random", marks=pytest.mark.slow),
    pytest.param({"num_cards": 5, "prize_order": "descending"}, id="N5-descending", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("options", NASH)
def test_nash_conv_of_parlours_equilibrium_is_zero(options):
    game = load("goofspiel", options)
    turn_based, policy = parlour_equilibrium(game)
    assert 0.0 <= exploitability.nash_conv(turn_based, policy) < 1e-9


def test_a_perturbed_equilibrium_is_exploitable():
    game = load("goofspiel", {"num_cards": 3})
    turn_based, policy = parlour_equilibrium(game)

    def perturbed(info):
        exact = policy.strategy(info)
        legal = info.legal_actions()
        return {a: 0.5 * exact.get(a, 0.0) + 0.5 / len(legal) for a in legal}

    assert exploitability.nash_conv(turn_based, ParlourPolicy(turn_based, perturbed)) > 0.05


@pytest.mark.parametrize(("name", "options", "iterations", "tolerance"), [
    ("sticks", {"num_sticks": 6, "max_take": 2}, 100, 0.01),
    ("sticks", {"num_sticks": 7, "max_take": 3, "misere": False}, 100, 0.01),
    pytest.param("goofspiel", {"num_cards": 3}, 300, 0.02, marks=pytest.mark.slow),
])
def test_openspiel_cfr_converges_to_parlours_game_values(name, options, iterations, tolerance):
    game = load(name, options)
    turn_based = pyspiel.convert_to_turn_based(game) if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS else game
    solver = cfr.CFRPlusSolver(turn_based)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    value = expected_game_score.policy_value(turn_based.new_initial_state(), [average] * 2)[0]
    assert value == pytest.approx(game_value(load_game(name, **options)), abs=tolerance)
    assert exploitability.nash_conv(turn_based, average) < 5 * tolerance


def test_openspiel_bots_play_bridged_games():
    rng = np.random.RandomState(0)
    sticks = load("sticks", {})
    evaluator = openspiel_mcts.RandomRolloutEvaluator(n_rollouts=2, random_state=rng)
    bots = [openspiel_mcts.MCTSBot(sticks, uct_c=2.0, max_simulations=200, evaluator=evaluator, random_state=rng),
            uniform_random.UniformRandomBot(1, rng)]
    results = [evaluate_bots.evaluate_bots(sticks.new_initial_state(), bots, rng) for _ in range(6)]
    assert sum(r[0] for r in results) >= 2  # the first mover wins the 10-stick misère game with search
    # OpenSpiel's C++ MCTSBot crashes on every Python game, its own python_tic_tac_toe too:
    # its Python MCTS plays the three seats of Tribolo
    tribolo = load("tribolo", SMALL_TRIBOLO)
    search = openspiel_mcts.MCTSBot(tribolo, uct_c=2.0, max_simulations=30, evaluator=openspiel_mcts.RandomRolloutEvaluator(1, rng),
                                    random_state=rng)
    bots = [search] + [uniform_random.UniformRandomBot(p, rng) for p in (1, 2)]
    returns = evaluate_bots.evaluate_bots(tribolo.new_initial_state(), bots, rng)
    assert len(returns) == 3 and abs(sum(returns)) < 1e-9


def test_parlour_state_replays_a_turn_based_conversion():
    game = load("goofspiel", {"num_cards": 4, "tie_rule": "discard"})
    turn_based = pyspiel.convert_to_turn_based(game)
    state = turn_based.new_initial_state()
    for action in (1, 3, 0, 2, 2, 0, 3, 3):  # the deal 2 4 1 3, then bids 3/1 and 4/4
        state.apply_action(action)
    parlour = parlour_state(state)
    assert parlour.prizes == (2, 4, 1, 3) and parlour.bids == [(2, 0), (3, 3)]
    with pytest.raises(ValueError, match="not a state of a bridged parlour game"):
        parlour_state(pyspiel.load_game("tic_tac_toe").new_initial_state())
