"""What is pick-up sticks' own in its batched engine: its reasons for a bad action and
its bad options.  Everything every engine keeps (the games against the single games,
misère and normal play, ``where``, no autoreset, bad steps changing nothing, seeds) is
the conformance suite's, ``test_engine_contract*.py``."""

from __future__ import annotations

import numpy as np
import pytest
from conformance import assert_refused

from parlour.errors import IllegalActionError
from parlour.games.sticks import SticksBatch
from parlour.vector import make_engine


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (np.array([0, 3]), r"action 3 \(take 4\) is illegal for seat 1 in game 1 .*legal actions are \[0, 1, 2\]"),
        (np.array([0, -1]), r"action -1 \(take 0\)"),
    ],
)
def test_bad_action_messages(actions, message) -> None:
    engine = make_engine("sticks", 2, 0)
    engine.step(np.array([0, 0]), where=np.array([False, True]))
    assert_refused(engine, actions, IllegalActionError, message)


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="max_take must be"):
        SticksBatch(2, max_take=0)
