"""The files of a training run directory, written so that a killed run never leaves a
half-written file under a real name, and a resumed run can check what it reads.

Layout of ``runs/NAME/``::

    config.toml          the resolved configuration (``--resume`` reads it)
    checkpoint.json      which checkpoint is the latest, and the SHA-256 of its files
    checkpoints/step_N/  model.zip (weights and optimizer) and state.pkl (RNG states,
                         snapshot list), one directory per checkpoint, the last two kept
    snapshots/step_N.zip frozen learners for self-play
    evaluations.csv      win rates against the evaluation opponents over training
    best.zip, last.zip   the best evaluated and the latest model (``ppo:`` players)
    learning_curve.png   win rate against each evaluation opponent over training
    tb/                  TensorBoard logs

Every file is written to a temporary name in the same directory and renamed over the
real one (``os.replace``, atomic on POSIX); a checkpoint directory is complete before
``checkpoint.json`` names it.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import pickle
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parlour.atomic import copy_atomic, write_atomic

__all__ = ["RunFiles", "copy_atomic", "read_checkpoint", "read_evaluations", "write_atomic", "write_checkpoint", "write_evaluations"]

EVAL_FIELDS = ["step", "opponent", "games", "win_rate", "win_low", "win_high", "draw_rate", "score", "mean_return"]


class _Under:
    """A file or folder of the run directory, by name (``RunFiles().best`` is a ``Path``)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, files: RunFiles | None, owner: type | None = None) -> Any:
        return self if files is None else files.root / self.name


@dataclass(frozen=True)
class RunFiles:
    """Where everything of a run lives, below ``root``."""

    root: Path

    config = _Under("config.toml")
    pointer = _Under("checkpoint.json")
    checkpoints = _Under("checkpoints")
    snapshots = _Under("snapshots")
    evaluations = _Under("evaluations.csv")
    best = _Under("best.zip")
    last = _Under("last.zip")
    curve = _Under("learning_curve.png")
    tensorboard = _Under("tb")

    def snapshot(self, step: int) -> Path:
        return self.snapshots / f"step_{step:09d}.zip"

    def checkpoint_dir(self, step: int) -> Path:
        return self.checkpoints / f"step_{step:09d}"


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_checkpoint(files: RunFiles, step: int, save_model: Any, state: dict[str, Any], keep: int = 2) -> Path:
    """A complete checkpoint directory for ``step``, then the pointer to it.

    ``save_model(path)`` writes the model zip.  Older checkpoints beyond ``keep`` go.
    """
    files.checkpoints.mkdir(parents=True, exist_ok=True)
    final = files.checkpoint_dir(step)
    work = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=files.checkpoints))
    try:
        save_model(work / "model.zip")
        write_atomic(work / "state.pkl", pickle.dumps(state))
        if final.exists():
            shutil.rmtree(final)
        os.replace(work, final)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    pointer = {
        "step": step,
        "directory": final.name,
        "sha256": {name: sha256(final / name) for name in ("model.zip", "state.pkl")},
    }
    write_atomic(files.pointer, json.dumps(pointer, indent=1))
    done = sorted(p for p in files.checkpoints.iterdir() if p.is_dir() and p.name.startswith("step_"))
    for old in done[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def read_checkpoint(files: RunFiles) -> tuple[int, Path, dict[str, Any]]:
    """The latest checkpoint: step, model path, state.  ``ValueError`` if damaged."""
    where = str(files.root)
    try:
        pointer = json.loads(files.pointer.read_text())
        step, directory, hashes = int(pointer["step"]), pointer["directory"], pointer["sha256"]
    except FileNotFoundError:
        raise ValueError(f"run {where!r} has no checkpoint to resume from (no checkpoint.json)") from None
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"run {where!r}: checkpoint.json is corrupt ({error})") from None
    folder = files.checkpoints / directory
    for name, expected in hashes.items():
        path = folder / name
        if not path.is_file():
            raise ValueError(f"run {where!r}: checkpoint file {str(path)!r} is missing")
        if sha256(path) != expected:
            raise ValueError(f"run {where!r}: checkpoint file {str(path)!r} is corrupt or truncated (SHA-256 mismatch)")
    try:
        state = pickle.loads((folder / "state.pkl").read_bytes())
    except Exception as error:
        raise ValueError(f"run {where!r}: checkpoint state is unreadable ({error})") from None
    return step, folder / "model.zip", state


def read_evaluations(files: RunFiles, up_to: int | None = None) -> list[dict[str, Any]]:
    """Rows of evaluations.csv (numbers parsed), only those at or before ``up_to``."""
    if not files.evaluations.exists():
        return []
    rows = []
    with open(files.evaluations, newline="") as stream:
        for row in csv.DictReader(stream):
            parsed = {key: (row[key] if key == "opponent" else float(row[key])) for key in EVAL_FIELDS}
            parsed["step"] = int(parsed["step"])
            parsed["games"] = int(parsed["games"])
            if up_to is None or parsed["step"] <= up_to:
                rows.append(parsed)
    return rows


def write_evaluations(files: RunFiles, rows: list[dict[str, Any]]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, EVAL_FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: row[key] for key in EVAL_FIELDS})
    write_atomic(files.evaluations, buffer.getvalue())
