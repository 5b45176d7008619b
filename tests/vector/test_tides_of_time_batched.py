"""The batched Tides of Time engine against B single games (parlour.games.tides_of_time):
the same random cards through both must give the same observations, masks, rewards,
terminal flags and seats to act at every step (picks, relics, discards), for every
option combination (hypothesis), across automatic resets; the vectorised scoring
against the single game's per-card scoring; the batched greedy player against
parlour's ``greedy`` rule; determinism; bad actions rejected without any change; the
vector envs."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_seeded
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.baselines import make
from parlour.baselines.players.tides_of_time import greedy_keep, greedy_pick
from parlour.errors import IllegalActionError
from parlour.games import load_game
from parlour.games.tides_of_time import DISCARD, DRAFT, RELIC, score_kingdoms, score_masks
from parlour.vector import ENGINES, TidesOfTimeBatch, make_engine
from parlour.vector.tides_of_time import card_points

OPTIONS = st.fixed_dictionaries(
    {
        "rounds": st.sampled_from([1, 3]),
        "returns": st.sampled_from(["win_loss", "score_difference"]),
        "zero_ties_win": st.booleans(),
        "maze_counts_sets": st.booleans(),
    }
)


def check_against_single(opts: dict, num_envs: int, seed: int, steps: int, player: str = "random") -> None:
    engine = make_engine("tides_of_time", num_envs, seed, **opts)
    game = load_game("tides_of_time", **opts)
    rng = np.random.default_rng(seed + 1)
    states = [game.new_initial_state(deck=engine.decks[b].tolist()) for b in range(num_envs)]
    ended = 0
    for _ in range(steps):
        obs, masks, to_act = engine.observations(), engine.legal_masks(), engine.to_act()
        assert obs.dtype == np.float32 and obs.shape == (num_envs, 2, 202)
        assert masks.dtype == np.int8 and masks.shape == (num_envs, 2, 18)
        for p in (0, 1):
            assert np.array_equal(engine.observation(p), obs[:, p])
            assert np.array_equal(engine.legal_mask(p), masks[:, p])
        for b, state in enumerate(states):
            assert not engine.terminated[b]
            assert tuple(np.flatnonzero(to_act[b])) == state.current_players()
            for p in (0, 1):
                assert np.array_equal(obs[b, p], state.observation_tensor(p))
                assert np.array_equal(masks[b, p], state.legal_mask(p))
        actions = engine.opponent_actions(player, rng)
        result = engine.step(actions)
        for b, state in enumerate(states):
            state.apply({0: int(actions[b, 0]), 1: int(actions[b, 1])})
            assert result.terminated[b] == state.is_terminal()
            assert np.array_equal(result.rewards[b], state.returns())
            if state.is_terminal():
                ended += 1
                for p in (0, 1):
                    assert np.array_equal(result.final_observations[b, p], state.observation_tensor(p))
                states[b] = game.new_initial_state(deck=engine.decks[b].tolist())
        assert not engine.terminated.any()  # autoreset
    assert ended or steps < 5


@settings(max_examples=12, deadline=None)
@given(opts=OPTIONS, num_envs=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
def test_same_as_single_games(opts: dict, num_envs: int, seed: int) -> None:
    steps = 24 if opts["rounds"] == 3 else 12  # past one autoreset either way
    check_against_single(opts, num_envs, seed, steps)


def test_defaults_and_greedy_play() -> None:
    check_against_single({}, 3, 7, 40)
    check_against_single({"rounds": 1, "returns": "score_difference"}, 3, 8, 11, player="greedy")
    check_against_single({"maze_counts_sets": True}, 2, 9, 20, player="greedy")


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
        greedy = engine.opponent_actions("greedy")
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


def test_random_actions_are_the_base_draw_and_legal() -> None:
    engine = make_engine("tides_of_time", 16, 1)
    for _ in range(25):
        state = engine.rng.bit_generator.state
        fast = engine.random_actions()
        engine.rng.bit_generator.state = state
        base = super(TidesOfTimeBatch, engine).random_actions()
        assert np.array_equal(fast, base)
        masks = engine.legal_masks()
        assert masks[np.arange(16)[:, None], np.arange(2), fast].all()
        engine.step(fast)


def test_per_seat_reads_where_and_game_state() -> None:
    engine = make_engine("tides_of_time", 6, 3)
    rng = np.random.default_rng(0)
    for _ in range(14):
        where = rng.random(6) < 0.7
        engine.step(engine.random_actions(rng), where=where)
    assert len(set(engine.num_moves.tolist())) > 1  # games out of step
    seats = np.array([0, 1, 1, 0, 1, 0])
    obs, masks = engine.observations(), engine.legal_masks()
    for b in range(6):
        state = engine.game_state(b)
        assert np.array_equal(engine.observation(seats)[b], state.observation_tensor(int(seats[b])))
        assert np.array_equal(engine.legal_mask(seats)[b], state.legal_mask(int(seats[b])))
        for p in (0, 1):
            assert np.array_equal(obs[b, p], state.observation_tensor(p))
            assert np.array_equal(masks[b, p], state.legal_mask(p))
    before = engine.observations()
    where = np.array([True, False, False, True, False, False])
    engine.step(engine.random_actions(), where=where)
    assert np.array_equal(before[~where], engine.observations()[~where])


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


def test_without_autoreset_finished_games_stay_over() -> None:
    engine = make_engine("tides_of_time", 3, 0, autoreset=False, rounds=1, returns="score_difference")
    for _ in range(5):
        result = engine.step(engine.random_actions())
    assert result.terminated.all() and engine.terminated.all()
    assert np.array_equal(engine.returns(), result.rewards)
    assert np.array_equal(result.rewards[:, 0], -result.rewards[:, 1])
    assert not engine.legal_masks().any() and not engine.to_act().any()
    for b in range(3):
        state = engine.game_state(b)
        assert np.array_equal(engine.returns()[b], state.returns())
        assert np.array_equal(engine.observations()[b, 1], state.observation_tensor(1))
    with pytest.raises(IllegalActionError, match="game 0 of the batch is over"):
        engine.step(np.zeros((3, 2), dtype=np.int64))
    engine.reset_games(np.array([False, True, False]))
    assert np.array_equal(engine.terminated, [True, False, True])


def test_same_seed_same_batch() -> None:
    def run(seed: int) -> list[np.ndarray]:
        engine = make_engine("tides_of_time", 8, seed)
        out = [engine.decks.copy()]
        for _ in range(25):  # past one autoreset
            result = engine.step(engine.opponent_actions("greedy"))
            out += [engine.observations(), result.rewards]
        engine.reset(seed)
        out.append(engine.decks.copy())
        return out

    first = assert_seeded(run)
    assert np.array_equal(first[0], first[-1])  # reset(seed) replays the deals


def _snapshot(engine: TidesOfTimeBatch) -> list[np.ndarray]:
    names = ("decks", "draws", "hands", "drafted", "relics", "discards", "last_draw", "pending", "phase", "round", "pick", "scores", "moves", "num_moves")
    return [getattr(engine, name).copy() for name in names]


def _engine_at(phase: int) -> TidesOfTimeBatch:
    engine = make_engine("tides_of_time", 2, 0)
    deck = [6, 10, 11, 15, 18, 2, 5, 7, 8, 14, 1, 3, 4, 9, 12, 13, 16, 17]
    engine.load_deals([deck, deck])
    moves = [(15, 7), (2, 11), (6, 8), (5, 18), (10, 14), (15, 14)]
    for a, b in moves[: {DRAFT: 1, RELIC: 5, DISCARD: 6}[phase]]:
        engine.step(np.array([[a - 1, b - 1]] * 2))
    return engine


@pytest.mark.parametrize(
    ("phase", "actions", "error", "message"),
    [
        (DRAFT, [[1, 5], [1, 18]], IllegalActionError, r"action 18 \(no such card; actions are 0..17\), in game 1"),
        (DRAFT, [[1, 5], [-1, 5]], IllegalActionError, r"action -1 \(no such card.*in game 1"),
        (DRAFT, [[1, 5], [14, 5]], IllegalActionError, r"action 14 \(card 15\) is not in the hand of seat 0, in game 1"),
        (DRAFT, [[1, 0], [1, 0], [1, 0]], ValueError, r"shape \(2, 2\).*got shape \(3, 2\)"),
        (DRAFT, [1, 0], ValueError, r"shape \(2, 2\).*got shape \(2,\)"),
        (DRAFT, [[1.0, 0.0], [1.0, 0.0]], IllegalActionError, "must be integers"),
        (RELIC, [[14, 13], [14, 1]], IllegalActionError, r"action 1 \(card 2\) was not drafted this round by seat 1: a relic"),
        (DISCARD, [[1, 6], [14, 6]], IllegalActionError, r"action 14 \(card 15\) is already seat 0's relic.*in game 1"),
        (DISCARD, [[1, 6], [1, 2]], IllegalActionError, r"action 2 \(card 3\) was not drafted this round by seat 1: the discard"),
    ],
)
def test_bad_actions_change_nothing(phase, actions, error, message) -> None:
    engine = _engine_at(phase)
    before = _snapshot(engine)
    rng_state = engine.rng.bit_generator.state
    obs = engine.observations()
    with pytest.raises(error, match=message):
        engine.step(np.array(actions))
    assert all(np.array_equal(x, y) for x, y in zip(before, _snapshot(engine)))
    assert engine.rng.bit_generator.state == rng_state
    assert np.array_equal(obs, engine.observations())
    engine.step(engine.random_actions())  # still playable


def test_bad_options_and_names() -> None:
    assert ENGINES["tides_of_time"] is TidesOfTimeBatch
    with pytest.raises(ValueError, match=r"rounds must be one of \[1, 3\]"):
        TidesOfTimeBatch(2, rounds=2)
    with pytest.raises(ValueError, match="returns must be one of"):
        TidesOfTimeBatch(2, returns="points")
    with pytest.raises(ValueError, match="unknown option"):
        TidesOfTimeBatch(2, deck=list(range(1, 19)))
    with pytest.raises(ValueError, match="no batched player 'minimax'"):
        TidesOfTimeBatch(2).opponent_actions("minimax")


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_vector_env_runs(opponent: str) -> None:
    from parlour.vector.gym_env import BatchedVectorEnv

    env = BatchedVectorEnv("tides_of_time", 4, opponent=opponent, rounds=1)
    obs, infos = env.reset(seed=0)
    assert obs in env.observation_space and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(12):
        masks = env.action_masks()
        assert masks.any(axis=1).all()
        assert np.array_equal(masks, env.engine.legal_mask(infos["seat"]).astype(bool))
        obs, rewards, terminated, truncated, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        assert np.array_equal(obs, env.engine.observation(infos["seat"]))
        assert not rewards[~terminated].any()
        for b in np.flatnonzero(terminated):
            assert rewards[b] in (-1.0, 0.0, 1.0)
            assert infos["final_obs"][b] in env.single_observation_space
        episodes += terminated.sum()
    assert episodes == 8  # two one-round games (5 steps each) per env


def test_sb3_vec_env() -> None:
    pytest.importorskip("stable_baselines3")
    from parlour.vector.sb3_env import BatchedSB3VecEnv

    venv = BatchedSB3VecEnv("tides_of_time", 4, seed=0, opponent="greedy")
    obs = venv.reset()
    assert obs.shape == (4, 202)
    for _ in range(19):
        masks = np.array(venv.env_method("action_masks"))
        obs, rewards, dones, infos = venv.step(masks.argmax(axis=1))
    assert dones.all() and rewards.dtype == np.float32
    assert all("terminal_observation" in info for info in infos)
