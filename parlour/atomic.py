"""Atomic file writes: a temporary file in the same directory, then ``os.replace``.

A process killed while writing never leaves a half-written file under the real name,
and nothing a user saved is replaced by a partial copy.  Used by model files
(``parlour.baselines.learned.ppo``) and training runs (``parlour.training.run_files``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def public_mode(path: str | os.PathLike) -> None:
    """``mkstemp`` makes owner-only files; give them the usual mode (0666 & ~umask)."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(path, 0o666 & ~mask)


def replace_atomic(target: Path, write: Callable[[str], Any], suffix: str = ".tmp") -> None:
    """Call ``write(tmp)`` on a temporary name beside ``target`` (what it returns is ignored),
    then rename it over ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix, dir=target.parent)
    os.close(handle)
    try:
        write(tmp)
        with open(tmp, "rb") as stream:
            os.fsync(stream.fileno())
        public_mode(tmp)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` atomically."""
    payload = data.encode() if isinstance(data, str) else data
    replace_atomic(path, lambda tmp: Path(tmp).write_bytes(payload))


def copy_atomic(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` atomically."""
    replace_atomic(target, lambda tmp: shutil.copyfile(source, tmp))
