"""Bad input to the envs: clear errors that leave the state untouched, or (env(),
parallel_env()) the classic convention of ending the game with -1 for the offender.
The cases every env shares (a masked-out action, an action outside the space) run on
every configuration in test_env_conformance.py; these are the exact messages and the
corners: the second seat of a round offending, both seats offending, odd action types,
bad configurations and reset options."""

import re

import numpy as np
import pytest
from pettingzoo.utils.env_logger import EnvLogger

from parlour import IllegalActionError
from parlour.envs import goofspiel_v0, sticks_v0


def test_raw_env_illegal_action_raises_and_changes_nothing():
    env = sticks_v0.raw_env(num_sticks=2)
    env.reset()
    before = env.render_mode, env.game_state.to_text(), env.agent_selection
    with pytest.raises(IllegalActionError, match=r"take 3.*legal actions are \[0, 1\]"):
        env.step(2)
    assert (env.render_mode, env.game_state.to_text(), env.agent_selection) == before
    env.step(1)
    assert env.terminations["player_0"]


def test_raw_env_simultaneous_illegal_bid_raises():
    env = goofspiel_v0.raw_env(num_cards=3, prize_order="descending")
    env.reset()
    env.step(2)
    env.step(0)
    with pytest.raises(IllegalActionError, match=r"illegal for player_0; legal actions are \[0, 1\]"):
        env.step(2)  # card 3 was already played
    assert env.agent_selection == "player_0" and env.game_state.round == 1


def test_env_illegal_bid_in_simultaneous_round():
    env = goofspiel_v0.env(num_cards=3)
    env.reset(seed=0)
    env.step(0)
    env.step(1)
    env.step(1)  # player_0's card 2 is fine
    env.step(1)  # player_1 already played card 2
    assert env.rewards == {"player_0": 0.0, "player_1": -1.0}
    assert env.infos == {"player_0": {"illegal_action": True, "illegal_move": -1}, "player_1": {"illegal_action": True, "illegal_move": 1}}
    assert env.end_reason == "player_1 played illegal action 1; legal actions were [0, 2]"


def test_parallel_env_illegal_actions():
    env = goofspiel_v0.parallel_env(num_cards=3)
    env.reset(seed=0)
    env.step({"player_0": 0, "player_1": 0})
    observations, rewards, terms, _, infos = env.step({"player_0": 0, "player_1": 0})  # both replay card 1
    assert not any(o["action_mask"].any() for o in observations.values())
    assert rewards == {"player_0": -1.0, "player_1": -1.0}
    assert all(terms.values()) and env.agents == []
    assert infos == dict.fromkeys(("player_0", "player_1"), {"illegal_action": True, "illegal_move": 0})
    assert env.end_reason.startswith("player_0 played illegal action 0") and "; player_1 played illegal action 0" in env.end_reason
    raw = goofspiel_v0.raw_parallel_env(num_cards=3)
    raw.reset(seed=0)
    raw.step({"player_0": 0, "player_1": 0})
    with pytest.raises(IllegalActionError, match="card 1"):
        raw.step({"player_0": 1, "player_1": 0})
    assert raw.game_state.round == 1 and raw.agents == ["player_0", "player_1"]


@pytest.mark.parametrize("factory", [goofspiel_v0.env, goofspiel_v0.raw_env])
@pytest.mark.parametrize(
    "action, message",
    [(3, "outside the action space Discrete"), (-1, "outside the action space Discrete"), (np.int64(3), "outside the action space"),
     (1.5, "is not an integer"), (1.0, "is not an integer"), (np.float32(2.0), "is not an integer"), ("1", "is not an integer"),
     (np.array([1]), "is not an integer"), (np.array([0, 1]), "is not an integer"), (True, "is not an integer")],
)
def test_an_action_outside_the_space_is_an_error_in_every_env(factory, action, message):
    """One rule (docs/envs.md): an action is an int, a numpy integer or a 0-d integer
    array in ``range(n)``; anything else raises in every mode and changes nothing."""
    env = factory(num_cards=3)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=message):
        env.step(action)
    assert env.unwrapped.game_state.round == 0 and env.agent_selection == "player_0"


@pytest.mark.parametrize("action", [np.int64(1), np.uint8(1), np.array(1)])
def test_numpy_integers_are_actions(action):
    env = goofspiel_v0.raw_env(num_cards=3, prize_order="descending")
    env.reset(seed=0)
    env.step(action)
    env.step(0)
    assert env.game_state.bids == [(1, 0)]
    par = goofspiel_v0.raw_parallel_env(num_cards=3)
    par.reset(seed=0)
    par.step({"player_0": action, "player_1": np.int32(0)})
    assert par.game_state.bids == [(1, 0)]
    with pytest.raises(IllegalActionError, match="is not an integer"):
        par.step({"player_0": 1.0, "player_1": 0})


def test_none_action_for_a_live_agent():
    env = sticks_v0.raw_env()
    env.reset()
    with pytest.raises(IllegalActionError, match="is to act but the action is None"):
        env.step(None)


def test_parallel_wrong_and_missing_agents():
    env = goofspiel_v0.parallel_env(num_cards=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"unknown agent\(s\) \['player_5'\]"):
        env.step({"player_0": 0, "player_1": 0, "player_5": 0})
    with pytest.raises(ValueError, match=r"no action for \['player_1'\]"):
        env.step({"player_0": 0})
    with pytest.raises(ValueError, match="must be a dict"):
        env.step([0, 0])
    with pytest.raises(IllegalActionError, match="outside the action space"):
        env.step({"player_0": 7, "player_1": 0})
    assert env.game_state.round == 0


def test_actions_after_the_game_ended():
    par = goofspiel_v0.parallel_env(num_cards=1)
    par.reset(seed=0)
    par.step({"player_0": 0, "player_1": 0})
    with pytest.raises(IllegalActionError, match="game is over"):
        par.step({"player_0": 0, "player_1": 0})
    env = sticks_v0.env(num_sticks=1)
    env.reset()
    env.step(0)
    env.step(None)
    env.step(None)
    assert env.agents == []
    env.step(0)  # PettingZoo's wrapper only logs a warning for a step after the end
    assert env.agents == []
    raw = sticks_v0.raw_env(num_sticks=1)
    raw.reset()
    for action in (0, None, None):
        raw.step(action)
    with pytest.raises(IllegalActionError, match="game is over; call reset"):
        raw.step(0)


def test_order_is_enforced():
    env = sticks_v0.env()
    with pytest.raises(Exception, match="reset"):
        env.step(0)
    raw = goofspiel_v0.raw_parallel_env()
    with pytest.raises(RuntimeError, match="reset"):
        raw.step({"player_0": 0, "player_1": 0})


@pytest.mark.parametrize("module", [sticks_v0, goofspiel_v0])
def test_env_enforces_order_as_pettingzoos_wrapper_does(module):
    """``env()`` makes PettingZoo's ``OrderEnforcingWrapper`` checks itself (adapter.py,
    ``OrderEnforcing``): the wrapper's errors, word for word, before ``reset``."""
    env = module.env()
    assert str(env) == f"OrderEnforcing<{module.__name__.rsplit('.', 1)[1]}>"
    for call, message in [
        (lambda: env.step(0), "reset() needs to be called before step."),
        (lambda: env.observe("player_0"), "reset() needs to be called before observe."),
        (lambda: env.observe("nobody"), "reset() needs to be called before observe."),
        (lambda: env.last(), "reset() needs to be called before observe."),
        (lambda: env.last(observe=False), "reset() needs to be called before observe."),
        (lambda: env.render(), "reset() needs to be called before render."),
        (lambda: env.state(), "reset() needs to be called before state."),
        (lambda: env.agent_iter(), "reset() needs to be called before agent_iter()."),
    ]:
        with pytest.raises(AssertionError, match=re.escape(message)):
            call()
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "num_agents"):
        with pytest.raises(AttributeError, match=f"^{name} cannot be accessed before reset$"):
            getattr(env, name)
    with pytest.raises(AttributeError, match="no attribute 'colour'"):
        env.colour  # noqa: B018
    env.reset(seed=0)
    assert env.num_agents == 2 and env.unwrapped is env
    with pytest.raises(AssertionError, match="need to call step"):
        for _agent in env.agent_iter():
            pass  # no step between two agents
    raw = module.raw_env()
    for call, error in [(lambda: raw.step(0), RuntimeError), (lambda: raw.observe("player_0"), RuntimeError),
                        (lambda: raw.observe("nobody"), ValueError), (lambda: raw.last(), AttributeError)]:
        with pytest.raises(error):
            call()


def test_env_step_after_the_end_warns_and_changes_nothing():
    env = goofspiel_v0.env(num_cards=1)
    env.reset(seed=0)
    for _agent in env.agent_iter():
        env.step(None if env.terminations[env.agent_selection] else 0)
    assert env.agents == [] and env.game_state.is_terminal()
    EnvLogger.flush()
    env.step(3)  # even an action outside the space: the wrapper never looked at it
    assert env.agents == [] and env.game_state.is_terminal()
    assert any("step() called after all agents are terminated" in m for m in EnvLogger.mqueue)
    EnvLogger.flush()


def test_env_failed_reset_then_step():
    """The wrapper counted a ``reset`` that raised as a reset; so does ``env()``."""
    env = goofspiel_v0.env(num_cards=3)
    with pytest.raises(ValueError, match="permutation"):
        env.reset(options={"prizes": [1, 2]})
    with pytest.raises(AttributeError):
        env.step(0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_cards": 0}, "num_cards must be between 1 and 1000"),
        ({"tie_rule": "split"}, "tie_rule must be one of"),
        ({"render_mode": "video"}, "render_mode must be one of"),
        ({"colour": "red"}, "unknown option"),
    ],
)
def test_bad_configuration(kwargs, message):
    with pytest.raises(ValueError, match=message):
        goofspiel_v0.env(**kwargs)
    with pytest.raises(ValueError, match=message):
        goofspiel_v0.parallel_env(**kwargs)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"prizes": [1, 2]}, "permutation of 1..3"),
        ({"hands": [[1, 2, 3]]}, "one list of cards per player"),
        ({"position": "nonsense"}, "malformed goofspiel position"),
        ({"position": 3}, "text form of a position"),
        ({"position": "x", "prizes": [1, 2, 3]}, "cannot be combined"),
        ("prizes", "must be a dict"),
    ],
)
def test_bad_reset_options_leave_the_previous_game(options, message):
    env = goofspiel_v0.raw_env(num_cards=3, prize_order="descending")
    env.reset()
    env.step(0)
    before = env.game_state.to_text(), env.agent_selection
    with pytest.raises(ValueError, match=message):
        env.reset(options=options)
    assert (env.game_state.to_text(), env.agent_selection) == before


def test_unknown_reset_option_warns():
    env = sticks_v0.raw_env()
    with pytest.warns(UserWarning, match=r"ignoring unknown reset option\(s\) \['stick'\]"):
        env.reset(options={"stick": 3})
    assert env.game_state.sticks == 10


def test_bad_sticks_reset_options():
    env = sticks_v0.raw_env(num_sticks=5)
    for options, message in [({"sticks": 0}, "between 1 and 5"), ({"sticks": 9}, "between 1 and 5"),
                             ({"position": "9 sticks | player_0 to move"}, "does not fit")]:
        with pytest.raises(ValueError, match=message):
            env.reset(options=options)


def test_observe_unknown_agent():
    env = sticks_v0.raw_env()
    env.reset()
    with pytest.raises(ValueError, match=r"unknown agent 'player_2'; agents are \['player_0', 'player_1'\]"):
        env.observe("player_2")


@pytest.mark.parametrize("config", [dict(prize_order="descending"), dict(prize_order="random")])
def test_seeds_without_and_with_chance(config):
    """The env makes its generator only when a game with chance needs it (adapter.py,
    ``_new_state``): the same seed still gives the same games, a seedless reset goes on
    with the seeded stream, and a bad seed is still an error at reset."""
    games = []
    for _ in range(2):
        env = goofspiel_v0.raw_env(num_cards=6, **config)
        env.reset(seed=3)
        first = env.game_state.prizes
        env.reset()
        games.append((first, env.game_state.prizes))
    assert games[0] == games[1]
    if config["prize_order"] == "random":
        rng = np.random.default_rng(3)
        assert games[0] == tuple(tuple((rng.permutation(6) + 1).tolist()) for _ in range(2))
    for bad in (-1, 1.5):
        with pytest.raises((ValueError, TypeError)):
            goofspiel_v0.raw_env(num_cards=3, **config).reset(seed=bad)
