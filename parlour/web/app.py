"""``parlour serve``: the games in the browser, a Starlette app over
:mod:`parlour.table.session`.

The page (``static/``: plain HTML, CSS and JavaScript, no build step) asks the JSON API
below for everything; the server keeps the games (:mod:`.store`) and checks every move
with the rules (an illegal move is refused with the reason and changes nothing).

Every request is treated as hostile (docs/web.md says what that covers): bodies are read
up to a size and must be one JSON object (:mod:`.guard`); a bad request of any kind is a
4xx with ``{"error": ...}``; a request may name only parlour's own players and the models
in the runs directory, and every search thinks within the per-move limit
(:mod:`parlour.table.specs`); policies think in worker processes, never on the event
loop (:mod:`parlour.table.thinking`), and everything else a request does (rules,
pictures, files) runs in a thread, so one slow game never delays another client.

| method and path | body / query | answer |
|---|---|---|
| ``GET /api/catalog`` | | the games (options, their choices or bounds; seats), each game's players, the models, limits |
| ``GET /api/sessions`` | | the games in play, the most recent first |
| ``POST /api/sessions`` | ``{"game", "options", "seats": ["person", "mcts", ...], "seed"}`` | ``{"id", "view"}`` (201) |
| ``GET /api/sessions/{id}`` | ``?seat=N`` (none: a spectator) | the view: picture (SVG), moves, log, status |
| ``POST /api/sessions/{id}/move`` | ``{"seat", "action"}`` | the view after the policies replied |
| ``POST /api/sessions/{id}/undo`` | ``{"seat"}`` | the view before that seat's last move |
| ``POST /api/sessions/{id}/step`` | | one step of the policies (watch mode, or a slow reply); 400 past the step limit |
| ``GET /api/sessions/{id}/hint`` | ``?seat=N&spec=...`` | a policy's move and evaluation |
| ``GET /api/sessions/{id}/record`` | | the game as data, to save |
| ``POST /api/sessions/load`` | a saved record | ``{"id", "view"}`` (201) |
| ``POST /api/sessions/replay`` | ``{"arena": arena.json's data, "index": N}`` | a replay of that arena game (``step`` plays it) |
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from parlour.games import GAMES, load_game
from parlour.games.base import Option, shown
from parlour.table.errors import SessionError
from parlour.table.session import DEFAULT_MOVE_SECONDS, PERSON, GameSession, from_arena
from parlour.table.specs import find_models, offered_players
from parlour.table.thinking import LocalThinker, Thinkers
from parlour.web.guard import MAX_BODY, Guard, parse_object, read_body
from parlour.web.http_errors import Busy, http_status
from parlour.web.store import Sessions

STATIC = Path(__file__).parent / "static"
LOG = logging.getLogger("parlour.web")
BUSY_WAIT = 1.0
"""How long a request waits for a game busy with another one before a 409."""
THREADS = 64
"""Requests worked on at once (each in a thread); more wait their turn on the event loop."""


def create_app(runs_dir: str | Path | None = None, max_sessions: int = 500, *, idle_seconds: float = 3600.0,
               state_dir: str | Path | None = None, move_seconds: float = DEFAULT_MOVE_SECONDS,
               thinker: Thinkers | LocalThinker | None = None, workers: int = 2, token: str | None = None,
               hosts: tuple[str, ...] | None = None) -> Starlette:
    """The app.  ``runs_dir``: where trained models may be loaded from (none: no models);
    ``max_sessions`` games kept, each dropped after ``idle_seconds`` without a request;
    ``state_dir``: where the games are kept across restarts; ``move_seconds``: how long a
    policy may think per move; ``thinker``: where policies think (default ``workers``
    processes of its own); ``token``: the token every API request must carry;
    ``hosts``: the only names the server answers to (``Guard``)."""
    if not 0 < move_seconds <= 600:
        raise ValueError(f"move_seconds must be more than 0 and at most 600, got {move_seconds}")
    runs = Path(runs_dir) if runs_dir is not None else None
    thinker = thinker if thinker is not None else Thinkers(workers)
    sessions = Sessions(max_sessions, idle_seconds, Path(state_dir) if state_dir is not None else None)
    settings: dict[str, Any] = {"runs_dir": runs, "thinker": thinker, "move_seconds": move_seconds}
    limiter = anyio.CapacityLimiter(THREADS)
    games_catalog = _games_catalog()

    async def work(function: Callable[[], Any]) -> Any:
        """``function()`` in a thread: nothing but I/O on the event loop."""
        return await anyio.to_thread.run_sync(function, limiter=limiter)

    def with_session(key: str, change: Callable[[GameSession], Any], save: bool = False) -> Any:
        session = sessions.get(key)
        if not session.lock.acquire(timeout=BUSY_WAIT):
            raise Busy("this game is busy with another request (a policy may be thinking); ask again")
        try:
            result = change(session)
            if save:
                sessions.save(key, session)
            return result
        finally:
            session.lock.release()

    def added(session: GameSession, seat: int | None) -> JSONResponse:
        """A new game kept and its first view (under its lock: the list shows its id at once)."""
        with session.lock:
            key = sessions.add(session)
            return JSONResponse({"id": key, "view": session.view(seat)}, status_code=201)

    async def catalog(request: Request) -> JSONResponse:
        models = await work(lambda: find_models(runs))
        return JSONResponse({"games": games_catalog, "models": models,
                             "limits": {"move_seconds": move_seconds, "games_kept": max_sessions, "idle_seconds": idle_seconds,
                                        "body_bytes": MAX_BODY}})

    async def listing(request: Request) -> JSONResponse:
        return JSONResponse({"games": await work(sessions.listing)})

    async def create(request: Request) -> JSONResponse:
        body = await read_body(request)

        def make() -> JSONResponse:
            data = parse_object(body)
            name = data.get("game")
            if not isinstance(name, str) or name not in GAMES:
                raise SessionError(f"unknown game {shown(name)}; games are {sorted(GAMES)}")
            options = data.get("options") or {}
            if not isinstance(options, dict):
                raise SessionError(f"options must be an object, got {shown(options)}")
            try:
                game = load_game(name, **options)
            except (ValueError, TypeError) as error:
                raise SessionError(str(error)) from None
            seats = data.get("seats") or [PERSON] + ["random"] * (game.num_players - 1)
            if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
                raise SessionError(f"seats must be a list of 'person' or policy specs, got {shown(seats)}")
            session = GameSession(game, seats, seed=data.get("seed", 0), **settings)
            return added(session, _first_person(session))

        return await work(make)

    async def show(request: Request) -> JSONResponse:
        seat = _seat(request.query_params.get("seat"))
        return await work(lambda: JSONResponse(with_session(request.path_params["key"], lambda s: s.view(seat))))

    async def move(request: Request) -> JSONResponse:
        body = await read_body(request)

        def play(session: GameSession) -> dict[str, Any]:
            data = parse_object(body)
            seat = _seat(data.get("seat"))
            session.move(seat, data.get("action"))
            return session.view(seat)

        return await work(lambda: JSONResponse(with_session(request.path_params["key"], play, save=True)))

    async def undo(request: Request) -> JSONResponse:
        body = await read_body(request)

        def back(session: GameSession) -> dict[str, Any]:
            seat = _seat(parse_object(body).get("seat"))
            if seat is not None and not 0 <= seat < session.game.num_players:
                raise SessionError(f"no seat {seat}; seats are 0..{session.game.num_players - 1}")
            session.undo()
            return session.view(seat)

        return await work(lambda: JSONResponse(with_session(request.path_params["key"], back, save=True)))

    async def step(request: Request) -> JSONResponse:
        body = await read_body(request, optional=True)

        def advance(session: GameSession) -> dict[str, Any]:
            parse_object(body, empty=True)
            if session.to_act():
                raise SessionError("a person is to move: the policies wait")
            if not session.policies_to_move():
                raise SessionError("the game is over")
            if (stop := session.cut_off()) is not None:
                raise SessionError(stop)
            session.advance(limit=1)
            return session.view(_first_person(session) if session.people and session.script is None else None)

        return await work(lambda: JSONResponse(with_session(request.path_params["key"], advance, save=True)))

    async def hint(request: Request) -> JSONResponse:
        seat = _seat(request.query_params.get("seat"))
        spec = request.query_params.get("spec") or None
        return await work(lambda: JSONResponse(with_session(request.path_params["key"], lambda s: s.hint(seat, spec), save=True)))

    async def record(request: Request) -> JSONResponse:
        return await work(lambda: JSONResponse(with_session(request.path_params["key"], lambda s: s.record())))

    async def load(request: Request) -> JSONResponse:
        body = await read_body(request)

        def make() -> JSONResponse:
            return added(GameSession.load(parse_object(body), **settings), 0)

        return await work(make)

    async def replay(request: Request) -> JSONResponse:
        body = await read_body(request)

        def make() -> JSONResponse:
            data = parse_object(body)
            return added(from_arena(data.get("arena"), data.get("index", 0), **settings), None)

        return await work(make)

    def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    async def refused(request: Request, error: SessionError) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=http_status(error))

    async def http_error(request: Request, error: HTTPException) -> Response:
        return JSONResponse({"error": error.detail}, status_code=error.status_code, headers=error.headers)

    async def failed(request: Request, error: Exception) -> JSONResponse:
        LOG.exception("an unexpected error in %s %s", request.method, request.url.path)
        return JSONResponse({"error": f"the server failed: {type(error).__name__} (a bug: please report it)"}, status_code=500)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if isinstance(thinker, Thinkers):
            await work(thinker.start)
        yield
        thinker.close()

    routes = [
        Route("/", index),
        Route("/api/catalog", catalog),
        Route("/api/sessions", listing, methods=["GET"]),
        Route("/api/sessions", create, methods=["POST"]),
        Route("/api/sessions/load", load, methods=["POST"]),
        Route("/api/sessions/replay", replay, methods=["POST"]),
        Route("/api/sessions/{key}", show),
        Route("/api/sessions/{key}/move", move, methods=["POST"]),
        Route("/api/sessions/{key}/undo", undo, methods=["POST"]),
        Route("/api/sessions/{key}/step", step, methods=["POST"]),
        Route("/api/sessions/{key}/hint", hint),
        Route("/api/sessions/{key}/record", record),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    # Starlette's annotation wants handlers typed for any exception; each of these takes its own.
    handlers: dict[Any, Any] = {SessionError: refused, HTTPException: http_error, Exception: failed}
    app = Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(Guard, token=token, hosts=hosts)],
                    exception_handlers=handlers)
    app.state.sessions = sessions
    app.state.thinker = thinker
    app.state.restored = sessions.restore(lambda data: GameSession.restore(data, **settings)) if state_dir is not None else (0, [])
    return app


def _games_catalog() -> list[dict[str, Any]]:
    games = []
    for name, cls in GAMES.items():
        game = cls()
        games.append({
            "name": name, "summary": cls.summary, "players": game.num_players, "simultaneous": cls.simultaneous,
            "options": {k: _option_catalog(v) for k, v in cls.options.items()},
            "notation": game.notation_help(), "policies": offered_players(game),
        })
    return games


def _option_catalog(option: Option) -> dict[str, Any]:
    """What the page needs to offer an option: a fixed set of ``choices`` becomes a
    select, an integer with ``low`` and ``high`` a bounded number box, anything else (a
    list of cards, an order) a text box whose ``allowed`` says what it may be."""
    return {"default": option.default, "help": option.help, "allowed": option.allowed_text(),
            "choices": list(option.choices) if option.choices is not None else None, "low": option.low, "high": option.high}


class BackgroundServer:
    """``app`` served by uvicorn in a thread of this process (tests, screenshots):
    ``url`` once it listens, :meth:`stop` to end it.  Port 0 picks a free port."""

    def __init__(self, app: Starlette, host: str = "127.0.0.1", port: int = 0) -> None:
        import uvicorn

        self.server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        bound_host, bound_port = self.server.servers[0].sockets[0].getsockname()[:2]
        self.url = f"http://{bound_host}:{bound_port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def _seat(value: Any) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise SessionError(f"seat must be an integer, got {shown(value)}")
    try:
        seat = int(value)
    except ValueError:
        raise SessionError(f"seat must be an integer, got {shown(value)}") from None
    if seat < 0 or seat > 1000:
        raise SessionError(f"seat must be a non-negative integer, got {shown(value)}")
    return seat


def _first_person(session: GameSession) -> int | None:
    people = session.people
    return people[0] if people else None
