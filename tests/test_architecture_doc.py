"""docs/architecture.md is a map a newcomer trusts: the files its folder table names are
where it says, and its lists of the files to write for a new game, training backend and
batched player are the ones the code asks for.

``tests/test_docs.py`` already checks the full paths (``parlour/x/y.py``) of every doc;
a table row names most files by their bare name inside the row's folder, so this test
reads the rows: a name that moved away (``parlour/vector/base.py``) fails it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from parlour.games import GAME_PACKAGES
from parlour.games.entry import PACKAGE_FILES

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
TEXT = DOC.read_text()

ROW = re.compile(r"^\| `(?P<folder>[\w./]+)` \| (?P<what>.*) \|$", re.M)
FILE_NAME = re.compile(r"`(?P<name>[\w/]+\.(?:py|json|npz|md|html|js|css)|[\w]+/)`")


def table_rows() -> list[tuple[str, str]]:
    return [(m["folder"], m["what"]) for m in ROW.finditer(TEXT)]


def named_files(what: str) -> list[str]:
    return [m["name"] for m in FILE_NAME.finditer(what)]


def found_below(folder: Path, name: str) -> bool:
    """``name`` is ``folder/name`` or lies somewhere below ``folder`` (a row may name a
    file of a subfolder it mentions, ``backends/``' ``ppo.py``); a full path from the
    root counts as itself."""
    if name.startswith(("parlour/", "tests/", "benchmarks/", "scripts/", "docs/")):
        return (ROOT / name).exists()
    if (folder / name).exists():
        return True
    return folder.is_dir() and any(folder.rglob(name.rstrip("/")))


def test_the_folder_table_has_rows():
    folders = [folder for folder, _ in table_rows()]
    assert "parlour/games/" in folders and "parlour/training/" in folders, folders


@pytest.mark.parametrize("folder,what", table_rows(), ids=[folder for folder, _ in table_rows()])
def test_every_file_a_folder_row_names_is_there(folder, what):
    base = ROOT / folder
    assert base.exists(), f"docs/architecture.md names {folder}, which does not exist"
    if base.is_file():
        return
    missing = [name for name in named_files(what) if not found_below(base, name)]
    assert not missing, f"docs/architecture.md's row {folder} names {missing}, not found under {folder}"


def test_a_moved_file_fails_the_row_check(tmp_path):
    (tmp_path / "vector").mkdir()
    (tmp_path / "vector" / "gym_env.py").write_text("")
    assert found_below(tmp_path / "vector", "gym_env.py")
    assert not found_below(tmp_path / "vector", "base.py")
    assert named_files("`gym_env.py` (Gymnasium), `static/` and `picture(state)`") == ["gym_env.py", "static/"]


def files_to_write(heading: str) -> list[str]:
    """The paths listed (``- `path`: ...``) under ``### <heading>`` of "Files to write"."""
    start = TEXT.index(f"\n### {heading}\n")
    following = re.search(r"\n##+ ", TEXT[start + 1 :])
    section = TEXT[start : start + 1 + following.start()] if following else TEXT[start:]
    return re.findall(r"^- `([^`]+)`", section, re.M)


def test_the_files_of_a_new_game_are_the_template_and_what_every_game_has():
    listed = files_to_write("A new game")
    package = sorted(path.removeprefix("parlour/games/<game>/") for path in listed if path.startswith("parlour/games/<game>/"))
    assert package == sorted(PACKAGE_FILES), f"docs/architecture.md lists {package} in a game package, the template is {PACKAGE_FILES}"
    for game in GAME_PACKAGES:
        missing = [path for path in listed if not (ROOT / path.replace("<game>", game)).is_file()]
        assert not missing, f"{game} has no {missing}, which docs/architecture.md says a game has"
    for above in ("parlour/envs/<game>_v0.py", "parlour/render/<game>.py", "parlour/baselines/players/<game>.py"):
        assert above in listed, f"docs/architecture.md's list of a new game's files lacks {above}"


def test_batched_players_live_where_the_list_says():
    from parlour.baselines.batched import EVERY_GAME, registered_forms

    listed = files_to_write("A new batched player")
    assert listed[0] == "parlour/baselines/players/<game>_batched.py", listed
    forms = registered_forms()
    assert {game for game, _ in forms} - {EVERY_GAME}, "no game registers a batched form"
    assert "`parlour/baselines/learned/<player>_batched.py`" in TEXT  # or a learned player's form, beside that player
    for (game, name), factory in forms.items():
        module = "parlour.baselines.batched" if game == EVERY_GAME else f"parlour.baselines.players.{game}_batched"
        beside = re.fullmatch(r"parlour\.baselines\.learned\.\w+_batched", factory.__module__)  # a learned player's
        assert factory.__module__ == module or beside, f"the batched {name!r} of {game} is registered in {factory.__module__}, not {module}"
    assert all((ROOT / path).exists() for path in listed if "<game>" not in path), listed


def test_training_backends_live_where_the_list_says():
    import inspect

    from parlour.training.backend import Backend
    from parlour.training.registry import BUILT_IN

    listed = files_to_write("A new training backend")
    assert listed[0] == "parlour/training/backends/<name>.py", listed
    backends = ROOT / "parlour" / "training" / "backends"
    for target in BUILT_IN:
        module = target.partition(":")[0].split(".")
        name = module[3]
        assert module[:3] == ["parlour", "training", "backends"], target
        if module[4:] == []:
            assert (backends / f"{name}.py").is_file(), target
        else:
            assert module[4:] == ["backend"], f"{target}: a backend's folder holds its class in backend.py"
            others = [p.name for p in (backends / name).glob("*.py") if p.name not in ("__init__.py", "backend.py")]
            assert others, f"{target}: a folder for a backend of one module (make it backends/{name}.py)"
    required = sorted(name for name, member in vars(Backend).items()
                      if inspect.isfunction(member) and "raise NotImplementedError" in inspect.getsource(member))
    section = TEXT[TEXT.index("### A new training backend"):TEXT.index("### A new batched player")]
    hooks = section[section.index("required hooks"):section.index("optional ones")]
    named = sorted(re.findall(r"`(\w+)`", hooks))
    assert named == required, f"docs/architecture.md names the required hooks {named}, Backend requires {required}"
    assert all((ROOT / path).exists() for path in listed if "<name>" not in path), listed
