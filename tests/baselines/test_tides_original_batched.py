"""Tides of Time's ``original-alphabeta`` over many games at once (its batched form) makes
the single-game player's moves: every pick, the opening book, and every relic and discard
with the same sampled continuations."""

import numpy as np
import pytest

from parlour.baselines import make, make_from_spec
from parlour.baselines.batched import RandomBatched, batched_policy
from parlour.baselines.players import tides_of_time_batched as tb
from parlour.baselines.players.tides_of_time_batched import TidesGreedyBatched
from parlour.games import load_game
from parlour.games.tides_of_time import DRAFT
from parlour.vector import make_engine

FLAGS = [{}, {"zero_ties_win": False}, {"maze_counts_sets": True}]


def positions(game, games, seed):
    """Every (info state, seed) met in ``games`` random games, both seats."""
    rng = np.random.default_rng(seed)
    out = []
    for _g in range(games):
        state = game.new_initial_state(int(rng.integers(2**31)))
        while not state.is_terminal():
            for p in state.current_players():
                out.append(state.info_state(p))
            state.apply({p: int(rng.choice(state.legal_actions(p))) for p in state.current_players()})
    return out


@pytest.mark.parametrize("flags", [*FLAGS, {"rounds": 1}])
@pytest.mark.parametrize("objective", ["own", "difference"])
def test_every_pick_is_the_single_game_players(flags, objective):
    game = load_game("tides_of_time", **flags)
    batched = tb.TidesOriginalBatched(make("original-alphabeta", game, objective=objective))
    infos = [i for i in positions(game, 6, seed=len(flags)) if i.phase == DRAFT and not (i.round == 0 and i.opp_hidden)]
    expected = [make("original-alphabeta", game, objective=objective).act(info) for info in infos]
    assert batched.choose(infos, np.random.default_rng(0)) == expected  # all at once
    assert {info.opp_hidden for info in infos} == ({0, 2} if game.rounds == 3 else {0})  # known hands, later rounds' first picks


@pytest.mark.parametrize("flags", FLAGS)
def test_every_relic_and_discard_is_the_single_game_players(flags):
    game = load_game("tides_of_time", **flags)
    batched = tb.TidesOriginalBatched(make("original-alphabeta", game, keep_samples=3))
    infos = [i for i in positions(game, 8, seed=7) if i.phase != DRAFT]
    assert infos
    for n, info in enumerate(infos):
        single = make("original-alphabeta", game, seed=n, keep_samples=3)
        assert batched.choose([info], np.random.default_rng(n)) == [single.act(info)]  # the same draws, the same keep


def test_the_opening_book_is_the_solvers():
    game = load_game("tides_of_time")
    book = tb.opening_book()
    assert book is not None and all(len(book[o]) == 8568 for o in tb.OBJECTIVES)
    hands = tb.all_hands()
    assert (tb.hand_rank(hands) == np.arange(len(hands))).all()
    rng = np.random.default_rng(3)
    for objective in tb.OBJECTIVES:
        for index in rng.choice(len(hands), 4, replace=False):
            hand = int(hands[index])
            cards = [c + 1 for c in range(18) if hand >> c & 1]
            deck = cards + [c for c in range(1, 19) if c not in cards]
            info = game.new_initial_state(deck=deck).info_state(0)  # player_0 holds the hand
            assert info.hand == hand
            player = make("original-alphabeta", game, objective=objective)
            assert int(book[objective][index]) == tb.opening_pick(game, hand, objective) == player.act(info)


def test_other_flags_solve_round_one_and_remember_it():
    game = load_game("tides_of_time", zero_ties_win=False)
    hand = int(tb.all_hands()[17])
    tb.SOLVED_OPENINGS.clear()
    assert tb.round_one_pick(game, hand, "own") == tb.opening_pick(game, hand, "own")
    assert list(tb.SOLVED_OPENINGS) == [(game.flags, "own", hand)]


def test_the_mix_finds_the_batched_forms():
    engine = make_engine("tides_of_time", 4, 0)
    game = engine.game
    assert isinstance(batched_policy(make_from_spec("original-alphabeta:objective=difference", game), engine), tb.TidesOriginalBatched)
    assert isinstance(batched_policy(make_from_spec("greedy", game), engine), TidesGreedyBatched)
    assert isinstance(batched_policy(make_from_spec("random", game), engine), RandomBatched)
    assert batched_policy(make_from_spec("mcts", game), engine) is None
    with pytest.raises(ValueError, match="was made for"):
        batched_policy(make_from_spec("greedy", load_game("tides_of_time", rounds=1)), engine)


def test_the_batched_player_reads_the_engines_games():
    engine = make_engine("tides_of_time", 8, 5)
    game = engine.game
    batched = tb.TidesOriginalBatched(make("original-alphabeta", game, keep="greedy"))
    rng = np.random.default_rng(0)
    for _ in range(19):
        rows, seats = np.arange(8), rng.integers(2, size=8)
        chosen = batched.actions(engine, rows, seats, rng)
        for b, s, a in zip(rows, seats, chosen):
            assert engine.legal_masks()[b, s, a] == 1
            assert a == make("original-alphabeta", game, keep="greedy").act(engine.game_state(int(b)).info_state(int(s)))
        engine.step(engine.random_actions())
