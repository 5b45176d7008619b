"""``TidesOfTimeBatch.determinize``: a search's redraw of what one seat cannot see, in
the engine's arrays.  Every redrawn game is consistent with what the seat saw (its
information state unchanged, every observation the single game's), each unseen card
lands in each hidden place equally often, and a row's draw depends on its own generator
only."""

from __future__ import annotations

import numpy as np

from parlour.games.tides_of_time.engine import TidesOfTimeBatch

B = 48


def played(steps: int, seed: int = 0) -> TidesOfTimeBatch:
    engine = TidesOfTimeBatch(B, seed=seed, autoreset=False)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        engine.step(engine.random_actions(rng), where=~engine.terminated)
    return engine


def test_a_redrawn_game_is_one_the_seat_cannot_tell_apart():
    rows = np.arange(B)
    for steps in range(19):  # every phase of every round
        engine = played(steps)
        work = TidesOfTimeBatch(B, autoreset=False)
        for seat in (0, 1):
            work.copy_rows(engine, rows, rows)
            work.determinize(rows, np.full(B, seat), [np.random.default_rng([steps, seat, b]) for b in range(B)])
            for b in np.flatnonzero(~engine.terminated):
                redrawn = work.game_state(b)  # the deal rewritten and the moves replayed: a legal game
                assert redrawn.info_state(seat) == engine.game_state(b).info_state(seat)
                for s in (0, 1):
                    assert np.array_equal(work.observation(s)[b], redrawn.observation_tensor(s))
                assert np.array_equal(work.legal_masks()[b], np.stack([redrawn.legal_mask(0), redrawn.legal_mask(1)]))


def test_the_hidden_cards_are_drawn_uniformly():
    """Round 1, before the first exchange: the opponent's five cards and the pile's eight
    come from the 13 cards the seat does not hold, each card in the opponent's hand
    5 times in 13; in the discard step the secret relic is uniform over its drafted cards."""
    engine = played(0)
    n = 3000
    rows = np.zeros(n, dtype=np.int64)
    work = TidesOfTimeBatch(n, autoreset=False)
    work.copy_rows(engine, rows, np.arange(n))
    work.determinize(np.arange(n), np.zeros(n, dtype=np.int64), [np.random.default_rng(i) for i in range(n)])
    mine = int(engine.hands[0, 0])
    counts = np.array([((work.hands[:, 1] >> c) & 1).sum() for c in range(18)])
    assert (counts[[c for c in range(18) if mine >> c & 1]] == 0).all()
    others = counts[[c for c in range(18) if not mine >> c & 1]]
    assert len(others) == 13 and np.all(np.abs(others / n - 5 / 13) < 0.04), others / n
    discard = played(6)  # the relics are chosen: the discard step of round 1
    assert (discard.phase == 2).all()
    work.copy_rows(discard, np.zeros(n, dtype=np.int64), np.arange(n))
    work.determinize(np.arange(n), np.zeros(n, dtype=np.int64), [np.random.default_rng(i) for i in range(n)])
    drafted = [c for c in range(18) if int(discard.drafted[0, 1]) >> c & 1]
    share = np.array([(work.pending[:, 1] == c).mean() for c in drafted])
    assert np.all(np.abs(share - 1 / len(drafted)) < 0.04), share


def test_a_rows_draw_depends_on_its_own_generator_only():
    engine = played(3)
    rows = np.arange(B)
    alone, together = TidesOfTimeBatch(B, autoreset=False), TidesOfTimeBatch(B, autoreset=False)
    together.copy_rows(engine, rows, rows)
    together.determinize(rows, np.zeros(B, dtype=np.int64), [np.random.default_rng(b) for b in range(B)])
    alone.copy_rows(engine, rows, rows)
    for b in (5, 17):
        alone.determinize(np.array([b]), np.zeros(1, dtype=np.int64), [np.random.default_rng(b)])
        for name in TidesOfTimeBatch.STATE:
            assert np.array_equal(getattr(alone, name)[b], getattr(together, name)[b]), name
