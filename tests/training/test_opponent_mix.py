"""Self-play on the batched engines (parlour.training.opponent_mix).

The differential test plays the batched view (``BatchedVectorEnv`` with an
``OpponentMix``) against one single-game view (``SingleAgentEnv``) per game of the
batch, started from the same positions with the learner at the same seats and the
opponents replaying the moves the batch's opponents chose: every observation, mask,
reward and end must be the same, for every seat of every game.
"""

from __future__ import annotations

from collections import defaultdict, deque

import numpy as np
import pytest

from parlour.baselines import Policy
from parlour.games import load_game
from parlour.training.opponent_mix import OpponentMix
from parlour.training.opponents import OpponentPool, parse_opponents
from parlour.training.single_agent import SingleAgentEnv
from parlour.vector import ENGINES
from parlour.vector.gym_env import BatchedVectorEnv
from parlour.vector.seat_players import SeatPlayers

torch = pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")

SMALL = {
    "goofspiel": {"num_cards": 5, "num_players": 3},
    "sticks": {"num_sticks": 9},
    "tides_of_time": {},
    "tribolo": {"width": 8, "height": 7, "walls": 4, "start_cells": 6},
    "double_card": {"max_moves": 30},
}
MIXES = {
    "goofspiel": ("random,rudimentary,self,mcts:simulations=4", [1, 1, 1, 1]),
    "sticks": ("random,self,minimax", [1, 2, 1]),
    "tides_of_time": ("random,greedy,self,mcts:simulations=4,original-alphabeta:keep_samples=2", [1, 1, 1, 1, 1]),
    "tribolo": ("random,greedy,self,original-strategy", [1, 1, 1, 1]),
    "double_card": ("random,self,alphabeta:depth=1,evaluation=h1,mcts:simulations=4", [1, 1, 1, 1]),
}
"""Per game: an engine player, a snapshot, a player through the rules module and, for
Tides of Time and Double Card, a search with a batched form."""


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory):
    """Two untrained MaskablePPO snapshots per game (different seeds)."""
    from sb3_contrib import MaskablePPO

    from parlour.baselines.learned.ppo import save_model

    folder = tmp_path_factory.mktemp("snapshots")
    paths = {}
    for name in ENGINES:
        game = load_game(name, **SMALL[name])
        env = SingleAgentEnv(game)
        paths[name] = []
        for seed in (0, 1):
            model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, seed=seed, device="cpu",
                                policy_kwargs={"net_arch": [16]})
            paths[name].append(str(save_model(model, folder / f"{name}-{seed}.zip", game)))
    return paths


class Recording(SeatPlayers):
    """An ``OpponentMix`` that records, per game and episode, where the episode started
    (the position and the learner's seat) and the moves its opponents chose (the
    single-game views replay them)."""

    def __init__(self, mix: OpponentMix) -> None:
        self.mix = mix
        self.episodes: dict[int, list[dict]] = defaultdict(list)

    def bind(self, engine, rng):
        super().bind(engine, rng)
        self.mix.bind(engine, rng)

    def start(self, rows, learner):
        self.mix.start(rows, learner)
        for b, seat in zip(rows.tolist(), learner.tolist()):
            self.episodes[b].append({"start": self.engine.game_state(b), "seat": seat, "moves": defaultdict(deque)})

    def actions(self, need):
        actions = self.mix.actions(need)
        if self.engine.simultaneous:
            rows, seats = np.nonzero(need)
            chosen = actions[rows, seats]
        else:
            rows = np.flatnonzero(need)
            seats, chosen = self.engine.movers()[rows], actions[rows]
        for b, s, a in zip(rows.tolist(), seats.tolist(), chosen.tolist()):
            self.episodes[b][-1]["moves"][s].append(a)
        return actions

    def applied(self, actions, where, terminated):
        self.mix.applied(actions, where, terminated)


class Replay(Policy):
    """Plays, at every seat of game ``b``, the moves the batch's opponents chose there in
    the episode ``episode``."""

    name = "replay"
    summary = "test only"

    def __init__(self, game, recording: Recording, b: int) -> None:
        super().__init__(game)
        self.recording, self.b, self.episode = recording, b, 0

    def act(self, info_state):
        return self.recording.episodes[self.b][self.episode]["moves"][info_state.player].popleft()


def batched_view(name, snapshots, seed=0, num_envs=6, workers=0):
    game = load_game(name, **SMALL[name])
    text, weights = MIXES[name]
    mix = OpponentMix(game, parse_opponents(text, weights), snapshots[name], workers=workers)
    recording = Recording(mix)
    return BatchedVectorEnv(name, num_envs, opponent=recording, seed=seed, **SMALL[name]), recording


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_batched_self_play_is_the_single_game_view(name, snapshots):
    env, recording = batched_view(name, snapshots)
    game = env.engine.game
    replays = [Replay(game, recording, b) for b in range(env.num_envs)]
    singles = [SingleAgentEnv(game, OpponentPool.of_policy(replay, game)) for replay in replays]

    def restart(b):
        """The single game of ``b`` starts the batch's episode there (its latest)."""
        replays[b].episode = len(recording.episodes[b]) - 1
        episode = recording.episodes[b][-1]
        observation, info = singles[b].reset(options={"state": episode["start"], "seat": episode["seat"]})
        assert info["seat"] == episode["seat"]
        return observation

    obs, infos = env.reset(seed=3)
    for b in range(env.num_envs):
        np.testing.assert_array_equal(restart(b), obs[b])
    rng = np.random.default_rng(0)
    seats, entries, finished = set(), set(), 0
    for _ in range(60):
        masks = env.action_masks()
        for b in range(env.num_envs):
            np.testing.assert_array_equal(singles[b].action_masks(), masks[b])
            seats.add(int(env.core.seats[b]))
            entries.update(int(e) for e in recording.mix.entry[b] if e >= 0)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, ended, _, infos = env.step(actions)
        for b in range(env.num_envs):
            single_obs, reward, done, truncated, _ = singles[b].step(int(actions[b]))
            assert (reward, done, truncated) == (rewards[b], ended[b], False), (b, reward, rewards[b])
            if done:
                np.testing.assert_array_equal(single_obs, infos["final_obs"][b])
                np.testing.assert_array_equal(restart(b), obs[b])
                finished += 1
            else:
                np.testing.assert_array_equal(single_obs, obs[b])
        for b, episodes in recording.episodes.items():
            for number, episode in enumerate(episodes[:-1]):  # every finished episode was replayed whole
                left = {s: list(q) for s, q in episode["moves"].items() if q}
                assert not left, f"game {b}, episode {number}: moves not replayed {left}"
    assert seats == set(range(game.num_players))  # the learner sat at every seat
    assert entries == set(range(len(recording.mix.entries)))  # and met every kind of opponent
    assert finished >= env.num_envs


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_the_searches_see_the_games_as_they_are(name, snapshots):
    """The rules-module copies of the games that a search plays in are the engine's games."""
    env, recording = batched_view(name, snapshots, seed=5)
    mix = recording.mix
    env.reset(seed=5)
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(40):
        for b, state in mix._shadows.items():
            assert state.to_text() == env.engine.game_state(b).to_text()
            checked += 1
        masks = env.action_masks()
        env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    assert checked


def play(env, steps, seed):
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = [obs.copy()]
    for _ in range(steps):
        masks = env.action_masks()
        obs, rewards, ended, _, _ = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        out += [obs.copy(), rewards.copy(), ended.copy(), env.core.seats.copy()]
    return out


def same(a, b):
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("name", ["tribolo", "tides_of_time"])
def test_same_seed_same_games_with_or_without_workers(name, snapshots):
    """One seed fixes the batch (deals, seats, opponents, their moves), and worker
    processes for the searches change nothing."""
    first = play(batched_view(name, snapshots, seed=0)[0], 25, seed=7)
    assert same(first, play(batched_view(name, snapshots, seed=0)[0], 25, seed=7))
    assert not same(first, play(batched_view(name, snapshots, seed=0)[0], 25, seed=8))
    env = batched_view(name, snapshots, seed=0, workers=2)[0]
    try:
        assert same(first, play(env, 25, seed=7))
    finally:
        env.core.players.mix.close()


def test_each_snapshot_answers_its_games_in_one_network_call(snapshots, monkeypatch):
    from parlour.baselines.learned.ppo_batched import FrozenPPO

    calls = []
    original = FrozenPPO.actions

    def counted(self, engine, rows, seats, rng):
        calls.append((self.path, len(rows)))
        return original(self, engine, rows, seats, rng)

    monkeypatch.setattr(FrozenPPO, "actions", counted)
    game = load_game("goofspiel", num_cards=4)
    mix = OpponentMix(game, parse_opponents("self"), snapshots["goofspiel"][:0], max_snapshots=2)
    with pytest.raises(ValueError, match="the 'self' opponent has no snapshot yet"):
        BatchedVectorEnv("goofspiel", 64, opponent=mix, num_cards=4).reset(seed=0)
    game = load_game("goofspiel", **SMALL["goofspiel"])
    mix = OpponentMix(game, parse_opponents("self"), snapshots["goofspiel"], max_snapshots=2)
    env = BatchedVectorEnv("goofspiel", 64, opponent=mix, seed=0, **SMALL["goofspiel"])
    env.reset(seed=0)
    env.step(np.argmax(env.action_masks(), axis=1))
    assert sorted(path for path, _ in calls) == sorted(mix.snapshot_paths)  # one call per snapshot
    assert sum(n for _, n in calls) == 64 * 2  # both opponent seats of every game
    assert set(np.unique(mix.snapshot[mix.entry >= 0])) == {0, 1}


def test_only_the_latest_snapshots_are_drawn(snapshots):
    game = load_game("sticks", **SMALL["sticks"])
    mix = OpponentMix(game, parse_opponents("self"), snapshots["sticks"], max_snapshots=1)
    env = BatchedVectorEnv("sticks", 32, opponent=mix, seed=0, **SMALL["sticks"])
    env.reset(seed=0)
    assert set(mix.snapshot[mix.entry >= 0]) == {1}
    mix.add_snapshot(snapshots["sticks"][0])  # a third, newest one: the same file again
    env.reset(seed=1)
    assert set(mix.snapshot[mix.entry >= 0]) == {2}


def test_entries_are_drawn_by_weight():
    game = load_game("goofspiel", num_cards=3)
    mix = OpponentMix(game, parse_opponents("random,rudimentary", [1, 3]))
    env = BatchedVectorEnv("goofspiel", 4000, opponent=mix, seed=0, num_cards=3)
    env.reset(seed=0)
    share = (mix.entry == 1).sum() / (mix.entry >= 0).sum()
    assert 0.72 < share < 0.78  # 3 of 4, 4,000 draws


@pytest.mark.parametrize(("text", "message"), [
    ("random,nobody", "unknown policy 'nobody'"),
    ("mcts:simulations=x", "simulations"),
    ("league", "opponent 'league'"),
])
def test_bad_opponents_are_refused_by_name(text, message):
    game = load_game("sticks")
    with pytest.raises(ValueError, match=message):
        OpponentMix(game, parse_opponents(text))


def test_a_mix_plays_the_game_it_was_made_for(snapshots):
    mix = OpponentMix(load_game("sticks", num_sticks=5), parse_opponents("random"))
    with pytest.raises(ValueError, match="the opponent mix is for"):
        BatchedVectorEnv("sticks", 2, opponent=mix, num_sticks=7)
