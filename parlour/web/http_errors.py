"""The refusals of ``parlour serve``: each an exception with its HTTP status, answered
as ``{"error": "..."}`` (never a 500 for anything a request can send).  A table's own
refusal (:class:`parlour.table.errors.SessionError`) is a 400 Bad Request."""

from __future__ import annotations

from parlour.table.errors import SessionError

BAD_REQUEST = 400
"""The status of a refusal that names no other."""


def http_status(error: SessionError) -> int:
    """The HTTP status that answers ``error``."""
    return getattr(error, "status", BAD_REQUEST)


class NotFound(SessionError):
    """No such game (unknown or expired id): 404."""

    status = 404


class Busy(SessionError):
    """The game is busy with another request (a policy is thinking): 409, ask again."""

    status = 409


class TooLarge(SessionError):
    """A body larger than the server reads: 413."""

    status = 413


class NotJSON(SessionError):
    """A body sent without ``Content-Type: application/json``: 415."""

    status = 415


class Unauthorized(SessionError):
    """A request without the server's token: 401."""

    status = 401
