"""The ``parlour`` command: ``--version``, ``list``, ``demo``, ``policies``, ``arena``, ``play``, ``serve``,
``train``, ``bench`` (in :mod:`parlour.bench.cli`).

Errors are one line on stderr, ``parlour COMMAND: error: ...``, with exit status 2 for
bad command-line input (``UsageError``; argparse's own errors print the usage first) and
1 for a failure (``Failure``: a damaged file, a game that failed, a missing extra; or an
unexpected exception, named by its type).  Ctrl-C prints where things stand and exits
with 130.  ``--debug`` or ``PARLOUR_DEBUG=1`` prints the traceback before that line.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import signal
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import parlour
from parlour.errors import DamagedFileError, Failure, Interrupted, UsageError
from parlour.games import GAMES, OPENSPIEL_PREFIX, Game, load_game
from parlour.registration import env_id


def _list(_args: argparse.Namespace) -> int:
    for name, cls in GAMES.items():
        kind = "simultaneous (AEC + Parallel)" if cls.simultaneous else "turn-based (AEC)"
        print(f"{name}: {env_id(name)}, {kind}")
        print(f"  {cls.summary}")
        for option, spec in cls.options.items():
            print(f"  {option}={spec.default!r}: {spec.help} [{spec.allowed_text()}]")
        for option, text in cls.start_options.items():
            print(f"  reset option {option!r}: {text}")
        print()
    print(f"{OPENSPIEL_PREFIX}NAME: {env_id('openspiel')} (option game=NAME), any OpenSpiel game, e.g. {OPENSPIEL_PREFIX}connect_four")
    print("  needs open_spiel (the openspiel extra); see docs/integrations.md")
    return 0


def _demo(args: argparse.Namespace) -> int:
    """Random games of every game through the AEC env; a summary line per game."""
    from importlib import import_module

    if args.seed < 0:
        raise UsageError(f"--seed must be a non-negative integer, got {args.seed}")
    rng = np.random.default_rng(args.seed)
    print(f"parlour {parlour.__version__}: {args.games} random games of each game (seed {args.seed})\n")
    print(f"{'game':<12} {'games':>6} {'moves/game':>11} {'player_0 win':>13} {'player_1 win':>13} {'draw':>6} {'games/s':>9}")
    for name in GAMES:
        module = import_module(f"parlour.envs.{name}_v0")
        env = module.env()
        wins = np.zeros(len(env.possible_agents))
        draws = steps = 0
        start = time.perf_counter()
        for g in range(args.games):
            env.reset(seed=args.seed + g)
            final = {}
            for agent in env.agent_iter():
                obs, reward, term, trunc, _ = env.last()
                if term or trunc:
                    final[agent] = reward
                    env.step(None)
                    continue
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                steps += 1
            best = max(final.values())
            leaders = [a for a, r in final.items() if r == best]
            if len(leaders) == len(final):
                draws += 1
            else:
                for agent in leaders:
                    wins[env.possible_agents.index(agent)] += 1 / len(leaders)
        rate = args.games / (time.perf_counter() - start)
        print(
            f"{name:<12} {args.games:>6} {steps / args.games:>11.1f} {wins[0] / args.games:>13.1%} "
            f"{wins[1] / args.games:>13.1%} {draws / args.games:>6.1%} {rate:>9.0f}"
        )
    return 0


# --- game options and agent specs from the command line ---------------------------------


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, a job scheduler, ``docker stop``) raised in the main thread, so that
    the command stops as on Ctrl-C: worker pools are stopped and a run keeps its last
    checkpoint. Python's default would end the process at once and leave its workers
    playing their current games to the end. Exit code 143."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated()


def _check_out(path: str | os.PathLike[str]) -> None:
    """``UsageError`` unless ``--out`` can be a directory that this process can write in
    (checked before the work, so that an hour of games is not lost on a typo)."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise UsageError(f"--out {str(path)!r} is a file, not a directory")
    parent = target if target.exists() else target.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise UsageError(f"--out {str(path)!r} cannot be created: {str(parent)!r} is a file, not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"--out {str(path)!r}: no permission to write in {str(parent)!r}")


def parse_option_value(text: str) -> Any:
    """A game option's value from text: JSON first (``6``, ``true``, ``[5,4,3]``,
    ``[[4,5,6],[1,2,3]]``), then ``True``/``False``/``None`` in any case, then a
    comma-separated list of numbers (``5,4,3,2,1``), else the text itself."""
    text = text.strip()
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: brackets nested too deep
        pass
    lowered = text.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    if lowered in ("none", "null"):
        return None
    if "," in text:
        items = [item.strip() for item in text.split(",")]
        try:
            return [json.loads(item) for item in items]
        except (ValueError, RecursionError):
            raise UsageError(f"--option value {text!r}: a list must hold numbers, e.g. 5,4,3,2,1 or [5,4,3,2,1]") from None
    return text


def parse_options(items: Sequence[str] | None) -> dict[str, Any]:
    """``["num_cards=6", ...]`` -> ``{"num_cards": 6, ...}``; ``UsageError`` on bad text."""
    options: dict[str, Any] = {}
    for item in items or ():
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"--option {item!r} is not key=value (e.g. --option num_cards=6)")
        options[key.strip()] = parse_option_value(value)
    return options


def _game_name(text: str) -> str:
    """A ``--game`` value: a parlour game, or ``openspiel:NAME`` (an OpenSpiel game)."""
    if text in GAMES or (text.startswith(OPENSPIEL_PREFIX) and len(text) > len(OPENSPIEL_PREFIX)):
        return text
    raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from {', '.join(sorted(GAMES))}, or {OPENSPIEL_PREFIX}NAME)")


def _game(name: str, options: dict[str, Any]) -> Game:
    try:
        return load_game(name, **options)
    except ValueError as error:
        raise UsageError(f"bad game option for {name}: {error}") from None


def _check_spec(spec: str, game: Game) -> None:
    """Build the policy once; ``UsageError`` (one line) with the policy's parameters, or
    the policies that can play the game, if the spec is bad."""
    from parlour.baselines import REGISTRY, lookup, make_from_spec
    from parlour.baselines.policy import playable

    try:
        make_from_spec(spec, game)
        return
    except DamagedFileError as error:
        raise Failure(str(error)) from None
    except ValueError as error:
        problem = str(error)
    name = spec.partition(":")[0].strip()
    if name in REGISTRY and name in playable(game):
        params = lookup(name, game).param_text()
        hint = "" if params in problem else f"; {name} takes these parameters: {params}"
    else:
        if name not in REGISTRY:
            problem = f"unknown policy {name!r}"
        hint = f"; policies that can play {game.name}: {', '.join(playable(game)) or 'none'}"
    raise UsageError(f"bad agent {spec!r}: {problem}{hint} (`parlour policies --game {game.name}` describes them)")


# --- subcommands ---------------------------------------------------------------------------


def _policies(args: argparse.Namespace) -> int:
    from parlour.baselines import describe

    if args.game is None:
        if args.option:
            raise UsageError("--option needs --game")
        print(describe())
        return 0
    game = _game(args.game, parse_options(args.option))
    print(f"policies that can play {game!r}:\n")
    print(describe(game=game))
    return 0


def _arena(args: argparse.Namespace) -> int:
    from parlour.evaluation.arena import GameFailed, play_match
    from parlour.evaluation.report import (
        check_writable,
        summarize,
        timing_text,
        to_markdown,
        write_report,
    )

    if args.game is None and args.agents is None:
        if args.option:
            raise UsageError("--option needs --game (and --agents)")
        name, options, agents = DEFAULT_ARENA["game"], dict(DEFAULT_ARENA["options"]), list(DEFAULT_ARENA["agents"])
        print(f"no --game/--agents given: the default arena ({name}, agents {' '.join(agents)})", file=sys.stderr)
    elif args.game is None or args.agents is None:
        if args.game is not None:
            _game(args.game, parse_options(args.option))  # a bad option is the first thing to say
        raise UsageError("give both --game and --agents (or neither, for the default arena)")
    else:
        name, options, agents = args.game, parse_options(args.option), args.agents
    game = _game(name, options)
    if len(agents) < 2:
        raise UsageError(f"--agents needs at least 2 agents, got {len(agents)}")
    if len(agents) < game.num_players:
        raise UsageError(f"{game.name} has {game.num_players} seats: give at least {game.num_players} agents, got {len(agents)}")
    for spec in agents:
        _check_spec(spec, game)
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    if args.seed < 0:
        raise UsageError(f"--seed must be a non-negative integer, got {args.seed}")
    if args.opening < 0:
        raise UsageError(f"--opening must be at least 0, got {args.opening}")
    plot = not args.no_plot
    if args.out is not None:
        _check_out(args.out)
        if plot and importlib.util.find_spec("matplotlib") is None:
            print("note: matplotlib is not installed, so no PNG heatmap is drawn (pip install 'parlour[plot]')", file=sys.stderr)
            plot = False
        try:
            check_writable(args.out, plot, args.force)  # before the games, not after
        except FileExistsError as error:
            raise UsageError(str(error)) from None
    try:
        result = play_match(game, agents, args.games, args.seed, workers=args.workers, progress=not args.quiet,
                            backend=args.backend, address=args.address or "", opening=args.opening)
    except GameFailed as error:
        raise Failure(str(error)) from error
    summary = summarize(result)
    print(to_markdown(summary))
    print()
    print(timing_text(summary))
    if args.out is not None:
        try:
            written = write_report(result, summary, args.out, force=args.force, plot=plot)
        except FileExistsError as error:
            raise UsageError(str(error)) from None
        print(f"wrote {', '.join(str(path) for path in written.values())}")
    return 0


def _serve(args: argparse.Namespace) -> int:
    """``parlour serve``: the web page (parlour.web), with uvicorn."""
    try:
        import uvicorn

        from parlour.web.app import create_app
        from parlour.web.guard import LOOPBACK_HOSTS, is_loopback
    except ImportError as error:
        raise Failure(f"parlour serve needs the web extra: pip install 'parlour[web]' ({error})") from None
    if not 0 < args.port < 65536:
        raise UsageError(f"--port must be 1..65535, got {args.port}")
    if not 0 < args.move_seconds <= 600:
        raise UsageError(f"--move-seconds must be more than 0 and at most 600, got {args.move_seconds}")
    if not 1 <= args.max_games <= 100_000:
        raise UsageError(f"--max-games must be 1..100000, got {args.max_games}")
    if not 0 < args.idle_minutes <= 60 * 24 * 365:
        raise UsageError(f"--idle-minutes must be more than 0 and at most a year, got {args.idle_minutes}")
    if not 1 <= args.workers <= 64:
        raise UsageError(f"--workers must be 1..64, got {args.workers}")
    loopback = is_loopback(args.host)
    token = args.token
    if token is not None and len(token) < 16:
        raise UsageError("--token must be at least 16 characters (or leave it out and one is made for you)")
    if token is None and not loopback:
        import secrets

        token = secrets.token_urlsafe(24)  # beyond this machine, never without a token
    runs = Path(args.runs) if Path(args.runs).is_dir() else None
    app = create_app(runs, args.max_games, idle_seconds=args.idle_minutes * 60, state_dir=args.state, move_seconds=args.move_seconds,
                     workers=args.workers, token=token, hosts=(*LOOPBACK_HOSTS, args.host) if loopback else None)
    restored, problems = app.state.restored
    if args.state:
        print(f"parlour: {restored} game(s) in play restored from {args.state}")
        for line in problems:
            print(f"parlour: not restored (the file is kept): {line}", file=sys.stderr)
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    address = f"http://{shown_host}:{args.port}/" + (f"?token={token}" if token else "")
    reach = "this machine only" if loopback else "ANY machine that can reach this address, with the token"
    print(f"parlour: serving on {address} ({reach}; models from {runs or 'nowhere: no runs directory'}; "
          f"{args.move_seconds:g} s per move); Ctrl-C stops")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", timeout_keep_alive=5, limit_concurrency=1000)
    return 0


def _play(args: argparse.Namespace) -> int:
    from parlour.play import play

    game = _game(args.game, parse_options(args.option))
    _check_spec(args.opponent, game)
    if not 0 <= args.seat < game.num_players:
        raise UsageError(f"--seat must be 0..{game.num_players - 1} for {game.name}, got {args.seat}")
    if args.seed is not None and not 0 <= args.seed < 2**63:
        raise UsageError(f"--seed must be an integer from 0 to 2**63 - 1, got {args.seed}")
    return play(game, args.opponent, seat=args.seat, seed=args.seed)


def _train_ntuple(args: argparse.Namespace) -> int:
    """TD(lambda) training of an n-tuple evaluation inside the game's alpha-beta search."""
    from parlour.training.ntuple import NTupleSettings, train_ntuple

    game = _game(args.game, parse_options(args.option))
    try:
        settings = NTupleSettings(generations=args.generations, games=args.games, depth=args.depth, opening=args.opening,
                                  teacher=not args.no_teacher, lam=args.lam, epochs=args.epochs, window=args.window,
                                  gate_games=args.gate_games, workers=args.workers, seed=args.seed)
        summary = train_ntuple(game, args.out, settings, log=print)
    except ValueError as error:
        raise UsageError(str(error)) from None
    best = max((row["generation"] for row in summary["generations"] if row["best"]), default=None)
    print(f"best: generation {best}; play it with ntuple:{Path(args.out) / 'best.zip'}")
    return 0


DEFAULT_ARENA: dict[str, Any] = {
    "game": "goofspiel",
    "options": {"num_cards": 6},
    "agents": ["random", "rudimentary", "original-search", "mcts:simulations=200", "equilibrium"],
}
"""What ``parlour arena`` plays without arguments (the README's command without extras):
Goofspiel with six cards (random prize order, carried ties, win/loss), the two players
of "Making the Tree Search" (``rudimentary``, ``original-search``), MCTS and the exact
equilibrium player against random; a minute or two on two cores."""

DEFAULT_TRAINING: dict[str, Any] = {
    "game": "goofspiel",
    "game_options": {"num_cards": 6},
    "opponents": ["random", "rudimentary", "self"],
    "timesteps": 150_000,
    "eval_every": 15_000,
}
"""What ``parlour train`` does without ``--game`` (the README's main job): a few minutes of
MaskablePPO on Goofspiel with six cards against random, ``rudimentary`` (the rule-based bot
of "Making the Tree Search") and itself."""


TRAIN_FLAGS: dict[str, str] = {
    "game": "--game",
    "opponents": "--opponents",
    "opponent_weights": "--weights",
    "eval_opponents": "--eval-opponents",
    "timesteps": "--timesteps",
    "n_envs": "--n-envs",
    "seed": "--seed",
    "vec_env": "--vec-env",
    "eval_every": "--eval-every",
    "eval_games": "--eval-games",
    "snapshot_every": "--snapshot-every",
    "network": "--network",
    "algo": "--algo",
    "backend": "--backend",
    "device": "--device",
}
"""Training settings that have a flag of their own (``game_options``: ``--option``)."""


def _train_settings(args: argparse.Namespace, settings: dict[str, Any]) -> dict[str, str]:
    """Apply ``--config``, the flags and ``--set`` (in rising precedence) to ``settings``.

    Returns which option set each setting (``{"eval_every": "--eval-every 5000",
    "ppo.n_steps": "--set ppo.n_steps=64"}``), for ``--resume`` to name what would change.
    ``ValueError`` on bad text."""
    from parlour.training.config import load_config, merge, parse_override
    from parlour.training.opponents import split_specs

    sources: dict[str, str] = {}
    if args.config is not None:
        for key, value in load_config(args.config).items():
            if isinstance(value, dict) and isinstance(settings.get(key), dict):  # [game_options], [ppo], [alphazero]
                settings[key] = {**settings[key], **value}
                sources.update({f"{key}.{sub}": f"--config {args.config}" for sub in value})
            else:
                settings[key] = value
                sources[key] = f"--config {args.config}"
    if args.option:
        settings["game_options"] = {**settings.get("game_options", {}), **parse_options(args.option)}
        sources.update({f"game_options.{item.partition('=')[0].strip()}": f"--option {item}" for item in args.option})
    given = {
        "game": args.game,
        "opponents": split_specs(args.opponents) if args.opponents else None,
        "opponent_weights": _weights(args.weights) if args.weights else None,
        "eval_opponents": split_specs(args.eval_opponents) if args.eval_opponents else None,
        "timesteps": args.timesteps,
        "n_envs": args.n_envs,
        "seed": args.seed,
        "vec_env": args.vec_env,
        "eval_every": args.eval_every,
        "eval_games": args.eval_games,
        "snapshot_every": args.snapshot_every,
        "network": args.network,
        "algo": args.algo,
        "backend": args.backend,
        "device": args.device,
    }
    texts = {"opponents": args.opponents, "opponent_weights": args.weights, "eval_opponents": args.eval_opponents}
    for key, value in given.items():
        if value is not None:
            settings[key] = value
            sources[key] = f"{TRAIN_FLAGS[key]} {texts.get(key, value)}"
    if args.address is not None:
        key = address_setting(settings.get("backend", "sb3"))
        merge(settings, key, args.address)
        sources[key] = f"--address {args.address}"
    for item in args.set or ():
        key, value = parse_override(item)
        merge(settings, key, value)
        sources[key] = f"--set {item}"
    return sources


ADDRESSES = ("rllib.address", "alphazero.address")
"""The settings ``--address`` sets, by backend (``address_setting``)."""


def address_setting(backend: str) -> str:
    """The setting ``--address`` sets for ``backend`` (Ray's RLlib, or alphazero's Ray actors)."""
    return "alphazero.address" if backend == "ray" else "rllib.address"


def _weights(text: str) -> list[float]:
    try:
        return [float(weight) for weight in text.split(",")]
    except ValueError:
        raise ValueError(f"--weights {text!r}: give numbers separated by commas, e.g. 1,1,2") from None


def _resume_changes(saved: Any, given: Any, sources: dict[str, str]) -> list[str]:
    """What the command line would change in a resumed run's saved configuration (all
    but the timesteps), as ``"--eval-every 5000 changes eval_every (saved 10000, given 5000)"``."""
    if saved.game != given.game:  # (the saved game options may mean nothing to the other game)
        return [f"{sources['game']} changes game (saved {saved.game!r}, given {given.game!r})"]
    games = [load_game(config.game, **config.game_options).config for config in (saved, given)]
    changes = []
    for key, source in sources.items():
        head, _, sub = key.partition(".")
        if head in ("timesteps", "device") or key in ADDRESSES:  # how long, and where: not what the run is
            continue
        if head == "game_options":  # compare the games' resolved options: defaults given explicitly are no change
            old, new = (games[0], games[1]) if not sub else (games[0].get(sub), games[1].get(sub))
        else:
            old, new = getattr(saved, head), getattr(given, head)
            if sub:
                old, new = old.get(sub), new.get(sub)
        if old != new:
            changes.append(f"{source} changes {key} (saved {old!r}, given {new!r})")
    return changes


def _train(args: argparse.Namespace) -> int:
    from parlour.training.config import load_config, make_config
    from parlour.training.run_files import RunFiles

    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    if args.final_games is not None and args.final_games < 0:
        raise UsageError(f"--final-games must be 0 or more, got {args.final_games}")
    if args.resume:
        if args.out is None:
            raise UsageError("--resume needs --out, the run directory to continue")
        if args.force:
            raise UsageError("--resume continues the run in --out and --force replaces it: give one or the other")
        files = RunFiles(Path(args.out))
        if not files.root.is_dir():
            raise UsageError(f"cannot resume: there is no run directory {args.out!r}")
        if not files.config.exists():
            raise UsageError(f"cannot resume: {args.out!r} is not a training run (no config.toml)")
        from parlour.locks import DirectoryLock, DirectoryLocked

        try:  # before the run's files are read; the trainer takes it again
            lock = DirectoryLock(files.root, "parlour train").acquire()
        except DirectoryLocked as error:
            raise Failure(str(error)) from None
        try:
            try:
                saved = make_config(load_config(files.config))
            except ValueError as error:
                raise Failure(f"cannot resume {args.out!r}: {error}; repair it, or start a new run with another --out") from None
            settings = saved.to_dict()
            try:
                sources = _train_settings(args, settings)
                given = make_config(settings)
                changes = _resume_changes(saved, given, sources)
            except ValueError as error:
                raise UsageError(str(error)) from None
            if changes:
                raise UsageError(
                    f"--resume continues the run with the settings in {str(files.config)!r}, where only --timesteps (and --address, --device) may change: "
                    + "; ".join(changes)
                )
            moved = {key: value for key, value in (("device", given.device), (address_setting(given.backend), args.address))
                     if key in sources}
            return _run_training(None, args.out, args, timesteps=given.timesteps if "timesteps" in sources else None, moved=moved)
        finally:
            lock.release()
    if args.algo == "alphazero" and (args.opponents or args.weights):
        raise UsageError("--algo alphazero learns by self-play only: --opponents and --weights are for ppo")
    settings: dict[str, Any] = {}
    if args.game is None and args.config is None:
        settings.update(json.loads(json.dumps(DEFAULT_TRAINING)))
        print(f"no --game given: the default run ({DEFAULT_TRAINING})", file=sys.stderr)
    try:
        _train_settings(args, settings)
        config = make_config(settings)
        _game(config.game, config.game_options)
    except ValueError as error:
        raise UsageError(str(error)) from None
    out = args.out or f"runs/{config.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    _check_out(out)
    return _run_training(config, out, args)


def _run_training(config: Any, out: str, args: argparse.Namespace, timesteps: int | None = None,
                  moved: dict[str, Any] | None = None) -> int:
    """Train (``config``, or for ``--resume`` the run's own) and play the final arena;
    ``moved``: where a resumed run now runs (``device``, a backend's ``address``), which
    config.toml keeps as first given."""
    from parlour.baselines import references
    from parlour.evaluation.arena import GameFailed
    from parlour.training.run_files import DamagedRun
    from parlour.training.trainers import open_trainer

    def warn(text: str) -> None:
        print(f"parlour train: warning: {text}", file=sys.stderr)

    from parlour.locks import DirectoryLocked

    try:
        trainer = open_trainer(config, out, resume=args.resume, force=args.force, progress=not args.quiet, timesteps=timesteps, warn=warn)
    except (DamagedRun, DirectoryLocked) as error:
        raise Failure(str(error)) from None
    except (ValueError, FileExistsError) as error:
        raise UsageError(str(error)) from None
    except ImportError as error:
        raise Failure(str(error)) from None
    for key, value in (moved or {}).items():
        try:
            trainer.move(key, value)
        except ValueError as error:
            raise UsageError(str(error)) from None
    try:
        result = trainer.run()
    except KeyboardInterrupt as interrupt:
        raise Interrupted(_where_the_run_stands(trainer)) from interrupt
    print(f"trained {result.steps:,} steps in {result.seconds:.0f} s; run directory {result.run_dir}")
    for warning in result.warnings:
        print(f"\nWARNING: {warning}\n")
    best = trainer.best_path
    refs = references(trainer.game)
    games = refs.final_games if args.final_games is None else args.final_games
    if games == 0 or not best.exists():
        return 0
    from parlour.evaluation.arena import play_match
    from parlour.evaluation.report import summarize, timing_text, to_markdown
    from parlour.training.run_files import write_atomic

    opponents = list(dict.fromkeys(refs.final().values()))
    agents = [trainer.learner_spec(str(best)), *opponents]
    print(f"\narena: the best model against {', '.join(opponents)} ({games} games per pairing)")
    try:
        match = play_match(trainer.game, agents, games, seed=trainer.config.seed, workers=args.workers, progress=not args.quiet)
    except KeyboardInterrupt as interrupt:
        options = [f"--option={key}={json.dumps(value)}" for key, value in trainer.config.game_options.items()]
        command = ["parlour", "arena", "--game", trainer.game.name, *options, "--agents", *agents, "--games", str(games), "--seed", str(trainer.config.seed)]
        raise Interrupted(f"in the final arena; the training is complete (run directory {result.run_dir}); to play the arena: {shlex.join(command)}") from interrupt
    except GameFailed as error:
        raise Failure(f"the final arena: {error}") from error
    summary = summarize(match)
    text = to_markdown(summary, focus=agents[0]) + "\n\n" + timing_text(summary)
    text = "".join(f"**WARNING**: {warning}\n\n" for warning in result.warnings) + text
    print(text)
    write_atomic(result.run_dir / "arena.md", text + "\n")
    return 0


def _where_the_run_stands(trainer: Any) -> str:
    """After Ctrl-C: the run's last checkpoint and the command that continues it."""
    from parlour.training.run_files import restart_hint

    files = trainer.files
    step = trainer.saved_step()
    if step is None:
        if files.config.exists():
            return f"no checkpoint was written yet, so {str(files.root)!r} cannot be resumed; {restart_hint(files)}"
        return f"nothing was saved in {str(files.root)!r} yet"
    return (
        f"the run in {str(files.root)!r} is saved at its checkpoint of step {step:,} of {trainer.total:,}; "
        f"continue it with: parlour train --out {shlex.quote(str(files.root))} --resume"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="parlour", description=parlour.__doc__.strip().splitlines()[0])
    parser.add_argument("--version", action="version", version=f"parlour {parlour.__version__}")
    debug_help = "on an error, print the Python traceback too (also: PARLOUR_DEBUG=1 in the environment)"
    parser.add_argument("--debug", action="store_true", help=debug_help)
    common = argparse.ArgumentParser(add_help=False)  # --debug after the command too
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=debug_help)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("list", help="the games, their env ids and options", parents=[common]).set_defaults(run=_list)
    demo = sub.add_parser("demo", help="play random games of every game and print a summary", parents=[common])
    demo.add_argument("--games", type=int, default=200, help="games per game (default 200)")
    demo.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    demo.set_defaults(run=_demo)

    games = sorted(GAMES)
    game_arg = {"type": _game_name, "metavar": "GAME"}
    option_help = "game option key=value (repeatable), e.g. --option num_cards=6 --option prize_order=descending"
    policies = sub.add_parser("policies", help="the baseline policies and their parameters", parents=[common])
    policies.add_argument("--game", **game_arg, help="only those that can play this game")
    policies.add_argument("--option", action="append", metavar="KEY=VALUE", help=option_help)
    policies.set_defaults(run=_policies)

    arena = sub.add_parser(
        "arena",
        help="play policies against each other and print ratings (no arguments: a default arena)",
        description="Play every group of agents against each other with seat rotation; print ratings and "
        "pairwise results (see parlour.evaluation.arena for the schedule and seeds).",
        epilog="agent specs: name or name:key=value,... (e.g. mcts:simulations=400); `parlour policies --game GAME` lists them",
        parents=[common],
    )
    arena.add_argument("--game", **game_arg, help="the game (default: the default arena's)")
    arena.add_argument("--agents", nargs="+", metavar="SPEC", help="two or more agent specs")
    arena.add_argument("--option", action="append", metavar="KEY=VALUE", help=option_help)
    arena.add_argument("--games", type=int, default=200, help="games per pairing of agents, rounded up so every agent plays every seat equally often (default 200)")
    arena.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    arena.add_argument("--workers", type=int, default=1, help="worker processes (default 1; the results do not depend on it)")
    arena.add_argument("--opening", type=int, default=0,
                       help="plies played at random (from each game's seed) before the agents take over, so that "
                            "deterministic searchers do not replay one game (default 0)")
    arena.add_argument("--backend", choices=["local", "ray"], default="local",
                       help="local worker processes (default) or Ray tasks over a cluster's CPUs (the same tables; needs the rllib extra)")
    arena.add_argument("--address", metavar="HOST:PORT",
                       help="with --backend ray: the Ray cluster to join (default: RAY_ADDRESS, else a local Ray on 127.0.0.1)")
    arena.add_argument("--out", metavar="DIR", help="also write arena.md, arena.json, CSVs and a PNG heatmap into DIR")
    arena.add_argument("--force", action="store_true", help="overwrite result files that already exist in --out")
    arena.add_argument("--no-plot", action="store_true", help="do not draw the PNG heatmap")
    arena.add_argument("--quiet", action="store_true", help="no progress bar")
    arena.set_defaults(run=_arena)

    play = sub.add_parser("play", help="play a game in the terminal against a policy", parents=[common])
    play.add_argument("game", type=_game_name, metavar="GAME", help=f"one of {', '.join(games)}, or {OPENSPIEL_PREFIX}NAME (an OpenSpiel game)")
    play.add_argument("--opponent", default="random", metavar="SPEC", help="policy spec for every other seat (default random)")
    play.add_argument("--seat", type=int, default=0, help="your seat, from 0 (default 0)")
    play.add_argument("--option", action="append", metavar="KEY=VALUE", help=option_help)
    play.add_argument("--seed", type=int, default=None, help="seed for the deal and the opponents (default: fresh, printed)")
    play.set_defaults(run=_play)

    serve = sub.add_parser("serve", help="play the games in the browser (the web extra)", parents=[common],
                           description="Serve the games on a web page: play any game against baselines or trained models "
                           "by clicking, watch policies play, save and load games. Binds 127.0.0.1 unless told otherwise.")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--runs", default="runs", metavar="DIR",
                       help="the only directory trained models are loaded from (default: runs, when it exists)")
    serve.add_argument("--move-seconds", type=float, default=3.0, metavar="S",
                       help="the longest a player may think over one move, searches and hints included (default 3)")
    serve.add_argument("--state", metavar="DIR", help="keep the games in play in DIR, so that they survive a restart")
    serve.add_argument("--token", help="the token every API request must carry (made and printed when --host is not loopback)")
    serve.add_argument("--max-games", type=int, default=500, help="games kept at most; past it, the one left alone longest goes (default 500)")
    serve.add_argument("--idle-minutes", type=float, default=60.0, help="a game nobody asked about for this long is dropped (default 60)")
    serve.add_argument("--workers", type=int, default=2, help="processes in which the players think (default 2)")
    serve.set_defaults(run=_serve)

    train = sub.add_parser(
        "train",
        help="train a MaskablePPO agent (no arguments: a few minutes on Goofspiel-6)",
        description="Train MaskablePPO on one seat of a game against policies and snapshots of itself; "
        "evaluate it periodically, keep the best model, checkpoint, and print its arena table at the end.",
        epilog="precedence: defaults < --config FILE.toml < flags < --set. "
        "opponent specs: as for the arena, plus 'self' for frozen snapshots of the learner.",
        parents=[common],
    )
    train.add_argument("--game", **game_arg, help="the game (default: the default run's)")
    train.add_argument("--option", action="append", metavar="KEY=VALUE", help=option_help)
    train.add_argument("--opponents", metavar="SPEC[,SPEC...]", help="opponent pool, e.g. random,mcts:simulations=50,self")
    train.add_argument("--weights", metavar="W[,W...]", help="sampling weights of the opponents (default equal)")
    train.add_argument("--timesteps", type=int, help="environment steps of the learner (rounded up to whole rollouts)")
    train.add_argument("--n-envs", type=int, help="parallel environments (default 4)")
    train.add_argument("--vec-env", choices=["dummy", "subproc", "batched"],
                       help="DummyVecEnv (default), SubprocVecEnv, or batched: one numpy engine steps every env "
                            "(games with a batched engine, one batched opponent such as random)")
    train.add_argument("--seed", type=int, help="run seed (default 0)")
    train.add_argument("--eval-every", type=int, help="steps between evaluations and checkpoints (default 10000)")
    train.add_argument("--eval-games", type=int, help="games per evaluation opponent (default 100)")
    train.add_argument("--eval-opponents", metavar="SPEC[,SPEC...]", help="who to evaluate against (default: random and the strongest baseline)")
    train.add_argument("--snapshot-every", type=int, help="steps between self-play snapshots (default 10000)")
    train.add_argument("--algo", choices=["ppo", "alphazero"],
                       help="ppo (MaskablePPO against --opponents; default) or alphazero (self-play guiding PUCT search; settings in [alphazero])")
    train.add_argument("--backend", choices=["sb3", "rllib", "ray"],
                       help="sb3 (Stable-Baselines3 in this process, or alphazero's local worker processes; default), rllib (Ray RLlib: "
                       "'self' opponents are live learning seats; settings in [rllib]) or ray (alphazero's self-play workers as Ray "
                       "actors); rllib and ray need the rllib extra")
    train.add_argument("--address", metavar="HOST:PORT",
                       help="with --backend rllib or ray: the Ray cluster to join (default: RAY_ADDRESS, else a local Ray on 127.0.0.1)")
    train.add_argument("--device", choices=["auto", "cpu", "cuda"],
                       help="where torch runs the network (auto: a GPU when torch sees one; default)")
    train.add_argument("--network", choices=["auto", "mlp", "cnn"],
                       help="policy network: mlp, cnn (a residual CNN over board planes), or auto (default: cnn for Tribolo and Double Card)")
    train.add_argument("--config", metavar="FILE.toml", help="settings file ([game_options] and [ppo] tables)")
    train.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a setting, e.g. --set ppo.learning_rate=1e-4")
    train.add_argument("--out", metavar="DIR", help="run directory (default runs/GAME-TIMESTAMP)")
    train.add_argument("--resume", action="store_true", help="continue the run in --out from its last intact checkpoint "
                       "(with its saved settings; --timesteps may extend it)")
    train.add_argument("--force", action="store_true", help="replace an existing run directory")
    train.add_argument("--final-games", type=int, help="games per pairing in the final arena (0: none; default 100, fewer for the slow games)")
    train.add_argument("--workers", type=int, default=1, help="worker processes for the final arena (default 1)")
    train.add_argument("--quiet", action="store_true", help="no progress bars")
    train.set_defaults(run=_train)

    ntuple = sub.add_parser(
        "train-ntuple",
        help="learn an n-tuple evaluation by TD(lambda) inside the game's alpha-beta search (Double Card)",
        description="Generations of self-play games of the game's alpha-beta search at a fixed depth, each fitting a "
        "logistic n-tuple evaluation to the games' lambda-returns; a generation becomes best.zip by beating the best "
        "in a gating match.  Play the result with ntuple:DIR/best.zip.",
        parents=[common],
    )
    ntuple.add_argument("--game", **game_arg, default="double_card", help="the game (default double_card)")
    ntuple.add_argument("--option", action="append", metavar="KEY=VALUE", help=option_help)
    ntuple.add_argument("--out", metavar="DIR", required=True, help="a new run directory (an existing one is refused)")
    ntuple.add_argument("--generations", type=int, default=4, help="generations of games and fits (default 4)")
    ntuple.add_argument("--games", type=int, default=1000, help="self-play games per generation (default 1000)")
    ntuple.add_argument("--depth", type=int, default=2, help="search depth of the self-play and gating games (default 2)")
    ntuple.add_argument("--opening", type=int, default=4, help="random plies that start every self-play game (default 4)")
    ntuple.add_argument("--no-teacher", action="store_true",
                        help="generation 0 plays with all weights zero instead of the search's own evaluation")
    ntuple.add_argument("--lam", type=float, default=0.7, help="TD(lambda)'s lambda (1: fit the results; default 0.7)")
    ntuple.add_argument("--epochs", type=int, default=300, help="full-batch epochs per fit (default 300)")
    ntuple.add_argument("--window", type=int, default=3, help="fit on the newest this many generations' games (default 3)")
    ntuple.add_argument("--gate-games", type=int, default=100, help="games of each gating match (0: every generation is best)")
    ntuple.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    ntuple.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    ntuple.set_defaults(run=_train_ntuple)

    from parlour.bench.cli import add_parser as add_bench_parser

    add_bench_parser(sub, common)
    return parser


def debug_wanted(args: argparse.Namespace) -> bool:
    """``--debug``, or ``PARLOUR_DEBUG`` set to anything but empty, 0, false, no or off."""
    value = os.environ.get("PARLOUR_DEBUG", "").strip().lower()
    return bool(getattr(args, "debug", False)) or value not in ("", "0", "false", "no", "off")


def error_line(error: BaseException) -> tuple[int, str]:
    """The exit status and the one line that reports ``error`` (after ``parlour COMMAND: ``)."""
    terminated = isinstance(error, Terminated) or isinstance(error.__cause__, Terminated)
    stopped, stop_code = ("terminated", 143) if terminated else ("interrupted", 130)
    if isinstance(error, Interrupted):
        code, text = stop_code, f"{stopped}; {error}"
    elif isinstance(error, KeyboardInterrupt):
        code, text = stop_code, stopped
    elif isinstance(error, UsageError):
        code, text = 2, f"error: {error}"
    elif isinstance(error, (Failure, DamagedFileError, ImportError, OSError)):
        code, text = 1, f"error: {error}"
    else:
        code, text = 1, f"error: {type(error).__name__}: {error} (unexpected; --debug or PARLOUR_DEBUG=1 shows the traceback)"
    return code, " ".join(line.strip() for line in text.splitlines() if line.strip())


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    if getattr(args, "games", 1) < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    handled = threading.current_thread() is threading.main_thread()  # signal handlers belong to the main thread
    previous = signal.signal(signal.SIGTERM, _raise_terminated) if handled else None
    try:
        return args.run(args)
    except (Exception, KeyboardInterrupt) as error:
        code, line = error_line(error)
        if debug_wanted(args):
            traceback.print_exc()
        elif code == 130 and sys.stderr.isatty():
            print(file=sys.stderr)  # off the line that the prompt, a progress bar or ^C left open
        print(f"parlour {args.command}: {line}", file=sys.stderr)
        return code
    finally:
        if handled:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


if __name__ == "__main__":
    sys.exit(main())
