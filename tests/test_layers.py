"""The import graph has no upward arrow and no circle.

Layers, lowest first (docs/architecture.md draws them):

0. the foundation: ``errors``, ``atomic``, ``processes``, ``locks``, ``ray_cluster``, ``toml_read``, ``_version``;
1. ``games``: the rules, numpy and the standard library only;
2. beside the rules, importing only them: ``render`` (the games' pictures),
   ``interop`` (OpenSpiel's games as parlour games and back) and ``zoo`` (the shipped
   agents' cards and model files, as data);
3. the environments: ``envs`` (PettingZoo) and ``vector`` (batched engines and their
   vector envs);
4. the players: ``baselines`` (the zoo's agents as policies too);
5. ``evaluation``: the arena, ratings, reports, win rates; beside it ``table``, a person
   playing policies (sessions, thinking workers), which the web and the terminal drive;
6. ``training``;
7. the front ends: ``cli``, ``terminal``, ``web``, ``ladder`` (``parlour bench``), and the wiring that names every
   layer's entry points for Gymnasium's and PettingZoo's registries (``registration``,
   loaded by the root package ``parlour``: its names are strings, so importing
   ``parlour`` still loads the rules alone).

Every package and top-level module is assigned a layer explicitly: a new one without an
entry fails ``test_every_module_has_a_layer``.  A module imports only from its own layer
or below, and a string naming a parlour module (``importlib.import_module("parlour.x")``,
an entry point) counts as an import, and so does one under ``TYPE_CHECKING``.  No two
files import each other, directly or round a circle.  Importing ``parlour`` or a rules module in a
fresh interpreter loads none of the layers above the games, nor torch.
"""

from __future__ import annotations

import ast
import json
import re
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
    "parlour.toml_read": 0,  # reading TOML: tomllib, or its backport tomli on Python 3.10
    "parlour.ray_cluster": 0,  # joining (or starting) a Ray cluster: imports ray only, when called
    "parlour.games": 1,
    "parlour.render": 2,  # the games' pictures: imports only the rules (and Pillow when rasterising)
    "parlour.interop": 2,  # games from and for other frameworks: imports only the rules
    "parlour.envs": 3,
    "parlour.vector": 3,  # batched engines (numpy) and their Gymnasium / SB3 vector envs
    "parlour.zoo": 2,  # the shipped trained agents as data (cards, model files): imports only the rules
    "parlour.baselines": 4,
    "parlour.evaluation": 5,  # the arena, ratings, reports, win rates: what every front end plays matches with
    "parlour.table": 5,  # a person playing policies: sessions, thinking workers, specs (no HTTP)
    "parlour.training": 6,
    "parlour.terminal": 7,
    "parlour.web": 7,
    "parlour.ladder": 7,  # the benchmark: ladders and cards on top of the arena
    "parlour.cli": 7,
    "parlour.registration": 7,  # names every layer's entry points (as strings) for the registries
    "parlour": 7,  # the root package itself only (it calls registration); no catch-all for its modules
}
NAMES = {0: "foundation", 1: "games", 2: "beside the games", 3: "envs", 4: "baselines", 5: "evaluation and table", 6: "training",
         7: "front ends"}


def layer(module: str) -> int:
    """The layer of a parlour module: its longest listed prefix (the root's entry is for
    the root package alone, so that an unlisted package or module has none)."""
    parts = module.split(".")
    for end in range(len(parts), 1, -1):
        prefix = ".".join(parts[:end])
        if prefix in LAYERS:
            return LAYERS[prefix]
    if module == "parlour":
        return LAYERS["parlour"]
    raise AssertionError(f"{module} belongs to no layer; add it (or its package) to LAYERS in tests/test_layers.py")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULE_TEXT = re.compile(r"parlour(?:\.\w+)+")


def imports(path: Path) -> list[tuple[str, int]]:
    """Every parlour module a file imports, anywhere in it (function-level imports and
    those under ``if TYPE_CHECKING:`` too: a type that names a module depends on it),
    and every string that names one (``"parlour.x.y"`` or the entry point
    ``"parlour.x.y:name"``)."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            submodules = [f"{node.module}.{alias.name}" for alias in node.names if is_module(f"{node.module}.{alias.name}")]
            found += [(name, node.lineno) for name in submodules]  # ``from parlour.x import y``, y a module
            if len(submodules) < len(node.names):
                found.append((node.module, node.lineno))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.split(":")[0]
            if MODULE_TEXT.fullmatch(text) and is_module(text):
                found.append((text, node.lineno))
    return found


def is_module(name: str) -> bool:
    """Whether ``name`` is a parlour module or package (a file of the source tree)."""
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer():
    assert len(MODULES) > 40
    for path in MODULES:
        layer(module_name(path))


def check_layers(me: str, targets: list[tuple[str, int]]) -> None:
    mine = layer(me)
    for target, line in targets:
        if target == "parlour" or target.startswith("parlour."):
            theirs = layer(target)
            assert theirs <= mine, (
                f"{me} ({NAMES[mine]}) imports {target} ({NAMES[theirs]}) at line {line}: an upward arrow"
            )


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_no_upward_import(path):
    check_layers(module_name(path), imports(path))


def import_graph() -> dict[str, set[str]]:
    """File to the parlour files it imports (``imports``: strings, function-level and
    ``TYPE_CHECKING`` imports too; an import of ``parlour.x.y.name`` is one of the file
    ``parlour.x.y``)."""
    modules = {module_name(path): path for path in MODULES}

    def file_of(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    return {me: {file_of(target) for target, _ in imports(path) if target.startswith("parlour")} - {me, None}
            for me, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one file (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle():
    assert circles(import_graph()) == []


def test_the_checks_see_an_upward_import_and_a_circle():
    """The layer test fails on a deliberate upward import (a rules module naming the
    envs), and the circle test on two files that import each other."""
    upward = ast.parse("from parlour.envs.adapter import info")
    targets = [node.module for node in ast.walk(upward) if isinstance(node, ast.ImportFrom)]
    assert layer(targets[0]) > layer("parlour.games.sticks")
    with pytest.raises(AssertionError, match="parlour.games.sticks .games. imports parlour.envs.adapter .envs. at line 1: an upward arrow"):
        check_layers("parlour.games.sticks", [("parlour.envs.adapter", 1)])
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    with pytest.raises(AssertionError, match="belongs to no layer"):
        layer("parlour.newpackage.module")


def test_an_import_for_type_checking_only_counts(tmp_path):
    """An import under ``TYPE_CHECKING`` is an arrow like any other: the module needs the
    other to be read and checked."""
    path = tmp_path / "module.py"
    path.write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from parlour.envs.adapter import info\n")
    assert ("parlour.envs.adapter", 4) in imports(path)


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


FORBIDDEN = ("parlour.envs", "parlour.baselines", "parlour.training", "parlour.cli", "parlour.terminal", "parlour.table",
             "parlour.interop", "parlour.render", "torch", "stable_baselines3", "sb3_contrib", "pyspiel", "parlour.web", "starlette")


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
