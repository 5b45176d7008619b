"""mcts and sm-mcts: perfect sticks endings, max^n, simultaneous moves, strength, errors."""

import pytest
from helpers import play, record_against_random
from toy_games import TakeThreeGame, WeightedRPS

from parlour.baselines import make
from parlour.games.goofspiel import GoofspielGame
from parlour.games.sticks import SticksGame, losing_position

# --- sticks: never lose a won position -------------------------------------------------

STICKS_CASES = [(3, True)] + [
    pytest.param(take, misere, marks=pytest.mark.slow)
    for take in (2, 3, 4)
    for misere in (True, False)
    if (take, misere) != (3, True)
]


@pytest.mark.parametrize(("max_take", "misere"), STICKS_CASES)
def test_mcts_never_loses_a_won_sticks_position(max_take, misere):
    """Every pile 1..40; mcts takes the seat that has the won position (seat 1 when
    the pile is lost for the first mover) against a random opponent."""
    for pile in range(1, 41):
        game = SticksGame(num_sticks=pile, max_take=max_take, misere=misere)
        seat = 1 if losing_position(pile, max_take, misere) else 0
        policies = {seat: make("mcts", game, seed=pile, simulations=500), 1 - seat: make("random", game, seed=pile)}
        assert play(game, policies).returns()[seat] == 1, (pile, max_take, misere)


def test_mcts_without_transpositions_and_with_an_evaluation():
    for pile in range(1, 16):
        game = SticksGame(num_sticks=pile, max_take=3)
        seat = 1 if losing_position(pile, 3, True) else 0
        for params in ({"transpositions": False, "simulations": 1500},
                       {"rollout": "evaluation", "evaluation": "closed_form", "simulations": 100}):
            policies = {seat: make("mcts", game, seed=pile, **params), 1 - seat: make("random", game, seed=pile)}
            assert play(game, policies).returns()[seat] == 1, (pile, params)


def maxn_root_values(state, me):
    """Exact max^n values of ``me``'s moves (ties to the first action, like minimax)."""
    def value(s):
        if s.is_terminal():
            return s.returns()
        (p,) = s.current_players()
        best = None
        for a in s.legal_actions(p):
            child = s.clone()
            child.apply(a)
            v = value(child)
            if best is None or v[p] > best[p]:
                best = v
        return best

    values = {}
    for a in state.legal_actions(me):
        child = state.clone()
        child.apply(a)
        values[a] = value(child)[me]
    return values


def test_mcts_finds_the_max_n_move_with_three_players():
    game = TakeThreeGame(pile=9)
    checked = 0
    for pile in range(2, 10):
        for mover in range(3):
            state = game.state_from_text(f"{pile} {mover}")
            values = maxn_root_values(state, mover)
            best = max(values.values())
            if list(values.values()).count(best) > 1:
                continue
            checked += 1
            action = make("mcts", game, seed=pile, simulations=1000).search(state.clone(), mover)
            assert values[action] == best, (pile, mover, values, action)
    assert checked >= 10


# --- simultaneous moves ------------------------------------------------------------------

def test_regret_matching_average_strategy_approaches_the_equilibrium():
    game = WeightedRPS()
    policy = make("sm-mcts", game, seed=0, selection="rm", simulations=10_000)
    policy.search(game.new_initial_state(), 0)
    strategy = policy.stats["strategy"]
    assert sum(strategy.values()) == pytest.approx(1.0)
    for action, target in zip((0, 1, 2), (0.25, 0.5, 0.25)):
        assert abs(strategy[action] - target) < 0.05, strategy


def test_rm_and_mixed_duct_draw_their_move_from_the_root_distribution():
    game = WeightedRPS()
    for params in ({"selection": "rm"}, {"selection": "duct", "final": "mix"}):
        moves = set()
        for seed in range(12):
            policy = make("sm-mcts", game, seed=seed, simulations=300, **params)
            action = policy.search(game.new_initial_state(), 1)
            assert policy.stats["strategy"][action] > 0
            moves.add(action)
        assert len(moves) > 1, params  # a mixed move, not always the same one


@pytest.mark.slow
def test_mcts_beats_random_at_goofspiel_13():
    """200 games, seats rotated; the seed reports 70-80% for its tree search."""
    game = GoofspielGame(num_cards=13)
    wins, draws, losses = record_against_random(game, lambda seed: make("mcts", game, seed=seed, simulations=100), 200)
    assert wins >= 0.7 * 200, (wins, draws, losses)


@pytest.mark.parametrize("params", [{}, {"final": "mix"}, {"selection": "rm"}])
def test_sm_mcts_beats_random_at_goofspiel_6(params):
    game = GoofspielGame(num_cards=6)
    wins, draws, losses = record_against_random(game, lambda seed: make("sm-mcts", game, seed=seed, simulations=200, **params), 60)
    assert wins >= 0.58 * 60 and wins > 1.5 * losses, (params, wins, draws, losses)


def test_mcts_beats_random_at_goofspiel_6_with_three_players():
    """Against two random players a random seat wins a third of the games."""
    game = GoofspielGame(num_cards=6, num_players=3)
    wins, draws, losses = record_against_random(game, lambda seed: make("mcts", game, seed=seed, simulations=200), 60)
    assert wins >= 0.45 * 60, (wins, draws, losses)


# --- determinism, statistics, budgets, errors ---------------------------------------------


@pytest.mark.parametrize(("name", "params"), [("mcts", {}), ("sm-mcts", {"selection": "rm"}), ("sm-mcts", {"final": "mix"})])
def test_same_seed_same_actions_and_statistics(name, params):
    game = GoofspielGame(num_cards=7)
    states = [game.new_initial_state(seed) for seed in range(4)]
    runs = []
    for _ in range(2):
        policy = make(name, game, seed=3, simulations=150, **params)
        runs.append([(policy.act(s.info_state(0)), policy.stats["visits"]) for s in states])
    assert runs[0] == runs[1]
    policy.reset(seed=3)
    assert [(policy.act(s.info_state(0)), policy.stats["visits"]) for s in states] == runs[0]
    for key in ("simulations", "nodes", "time", "simulations_per_second", "visits", "value", "max_depth"):
        assert key in policy.stats
    assert policy.stats["simulations"] == 150 and sum(policy.stats["visits"].values()) == 150
    assert set(policy.root_values) <= set(states[-1].legal_actions(0))


def test_time_budget_and_forced_moves():
    game = SticksGame(num_sticks=30)
    policy = make("mcts", game, seed=0, time_limit=0.02)
    action = policy.act(game.new_initial_state().info_state(0))
    assert action in (0, 1, 2) and policy.stats["simulations"] >= 1
    forced = game.new_initial_state(sticks=1)
    assert policy.act(forced.info_state(0)) == 0 and policy.stats["forced"]


def test_bad_parameters_and_positions():
    game = SticksGame()
    for params, message in [
        ({"simulations": 0}, "simulations=0: must be at least 1"),
        ({"c": -1}, "c=-1.0: the exploration constant must be >= 0"),
        ({"time_limit": 0}, "time_limit=0.0: must be positive"),
        ({"rollout": "greedy"}, r"rollout='greedy': allowed values are \['random', 'evaluation'\]"),
        ({"evaluation": "smart"}, "unknown evaluation 'smart' for sticks"),
        ({"sims": 3}, r"unknown parameter\(s\) \['sims'\] for policy 'mcts'"),
    ]:
        with pytest.raises(ValueError, match=message):
            make("mcts", game, **params)
    with pytest.raises(ValueError, match=r"gamma=0.0: must be in \(0, 1\]"):
        make("sm-mcts", game, gamma=0)
    with pytest.raises(ValueError, match=r"selection='exp3': allowed values are \['duct', 'rm'\]"):
        make("sm-mcts", game, selection="exp3")
    state = game.new_initial_state()
    with pytest.raises(ValueError, match=r"mcts: seat 1 is not to move \(current players: \[0\]\)"):
        make("mcts", game).search(state, 1)
