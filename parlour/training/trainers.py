"""Which trainer a run uses: ``open_trainer`` picks the SB3 ``Trainer``
(:mod:`parlour.training.train`), the search-guided ``AlphaZeroTrainer``
(:mod:`parlour.training.alphazero`) or Ray RLlib's ``RLlibTrainer``
(:mod:`parlour.training.rllib.trainer`) from the config or the run being resumed.  A
module of its own so that the trainers, which build on ``Trainer``, and the one place
that chooses among them do not import each other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from parlour.training.config import TrainConfig
from parlour.training.run_files import RunFiles
from parlour.training.train import Trainer


def open_trainer(config: TrainConfig | None, out: str | Path, resume: bool = False, **kwargs: Any) -> Trainer:
    """The trainer of the run's algorithm and backend (``config.algo`` and ``config.backend``,
    or for ``resume`` the saved config's), constructed with the same arguments as ``Trainer``."""
    algo, backend = (config.algo, config.backend) if config is not None else (None, None)
    if resume:
        from parlour.training.config import load_config

        try:
            saved = load_config(RunFiles(Path(out)).config)
            algo, backend = saved.get("algo", "ppo"), saved.get("backend", "sb3")
        except ValueError:
            algo, backend = "ppo", "sb3"  # Trainer reports the bad file
    if algo == "alphazero":
        from parlour.training.alphazero import AlphaZeroTrainer

        return AlphaZeroTrainer(config, out, resume=resume, **kwargs)
    if backend == "rllib":
        from parlour.training.rllib.trainer import RLlibTrainer

        return RLlibTrainer(config, out, resume=resume, **kwargs)
    return Trainer(config, out, resume=resume, **kwargs)
