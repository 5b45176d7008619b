"""Every game is one package in one template (docs/architecture.md, "Where do I add a
game?"): the same five files, one registration, and arrows that point one way inside
the package (the encoders and the notation read the game's data, never its State;
the engine reads numpy and its own game's modules)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from source_reading import imported_from, is_source_module

import parlour.games
from parlour.games import ENTRIES, GAME_PACKAGES
from parlour.games.entry import PACKAGE_FILES

GAMES_DIR = Path(parlour.games.__file__).parent
SHARED = ("parlour.errors", "parlour.games.base", "parlour.games.bitmask", "parlour.games.engine", "parlour.games.entry")
"""What every game package may import from outside itself."""


def imported_modules(path: Path, root: Path = GAMES_DIR.parents[1]) -> set[str]:
    """The modules ``path`` (a file under ``root``, the folder holding ``parlour/``)
    imports, by every import statement at any depth, relative imports resolved; a name
    imported from a package counts as that module where the package has one so named."""
    package = ".".join(path.relative_to(root).parent.parts)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = imported_from(node, package)
            for alias in node.names:
                name = f"{base}.{alias.name}"
                found.add(name if is_source_module(name, root) else base)
    return found


def parlour_imports(path: Path) -> set[str]:
    return {name for name in imported_modules(path) if name.split(".")[0] == "parlour"}


def other_imports(path: Path) -> set[str]:
    """The top-level packages other than numpy, parlour and the standard library."""
    top = {name.split(".")[0] for name in imported_modules(path)}
    return {name for name in top if name not in ("numpy", "parlour") and name not in sys.stdlib_module_names}


@pytest.mark.parametrize("game", GAME_PACKAGES)
def test_every_game_package_has_the_template_files_and_one_registration(game):
    folder = GAMES_DIR / game
    missing = [name for name in PACKAGE_FILES if not (folder / name).is_file()]
    assert not missing, f"parlour/games/{game}/ lacks {missing}"
    package = sys.modules[f"parlour.games.{game}"]
    assert package.ENTRY is ENTRIES[package.ENTRY.name]
    assert package.ENTRY.engine.__module__ == f"parlour.games.{game}.engine"
    assert package.ENTRY.game.__module__ == f"parlour.games.{game}.rules"


@pytest.mark.parametrize("game", GAME_PACKAGES)
@pytest.mark.parametrize("part", ["observation.py", "notation.py"])
def test_the_encoders_and_the_notation_do_not_import_the_rules(game, part):
    own = f"parlour.games.{game}"
    imported = parlour_imports(GAMES_DIR / game / part)
    back = sorted(name for name in imported if name in (f"{own}.rules", f"{own}.engine", own))
    assert not back, f"{own}.{part[:-3]} imports {back}: it should take the game's data"


@pytest.mark.parametrize("path", sorted(GAMES_DIR.glob("*/*.py")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_game_package_imports_numpy_its_own_modules_and_the_shared_ones_only(path):
    own = f"parlour.games.{path.parent.name}"
    imported = parlour_imports(path)
    foreign = sorted(name for name in imported if not name.startswith(own) and name not in SHARED)
    assert not foreign, f"{own}/{path.name} imports {foreign}"
    assert not other_imports(path), f"{own}/{path.name} imports {sorted(other_imports(path))}"


def test_the_import_reader_resolves_relative_and_package_imports(tmp_path):
    folder = tmp_path / "parlour" / "games" / "sticks"
    folder.mkdir(parents=True)
    module = folder / "observation.py"
    module.write_text("from . import rules\nfrom .notation import parse\nimport parlour.games.goofspiel\ndef f():\n    import torch\n")
    (folder / "rules.py").write_text("")
    assert imported_modules(module, tmp_path) == {"parlour.games.sticks.rules", "parlour.games.sticks.notation",
                                                  "parlour.games.goofspiel", "torch"}
