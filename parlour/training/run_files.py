"""The files of a training run directory, written so that a killed run never leaves a
half-written file under a real name, and a resumed run can check what it reads.

Layout of ``runs/NAME/``::

    config.toml          the resolved configuration (``--resume`` reads it)
    checkpoint.json      which checkpoint is the latest, and the SHA-256 of its files
    checkpoints/step_N/  model.zip (weights and optimizer), state.pkl (RNG states,
                         snapshot list) and sha256.json (their SHA-256), one directory
                         per checkpoint, the last two kept
    snapshots/step_N.zip frozen learners for self-play
    evaluations.csv      win rates against the evaluation opponents over training
    gating.csv           (alphazero) each evaluated network's match against the best
    untrained.zip        (alphazero) the step-0 network, what the learning is measured against
    best.zip, last.zip   the best evaluated and the latest model (``ppo:`` players)
    learning_curve.png   win rate against each evaluation opponent over training
    tb/                  TensorBoard logs

Every file is written to a temporary name in the same directory and renamed over the
real one (``os.replace``, atomic on POSIX); a checkpoint directory is complete before
``checkpoint.json`` names it.  A resume checks the SHA-256 of what it reads and, if the
latest checkpoint (or ``checkpoint.json``) is damaged, falls back to the newest intact
one (``read_checkpoint``).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import pickle
import re
import shlex
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parlour.atomic import copy_atomic, write_atomic

__all__ = ["Checkpoint", "DamagedRun", "RunFiles", "copy_atomic", "read_checkpoint", "read_evaluations", "write_atomic",
           "write_checkpoint", "write_csv", "write_evaluations", "write_pointer"]

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
    gating = _Under("gating.csv")
    untrained = _Under("untrained.zip")
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


MANIFEST = "sha256.json"
"""In every checkpoint directory: the SHA-256 of its files, so that any checkpoint (not
only the one ``checkpoint.json`` names) can be checked before a resume uses it."""

CHECKPOINT_FILES = ("model.zip", "state.pkl")
_STEP_DIR = re.compile(r"step_\d{9}")


class DamagedRun(ValueError):
    """A run cannot be resumed: no intact checkpoint (the message names the damaged files
    and the command that starts the run over)."""


class _Damaged(Exception):
    """One damaged file of a checkpoint (the message says which and how)."""


@dataclass(frozen=True)
class Checkpoint:
    """The checkpoint a resume continues from, and the damaged files passed over."""

    step: int
    folder: Path
    state: dict[str, Any]
    damaged: tuple[str, ...] = ()
    """One note per damaged file (or unreadable ``checkpoint.json``) passed over, newest first."""

    @property
    def model(self) -> Path:
        return self.folder / "model.zip"


def write_checkpoint(files: RunFiles, step: int, save_model: Any, state: dict[str, Any], keep: int = 2) -> Path:
    """A complete checkpoint directory for ``step`` (with its SHA-256 manifest), then the
    pointer to it.

    ``save_model(path)`` writes the model zip.  Older checkpoints beyond ``keep`` go.
    """
    files.checkpoints.mkdir(parents=True, exist_ok=True)
    final = files.checkpoint_dir(step)
    work = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=files.checkpoints))
    try:
        save_model(work / "model.zip")
        write_atomic(work / "state.pkl", pickle.dumps(state))
        write_atomic(work / MANIFEST, json.dumps({name: sha256(work / name) for name in CHECKPOINT_FILES}, indent=1))
        if final.exists():
            shutil.rmtree(final)
        os.replace(work, final)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    write_pointer(files, final, step)
    done = sorted(p for p in files.checkpoints.iterdir() if p.is_dir() and _STEP_DIR.fullmatch(p.name))
    for old in done[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def write_pointer(files: RunFiles, folder: Path, step: int) -> None:
    """Make ``checkpoint.json`` name the checkpoint of ``step`` in ``folder`` (with its files' SHA-256)."""
    pointer = {"step": step, "directory": folder.name, "sha256": {name: sha256(folder / name) for name in CHECKPOINT_FILES}}
    write_atomic(files.pointer, json.dumps(pointer, indent=1))


def read_checkpoint(files: RunFiles) -> Checkpoint:
    """The newest intact checkpoint: the one ``checkpoint.json`` names if its files match
    their SHA-256, else the newest other checkpoint directory that checks out (a damaged
    or missing pointer is passed over the same way).  ``Checkpoint.damaged`` says what
    was passed over; ``DamagedRun`` if nothing is intact, ``ValueError`` if the run never
    wrote a checkpoint."""
    root = str(files.root)
    damaged: list[str] = []
    named: Path | None = None
    hashes: dict[str, str] | None = None
    try:
        pointer = json.loads(files.pointer.read_text())
        directory, hashes = pointer["directory"], dict(pointer["sha256"])
        if not isinstance(directory, str) or not _STEP_DIR.fullmatch(directory):
            raise ValueError(f"bad directory {directory!r}")
        named = files.checkpoints / directory
    except FileNotFoundError:
        pass
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        damaged.append(f"{files.pointer} is damaged ({error})")
        hashes = None
    found = sorted((p for p in files.checkpoints.glob("step_*") if p.is_dir() and _STEP_DIR.fullmatch(p.name)), reverse=True)
    candidates = ([named] if named is not None else []) + [p for p in found if p != named]
    if not candidates:
        if damaged:
            raise DamagedRun(f"run {root!r} cannot be resumed: {damaged[0]} and there is no checkpoint directory; {restart_hint(files)}")
        raise ValueError(f"run {root!r} has no checkpoint to resume from (it stopped before the first one); {restart_hint(files)}")
    for folder in candidates:
        try:
            state = _verified_state(folder, hashes if folder == named else None)
        except _Damaged as error:
            damaged.append(str(error))
            continue
        return Checkpoint(int(state["step"]), folder, state, tuple(damaged))
    raise DamagedRun(f"run {root!r} cannot be resumed, no checkpoint is intact: {'; '.join(damaged)}; {restart_hint(files)}")


def restart_hint(files: RunFiles) -> str:
    """What to type to start a run over with its saved settings."""
    root = str(files.root)
    fresh = shlex.quote(f"{root.rstrip('/')}-new")
    settings = shlex.quote(str(files.config))
    return (
        f"start it over with the same settings: parlour train --config {settings} --out {fresh} "
        f"(or --out {shlex.quote(root)} --force, which deletes what is there)"
    )


def _verified_state(folder: Path, hashes: dict[str, str] | None) -> dict[str, Any]:
    """The state of the checkpoint in ``folder``; ``_Damaged`` naming the first bad file.

    The SHA-256 come from ``checkpoint.json`` (``hashes``) or the folder's manifest;
    a folder written before manifests existed gets the zip's own CRC check instead."""
    if hashes is None:
        try:
            hashes = dict(json.loads((folder / MANIFEST).read_text()))
        except FileNotFoundError:
            pass
        except (ValueError, TypeError) as error:
            raise _Damaged(f"{folder / MANIFEST} is damaged ({error})") from None
    for name in CHECKPOINT_FILES:
        path = folder / name
        if not path.is_file():
            raise _Damaged(f"{path} is missing")
        if hashes is not None and sha256(path) != hashes.get(name):
            raise _Damaged(f"{path} is corrupt or truncated (SHA-256 mismatch)")
    if hashes is None:
        try:
            with zipfile.ZipFile(folder / "model.zip") as archive:
                bad = archive.testzip()
        except (zipfile.BadZipFile, OSError, EOFError) as error:
            raise _Damaged(f"{folder / 'model.zip'} is corrupt or truncated ({error})") from None
        if bad is not None:
            raise _Damaged(f"{folder / 'model.zip'} is corrupt (member {bad!r} fails its CRC check)")
    try:
        state = pickle.loads((folder / "state.pkl").read_bytes())
        int(state["step"])
    except Exception as error:
        raise _Damaged(f"{folder / 'state.pkl'} is unreadable ({type(error).__name__}: {error})") from None
    return state


def read_evaluations(files: RunFiles, up_to: int | None = None) -> list[dict[str, Any]]:
    """Rows of evaluations.csv (numbers parsed), only those at or before ``up_to``."""
    if not files.evaluations.exists():
        return []
    rows = []
    with open(files.evaluations, newline="") as stream:
        for row in csv.DictReader(stream):
            parsed: dict[str, Any] = {key: (row[key] if key == "opponent" else float(row[key])) for key in EVAL_FIELDS}
            step = parsed["step"] = int(parsed["step"])
            parsed["games"] = int(parsed["games"])
            if up_to is None or step <= up_to:
                rows.append(parsed)
    return rows


def write_evaluations(files: RunFiles, rows: list[dict[str, Any]]) -> None:
    write_csv(files.evaluations, EVAL_FIELDS, rows)


def write_csv(path: Path, fields: list[str], rows: list[dict[str, Any]]) -> None:
    """``rows`` (their ``fields`` columns) as a CSV file at ``path``, atomically."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fields, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: row[key] for key in fields})
    write_atomic(path, buffer.getvalue())
