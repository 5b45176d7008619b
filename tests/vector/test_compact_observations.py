"""Compact observations (``compact=True``): uint8 codes where the engine has them
(Goofspiel: fractions as their numerators; Tribolo: binary planes), exactly the float32
observations after ``decode``, in every read and every finished game."""

import numpy as np
import pytest

from parlour.vector import ENGINES, make_engine

OPTIONS = {
    "goofspiel": [{"num_cards": 13}, {"num_cards": 5, "num_players": 3, "tie_rule": "discard", "imperfect_info": True},
                  {"num_cards": 6, "prize_order": "descending", "returns": "point_difference"}],
    "tribolo": [{}, {"width": 8, "height": 7, "walls": 4, "start_cells": 6}],
    "sticks": [{}],
    "tides_of_time": [{}],
    "double_card": [{}],
}


@pytest.mark.parametrize(("name", "options"), [(name, options) for name in sorted(ENGINES) for options in OPTIONS[name]])
def test_decoded_compact_observations_are_the_float_ones(name, options):
    plain = make_engine(name, 32, 3, **options)
    compact = make_engine(name, 32, 3, compact=True, **options)
    assert compact.compact == compact.COMPACT and not plain.compact
    assert compact.observation_dtype == (np.uint8 if compact.COMPACT else np.float32)
    rng = np.random.default_rng(0)
    rows = np.arange(0, 32, 3)
    finished = 0
    for _ in range(150):
        observations = compact.observations()
        assert observations.dtype == compact.observation_dtype
        expected = plain.observations()
        decoded = compact.decode(observations)
        assert decoded.dtype == np.float32 and np.array_equal(decoded, expected)
        seats = rng.integers(plain.num_players, size=32)
        assert np.array_equal(compact.decode(compact.observation(seats)), plain.observation(seats))
        assert np.array_equal(compact.decode(compact.observation_at(rows, seats[rows])), plain.observation_at(rows, seats[rows]))
        actions = plain.random_actions(np.random.default_rng(int(rng.integers(2**31))))
        a, b = plain.step(actions), compact.step(actions)
        assert np.array_equal(a.terminated, b.terminated) and np.array_equal(a.rewards, b.rewards)
        if a.terminated.any():
            finished += int(a.terminated.sum())
            assert np.array_equal(compact.decode(b.final_observations), a.final_observations)
    assert finished


def test_compact_goofspiel_says_what_does_not_fit_a_byte():
    with pytest.raises(ValueError, match="num_cards=23 totals 276"):
        make_engine("goofspiel", 2, 0, compact=True, num_cards=23)
    with pytest.raises(ValueError, match="compact must be True or False"):
        make_engine("goofspiel", 2, 0, compact="yes")
