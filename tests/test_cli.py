"""The ``parlour`` command line."""

import subprocess
import sys

import pytest

import parlour
from parlour.cli import main


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"parlour {parlour.__version__}"


def test_list_shows_games_and_options(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for text in ["goofspiel: parlour/goofspiel-v0", "sticks: parlour/sticks-v0", "tie_rule='carry'", "max_take=3", "reset option 'prizes'"]:
        assert text in out


def test_demo_plays_every_game(capsys):
    assert main(["demo", "--games", "5", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "goofspiel" in out and "sticks" in out
    assert main(["demo", "--games", "5", "--seed", "3"]) == 0
    again = capsys.readouterr().out
    strip = lambda text: [line.rsplit(maxsplit=1)[0] for line in text.splitlines()[3:] if line]  # noqa: E731
    assert strip(out) == strip(again)  # same seed, same games (games/s aside)


def test_bad_arguments(capsys):
    with pytest.raises(SystemExit) as info:
        main(["demo", "--games", "0"])
    assert info.value.code == 2
    assert "--games must be at least 1, got 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["frobnicate"])


def test_console_script_entry_point():
    result = subprocess.run([sys.executable, "-m", "parlour.cli", "--version"], capture_output=True, text=True, check=True)
    assert parlour.__version__ in result.stdout
