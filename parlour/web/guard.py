"""What ``parlour serve`` checks before a route sees a request, and how it reads a body.

- **The token** (``Guard``): a server that listens beyond this machine (or was given
  ``--token``) answers ``/api/`` requests only when they carry its token, as
  ``Authorization: Bearer TOKEN`` or ``?token=TOKEN`` (the page takes it from the address
  ``parlour serve`` prints, as Jupyter's does); anything else is a 401.
- **The host** (``Guard``): a server on loopback answers only requests addressed to
  ``127.0.0.1``, ``localhost`` or ``[::1]``, so a web page elsewhere cannot reach it by
  making its own name resolve to 127.0.0.1 (DNS rebinding).
- **The body** (:func:`read_json`): a POST body must say ``Content-Type:
  application/json`` (so a page elsewhere cannot send one without the browser asking
  first), is read up to ``MAX_BODY`` bytes (413 past it, before it is read whole), must
  be one JSON object nested at most ``MAX_DEPTH`` deep (400 otherwise).
"""

from __future__ import annotations

import ipaddress
import json
import secrets
from typing import Any
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from parlour.table.errors import SessionError
from parlour.web.http_errors import NotJSON, TooLarge

MAX_BODY = 1_000_000
"""The largest body read, in bytes (a saved game of the longest Double Card is ~20 kB)."""
MAX_DEPTH = 16
"""The deepest nesting of a body's JSON (a saved game needs 4)."""
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    """True for an address only this machine can reach (``localhost``, 127.x.y.z, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Guard:
    """ASGI middleware: the token and the host checks of the module docstring."""

    def __init__(self, app: ASGIApp, token: str | None = None, hosts: tuple[str, ...] | None = None) -> None:
        self.app, self.token, self.hosts = app, token, hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            if self.hosts is not None and _hostname(headers.get("host", "")) not in self.hosts:
                return await _refuse(send, 400, f"this server answers only to {', '.join(self.hosts)}")
            if self.token is not None and scope["path"].startswith("/api/") and not self._carries_token(scope, headers):
                return await _refuse(send, 401, "this server needs its token: open the address parlour serve printed "
                                                "(…/?token=…), or send Authorization: Bearer TOKEN")
        await self.app(scope, receive, send)

    def _carries_token(self, scope: Scope, headers: dict[str, str]) -> bool:
        scheme, _, given = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            given = (parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token") or [""])[0]
        return secrets.compare_digest(given.strip().encode(), self.token.encode())  # type: ignore[union-attr]


def _hostname(host: str) -> str:
    """The name in a ``Host`` header, without its port (``[::1]:8000`` -> ``::1``)."""
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def read_body(request: Request, optional: bool = False) -> bytes:
    """The body of a POST, at most ``MAX_BODY`` bytes (read on the event loop: I/O only).
    ``optional``: a request without a body needs no content type (``step``)."""
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if optional and not kind and request.headers.get("content-length", "0") == "0" and "transfer-encoding" not in request.headers:
        return b""
    if kind != "application/json":
        raise NotJSON(f"send the body as JSON, with Content-Type: application/json (got {kind[:60] or 'none'!r})")
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise SessionError(f"a bad Content-Length: {length[:40]!r}")
        if int(length) > MAX_BODY:
            raise TooLarge(f"the body is {int(length):,} bytes; this server reads at most {MAX_BODY:,}")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise TooLarge(f"the body is more than {MAX_BODY:,} bytes; this server reads at most {MAX_BODY:,}")
    return bytes(body)


def parse_object(body: bytes, empty: bool = False) -> dict[str, Any]:
    """``body`` as one JSON object (``empty``: no body is ``{}``); 400 for anything else."""
    if empty and not body.strip():
        return {}
    try:
        data = json.loads(body)
    except RecursionError:
        raise SessionError(f"the JSON is nested too deeply (at most {MAX_DEPTH} levels)") from None
    except (ValueError, UnicodeDecodeError) as error:  # ValueError: JSON, or an integer too long
        raise SessionError(f"the request body must be JSON: {' '.join(str(error).split())[:120]}") from None
    if not isinstance(data, dict):
        raise SessionError(f"the request body must be a JSON object, got {type(data).__name__}")
    _check_tree(data)
    return data


def _check_tree(value: Any) -> None:
    """At most ``MAX_DEPTH`` levels, and text that can be sent back: no NUL, no lone
    surrogate (JSON's ``\\ud800`` escapes allow one; UTF-8 does not).  Walked without
    recursion, so no depth can overflow it."""
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if level > MAX_DEPTH:
            raise SessionError(f"the JSON is nested too deeply (at most {MAX_DEPTH} levels)")
        if isinstance(item, dict):
            stack.extend((key, level + 1) for key in item)
            stack.extend((child, level + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, level + 1) for child in item)
        elif isinstance(item, str) and not plain_text(item):
            raise SessionError("the JSON holds text with a NUL character or a lone surrogate")


def plain_text(text: str) -> bool:
    """True for text that encodes as UTF-8 and holds no NUL."""
    if "\0" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
