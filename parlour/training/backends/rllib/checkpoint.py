"""RLlib checkpoints that parlour can play and that replace each other safely.

``save_checkpoint`` writes RLlib's own checkpoint (``Algorithm.save_to_path``) into a
new directory beside the target, adds ``parlour.json`` (what ``rllib:`` players check:
the game, its configuration, sizes, module ids), and only then swaps it in: the old
checkpoint is renamed aside and removed after the new one is in place, so a run killed
while saving never leaves a half-written checkpoint under the real name (between the
two renames, the old one waits in a ``.old`` directory beside it).

A training run's own checkpoints (``checkpoints/step_N/model.zip``, see ``run_files``)
hold the same directory as one zip, so that their SHA-256 manifest covers it and a
resume can check it before restoring (``zip_directory``, ``unzip_checkpoint``).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from parlour.baselines.learned.ppo import model_meta
from parlour.baselines.learned.rllib import META_FILE
from parlour.games.base import Game


def save_checkpoint(algo: Any, path: str | os.PathLike, game: Game, modules: Iterable[str],
                    extra: dict[str, Any] | None = None) -> Path:
    """Save ``algo`` (an RLlib ``Algorithm``) to the directory ``path`` (see the module docstring)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        algo.save_to_path(str(fresh))
        meta = {**model_meta(game), "kind": "rllib", "modules": sorted(modules), **(extra or {})}
        (fresh / META_FILE).write_text(json.dumps(meta, default=list, indent=1))
        swap_in(fresh, path)
    finally:
        if fresh.exists():
            shutil.rmtree(fresh, ignore_errors=True)
    return path


def swap_in(fresh: Path, path: Path) -> None:
    """Put the complete directory ``fresh`` at ``path``, replacing what is there."""
    old = None
    try:
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".old", dir=path.parent))
            os.replace(path, old / path.name)
        os.replace(fresh, path)
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def zip_directory(folder: Path, path: Path) -> None:
    """A saved checkpoint directory as the zip ``unzip_checkpoint`` reads (entries under ``checkpoint/``)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(folder.rglob("*")):
            if file.is_file():
                archive.write(file, Path("checkpoint", file.relative_to(folder)).as_posix())


def unzip_checkpoint(path: Path, into: Path) -> Path:
    """The checkpoint directory of a zip written by ``zip_directory``, unpacked in ``into``."""
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            if name.startswith("/") or ".." in Path(name).parts:
                raise ValueError(f"checkpoint archive {str(path)!r} has an unsafe entry {name!r}")
        archive.extractall(into)
    return into / "checkpoint"
