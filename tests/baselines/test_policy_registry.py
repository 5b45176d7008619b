"""The policy protocol: registry, make, parameters, specs and descriptions."""

import pytest

from parlour.baselines import REGISTRY, Param, describe, make, make_from_spec, parse_spec, references
from parlour.games import GAMES, load_game
from parlour.games.goofspiel import GoofspielGame
from parlour.games.sticks import SticksGame


def test_names_include_the_generic_and_original_players():
    for name in ["random", "minimax", "alphabeta", "paranoid", "optimal", "original-minimax", "rudimentary", "original-search"]:
        assert name in REGISTRY


def test_unknown_policy_lists_the_names():
    with pytest.raises(ValueError, match=r"unknown policy 'best'; policies are \[.*'alphabeta'.*\]"):
        make("best", SticksGame())


@pytest.mark.parametrize("old, new, game", [("seed-minimax", "original-minimax", "sticks"),
                                            ("seed-tournament", "original-tournament", "double_card")])
def test_an_old_name_says_the_new_one(old, new, game):
    with pytest.raises(ValueError, match=f"unknown policy '{old}' \\(renamed '{new}'\\)"):
        make(old, game)
    with pytest.raises(ValueError, match=f"unknown policy '{old}' \\(renamed '{new}'\\) in '{old}:depth=1'"):
        make_from_spec(f"{old}:depth=1", game)


def test_a_game_may_be_named():
    by_name = make("original-minimax", "sticks", seed=1)
    assert by_name.game == SticksGame()
    assert make_from_spec("mcts:simulations=20", "goofspiel").game == GoofspielGame()
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        make("random", "chess")
    with pytest.raises(ValueError, match="expected a Game or a game name"):
        make("random", 3)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_has_reference_opponents_that_play_it(name):
    game = load_game(name)
    refs = references(game)
    roles = refs.final()
    assert set(roles) == {"random", "original", "strongest"}
    assert refs.final_games >= 1
    for spec in [*roles.values(), refs.quick]:
        policy = make_from_spec(spec, game)
        state = game.new_initial_state(0)
        seat = state.current_players()[0]
        assert policy.act(state.info_state(seat)) in state.legal_actions(seat)


def test_references_follow_the_configuration():
    assert references(GoofspielGame(num_cards=6)).strongest == "equilibrium"
    assert references(GoofspielGame(num_cards=6, imperfect_info=True)).strongest.startswith("mcts")
    assert references(GoofspielGame(num_cards=13)).quick == "mcts:simulations=200"


def test_unknown_parameter_lists_the_parameters():
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['deep'\] for policy 'minimax'; parameters are: depth=None"):
        make("minimax", SticksGame(), deep=3)


def test_bad_parameter_values():
    with pytest.raises(ValueError, match="depth=0: must be at least 1"):
        make("minimax", SticksGame(), depth=0)
    with pytest.raises(ValueError, match=r"ordering='fast': allowed values are \['history', 'evaluation', 'none'\]"):
        make("alphabeta", SticksGame(), ordering="fast")
    with pytest.raises(ValueError, match="time_limit=-1.0: must be positive"):
        make("alphabeta", SticksGame(), time_limit=-1)
    with pytest.raises(ValueError, match="unknown evaluation 'smart' for sticks"):
        make("minimax", SticksGame(), depth=2, evaluation="smart")


def test_policy_refuses_games_it_cannot_play():
    with pytest.raises(ValueError, match="cannot play goofspiel: its moves are simultaneous"):
        make("alphabeta", GoofspielGame())
    with pytest.raises(ValueError, match="cannot play sticks: it is made for goofspiel"):
        make("rudimentary", SticksGame())


def test_specs_from_the_command_line():
    assert parse_spec("mcts:simulations=400,c=1.4") == ("mcts", {"simulations": "400", "c": "1.4"})
    assert parse_spec("random") == ("random", {})
    policy = make_from_spec("alphabeta:depth=3,tt=false,ordering=none", SticksGame(), seed=1)
    assert policy.config["depth"] == 3 and policy.config["tt"] is False
    assert repr(policy) == "alphabeta:depth=3,ordering=none,tt=False"
    for bad, message in [(":depth=3", "no policy name"), ("minimax:depth", "is not key=value"), ("minimax:depth=three", "expected int"),
                         ("alphabeta:tt=maybe", "expected bool"), ("nobody", "unknown policy 'nobody'")]:
        with pytest.raises(ValueError, match=message):
            make_from_spec(bad, SticksGame())


def test_param_parsing():
    assert Param(3, "", int).parse("n", "7") == 7
    assert Param(0.5, "", float).parse("x", "2") == 2.0
    assert Param(True, "", bool).parse("b", "off") is False
    with pytest.raises(ValueError, match="expected an integer"):
        Param(3, "", int).parse("n", 2.5)


def test_describe_lists_parameters():
    text = describe()
    assert "alphabeta: alpha-beta search" in text
    assert "time_limit=None: seconds per move" in text
    assert f"source: {REGISTRY['rudimentary'].source}" in text
    only_sticks = describe(game=SticksGame())
    assert "rudimentary" not in only_sticks and "optimal" in only_sticks


def test_same_seed_same_actions():
    game = GoofspielGame(num_cards=8)
    state = game.new_initial_state(3)
    for name in ["random", "original-search"]:
        a = [make(name, game, seed=5).act(state.info_state(0)) for _ in range(2)]
        assert a[0] == a[1]
    policy = make("random", game, seed=5)
    first = [policy.act(state.info_state(0)) for _ in range(10)]
    policy.reset(seed=5)
    assert [policy.act(state.info_state(0)) for _ in range(10)] == first


def test_game_specific_policies_may_share_a_name():
    from parlour.baselines import Policy, lookup, register, unregister

    class SticksFirst(Policy):
        name, summary, games = "test-shared", "takes one", ("sticks",)

        def act(self, info_state):
            return 0

    class GoofspielLast(Policy):
        name, summary, games = "test-shared", "bids the highest", ("goofspiel",)

        def act(self, info_state):
            return info_state.legal_actions()[-1]

    try:
        register(SticksFirst)
        register(GoofspielLast)
        assert lookup("test-shared", SticksGame()) is SticksFirst
        assert isinstance(make("test-shared", GoofspielGame()), GoofspielLast)
        with pytest.raises(ValueError, match="two policies are called 'test-shared' for the same game"):
            register(type("Again", (SticksFirst,), {}))
    finally:
        unregister("test-shared")
    with pytest.raises(ValueError, match="test-shared"):
        lookup("test-shared", SticksGame())  # both games' classes are gone
    with pytest.raises(ValueError, match="test-shared"):
        unregister("test-shared")
