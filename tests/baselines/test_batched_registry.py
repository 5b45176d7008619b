"""The one registry of batched players (``parlour.baselines.batched``): every engine's
``random``, each game's forms registered by its players module, none for parameters a
form does not cover, and the seats of a learner's vector env played by one of them."""

from __future__ import annotations

import pytest

from parlour.baselines import make_from_spec
from parlour.baselines.batched import BatchedSeats, RandomBatched, batched_names, batched_policy
from parlour.baselines.players.goofspiel_batched import RudimentaryBatched
from parlour.baselines.players.tribolo_batched import TriboloGreedyBatched
from parlour.vector import ENGINES, make_engine
from parlour.vector.gym_env import BatchedVectorEnv


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_every_engine_plays_random(name):
    engine = make_engine(name, 3, 0)
    assert "random" in batched_names(name)
    assert isinstance(batched_policy(make_from_spec("random", engine.game), engine), RandomBatched)


def test_the_games_register_their_forms():
    assert {"random", "rudimentary"} <= set(batched_names("goofspiel"))
    assert {"random", "greedy", "original-alphabeta"} <= set(batched_names("tides_of_time"))
    assert {"random", "greedy"} <= set(batched_names("tribolo"))
    goofspiel, tribolo = make_engine("goofspiel", 2, 0), make_engine("tribolo", 2, 0)
    assert isinstance(batched_policy(make_from_spec("rudimentary", goofspiel.game), goofspiel), RudimentaryBatched)
    assert isinstance(batched_policy(make_from_spec("greedy", tribolo.game), tribolo), TriboloGreedyBatched)
    # parameters the batched rule does not cover play through the rules module
    assert batched_policy(make_from_spec("rudimentary:target=pot", goofspiel.game), goofspiel) is None
    assert batched_policy(make_from_spec("greedy:tie_break=first", tribolo.game), tribolo) is None


def test_the_engines_hold_no_player():
    for engine in ENGINES.values():
        assert not hasattr(engine, "opponents") and not hasattr(engine, "opponent_actions")


def test_a_vector_env_seats_a_batched_player():
    env = BatchedVectorEnv("tribolo", 4, opponent=BatchedSeats("greedy"), seed=0, width=6, height=5, walls=2, start_cells=2)
    assert env.core.opponent == "greedy"
    env.reset(seed=1)
    env.step(env.action_masks().argmax(axis=1))
    with pytest.raises(ValueError, match="opponent must be 'random' or a SeatPlayers"):
        BatchedVectorEnv("tribolo", 4, opponent="greedy")
    with pytest.raises(ValueError, match="'mcts' has no batched form for tribolo; batched players are"):
        BatchedVectorEnv("tribolo", 4, opponent=BatchedSeats("mcts"))
