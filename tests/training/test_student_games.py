"""Student games (``teacher_games(..., student=PATH)``, ``ppo.pretrain_student_games``):
the fitted network plays the moves and the teacher labels every position it reaches
(DAgger).  The games replay in the rules module with the student's moves and the
teacher's labels; in lockstep they reach the same positions as one at a time; they are
numbered on from the teacher's games; a run with them is reproducible and says so."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra")
pytest.importorskip("sb3_contrib", reason="needs the train extra")

from parlour.baselines.learned.ppo_batched import FrozenPPO
from parlour.games import load_game
from parlour.training.pretrain import teacher_games
from parlour.training.teacher import SingleTeacher
from parlour.training.trainer import Trainer
from parlour.zoo import MODELS
from tests.training.test_pretrain import PRETRAINED, TEACHING, same_games
from tests.training.test_teacher import same_params, small_config, train

GOOFSPIEL = load_game("goofspiel", num_cards=6)
TIDES = load_game("tides_of_time")
TIDES_SEARCH = f"az:{MODELS / 'tides_of_time.zip'},simulations=8,c=1.0"
TIDES_STUDENT = str(MODELS / "tides_of_time-ppo.zip")


@pytest.fixture(scope="module")
def goofspiel_student(tmp_path_factory) -> str:
    """A barely trained Goofspiel network: its moves are not the teacher's."""
    run = tmp_path_factory.mktemp("student")
    train(small_config(**PRETRAINED), run)
    return str(run / "last.zip")


def test_the_student_moves_and_the_teacher_labels_every_position(goofspiel_student):
    """Replayed from the same deals in the rules module: each row's observation and mask
    are the position the student's moves reached, its label the teacher's distribution
    there, and the games are numbered from ``first``."""
    data = teacher_games(GOOFSPIEL, "rudimentary", 4, seed=1, explore=0.0, student=goofspiel_student, first=10)
    assert sorted(set(data.games.tolist())) == [10, 11, 12, 13]
    student, teacher = FrozenPPO(goofspiel_student, GOOFSPIEL), SingleTeacher("rudimentary", GOOFSPIEL)
    disagreements = 0
    for index in range(10, 14):
        rows = iter(np.flatnonzero(data.games == index))
        state = GOOFSPIEL.new_initial_state(np.random.default_rng([1, index]))
        while not state.is_terminal():
            joint = {}
            for player in state.current_players():
                row = next(rows)
                observation = np.asarray(state.observation_tensor(player), dtype=np.float32)
                mask = state.legal_mask(player).astype(bool)
                assert np.array_equal(data.observations[row], observation) and np.array_equal(data.masks[row], mask)
                assert np.array_equal(data.labels[row], teacher.distribution(state.info_state(player)))
                joint[player] = int(student.most_probable(observation[None], mask[None])[0])
                disagreements += joint[player] != int(np.argmax(data.labels[row]))
            state.apply(joint)
        assert next(rows, None) is None
    assert disagreements > 0  # the student's line, not the teacher's


def test_the_student_games_differ_from_the_teachers_own_from_the_same_deals(goofspiel_student):
    own = teacher_games(GOOFSPIEL, "rudimentary", 4, seed=1, explore=0.0)
    taught = teacher_games(GOOFSPIEL, "rudimentary", 4, seed=1, explore=0.0, student=goofspiel_student)
    assert np.array_equal(own.games, taught.games)
    assert not np.array_equal(own.observations, taught.observations)


def test_in_lockstep_the_student_reaches_the_same_positions_as_one_game_at_a_time():
    """Tides of Time's search draws differently in lockstep, so the labels differ; the
    moves are the student's and the exploring draws the game's own, so the positions, masks
    and returns are the one-at-a-time games', for any batch."""
    one_by_one = teacher_games(TIDES, TIDES_SEARCH, 3, seed=2, explore=0.3, student=TIDES_STUDENT, first=7)
    lockstep = teacher_games(TIDES, TIDES_SEARCH, 3, seed=2, explore=0.3, lockstep=2, student=TIDES_STUDENT, first=7)
    for name in ("observations", "masks", "values", "games"):
        assert np.array_equal(getattr(one_by_one, name), getattr(lockstep, name)), name
    assert sorted(set(lockstep.games.tolist())) == [7, 8, 9]
    assert np.all(lockstep.labels[~lockstep.masks] == 0) and np.allclose(lockstep.labels.sum(axis=1), 1.0)
    assert same_games(lockstep, teacher_games(TIDES, TIDES_SEARCH, 3, seed=2, explore=0.3, lockstep=3,
                                              student=TIDES_STUDENT, first=7))
    teachers_own = teacher_games(TIDES, TIDES_SEARCH, 3, seed=2, explore=0.3, lockstep=2, first=7)
    assert not np.array_equal(teachers_own.observations[:40], lockstep.observations[:40])


def test_a_negative_first_game_is_refused_by_name():
    with pytest.raises(ValueError, match="first must be 0 or more, got -1"):
        teacher_games(GOOFSPIEL, "random", 1, seed=0, first=-1)


def test_a_run_with_student_games_fits_again_is_reproducible_and_says_so(tmp_path):
    lines: list[str] = []
    config = small_config(**PRETRAINED, ppo={**TEACHING, "pretrain_games": 100, "pretrain_student_games": 40,
                                                      "pretrain_student_epochs": 3})
    Trainer(config, tmp_path / "dagger", progress=False, log=lines.append).run()
    assert any("40 games of the fitted network labelled by the teacher" in line for line in lines)
    assert any("pretraining epoch 10/10" in line for line in lines)  # the fit
    assert any("pretraining epoch 3/3" in line for line in lines)  # then the fit over both sets
    train(config, tmp_path / "again")
    assert same_params(tmp_path / "dagger" / "last.zip", tmp_path / "again" / "last.zip")
    train(small_config(**PRETRAINED, ppo={**TEACHING, "pretrain_games": 100}), tmp_path / "without")
    assert not same_params(tmp_path / "dagger" / "last.zip", tmp_path / "without" / "last.zip")
