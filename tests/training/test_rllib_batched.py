"""The RLlib backend's batched path (``rllib.vec_env = "batched"``): the batched vector
env RLlib's single-agent env runners step, the setting that chooses it, training,
checkpoints and resume on it.

The training tests start a real local Ray (bound to 127.0.0.1) once per test module."""

import numpy as np
import pytest
import tomllib

pytest.importorskip("ray.rllib", reason="needs the rllib extra")
torch = pytest.importorskip("torch", reason="needs the rllib extra")

from helpers import SMALL_GAMES, assert_rllib_form_is_the_player

from parlour.baselines import make_from_spec
from parlour.baselines.batched import RandomBatched
from parlour.baselines.learned.rllib_batched import BatchedModule
from parlour.cli import main
from parlour.evaluation.arena import play_match
from parlour.games import load_game
from parlour.training.backends.rllib.algo import batched_ppo_config
from parlour.training.backends.rllib.batched_env import BatchedRLlibEnv
from parlour.training.backends.rllib.league import add_league_snapshot
from parlour.training.config import TrainConfig, make_config, saved_settings
from parlour.training.run_files import RunFiles, read_evaluations
from parlour.training.trainer import Trainer
from parlour.vector.gym_env import LearnerCore

QUIET = {"progress": False, "log": lambda text: None}


def env_of(game="goofspiel", num_envs=8, opponents="random", **changes):
    return BatchedRLlibEnv({"game": game, "options": SMALL_GAMES[game], "opponents": opponents, "num_envs": num_envs, **changes})


def play(env, steps, seed, policy_seed=0):
    """Random legal moves (a game's action in the step after it ended is ignored: any will do)."""
    rng = np.random.default_rng(policy_seed)
    obs, _ = env.reset(seed=seed)
    trajectory = []
    for _ in range(steps):
        mask = obs["action_mask"].astype(bool)
        actions = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask])
        obs, rewards, terminated, truncated, _ = env.step(actions)
        trajectory.append((obs["observations"].copy(), rewards.copy(), terminated.copy()))
        assert not truncated.any()
    return trajectory


# -- the env -------------------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(SMALL_GAMES))
def test_the_env_is_one_batched_engine_in_rllibs_autoreset_mode(game):
    """A finished game shows its last observation with an empty mask and its reward; in the
    next step its action is ignored and it shows the new episode's first observation."""
    env = env_of(game, num_envs=6)
    assert env.engine.num_envs == 6 and env.num_envs == 6
    obs, _ = env.reset(seed=3)
    assert obs["observations"].shape == (6, *env.engine.observation_shape) and obs["action_mask"].dtype == np.float32
    assert env.single_observation_space.contains({"observations": obs["observations"][0], "action_mask": obs["action_mask"][0]})
    rng = np.random.default_rng(0)
    ended_before = np.zeros(6, dtype=bool)
    endings = 0
    for _ in range(120):
        mask = obs["action_mask"].astype(bool)
        assert (mask.any(axis=1) == ~ended_before).all()  # an empty mask exactly where a game just ended
        actions = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask])
        obs, rewards, terminated, _, _ = env.step(actions)
        assert (rewards[ended_before] == 0).all() and not terminated[ended_before].any()  # the reset step
        assert (rewards[~terminated] == 0).all()
        endings += int(terminated.sum())
        ended_before = terminated
    assert endings > 0


def test_the_same_seed_gives_the_same_games():
    first = play(env_of("tides_of_time", opponents="random,greedy"), 30, seed=5)
    again = play(env_of("tides_of_time", opponents="random,greedy"), 30, seed=5)
    other = play(env_of("tides_of_time", opponents="random,greedy"), 30, seed=6)
    assert all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) for a, b in zip(first, again))
    assert not all(np.array_equal(a[0], b[0]) for a, b in zip(first, other))


def test_a_held_game_stands_still():
    core = LearnerCore("goofspiel", 4, num_cards=4)
    core.reset(3)
    before = core.observation().copy()
    held = np.array([True, False, True, False])
    obs, rewards, ended, _, _ = core.step(np.array([99, 0, 99, 0]) * held + core.action_masks().argmax(axis=1) * ~held,
                                          where=~held)
    assert np.array_equal(obs[held], before[held]) and not ended[held].any() and (rewards[held] == 0).all()
    assert not np.array_equal(obs[~held], before[~held])


def test_league_seats_play_random_until_the_first_snapshot_then_the_snapshots():
    env = env_of("goofspiel", opponents="league", max_snapshots=2)
    env.reset(seed=0)
    assert env.league.recent() == 1 and isinstance(env.league.player(0), RandomBatched)
    module = object()
    for step in range(3):
        env.add_snapshot(f"league:step_{step}", module)
    assert env.league.paths == ["random", "league:step_0", "league:step_1", "league:step_2"] and env.league.recent() == 2
    assert env.league.player(1) is None and isinstance(env.league.player(3), BatchedModule)
    env.reset(seed=1)  # new episodes draw among the latest two
    assert set(env.mix.snapshot[env.mix.entry >= 0].tolist()) <= {2, 3}


@pytest.mark.parametrize(("config", "message"), [
    ({"opponents": "random,self"}, "opponent 'self' .* needs vec_env 'dummy'"),
    ({"opponents": "random", "num_envs": 0}, "num_envs must be an int >= 1"),
    ({"opponents": "random", "colour": 1}, r"unknown env_config key\(s\) \['colour'\]"),
    ({"opponents": "nobody"}, "nobody"),
])
def test_bad_env_configs(config, message):
    with pytest.raises(ValueError, match=message):
        BatchedRLlibEnv({"game": "sticks", **config})


# -- the setting ---------------------------------------------------------------------


def rllib_run(**changes):
    return make_config({"backend": "rllib", "game": "goofspiel", **changes})


def test_auto_is_batched_where_every_seat_but_the_learners_has_a_player():
    assert rllib_run(opponents=["random", "league"]).rllib["vec_env"] == "batched"
    batched = rllib_run(opponents=["random", "league"]).rllib
    assert (batched["num_envs_per_env_runner"], batched["train_batch_size"], batched["minibatch_size"]) == (256, 16384, 4096)
    given = rllib_run(opponents=["random"], rllib={"num_envs_per_env_runner": 32}).rllib
    assert (given["train_batch_size"], given["minibatch_size"]) == (2048, 512)
    dummy = rllib_run(opponents=["random", "self"]).rllib
    assert (dummy["train_batch_size"], dummy["minibatch_size"]) == (2000, 250)
    assert rllib_run(opponents=["random", "self"]).rllib["vec_env"] == "dummy"  # live learning seats
    assert rllib_run(opponents=["random", "self"], opponent_weights=[1, 0]).rllib["vec_env"] == "batched"
    assert rllib_run(opponents=["random"], rllib={"policies": "per_seat"}).rllib["vec_env"] == "dummy"
    assert rllib_run(opponents=["random", "self"]).rllib["num_envs_per_env_runner"] == 1
    assert make_config({"game": "goofspiel"}).rllib["vec_env"] == "dummy"  # not an RLlib run


def test_the_ppo_flag_sets_the_rllib_backends_path_too():
    config = TrainConfig(backend="rllib", game="sticks", opponents=["random"], vec_env="dummy")
    assert config.rllib["vec_env"] == "dummy" and config.rllib["num_envs_per_env_runner"] == 1
    assert TrainConfig(backend="rllib", game="sticks", opponents=["random"], vec_env="batched").rllib["vec_env"] == "batched"


@pytest.mark.parametrize(("changes", "message"), [
    ({"opponents": ["random", "self"]}, r"rllib\.vec_env 'batched' holds one learning seat per game: opponent 'self'"),
    ({"rllib": {"vec_env": "batched", "policies": "per_seat"}}, r"rllib\.vec_env 'batched' trains one module .* got 'per_seat'"),
    ({"game": "openspiel:tic_tac_toe", "opponents": ["random"]},
     r"rllib\.vec_env 'batched' needs a game with a batched engine \(\['double_card', .*got game 'openspiel:tic_tac_toe'"),
])
def test_a_batched_run_that_cannot_be_says_what_is_missing(changes, message):
    changes = {"rllib": {"vec_env": "batched"}, **changes}
    with pytest.raises(ValueError, match=message):
        rllib_run(**changes)


def test_subproc_is_the_ppo_backends():
    with pytest.raises(ValueError, match=r"rllib\.vec_env 'subproc' is the ppo backend's"):
        rllib_run(opponents=["random"], rllib={"vec_env": "subproc"})
    assert make_config({"game": "sticks", "vec_env": "subproc"}).rllib["vec_env"] == "subproc"  # a ppo run: not read


def test_an_old_rllib_config_toml_keeps_its_multi_agent_envs():
    """A run written before ``rllib.vec_env`` existed ran one game per env: it resumes so."""
    new = rllib_run(opponents=["random"])
    assert new.rllib["vec_env"] == "batched"
    data = tomllib.loads(new.to_toml())
    for key in ("vec_env", "num_envs_per_env_runner", "train_batch_size", "minibatch_size"):
        del data["rllib"][key]
    old = saved_settings(data)
    assert old.rllib["vec_env"] == "dummy" and old.rllib["num_envs_per_env_runner"] == 1
    assert (old.rllib["train_batch_size"], old.rllib["minibatch_size"]) == (2000, 250)
    assert make_config(tomllib.loads(old.to_toml())) == old


# -- training on a real local Ray ----------------------------------------------------


@pytest.mark.parametrize(("game", "opponents"), [
    ("sticks", "random,league"),
    ("tides_of_time", "random,greedy,original-alphabeta:objective=difference,league"),
    ("goofspiel", "random,rudimentary"),
])
def test_the_env_runner_steps_one_batched_engine_and_learns(local_ray, game, opponents):
    algo = batched_ppo_config(game, SMALL_GAMES[game], opponents=opponents, num_envs_per_env_runner=16, train_batch_size=256,
                              minibatch_size=128, num_epochs=1, model={"hidden": [16]}).build_algo()
    try:
        env = algo.env_runner.env.unwrapped
        assert isinstance(env, BatchedRLlibEnv) and env.engine.num_envs == 16 and algo.env_runner.num_envs == 16
        before = add_league_snapshot(algo, "league:step_0")["default_policy"]
        assert env.league.paths[-1] == "league:step_0"
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled"] >= 256
        after = algo.learner_group.get_weights(["default_policy"])["default_policy"]
        assert any(not np.array_equal(before[name], after[name]) for name in after)
    finally:
        algo.stop()


def test_the_same_seed_samples_and_learns_the_same(local_ray):
    """Sampling in the driver: the env runner seeds its engine from the config's seed, and
    RLlib seeds torch, so one iteration and the next sample are the same for a seed."""
    def run(seed):
        algo = batched_ppo_config("goofspiel", SMALL_GAMES["goofspiel"], opponents="random,rudimentary", num_envs_per_env_runner=8,
                                  train_batch_size=128, minibatch_size=64, num_epochs=1, model={"hidden": [16]}, seed=seed).build_algo()
        try:
            algo.train()
            episodes = algo.env_runner.sample(num_timesteps=64, explore=True)
            return [np.asarray(e.get_actions()).tolist() for e in episodes], algo.learner_group.get_weights(["default_policy"])
        finally:
            algo.stop()

    (actions, weights), (again, weights_again), (other, _) = run(3), run(3), run(4)
    assert actions == again and actions != other
    assert all(np.array_equal(value, weights_again["default_policy"][name]) for name, value in weights["default_policy"].items())


def test_a_batched_run_saves_evaluates_resumes_and_plays(local_ray, tmp_path):
    out = tmp_path / "run"
    config = TrainConfig(game="goofspiel", game_options=SMALL_GAMES["goofspiel"], backend="rllib", opponents=["random", "league"],
                         timesteps=256, eval_every=256, eval_games=4, snapshot_every=256, ppo={"net_arch": [16]},
                         rllib={"train_batch_size": 256, "minibatch_size": 128, "num_epochs": 1, "num_envs_per_env_runner": 16})
    assert config.rllib["vec_env"] == "batched"
    trainer = Trainer(config, out, **QUIET)
    result = trainer.run()
    files = RunFiles(out)
    assert result.steps >= 256 and (files.snapshots / "step_000000000.npz").is_file()
    assert 'vec_env = "batched"' in files.config.read_text()
    resumed = Trainer(None, out, resume=True, timesteps=2 * result.steps, **QUIET)
    assert resumed.checkpoint.step == result.steps
    again = resumed.run()
    assert again.steps >= 2 * result.steps and len({row["step"] for row in read_evaluations(files)}) == 3
    game = load_game("goofspiel", **SMALL_GAMES["goofspiel"])
    player = make_from_spec(f"rllib:{out}", game)
    assert player.module_ids == ["default_policy"]
    assert len(play_match(game, [f"rllib:{out}", "random"], 2, seed=0).records) == 2
    assert_rllib_form_is_the_player(f"rllib:{out}", "goofspiel", SMALL_GAMES["goofspiel"])


def test_cli_batched_rllib_run(local_ray, tmp_path, capsys):
    out = tmp_path / "cli"
    code = main(["train", "--backend", "rllib", "--game", "tides_of_time", "--option", "rounds=1", "--vec-env", "batched",
                 "--opponents", "random,greedy,league", "--weights", "1,1,2", "--timesteps", "128", "--eval-every", "128",
                 "--eval-games", "2", "--set", "rllib.train_batch_size=128", "--set", "rllib.minibatch_size=64",
                 "--set", "rllib.num_envs_per_env_runner=8", "--set", "rllib.num_epochs=1", "--final-games", "2", "--quiet",
                 "--out", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "environments: 8 games on the batched engine per env runner" in text and (out / "best" / "parlour.json").is_file()


def test_an_old_run_directory_resumes_on_its_multi_agent_envs(local_ray, tmp_path):
    """A run whose config.toml predates ``rllib.vec_env`` (opponents ``random``, which now
    default to the batched path) resumes on the multi-agent envs it ran on."""
    out = tmp_path / "old"
    config = TrainConfig(game="sticks", backend="rllib", opponents=["random"], timesteps=200, eval_every=200, eval_games=4,
                         ppo={"net_arch": [16]}, rllib={"vec_env": "dummy", "train_batch_size": 200, "minibatch_size": 100,
                                                        "num_epochs": 1})
    Trainer(config, out, **QUIET).run()
    files = RunFiles(out)
    lines = files.config.read_text().splitlines()
    files.config.write_text("\n".join(line for line in lines if not line.startswith(("vec_env", "num_envs_per_env_runner"))) + "\n")
    resumed = Trainer(None, out, resume=True, timesteps=400, **QUIET)
    assert resumed.config.rllib["vec_env"] == "dummy" and resumed.config.rllib["num_envs_per_env_runner"] == 1
    assert resumed.run().steps == 400


@pytest.mark.timeout(300)
def test_a_remote_env_runner_samples_its_batched_engine_and_gets_the_league(local_ray):
    algo = batched_ppo_config("goofspiel", SMALL_GAMES["goofspiel"], opponents="random,league", num_env_runners=1,
                              num_envs_per_env_runner=8, train_batch_size=128, minibatch_size=64, num_epochs=1,
                              model={"hidden": [16]}).build_algo()
    try:
        add_league_snapshot(algo, "league:step_0")
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled"] >= 128
        seen = algo.env_runner_group.foreach_env_runner(
            lambda runner: (runner.env.unwrapped.engine.num_envs, runner.env.unwrapped.league.paths), local_env_runner=False)
        assert seen == [(8, ["random", "league:step_0"])]
    finally:
        algo.stop()
