"""What is specific to the Tides of Time envs: game lengths and score rewards, the
``deck`` reset option, the ansi text, and bad decks and relics.  Everything every env
must do is in test_env_conformance.py."""

import numpy as np
import pytest
from env_helpers import TIDES_DECK, play_parallel

import parlour.envs.tides_of_time_v0 as tides_v0
from parlour import IllegalActionError


def first_legal(observations, agents):
    return {a: int(np.flatnonzero(observations[a]["action_mask"])[0]) for a in agents}


@pytest.mark.parametrize(("rounds", "steps"), [(1, 5), (3, 19)])
def test_parallel_game_lengths_and_rewards(rounds, steps):
    env = tides_v0.parallel_env(rounds=rounds, returns="score_difference")
    observations, _ = env.reset(seed=3)
    results = [result for _, result in play_parallel(env, observations, np.random.default_rng(3))]
    assert len(results) == steps
    rewards = results[-1][1]
    total = env.game_state.totals()
    assert rewards == {"player_0": total[0] - total[1], "player_1": total[1] - total[0]}


def test_reset_deck_option_fixes_the_deal_and_the_env_follows_the_rules():
    """The deal is the deck's, hands pass after each pick, and a whole game played in
    the env ends in the very state the rules reach with the same picks."""
    env = tides_v0.parallel_env(rounds=3, returns="score_difference")
    observations, _ = env.reset(options={"deck": TIDES_DECK})
    hands = {a: np.flatnonzero(o["action_mask"]).tolist() for a, o in observations.items()}
    assert hands == {"player_0": [5, 9, 10, 14, 17], "player_1": [1, 4, 6, 7, 13]}  # cards 6 10 11 15 18 / 2 5 7 8 14
    rules = env.game.new_initial_state(deck=TIDES_DECK)
    picks = first_legal(observations, env.agents)
    observations, *_ = env.step(picks)
    rules.apply({0: picks["player_0"], 1: picks["player_1"]})
    hands = {a: np.flatnonzero(o["action_mask"]).tolist() for a, o in observations.items()}
    assert hands == {"player_0": [4, 6, 7, 13], "player_1": [9, 10, 14, 17]}  # the hands were passed
    while env.agents:
        joint = first_legal(observations, env.agents)
        observations, rewards, *_ = env.step(joint)
        rules.apply({0: joint["player_0"], 1: joint["player_1"]})
    assert rules.is_terminal() and env.game_state.to_text() == rules.to_text()
    assert rewards["player_0"] == rules.returns()[0]


def test_bad_deck_option_is_a_clear_error_and_keeps_the_game():
    env = tides_v0.parallel_env()
    env.reset(seed=0)
    before = env.game_state.to_text()
    with pytest.raises(ValueError, match="deck must be a permutation of the card numbers 1..18"):
        env.reset(options={"deck": [1, 2, 3]})
    with pytest.raises(ValueError, match=r"card in deck must be between 1 and 18, got 19"):
        env.reset(options={"deck": TIDES_DECK[:-1] + [19]})
    assert env.game_state.to_text() == before


def test_render_ansi_shows_names_relics_scores_and_breakdown():
    env = tides_v0.parallel_env(rounds=3, render_mode="ansi")
    observations, _ = env.reset(options={"deck": TIDES_DECK})
    text = env.render()
    assert "The King's Nest [Palace]" in text and "round 1/3, pick 1/5" in text
    rng = np.random.default_rng(0)
    for _ in range(7):  # 5 picks, the relic step, the discard step
        acts = {a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"]))) for a in env.agents}
        observations, *_ = env.step(acts)
    text = env.render()
    assert "r1 score: " in text and "player_0 " in text and "(relic)" in text and "r1 keep: relic" in text
    assert env.game.state_from_text(text).to_text() == text


def test_raw_parallel_env_bad_relic_raises_and_changes_nothing():
    env = tides_v0.raw_parallel_env(rounds=3)
    observations, _ = env.reset(seed=2)
    for _ in range(5):
        observations, *_ = env.step(first_legal(observations, env.agents))
    assert env.game_state.phase == 1  # the relic step
    state = env.game_state
    before = state.to_text()
    not_drafted = next(a for a in range(18) if not state.drafted[0] >> a & 1)
    good = int(np.flatnonzero(observations["player_1"]["action_mask"])[0])
    with pytest.raises(IllegalActionError, match="was not drafted this round by seat 0"):
        env.step({"player_0": not_drafted, "player_1": good})
    assert env.game_state.to_text() == before
