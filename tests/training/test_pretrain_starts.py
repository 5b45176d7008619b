"""Teacher games from diverse starts (``teacher_games(..., starts=...)``,
``ppo.pretrain_start_share``): a share of the games begin where an opening drawn from
their own generator leaves them, as the learner's deep-start episodes do, and only the
teacher's part is recorded.  They replay in the rules module; in lockstep they begin at
the same positions as one at a time; a run with them is reproducible and says so."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra")
pytest.importorskip("sb3_contrib", reason="needs the train extra")

from parlour.games import load_game
from parlour.training.pretrain import teacher_games
from parlour.training.starts import SingleOpenings, Starts
from parlour.training.teacher import SingleTeacher
from parlour.training.trainer import Trainer
from tests.training.test_pretrain import PRETRAINED, TEACHING, same_games
from tests.training.test_student_games import TIDES, TIDES_SEARCH, TIDES_STUDENT
from tests.training.test_teacher import same_params, small_config, train

DOUBLE_CARD = load_game("double_card")
DEEP = Starts(1.0, 2, 5)


def test_deep_teacher_games_replay_from_their_openings_in_the_rules_module():
    """Each game's rows are the teacher's own moves from where the opening drawn from the
    game's generator left it: the opening's plies are not recorded."""
    data = teacher_games(DOUBLE_CARD, "alphabeta:depth=1,evaluation=h1", 3, seed=4, explore=0.0, starts=DEEP)
    teacher, openings = SingleTeacher("alphabeta:depth=1,evaluation=h1", DOUBLE_CARD), SingleOpenings(DOUBLE_CARD, DEEP)
    for index in range(3):
        rows = iter(np.flatnonzero(data.games == index))
        state = openings.deal(np.random.default_rng([4, index]))
        assert state.moves >= 2  # at least two plies in (the opening stops one short of an end)
        while not state.is_terminal():
            player = state.current_players()[0]
            row = next(rows)
            assert np.array_equal(data.observations[row], np.asarray(state.observation_tensor(player), dtype=np.float32))
            assert np.array_equal(data.labels[row], teacher.distribution(state.info_state(player)))
            legal = np.flatnonzero(state.legal_mask(player))
            state.apply(int(legal[np.argmax(data.labels[row][legal])]))
        assert next(rows, None) is None


def test_a_share_of_the_games_starts_deep_and_the_rest_from_the_deal():
    """With half the games drawn to start deep, some games' first rows are the deal's first
    position and some are not; a deterministic teacher's games from the deal are all one
    game, the deep ones are many."""
    data = teacher_games(DOUBLE_CARD, "alphabeta:depth=1,evaluation=h1", 12, seed=0, explore=0.0,
                         starts=Starts(0.5, 1, 6))
    deal = np.asarray(DOUBLE_CARD.new_initial_state(np.random.default_rng(0)).observation_tensor(0), dtype=np.float32)
    firsts = [data.observations[np.flatnonzero(data.games == index)[0]] for index in range(12)]
    from_deal = [np.array_equal(first, deal) for first in firsts]
    assert 0 < sum(from_deal) < 12
    assert len({first.tobytes() for first, plain in zip(firsts, from_deal) if not plain}) > 1
    plain = teacher_games(DOUBLE_CARD, "alphabeta:depth=1,evaluation=h1", 12, seed=0, explore=0.0)
    assert len({plain.observations[plain.games == index].tobytes() for index in range(12)}) == 1


def test_in_lockstep_deep_games_begin_where_they_do_one_at_a_time():
    """Tides of Time's openings are drawn through the rules module and loaded into the
    engine's rows: with the student moving (the searches draw differently in lockstep),
    the positions, masks and returns are the one-at-a-time games', for any batch."""
    starts = Starts(1.0, 1, 8)
    one_by_one = teacher_games(TIDES, TIDES_SEARCH, 3, seed=2, explore=0.2, student=TIDES_STUDENT, starts=starts)
    lockstep = teacher_games(TIDES, TIDES_SEARCH, 3, seed=2, explore=0.2, lockstep=2, student=TIDES_STUDENT, starts=starts)
    for name in ("observations", "masks", "values", "games"):
        assert np.array_equal(getattr(one_by_one, name), getattr(lockstep, name)), name
    assert same_games(lockstep, teacher_games(TIDES, TIDES_SEARCH, 3, seed=2, explore=0.2, lockstep=3,
                                              student=TIDES_STUDENT, starts=starts))
    from_deal = teacher_games(TIDES, TIDES_SEARCH, 3, seed=2, explore=0.2, lockstep=2, student=TIDES_STUDENT)
    assert len(from_deal) > len(lockstep)  # the openings' plies are not recorded


def test_a_run_with_deep_teacher_games_is_reproducible_and_says_so(tmp_path):
    lines: list[str] = []
    deep = {**TEACHING, "pretrain_games": 100, "pretrain_start_share": 0.5, "start_plies_min": 1, "start_plies_max": 3}
    config = small_config(**PRETRAINED, ppo=deep)
    Trainer(config, tmp_path / "deep", progress=False, log=lines.append).run()
    assert any("100 games of rudimentary (50% of them from 1..3 plies deep)" in line for line in lines)
    train(config, tmp_path / "again")
    assert same_params(tmp_path / "deep" / "last.zip", tmp_path / "again" / "last.zip")
    train(small_config(**PRETRAINED, ppo={**TEACHING, "pretrain_games": 100}), tmp_path / "without")
    assert not same_params(tmp_path / "deep" / "last.zip", tmp_path / "without" / "last.zip")


def test_a_share_outside_zero_to_one_is_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="pretrain_start_share"):
        small_config(**PRETRAINED, ppo={**TEACHING, "pretrain_start_share": 1.5})
