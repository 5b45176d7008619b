"""The n-tuple player's feature sets are registered by each game's players module
(``register_features``), as policies are: the n-tuple module names no game, and the sets
are there whenever the player can be made, in a fresh interpreter too."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from parlour.baselines.learned import ntuple
from parlour.baselines.learned.ntuple import NTUPLE_FEATURE_SETS, NTupleFeatures, NTuplePolicy, register_features
from parlour.baselines.policy import lookup
from parlour.games import load_game


def test_the_games_register_their_sets_the_default_first():
    assert list(NTUPLE_FEATURE_SETS["double_card"]) == ["reach", "windows"]
    assert list(NTUPLE_FEATURE_SETS["tribolo"]) == ["windows"]
    assert NTuplePolicy.games == ("double_card", "tribolo")
    assert lookup("ntuple", load_game("tribolo")) is NTuplePolicy
    with pytest.raises(ValueError, match="policy 'ntuple' cannot play sticks: it is made for double_card, tribolo"):
        lookup("ntuple", load_game("sticks"))


def test_a_second_set_of_the_same_name_is_refused():
    reach = NTUPLE_FEATURE_SETS["double_card"]["reach"]
    assert register_features("double_card", reach) is reach  # the same set again: nothing changes
    with pytest.raises(ValueError, match="two n-tuple feature sets are called 'reach' for double_card"):
        register_features("double_card", NTupleFeatures("reach", reach.indices, 1, reach.search, reach.seats))


def test_the_ntuple_module_names_no_game():
    tree = ast.parse(Path(ntuple.__file__).read_text())
    imported = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module]
    assert not [name for name in imported if name.startswith("parlour.baselines.players")]


def test_a_fresh_interpreter_has_the_sets_with_the_module():
    code = ("from parlour.baselines.learned.ntuple import NTUPLE_FEATURE_SETS, NTuplePolicy; "
            "print(sorted((g, list(s)) for g, s in NTUPLE_FEATURE_SETS.items()), NTuplePolicy.games)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[('double_card', ['reach', 'windows']), ('tribolo', ['windows'])] ('double_card', 'tribolo')"
