"""Ray RLlib: the multi-agent env, the masked module, ``parlour train --backend rllib``
with its checkpoints and resume, and the ``rllib:`` player in the arena.

The training tests start a real local Ray (bound to 127.0.0.1) once per test process."""

import io
import json

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="needs the rllib extra")
torch = pytest.importorskip("torch", reason="needs the rllib extra")

from gymnasium import spaces
from helpers import SMALL_GAMES, assert_rllib_form_is_the_player

from parlour.baselines import make_from_spec
from parlour.baselines.learned.rllib import RLlibPolicy, checkpoint_dir
from parlour.baselines.learned.rllib_module import MaskedPPOModule, model_settings
from parlour.cli import main
from parlour.errors import DamagedFileError, IllegalActionError
from parlour.evaluation.arena import play_match
from parlour.games import load_game
from parlour.ladder.run import bench
from parlour.terminal import play
from parlour.training.backends.rllib import ParlourMultiAgentEnv, ppo_config
from parlour.training.config import TrainConfig
from parlour.training.run_files import RunFiles, read_evaluations
from parlour.training.trainer import Trainer

GAMES = SMALL_GAMES
QUIET = {"progress": False, "log": lambda text: None}


def play_random(env, seed, policy_seed=0):
    """One episode with uniformly random legal actions; the whole trajectory."""
    rng = np.random.default_rng(policy_seed)
    obs, _ = env.reset(seed=seed)
    trajectory, totals = [], {}
    while True:
        for agent, o in obs.items():
            assert env.observation_spaces[agent].contains(o), agent
        actions = {agent: int(rng.choice(np.flatnonzero(o["action_mask"]))) for agent, o in obs.items()}
        obs, rewards, terminated, truncated, _ = env.step(actions)
        trajectory.append((actions, rewards, {a: o["observations"].tobytes() for a, o in obs.items()}))
        for agent, reward in rewards.items():
            totals[agent] = totals.get(agent, 0.0) + reward
        assert not truncated["__all__"]
        if terminated["__all__"]:
            return trajectory, totals, obs


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_seat_learning_gets_its_return_once_the_game_ends(name):
    env = ParlourMultiAgentEnv({"game": name, "options": GAMES[name]})
    for seed in range(3):
        _, totals, final = play_random(env, seed)
        returns = env.state.returns()
        assert env.learning_seats == tuple(range(env.game.num_players))
        assert totals == {f"player_{s}": pytest.approx(float(returns[s])) for s in range(env.game.num_players)}
        assert set(final) == set(totals)  # a final observation for every agent, with no legal move
        assert all(not o["action_mask"].any() for o in final.values())


def test_observations_are_the_seats_tensors_with_float_masks():
    env = ParlourMultiAgentEnv(game="tribolo")
    obs, _ = env.reset(seed=4)
    (agent, o), = obs.items()
    seat = int(agent.removeprefix("player_"))
    assert set(o) == {"observations", "action_mask"} and o["action_mask"].dtype == np.float32
    assert np.array_equal(o["observations"], env.state.observation_tensor(seat))
    assert np.array_equal(o["action_mask"], env.state.legal_mask(seat).astype(np.float32))


def test_simultaneous_games_ask_every_seat_at_once():
    env = ParlourMultiAgentEnv(game="goofspiel", options={"num_cards": 4})
    obs, _ = env.reset(seed=0)
    assert sorted(obs) == ["player_0", "player_1"]
    with pytest.raises(ValueError, match=r"agents to act are \['player_0', 'player_1'\]"):
        env.step({"player_0": 0})


def test_opponents_play_inside_the_env():
    """A baseline seat is not an RLlib agent: only the learner's observations come back,
    and its reward is its return."""
    env = ParlourMultiAgentEnv(game="sticks", opponents="original-minimax", seat=1)
    for seed in range(3):
        trajectory, totals, _ = play_random(env, seed)
        assert env.learning_seats == (1,) and env.opponent_labels == {0: "original-minimax"}
        assert all(set(actions) == {"player_1"} for actions, _, _ in trajectory)
        assert totals == {"player_1": float(env.state.returns()[1])}


def test_the_pool_mixes_live_seats_and_baselines():
    env = ParlourMultiAgentEnv(game="tribolo", options=GAMES["tribolo"], opponents="random,self")
    seen = set()
    for seed in range(20):
        env.reset(seed=seed)
        seen.add(len(env.learning_seats))
    assert seen == {1, 2, 3}


def test_the_same_seed_gives_the_same_episode():
    config = {"game": "tides_of_time", "options": {"rounds": 1}, "opponents": "random,self"}
    first = play_random(ParlourMultiAgentEnv(config), seed=7)[0]
    assert play_random(ParlourMultiAgentEnv(config), seed=7)[0] == first
    assert play_random(ParlourMultiAgentEnv(config), seed=8)[0] != first


def test_an_illegal_action_raises_and_changes_nothing():
    env = ParlourMultiAgentEnv(game="tribolo")
    obs, _ = env.reset(seed=0)
    ((agent, o),) = obs.items()
    before = env.state.to_text()
    with pytest.raises(IllegalActionError):
        env.step({agent: int(np.flatnonzero(o["action_mask"] == 0)[0])})
    assert env.state.to_text() == before


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"game": "nosuch"}, "unknown game 'nosuch'"),
        ({"game": "sticks", "colour": 1}, r"unknown env_config key\(s\) \['colour'\]"),
        ({"game": "sticks", "seat": 2}, r"seat must be an int in 0..1 or 'random', got 2"),
        ({"game": "sticks", "opponents": "nosuch"}, "nosuch"),
        ({"game": "sticks", "options": {"max_take": 0}}, "max_take"),
        ({}, "must name a game"),
    ],
)
def test_bad_env_configs(config, message):
    with pytest.raises(ValueError, match=message):
        ParlourMultiAgentEnv(config)


def test_the_module_never_chooses_a_masked_move():
    env = ParlourMultiAgentEnv(game="tribolo")
    space = env.observation_spaces["player_0"]
    module = MaskedPPOModule(observation_space=space, action_space=env.action_spaces["player_0"],
                             model_config={"channels": 4, "blocks": 1, "features_dim": 16})
    assert module.encoder.network == "cnn"  # planes: the board network
    obs, _ = env.reset(seed=1)
    (o,) = obs.values()
    batch = {"obs": {key: torch.as_tensor(value)[None] for key, value in o.items()}}
    logits = module.forward_inference(batch)["action_dist_inputs"][0]
    probs = torch.softmax(logits, 0).detach().numpy()
    assert probs[o["action_mask"] == 0].max() < 1e-20 and probs[o["action_mask"] == 1].sum() == pytest.approx(1)
    values = module.compute_values(batch)
    assert values.shape == (1,)
    flat = MaskedPPOModule(observation_space=ParlourMultiAgentEnv(game="sticks").observation_spaces["player_0"],
                           action_space=spaces.Discrete(3), model_config={"hidden": [8]})
    assert flat.encoder.network == "mlp"


def test_bad_model_settings():
    with pytest.raises(ValueError, match=r"unknown model_config key\(s\) \['width'\]"):
        model_settings({"width": 3})
    with pytest.raises(ValueError, match="network must be one of"):
        model_settings({"network": "transformer"})
    with pytest.raises(ValueError, match="policies must be one of"):
        ppo_config("sticks", policies="each")
    with pytest.raises(ValueError, match="num_env_runners must be an int >= 0"):
        ppo_config("sticks", num_env_runners=-1)


# -- training on a real local Ray --------------------------------------------------


def rllib_config(**changes):
    settings = {"game": "sticks", "backend": "rllib", "opponents": ["self"], "timesteps": 400, "eval_every": 200,
                "eval_games": 10, "rllib": {"train_batch_size": 200, "minibatch_size": 100, "num_epochs": 2}}
    settings.update(changes)
    return TrainConfig(**settings)


def test_a_run_saves_evaluates_resumes_and_plays(local_ray, tmp_path):
    out = tmp_path / "run"
    result = Trainer(rllib_config(timesteps=200), out, **QUIET).run()
    files = RunFiles(out)
    assert result.steps == 200 and [row["step"] for row in read_evaluations(files)][::2] == [0, 200]
    assert (out / "best" / "parlour.json").is_file() and files.config.read_text().count('backend = "rllib"') == 1
    resumed = Trainer(None, out, resume=True, timesteps=400, **QUIET)
    assert resumed.checkpoint.step == 200
    result = resumed.run()
    assert result.steps == 400 and [row["step"] for row in read_evaluations(files)][::2] == [0, 200, 400]
    meta = json.loads((checkpoint_dir(out) / "parlour.json").read_text())
    assert meta["game"] == "sticks" and meta["modules"] == ["shared"]
    match = play_match(load_game("sticks"), [f"rllib:{out}", "random"], 4, seed=0)
    assert len(match.records) == 4
    card = bench("sticks", str(out), games_per_rung=4, progress=False)  # the run directory as a benchmark candidate
    assert card["player"] == f"rllib:{out}" and card["games"] == 4 * len(card["rungs"])
    transcript = io.StringIO()  # a person plays it in the terminal (parlour play)
    assert play(load_game("sticks"), f"rllib:{out}", seat=0, seed=0, stdin=io.StringIO("1\n" * 30), stdout=transcript) == 0
    assert f"player_1 (rllib:{out}) plays" in transcript.getvalue() and "result:" in transcript.getvalue()
    frozen = ParlourMultiAgentEnv(game="sticks", opponents=f"rllib:{out}", seat=0)  # a frozen run as an opponent
    play_random(frozen, seed=0)
    assert frozen.learning_seats == (0,) and frozen.opponent_labels == {1: f"rllib:{out}"}


def test_per_seat_modules_on_a_small_tribolo(local_ray, tmp_path):
    """All three seats learn, each its own module; the player takes its seat's module."""
    config = rllib_config(game="tribolo", game_options=GAMES["tribolo"], timesteps=200, eval_every=200, eval_games=2,
                          rllib={"train_batch_size": 200, "minibatch_size": 100, "num_epochs": 1, "policies": "per_seat"},
                          cnn_channels=4, cnn_blocks=1)
    result = Trainer(config, tmp_path / "tri", **QUIET).run()
    assert result.steps >= 200
    game = load_game("tribolo", **GAMES["tribolo"])
    player = make_from_spec(f"rllib:{tmp_path / 'tri'}", game)
    assert player.module_ids == ["player_0", "player_1", "player_2"]
    state = game.new_initial_state(0)
    seat = state.current_players()[0]
    assert state.legal_mask(seat)[player.act(state.info_state(seat))]
    assert_rllib_form_is_the_player(f"rllib:{tmp_path / 'tri'}", "tribolo", GAMES["tribolo"])  # each seat its module
    with pytest.raises(ValueError, match=r"module 'shared' is not in RLlib checkpoint"):
        make_from_spec(f"rllib:{tmp_path / 'tri'},module=shared", game)


def test_cli_rllib_backend(local_ray, tmp_path, capsys, monkeypatch):
    import parlour.training.trainer as trainer

    openings: list[int] = []  # ppo.eval_opening reaches the evaluations on this backend too
    real = trainer.win_rates
    monkeypatch.setattr(trainer, "win_rates", lambda *args, **kwargs: openings.append(kwargs["opening"]) or real(*args, **kwargs))
    out = tmp_path / "cli"
    code = main(["train", "--backend", "rllib", "--game", "sticks", "--opponents", "random,self,league", "--timesteps", "200",
                 "--eval-every", "200", "--eval-games", "4", "--set", "rllib.train_batch_size=200",
                 "--set", "rllib.minibatch_size=50", "--set", "ppo.eval_opening=1", "--final-games", "4", "--quiet", "--out", str(out)])
    assert code == 0
    assert openings == [1, 1]
    text = capsys.readouterr().out
    assert "rllib:" in text and (out / "arena.md").exists() and (out / "snapshots" / "step_000000000.npz").is_file()


def test_the_rllib_player_refuses_what_it_cannot_play(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        RLlibPolicy(load_game("sticks"), path=str(tmp_path / "nothing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(DamagedFileError, match="not a parlour RLlib checkpoint"):
        RLlibPolicy(load_game("sticks"), path=str(tmp_path / "empty"))
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "parlour.json").write_text("{")
    with pytest.raises(DamagedFileError, match="corrupt"):
        RLlibPolicy(load_game("sticks"), path=str(tmp_path / "bad"))
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "parlour.json").write_text(json.dumps({"game": "tribolo", "modules": ["shared"]}))
    with pytest.raises(ValueError, match="trained for 'tribolo', not 'sticks'"):
        RLlibPolicy(load_game("sticks"), path=str(tmp_path / "other"))


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"backend": "spark"}, r"backend must be one of \[.local., .ray., .rllib.\], got .spark."),
        ({"backend": "rllib", "algo": "alphazero"}, "algo 'alphazero' runs on backend 'local' or 'ray', got backend 'rllib'"),
        ({"rllib": {"policies": "each"}}, r"rllib.policies must be one of \['shared', 'per_seat'\], got 'each'"),
        ({"rllib": {"num_env_runners": -1}}, "rllib.num_env_runners must be at least 0"),
        ({"rllib": {"minibatch_size": 5000}}, "larger than rllib.train_batch_size"),
        ({"rllib": {"colour": 1}}, r"unknown rllib setting\(s\) \['colour'\]"),
    ],
)
def test_bad_rllib_settings(settings, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(**settings)


# -- the league: frozen snapshots of the learning modules ----------------------------


def fresh_modules(env, seed):
    """A randomly initialised module for ``env`` (what a snapshot holds), as ``build_modules`` makes them."""
    torch.manual_seed(seed)
    module = MaskedPPOModule(observation_space=env.observation_spaces["player_0"], action_space=env.action_spaces["player_0"],
                             model_config=model_settings({"hidden": [16]}))
    return {"shared": module.eval()}


def test_league_seats_are_played_inside_the_env_by_the_latest_snapshots():
    env = ParlourMultiAgentEnv(game="sticks", opponents="league", seat=0, max_snapshots=2)
    env.reset(seed=0)
    assert env.learning_seats == (0, 1)  # no snapshot yet: a league draw seats a live learner
    for step in range(3):
        env.add_snapshot(f"league:step_{step}", fresh_modules(env, step))
    assert [repr(p) for p in env.league] == ["league:step_1", "league:step_2"]
    labels = set()
    for seed in range(12):
        _, totals, _ = play_random(env, seed)
        assert env.learning_seats == (0,) and set(totals) == {"player_0"}
        labels.add(env.opponent_labels[1])
    assert labels == {"league:step_1", "league:step_2"}


def test_league_is_for_the_rllib_backend_only():
    with pytest.raises(ValueError, match="opponent 'league' .* needs backend 'rllib'"):
        TrainConfig(opponents=["league"])
    from parlour.training.opponents import OpponentPool, parse_opponents

    with pytest.raises(ValueError, match="here the learner's snapshots are 'self'"):
        OpponentPool(load_game("sticks"), parse_opponents("league"))


def test_a_damaged_snapshot_file_is_refused(tmp_path):
    from parlour.training.backends.rllib.league import load_snapshot, save_snapshot

    path = tmp_path / "step_000000000.npz"
    weights = {"shared": {"encoder.w": np.arange(6, dtype=np.float32).reshape(2, 3)}}
    save_snapshot(path, weights)
    assert np.array_equal(load_snapshot(path)["shared"]["encoder.w"], weights["shared"]["encoder.w"])
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(DamagedFileError, match="cannot be read"):
        load_snapshot(path)


def test_add_league_snapshot_freezes_the_learner_weights_of_that_moment(local_ray):
    from parlour.training.backends.rllib.league import add_league_snapshot

    algo = ppo_config("sticks", opponents="self,league", train_batch_size=200, minibatch_size=100, num_epochs=1,
                      model={"hidden": [16]}).build_algo()
    try:
        weights = add_league_snapshot(algo, "league:step_0")
        env = algo.env_runner.env.envs[0].unwrapped
        (snapshot,) = env.league
        frozen = snapshot.module_for(0).get_state()
        assert all(np.array_equal(frozen[name], value) for name, value in weights["shared"].items())
        algo.train()
        live = algo.learner_group.get_weights(["shared"])["shared"]
        assert any(not np.array_equal(frozen[name], live[name]) for name in live)  # the snapshot did not move
        assert all(np.array_equal(frozen[name], value) for name, value in snapshot.module_for(0).get_state().items())
        seen = set()
        for seed in range(10):
            env.reset(seed=seed)
            seen.update(env.opponent_labels.values())
        assert seen == {"league:step_0"}
    finally:
        algo.stop()


def test_a_league_run_keeps_its_snapshots_and_gets_them_back_on_resume(local_ray, tmp_path):
    out = tmp_path / "league"
    config = rllib_config(opponents=["self", "league"], snapshot_every=200, timesteps=200, eval_every=200, eval_games=4)
    Trainer(config, out, **QUIET).run()
    files = RunFiles(out)
    assert sorted(p.name for p in files.snapshots.glob("*.npz")) == ["step_000000000.npz", "step_000000200.npz"]
    resumed = Trainer(None, out, resume=True, timesteps=400, **QUIET)
    pushed = []
    import parlour.training.backends.rllib.backend as trainer_module

    original = trainer_module.push_snapshot
    trainer_module.push_snapshot = lambda algo, label, weights: pushed.append(label) or original(algo, label, weights)
    try:
        result = resumed.run()
    finally:
        trainer_module.push_snapshot = original
    assert result.steps == 400 and pushed[:2] == ["league:step_0", "league:step_200"]
    assert (files.snapshots / "step_000000400.npz").is_file()


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_remote_env_runner_and_learner_train_and_the_league_reaches_the_runner(local_ray):
    """Sampling in an env runner process and learning in a learner process (not the
    driver): one update moves the weights, and a snapshot reaches the runner's env."""
    from parlour.training.backends.rllib.league import add_league_snapshot

    algo = ppo_config("sticks", opponents="self,league", num_env_runners=1, num_learners=1, train_batch_size=200,
                      minibatch_size=100, num_epochs=1, model={"hidden": [16]}).build_algo()
    try:
        assert not algo.learner_group.is_local
        before = add_league_snapshot(algo, "league:step_0")["shared"]
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled"] >= 200
        after = algo.learner_group.get_weights(["shared"])["shared"]
        assert any(not np.array_equal(before[name], after[name]) for name in after)
        leagues = algo.env_runner_group.foreach_env_runner(
            lambda runner: [[repr(p) for p in env.unwrapped.league] for env in runner.env.envs], local_env_runner=False)
        assert leagues == [[["league:step_0"]]]
    finally:
        algo.stop()
