"""The differential harness of the engine contract (``parlour.games.engine.BatchedEngine``),
shared by the conformance tests (``test_engine_contract*.py``) and the engine-specific
tests of each game: the configurations and option strategies of every engine, a
:class:`Lockstep` that steps an engine and one single-game rules state per game with
the same actions and compares everything at every step, positions to load mid-game,
and :func:`assert_refused` (a bad step raises and changes nothing).

Importable from the tests of this folder as ``conformance`` (like ``helpers``)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from helpers import DOUBLE_CARD_SETUP_24, quiet_action, random_action
from hypothesis import strategies as st

from parlour.games.base import Game, State
from parlour.games.double_card import RECYCLE_RULES
from parlour.vector import ENGINES, BatchedEngine, make_engine

# ----- what the suite runs: several configurations of every game -----------------------

CONFIGS: dict[str, list[dict]] = {
    "double_card": [{}, {"recycle_rule": "same_placement", "max_moves": 30}, {"recycle_rule": "none", "first_player": "dots"}],
    "goofspiel": [{}, {"num_cards": 5}, {"num_cards": 4, "num_players": 3, "prize_order": "descending", "tie_rule": "discard"},
                  {"num_cards": 6, "imperfect_info": True, "returns": "point_difference"},
                  {"num_cards": 4, "hands": [[1, 3, 5, 7], [2, 4, 6, 8]], "prize_order": "ascending"}],
    "sticks": [{}, {"num_sticks": 12, "max_take": 4, "misere": False}],
    "tides_of_time": [{}, {"rounds": 1, "returns": "score_difference"}, {"maze_counts_sets": True, "zero_ties_win": False}],
    "tribolo": [{}, {"width": 6, "height": 5, "walls": 2, "start_cells": 2, "returns": "cell_share"},
                {"width": 9, "height": 3, "walls": 1, "start_cells": 2}, {"width": 17, "height": 5}],
}
CASES = [(name, options) for name in sorted(ENGINES) for options in CONFIGS[name]]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in options.items()) or 'default'}".replace(" ", "") for name, options in CASES]
SMALL: dict[str, dict] = {"double_card": {"max_moves": 30}, "goofspiel": {"num_cards": 4}, "sticks": {"num_sticks": 9},
                          "tides_of_time": {"rounds": 1}, "tribolo": {"width": 6, "height": 5, "walls": 2, "start_cells": 2}}
"""One quick configuration per engine, for the checks that need no variety of rules."""

cases = pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
engines = pytest.mark.parametrize("name", sorted(ENGINES))


@st.composite
def _goofspiel_options(draw: st.DrawFn) -> dict:
    players, n = draw(st.integers(2, 4)), draw(st.integers(1, 6))
    options = {
        "num_players": players,
        "prize_order": draw(st.sampled_from(["random", "descending", "ascending", "explicit"])),
        "tie_rule": draw(st.sampled_from(["carry", "discard"])),
        "returns": draw(st.sampled_from(["win_loss", "point_difference", "total_points"])),
        "imperfect_info": draw(st.booleans()),
    }
    if options["prize_order"] == "explicit":
        options["prize_order"] = draw(st.permutations(list(range(1, n + 1))))
    if draw(st.booleans()):  # custom hands: N distinct cards up to 2N per seat
        options["hands"] = [draw(st.lists(st.integers(1, 2 * n), min_size=n, max_size=n, unique=True)) for _ in range(players)]
    else:
        options["num_cards"] = n
    return options


@st.composite
def _tribolo_options(draw: st.DrawFn) -> dict:
    width, height, start_cells = draw(st.integers(3, 7)), draw(st.integers(2, 6)), draw(st.integers(1, 3))
    walls = min(draw(st.integers(0, 3)), max(0, width * height - 2 - 3 * start_cells))
    return {"width": width, "height": height, "walls": walls, "start_cells": start_cells,
            "returns": draw(st.sampled_from(["win_loss", "cell_share"]))}


OPTIONS: dict[str, st.SearchStrategy[dict]] = {
    "double_card": st.fixed_dictionaries({"max_moves": st.sampled_from([3, 25, 30, 40]), "recycle_rule": st.sampled_from(RECYCLE_RULES),
                                          "first_player": st.sampled_from(["colors", "dots"])}),
    "goofspiel": _goofspiel_options(),
    "sticks": st.fixed_dictionaries({"num_sticks": st.integers(1, 15), "max_take": st.integers(1, 6), "misere": st.booleans()}),
    "tides_of_time": st.fixed_dictionaries({"rounds": st.sampled_from([1, 3]), "returns": st.sampled_from(["win_loss", "score_difference"]),
                                            "zero_ties_win": st.booleans(), "maze_counts_sets": st.booleans()}),
    "tribolo": _tribolo_options(),
}
"""Hypothesis strategies over each game's options (small boards and hands: fast games)."""


# ----- positions to load -------------------------------------------------------------


def notable_positions(game: Game) -> list[State]:
    """Positions random play seldom reaches: Double Card with all 24 cards down (every
    move a recycling one), and one step later with a card in hand."""
    if game.name != "double_card" or game.max_moves <= 25:
        return []
    down = game.new_initial_state(moves=DOUBLE_CARD_SETUP_24)
    in_hand = down.clone()
    in_hand.play("D 1 D 2")
    return [down, in_hand]


def mid_game_states(game: Game, rng: np.random.Generator, count: int, finished: bool = False) -> list[State]:
    """``count`` positions of ``game``, each from a fresh deal (or a notable position)
    by random steps: a few ("early"), or all but the last few of a game ("late": games
    that end soon), or with ``finished`` all of them ("over")."""
    notable = notable_positions(game)
    states = []
    for _ in range(count):
        state = notable[int(rng.integers(len(notable)))].clone() if notable and rng.random() < 0.5 else game.new_initial_state(rng)
        kind = rng.choice(["early", "late", "over"] if finished else ["early", "late"])
        if kind == "early":
            for _ in range(int(rng.integers(0, 12))):
                child = state.clone()
                child.apply(random_action(child, rng))
                if child.is_terminal():
                    break
                state = child
        else:
            line = [state]
            while not line[-1].is_terminal():
                line.append(line[-1].clone())
                line[-1].apply(random_action(line[-1], rng))
            state = line[-1] if kind == "over" else line[-2 - int(rng.integers(0, min(6, len(line) - 1)))]
        states.append(state)
    return states


# ----- comparing an engine with single games --------------------------------------------


def joint_of(engine: BatchedEngine, state: State, actions: np.ndarray, b: int) -> int | dict[int, int]:
    """Game ``b``'s step in ``actions`` as the single game takes it."""
    if engine.simultaneous:
        return {seat: int(actions[b, seat]) for seat in state.current_players()}
    return int(actions[b])


def check_game(engine: BatchedEngine, state: State, b: int, arrays: tuple | None = None) -> None:
    """Game ``b`` of the engine is ``state``: every seat's observation and mask, the
    returns, whether it is over, the seats to act (and the mover)."""
    observations, masks, returns, terminated, to_act, movers = arrays or (
        engine.observations(), engine.legal_masks(), engine.returns(), engine.terminated, engine.to_act(),
        None if engine.simultaneous else engine.movers())
    seats = range(engine.num_players)
    assert np.array_equal(observations[b], np.stack([state.observation_tensor(seat) for seat in seats])), b
    assert np.array_equal(masks[b], np.stack([state.legal_mask(seat) for seat in seats])), b
    assert np.array_equal(returns[b], state.returns()), b
    assert bool(terminated[b]) == state.is_terminal(), b
    players = state.current_players()
    assert to_act[b].tolist() == [seat in players for seat in seats], b
    if movers is not None:
        assert int(movers[b]) == (players[0] if players else -1), b


def check_all(engine: BatchedEngine, states: list[State], shift: int = 0) -> None:
    """Every game of the engine is its state; on even ``shift``s also the per-seat and
    per-row reads are the full arrays' (one seat for all games, one seat per game
    (``shift`` varies them), some rows)."""
    B, P = engine.num_envs, engine.num_players
    arrays = (engine.observations(), engine.legal_masks(), engine.returns(), engine.terminated, engine.to_act(),
              None if engine.simultaneous else engine.movers())
    observations, masks, returns, terminated, to_act, _ = arrays
    assert observations.dtype == np.float32 and observations.shape == (B, P, *engine.observation_shape)
    assert masks.dtype == np.int8 and masks.shape == (B, P, engine.num_actions)
    assert returns.dtype == np.float64 and returns.shape == (B, P)
    assert terminated.dtype == np.bool_ and terminated.shape == (B,) and to_act.shape == (B, P)
    for b, state in enumerate(states):
        check_game(engine, state, b, arrays)
    if shift % 2:
        return
    for seat in range(P):
        assert np.array_equal(engine.observation(seat), observations[:, seat])
        assert np.array_equal(engine.legal_mask(seat), masks[:, seat])
    seats = (np.arange(B) + shift // 2) % P
    assert np.array_equal(engine.observation(seats), observations[np.arange(B), seats])
    assert np.array_equal(engine.legal_mask(seats), masks[np.arange(B), seats])
    rows = np.arange(B)[::-2]
    assert np.array_equal(engine.observations_of(rows), observations[rows])


def random_play(lockstep: Lockstep, rng: np.random.Generator) -> np.ndarray:
    return lockstep.engine.random_actions(rng)


BATCHED_PLAYERS: dict[str, tuple[str, ...]] = {"goofspiel": ("random", "rudimentary"), "tides_of_time": ("random", "greedy"),
                                               "tribolo": ("random", "greedy")}
"""The cheap batched players of each engine's game (the baselines' registry holds
them; ``random`` for the games not named)."""


def players_of(name: str) -> tuple[str, ...]:
    return BATCHED_PLAYERS.get(name, ("random",))


def batched_actions(engine: BatchedEngine, spec: str, rng: np.random.Generator | None = None) -> np.ndarray:
    """The batched player ``spec``'s actions for every seat to act, shaped as
    ``random_actions``' (0 where nobody acts)."""
    from parlour.baselines import make_from_spec
    from parlour.baselines.batched import batched_policy

    form = batched_policy(make_from_spec(spec, engine.game), engine)
    assert form is not None, f"{spec} has no batched form for {engine.game_name}"
    rng = engine.rng if rng is None else rng
    if engine.simultaneous:
        out = np.zeros((engine.num_envs, engine.num_players), dtype=np.int64)
        rows, seats = np.nonzero(engine.to_act())
        out[rows, seats] = form.actions(engine, rows, seats, rng)
    else:
        out = np.zeros(engine.num_envs, dtype=np.int64)
        rows = np.flatnonzero(engine.movers() >= 0)
        out[rows] = form.actions(engine, rows, engine.movers()[rows], rng)
    return out


def every_player(lockstep: Lockstep, rng: np.random.Generator) -> np.ndarray:
    """The game's batched players in turn, a step each (``random`` among them)."""
    names = players_of(lockstep.engine.game_name)
    return batched_actions(lockstep.engine, names[lockstep.steps % len(names)], rng)


def quiet_play(lockstep: Lockstep, rng: np.random.Generator) -> np.ndarray:
    """Random steps that do not end the game where there is one (long games: the move
    limits, Double Card's recycling)."""
    engine = lockstep.engine
    actions = np.zeros((engine.num_envs, engine.num_players) if engine.simultaneous else engine.num_envs, dtype=np.int64)
    for b, state in enumerate(lockstep.states):
        if not state.is_terminal():
            step = quiet_action(state, rng)
            if engine.simultaneous:
                for seat, action in step.items():
                    actions[b, seat] = action
            else:
                actions[b] = step
    return actions


class Lockstep:
    """An engine and its games as single rules states (``states``, by default the
    engine's own ``game_state`` of each game), stepped with the same actions; every
    step compares the ``BatchStep`` and then every game (:func:`check_all`).  After an
    autoreset the state of the game is the engine's fresh one (its deal); ``finished``
    keeps the single games that ended."""

    def __init__(self, engine: BatchedEngine, states: list[State] | None = None) -> None:
        self.engine = engine
        self.states = [engine.game_state(b) for b in range(engine.num_envs)] if states is None else states
        self.steps = self.endings = 0
        self.ended = np.zeros(engine.num_envs, dtype=bool)
        self.finished: list[State] = []
        check_all(engine, self.states)

    def load(self, states: list[State], rows: np.ndarray) -> None:
        self.engine.load_states(states, rows)
        for state, row in zip(states, rows):
            self.states[int(row)] = state.clone()
        check_all(self.engine, self.states)

    def step(self, actions: np.ndarray, where: np.ndarray | None = None):
        engine, B = self.engine, self.engine.num_envs
        selected = np.ones(B, dtype=bool) if where is None else where
        result = engine.step(actions, where)
        assert result.rewards.dtype == np.float64 and result.rewards.shape == (B, engine.num_players)
        assert result.terminated.dtype == np.bool_ and result.terminated.shape == (B,)
        assert result.final_returns is result.rewards
        assert not result.terminated[~selected].any() and not result.rewards[~selected].any()
        if result.terminated.any():
            final = result.final_observations
            assert final.dtype == np.float32 and final.shape == (B, engine.num_players, *engine.observation_shape)
            assert not final[~result.terminated].any()
        else:
            assert result.final_observations is None
        for b in np.flatnonzero(selected):
            state = self.states[b]
            state.apply(joint_of(engine, state, actions, b))
            assert bool(result.terminated[b]) == state.is_terminal(), b
            assert np.array_equal(result.rewards[b], state.returns()), b
            if state.is_terminal():
                self.endings += 1
                self.ended[b] = True
                self.finished.append(state)
                for seat in range(engine.num_players):
                    assert np.array_equal(result.final_observations[b, seat], state.observation_tensor(seat)), (b, seat)
                if engine.autoreset:
                    self.states[b] = engine.game_state(b)
                    assert not self.states[b].is_terminal()
        self.steps += 1
        check_all(engine, self.states, self.steps)
        return result

    def play(self, choose: Callable[[Lockstep, np.random.Generator], np.ndarray], rng: np.random.Generator, steps: int) -> None:
        """``steps`` steps of the actions ``choose`` picks (with ``autoreset=False``, of
        the games still going)."""
        for _ in range(steps):
            self.step(choose(self, rng), None if self.engine.autoreset else ~self.engine.terminated)

    def check_states(self) -> None:
        """``game_state`` gives every game back as its single state."""
        assert [self.engine.game_state(b) for b in range(self.engine.num_envs)] == self.states


def lockstep_at(name: str, options: dict, num_envs: int, seed: int, loaded: float = 0.5, autoreset: bool = True,
                finished: bool = False) -> Lockstep:
    """A lockstep over a new engine whose games are out of step: about a share
    ``loaded`` of them loaded mid-game (random positions of the single game, and its
    notable ones), the others fresh."""
    engine = make_engine(name, num_envs, seed, autoreset=autoreset, **options)
    lockstep = Lockstep(engine)
    rng = np.random.default_rng(seed)
    rows = np.flatnonzero(rng.random(num_envs) < loaded)
    if len(rows):
        lockstep.load(mid_game_states(engine.game, rng, len(rows), finished=finished and not autoreset), rng.permutation(rows))
    return lockstep


# ----- refusals ------------------------------------------------------------------------


def snapshot(engine: BatchedEngine) -> list:
    """Everything a step could change: the state arrays, every game, the generator, the
    observations and masks (with the caches they come from)."""
    arrays = [getattr(engine, name) for name in engine.STATE]
    return ([None if a is None else a.copy() for a in arrays] + [[engine.game_state(b).to_text() for b in range(engine.num_envs)],
            engine.rng.bit_generator.state, engine.observations(), engine.legal_masks(), engine.terminated.copy()])


def assert_same(before: list, after: list) -> None:
    assert len(before) == len(after)
    for x, y in zip(before, after):
        assert (x is None and y is None) or (np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y)


def assert_refused(engine: BatchedEngine, actions, error: type[Exception], match: str, where: np.ndarray | None = None) -> Exception:
    """``engine.step(actions, where)`` raises ``error`` matching ``match`` and changes
    nothing; the error."""
    before = snapshot(engine)
    with pytest.raises(error, match=match) as caught:
        engine.step(actions, where)
    assert_same(before, snapshot(engine))
    return caught.value
