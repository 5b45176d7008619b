"""The engine contract, second part (see ``test_engine_contract.py``): what a batch
adds to the single games, for every engine of ``ENGINES`` and several configurations:
the same seed gives the same batch; without autoreset finished games stay over; a bad
step (action, shape, dtype, ``where``, a finished game) raises and changes nothing;
``random_actions`` is the base class's draw; returned arrays are never overwritten;
final observations stay right; the vector envs (Gymnasium and SB3) run on every engine."""

from __future__ import annotations

import numpy as np
import pytest
from conformance import (
    SMALL,
    Lockstep,
    assert_refused,
    assert_same,
    batched_actions,
    cases,
    engines,
    lockstep_at,
    players_of,
    random_play,
    snapshot,
)
from helpers import assert_seeded, play_random

from parlour.errors import IllegalActionError
from parlour.vector import ENGINES, BatchedEngine, make_engine


@cases
def test_same_seed_same_batch(name, options):
    """The same seed gives the same deals, random actions, players' choices and results
    (another seed other ones); ``reset(seed)`` deals the seed's games again."""
    def run(seed: int) -> list[np.ndarray]:
        engine = make_engine(name, 4, seed, **options)
        out = [engine.observations()]
        for _ in range(16):  # past some autoresets
            out += [batched_actions(engine, player) for player in players_of(name)]
            result = engine.step(engine.random_actions())
            out += [engine.observations(), engine.legal_masks(), result.rewards, result.terminated]
        engine.reset(seed)
        out.append(engine.observations())
        return out

    first = assert_seeded(run)
    assert np.array_equal(first[0], first[-1])


@cases
def test_without_autoreset_finished_games_stay_over(name, options):
    """A finished game keeps its end (returns, observations; nobody to act, no legal
    action, mover -1) through later steps of the others; stepping it is refused; it
    starts afresh only by ``reset_games``, which leaves the others alone."""
    lockstep = lockstep_at(name, options, 6, 5, autoreset=False, loaded=0.8, finished=True)
    engine = lockstep.engine
    rng = np.random.default_rng(5)
    ended = {}
    while not engine.terminated.all():
        assert lockstep.steps < 300
        result = lockstep.step(engine.random_actions(rng), ~engine.terminated)
        for b in np.flatnonzero(result.terminated):
            ended[b] = result.rewards[b].copy()
        for b, rewards in ended.items():
            assert engine.terminated[b] and np.array_equal(engine.returns()[b], rewards)
    over = np.flatnonzero(engine.terminated)
    assert not engine.legal_masks()[over].any() and not engine.to_act()[over].any()
    if not engine.simultaneous:
        assert (engine.movers()[over] == -1).all()
    assert_refused(engine, engine.random_actions(), IllegalActionError, "game 0 of the batch is over")
    again = np.arange(6) % 2 == 1
    before = [engine.game_state(b) for b in range(6)]
    engine.reset_games(again)
    assert np.array_equal(engine.terminated, ~again)
    assert [engine.game_state(b) for b in np.flatnonzero(~again)] == [before[b] for b in np.flatnonzero(~again)]
    lockstep = Lockstep(engine)  # the new games play on as single games
    lockstep.play(random_play, rng, 5)


@cases
def test_bad_steps_change_nothing(name, options):
    """Illegal actions (a masked-out one, one outside the actions, -1), the wrong shape,
    a non-integer dtype, a bad ``where``, a finished game: each raises, naming the game
    and the seat, and leaves everything as it was (arrays, games, generator, caches);
    the games then play on as the single games."""
    lockstep = lockstep_at(name, options, 5, 9, autoreset=False, loaded=0.6)
    engine = lockstep.engine
    lockstep.load([play_random(engine.game, 9)], np.array([0]))  # a finished game
    rng = np.random.default_rng(9)
    lockstep.play(random_play, rng, 3)
    live = ~engine.terminated
    assert live.any()
    b = int(np.flatnonzero(live)[-1])
    seat = int(np.flatnonzero(engine.to_act()[b])[-1])
    mask = engine.legal_masks()[b, seat]
    legal = np.flatnonzero(mask).tolist()
    for bad in ([int(np.flatnonzero(mask == 0)[0])] if (mask == 0).any() else []) + [engine.num_actions, -1]:
        actions = engine.random_actions(rng)
        actions[(b, seat) if engine.simultaneous else b] = bad
        error = assert_refused(engine, actions, IllegalActionError, rf"action {bad}\b.* in game {b} of the batch", where=live)
        assert error.action == bad and error.player == seat and error.legal == legal
    actions = engine.random_actions(rng)
    assert_refused(engine, actions[:-1], ValueError, "actions must have shape", where=live)
    assert_refused(engine, actions[None], ValueError, "actions must have shape", where=live)
    assert_refused(engine, actions.astype(np.float64), IllegalActionError, "actions must be integers, got dtype float64", where=live)
    assert_refused(engine, actions.astype(bool), IllegalActionError, "actions must be integers, got dtype bool", where=live)
    assert_refused(engine, actions, ValueError, "where must be a bool array", where=live.astype(np.int64))
    assert_refused(engine, actions, ValueError, "where must be a bool array", where=live[:-1])
    over = int(np.flatnonzero(~live)[0])
    assert_refused(engine, actions, IllegalActionError, f"game {over} of the batch is over", where=live | (np.arange(5) == over))
    lockstep.play(random_play, rng, 3)


@cases
def test_random_actions_are_the_base_class_draw_and_legal(name, options):
    """An engine's own ``random_actions`` picks what ``BatchedEngine.random_actions``
    picks from the same generator (and draws as much from it), from the engine's
    generator by default; every seat to act gets a legal action, 0 elsewhere."""
    engine = lockstep_at(name, options, 16, 1, autoreset=False, loaded=0.7, finished=True).engine
    for i in range(12):
        ours, base = np.random.default_rng(i), np.random.default_rng(i)
        actions = engine.random_actions(ours)
        assert np.array_equal(actions, BatchedEngine.random_actions(engine, base))
        assert ours.bit_generator.state == base.bit_generator.state
        state = engine.rng.bit_generator.state
        actions = engine.random_actions()  # the engine's generator
        after, engine.rng.bit_generator.state = engine.rng.bit_generator.state, state
        assert np.array_equal(actions, BatchedEngine.random_actions(engine)) and engine.rng.bit_generator.state == after
        masks, to_act = engine.legal_masks(), engine.to_act()
        seats = np.arange(engine.num_players) if engine.simultaneous else engine.movers().clip(0)
        picked = masks[np.arange(16)[:, None] if engine.simultaneous else np.arange(16), seats, actions]
        acting = to_act if engine.simultaneous else to_act.any(axis=1)
        assert picked[acting].all() and not actions[~acting].any()
        engine.step(actions, ~engine.terminated)


@engines
def test_returned_arrays_are_never_overwritten(name):
    """Outputs may be written into reused buffers, but only into ones nobody holds:
    arrays (and views of them) kept by the caller stay as they were."""
    engine = make_engine(name, 8, 0, **SMALL[name])
    kept = []
    for _ in range(40):
        result = engine.step(engine.random_actions())
        arrays = [engine.observations(), engine.observations()[:, 1], engine.observation(0), engine.legal_masks(),
                  engine.legal_mask(0), engine.returns(), engine.to_act(), result.rewards, result.terminated]
        if result.final_observations is not None:
            arrays.append(result.final_observations)
        kept += [(a, a.copy()) for a in arrays]
        engine.observations(), engine.legal_masks()  # dropped at once: their buffers may be reused
    assert all(np.array_equal(a, copy) for a, copy in kept)


@engines
def test_final_observations_read_after_later_steps(name):
    """Final observations (which an engine may build when first read) read after the
    engine has reset the games and stepped on are those read at once by a twin."""
    engine, twin = make_engine(name, 16, 3, **SMALL[name]), make_engine(name, 16, 3, **SMALL[name])
    kept = []
    for _ in range(40):
        result, expected = engine.step(engine.random_actions()), twin.step(twin.random_actions())
        if expected.final_observations is not None:
            kept.append((result, expected.final_observations.copy()))
    assert len(kept) >= 3
    for result, expected in kept:
        assert np.array_equal(result.final_observations, expected)


@engines
def test_bad_arguments(name):
    engine = make_engine(name, 3, 0, **SMALL[name])
    before = snapshot(engine)
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="num_envs must be an integer >= 1"):
            make_engine(name, bad)
    with pytest.raises(ValueError, match=f"no seat {engine.num_players}"):
        engine.observation(engine.num_players)
    with pytest.raises(ValueError, match="seats must be in"):
        engine.legal_mask(np.array([0, -1, 0]))
    with pytest.raises(ValueError, match="seats must be an int or an integer array of shape"):
        engine.observation(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="where must be a bool array"):
        engine.reset_games(np.ones(2, dtype=bool))
    assert_same(before, snapshot(engine))
    with pytest.raises(ValueError, match="no batched engine for game 'chess'"):
        make_engine("chess", 2)


ENV_CASES = [(name, SMALL[name], player) for name in sorted(ENGINES) for player in players_of(name)] + [
    ("goofspiel", {"num_cards": 3, "num_players": 3}, "random"), ("sticks", {"num_sticks": 5, "max_take": 2, "misere": False}, "random")]


@pytest.mark.parametrize(("name", "options", "opponent"), ENV_CASES, ids=[f"{n}-{o}-{i}" for i, (n, _, o) in enumerate(ENV_CASES)])
def test_vector_env_runs(name, options, opponent):
    """Gymnasium's VectorEnv API over the engine: spaces, same-step autoreset with
    ``final_obs``, the learner's masks and observations are the engine's for its seat
    (and it is to move), and its reward is its return from the engine when a game ends."""
    from gymnasium.vector import AutoresetMode

    from parlour.baselines.batched import BatchedSeats
    from parlour.vector.gym_env import BatchedVectorEnv

    env = BatchedVectorEnv(name, 4, opponent=opponent if opponent == "random" else BatchedSeats(opponent), **options)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, infos = env.reset(seed=3)
    engine, results = env.engine, []
    engine.step = lambda *args, step=engine.step, **kwargs: results.append(step(*args, **kwargs)) or results[-1]
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(40):
        masks = env.action_masks()
        assert masks.shape == (4, engine.num_actions) and masks.any(axis=1).all()
        assert np.array_equal(masks, engine.legal_mask(infos["seat"]).astype(bool))
        assert np.array_equal(obs, engine.decode(engine.observation(infos["seat"]))) and obs in env.observation_space
        if not engine.simultaneous:  # the learner is to move in every game
            assert np.array_equal(engine.movers(), infos["seat"])
        seats, results[:] = infos["seat"], []
        obs, rewards, terminated, truncated, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        assert rewards.dtype == np.float64 and terminated.dtype == bool and not truncated.any()
        assert not rewards[~terminated].any()
        for b in np.flatnonzero(terminated):
            assert rewards[b] == next(r.rewards[b, seats[b]] for r in results if r.terminated[b])
            assert infos["final_obs"][b] in env.single_observation_space and infos["_final_obs"][b]
        episodes += int(terminated.sum())
    assert episodes >= 4


@engines
def test_sb3_vec_env_runs(name):
    pytest.importorskip("stable_baselines3")
    from parlour.baselines.batched import BatchedSeats
    from parlour.vector.sb3_env import BatchedSB3VecEnv

    venv = BatchedSB3VecEnv(name, 3, seed=0, opponent=BatchedSeats(players_of(name)[-1]), **SMALL[name])
    obs = venv.reset()
    assert obs.shape == (3, *venv.observation_space.shape) == (3, *venv.core.engine.observation_shape)
    dones_seen = 0
    for _ in range(40):
        masks = np.stack(venv.env_method("action_masks"))
        obs, rewards, dones, infos = venv.step(masks.argmax(axis=1))
        assert rewards.dtype == np.float32 and obs.shape[0] == len(infos) == 3
        for b in np.flatnonzero(dones):
            assert infos[b]["terminal_observation"].shape == obs.shape[1:]
        dones_seen += int(dones.sum())
    assert dones_seen >= 2
