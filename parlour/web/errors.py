"""The refusals of ``parlour serve``: each an exception with its HTTP status, answered
as ``{"error": "..."}`` (never a 500 for anything a request can send)."""

from __future__ import annotations


class SessionError(ValueError):
    """A request the server refuses, with the reason: 400 Bad Request."""

    status = 400


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
