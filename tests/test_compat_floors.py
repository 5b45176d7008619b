"""What pyproject.toml promises is what .ci/compat tests: its lowest job pins every core
dependency at the floor pyproject declares, on the lowest Python of ``requires-python``
(which is mypy's ``python_version`` and ruff's target too), and the README states the same
range.  Raise a floor in one place only and this fails, naming both."""

from __future__ import annotations

import re
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from parlour import toml_read

ROOT = Path(__file__).resolve().parents[1]
PROJECT = toml_read.loads((ROOT / "pyproject.toml").read_text())
SCRIPT = (ROOT / ".ci" / "compat").read_text()


def script_setting(name: str) -> str:
    """The value of ``NAME=value`` (or ``NAME="value"``) in .ci/compat."""
    found = re.search(rf'^{name}="?([^"\n]*)"?$', SCRIPT, re.MULTILINE)
    assert found, f".ci/compat sets no {name}"
    return found.group(1)


def floors(python: str) -> dict[str, str]:
    """Each core dependency that applies on ``python`` (markers evaluated there) and the
    version of its ``>=`` floor, as pyproject.toml writes it."""
    out = {}
    for text in PROJECT["project"]["dependencies"]:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate({"python_version": python,
                                                                             "python_full_version": f"{python}.0"}):
            continue
        lows = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        assert len(lows) == 1, f"core dependency {text!r} needs one >= floor for .ci/compat to pin"
        out[canonicalize_name(requirement.name)] = lows[0]
    return out


def test_the_lowest_job_pins_each_core_dependency_at_its_floor() -> None:
    python = script_setting("LOWEST_PYTHON")
    pins = dict(pin.split("==") for pin in script_setting("LOWEST_PINS").split())
    pinned = {canonicalize_name(name): Version(version) for name, version in pins.items()}
    declared = {name: Version(version) for name, version in floors(python).items()}
    assert pinned == declared, f"pyproject.toml's floors on Python {python} are {declared}, .ci/compat pins {pinned}"


def test_the_lowest_python_is_the_one_every_tool_targets() -> None:
    python = script_setting("LOWEST_PYTHON")
    assert PROJECT["project"]["requires-python"] == f">={python}"
    assert PROJECT["tool"]["mypy"]["python_version"] == python
    assert PROJECT["tool"]["ruff"]["target-version"] == "py" + python.replace(".", "")


def test_the_readme_states_the_tested_range() -> None:
    readme = (ROOT / "README.md").read_text()
    lowest, newest = script_setting("LOWEST_PYTHON"), script_setting("NEWEST_PYTHON")
    assert f"Python {lowest} to {newest}" in readme
    unconditional = [Requirement(text) for text in PROJECT["project"]["dependencies"] if Requirement(text).marker is None]
    for requirement in unconditional:
        assert f"{requirement.name} >= {floors(lowest)[canonicalize_name(requirement.name)]}" in readme, requirement
