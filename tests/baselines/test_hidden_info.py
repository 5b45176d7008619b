"""Searchers under hidden information: fairness, pimc, ismcts."""

import pytest
from helpers import record_against_random

from parlour.baselines import make, make_from_spec
from parlour.games.goofspiel import GoofspielGame
from parlour.games.sticks import SticksGame

# --- fairness: what the seat cannot see never changes its action ---------------------------


def twin_states(game):
    """Two Goofspiel-5 positions that seat 0 cannot tell apart.

    After two rounds (seat 0 wins the first, seat 1 the second) they differ in the
    order of the prizes still to come and, in the second, in the bids of seat 1
    (cards 1 and 3 instead of 2 and 5), which only matter under ``imperfect_info``.
    """
    hidden_bids = game.config["imperfect_info"]
    a = game.new_initial_state(prizes=[3, 1, 2, 4, 5])
    b = game.new_initial_state(prizes=[3, 1, 2, 5, 4] if game.config["prize_order"] == "random" else [3, 1, 2, 4, 5])
    for own, theirs_a, theirs_b in [(3, 0, 1), (0, 2, 4)]:
        a.apply({0: own, 1: theirs_a})
        b.apply({0: own, 1: theirs_b if hidden_bids else theirs_a})
    return a, b


FAIR_SPECS = [
    "mcts:simulations=300",
    "sm-mcts:simulations=300",
    "sm-mcts:simulations=300,final=mix",
    "sm-mcts:simulations=300,selection=rm",
    "pimc:samples=8,base_params=simulations=60",
    "pimc:samples=8,base=sm-mcts,combine=average,base_params=simulations=60;selection=rm",
    "ismcts:simulations=300",
]

HIDDEN_CONFIGS = [
    {"prize_order": "random"},
    {"prize_order": "random", "imperfect_info": True},
    {"prize_order": "descending", "imperfect_info": True},
]


@pytest.mark.parametrize("config", HIDDEN_CONFIGS, ids=["prize-order", "both", "opponent-bids"])
@pytest.mark.parametrize("spec", FAIR_SPECS)
def test_what_the_seat_cannot_see_never_changes_its_action(config, spec):
    game = GoofspielGame(num_cards=5, **config)
    a, b = twin_states(game)
    assert a != b and a.info_state(0) == b.info_state(0)
    for seed in range(3):
        first, second = make_from_spec(spec, game, seed=seed), make_from_spec(spec, game, seed=seed)
        assert first.act(a.info_state(0)) == second.act(b.info_state(0)), (spec, seed)
        assert first.stats.get("visits", first.stats.get("votes")) == second.stats.get("visits", second.stats.get("votes"))


# --- pimc --------------------------------------------------------------------------------


def test_pimc_plays_sticks_and_beats_random():
    game = SticksGame(num_sticks=21, max_take=3)
    for spec in ["pimc:base=alphabeta,samples=3", "pimc:base=minimax,samples=2,combine=average"]:
        wins, _, losses = record_against_random(game, lambda seed: make_from_spec(spec, game, seed=seed), 20)
        assert wins >= 18, (spec, wins, losses)


def test_pimc_beats_random_at_goofspiel():
    game = GoofspielGame(num_cards=6)
    for spec in ["pimc:samples=5,base_params=simulations=60", "pimc:samples=5,combine=average,base=sm-mcts,base_params=simulations=60"]:
        wins, draws, losses = record_against_random(game, lambda seed: make_from_spec(spec, game, seed=seed), 40)
        assert wins >= 0.6 * 40 and wins > 2 * losses, (spec, wins, draws, losses)


def test_pimc_statistics_and_determinism():
    game = GoofspielGame(num_cards=6, imperfect_info=True)
    state = game.new_initial_state(2)
    state.apply({0: 5, 1: 0})
    runs = []
    for _ in range(2):
        policy = make("pimc", game, seed=4, samples=6, base_params={"simulations": 40})
        runs.append([policy.act(state.info_state(p)) for p in (0, 1)])
    assert runs[0] == runs[1]
    assert policy.stats["samples"] == 6 and sum(policy.stats["votes"].values()) == 6
    assert set(policy.stats["values"]) <= set(state.legal_actions(1))
    policy.reset(seed=4)
    assert [policy.act(state.info_state(p)) for p in (0, 1)] == runs[0]


def test_pimc_bad_parameters():
    sticks, goofspiel = SticksGame(), GoofspielGame(num_cards=4)
    for spec, game, message in [
        ("pimc:base=random", sticks, r"base='random': the base must search complete states; choose from \[.*'mcts'.*\]"),
        ("pimc:base=alphabeta,combine=average", sticks,
         "combine='average' cannot use base='alphabeta': its root values other than the best are only bounds"),
        ("pimc:base=alphabeta", goofspiel, "pimc base 'alphabeta': policy 'alphabeta' cannot play goofspiel: its moves are simultaneous"),
        ("pimc:base_params=simulations", sticks, r"base_params='simulations': 'simulations' is not key=value"),
        ("pimc:base_params=sims=3", sticks, r"pimc base 'mcts': unknown parameter\(s\) \['sims'\]"),
        ("pimc:base_params=simulations=many", sticks, "simulations='many': expected int"),
        ("pimc:samples=0", sticks, "samples=0: must be at least 1"),
        ("pimc:combine=max", sticks, r"combine='max': allowed values are \['vote', 'average'\]"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_from_spec(spec, game, seed=0)


# --- ismcts ------------------------------------------------------------------------------


@pytest.mark.parametrize("config", [{}, {"imperfect_info": True}])
def test_ismcts_beats_random_at_goofspiel_6(config):
    game = GoofspielGame(num_cards=6, **config)
    wins, draws, losses = record_against_random(game, lambda seed: make("ismcts", game, seed=seed, simulations=100), 60)
    assert wins >= 0.6 * 60 and wins > 2 * losses, (wins, draws, losses)


def test_ismcts_counts_availability_and_is_deterministic():
    game = GoofspielGame(num_cards=6, imperfect_info=True)
    state = game.new_initial_state(1)
    state.apply({0: 2, 1: 4})
    actions = []
    for _ in range(2):
        policy = make("ismcts", game, seed=9, simulations=400)
        actions.append(policy.act(state.info_state(0)))
        assert sum(policy.stats["visits"].values()) == 400
    assert actions[0] == actions[1]
    assert "transpositions" not in policy.config and repr(policy) == "ismcts:simulations=400"


def test_ismcts_plays_sticks():
    game = SticksGame(num_sticks=12, max_take=3)
    wins, _, losses = record_against_random(game, lambda seed: make("ismcts", game, seed=seed, simulations=1000), 20)
    assert wins >= 18, (wins, losses)
