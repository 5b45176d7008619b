"""``parlour serve``: the games in the browser, a Starlette app over :mod:`.session`.

The page (``static/``: plain HTML, CSS and JavaScript, no build step) asks the JSON API
below for everything; the server keeps the games in memory and checks every move with
the rules (an illegal move is refused with the reason and changes nothing).  A bad
request gets a JSON error with a 4xx status.  Trained models load only from the runs
directory given at start (:func:`.session.resolve_spec`).

| method and path | body / query | answer |
|---|---|---|
| ``GET /api/catalog`` | | the games (options, seats), the players that can play each, the models found |
| ``POST /api/sessions`` | ``{"game", "options", "seats": ["person", "mcts", ...], "seed"}`` | ``{"id", "view"}`` (201) |
| ``GET /api/sessions/{id}`` | ``?seat=N`` (none: a spectator) | the view: picture (SVG), moves, log, status |
| ``POST /api/sessions/{id}/move`` | ``{"seat", "action"}`` | the view after the policies replied |
| ``POST /api/sessions/{id}/undo`` | ``{"seat"}`` | the view before that seat's last move |
| ``POST /api/sessions/{id}/step`` | | one step of the policies (watch mode) |
| ``GET /api/sessions/{id}/hint`` | ``?seat=N&spec=...`` | a policy's move and evaluation |
| ``GET /api/sessions/{id}/record`` | | the game as data, to save |
| ``POST /api/sessions/load`` | a saved record | ``{"id", "view"}`` (201) |
| ``POST /api/sessions/replay`` | ``{"arena": arena.json's data, "index": N}`` | a replay of that arena game (``step`` plays it) |
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from parlour.baselines.policy import playable
from parlour.games import GAMES, load_game
from parlour.web.session import PERSON, GameSession, SessionError, find_models, from_arena

STATIC = Path(__file__).parent / "static"


class Sessions:
    """The games in play, at most ``limit`` (the oldest is dropped to make room)."""

    def __init__(self, limit: int = 500) -> None:
        self.limit = limit
        self.items: OrderedDict[str, GameSession] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, session: GameSession) -> str:
        key = secrets.token_urlsafe(12)
        with self.lock:
            self.items[key] = session
            while len(self.items) > self.limit:
                self.items.popitem(last=False)
        return key

    def get(self, key: str) -> GameSession:
        with self.lock:
            session = self.items.get(key)
        if session is None:
            raise HTTPException(404, f"no game {key!r} (finished games are kept until {self.limit} newer ones start)")
        return session


def create_app(runs_dir: str | Path | None = None, max_sessions: int = 500) -> Starlette:
    """The app; ``runs_dir``: where trained models may be loaded from (none: no models)."""
    runs = Path(runs_dir) if runs_dir is not None else None
    sessions = Sessions(max_sessions)

    def catalog(request: Request) -> JSONResponse:
        games = []
        for name, cls in GAMES.items():
            game = cls()
            games.append({
                "name": name, "summary": cls.summary, "players": game.num_players, "simultaneous": cls.simultaneous,
                "options": {k: {"default": v.default, "help": v.help, "allowed": v.allowed_text()} for k, v in cls.options.items()},
                "notation": game.notation_help(), "policies": playable(game),
            })
        return JSONResponse({"games": games, "models": find_models(runs)})

    async def create(request: Request) -> JSONResponse:
        body = await _json(request)
        name = body.get("game")
        if name not in GAMES:
            raise SessionError(f"unknown game {name!r}; games are {sorted(GAMES)}")
        options = body.get("options") or {}
        if not isinstance(options, dict):
            raise SessionError(f"options must be an object, got {options!r}")
        try:
            game = load_game(name, **options)
        except ValueError as error:
            raise SessionError(str(error)) from None
        seats = body.get("seats") or [PERSON] + ["random"] * (game.num_players - 1)
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
            raise SessionError(f"seats must be a list of 'person' or policy specs, got {seats!r}")
        seed = body.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise SessionError(f"seed must be a non-negative integer, got {seed!r}")
        session = GameSession(game, seats, seed=seed, runs_dir=runs)
        key = sessions.add(session)
        return JSONResponse({"id": key, "view": session.view(_first_person(session))}, status_code=201)

    def show(request: Request) -> JSONResponse:
        session = sessions.get(request.path_params["key"])
        with session.lock:
            return JSONResponse(session.view(_seat(request.query_params.get("seat"))))

    async def move(request: Request) -> JSONResponse:
        session = sessions.get(request.path_params["key"])
        body = await _json(request)
        seat, action = _seat(body.get("seat")), body.get("action")
        with session.lock:
            session.move(seat, action)
            return JSONResponse(session.view(seat))

    async def undo(request: Request) -> JSONResponse:
        session = sessions.get(request.path_params["key"])
        body = await _json(request)
        seat = _seat(body.get("seat"))
        with session.lock:
            session.undo()
            return JSONResponse(session.view(seat))

    def step(request: Request) -> JSONResponse:
        session = sessions.get(request.path_params["key"])
        with session.lock:
            if session.to_act():
                raise SessionError("a person is to move: the policies wait")
            session.advance(limit=1)
            return JSONResponse(session.view(None))

    def hint(request: Request) -> JSONResponse:
        session = sessions.get(request.path_params["key"])
        seat = _seat(request.query_params.get("seat"))
        with session.lock:
            return JSONResponse(session.hint(seat, request.query_params.get("spec") or None))

    def record(request: Request) -> JSONResponse:
        session = sessions.get(request.path_params["key"])
        with session.lock:
            return JSONResponse(session.record())

    async def load(request: Request) -> JSONResponse:
        session = GameSession.load(await _json(request), runs_dir=runs)
        key = sessions.add(session)
        return JSONResponse({"id": key, "view": session.view(0)}, status_code=201)

    async def replay(request: Request) -> JSONResponse:
        body = await _json(request)
        session = from_arena(body.get("arena"), body.get("index", 0), runs_dir=runs)
        key = sessions.add(session)
        return JSONResponse({"id": key, "view": session.view(None)}, status_code=201)

    def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    async def refused(request: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=400)

    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return JSONResponse({"error": error.detail}, status_code=error.status_code)

    routes = [
        Route("/", index),
        Route("/api/catalog", catalog),
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
    app = Starlette(routes=routes, exception_handlers={SessionError: refused, HTTPException: http_error})
    app.state.sessions = sessions
    return app


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


async def _json(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise SessionError("the request body must be JSON") from None
    if not isinstance(body, dict):
        raise SessionError(f"the request body must be a JSON object, got {type(body).__name__}")
    return body


def _seat(value: Any) -> int | None:
    if value is None or value == "":
        return None
    try:
        seat = int(value)
    except (TypeError, ValueError):
        raise SessionError(f"seat must be an integer, got {value!r}") from None
    if isinstance(value, bool) or seat < 0:
        raise SessionError(f"seat must be a non-negative integer, got {value!r}")
    return seat


def _first_person(session: GameSession) -> int | None:
    people = session.people
    return people[0] if people else None
