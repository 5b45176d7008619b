"""The n-tuple player at depth 1 over many games at once (``ntuple:PATH,depth=1,
time_limit=none`` on the batched engine) makes the single-game player's moves, with the
zoo's n-tuple models of Double Card and Tribolo."""

import warnings

import helpers
import numpy as np
import pytest

from parlour import zoo
from parlour.baselines import make_from_spec
from parlour.baselines.batched import batched_policy
from parlour.baselines.learned.ntuple import NTupleEvaluation
from parlour.baselines.learned.ntuple_batched import OnePlyNTuple, root_order
from parlour.baselines.players.double_card_ntuple import ReachChildLogits
from parlour.baselines.players.tribolo_ntuple import WindowChildLogits
from parlour.vector import make_engine

MODELS = {"double_card": zoo.MODELS / "double_card.zip", "tribolo": zoo.MODELS / "tribolo.zip"}


def played_engine(name, seed, games, plies, **options):
    """Positions of random play of different lengths, none at all in the first two games."""
    return helpers.played_engine(name, seed, games, plies, fresh=2, **options)


def player(name, game, spec=",depth=1,time_limit=none"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a model trained with other options of the same shapes warns
        return make_from_spec(f"ntuple:{MODELS[name]}{spec}", game)


CASES = [  # (game, options, longest random start, games)
    ("double_card", {}, 60, 160),
    ("double_card", {"recycle_rule": "same_placement", "first_player": "dots", "max_moves": 30}, 50, 120),
    ("tribolo", {}, 120, 48),
    ("tribolo", {"returns": "cell_share"}, 120, 48),
]


@pytest.mark.parametrize("name, options, plies, games", CASES)
def test_every_move_is_the_single_game_players(name, options, plies, games, monkeypatch):
    engine = played_engine(name, 5, games, plies, **options)
    live = np.flatnonzero(~engine.terminated)
    movers = engine.movers()[live]
    assert len(live) >= 20 and set(movers.tolist()) == set(range(engine.num_players))  # every seat to act
    single = player(name, engine.game)
    form = batched_policy(single, engine)
    assert isinstance(form, OnePlyNTuple) and form.spec == repr(single)
    ties = []  # the games where the search's hints decide between moves of equal value
    first_best = form.first_best
    monkeypatch.setattr(form, "first_best", lambda engine, row, *rest: ties.append(row) or first_best(engine, row, *rest))
    chosen = form.actions(engine, live, movers, np.random.default_rng(0))
    expected = [single.act(engine.game_state(int(b)).info_state(int(s))) for b, s in zip(live, movers)]
    assert chosen.tolist() == expected
    probabilities = form.probabilities(engine, live, movers)
    assert probabilities.shape == (len(live), engine.num_actions)
    assert (probabilities.argmax(axis=1) == chosen).all() and (probabilities.sum(axis=1) == 1).all()
    if name == "double_card" and not options:
        assert (engine.moves[live] >= 24).any()  # recycling positions are among them
        assert (engine.moves[live] == 0).any() and ties  # and the empty board, where moves tie
    if name == "tribolo":
        assert not ties  # paranoid has no hints: the legal order decides


@pytest.mark.parametrize("name, options, plies, games", CASES[::2])
def test_the_childrens_logits_are_the_single_games(name, options, plies, games):
    engine = played_engine(name, 7, games, plies, **options)
    live = np.flatnonzero(~engine.terminated)
    scratch = make_engine(name, len(live), 0, autoreset=False, **options)
    scratch.copy_rows(engine, live, np.arange(len(live)))
    single = player(name, engine.game)
    evaluation = single.search.evaluate
    assert isinstance(evaluation, NTupleEvaluation)
    maker = ReachChildLogits if name == "double_card" else WindowChildLogits
    logits = maker(evaluation.weights)
    for seat in evaluation.frame(engine.game).seats:
        got = logits(scratch, len(live), np.full(len(live), seat))
        want = [evaluation.logits(engine.game_state(int(b)))[evaluation.frame(engine.game).seats.index(seat)]
                for b in live]
        if name == "double_card":  # the search's own fast logit: the same sum, in the same order
            assert got.tolist() == [evaluation.features.logit(evaluation.weights)(engine.game_state(int(b))) for b in live]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        if name == "tribolo":
            assert got.tolist() == want


def test_the_roots_order():
    assert root_order([3, 1, 2], None) == [3, 1, 2]
    assert root_order([3, 1, 2], [0.5, float("inf"), float("inf")]) == [1]
    assert root_order([3, 1, 2, 7], [0.5, float("-inf"), 0.5, 2.0]) == [7, 3, 2]
    assert root_order([3, 1], [float("-inf"), float("-inf")]) == [3, 1]


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("spec", [",depth=2,time_limit=none", ",depth=1", ",depth=1,time_limit=0.5", ",time_limit=none"])
def test_other_searches_have_no_batched_form(name, spec):
    engine = make_engine(name, 2, 0)
    assert batched_policy(player(name, engine.game, spec), engine) is None
