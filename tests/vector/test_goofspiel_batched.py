"""What is Goofspiel's own in its batched engine: its reasons for a bad bid, its bad
options (the single game's errors), and its ``rudimentary`` player against the
single-game one.  Everything every engine keeps (the games against the single games
under any options, ``where``, no autoreset, bad steps changing nothing, seeds) is the
conformance suite's, ``test_engine_contract*.py``."""

from __future__ import annotations

import numpy as np
import pytest
from conformance import assert_refused
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.errors import IllegalActionError
from parlour.games.goofspiel import GoofspielBatch
from parlour.vector import make_engine


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (np.array([[0, 0], [0, 7]]), r"action 7 \(outside 0..4\) for seat 1 in game 1"),
        (np.array([[0, 0], [-1, 0]]), r"action -1 .* for seat 0 in game 1"),
        (np.array([[1, 0], [0, 3]]), r"action 3 \(card 4, not in the hand\) for seat 1 in game 1"),  # played in round 1
    ],
)
def test_bad_bid_messages(actions, message) -> None:
    engine = make_engine("goofspiel", 2, 0, num_cards=5)
    engine.step(np.array([[2, 2], [1, 3]]))
    assert_refused(engine, actions, IllegalActionError, message)


def test_bad_options_are_the_single_games_errors() -> None:
    with pytest.raises(ValueError, match="tie_rule must be one of"):
        GoofspielBatch(2, tie_rule="split")
    with pytest.raises(ValueError, match="unknown option"):
        GoofspielBatch(2, cards=5)


@settings(max_examples=15, deadline=None)
@given(opts=st.sampled_from([{"num_cards": 6}, {"num_cards": 5, "num_players": 3, "prize_order": "random"},
                             {"num_cards": 4, "hands": [[1, 3, 5, 7], [2, 4, 6, 8]], "prize_order": "ascending"}]),
       seed=st.integers(0, 10**6))
def test_the_batched_rudimentary_player_bids_as_the_single_one(opts: dict, seed: int) -> None:
    from parlour.baselines import make_from_spec
    from parlour.baselines.players.goofspiel_batched import RudimentaryBatched

    engine = GoofspielBatch(6, seed=seed, autoreset=False, **opts)
    player = make_from_spec("rudimentary", engine.game)
    while not engine.terminated.all():
        bids = RudimentaryBatched.every_bid(engine)
        for b in range(engine.num_envs):
            state = engine.game_state(b)
            assert [player.act(state.info_state(seat)) for seat in range(engine.num_players)] == bids[b].tolist()
        engine.step(np.where(engine.round[:, None] % 2 == 0, bids, engine.random_actions()))
