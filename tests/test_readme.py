"""The README's Python examples run as written."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, capsys):
    exec(compile(BLOCKS[index], f"README.md example {index}", "exec"), {"__name__": "__readme__"})
    assert capsys.readouterr().out  # every example prints its result


def test_readme_names_the_two_commands():
    text = README.read_text()
    assert 'pip install -e ".[train]" && parlour train' in text
    assert 'pip install -e ".[dev,train]" && pytest -n 2' in text
    ci = (README.parent / ".ci" / "run").read_text()
    assert 'pip install -e ".[dev,train]" && pytest -n 2' in ci
