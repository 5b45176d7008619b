"""The Gymnasium single-agent view: env checkers, final rewards, masks, seeds, vec envs."""

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import parlour
from parlour.baselines import Policy
from parlour.errors import IllegalActionError
from parlour.games import GAMES, load_game
from parlour.registration import GYM_IDS
from parlour.training.opponents import OpponentPool, parse_opponents, split_specs
from parlour.training.single_agent import SingleAgentEnv

SEAT_MODES = ["random", 0, 1]
CONFIGS = {
    "sticks": {},
    "goofspiel": {"num_cards": 5},
    "tides_of_time": {"rounds": 1},
    "tribolo": {},
    "double_card": {},
}


def random_episode(env, seed):
    """Play one episode with random legal actions; the (obs, reward) trajectory."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trajectory = [obs.copy()]
    while True:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any(), "the learner must always have a legal move"
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        trajectory.append((obs.copy(), reward))
        assert not truncated
        if terminated:
            return trajectory, reward, info


@pytest.mark.parametrize("game, seat", [(g, s) for g in sorted(GAMES) for s in SEAT_MODES] + [("tribolo", 2)])
def test_check_env(game, seat):
    sb3_check_env = pytest.importorskip("stable_baselines3.common.env_checker", reason="needs the train extra").check_env

    env = SingleAgentEnv(game, "random", seat=seat, **CONFIGS[game])
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*image.*")  # 3-D board planes are not images
        warnings.filterwarnings("ignore", message=".*resolution.*")
        check_env(env, skip_render_check=True)
        sb3_check_env(env)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_registered_with_gymnasium(game):
    env = gymnasium.make(GYM_IDS[game], opponent="random", seat=0)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    assert info["seat"] == 0
    assert "parlour/Goofspiel-v0" in gymnasium.registry and parlour.__version__


@pytest.mark.parametrize("game", sorted(GAMES))
def test_episodes_end_with_the_learner_return_and_masks_are_never_empty(game):
    env = SingleAgentEnv(game, "random", **CONFIGS[game])
    for seed in range(6):
        _, reward, info = random_episode(env, seed)
        assert reward == pytest.approx(env.game_state.returns()[env.seat])
        assert env.game_state.is_terminal()
        assert env.action_masks().all()  # after the end, nothing is masked


@pytest.mark.parametrize("game", sorted(GAMES))
def test_observation_is_the_pettingzoo_observation(game):
    from importlib import import_module

    env = SingleAgentEnv(game, "random", seat=0, **CONFIGS[game])
    obs, _ = env.reset(seed=5)
    aec = import_module(f"parlour.envs.{game}_v0").raw_env(**CONFIGS[game])
    aec.reset(options={"position": env.game_state.to_text()})
    np.testing.assert_array_equal(obs, aec.observe("player_0")["observation"])
    np.testing.assert_array_equal(env.action_masks(), aec.observe("player_0")["action_mask"].astype(bool))


class TakeOne(Policy):
    name = "take-one"
    summary = "always takes one stick (test stub)"

    def act(self, info_state):
        return 0


def test_learner_gets_its_final_reward_when_the_opponent_ends_the_game():
    """Misere sticks, 3 sticks: the learner takes one (2 left), the opponent takes one
    (1 left), the learner must take the last and lose; then 4 sticks: the learner takes
    two, the opponent takes one and takes the last stick itself: the learner wins, on a
    move it did not make."""
    game = load_game("sticks", num_sticks=4, max_take=3, misere=True)
    env = SingleAgentEnv(game, TakeOne(game), seat=0)
    env.reset(seed=0)
    obs, reward, terminated, _, _ = env.step(1)  # take two: 2 left; opponent takes one; 1 left
    assert not terminated and reward == 0
    obs, reward, terminated, _, _ = env.step(0)  # the learner must take the last stick
    assert terminated and reward == -1.0

    game = load_game("sticks", num_sticks=3, max_take=3, misere=True)
    env = SingleAgentEnv(game, TakeOne(game), seat=0)
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step(1)  # take two: 1 left; the opponent must take it
    assert terminated and reward == 1.0
    assert env.game_state.returns()[1] == -1.0


def test_opponent_moves_inside_reset_when_the_learner_sits_second():
    game = load_game("sticks", num_sticks=10, max_take=3)
    env = SingleAgentEnv(game, TakeOne(game), seat=1)
    env.reset(seed=0)
    assert env.game_state.sticks == 9
    assert env.game_state.current_players() == (1,)


def test_tribolo_skips_are_played_through():
    env = SingleAgentEnv("tribolo", "random", seat=2)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        done = False
        rng = np.random.default_rng(seed)
        while not done:
            assert env.game_state.current_players() == (2,)
            obs, reward, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        assert reward == pytest.approx(env.game_state.returns()[2])


def test_simultaneous_opponents_act_in_the_same_step():
    env = SingleAgentEnv("goofspiel", "random", seat=1, num_cards=4, prize_order="descending")
    env.reset(seed=1)
    assert env.game_state.bids == []
    env.step(0)  # bid card 1 in round 1; the opponent bids in the same step
    (bids,) = env.game_state.bids
    assert bids[1] == 0 and bids[0] in range(4)
    assert env.game_state.current_players() == (0, 1)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_same_seed_same_episode(game):
    env_a = SingleAgentEnv(game, "random", **CONFIGS[game])
    env_b = SingleAgentEnv(game, "random", **CONFIGS[game])
    for seed in (0, 7):
        a, _, _ = random_episode(env_a, seed)
        b, _, _ = random_episode(env_b, seed)
        assert len(a) == len(b)
        for x, y in zip(a[1:], b[1:], strict=True):
            np.testing.assert_array_equal(x[0], y[0])
            assert x[1] == y[1]


def _vec_trajectories(kind, game):
    vec_env = pytest.importorskip("stable_baselines3.common.vec_env", reason="needs the train extra")
    DummyVecEnv, SubprocVecEnv = vec_env.DummyVecEnv, vec_env.SubprocVecEnv

    fns = [lambda: SingleAgentEnv(game, ["random", "greedy"] if game == "tribolo" else "random", **CONFIGS[game])] * 2
    vec = (SubprocVecEnv if kind == "subproc" else DummyVecEnv)(fns)
    try:
        vec.seed(11)
        obs = vec.reset()
        rng = np.random.default_rng(0)
        out = [obs.copy()]
        for _ in range(40):
            masks = np.stack(vec.env_method("action_masks"))
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, rewards, dones, _ = vec.step(actions)
            out.append((obs.copy(), rewards.copy(), dones.copy()))
        return out
    finally:
        vec.close()


@pytest.mark.parametrize("game", ["goofspiel", "tribolo"])
def test_subproc_and_dummy_vec_envs_agree(game):
    dummy = _vec_trajectories("dummy", game)
    subproc = _vec_trajectories("subproc", game)
    np.testing.assert_array_equal(dummy[0], subproc[0])
    for (o1, r1, d1), (o2, r2, d2) in zip(dummy[1:], subproc[1:], strict=True):
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(d1, d2)


def test_illegal_action_loses_or_raises():
    env = SingleAgentEnv("sticks", "random", seat=0, num_sticks=2, max_take=3)
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step(2)  # take 3 of 2
    assert terminated and reward == -1.0
    assert info == {"seat": 0, "illegal_action": True, "illegal_move": 2}
    assert env.end_reason == "player_0 played illegal action 2; legal actions were [0, 1]"
    assert env.opponent_labels == {1: "random"}
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = SingleAgentEnv("sticks", "random", seat=0, num_sticks=2, max_take=3, illegal_action="raise")
    strict.reset(seed=0)
    before = strict.game_state.to_text()
    with pytest.raises(IllegalActionError, match="played illegal action 2"):
        strict.step(2)
    assert strict.game_state.to_text() == before


def test_one_vocabulary_for_illegal_moves():
    """The learner views take the PettingZoo envs' words ("terminate", "raise"); their old
    "lose" still terminates, with a DeprecationWarning; anything else names the two."""
    from parlour.envs.adapter import ParlourAECEnv
    from parlour.vector.gym_env import BatchedVectorEnv

    with pytest.warns(DeprecationWarning, match='"lose" is now called "terminate"'):
        env = SingleAgentEnv("sticks", "random", seat=0, num_sticks=2, max_take=3, illegal_action="lose")
    assert env.illegal_action == "terminate"
    env.reset(seed=0)
    assert env.step(2)[1] == -1.0
    for make in (lambda mode: SingleAgentEnv("sticks", illegal_action=mode),
                 lambda mode: BatchedVectorEnv("sticks", 2, illegal_action=mode),
                 lambda mode: ParlourAECEnv(GAMES["sticks"], illegal_action=mode)):
        with pytest.raises(ValueError, match=r"illegal_action must be one of \['terminate', 'raise'\], got 'quit'"):
            make("quit")


@pytest.mark.parametrize("illegal_action", ["terminate", "raise"])
@pytest.mark.parametrize("action", [3, -1, np.int64(7), 1.0, np.float32(0.0), True, np.array([0]), "one"])
def test_an_action_outside_the_space_raises_in_either_mode(illegal_action, action):
    """Outside ``Discrete(3)`` (out of range, or not an integer) is a programming error,
    as in the PettingZoo envs; only an in-space but illegal action can lose."""
    env = SingleAgentEnv("sticks", "random", seat=0, num_sticks=5, max_take=3, illegal_action=illegal_action)
    env.reset(seed=0)
    before = env.game_state.to_text()
    with pytest.raises(IllegalActionError, match="outside the action space Discrete"):
        env.step(action)
    assert env.game_state.to_text() == before
    _, reward, terminated, _, info = env.step(np.array(1))  # a 0-d integer array is an action
    assert not info["illegal_action"] and env.game_state.sticks < 5


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"seat": 2}, "seat must be"),
        ({"seat": "first"}, "seat must be"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"render_mode": "video"}, "render_mode"),
        ({"opponent": "no-such-policy"}, "unknown policy"),
        ({"opponent": ["random", "random"], "opponent_weights": [1]}, "weights"),
        ({"opponent": ["random"], "opponent_weights": [-1]}, "non-negative"),
        ({"num_sticks": 0}, "num_sticks"),
    ],
)
def test_bad_configuration(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SingleAgentEnv("sticks", **kwargs)


def test_opponent_pool_draws_by_weight_and_split_specs():
    assert split_specs("mcts:simulations=50,c=2,random,ppo:runs/x/best.zip,self") == [
        "mcts:simulations=50,c=2",
        "random",
        "ppo:runs/x/best.zip",
        "self",
    ]
    game = load_game("sticks")
    pool = OpponentPool(game, parse_opponents(["random", "optimal"], [3, 1]))
    rng = np.random.default_rng(0)
    labels = [pool.draw(rng)[0] for _ in range(4000)]
    assert 0.72 < labels.count("random") / 4000 < 0.78
    with pytest.raises(ValueError, match="no snapshot"):
        OpponentPool(game, parse_opponents(["self"])).draw(rng)


def test_render_ansi_parses_back():
    env = SingleAgentEnv("double_card", "random", render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert env.game.state_from_text(text).to_text() == text
