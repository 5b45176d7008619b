"""Pretraining (parlour.training.pretrain and the PPO backend's pretrain_fit): the teacher's
games are seeded and do not depend on the number of workers; each row holds the
teacher's distribution and the mover's discounted return; the fit pulls the network
towards the teacher's moves; a run with pretraining is reproducible and resumes exactly;
bad settings are refused by name before a run writes anything."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra")
pytest.importorskip("sb3_contrib", reason="needs the train extra")

from parlour import toml_read
from parlour.baselines import make_from_spec
from parlour.cli import main
from parlour.games import load_game
from parlour.training.pretrain import TeacherGames, teacher_games
from parlour.training.teacher import SingleTeacher
from parlour.training.trainer import Trainer
from tests.training.test_teacher import divergence_from_teacher, same_params, small_config, train

GOOFSPIEL = load_game("goofspiel", num_cards=6)


def same_games(a: TeacherGames, b: TeacherGames) -> bool:
    return all(np.array_equal(getattr(a, name), getattr(b, name)) for name in ("observations", "masks", "labels", "values", "games"))


# ----- the teacher's games -----------------------------------------------------------------------


def test_the_teacher_games_are_seeded_and_do_not_depend_on_the_workers():
    game = load_game("tribolo")
    one = teacher_games(game, "greedy", 10, seed=3, explore=0.2)
    assert same_games(one, teacher_games(game, "greedy", 10, seed=3, explore=0.2, workers=2))
    assert not same_games(one, teacher_games(game, "greedy", 10, seed=4, explore=0.2))
    assert sorted(set(one.games.tolist())) == list(range(10))
    assert one.observations.shape == (len(one), *game.observation_shape) and one.observations.dtype == np.float32


def test_each_row_is_the_teachers_distribution_and_the_movers_discounted_return():
    """Without exploring moves, the games replay from the rows: every move is the label's
    most probable one, and each seat's value is its return times gamma per later decision."""
    gamma = 0.9
    data = teacher_games(GOOFSPIEL, "rudimentary", 3, seed=1, explore=0.0, gamma=gamma)
    teacher = SingleTeacher("rudimentary", GOOFSPIEL)
    for index in range(3):
        rows = np.flatnonzero(data.games == index)
        state = GOOFSPIEL.new_initial_state(np.random.default_rng([1, index]))
        decisions = []
        while not state.is_terminal():
            joint = {}
            for player in state.current_players():
                row = rows[len(decisions)]
                decisions.append((row, player))
                assert np.array_equal(data.observations[row], state.observation_tensor(player))
                assert np.array_equal(data.masks[row], state.legal_mask(player).astype(bool))
                assert np.array_equal(data.labels[row], teacher.distribution(state.info_state(player)))
                assert data.labels[row][~data.masks[row]].sum() == 0
                joint[player] = int(np.argmax(data.labels[row]))
            state.apply(joint)
        assert len(decisions) == len(rows)
        returns = state.returns()
        for player in range(2):
            mine = [row for row, seat in decisions if seat == player]
            expected = [returns[player] * gamma ** (len(mine) - 1 - k) for k in range(len(mine))]
            np.testing.assert_allclose(data.values[mine], expected, rtol=1e-6)


def test_exploring_moves_leave_the_teachers_line():
    calm = teacher_games(GOOFSPIEL, "rudimentary", 6, seed=2, explore=0.0)
    wild = teacher_games(GOOFSPIEL, "rudimentary", 6, seed=2, explore=1.0)
    assert len({calm.observations[k].tobytes() for k in range(len(calm))}) < len({wild.observations[k].tobytes() for k in range(len(wild))})


def test_bad_teacher_games_are_refused_by_name():
    with pytest.raises(ValueError, match="at least one teacher game, got games=0"):
        teacher_games(GOOFSPIEL, "random", 0, seed=0)
    with pytest.raises(ValueError, match=r"explore must be in \[0, 1\], got 1.5"):
        teacher_games(GOOFSPIEL, "random", 1, seed=0, explore=1.5)


# ----- runs --------------------------------------------------------------------------------------

PRETRAINED = dict(game="goofspiel", game_options={"num_cards": 6}, vec_env="batched", n_envs=16, timesteps=256,
                  eval_every=256, opponents=["random"])
TEACHING = {"pretrain": "rudimentary", "pretrain_games": 400, "pretrain_epochs": 10, "pretrain_learning_rate": 3e-3}


def test_pretraining_pulls_the_network_towards_the_teachers_moves(tmp_path):
    train(small_config(**PRETRAINED), tmp_path / "alone")
    train(small_config(**PRETRAINED, ppo=TEACHING), tmp_path / "pretrained")
    alone = divergence_from_teacher(tmp_path / "alone" / "last.zip", "rudimentary")
    pulled = divergence_from_teacher(tmp_path / "pretrained" / "last.zip", "rudimentary")
    assert pulled < 0.5 * alone, (pulled, alone)


def test_a_pretrained_run_is_reproducible_and_resumes_exactly(tmp_path):
    """The fit is seeded (its order and symmetries), and a resumed run starts from step 0's
    checkpoint, which holds the pretrained network: it does not fit again."""
    config = dict(game="tribolo", vec_env="batched", n_envs=8, eval_every=128, eval_games=2, snapshot_every=128,
                  opponents=["random", "self"], eval_opponents=["random"])
    pretrain = {"pretrain": "greedy", "pretrain_games": 3, "pretrain_epochs": 2, "n_steps": 16, "batch_size": 64}
    whole = train(small_config(**config, timesteps=384, ppo=pretrain), tmp_path / "whole")
    train(small_config(**config, timesteps=384, ppo=pretrain), tmp_path / "again")
    assert same_params(tmp_path / "whole" / "last.zip", tmp_path / "again" / "last.zip")
    train(small_config(**config, timesteps=256, ppo=pretrain), tmp_path / "cut")
    resumed = Trainer(None, tmp_path / "cut", resume=True, timesteps=384, progress=False, log=lambda _: None).run()
    assert resumed.steps == whole.steps == 384
    assert same_params(tmp_path / "whole" / "last.zip", tmp_path / "cut" / "last.zip")
    assert resumed.evaluations == whole.evaluations


def test_a_bad_pretraining_spec_is_refused_before_anything_is_written(tmp_path):
    with pytest.raises(ValueError, match="nonsense"):
        train(small_config(ppo={"pretrain": "nonsense"}), tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_the_pretrain_flag_goes_into_config_toml_and_the_log(tmp_path, capsys):
    run = tmp_path / "run"
    args = ["train", "--game", "sticks", "--opponents", "random", "--timesteps", "128", "--n-envs", "2", "--eval-every", "128",
            "--eval-games", "2", "--eval-opponents", "random", "--set", "ppo.n_steps=64", "--set", "ppo.batch_size=64",
            "--set", "ppo.n_epochs=1", "--set", "ppo.net_arch=[8]", "--pretrain", "mcts:simulations=5",
            "--set", "ppo.pretrain_games=4", "--set", "ppo.pretrain_epochs=1", "--final-games", "0", "--out", str(run)]
    assert main(args) == 0
    table = toml_read.loads((run / "config.toml").read_text())["ppo"]
    assert (table["pretrain"], table["pretrain_games"], table["pretrain_explore"]) == ("mcts:simulations=5", 4, 0.1)
    out = capsys.readouterr().out
    assert "pretraining: 4 games of mcts:simulations=5" in out and "pretraining epoch 1/1" in out
    assert main([*args[:-1], str(tmp_path / "bad"), "--set", "ppo.pretrain_explore=2"]) == 2
    assert "pretrain_explore" in capsys.readouterr().err and not (tmp_path / "bad").exists()
    assert main(["train", "--game", "sticks", "--algo", "alphazero", "--pretrain", "random", "--out", str(tmp_path / "az")]) == 2
    assert "--pretrain sets ppo.pretrain" in capsys.readouterr().err


def test_a_deep_search_can_be_the_pretraining_teacher():
    """Any policy teaches: a search through the rules module says a move (all weight on it)."""
    data = teacher_games(GOOFSPIEL, "mcts:simulations=8", 2, seed=0)
    assert np.allclose(data.labels.sum(axis=1), 1.0) and set(np.unique(data.labels)) <= {0.0, 1.0}
    assert make_from_spec("mcts:simulations=8", GOOFSPIEL) is not None


def test_a_search_with_a_temperature_teaches_its_ranking_of_the_moves(tmp_path):
    """``ntuple:...,temperature=T`` says a distribution: soft labels, its best move played."""
    from parlour.baselines.learned.ntuple import save_ntuple
    from parlour.baselines.players.tribolo_ntuple import TRIBOLO_FEATURES

    game = load_game("tribolo", width=8, height=8, walls=4, start_cells=3)
    path = save_ntuple(np.random.default_rng(3).normal(scale=0.3, size=TRIBOLO_FEATURES), tmp_path / "m.zip", game)
    data = teacher_games(game, f"ntuple:{path},depth=2,time_limit=none,temperature=0.5", 2, seed=0, explore=0.0)
    assert np.allclose(data.labels.sum(axis=1), 1.0) and not data.labels[~data.masks].any()
    choices = data.masks.sum(axis=1) > 1
    assert choices.sum() >= 20 and ((data.labels[choices] > 0).sum(axis=1) > 1).all()  # every choice ranks its moves


def test_a_pretrained_step_0_best_is_not_called_untrained():
    """A pretrained run's step-0 model is the fitted network: when no later evaluation beats
    it, the result says that PPO's steps added nothing, not that the model is untrained."""
    from pathlib import Path
    from types import SimpleNamespace

    from parlour.training.backends.ppo.backend import PPOBackend

    run = SimpleNamespace(config=SimpleNamespace(ppo={"pretrain": "greedy"}), best_path=Path("best.zip"))
    warning = PPOBackend.untrained_best_warning(run)  # type: ignore[arg-type]
    assert warning.startswith("best.zip is the step-0 model, the network fitted to the games of greedy (--pretrain)")
    assert "UNTRAINED" not in warning and "PPO added nothing" in warning
