"""Every option of every game is bounded: the test walks each one at its bounds (the game
builds, and its state, observation, picture, text form and a whole game stay small) and
past them (a one-line ``ValueError`` naming the option, the value and what is allowed).

The front ends (CLI, envs, web, OpenSpiel bridge) refuse the same values with the same
words: ``tests/test_bounds_everywhere.py``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from parlour.games import GAMES, Game, load_game
from parlour.games.base import Option
from parlour.render import picture

DOCS = Path(__file__).resolve().parents[2] / "docs"

CONTEXT: dict[tuple[str, str, int], dict[str, Any]] = {
    ("tribolo", "width", 1): {"walls": 0, "start_cells": 1},
    ("tribolo", "height", 1): {"walls": 0, "start_cells": 1},
    ("tribolo", "height", 26): {"width": 15},
    ("tribolo", "walls", 396): {"width": 20, "height": 20, "start_cells": 1},
    ("tribolo", "start_cells", 133): {"width": 20, "height": 20, "walls": 0},
}
"""Other options that make an extreme value admissible where options depend on each
other (a Tribolo board must have room for its walls and starting cells)."""

UNPLAYABLE = {("tribolo", "walls", 396)}
"""Extremes that configure but cannot be played (three starting cells among 396 walls)."""

CUSTOM: dict[tuple[str, str], tuple[list[Any], list[tuple[Any, str]]]] = {
    ("goofspiel", "prize_order"): (
        ["random", "descending", "ascending", [3, 1, 2]],
        [("shuffled", "prize_order must be one of"), ([1, 2], "permutation of 1..3"), ([1, 1, 2], "permutation of 1..3")],
    ),
    ("goofspiel", "hands"): (
        [[[1, 2, 3], [4, 5, 6]], [[1, 2, 1000], [3, 4, 5]], [list(range(1, 4))] * 10],
        [([[1, 2, 1001], [3, 4, 5]], "between 1 and 1000, got 1001"), ([[1, 2, 3]] * 11, "num_players must be between 2 and 10, got 11"),
         ([[1, 2, 3], [1, 2]], "distinct cards"), ("123", "hands must be a list")],
    ),
}
"""Options of another shape than a number or a choice: values allowed and refused."""

LARGEST: dict[str, dict[str, Any]] = {
    "goofspiel": {"num_cards": 1000, "num_players": 10, "prize_order": "random"},
    "sticks": {"num_sticks": 1000, "max_take": 1000, "misere": False},
    "tides_of_time": {"rounds": 3},
    "tribolo": {"width": 20, "height": 20, "walls": 0, "start_cells": 4},
    "double_card": {"max_moves": 1000, "recycle_rule": "none"},
}
"""Each game at the far end of its options together."""


def option_cases() -> list[tuple[str, str, Option]]:
    return [(name, key, option) for name, cls in GAMES.items() for key, option in cls.options.items()]


def ids(case: tuple[str, str, Option]) -> str:
    return f"{case[0]}-{case[1]}"


def check_small(game: Game, seed: int = 0) -> int:
    """Build a state and everything drawn from it, play it out at random; the number of
    steps.  Sizes, not times, are checked (timing is for benchmarks)."""
    state = game.new_initial_state(seed)
    seat = state.current_players()[0]
    assert state.observation_tensor(seat).size <= 50_000
    assert len(picture(state, seat=seat).svg()) <= 4_000_000
    text = state.to_text()
    assert len(text) <= 100_000 and game.state_from_text(text).to_text() == text
    assert game.info.max_game_length <= 20_000
    rng, steps = np.random.default_rng(seed), 0
    while not state.is_terminal():
        players = state.current_players()
        choice = {p: int(rng.choice(state.legal_actions(p))) for p in players}
        state.apply(choice if len(players) > 1 else choice[players[0]])
        steps += 1
        assert steps <= game.info.max_game_length
    return steps


def refused(name: str, config: dict[str, Any]) -> str:
    with pytest.raises(ValueError) as caught:
        load_game(name, **config)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 300, message
    return message


@pytest.mark.parametrize("case", option_cases(), ids=ids)
def test_every_option_is_bounded(case):
    name, key, option = case
    bounded = option.low is not None and option.high is not None
    assert bounded or option.choices is not None or (name, key) in CUSTOM, f"{name} option {key} declares no bounds"
    assert option.allowed_text()


@pytest.mark.parametrize("case", [c for c in option_cases() if c[2].low is not None], ids=ids)
def test_integer_options_at_and_past_their_bounds(case):
    name, key, option = case
    for value in (option.low, option.high):
        game = load_game(name, **CONTEXT.get((name, key, value), {}), **{key: value})
        if (name, key, value) in UNPLAYABLE:  # accepted, but no setup ever allows a move: said at once
            with pytest.raises(ValueError, match="no setup with a legal move found in 1000 draws"):
                game.new_initial_state(0)
        else:
            check_small(game)
    for value in (option.low - 1, option.high + 1, option.high * 100_000, 10**30):
        message = refused(name, {key: value})
        assert key in message and str(value) in message and f"between {option.low} and {option.high}" in message
    for value in (2.5, "3", True, None if option.default is not None else "x"):
        assert key in refused(name, {key: value})


@pytest.mark.parametrize("case", [c for c in option_cases() if c[2].choices is not None], ids=ids)
def test_choice_options_take_their_choices_and_nothing_else(case):
    name, key, option = case
    for value in option.choices:
        check_small(load_game(name, **{key: value}))
    wrong = [1, 0] if option.choices == (False, True) else ["nonsense", True, 2.0, [option.choices[0]]]
    for value in wrong:
        message = refused(name, {key: value})
        assert key in message and "must be" in message


@pytest.mark.parametrize("key", sorted(CUSTOM), ids=lambda k: f"{k[0]}-{k[1]}")
def test_options_of_other_shapes(key):
    name, option = key
    allowed, refusals = CUSTOM[key]
    for value in allowed:
        config = {option: value} if option != "prize_order" or isinstance(value, str) else {option: value, "num_cards": 3}
        check_small(load_game(name, **config))
    for value, words in refusals:
        config = {option: value} if option != "prize_order" or isinstance(value, str) else {option: value, "num_cards": 3}
        assert re.search(words, refused(name, config))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_game_at_the_far_end_of_all_its_options(name):
    game = load_game(name, **LARGEST[name])
    assert check_small(game) > 0


def test_a_huge_value_gives_a_short_message():
    message = refused("sticks", {"num_sticks": 10**5000})
    assert "an integer of" in message
    message = refused("goofspiel", {"hands": [[1] * 100_000, [2]]})
    assert len(message) < 300


def test_dependent_bounds_are_refused_with_the_numbers():
    assert "must be at most 400" in refused("tribolo", {"width": 26, "height": 26})
    assert "must leave at least one empty cell" in refused("tribolo", {"width": 4, "height": 4, "walls": 10, "start_cells": 2})


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_docs_page_states_every_bound(name):
    """docs/<game>.md's options table gives each option's allowed values in the words of
    ``Option.allowed_text`` (or, for a number, its two bounds)."""
    page = (DOCS / f"{name}.md").read_text()
    for key, option in GAMES[name].options.items():
        row = next((line for line in page.splitlines() if line.startswith(f"| `{key}` |")), None)
        assert row is not None, f"docs/{name}.md has no options row for {key}"
        if option.low is not None:
            assert f"{option.low}..{option.high}" in row or f"{option.low} to {option.high}" in row, row
        elif option.choices is not None and option.choices != (False, True):
            for choice in option.choices:
                assert f"{choice!r}".strip("'") in row, (choice, row)
