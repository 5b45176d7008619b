"""OpenSpiel's games inside parlour (``load_game("openspiel:...")``): the games protocol
holds (chance resolved from the start's seed, illegal moves refused without a change,
text and pickling round trips, information states that sample), PettingZoo's own API
tests pass on the envs, and parlour's baselines, arena and command line play them."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs open_spiel (the openspiel extra)")

from pettingzoo.test import api_test, parallel_api_test, seed_test  # noqa: E402

from parlour import IllegalActionError  # noqa: E402
from parlour.baselines import make_from_spec  # noqa: E402
from parlour.cli import main  # noqa: E402
from parlour.envs import openspiel_v0  # noqa: E402
from parlour.evaluation.arena import play_match  # noqa: E402
from parlour.games import load_game  # noqa: E402
from parlour.interop.openspiel import OpenSpielGame  # noqa: E402

GAMES = ["tic_tac_toe", "connect_four", "othello", "leduc_poker", "kuhn_poker(players=3)", "goofspiel(num_cards=4)", "oshi_zumo"]


def random_game(game, seed: int):
    """A state played to the end by uniformly random moves, and the number of moves."""
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    moves = 0
    while not state.is_terminal():
        players = state.current_players()
        if game.simultaneous:
            state.apply({p: int(rng.choice(state.legal_actions(p))) for p in players})
        else:
            state.apply(int(rng.choice(state.legal_actions(players[0]))))
        moves += 1
    return state, moves


@pytest.mark.parametrize("name", GAMES)
def test_the_protocol_holds(name):
    game = load_game(f"openspiel:{name}")
    spiel = pyspiel.load_game(name)
    assert game.name == f"openspiel:{name}" and game.num_players == spiel.num_players()
    assert game.num_actions == spiel.num_distinct_actions() and game.simultaneous == (
        spiel.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS)
    assert pickle.loads(pickle.dumps(game)) == game == load_game(game.name, **game.config)
    state, moves = random_game(game, 3)
    assert 0 < moves <= game.info.max_game_length
    low, high = game.returns_bounds
    assert np.all(state.returns() >= low) and np.all(state.returns() <= high)
    again, _ = random_game(game, 3)  # the same seed, the same chance and the same game
    assert again.to_text() == state.to_text()
    assert game.state_from_text(state.to_text()).to_text() == state.to_text()
    start = game.new_initial_state(5)
    for seat in range(game.num_players):
        assert start.observation_tensor(seat).shape == game.observation_shape
        assert start.observation_tensor(seat).dtype == np.float32
        mask = start.legal_mask(seat)
        assert mask.dtype == np.int8 and list(np.flatnonzero(mask)) == start.legal_actions(seat)


def test_chance_comes_from_the_seed_and_clones_draw_the_same():
    game = load_game("openspiel:leduc_poker")
    deals = {game.new_initial_state(seed).spiel.history()[0] for seed in range(40)}
    assert len(deals) == 6  # every card is dealt to player_0 in some game
    state = game.new_initial_state(7)
    state.apply(1)  # call
    state.apply(1)  # call: the public card is dealt at once
    clone = state.clone()
    assert clone.spiel.history() == state.spiel.history() and len(state.spiel.history()) == 5
    first, second = state.clone(), state.clone()
    for s in (first, second):
        s.apply(1)
    assert first.to_text() == second.to_text()


def test_illegal_moves_raise_and_change_nothing():
    game = load_game("openspiel:tic_tac_toe")
    state = game.new_initial_state()
    state.apply(4)
    before = state.to_text()
    for bad, message in [(4, "illegal for seat 1"), (2.0, "not an integer"), ({0: 1}, "only seat 1 acts now"), (True, "not an integer")]:
        with pytest.raises(IllegalActionError, match=message):
            state.apply(bad)
        assert state.to_text() == before
    simultaneous = load_game("openspiel:goofspiel(num_cards=4)")
    bids = simultaneous.new_initial_state(0)
    with pytest.raises(IllegalActionError, match="every seat acts now"):
        bids.apply(1)
    with pytest.raises(IllegalActionError, match="illegal for seat 1"):
        bids.apply({0: 0, 1: 9})


@pytest.mark.parametrize(("name", "message"), [
    ("no_such_game", "OpenSpiel cannot load the game 'no_such_game'"),
    ("mfg_crowd_modelling", "only sequential and simultaneous games"),
    ("python_hangman", None),
])
def test_games_that_cannot_be_wrapped_say_why(name, message):
    if message is None:  # a sampled-stochastic game, if this OpenSpiel has one under that name
        kinds = [g for g in pyspiel.registered_games() if g.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
                 and g.default_loadable and g.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL]
        name, message = kinds[0].short_name, "sampled-stochastic"
    with pytest.raises(ValueError, match=message):
        load_game(f"openspiel:{name}")
    with pytest.raises(ValueError, match="no simultaneous nodes"):
        openspiel_v0.parallel_env(game="tic_tac_toe")


def test_information_states_sample_consistent_states():
    game = load_game("openspiel:leduc_poker")
    state = game.new_initial_state(11)
    state.apply(1)
    info = state.info_state(1)
    rng = np.random.default_rng(0)
    samples = [info.sample(rng) for _ in range(20)]
    assert all(s.info_state(1) == info for s in samples)
    assert len({s.spiel.history()[0] for s in samples}) > 1  # the opponent's card varies
    assert info.legal_actions() == state.legal_actions(1)
    perfect = load_game("openspiel:connect_four").new_initial_state()
    assert perfect.info_state(0).sample().to_text() == perfect.to_text()


@pytest.mark.parametrize("name", ["tic_tac_toe", "leduc_poker", "kuhn_poker(players=3)", "goofspiel(num_cards=4)"])
def test_pettingzoo_api_tests_pass(name):
    api_test(openspiel_v0.env(game=name), num_cycles=60)
    api_test(openspiel_v0.raw_env(game=name), num_cycles=60)
    seed_test(lambda render_mode=None: openspiel_v0.env(game=name, render_mode=render_mode), num_cycles=30)


@pytest.mark.parametrize("name", ["goofspiel(num_cards=4)", "oshi_zumo"])
def test_pettingzoo_parallel_api_tests_pass(name):
    parallel_api_test(openspiel_v0.parallel_env(game=name), num_cycles=60)


def test_parlours_baselines_play_openspiel_games():
    tic_tac_toe = load_game("openspiel:tic_tac_toe")
    result = play_match(tic_tac_toe, ["random", "alphabeta"], 6, seed=0, progress=False)
    assert len(result.records) == 6
    assert all(record.returns[record.agents.index(1)] >= 0 for record in result.records)  # alpha-beta (agent 1) never loses
    leduc = load_game("openspiel:leduc_poker")
    for spec in ("ismcts:simulations=30", "pimc:samples=3", "mcts:simulations=30"):
        policy = make_from_spec(spec, leduc, seed=0)
        state = leduc.new_initial_state(1)
        assert policy.act(state.info_state(state.current_players()[0])) in state.legal_actions(state.current_players()[0])
    goofspiel = load_game("openspiel:goofspiel(num_cards=4)")
    policy = make_from_spec("sm-mcts:simulations=30", goofspiel, seed=0)
    state = goofspiel.new_initial_state(2)
    assert policy.act(state.info_state(1)) in state.legal_actions(1)


def test_the_command_line_takes_openspiel_games(capsys, tmp_path):
    assert main(["arena", "--game", "openspiel:tic_tac_toe", "--agents", "random", "mcts:simulations=20", "--games", "2", "--quiet"]) == 0
    assert "mcts:simulations=20" in capsys.readouterr().out
    assert main(["arena", "--game", "openspiel:leduc_poker", "--option", "players=3", "--agents", "random", "random",
                 "ismcts:simulations=10", "--games", "1", "--quiet"]) == 0
    assert "leduc_poker(players=3)" in capsys.readouterr().out
    assert main(["arena", "--game", "openspiel:no_such_game", "--agents", "random", "random"]) == 2
    assert "OpenSpiel cannot load the game" in capsys.readouterr().err
    assert isinstance(load_game("openspiel:leduc_poker", players=3), OpenSpielGame)


def test_parlours_training_runs_on_an_openspiel_game():
    """The single-agent view (the learner's seat against parlour's baselines) over a
    wrapped game trains with MaskablePPO as on parlour's own games."""
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from sb3_contrib import MaskablePPO

    from parlour.training.single_agent import SingleAgentEnv

    env = SingleAgentEnv(game="openspiel:tic_tac_toe", opponent="random,mcts:simulations=10")
    observation, info = env.reset(seed=0)
    assert observation.shape == (3, 3, 3) and env.action_masks().sum() >= 8
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(128)
    assert model.num_timesteps >= 128
