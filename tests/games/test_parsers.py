"""Fuzzing every parser of text or options (hypothesis): any input gives a value or a
``ValueError`` whose message says what is wrong, never another exception.

Games: ``game.state_from_text`` (any text, and valid texts of reachable positions with
lines and characters deleted, duplicated, swapped or changed, numbers replaced),
``state.text_to_action``, ``Game(**options)`` and ``new_initial_state(**start)``.  The
command line and the policy specs: ``parse_option_value``, ``parse_options`` (whose
errors are the CLI's ``UsageError``), ``parse_spec``, ``make_from_spec`` and
``Param.parse``.  What a parser accepts must be usable: a parsed position round-trips,
an accepted configuration plays, a parsed action is in range.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import random_action, reachable_states
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from parlour.baselines import REGISTRY, make_from_spec
from parlour.baselines.policy import parse_spec
from parlour.cli import UsageError, parse_option_value, parse_options
from parlour.games import GAMES, load_game

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

GAME_CONFIGS = [
    ("sticks", {}),
    ("sticks", {"num_sticks": 25, "max_take": 5, "misere": False}),
    ("goofspiel", {"num_cards": 6}),
    ("goofspiel", {"num_cards": 5, "num_players": 3, "imperfect_info": True, "tie_rule": "discard"}),
    ("goofspiel", {"hands": [[1, 3, 5, 7], [2, 4, 6, 8]], "prize_order": "descending"}),
    ("tides_of_time", {}),
    ("tides_of_time", {"rounds": 1, "maze_counts_sets": True}),
    ("tribolo", {"width": 6, "height": 5, "walls": 3, "start_cells": 2}),
    ("tribolo", {}),
    ("double_card", {}),
    ("double_card", {"max_moves": 60, "recycle_rule": "none", "first_player": "dots"}),
]


@pytest.fixture(scope="module", params=GAME_CONFIGS, ids=[f"{name}{options or ''}".replace(" ", "") for name, options in GAME_CONFIGS])
def game(request):
    """Each configuration of ``GAME_CONFIGS`` (module scope: hypothesis runs many
    examples with one fixture value)."""
    name, options = request.param
    return load_game(name, **options)


def value_or_value_error(parse, *args):
    """``parse(*args)``, or ``None`` if it raised a ``ValueError`` that says something."""
    try:
        return parse(*args)
    except ValueError as error:
        assert str(error).strip(), f"{parse.__qualname__}{args!r}: a ValueError without a message"
        return None


# --- positions from text ------------------------------------------------------------------


@st.composite
def mutated(draw, text: str) -> str:
    """``text`` with one to three edits: lines deleted, duplicated or swapped; characters
    deleted, duplicated, swapped, changed or inserted; a number replaced."""
    for _ in range(draw(st.integers(1, 3))):
        lines = text.split("\n")
        edit = draw(st.sampled_from(["del line", "dup line", "swap lines", "del char", "dup char", "swap chars", "set char",
                                     "insert", "number"]))
        if edit.endswith(("line", "lines")):
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if edit == "del line":
                del lines[i]
            elif edit == "dup line":
                lines.insert(i, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif edit == "number" and re.search(r"\d+", text):
            numbers = list(re.finditer(r"\d+", text))
            m = numbers[draw(st.integers(0, len(numbers) - 1))]
            new = draw(st.one_of(st.integers(0, 30), st.integers(0, 10**30), st.just(-1)))
            text = text[: m.start()] + str(new) + text[m.end() :]
        elif text:
            i, j = draw(st.integers(0, len(text) - 1)), draw(st.integers(0, len(text) - 1))
            if edit == "del char":
                text = text[:i] + text[i + 1 :]
            elif edit == "dup char":
                text = text[:i] + text[i] + text[i:]
            elif edit == "swap chars":
                chars = list(text)
                chars[i], chars[j] = chars[j], chars[i]
                text = "".join(chars)
            elif edit == "set char":
                text = text[:i] + draw(st.sampled_from(sorted(set(text)) + list("0123456789 -|\n٣²"))) + text[i + 1 :]
            else:
                text = text[:i] + draw(st.text(max_size=4)) + text[i:]
    return text


def check_parsed_position(game, text: str) -> None:
    state = value_or_value_error(game.state_from_text, text)
    if state is not None:  # what the parser accepts is a position of the game
        assert type(state) is type(game.new_initial_state(0)) and state.game == game
        assert game.state_from_text(state.to_text()) == state
        assert (state.current_players() == ()) == state.is_terminal()


@FUZZ
@given(data=st.data())
def test_state_from_edited_text(game, data):
    state = data.draw(reachable_states(game), label="position")
    check_parsed_position(game, data.draw(mutated(state.to_text()), label="text"))


@FUZZ
@given(text=st.text())
def test_state_from_any_text(game, text):
    check_parsed_position(game, text)


# --- actions from text --------------------------------------------------------------------


def action_texts(state) -> st.SearchStrategy[str]:
    """Any text, and edits of the texts of the legal actions."""
    legal = [state.action_to_text(a) for p in state.current_players() for a in state.legal_actions(p)]
    if not legal:
        return st.text()
    return st.one_of(st.text(), st.sampled_from(legal).flatmap(mutated))


@FUZZ
@given(data=st.data())
def test_text_to_action(game, data):
    state = data.draw(reachable_states(game), label="position")
    text = data.draw(action_texts(state), label="text")
    action = value_or_value_error(state.text_to_action, text)
    if action is not None:
        assert type(action) is int and 0 <= action < game.num_actions
    for p in state.current_players():  # and the notation of every legal action reads back
        for a in state.legal_actions(p):
            assert state.text_to_action(state.action_to_text(a)) == a


# --- configurations and starts ------------------------------------------------------------


def words_of(cls) -> list[str]:
    """The words of a game's option help texts: its choices, among others."""
    return sorted({w for opt in cls.options.values() for w in re.findall(r"[a-z_]{2,}", opt.help)})


def values(words: list[str]) -> st.SearchStrategy:
    small = st.integers(-2, 30)
    return st.one_of(
        st.none(),
        st.booleans(),
        small,
        st.integers(),
        st.sampled_from([65, 100, 1000, 2**63, 10**30]),
        st.floats(),
        st.text(max_size=6),
        st.sampled_from(words),
        st.lists(small, max_size=20),
        st.lists(st.lists(small, max_size=8), max_size=4),
        st.permutations(list(range(1, 19))),
        st.builds(np.int64, small),
        st.builds(np.array, st.one_of(small, st.lists(small, max_size=6))),
        st.dictionaries(st.text(max_size=3), small, max_size=2),
        st.text(max_size=12).map(parse_option_value_or_text),
    )


def parse_option_value_or_text(text: str):
    try:
        return parse_option_value(text)
    except UsageError:
        return text


def check_playable(game, seed: int) -> None:
    """An accepted configuration plays (when it is small enough to try)."""
    assert type(game)(**game.config) == game
    if game.num_actions > 10_000 or game.info.max_game_length > 10_000:
        return
    state = value_or_value_error(game.new_initial_state, seed)  # e.g. a board with no setup
    rng = np.random.default_rng(seed)
    for _ in range(3):
        if state is None or state.is_terminal():
            break
        assert len(state.legal_mask(state.current_players()[0])) == game.num_actions
        state.apply(random_action(state, rng))


@pytest.mark.parametrize("name", sorted(GAMES))
@FUZZ
@given(data=st.data())
def test_game_options(name, data):
    cls = GAMES[name]
    keys = st.one_of(st.sampled_from(sorted(cls.options)), st.text(max_size=5))
    options = data.draw(st.dictionaries(keys, values(words_of(cls)), max_size=4), label="options")
    game = value_or_value_error(lambda: cls(**options))
    if game is not None:
        check_playable(game, data.draw(st.integers(0, 2**32 - 1), label="seed"))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_an_option_called_self_or_name_is_unknown(name):
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['self'\]"):
        GAMES[name](self=1)
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['name'\]"):
        load_game(name, **{"name": 1})


TRICKY_VALUES = [None, True, 0, -1, 2, 3, 65, 1000, 2**63, 10**30, 1.0, 2.5, float("nan"), float("inf"), "", "x", "3", "none",
                 [], [1], [2, 1], [[1, 2], [2, 1]], [[1, 2], [3]], [[1, 2], "ab"], [[10**30, 1], [1, 2]], [[1.0, 2.0], [1, 2]], [None],
                 {}, (1,), np.int64(3), np.float64(3.0), np.array(5), np.array([2, 1]), np.array([[1, 2], [2, 1]]), np.bool_(True),
                 b"x", 1j]
"""Values for every option and start option, one at a time (the others at their default)."""


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("value", TRICKY_VALUES, ids=repr)
def test_each_option_and_start_option_alone(name, value):
    cls = GAMES[name]
    for option in cls.options:
        game = value_or_value_error(lambda: cls(**{option: value}))
        if game is not None:
            check_playable(game, 0)
    game = cls()
    for option in game.start_options:
        state = value_or_value_error(lambda: game.new_initial_state(0, **{option: value}))
        if state is not None:
            assert game.state_from_text(state.to_text()) == state


@FUZZ
@given(data=st.data())
def test_start_options(game, data):
    keys = st.one_of(st.sampled_from(sorted(game.start_options) or ["none"]),
                     st.text(max_size=5).filter(lambda k: k not in ("self", "seed")))
    start = data.draw(st.dictionaries(keys, values(["0 5 A 2", "F 2 F 3 3 A 2"]), max_size=2), label="start")
    state = value_or_value_error(lambda: game.new_initial_state(0, **start))
    if state is not None:
        assert game.state_from_text(state.to_text()) == state


# --- the command line and the policy specs ------------------------------------------------


def value_or_usage_error(parse, *args):
    try:
        return parse(*args)
    except UsageError as error:
        assert str(error).strip()
        return None


@FUZZ
@given(st.text())
@example("[" * 5000)  # nested too deep for json
@example("1," + "[" * 5000)
def test_parse_option_value(text):
    value_or_usage_error(parse_option_value, text)


@FUZZ
@given(st.lists(st.one_of(st.text(), st.tuples(st.text(max_size=6), st.text()).map("=".join)), max_size=4))
def test_parse_options(items):
    options = value_or_usage_error(parse_options, items)
    if options is not None:
        assert all(key and key == key.strip() for key in options)


SPEC_WORDS = sorted({*REGISTRY, *(key for cls in REGISTRY.values() for key in cls.params), "true", "none", "1", "0", "-1", "2.5", "nan"})


@st.composite
def specs(draw) -> str:
    """``name:key=value,...`` from the registry's names and parameters, or any text."""
    word = st.one_of(st.sampled_from(SPEC_WORDS), st.text(max_size=5))
    items = draw(st.lists(st.tuples(word, st.sampled_from(["=", ""]), word).map("".join), max_size=3))
    spec = draw(word) + draw(st.sampled_from([":", ""])) + ",".join(items)
    return draw(st.one_of(st.just(spec), st.text(), mutated(spec)))


@FUZZ
@given(specs())
def test_parse_spec(spec):
    parsed = value_or_value_error(parse_spec, spec)
    if parsed is not None:
        name, params = parsed
        assert name and name == name.strip() and all(type(v) is str for v in params.values())


SPEC_GAMES = [load_game("sticks"), load_game("goofspiel", num_cards=4), load_game("tides_of_time", rounds=1),
              load_game("tribolo", width=6, height=5, walls=3, start_cells=2), load_game("double_card")]


@FUZZ
@given(specs(), st.sampled_from(SPEC_GAMES))
def test_make_from_spec(spec, game):
    try:
        policy = value_or_value_error(make_from_spec, spec, game, 0)
    except ImportError as error:  # a player of an extra that is not installed (torch's) names what to install
        assert "pip install 'parlour[" in str(error), error
        return
    if policy is not None:
        assert policy.game == game and policy.name == parse_spec(spec)[0]


PARAMS = sorted(((cls.name, key, param) for cls in REGISTRY.values() for key, param in cls.params.items()), key=lambda x: x[:2])


@FUZZ
@given(st.sampled_from(PARAMS), st.one_of(values(["true", "none", "inf", "1e999", "0x10", "1_000"]), st.text(max_size=8)))
def test_param_parse(param, value):
    _, key, spec = param
    value_or_value_error(spec.parse, key, value)
