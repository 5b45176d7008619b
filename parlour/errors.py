"""Errors raised by parlour, shared by every layer."""

from __future__ import annotations

from collections.abc import Iterable


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


class DamagedFileError(ValueError):
    """A file the user saved cannot be read: missing, truncated, corrupt, or not the
    kind of file expected (a model file of another game, say).  The message names the
    file.  A ``ValueError`` so callers that already catch bad values keep working; the
    command line reports it as a failure (exit status 1), not as bad usage."""
