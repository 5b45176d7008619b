"""No module reaches into another module's private names.

A name with one leading underscore is its module's own: parlour, its benchmarks, its
scripts and its tests use another module's names only when they are public.  The check
reads every file's syntax tree and refuses, naming the file, line and name:

1. ``from parlour.x import _y`` (and relative ``from .x import _y``);
2. ``m._y`` where ``m`` is a module of the project bound by an import (``import
   parlour.x as m``, ``from parlour import x``, ``import parlour.x`` read as
   ``parlour.x._y``), at module level or inside a function;
3. a dotted name given to a patcher (``monkeypatch.setattr("parlour.x._y", ...)``,
   ``mock.patch("parlour.x._y")``; a private module such as ``parlour._version`` is
   a module, not a name) and ``setattr(m, "_y", ...)`` / ``getattr(m, "_y")``
   on such a module.

Attributes of objects (``env._state``) are out of its reach: an object's attribute
cannot be told from a module's by reading the text.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from source_reading import imported_from, is_source_module

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("parlour", "benchmarks", "scripts", "tests")
FILES = sorted(path for top in PROJECT for path in (ROOT / top).rglob("*.py"))
PATCHERS = ("setattr", "delattr", "patch")
"""The calls that take a dotted name to reach into a module (pytest's monkeypatch,
unittest.mock)."""
PRIVATE_IN_TEXT = re.compile(r"\b(?:" + "|".join(PROJECT) + r")(?:\.[A-Za-z]\w*)*\.(_[A-Za-z0-9]\w*)\b")


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name != "_"


def is_project_module(name: str, root: Path = ROOT) -> bool:
    return name.split(".")[0] in PROJECT and is_source_module(name, root)


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of names and attributes, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def violations(source: str, package: str, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, what) for each private name of another module that ``source`` (a file of
    the package ``package``, for relative imports) uses."""
    tree = ast.parse(source)
    modules: dict[str, str] = {}  # a bound name -> the project module it is
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if is_project_module(alias.name, root):
                    if alias.asname:
                        modules[alias.asname] = alias.name
                    else:
                        parts = alias.name.split(".")
                        for end in range(1, len(parts) + 1):
                            modules[".".join(parts[:end])] = ".".join(parts[:end])
        elif isinstance(node, ast.ImportFrom):
            base = imported_from(node, package)
            for alias in node.names:
                if private(alias.name):
                    found.append((node.lineno, f"imports {alias.name} from {base}"))
                elif is_project_module(f"{base}.{alias.name}", root):
                    modules[alias.asname or alias.name] = f"{base}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            owner = dotted(node.value)
            if owner in modules:
                found.append((node.lineno, f"reads {modules[owner]}.{node.attr}"))
        elif isinstance(node, ast.Call) and len(node.args) >= 2:
            owner, name = dotted(node.args[0]), node.args[1]
            if (owner in modules and isinstance(name, ast.Constant) and isinstance(name.value, str)
                    and private(name.value)):
                found.append((node.lineno, f"reaches {modules[owner]}.{name.value} by name"))
        if (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str) and (dotted(node.func) or "").split(".")[-1] in PATCHERS):
            for match in PRIVATE_IN_TEXT.finditer(node.args[0].value):
                module = match.group(0)[: -len(match.group(1)) - 1]
                if is_project_module(module, root) and not is_project_module(match.group(0), root):
                    found.append((node.lineno, f"names {match.group(0)}"))
    return sorted(set(found))


def package_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).parent.parts)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_file_uses_another_modules_private_names(path):
    found = violations(path.read_text(), package_of(path))
    assert not found, "\n".join(f"{path.relative_to(ROOT)}:{line} {what}" for line, what in found)


def test_the_check_sees_each_way_in_and_lets_public_names_pass():
    def check(source: str) -> list[str]:
        return [what for _, what in violations(source, "parlour.games.sticks")]

    assert check("from parlour.games.base import _x") == ["imports _x from parlour.games.base"]
    assert check("from .rules import _x") == ["imports _x from parlour.games.sticks.rules"]
    assert check("import parlour.games.base as b\nb._x") == ["reads parlour.games.base._x"]
    assert check("def f():\n    from parlour.games import base\n    return base._x") == ["reads parlour.games.base._x"]
    assert check("import parlour.games.base\nparlour.games.base._x") == ["reads parlour.games.base._x"]
    assert check("from parlour.games import base\nsetattr(base, '_x', 1)") == ["reaches parlour.games.base._x by name"]
    assert check("mp.setattr('parlour.games.base._x', 1)") == ["names parlour.games.base._x"]
    assert check("with mock.patch('parlour.games.base._x'): pass") == ["names parlour.games.base._x"]
    for allowed in (
        "from parlour.games.base import State, __version__",  # public, dunder
        "import parlour.games.base as b\nb.State\nb.__name__",
        "def f(env):\n    return env._state",  # an object's attribute
        "from parlour.games import base\nfor _ in base.State: pass",
        "x = 'parlour.games.base._x'; mp.setattr('parlour.games.base.State', 1)",  # a string, not a reach
        "import parlour._version\nmp.setattr('parlour._version', 1)",  # a private module is a module
        "self._x = 1",
    ):
        assert check(allowed) == [], allowed
