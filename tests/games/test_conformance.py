"""The games protocol (docs/games_protocol.md), checked the same way on every game in
``GAMES`` and several configurations of each, over random playouts.

Every step: ``current_players()`` is ``()`` exactly at the end; ``legal_mask(p)`` is
``legal_actions(p)`` for every seat (empty for seats not to act); returns are zeros
before the end; the game is no longer than ``max_game_length``.  On a sample of steps
(and at every end): text and pickle round trips, clone independence (both ways), the
copies continue exactly like the original (numpy ints accepted), ``undo`` where a state
has it, information states and their samples, observations, and every kind of illegal
action raising ``IllegalActionError`` with the state unchanged.  At the end: returns
within the bounds of docs/<game>.md, summing to zero where the game is zero-sum, the
whole game undone step by step where ``undo`` exists, and on some games the same seed
replayed to the same game.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from helpers import quiet_action, random_action

from parlour import IllegalActionError
from parlour.games import GAMES, load_game

# --- the configurations ------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    game: str
    options: dict[str, Any] = field(default_factory=dict)
    quiet: bool = False
    """Avoid steps that end the game while another exists (reaches long games, e.g.
    Double Card's recycling phase)."""

    @property
    def id(self) -> str:
        text = ",".join(f"{k}={v}" for k, v in self.options.items()) or "default"
        return f"{self.game}[{text}{',quiet' if self.quiet else ''}]".replace(" ", "")


CASES = [
    Case("sticks"),
    Case("sticks", {"misere": False}),
    Case("sticks", {"num_sticks": 1, "max_take": 1}),
    Case("sticks", {"num_sticks": 60, "max_take": 6, "misere": False}),
    Case("sticks", {"num_sticks": 5, "max_take": 9}),
    Case("goofspiel"),
    Case("goofspiel", {"num_cards": 5, "num_players": 3, "tie_rule": "discard", "returns": "point_difference"}),
    Case("goofspiel", {"num_cards": 6, "imperfect_info": True}),
    Case("goofspiel", {"num_cards": 4, "num_players": 3, "imperfect_info": True, "returns": "total_points", "prize_order": "descending"}),
    Case("goofspiel", {"num_cards": 8, "prize_order": "ascending", "tie_rule": "discard"}),
    Case("goofspiel", {"num_cards": 5, "prize_order": [3, 1, 2, 5, 4], "imperfect_info": True, "tie_rule": "discard"}),
    Case("goofspiel", {"hands": [[1, 3, 5, 7], [2, 4, 6, 8]], "returns": "point_difference"}),
    Case("goofspiel", {"num_cards": 1, "num_players": 4}),
    Case("tides_of_time"),
    Case("tides_of_time", {"rounds": 1}),
    Case("tides_of_time", {"returns": "score_difference", "zero_ties_win": False, "maze_counts_sets": True}),
    Case("tides_of_time", {"rounds": 1, "returns": "score_difference", "maze_counts_sets": True}),
    Case("tribolo"),
    Case("tribolo", {"width": 5, "height": 4, "walls": 2, "start_cells": 2, "returns": "cell_share"}),
    Case("tribolo", {"width": 8, "height": 8, "walls": 0, "start_cells": 1}),
    Case("tribolo", {"width": 26, "height": 3, "walls": 10, "start_cells": 4, "returns": "cell_share"}),
    Case("tribolo", {"width": 1, "height": 13, "walls": 0, "start_cells": 3}),
    Case("double_card"),
    Case("double_card", quiet=True),
    Case("double_card", {"max_moves": 60, "recycle_rule": "same_placement", "first_player": "dots"}, quiet=True),
    Case("double_card", {"max_moves": 30, "recycle_rule": "none"}, quiet=True),
    Case("double_card", {"max_moves": 1, "first_player": "dots"}),
]


def returns_bounds(game) -> tuple[float, float]:
    """The range of ``returns()`` that docs/<game>.md states for this configuration."""
    kind = game.config.get("returns")
    if game.name == "goofspiel":  # win_loss: +1/w and -1/(P - w); points are at most 1 + ... + N
        total = game.total_prize
        return {"win_loss": (-1.0, 1.0), "point_difference": (-total, total), "total_points": (0.0, total)}[kind]
    if game.name == "tides_of_time":  # win_loss: +1/-1/0; a round score is below 128
        return (-1.0, 1.0) if kind == "win_loss" else (-128.0 * game.rounds, 128.0 * game.rounds)
    if game.name == "tribolo":  # win_loss: +1/w and -1/(3 - w); cell_share: own/owned - 1/3
        return (-1.0, 1.0) if kind == "win_loss" else (-1 / 3, 2 / 3)
    if game.name in ("sticks", "double_card"):  # +1 the winner, -1 the loser (Double Card: 0 a draw)
        return (-1.0, 1.0)
    raise AssertionError(f"declare the returns bounds of {game.name} (docs/{game.name}.md)")


# --- the checks ----------------------------------------------------------------------------


def check_step(state, game, steps: int) -> tuple:
    """The cheap invariants, at every step.  Returns a fingerprint of the position: its
    key, the seats to act and their legal actions."""
    players = state.current_players()
    assert type(players) is tuple
    assert (players == ()) == state.is_terminal()
    assert len(players) <= 1 or game.info.simultaneous
    assert steps <= game.info.max_game_length
    n = game.num_actions
    moves = []
    for seat in range(game.num_players + 1):  # and a seat that does not exist
        legal = state.legal_actions(seat)
        mask = state.legal_mask(seat)
        assert mask.dtype == np.int8 and mask.shape == (n,) and mask.max(initial=0) <= 1 and mask.min(initial=0) >= 0
        assert np.flatnonzero(mask).tolist() == legal  # ascending, distinct, in range
        assert all(type(a) is int for a in legal)
        assert bool(legal) == (seat in players), (seat, players, legal)
        if legal:
            moves.append(legal)
    returns = state.returns()
    assert returns.shape == (game.num_players,)
    if players:
        assert not returns.any()
    return state.key(), players, moves


def as_numpy(action):
    if isinstance(action, dict):
        return {p: np.int64(a) for p, a in action.items()}
    return np.int64(action)


def bad_actions(state, game) -> list:
    """Every kind of bad argument to ``apply`` in this position."""
    seats = list(range(game.num_players))
    players = state.current_players()
    n = game.num_actions
    if not players:
        return [0, {p: 0 for p in seats}, {}, None]
    legal = {p: state.legal_actions(p) for p in players}
    good = {p: legal[p][0] for p in players}
    bad = []

    for p in players:
        others = {q: good[q] for q in players if q != p}
        illegal = sorted(set(range(n)) - set(legal[p]))
        not_legal = sorted({illegal[0], illegal[-1]}) if illegal else []
        for value in [-1, n, n + 7, 2**70, *not_legal, float(good[p]), str(good[p]), None, True, [good[p]], np.float64(good[p])]:
            bad.append({**others, p: value})
        if len(players) == 1:
            bad += [-1, n, 2**70, *not_legal, float(good[p]), str(good[p]), None, False, (good[p],)]
            bad += [{q: good[p]} for q in [*seats, game.num_players, -1] if q != p]  # a wrong seat
            bad += [{p: good[p], q: 0} for q in seats if q != p]  # a joint action for one mover
    if len(players) > 1:
        bad += [good[players[0]], np.int64(good[players[0]]), list(good.values()), tuple(good.values())]  # not a dict
        bad += [{q: a for q, a in good.items() if q != p} for p in players]  # a seat missing
        bad += [{**good, game.num_players: 0}, {**good, -1: 0}, {**good, "0": 0}]  # an extra seat
    bad.append({})
    return bad


def check_illegal_actions(state, game) -> None:
    """Each bad argument raises ``IllegalActionError`` and changes nothing: the key after
    each (cheap), the whole text after all of them."""
    text, key = state.to_text(), state.key()
    for action in bad_actions(state, game):
        with pytest.raises(IllegalActionError) as caught:
            state.apply(action)
        assert state.key() == key, f"apply({action!r}) changed the state"
        error = caught.value
        assert str(error)
        if error.player is not None:
            assert error.player in range(game.num_players)
            if error.legal is not None:
                assert error.legal == state.legal_actions(error.player)
    assert state.to_text() == text, "an illegal action changed the state"


def check_info_states(state, game, rng) -> None:
    checked_text = False
    for seat in rng.permutation(game.num_players).tolist():
        info = state.info_state(seat)
        assert info.player == seat
        assert info.legal_actions() == state.legal_actions(seat)
        again = state.info_state(seat)
        assert again == info and hash(again) == hash(info)
        sample = info.sample(rng)
        assert type(sample) is type(state) and sample.game == game
        seen = sample.info_state(seat)
        assert seen == info and hash(seen) == hash(info), "a sample must look the same to the seat"
        assert np.array_equal(sample.observation_tensor(seat), state.observation_tensor(seat))
        assert sample.legal_actions(seat) == state.legal_actions(seat)
        assert sample.current_players() == state.current_players()
        if game.info.perfect_information:
            assert sample == state and sample is not state
        elif not checked_text:  # a position of the game in its own right (one seat's sample)
            sample_text = sample.to_text()
            assert game.state_from_text(sample_text).to_text() == sample_text
            checked_text = True


def check_observations(state, game) -> None:
    low, high = game.observation_bounds
    for seat in range(game.num_players):
        obs = state.observation_tensor(seat)
        assert obs.dtype == np.float32 and obs.shape == game.observation_shape
        assert np.isfinite(obs).all() and (obs >= low).all() and (obs <= high).all()


def check_position(state, game, rng, pickled: bool) -> tuple[list, list]:
    """The expensive checks (``pickled``: the pickle round trip too).  Returns the copies
    that must now follow the original step by step, and the copies that must not change
    when the original moves on."""
    text, key = state.to_text(), state.key()
    parsed = game.state_from_text(text)
    assert parsed.game == game and parsed.to_text() == text and parsed.key() == key
    for seat in range(game.num_players):  # the text holds all that any seat knows
        assert parsed.info_state(seat) == state.info_state(seat)
        assert np.array_equal(parsed.observation_tensor(seat), state.observation_tensor(seat))
    followers = [("state_from_text", parsed)]
    if pickled:
        unpickled = pickle.loads(pickle.dumps(state))
        assert type(unpickled) is type(state) and unpickled == state and unpickled.key() == key
        followers.append(("pickle", unpickled))
    check_observations(state, game)
    check_info_states(state, game, rng)
    check_illegal_actions(state, game)
    frozen = state.clone()
    assert frozen is not state and frozen.to_text() == text and frozen.key() == key
    if not state.is_terminal():
        played = state.clone()
        played.apply(random_action(played, rng))
        assert state.to_text() == text and state.key() == key, "playing on a clone changed the original"
        if hasattr(state, "undo"):
            played.undo()
            assert played == state and played.key() == key
            assert played.current_players() == state.current_players()
            assert played.legal_actions(state.current_players()[0]) == state.legal_actions(state.current_players()[0])
    return followers, [("clone", frozen, text, key)]


def check_end(state, game, fingerprints: list, start_text: str) -> None:
    returns = state.returns()
    low, high = returns_bounds(game)
    assert game.returns_bounds == (low, high)  # what the game declares is what its docs state
    assert returns.dtype.kind == "f" and returns.shape == (game.num_players,)
    assert np.all(returns >= low - 1e-9) and np.all(returns <= high + 1e-9), returns
    if game.info.zero_sum:
        assert abs(returns.sum()) < 1e-9, returns
    if hasattr(state, "undo"):  # the whole game taken back, step by step
        for fingerprint in reversed(fingerprints[:-1]):
            state.undo()
            _, players, _ = fingerprint
            assert (state.key(), state.current_players(), [state.legal_actions(p) for p in players]) == fingerprint
        assert state.to_text() == start_text


def check_random_game(case: Case, seed: int, every: int, replay: bool, check_end_position: bool = True) -> int:
    """Play one random game of ``case`` from ``seed``; its length.  The expensive checks
    run on every ``every``-th step (and on the final position with
    ``check_end_position``); ``replay``: play it again from the seed."""
    game = load_game(case.game, **case.options)
    rng = np.random.default_rng(seed)
    check_rng = np.random.default_rng([seed, 1])
    choose = quiet_action if case.quiet else random_action
    state = game.new_initial_state(rng)
    start_text = state.to_text()
    fingerprints = []
    actions = []
    steps = checked = 0
    while True:
        fingerprints.append(check_step(state, game, steps))
        followers, frozen = [], []
        if steps % every == seed % every or (check_end_position and state.is_terminal()):
            # pickling is slow (a Tribolo state carries its board geometry): the first
            # checked position of each game and the end
            followers, frozen = check_position(state, game, check_rng, pickled=not checked or state.is_terminal())
            checked += 1
        if state.is_terminal():
            break
        action = choose(state, rng)
        actions.append(action)
        state.apply(action)
        steps += 1
        if not frozen:
            continue
        text = state.to_text()
        for label, copy, old_text, old_key in frozen:
            assert copy.to_text() == old_text and copy.key() == old_key, f"moving the original changed its {label}"
            followers.append((label, copy))
        for k, (label, copy) in enumerate(followers):
            copy.apply(as_numpy(action) if k == 0 else action)
            assert copy.to_text() == text and copy.key() == state.key(), f"the {label} copy went elsewhere"
    check_end(state, game, fingerprints, start_text)
    if replay:  # the same seed, as an int this time, and the same actions: the same game
        again = game.new_initial_state(seed)
        assert again.to_text() == start_text
        for action, (key, _, _) in zip(actions, fingerprints[1:]):
            again.apply(action)
            assert again.key() == key
    return steps


def run_cases(game_name: str, budget: int, every: int, end_every: int, replay_every: int, first_seed: int = 0) -> int:
    """Random games of every case of ``game_name`` (taking turns, seeds from
    ``first_seed``) until ``budget`` steps; the steps played.  One game in ``end_every``
    gets the expensive checks on its final position, one in ``replay_every`` is
    replayed from its seed."""
    cases = [case for case in CASES if case.game == game_name]
    steps = 0
    seed = first_seed
    while steps < budget:
        case = cases[seed % len(cases)]
        steps += check_random_game(
            case, seed, every, replay=seed % replay_every == 0, check_end_position=seed % end_every == 0
        )
        seed += 1
    return steps


# --- the tests -------------------------------------------------------------------------

DEFAULT_STEPS = {"sticks": 20_000, "goofspiel": 10_000, "tides_of_time": 8_000, "tribolo": 15_000, "double_card": 6_000}
"""Steps each game gets in the default suite (a few seconds); the slow test adds the rest
of ``TOTAL_STEPS``."""
TOTAL_STEPS = 100_000


def test_every_game_and_option_has_cases():
    assert {case.game for case in CASES} == set(GAMES) == set(DEFAULT_STEPS)
    for name, cls in GAMES.items():
        returns_bounds(cls())
        for option, spec in cls.options.items():
            assert any(
                option in case.options and case.options[option] != spec.default
                for case in CASES
                if case.game == name
            ), f"no case sets {name}'s option {option}"


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_game_objects(case):
    game = load_game(case.game, **case.options)
    assert pickle.loads(pickle.dumps(game)) == game
    assert hash(pickle.loads(pickle.dumps(game))) == hash(game)
    assert type(game)(**game.config) == game  # the normalised configuration builds the same game
    info = game.info
    assert (info.name, info.num_players, info.num_actions) == (game.name, game.num_players, game.num_actions)
    assert info.simultaneous == type(game).simultaneous and info.max_game_length >= 1
    seeded = [game.new_initial_state(seed) for seed in (5, 5, np.random.default_rng(5))]
    assert seeded[0] == seeded[1] == seeded[2]


@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_random_playouts_keep_the_protocol(game_name):
    run_cases(game_name, DEFAULT_STEPS[game_name], every=10, end_every=1, replay_every=5)


@pytest.mark.slow
@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_many_more_random_playouts_keep_the_protocol(game_name):
    """The rest of the ``TOTAL_STEPS`` random steps per game (seeds the default test
    does not play), with the expensive checks on fewer steps."""
    run_cases(game_name, TOTAL_STEPS - DEFAULT_STEPS[game_name], every=50, end_every=5, replay_every=11, first_seed=1_000_000)


def test_names_with_a_source_come_from_the_installed_game_sources(monkeypatch):
    """``load_game("SOURCE:NAME")`` asks the ``parlour.game_sources`` entry points (parlour
    declares ``openspiel`` there) and never names the package that serves it."""
    import parlour.games as games

    calls = []

    class Point:
        name = "toy"

        def load(self):
            return lambda name, **config: calls.append((name, config)) or GAMES["sticks"](num_sticks=3)

    monkeypatch.setattr(games, "entry_points", lambda group: [Point()] if group == games.GAME_SOURCES else [])
    assert load_game("toy:three", max_take=2).num_sticks == 3 and calls == [("three", {"max_take": 2})]
    with pytest.raises(ValueError, match=r"unknown game source 'chess'; installed game sources are \['toy'\]"):
        load_game("chess:board")


def test_openspiel_is_an_installed_game_source():
    from importlib.metadata import entry_points

    (point,) = [p for p in entry_points(group="parlour.game_sources") if p.name == "openspiel"]
    assert point.value == "parlour.interop.openspiel.from_openspiel:load_openspiel"
