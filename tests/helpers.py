"""Helpers the tests share: random playouts, a hypothesis strategy for reachable
positions, and the match loop of the baselines tests.

Importable from any test file as ``helpers`` (pyproject's pytest ``pythonpath``
puts ``tests/`` on ``sys.path``; the test folders are not packages).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np
from hypothesis import strategies as st

from parlour.games.base import Game, State

SMALL_GAMES: dict[str, dict] = {
    "sticks": {},
    "goofspiel": {"num_cards": 4},
    "tides_of_time": {"rounds": 1},
    "tribolo": {"width": 6, "height": 5, "walls": 2, "start_cells": 2},
    "double_card": {},
}
"""A quick configuration of every game, for tests that train or play many games."""


def random_action(state: State, rng: np.random.Generator) -> int | dict[int, int]:
    """A uniformly random legal step: an int for one mover, ``{seat: action}`` for several."""
    players = state.current_players()
    if len(players) == 1:
        legal = state.legal_actions(players[0])
        return legal[int(rng.integers(len(legal)))]
    joint = {}
    for p in players:
        legal = state.legal_actions(p)
        joint[p] = legal[int(rng.integers(len(legal)))]
    return joint


def quiet_action(state: State, rng: np.random.Generator) -> int | dict[int, int]:
    """A random step that does not end the game, if there is one (for a single mover
    every legal action is tried, in random order; for several, a few random draws)."""
    players = state.current_players()
    if len(players) == 1:
        legal = state.legal_actions(players[0])
        candidates = [legal[i] for i in rng.permutation(len(legal))]
    else:
        candidates = [random_action(state, rng) for _ in range(10)]
    for action in candidates:
        child = state.clone()
        child.apply(action)
        if not child.is_terminal():
            return action
    return candidates[0]


def play_first_legal(state: State, steps: int) -> State:
    """Play ``steps`` steps in place, every mover taking its lowest legal action; the state."""
    for _ in range(steps):
        joint = {p: state.legal_actions(p)[0] for p in state.current_players()}
        state.apply(joint if len(joint) > 1 else next(iter(joint.values())))
    return state


def random_playout(
    state: State,
    rng: np.random.Generator,
    on_step: Callable[[State, int | dict[int, int]], None] | None = None,
    choose: Callable[[State, np.random.Generator], int | dict[int, int]] = random_action,
) -> Iterator[State]:
    """Play ``state`` on in place to the end; yield it first and after every step.

    ``choose(state, rng)`` picks each step (default: uniformly random legal actions);
    ``on_step(state, action)`` sees each step just before it is applied.
    """
    yield state
    while not state.is_terminal():
        action = choose(state, rng)
        if on_step is not None:
            on_step(state, action)
        state.apply(action)
        yield state


def random_game(game: Game, seed: int) -> Iterator[State]:
    """Every state of one random game of ``game``: the start from ``seed``, then random
    moves from the same generator (so ``seed`` fixes the whole game)."""
    rng = np.random.default_rng(seed)
    return random_playout(game.new_initial_state(rng), rng)


def play_random(game: Game, seed: int) -> State:
    """The final state of ``random_game(game, seed)``."""
    for state in random_game(game, seed):  # noqa: B007 (the last one is returned)
        pass
    return state


@st.composite
def reachable_states(draw: st.DrawFn, game: Game, max_steps: int | None = None) -> State:
    """A position of ``game`` after a hypothesis-chosen sequence of legal steps (so
    failures shrink to short games): a start drawn from a seed, then each mover's action
    as an index into its legal actions, stopping at the end or when the draw says so."""
    state = game.new_initial_state(draw(st.integers(0, 2**32 - 1), label="seed"))
    limit = game.info.max_game_length if max_steps is None else max_steps
    for _ in range(limit):
        if state.is_terminal() or not draw(st.booleans(), label="go on"):
            break
        joint = {}
        for p in state.current_players():
            legal = state.legal_actions(p)
            joint[p] = legal[draw(st.integers(0, len(legal) - 1), label=f"seat {p}")]
        state.apply(joint if len(joint) > 1 else next(iter(joint.values())))
    return state


# --- matches between policies (the baselines tests) -----------------------------------------


def play(game: Game, policies: Mapping[int, object] | Sequence[object], seed=0) -> State:
    """One game from ``game.new_initial_state(seed)``; ``policies`` maps seat -> policy,
    and each policy acts on its own seat's information state.  The final state."""
    from parlour.baselines.playout import play_out

    state = game.new_initial_state(seed)
    play_out(state, policies)
    return state


def record_against_random(game: Game, make_policy: Callable[[int], object], games: int, seed: int = 0) -> tuple[int, int, int]:
    """``(wins, draws, losses)`` of ``make_policy(policy_seed)`` against ``random`` in every
    other seat, over ``games`` games with its seat rotating."""
    from parlour.baselines import make

    results = [0, 0, 0]
    players = game.num_players
    for i in range(games):
        seat = i % players
        policies = {p: make("random", game, seed=10_000 + i * players + p) for p in range(players)}
        policies[seat] = make_policy(1000 + i)
        value = play(game, policies, seed + i).returns()[seat]
        results[0 if value > 0 else 1 if value == 0 else 2] += 1
    return tuple(results)


DOUBLE_CARD_SETUP_24 = [
    "0 3 B 1", "0 6 E 1", "0 6 E 3", "0 2 H 1", "0 6 D 1", "0 2 B 2", "0 6 B 4", "0 2 G 1",
    "0 5 G 3", "0 2 A 1", "0 8 G 4", "0 6 A 3", "0 6 C 2", "0 6 G 6", "0 4 E 5", "0 8 C 4",
    "0 2 A 5", "0 4 E 7", "0 6 E 9", "0 8 G 8", "0 6 C 6", "0 2 A 7", "0 6 C 8", "0 8 A 9",
]
"""Double Card after 24 regular moves without a line (found with a seeded random search):
24 cards and no winner: every move from here is a recycling move (two sub-steps)."""


def assert_seeded(run: Callable[[int], list[np.ndarray]]) -> list[np.ndarray]:
    """``run(seed)`` records arrays of a seeded run: the same seed gives the same arrays,
    another seed other ones.  Returns the first run's record."""
    first, again, other = run(5), run(5), run(6)
    assert all(np.array_equal(x, y) for x, y in zip(first, again, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(first, other, strict=True))
    return first


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on now (for a server a test starts)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def sticks_without_end(monkeypatch) -> None:
    """Sticks whose rules never end it once player_0 has moved: the sticks grow back and
    player_1 moves again, for ever (a game that a loop driving its policies must stop)."""
    from parlour.games.sticks import SticksState

    apply = SticksState.apply

    def grow_back(self, action) -> None:
        apply(self, action)
        self.sticks, self.to_move = self.game.num_sticks, 1

    monkeypatch.setattr(SticksState, "apply", grow_back)


def played_engine(name: str, seed: int, games: int, plies: int, fresh: int = 0, **options):
    """A batched engine of ``games`` games that went through random moves of different
    lengths (below ``plies``; none at all in the first ``fresh`` games), with autoreset off
    so that no game starts again: positions for comparing a batched player with its
    single-game form."""
    from parlour.vector import make_engine

    engine = make_engine(name, games, seed, autoreset=False, **options)
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, plies, size=games)
    lengths[:fresh] = 0
    for ply in range(int(lengths.max())):
        where = ~engine.terminated & (lengths > ply)
        if not where.any():
            break
        engine.step(engine.random_actions(rng), where=where)
    return engine


def assert_rllib_form_is_the_player(spec: str, name: str, options, plies: int = 8, games: int = 24) -> None:
    """``rllib:...``'s batched form on positions of random play: the single player's masked
    distribution for every seat (each seat's own module) and its deterministic move."""
    from parlour.baselines import make_from_spec
    from parlour.baselines.batched import batched_policy

    engine = played_engine(name, 3, games, plies, **options)
    rows, seats = np.nonzero(engine.to_act())
    keep = ~engine.terminated[rows]
    rows, seats = rows[keep], seats[keep]
    assert len(rows) >= 8
    player = make_from_spec(spec, engine.game, seed=0)
    form = batched_policy(player, engine)
    assert form is not None and form.spec == repr(player)
    states = [engine.game_state(int(b)) for b in rows]
    masks = engine.legal_mask_at(rows, seats)
    single = np.array([np.where(mask, player.probabilities(int(s), state.observation_tensor(int(s)), mask), 0.0)
                       for state, s, mask in zip(states, seats, masks)])
    batched = form.probabilities(engine, rows, seats)
    assert np.allclose(batched, single, rtol=1e-5, atol=1e-7)
    moves = form.actions(engine, rows, seats, np.random.default_rng(0))
    assert moves.tolist() == [player.act(state.info_state(int(s))) for state, s in zip(states, seats)]
