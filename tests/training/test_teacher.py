"""Teachers (parlour.training.teacher and the PPO backend's kickstart module): the
distillation weight's schedule; a batched teacher says the single-game teacher's
distribution on the same positions; the PPO loss with a teacher of weight 0 is
MaskablePPO's own; a teacher pulls the learner towards its moves; resume stays exact
with one; bad teachers are refused by name before a run writes anything."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra")
pytest.importorskip("sb3_contrib", reason="needs the train extra")

from parlour import toml_read, zoo
from parlour.cli import main
from parlour.training.config import TrainConfig
from parlour.training.teacher import BatchedTeacher, SingleTeacher, teacher_weight
from parlour.training.trainer import Trainer
from tests import helpers

STICKS_AZ = f"az:{zoo.MODELS / 'sticks.zip'},simulations=0"
RUN = {"n_steps": 64, "batch_size": 64, "n_epochs": 2, "net_arch": [32]}


def small_config(**changes):
    ppo = {**RUN, **changes.pop("ppo", {})}
    settings = dict(game="sticks", opponents=["random", "self"], timesteps=768, n_envs=2, eval_every=256, eval_games=10,
                    snapshot_every=256, eval_opponents=["random"], ppo=ppo)
    settings.update(changes)
    return TrainConfig(**settings)


def train(config, path):
    return Trainer(config, path, progress=False, log=lambda _: None).run()


def policy_params(path):
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(path, device="cpu").policy.state_dict()


def same_params(a, b):
    pa, pb = policy_params(a), policy_params(b)
    return pa.keys() == pb.keys() and all(torch.equal(pa[k], pb[k]) for k in pa)


# ----- the schedule ----------------------------------------------------------------------------


def test_the_weight_falls_linearly_to_zero_or_stays():
    table = {"teacher": "greedy", "teacher_weight": 2.0, "teacher_schedule": "linear", "teacher_steps": 1000}
    assert [teacher_weight(table, step) for step in (0, 250, 1000, 5000)] == [2.0, 1.5, 0.0, 0.0]
    assert teacher_weight({**table, "teacher_schedule": "constant"}, 5000) == 2.0
    assert teacher_weight({**table, "teacher": ""}, 0) == 0.0


# ----- batched and single teachers agree --------------------------------------------------------

TEACHERS = [  # (game, teacher spec, longest random start, games)
    ("tides_of_time", f"az:{zoo.MODELS / 'tides_of_time.zip'},simulations=0", 30, 40),
    ("sticks", STICKS_AZ, 10, 30),
    ("double_card", f"ntuple:{zoo.MODELS / 'double_card.zip'},depth=1,time_limit=none", 40, 40),
    ("tribolo", f"ntuple:{zoo.MODELS / 'tribolo.zip'},depth=1,time_limit=none", 60, 24),
    ("goofspiel", "rudimentary", 5, 30),
]


@pytest.mark.parametrize(("name", "spec", "plies", "games"), TEACHERS)
def test_a_batched_teacher_says_the_single_game_teachers_distribution(name, spec, plies, games):
    engine = helpers.played_engine(name, 3, games, plies, fresh=2)
    live = np.flatnonzero(~engine.terminated)
    if engine.simultaneous:
        seats = np.random.default_rng(0).integers(engine.num_players, size=len(live))
    else:
        seats = engine.movers()[live]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a model trained with other options of the same shapes warns
        batched, single = BatchedTeacher(spec, engine.game, seed=1), SingleTeacher(spec, engine.game, seed=1)
    got = batched.distributions(engine, seats, live)
    want = single.distributions([engine.game_state(int(b)).info_state(int(s)) for b, s in zip(live, seats)])
    assert got.shape == want.shape == (len(live), engine.num_actions) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    legal = engine.legal_mask_at(live, seats).astype(bool)
    assert (got[~legal] == 0).all() and np.allclose(got.sum(axis=1), 1.0)
    if spec.startswith("az:"):
        assert (got.max(axis=1) < 1).any()  # the network's distribution, not a one-hot of its move


def test_a_teacher_without_a_batched_form_is_refused_on_the_batched_engine_with_those_that_have_one(tmp_path):
    config = small_config(vec_env="batched", ppo={"teacher": "mcts:simulations=5"})
    with pytest.raises(ValueError, match=r"teacher 'mcts:simulations=5' has no batched form for sticks; .*'az'"):
        train(config, tmp_path / "run")
    train(small_config(vec_env="dummy", timesteps=256, ppo={"teacher": "mcts:simulations=5"}), tmp_path / "single")


def test_a_bad_teacher_spec_is_refused_before_anything_is_written(tmp_path):
    with pytest.raises(ValueError, match="nonsense"):
        train(small_config(ppo={"teacher": "nonsense"}), tmp_path / "run")
    assert not (tmp_path / "run").exists()


# ----- the loss -------------------------------------------------------------------------------


@pytest.mark.parametrize("vec_env", ["batched", "dummy"])
def test_a_teacher_of_weight_zero_trains_exactly_as_maskable_ppo(tmp_path, vec_env):
    """The kickstarted loss without its term is MaskablePPO's own (same updates, bit for
    bit), and asking the teacher draws nothing from the games' generators."""
    train(small_config(vec_env=vec_env, timesteps=512), tmp_path / "plain")
    train(small_config(vec_env=vec_env, timesteps=512, ppo={"teacher": STICKS_AZ, "teacher_weight": 0.0}), tmp_path / "zero")
    assert same_params(tmp_path / "plain" / "last.zip", tmp_path / "zero" / "last.zip")
    train(small_config(vec_env=vec_env, timesteps=512, ppo={"teacher": STICKS_AZ}), tmp_path / "taught")
    assert not same_params(tmp_path / "plain" / "last.zip", tmp_path / "taught" / "last.zip")


def divergence_from_teacher(model_path, teacher_spec):
    """The mean KL divergence from the teacher's distribution to the model's masked policy
    over positions of random Goofspiel-6 play."""
    from parlour.baselines.learned.ppo import PPOPolicy

    engine = helpers.played_engine("goofspiel", 9, 60, 5, num_cards=6)
    live = np.flatnonzero(~engine.terminated)
    seats = np.random.default_rng(0).integers(2, size=len(live))
    teacher = BatchedTeacher(teacher_spec, engine.game).distributions(engine, seats, live)
    learner = PPOPolicy(engine.game, path=str(model_path))
    observations = engine.decode(engine.observation_at(live, seats))
    masks = engine.legal_mask_at(live, seats).astype(bool)
    probs = np.stack([learner.actor.probabilities(observation, mask) for observation, mask in zip(observations, masks)])
    ratio = np.log(np.maximum(teacher, 1e-12)) - np.log(np.maximum(probs, 1e-12))
    return float((teacher * ratio).sum(axis=1).mean())


def test_a_teacher_pulls_the_learner_towards_its_moves(tmp_path):
    changes = dict(game="goofspiel", game_options={"num_cards": 6}, vec_env="batched", n_envs=16, timesteps=8192,
                   eval_every=8192, opponents=["random"])
    train(small_config(**changes, ppo={"learning_rate": 1e-3}), tmp_path / "alone")
    taught = {"learning_rate": 1e-3, "teacher": "rudimentary", "teacher_weight": 2.0, "teacher_schedule": "constant"}
    train(small_config(**changes, ppo=taught), tmp_path / "taught")
    alone = divergence_from_teacher(tmp_path / "alone" / "last.zip", "rudimentary")
    pulled = divergence_from_teacher(tmp_path / "taught" / "last.zip", "rudimentary")
    assert pulled < 0.5 * alone, (pulled, alone)


# ----- runs -------------------------------------------------------------------------------------


@pytest.mark.parametrize("vec_env", ["batched", "dummy"])
def test_resume_is_exact_with_a_teacher(tmp_path, vec_env):
    taught = {"teacher": STICKS_AZ, "teacher_steps": 600}
    whole = train(small_config(vec_env=vec_env, ppo=taught), tmp_path / "whole")
    train(small_config(timesteps=512, vec_env=vec_env, ppo=taught), tmp_path / "cut")
    resumed = Trainer(None, tmp_path / "cut", resume=True, timesteps=768, progress=False, log=lambda _: None).run()
    assert resumed.steps == whole.steps == 768
    assert same_params(tmp_path / "whole" / "last.zip", tmp_path / "cut" / "last.zip")
    assert resumed.evaluations == whole.evaluations


def test_the_teacher_flag_goes_into_config_toml_and_is_ppo_s(tmp_path, capsys):
    run = tmp_path / "run"
    args = ["train", "--game", "sticks", "--opponents", "random", "--timesteps", "128", "--n-envs", "2", "--eval-every", "128",
            "--eval-games", "2", "--eval-opponents", "random", "--set", "ppo.n_steps=64", "--set", "ppo.batch_size=64",
            "--set", "ppo.n_epochs=1", "--set", "ppo.net_arch=[8]", "--teacher", STICKS_AZ,
            "--set", "ppo.teacher_schedule=constant", "--final-games", "0", "--quiet", "--out", str(run)]
    assert main(args) == 0
    table = toml_read.loads((run / "config.toml").read_text())["ppo"]
    assert (table["teacher"], table["teacher_weight"], table["teacher_schedule"]) == (STICKS_AZ, 1.0, "constant")
    assert "teacher az:" in capsys.readouterr().out
    assert main(["train", "--game", "sticks", "--algo", "alphazero", "--teacher", "random", "--out", str(tmp_path / "az")]) == 2
    assert "--teacher sets ppo.teacher" in capsys.readouterr().err
    assert main([*args[:-1], str(tmp_path / "bad"), "--set", "ppo.teacher_schedule=cosine"]) == 2
    assert "teacher_schedule must be one of ['linear', 'constant'], got 'cosine'" in capsys.readouterr().err
