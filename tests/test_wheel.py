"""The built wheel installs and plays: what a user who runs ``pip install parlour`` gets.

The rest of the suite runs on the editable install of this checkout, which sees every
file of the tree; a wheel holds only what ``pyproject.toml`` ships (packages, package
data: the zoo's cards and models, the ladders' calibrations, the web page).  This test
builds the wheel, installs it (not editable, core dependencies only) into a fresh
virtual environment, and plays one zoo match from a directory outside the checkout, so
a module or data file left out of the wheel fails here and not on a user's machine.
"""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(command: list[str], cwd: Path) -> str:
    """Run ``command``; its output, or a failure that shows it."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"{' '.join(command)} exited with {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_wheel_installs_in_a_fresh_venv_and_plays_a_zoo_match(tmp_path: Path) -> None:
    run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--quiet", "--wheel-dir", str(tmp_path / "dist")], tmp_path)
    wheels = list((tmp_path / "dist").glob("parlour-*.whl"))
    assert len(wheels) == 1, wheels

    venv.create(tmp_path / "venv", with_pip=True)
    bin_dir = tmp_path / "venv" / "bin"
    run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", str(wheels[0])], tmp_path)

    where = run([str(bin_dir / "python"), "-c", "import parlour; print(parlour.__file__)"], tmp_path)
    assert str(tmp_path / "venv") in where, f"parlour imported from {where.strip()}, not from the installed wheel"

    table = run([str(bin_dir / "parlour"), "arena", "--game", "double_card", "--agents", "zoo:double_card", "random",
                 "--games", "2", "--quiet", "--no-plot"], tmp_path)
    assert "| zoo:double_card |" in table and "| random |" in table, table
