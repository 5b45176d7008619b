"""What the source checks share (``test_package_template``, ``test_private_names``):
where a ``from ... import`` statement imports from, and whether a dotted name is a
module of a source tree.

Importable from any test file as ``source_reading`` (pytest's ``pythonpath`` holds
``tests/``).
"""

from __future__ import annotations

import ast
from pathlib import Path


def imported_from(node: ast.ImportFrom, package: str) -> str:
    """The module ``node`` imports from, a relative import resolved against ``package``
    (the dotted package of the file that holds it)."""
    base = node.module or ""
    if not node.level:
        return base
    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join([*parts, base] if base else parts)


def is_source_module(name: str, root: Path) -> bool:
    """Whether the dotted ``name`` is a module or package file under ``root``."""
    path = root.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()
