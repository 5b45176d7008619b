"""The import graph has no upward arrow.

Layers, lowest first: the foundation (``errors``, ``atomic``, ``_version``), ``games``
(with the root package and ``registration``, which import only the games and the two
registries), ``envs``, ``baselines``, ``training``, and the command line (``cli``,
``play``).  A module imports only from its own layer or below; the rules modules import
numpy and the standard library only; and importing ``parlour`` or a rules module in a
fresh interpreter loads none of the layers above the games, nor torch.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "parlour"

LAYERS = {
    "parlour._version": 0,
    "parlour.errors": 0,
    "parlour.atomic": 0,
    "parlour.processes": 0,
    "parlour.locks": 0,
    "parlour": 1,
    "parlour.registration": 1,
    "parlour.games": 1,
    "parlour.interop": 1,  # games from and for other frameworks: beside the rules, imports only them
    "parlour.render": 1,  # the games' pictures: beside the rules, imports only them (and Pillow when rasterising)
    "parlour.envs": 2,
    "parlour.baselines": 3,
    "parlour.zoo": 3,  # the shipped trained agents: policies from package data
    "parlour.training": 4,
    "parlour.play": 5,
    "parlour.web": 5,
    "parlour.bench": 5,  # the benchmark: ladders and cards on top of the arena
    "parlour.cli": 5,
}
NAMES = {0: "foundation", 1: "games", 2: "envs", 3: "baselines", 4: "training", 5: "command line"}


def layer(module: str) -> int:
    """The layer of a parlour module: its longest listed prefix."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in LAYERS:
            return LAYERS[prefix]
    raise AssertionError(f"{module} belongs to no layer; add it to LAYERS")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> list[tuple[str, int]]:
    """Every module a file imports, anywhere in it (function-level imports too)."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, node.lineno))
            # ``from parlour import x`` may name a submodule
            if node.module == "parlour":
                found += [(f"parlour.{alias.name}", node.lineno) for alias in node.names]
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer():
    assert len(MODULES) > 40
    for path in MODULES:
        layer(module_name(path))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_no_upward_import(path):
    me = module_name(path)
    mine = layer(me)
    for target, line in imports(path):
        if target == "parlour" or target.startswith("parlour."):
            if target in ("parlour", "parlour._version"):
                continue  # every module loads the root; it is importing *from* it that counts
            theirs = layer(target)
            assert theirs <= mine, (
                f"{me} ({NAMES[mine]}) imports {target} ({NAMES[theirs]}) at line {line}: an upward arrow"
            )


@pytest.mark.parametrize("path", sorted((PACKAGE / "games").rglob("*.py")), ids=lambda p: module_name(p))
def test_rules_modules_import_numpy_and_the_standard_library_only(path):
    for target, line in imports(path):
        top = target.split(".")[0]
        assert top in ("numpy", "parlour") or top in sys.stdlib_module_names, (
            f"{module_name(path)} imports {target} at line {line}; the games layer is numpy and the standard library only"
        )
        if top == "parlour":
            assert layer(target) <= 1, f"{module_name(path)} imports {target} at line {line}"


def loaded_after(statement: str) -> list[str]:
    """The modules loaded by ``statement`` in a fresh interpreter."""
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


FORBIDDEN = ("parlour.envs", "parlour.baselines", "parlour.training", "parlour.cli", "parlour.play", "parlour.interop", "parlour.render", "torch",
             "stable_baselines3", "sb3_contrib", "pyspiel", "parlour.web", "starlette")


@pytest.mark.parametrize(
    "statement",
    ["import parlour", "import parlour.games", "import parlour.games.sticks", "from parlour.games.tribolo import TriboloGame",
     "import parlour.games.double_card", "import parlour.games.goofspiel, parlour.games.tides_of_time"],
)
def test_importing_the_games_loads_nothing_above_them(statement):
    loaded = loaded_after(statement)
    above = [m for m in loaded if m.startswith(FORBIDDEN)]
    assert not above, f"{statement!r} loaded {above}"
    assert "parlour.games.sticks" in loaded  # the games themselves are there


def test_importing_parlour_still_registers_every_id():
    code = (
        "import gymnasium, pettingzoo, parlour\n"
        "from parlour.games import GAMES\n"
        "from parlour.registration import GYM_IDS, env_id\n"
        "assert all(env_id(g) in pettingzoo.aec_registry for g in GAMES)\n"
        "assert all((env_id(g) in pettingzoo.parallel_registry) == c.simultaneous for g, c in GAMES.items())\n"
        "assert all(i in gymnasium.registry for i in GYM_IDS.values())\n"
        "env = pettingzoo.make('aec', 'parlour/sticks-v0')\n"
        "env.reset(seed=0)\n"
        "print(type(env.unwrapped).__module__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "parlour.envs.adapter"


def test_baselines_and_envs_do_not_load_training():
    for statement in ("import parlour.baselines", "import parlour.envs", "from parlour.baselines import make"):
        loaded = loaded_after(statement)
        assert not [m for m in loaded if m.startswith(("parlour.training", "parlour.cli", "torch", "stable_baselines3"))], statement
