"""Double Card's one-ply h1 searches over many games at once make the single-game
player's moves (the batched form a learner meets on the batched engine)."""

import helpers
import numpy as np
import pytest

from parlour.baselines import make_from_spec
from parlour.baselines.batched import batched_policy
from parlour.baselines.players.double_card import h1_features
from parlour.baselines.players.double_card_batched import OnePlyH1, h1_counts
from parlour.vector import make_engine


def played_engine(seed, games=24, plies=None, **options):
    """Double Card positions of random play of different lengths, recycling included."""
    return helpers.played_engine("double_card", seed, games, plies or 60, **options)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_h1_counts_are_the_single_games(seed):
    engine = played_engine(seed, max_moves=40)
    counts = h1_counts(engine.board)
    for b in range(engine.num_envs):
        assert tuple(counts[b]) == h1_features(engine.game_state(b)), b


@pytest.mark.parametrize("spec", ["alphabeta:depth=1,evaluation=h1", "alphabeta:depth=1,evaluation=h1-w3,ordering=none"])
@pytest.mark.parametrize("options", [{}, {"recycle_rule": "same_placement", "first_player": "dots", "max_moves": 30}])
def test_every_move_is_the_single_game_players(spec, options):
    engine = played_engine(3, games=40, **options)
    game = engine.game
    live = np.flatnonzero(~engine.terminated)
    movers = engine.movers()[live]
    single = make_from_spec(spec, game)
    form = batched_policy(single, engine)
    assert isinstance(form, OnePlyH1)
    chosen = form.actions(engine, live, movers, np.random.default_rng(0))
    expected = [single.act(engine.game_state(int(b)).info_state(int(s))) for b, s in zip(live, movers)]
    assert chosen.tolist() == expected
    if not options:
        assert (engine.moves[live] >= 24).any()  # recycling positions are among them


@pytest.mark.parametrize("spec", ["alphabeta:depth=2,evaluation=h1", "alphabeta:depth=1,evaluation=h2",
                                  "alphabeta:depth=1,evaluation=h1,ordering=evaluation", "alphabeta:depth=1,evaluation=h1,time_limit=1"])
def test_other_searches_have_no_batched_form(spec):
    engine = make_engine("double_card", 2, 0)
    assert batched_policy(make_from_spec(spec, engine.game), engine) is None
