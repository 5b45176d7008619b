"""What a table refuses: a move, a seat, a player or a saved game it cannot take, with
the reason (the web server answers it as a 400, the terminal prints it and asks again)."""

from __future__ import annotations


class SessionError(ValueError):
    """A request the table refuses, with the reason."""
