"""PettingZoo's own api, parallel api and seed tests over a matrix of configurations,
plus a stricter whole-game determinism check of our own."""

import itertools
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import parlour  # noqa: F401  (registers the envs)
from parlour.envs import goofspiel_v0, sticks_v0


def _goofspiel_matrix():
    """Every value of every option, crossed with players {2, 3} and cards {1, 2, 5, 13}."""
    variants = [
        dict(tie_rule="carry", prize_order="random", imperfect_info=False, returns="win_loss"),
        dict(tie_rule="discard", prize_order="descending", imperfect_info=True, returns="point_difference"),
        dict(tie_rule="carry", prize_order="ascending", imperfect_info=True, returns="total_points"),
        dict(tie_rule="discard", prize_order="explicit", imperfect_info=False, returns="win_loss"),
        dict(tie_rule="discard", prize_order="random", imperfect_info=True, returns="win_loss"),
        dict(tie_rule="carry", prize_order="descending", imperfect_info=False, returns="point_difference"),
    ]
    for players, cards, variant in itertools.product([2, 3], [1, 2, 5, 13], variants):
        config = dict(variant, num_players=players, num_cards=cards)
        if config["prize_order"] == "explicit":
            config["prize_order"] = [(3 * i) % cards + 1 for i in range(cards)] if cards % 3 else list(range(cards, 0, -1))
        yield config


GOOFSPIEL = list(_goofspiel_matrix())
GOOFSPIEL_IDS = [
    f"p{c['num_players']}-n{c['num_cards']}-{c['tie_rule']}-{c['prize_order'] if isinstance(c['prize_order'], str) else 'list'}-"
    f"{'imp' if c['imperfect_info'] else 'pub'}-{c['returns']}"
    for c in GOOFSPIEL
]
STICKS = [
    dict(num_sticks=n, max_take=k, misere=m)
    for (n, k), m in itertools.product([(1, 1), (1, 3), (5, 2), (10, 3), (21, 4), (60, 5)], [True, False])
]
STICKS_IDS = [f"n{c['num_sticks']}-k{c['max_take']}-{'misere' if c['misere'] else 'normal'}" for c in STICKS]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test resets with options={"options": 1}
        yield


@pytest.mark.parametrize("config", GOOFSPIEL, ids=GOOFSPIEL_IDS)
def test_goofspiel_pettingzoo_tests(config):
    api_test(goofspiel_v0.env(**config), num_cycles=30)
    api_test(goofspiel_v0.raw_env(**config), num_cycles=30)
    parallel_api_test(goofspiel_v0.parallel_env(**config), num_cycles=30)
    seed_test(lambda: goofspiel_v0.env(**config), num_cycles=30)
    parallel_seed_test(lambda: goofspiel_v0.parallel_env(**config), num_cycles=30)


@pytest.mark.parametrize("config", STICKS, ids=STICKS_IDS)
def test_sticks_pettingzoo_tests(config):
    api_test(sticks_v0.env(**config), num_cycles=30)
    api_test(sticks_v0.raw_env(**config), num_cycles=30)
    seed_test(lambda: sticks_v0.env(**config), num_cycles=30)


def _aec_trace(env, seed, games=3):
    """Everything an AEC loop sees over whole games, with masked random actions."""
    trace = []
    rng = np.random.default_rng(seed)
    for g in range(games):
        env.reset(seed=seed + g)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            trace.append((agent, obs["observation"].tolist(), obs["action_mask"].tolist(), reward, term, trunc, repr(info)))
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
    return trace


def _parallel_trace(env, seed, games=3):
    trace = []
    rng = np.random.default_rng(seed)
    for g in range(games):
        observations, _ = env.reset(seed=seed + g)
        while env.agents:
            actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in sorted(observations.items())}
            observations, rewards, terms, truncs, infos = env.step(actions)
            trace.append(([(a, o["observation"].tolist(), o["action_mask"].tolist()) for a, o in sorted(observations.items())], rewards, terms, truncs))
    return trace


@pytest.mark.parametrize("config", GOOFSPIEL[::5], ids=GOOFSPIEL_IDS[::5])
def test_goofspiel_whole_games_are_deterministic(config):
    assert _aec_trace(goofspiel_v0.env(**config), 11) == _aec_trace(goofspiel_v0.env(**config), 11)
    assert _parallel_trace(goofspiel_v0.parallel_env(**config), 11) == _parallel_trace(goofspiel_v0.parallel_env(**config), 11)


def test_different_seeds_give_different_games():
    config = dict(num_cards=13)
    assert _aec_trace(goofspiel_v0.env(**config), 1) != _aec_trace(goofspiel_v0.env(**config), 2)


def test_reset_without_seed_continues_the_seeded_stream():
    a, b = goofspiel_v0.raw_env(), goofspiel_v0.raw_env()
    a.reset(seed=3)
    b.reset(seed=3)
    a.reset()
    b.reset()
    assert a.game_state.prizes == b.game_state.prizes


@pytest.mark.parametrize("config", STICKS[::3], ids=STICKS_IDS[::3])
def test_sticks_whole_games_are_deterministic(config):
    assert _aec_trace(sticks_v0.env(**config), 5) == _aec_trace(sticks_v0.env(**config), 5)


def test_registry_ids():
    env = pettingzoo.make("aec", "parlour/goofspiel-v0", num_cards=13)
    env.reset(seed=0)
    assert env.unwrapped.game.num_cards == 13
    par = pettingzoo.make("parallel", "parlour/goofspiel-v0", num_cards=4)
    observations, _ = par.reset(seed=0)
    assert set(observations) == {"player_0", "player_1"}
    sticks = pettingzoo.make("aec", "parlour/sticks-v0", num_sticks=7)
    sticks.reset()
    assert sticks.unwrapped.game_state.sticks == 7
    with pytest.raises(pettingzoo.env_registry.exceptions.NameNotFound):
        pettingzoo.make("parallel", "parlour/sticks-v0")
    parlour.registration.register_all()  # idempotent: no "overriding" warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parlour.registration.register_all()


def test_aec_simultaneous_step_hides_pending_bids():
    env = goofspiel_v0.raw_env(num_cards=3, prize_order="descending")
    env.reset()
    assert env.agent_selection == "player_0"
    before = env.observe("player_1")["observation"].copy()
    env.step(2)
    assert env.agent_selection == "player_1"
    assert env.observe("player_0")["action_mask"].tolist() == [0, 0, 0]  # already chose
    assert env.observe("player_1")["action_mask"].tolist() == [1, 1, 1]
    assert env.observe("player_1")["observation"].tolist() == before.tolist()  # bid unseen
    assert env.game_state.round == 0
    env.step(0)
    assert env.game_state.round == 1 and env.game_state.points == [3, 0]
    assert env.agent_selection == "player_0"


def test_fixed_start_replays():
    env = goofspiel_v0.parallel_env(num_cards=5)
    observations, _ = env.reset(seed=0, options={"prizes": [5, 4, 3, 2, 1], "hands": [[1, 2, 3, 4, 5]] * 2})
    assert env.game_state.prizes == (5, 4, 3, 2, 1)
    env.step({"player_0": 4, "player_1": 0})
    text = env.render() if env.render_mode else env.game_state.to_text()
    other = goofspiel_v0.parallel_env(num_cards=5, render_mode="ansi")
    other.reset(options={"position": text})
    assert other.render() == text
    sticks = sticks_v0.env(render_mode="ansi")
    sticks.reset(options={"sticks": 4})
    assert sticks.render() == "4 sticks | player_0 to move"
    sticks.reset(options={"position": "2 sticks | player_1 to move"})
    assert sticks.agent_selection == "player_1"


def test_render_modes(capsys):
    env = sticks_v0.env(render_mode="human")
    env.reset()
    env.render()
    assert "10 sticks | player_0 to move" in capsys.readouterr().out
    env.step(0)
    assert "9 sticks | player_1 to move" in capsys.readouterr().out  # human mode prints each step
    quiet = sticks_v0.env()
    quiet.reset()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert quiet.render() is None


def test_info_state_is_the_seats_view():
    env = goofspiel_v0.raw_env(num_cards=4, imperfect_info=True)
    env.reset(seed=1)
    env.step(3)
    env.step(0)
    info = env.info_state("player_1")
    assert info.player == 1 and info.bids == ((None, 0),)
    assert env.unwrapped.info_state("player_0").bids == ((3, None),)
    sticks = sticks_v0.raw_env()
    sticks.reset()
    assert sticks.info_state("player_0").legal_actions() == [0, 1, 2]
    with pytest.raises(ValueError, match="unknown agent 'player_9'"):
        env.info_state("player_9")


def test_spaces_are_cached_and_consistent():
    env = goofspiel_v0.env(num_cards=6, num_players=3)
    assert env.observation_space("player_0") is env.observation_space("player_0")
    assert env.action_space("player_2").n == 6
    env.reset(seed=0)
    obs = env.observe("player_2")
    assert env.observation_space("player_2").contains(obs)
    assert obs["action_mask"].dtype == np.int8
