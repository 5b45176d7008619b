"""What is specific to the Goofspiel envs: a round's bids held back in the AEC env, the
``prizes`` and ``hands`` reset options, and what each seat's information state hides.
Everything every env must do is in test_env_conformance.py."""

import numpy as np

from parlour.envs import goofspiel_v0


def test_aec_simultaneous_step_hides_pending_bids():
    env = goofspiel_v0.raw_env(num_cards=3, prize_order="descending")
    env.reset()
    assert env.agent_selection == "player_0"
    before = env.observe("player_1")["observation"].copy()
    env.step(2)
    assert env.agent_selection == "player_1"
    assert env.observe("player_0")["action_mask"].tolist() == [0, 0, 0]  # already chose
    assert env.observe("player_1")["action_mask"].tolist() == [1, 1, 1]
    assert env.observe("player_1")["observation"].tolist() == before.tolist()  # bid unseen
    assert env.game_state.round == 0
    env.step(0)
    assert env.game_state.round == 1 and env.game_state.points == [3, 0]
    assert env.agent_selection == "player_0"


def test_prizes_and_hands_reset_options_fix_the_start():
    """The example of docs/goofspiel.md: hands above N come from the game option, the
    reset options pick prizes and hands; bids 6 and 5 give player_0 the prize 3."""
    env = goofspiel_v0.raw_parallel_env(tie_rule="discard", hands=[[4, 5, 6], [1, 2, 3]])
    observations, _ = env.reset(seed=0, options={"prizes": [3, 2, 1], "hands": [[1, 2, 6], [3, 4, 5]]})
    assert env.game_state.prizes == (3, 2, 1)
    assert {a: np.flatnonzero(o["action_mask"]).tolist() for a, o in observations.items()} == {
        "player_0": [0, 1, 5],
        "player_1": [2, 3, 4],
    }
    env.step({"player_0": 5, "player_1": 4})
    assert env.game_state.points == [3, 0]
    aec = goofspiel_v0.env(num_cards=5)
    aec.reset(options={"prizes": [5, 4, 3, 2, 1]})
    assert aec.unwrapped.game_state.prizes == (5, 4, 3, 2, 1)
    assert aec.observe("player_1")["action_mask"].tolist() == [1] * 5


def test_info_state_is_the_seats_view():
    env = goofspiel_v0.raw_env(num_cards=4, imperfect_info=True)
    env.reset(seed=1)
    env.step(3)
    env.step(0)
    info = env.info_state("player_1")
    assert info.player == 1 and info.bids == ((None, 0),)
    assert env.unwrapped.info_state("player_0").bids == ((3, None),)
