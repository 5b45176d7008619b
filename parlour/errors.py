"""Errors raised by parlour, shared by every layer."""

from __future__ import annotations

import warnings
from collections.abc import Iterable

ILLEGAL_MODES = ("terminate", "raise")
"""What every env does with an action inside the action space that the rules forbid:
``"terminate"`` ends the game (the offender gets -1, the others 0, and the infos say so),
``"raise"`` raises :class:`IllegalActionError` and changes nothing.  The one vocabulary
of the PettingZoo envs, the Gymnasium and vector learner views and RLlib's env."""


def illegal_mode(value: object) -> str:
    """``value`` checked against :data:`ILLEGAL_MODES`; ``"lose"``, the learner views'
    old word for ``"terminate"``, still works with a ``DeprecationWarning``."""
    if value == "lose":
        warnings.warn('illegal_action="lose" is now called "terminate"', DeprecationWarning, stacklevel=3)
        return "terminate"
    if value not in ILLEGAL_MODES:
        raise ValueError(f"illegal_action must be one of {list(ILLEGAL_MODES)}, got {value!r}")
    return str(value)


class IllegalActionError(ValueError):
    """An action that the rules do not allow at this point of the game.

    Raised by the rules layer and by ``raw_env``; the state is left unchanged.
    It is a ``ValueError`` so callers that already catch bad values keep working.
    The offending ``action``, the ``player`` (seat index, or ``None`` when no seat
    is involved) and the ``legal`` actions are kept as attributes.
    """

    def __init__(
        self,
        message: str,
        *,
        action: object = None,
        player: int | None = None,
        legal: Iterable[int] | None = None,
    ) -> None:
        self.action = action
        self.player = player
        self.legal = None if legal is None else list(legal)
        if self.legal is not None:
            message = f"{message}; legal actions are {self.legal}"
        super().__init__(message)


class EndlessGame(RuntimeError):
    """A game not over after its step limit (``max_game_length`` unless the loop was given
    another): its rules, or its players, do not end it.  Every loop that plays games on
    raises it rather than loop for ever: ``parlour.baselines.playout`` (``play_out`` and
    ``playing``) and the lockstep self-play and playouts of ``parlour.training``.  A
    ``RuntimeError``: a game that does not end is a bug, not bad input.  Built from plain
    values, so that it crosses from a worker process intact."""

    def __init__(self, game: str, limit: int, longest: int) -> None:
        super().__init__(game, limit, longest)
        self.game, self.limit, self.longest = game, limit, longest

    def __str__(self) -> str:
        return (f"{self.game}: the game did not end within {self.limit} steps (max_game_length {self.longest}): "
                "its rules do not end it")


class DamagedFileError(ValueError):
    """A file the user saved cannot be read: missing, truncated, corrupt, or not the
    kind of file expected (a model file of another game, say).  The message names the
    file.  A ``ValueError`` so callers that already catch bad values keep working; the
    command line reports it as a failure (exit status 1), not as bad usage."""


# --- what the command line reports (``parlour ...``; also ``parlour bench``) --------------


class UsageError(Exception):
    """Bad command-line input: printed without a traceback, exit code 2."""


class Failure(Exception):
    """The command could not do its job (a damaged file, a game that failed, a missing
    extra): printed without a traceback, exit code 1."""


class Interrupted(Exception):
    """Ctrl-C, with what the user should know (where a run stands, how to continue): exit code 130."""
