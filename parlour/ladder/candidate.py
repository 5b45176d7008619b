"""What ``parlour bench --agent`` accepts, turned into a player spec the arena plays.

Besides every parlour spec (``mcts:simulations=400``, ``ppo:runs/x/best.zip``,
``az:...``, ``rllib:...``), the short forms a user of another library would type:

* ``MODULE:FUNCTION`` or ``path/to/file.py:FUNCTION`` (a Python callable) -> ``python:...``;
* a ``.zip`` file: parlour's own model files (``ppo``/``az``, recognised by their
  metadata) or any other Stable-Baselines3 zip -> ``sb3:...``;
* a ``.pt``/``.pth``/``.ts`` file (TorchScript) or ``.pt2`` (``torch.export``) -> ``torchscript:...``;
* a directory holding an RLlib checkpoint -> ``rllib:...``.

``{game}`` in the text is replaced by the game's name (for ``--all-games``).
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from parlour.baselines.policy import REGISTRY, parse_spec

CALLABLE = re.compile(r"^(?:[A-Za-z_][\w.]*|.+\.py):[A-Za-z_][\w.]*$")
TORCHSCRIPT_SUFFIXES = (".pt", ".pth", ".ts", ".pt2")


def candidate_spec(text: str, game: str) -> str:
    """The arena spec for ``text`` (see the module docstring); ``ValueError`` if it is none of them."""
    text = text.replace("{game}", game).strip()
    if not text:
        raise ValueError("--agent is empty; give a player spec, a model file or MODULE:FUNCTION")
    name, _ = parse_spec(text) if ":" in text else (text, {})
    if name in REGISTRY:
        return text
    path = Path(text)
    if path.suffix == ".zip" and path.is_file():
        return f"{_zip_kind(path)}:{text}"
    if path.suffix in TORCHSCRIPT_SUFFIXES and path.is_file():
        return f"torchscript:{text}"
    if path.is_dir():
        return f"rllib:{text}"
    if CALLABLE.match(text):
        return f"python:{text}"
    raise ValueError(
        f"--agent {text!r} is not a player spec ({', '.join(sorted(REGISTRY))}), an existing model file "
        f"(.zip, {', '.join(TORCHSCRIPT_SUFFIXES)}), a checkpoint directory, or MODULE:FUNCTION"
    )


def _zip_kind(path: Path) -> str:
    """``ppo`` or ``az`` for parlour's model files, ``sb3`` for any other SB3 zip."""
    from parlour.baselines.learned.ppo import META_ENTRY, read_model_meta

    try:
        with zipfile.ZipFile(path) as archive:
            ours = META_ENTRY in archive.namelist()
    except zipfile.BadZipFile:
        raise ValueError(f"model file {str(path)!r} is not a zip file") from None
    if not ours:
        return "sb3"
    return "az" if read_model_meta(path).get("kind") == "alphazero" else "ppo"
