"""An ``az`` search's ``distribution`` is its visit counts (AlphaZero's ``pi``): what a
pretraining or kickstarting learner distilling the search is fitted to.  The same seed
searches the same tree whether the player is asked for its move or its distribution, so
the distribution's mode is the move the player plays."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch", reason="needs the train extra")

from parlour.baselines import make_from_spec
from parlour.games import load_game
from parlour.training.pretrain import teacher_games
from parlour.zoo import MODELS

TIDES = str(MODELS / "tides_of_time.zip")
STICKS = str(MODELS / "sticks.zip")


def decisions(name: str, seed: int, limit: int):
    """``(game, state, seat)`` at the decisions of a uniformly random game of ``name``."""
    game = load_game(name)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(rng)
    found = 0
    while not state.is_terminal() and found < limit:
        players = state.current_players()
        for seat in players:
            yield game, state, seat
            found += 1
        moves = {seat: int(rng.choice(state.legal_actions(seat))) for seat in players}
        state.apply(next(iter(moves.values())) if len(moves) == 1 else moves)


@pytest.mark.parametrize("name, path", [("sticks", STICKS), ("tides_of_time", TIDES)])
def test_a_search_says_its_visit_counts_and_plays_their_mode(name, path):
    asked = searched = None
    for game, state, seat in decisions(name, 3, 12):
        if asked is None:
            asked = make_from_spec(f"az:{path},simulations=24", game, seed=7)
            searched = make_from_spec(f"az:{path},simulations=24", game, seed=7)
        info = state.info_state(seat)
        pi = asked.distribution(info)
        move = searched.act(info)
        legal = state.legal_actions(seat)
        assert pi.dtype == np.float32 and pi.shape == (game.num_actions,)
        assert np.isclose(pi.sum(), 1.0) and (pi[np.setdiff1d(np.arange(game.num_actions), legal)] == 0).all()
        if len(legal) == 1:
            assert pi[legal[0]] == 1.0 and move == legal[0]
            continue
        visits = searched.stats["visits"]  # the same search: the generators are in step
        assert asked.stats["visits"] == visits
        expected = np.zeros(game.num_actions)
        expected[list(visits)] = list(visits.values())
        assert np.allclose(pi, expected / expected.sum())
        assert pi[move] == pi.max()


def test_its_temperature_sharpens_the_visit_counts():
    game, state, seat = next(found for found in decisions("tides_of_time", 5, 30) if len(found[1].legal_actions(found[2])) > 2)
    player = make_from_spec(f"az:{TIDES},simulations=32,temperature=0.5", game, seed=1)
    pi = player.distribution(state.info_state(seat))
    counts = np.zeros(game.num_actions)
    counts[list(player.stats["visits"])] = list(player.stats["visits"].values())
    assert np.allclose(pi, counts**2 / (counts**2).sum(), atol=1e-6)


def test_pretraining_on_a_search_records_its_visit_counts():
    game = load_game("tides_of_time")
    data = teacher_games(game, f"az:{TIDES},simulations=16", games=2, seed=0, explore=0.0)
    assert np.allclose(data.labels.sum(axis=1), 1.0)
    assert ((data.labels > 0) & ~data.masks).sum() == 0
    several = data.masks.sum(axis=1) > 1
    assert ((data.labels[several] > 0).sum(axis=1) > 1).any()  # soft labels, not the move alone
    assert (data.labels[~several].max(axis=1) == 1.0).all()
