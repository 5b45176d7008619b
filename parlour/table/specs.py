"""Which players an untrusted request may seat, and how long they may think.

A table is untrusted when its requests come from whoever can reach a port (``parlour
serve``): unlike the command line, where the user runs their own code, a request may
name only:

- parlour's own players (``random``, ``mcts:simulations=200``, ``paranoid``, the
  original AIs, ...), and
- the trained models (``ppo:``, ``az:``) in the runs directory the server was started
  with, by a path inside it (model files are pickles: a path anywhere else is refused).

``python:`` (and ``MODULE:FUNCTION`` or ``FILE.py:FUNCTION``), ``sb3:``, ``torchscript:``
and ``rllib:`` are refused: each runs code or loads files that the request names.

Every search thinks at most the server's per-move limit (``parlour serve
--move-seconds``): a player with a ``time_limit`` gets the limit unless it asks for less
(asking for more is refused, naming the limit), so ``mcts:simulations=3000000`` plays its
best move after the limit; a player without one is stopped by its worker at the limit
(:mod:`parlour.table.thinking`) and the game says so.
"""

from __future__ import annotations

from pathlib import Path

from parlour.baselines import REGISTRY, lookup, parse_spec
from parlour.baselines.learned.ppo import read_model_meta
from parlour.baselines.policy import POSITIONAL, Policy, playable
from parlour.games import Game
from parlour.games.base import shown
from parlour.table.errors import SessionError
from parlour.zoo import game_entries

MODEL_POLICIES = ("ppo", "az")
"""Players that load a file from the runs directory (by their ``path`` parameter)."""
NOT_OVER_THE_WEB = ("python", "sb3", "torchscript", "rllib")
"""Players that run code or load files named by the request: command line only."""
MAX_SPEC = 300
"""The longest spec a request may send."""


def allowed_players(game: Game) -> list[str]:
    """The players an untrusted request may seat at ``game`` (besides ``person`` and the models,
    which play as ``ppo:PATH`` or ``az:PATH``)."""
    return [name for name in playable(game) if name not in NOT_OVER_THE_WEB and name not in MODEL_POLICIES]


def offered_players(game: Game) -> list[str]:
    """The players a page offers for ``game``: :func:`allowed_players`, then the zoo's other
    entries for the game (``zoo:tides_of_time-ppo``; ``zoo`` alone is its default agent)."""
    players = allowed_players(game)
    if "zoo" in players:
        players += [f"zoo:{entry}" for entry in game_entries(game.name) if entry != game.name]
    return players


def vet_spec(spec: object, game: Game, runs_dir: Path | None, move_seconds: float) -> tuple[str, str | None]:
    """Vet the ``spec`` an untrusted request names: the spec to play (a model's path resolved in ``runs_dir``,
    the time limit set), and a note for the page when the server limits it; a
    :class:`SessionError` naming what is allowed for anything else."""
    if not isinstance(spec, str) or not spec.strip() or len(spec) > MAX_SPEC or not spec.isprintable():
        raise SessionError(f"a player is a spec such as 'mcts:simulations=200' (printable, at most {MAX_SPEC} characters), "
                           f"got {shown(spec)}")
    try:
        name, params = parse_spec(spec)
    except ValueError as error:
        raise SessionError(str(error)) from None
    allowed = allowed_players(game)
    if name in MODEL_POLICIES and name in playable(game):
        allowed.append(name)
    if name in NOT_OVER_THE_WEB or name not in REGISTRY:
        why = (" (it runs code or loads files named by the request: use it with parlour arena or parlour play)"
               if name in NOT_OVER_THE_WEB else "")
        raise SessionError(f"{spec!r}: {name!r} cannot play {game.name} here{why}; players are {', '.join(allowed)}, "
                           "and the models in the runs directory (ppo:PATH, az:PATH)")
    if name not in allowed:
        try:
            lookup(name, game)
        except ValueError as error:
            raise SessionError(f"{spec!r}: {error}") from None
        raise SessionError(f"{spec!r}: {name!r} cannot play {game.name}; players are {', '.join(allowed)}")
    cls = lookup(name, game)
    if POSITIONAL in params:
        if cls.positional is None:
            raise SessionError(f"{spec!r}: {params[POSITIONAL]!r} is not key=value")
        params[cls.positional] = params.pop(POSITIONAL)
    unknown = sorted(set(params) - set(cls.params))
    if unknown:
        raise SessionError(f"{spec!r}: unknown parameter(s) {unknown}; {name} takes {cls.param_text()}")
    for key, value in params.items():
        try:
            cls.params[key].parse(key, value)
        except ValueError as error:
            raise SessionError(f"{spec!r}: {error}") from None
    if name in MODEL_POLICIES:
        params["path"] = _model_path(spec, params.get("path", ""), runs_dir)
    note = _limit_time(spec, name, cls, params, move_seconds)
    text = ",".join(f"{key}={value}" for key, value in params.items())
    return (f"{name}:{text}" if text else name), note


def _limit_time(spec: str, name: str, cls: type[Policy], params: dict[str, str], move_seconds: float) -> str | None:
    """Set ``time_limit`` within ``move_seconds``; a note when the server's limit applies."""
    limit = f"{move_seconds:g} s per move (parlour serve --move-seconds)"
    if "time_limit" not in cls.params:
        return f"{name} is stopped if it thinks longer than this server's {limit}"
    asked = params.get("time_limit")
    if asked is None:
        default = cls.params["time_limit"].default
        if default is not None and default <= move_seconds:
            return None
        params["time_limit"] = f"{move_seconds:g}"
        return f"{name} thinks at most this server's {limit}" + (f" (its own default is {default:g} s)" if default else "")
    seconds = cls.params["time_limit"].parse("time_limit", asked)
    if seconds is None or not 0 < seconds <= move_seconds:  # (a NaN is not in range either)
        raise SessionError(f"{spec!r}: time_limit={asked} is more than this server allows: at most {limit}")
    return None


def _model_path(spec: str, raw: str, runs_dir: Path | None) -> str:
    """``raw``, a model's path in the request, as a path inside ``runs_dir``."""
    if runs_dir is None:
        raise SessionError(f"{spec!r}: this server loads no models (start it with --runs DIR)")
    root = runs_dir.resolve()
    try:
        target = (root / raw).resolve()
    except (OSError, ValueError, RuntimeError):  # a NUL, a loop of links
        target = root
    if not raw or Path(raw).is_absolute() or (target != root and root not in target.parents):
        raise SessionError(f"{spec!r}: a model must be a path inside the runs directory {str(runs_dir)!r}, got {raw!r}")
    if not target.is_file():
        raise SessionError(f"{spec!r}: no model at {raw!r} in the runs directory")
    return str(target)


def find_models(runs_dir: Path | None, most: int = 200) -> list[str]:
    """Specs of the trained models under ``runs_dir`` (paths relative to it), each as the
    player its file says it is (``ppo:`` or ``az:``); damaged or foreign files are left out."""
    if runs_dir is None or not runs_dir.is_dir():
        return []
    found = []
    for path in sorted(runs_dir.rglob("best.zip")):
        try:
            kind = read_model_meta(path).get("kind", "ppo")
        except ValueError:
            continue
        player = {"alphazero": "az"}.get(kind, kind)  # the file's kind -> the player that loads it
        if player in MODEL_POLICIES:
            found.append(f"{player}:{path.relative_to(runs_dir).as_posix()}")
        if len(found) >= most:
            break
    return found
