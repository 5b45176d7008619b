"""What a training backend provides: the hooks the one loop (``trainer.Trainer``) calls.

A backend owns its model and everything that trains it (an SB3 algorithm and its
vectorized envs, a network with its optimizer and replay buffer, a Ray RLlib
algorithm); the loop owns the run: the directory and its lock, the segments, the
evaluations, which model is best, the checkpoints and their resumption, the progress
bar and the learning curve.  To add a backend, subclass :class:`Backend` in a module of
its own, declare what it trains and where (``algo``, ``runs_on``) and its settings (one
``BackendSettings`` dataclass, ``Settings``), fill in the hooks marked *required*, and
register the class (``parlour.training.registry.register``; the built-in ones are named
in ``registry.BUILT_IN``).  A backend sees the run through a :class:`RunContext`, not
the trainer.

The loop's order of calls::

    require_extra()                         # the class's: its libraries are installed
    open(run)      # the backend of a run (a RunContext), before anything is written
    check_settings()
    start()  or  restore(checkpoint)
    then at step 0 (a new run) and after every train():
        save_candidate(path, step) -> candidate_agent(candidate) -> (rated by the loop)
        earns_best(..., best) -> keep_best(candidate)?   record(scalars, step)
        state() -> store_model(candidate, checkpoint/model.zip)
    train(step, until, advance) -> step     # repeatedly, until the run's total
    close()                                 # always, also after an error
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from parlour.atomic import copy_atomic
from parlour.training.backend_settings import BackendSettings, NoSettings

if TYPE_CHECKING:
    from parlour.games.base import Game
    from parlour.training.run_files import Checkpoint, RunFiles

LOCAL = "local"
"""Where a backend runs on this machine's processes (the trainer's and its workers'),
against a Ray cluster's (``rllib``, ``ray``)."""


class RunConfig(Protocol):
    """What a backend reads of its run's configuration: the settings of
    :class:`parlour.training.config.TrainConfig`, which provides them: what every backend
    may read, and its own settings in its table (``config.ppo["n_envs"]``).  Named here
    rather than imported because the configuration reads the registry of backends (their
    settings tables), which imports every backend."""

    @property
    def game(self) -> str: ...
    @property
    def algo(self) -> str: ...
    @property
    def backend(self) -> str: ...
    @property
    def game_options(self) -> dict[str, Any]: ...
    @property
    def opponents(self) -> list[str]: ...
    @property
    def opponent_weights(self) -> list[float] | None: ...
    @property
    def seat(self) -> int | str: ...
    @property
    def seed(self) -> int: ...
    @property
    def eval_every(self) -> int: ...
    @property
    def tables(self) -> dict[str, dict[str, Any]]: ...

    def to_dict(self) -> dict[str, Any]: ...
    def __getattr__(self, table: str) -> Any:
        """A backend's settings table by its name (``config.alphazero``)."""


@dataclass(frozen=True)
class RunContext:
    """What a backend reads of its run: the resolved ``config``, the run directory's
    ``files``, the ``game`` (with its options), the policy ``network`` (``mlp`` or ``cnn``)
    and torch ``device`` chosen for it, and ``log`` for its progress lines."""

    config: RunConfig
    files: RunFiles
    game: Game
    network: str
    device: str
    log: Callable[[str], None]


@dataclass(frozen=True)
class BestSoFar:
    """The run's best model so far when a candidate is judged: its ``step`` and the best
    mean evaluation ``score`` of the run (``-inf`` before the first)."""

    step: int
    score: float


class Backend:
    """The base of every backend: its declaration and defaults for the optional hooks."""

    # -- the declaration (read by parlour.training.registry) -----------------------------

    algo: ClassVar[str]
    """What it trains: the run's ``algo`` (``ppo``, ``alphazero``, ...)."""

    runs_on: ClassVar[tuple[str, ...]] = (LOCAL,)
    """Where it runs: the run's ``backend`` values it serves (``local``, ``rllib``, ``ray``)."""

    Settings: ClassVar[type[BackendSettings]] = NoSettings
    """Its settings: the fields of its table in the configuration."""

    table: ClassVar[str | None] = None
    """The name of that table (``None``: the ``algo``'s)."""

    summary: ClassVar[str] = ""
    """One line for ``parlour train --help``."""

    address: ClassVar[str | None] = None
    """The setting of its table that names a Ray cluster when it runs off this machine
    (what ``--address`` sets), if any."""

    opponents: ClassVar[tuple[str, ...]] = ("self",)
    """The special opponent names it understands besides policy specs (``self``: its own
    snapshots; RLlib's ``league``)."""

    learns_against_opponents: ClassVar[bool] = False
    """Whether it plays ``opponents`` (else it learns by self-play only)."""

    uses_device: ClassVar[bool] = True
    """Whether ``device`` places its network (RLlib places its learners itself)."""

    batched_engine: ClassVar[bool] = False
    """Whether it trains on a game's batched engine (``vec_env = "batched"``)."""

    @classmethod
    def table_name(cls) -> str:
        return cls.table or cls.algo

    keeps_last = True
    """Whether the run keeps its latest model as last.zip (a copy of the checkpoint's)."""

    eval_workers = 1
    """Processes the evaluations play in."""

    eval_opening = 0
    """Random plies that open every evaluation game (deterministic searchers would
    otherwise replay one game per seat against a deterministic opponent)."""

    def __init__(self, run: RunContext) -> None:
        self.run = run
        self.config = run.config
        self.files = run.files
        self.writer: Any = None
        """The backend's TensorBoard writer (``open_writer``), if it keeps one."""

    @classmethod
    def open(cls, run: RunContext) -> Backend:
        """The backend of ``run`` (nothing of the run is written yet)."""
        return cls(run)

    @property
    def game(self) -> Any:
        return self.run.game

    # -- before anything is written ----------------------------------------------------

    @classmethod
    def require_extra(cls) -> None:
        """An ``ImportError`` naming the extra to install if the backend's libraries are missing."""

    def check_settings(self) -> None:
        """The backend's own checks of the configuration (a ``ValueError`` says what is wrong)."""

    def round_steps(self, steps: int) -> int:
        """The steps a run or segment of ``steps`` really trains (PPO: whole rollouts)."""
        return steps

    # -- the model (required) ----------------------------------------------------------

    def start(self) -> None:
        """Build a fresh model for a new run (its directory and config.toml exist)."""
        raise NotImplementedError

    def restore(self, checkpoint: Checkpoint) -> None:
        """Rebuild the model and the training state saved in ``checkpoint``."""
        raise NotImplementedError

    def train(self, step: int, until: int, advance: Callable[[int], None]) -> int:
        """Train from ``step`` until at least ``until`` steps, calling ``advance(n)`` as
        ``n`` steps are done; the step reached."""
        raise NotImplementedError

    def save_candidate(self, path: Path, step: int) -> Path:
        """Write the current model (of ``step``) at ``path`` (a suffix may be added); the path written."""
        raise NotImplementedError

    def candidate_agent(self, candidate: Path) -> Any:
        """A policy playing the model in ``candidate``, as evaluations rate it."""
        raise NotImplementedError

    def state(self) -> dict[str, Any]:
        """What a checkpoint saves besides the model (picklable): what ``restore`` needs."""
        raise NotImplementedError

    # -- optional ----------------------------------------------------------------------

    def store_model(self, candidate: Path, path: Path) -> None:
        """The checkpoint's ``model.zip`` from the rated ``candidate`` (default: a copy)."""
        copy_atomic(candidate, path)

    def earns_best(self, agent: Any, candidate: Path, step: int, score: float, best: BestSoFar) -> bool:
        """Whether the rated candidate (mean evaluation ``score``) becomes best: by default
        when it scores above every earlier evaluation of the run."""
        return score > best.score

    def keep_best(self, candidate: Path) -> None:
        """Make the rated ``candidate`` the run's best model."""
        copy_atomic(candidate, self.files.best)

    @property
    def best_path(self) -> Path:
        """The run's best model, as :meth:`learner_spec` plays it."""
        return self.files.best

    def learner_spec(self, path: str) -> str:
        """The player spec that plays a model of this backend at ``path``, as the final arena
        and a gating match play it (``ppo:PATH``, ``az:PATH,simulations=...``); required of a
        backend whose runs end with an arena (``--final-games``) or a gating match."""
        raise NotImplementedError(f"backend {type(self).__name__} does not say how its models are played (learner_spec)")

    def untrained_best_warning(self) -> str:
        """What the result says when no trained model ever beat the step-0 one."""
        return (f"{self.best_path.name} is the UNTRAINED step-0 model: no later evaluation scored above it "
                "(see evaluations.csv); the learning did not show at this budget")

    def open_writer(self, name: str) -> Any:
        """A TensorBoard writer into the run's ``tb/name`` (closed by :meth:`close`)."""
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(str(self.files.tensorboard / name))
        return self.writer

    def record(self, scalars: dict[str, float], step: int) -> None:
        """TensorBoard scalars of the loop's (the evaluations' win rates): into the
        backend's writer if it has one."""
        if self.writer is not None:
            for key, value in scalars.items():
                self.writer.add_scalar(key, value, step)

    def close(self) -> None:
        """Release what the backend holds (worker processes, Ray, environments); a
        subclass that holds more closes it and calls this."""
        if self.writer is not None:
            self.writer.close()
            self.writer = None
