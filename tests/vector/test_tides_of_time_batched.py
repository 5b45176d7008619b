"""What is Tides of Time's own in its batched engine: the vectorised scoring against
the single game's per-card scoring, the batched greedy player against parlour's
``greedy`` rule, dealing given decks (``load_deals``) and its phases, its reasons for a
bad card in each phase, its bad options.  Everything every engine keeps (lockstep
with the single games under any options and with the greedy player, ``where``, no
autoreset, bad steps changing nothing, seeds, the base class's random draw, vector
envs) is the conformance suite's, ``test_engine_contract*.py``."""

from __future__ import annotations

import numpy as np
import pytest
from conformance import assert_refused

from parlour.baselines import make
from parlour.baselines.players.tides_of_time import greedy_keep, greedy_pick
from parlour.baselines.players.tides_of_time_batched import TidesGreedyBatched
from parlour.errors import IllegalActionError
from parlour.games import load_game
from parlour.games.tides_of_time import (
    DISCARD,
    DRAFT,
    RELIC,
    TidesOfTimeBatch,
    score_kingdoms,
    score_masks,
)
from parlour.games.tides_of_time.engine import card_points
from parlour.vector import make_engine


@pytest.mark.parametrize(("zero_ties_win", "maze_counts_sets"), [(True, False), (False, True)])
def test_card_points_are_the_single_games(zero_ties_win: bool, maze_counts_sets: bool) -> None:
    rng = np.random.default_rng(int(zero_ties_win))
    n = 1500
    order = np.argsort(rng.random((n, 18)), axis=1)
    sizes = rng.integers(0, 8, (n, 2))
    k0 = np.array([sum(1 << int(c) for c in order[i, : sizes[i, 0]]) for i in range(n)])
    k1 = np.array([sum(1 << int(c) for c in order[i, sizes[i, 0] : sizes[i].sum()]) for i in range(n)])
    pts = card_points(k0, k1, zero_ties_win, maze_counts_sets)
    for i in range(n):
        totals, detail = score_kingdoms(int(k0[i]), int(k1[i]), zero_ties_win, maze_counts_sets, detail=True)
        assert tuple(pts[i].sum(axis=-1)) == totals
        for seat in (0, 1):
            expected = np.zeros(18, dtype=np.int64)
            for card, value in detail[seat].items():
                expected[card] = value
            assert np.array_equal(pts[i, seat], expected)


def test_greedy_matches_the_single_players_rule() -> None:
    """Every greedy choice is the single player's: the same relic and discard, a pick
    among ``greedy_pick``'s best cards; ties are broken by the engine's generator,
    and over many games every tied card gets chosen."""
    engine = make_engine("tides_of_time", 24, 3)
    game = engine.game
    player = make("greedy", game, seed=0)  # the single-game player itself, where it has no tie to break
    tied_choices: set[tuple[int, ...]] = set()
    rng = np.random.default_rng(0)
    for _ in range(40):
        greedy = TidesGreedyBatched.every_choice(engine, engine.rng)
        for b in range(engine.num_envs):
            state = engine.game_state(b)
            for p in (0, 1):
                info = state.info_state(p)
                own, opp = info.kingdoms
                if info.phase == DRAFT:
                    best = greedy_pick(game, own, opp, info.hand)
                    assert greedy[b, p] in best
                    if len(best) > 1:
                        tied_choices.add((len(best), int(greedy[b, p])))
                        continue
                else:
                    relic, discard = greedy_keep(game, own, opp, info.drafted[0], info.own_relic)
                    assert greedy[b, p] == (relic if info.phase == RELIC else discard)
                assert greedy[b, p] == player.act(info)
        mix = np.where(rng.random((engine.num_envs, 1)) < 0.5, greedy, engine.random_actions())
        engine.step(mix)
    assert len(tied_choices) > 1  # ties happened and were broken in more than one way


def test_load_deals_and_phases() -> None:
    deck = [6, 10, 11, 15, 18, 2, 5, 7, 8, 14, 1, 3, 4, 9, 12, 13, 16, 17]  # docs/tides_of_time.md
    engine = make_engine("tides_of_time", 2, 0)
    engine.load_deals([deck], where=np.array([False, True]))
    assert engine.decks[1].tolist() == deck
    state = load_game("tides_of_time").new_initial_state(deck=deck)
    moves = [(15, 7), (2, 11), (6, 8), (5, 18), (10, 14), (15, 14), (2, 7), (1, 4)]
    phases = []
    for a, b in moves:
        phases.append(int(engine.phase[1]))
        engine.step(np.array([[0, 0], [a - 1, b - 1]]), where=np.array([False, True]))
        state.apply({0: a - 1, 1: b - 1})
    assert phases == [DRAFT] * 5 + [RELIC, DISCARD, DRAFT]
    assert engine.game_state(1).to_text() == state.to_text()
    assert engine.scores[1, 0].tolist() == [10, 17] == list(score_masks(*state.kingdoms[0]))
    for p in (0, 1):
        assert np.array_equal(engine.observation(p)[1], state.observation_tensor(p))
    with pytest.raises(ValueError, match="deck must be a permutation"):
        engine.load_deals([deck[:-1] + [1]], where=np.array([True, False]))
    with pytest.raises(ValueError, match=r"decks must have shape \(2, 18\)"):
        engine.load_deals([deck])


def _engine_at(phase: int) -> TidesOfTimeBatch:
    engine = make_engine("tides_of_time", 2, 0)
    deck = [6, 10, 11, 15, 18, 2, 5, 7, 8, 14, 1, 3, 4, 9, 12, 13, 16, 17]
    engine.load_deals([deck, deck])
    moves = [(15, 7), (2, 11), (6, 8), (5, 18), (10, 14), (15, 14)]
    for a, b in moves[: {DRAFT: 1, RELIC: 5, DISCARD: 6}[phase]]:
        engine.step(np.array([[a - 1, b - 1]] * 2))
    return engine


@pytest.mark.parametrize(
    ("phase", "actions", "message"),
    [
        (DRAFT, [[1, 5], [1, 18]], r"action 18 \(no such card; actions are 0..17\), in game 1"),
        (DRAFT, [[1, 5], [-1, 5]], r"action -1 \(no such card.*in game 1"),
        (DRAFT, [[1, 5], [14, 5]], r"action 14 \(card 15\) is not in the hand of seat 0, in game 1"),
        (RELIC, [[14, 13], [14, 1]], r"action 1 \(card 2\) was not drafted this round by seat 1: a relic"),
        (DISCARD, [[1, 6], [14, 6]], r"action 14 \(card 15\) is already seat 0's relic.*in game 1"),
        (DISCARD, [[1, 6], [1, 2]], r"action 2 \(card 3\) was not drafted this round by seat 1: the discard"),
    ],
)
def test_bad_card_messages(phase, actions, message) -> None:
    engine = _engine_at(phase)
    assert_refused(engine, np.array(actions), IllegalActionError, message)
    engine.step(engine.random_actions())  # still playable


def test_bad_options() -> None:
    with pytest.raises(ValueError, match=r"rounds must be one of \[1, 3\]"):
        TidesOfTimeBatch(2, rounds=2)
    with pytest.raises(ValueError, match="returns must be one of"):
        TidesOfTimeBatch(2, returns="points")
    with pytest.raises(ValueError, match="unknown option"):
        TidesOfTimeBatch(2, deck=list(range(1, 19)))
