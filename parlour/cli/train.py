"""``parlour train`` and ``parlour train-ntuple``: parse the settings, run the trainer,
print where the run stands."""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parlour.cli.common import (
    GAME_ARG,
    OPTION_HELP,
    check_out,
    make_game,
    parse_options,
)
from parlour.errors import Failure, Interrupted, UsageError
from parlour.games.base import counted


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    from parlour.baselines.learned.network_choice import NETWORKS
    from parlour.training import registry
    from parlour.training.backends.ppo.backend import VEC_KINDS

    train = sub.add_parser(
        "train",
        help="train a MaskablePPO agent (no arguments: a few minutes on Goofspiel-6)",
        description="Train MaskablePPO on one seat of a game against policies and snapshots of itself; "
        "evaluate it periodically, keep the best model, checkpoint, and print its arena table at the end.",
        epilog="precedence: defaults < --config FILE.toml < flags < --set. "
        "opponent specs: as for the arena, plus 'self' for frozen snapshots of the learner.",
        parents=[common],
    )
    train.add_argument("--game", **GAME_ARG, help="the game (default: the default run's)")
    train.add_argument("--option", action="append", metavar="KEY=VALUE", help=OPTION_HELP)
    train.add_argument("--opponents", metavar="SPEC[,SPEC...]", help="opponent pool, e.g. random,mcts:simulations=50,self")
    train.add_argument("--weights", metavar="W[,W...]", help="sampling weights of the opponents (default equal)")
    train.add_argument("--timesteps", type=int, help="environment steps of the learner (rounded up to whole rollouts)")
    train.add_argument("--n-envs", type=int, help="ppo: games played at once (ppo.n_envs; default: 256 batched, else 4)")
    train.add_argument("--vec-env", choices=VEC_KINDS,
                       help="ppo (ppo.vec_env): batched: one numpy engine steps every game, against the whole opponent mix; "
                            "dummy or subproc: "
                            "SB3's DummyVecEnv or SubprocVecEnv of single games; auto (default): batched for ppo on a game "
                            "with a batched engine (all five), else dummy; the choice is printed when the run starts. "
                            "rllib (rllib.vec_env): batched: one engine per env runner; dummy: one multi-agent env per "
                            "game; auto: batched unless the opponents hold self (a live learning seat)")
    train.add_argument("--seed", type=int, help="run seed (default 0)")
    train.add_argument("--eval-every", type=int, help="steps between evaluations and checkpoints (default 10000)")
    train.add_argument("--eval-games", type=int, help="games per evaluation opponent (default 100)")
    train.add_argument("--eval-opponents", metavar="SPEC[,SPEC...]",
                       help="who to evaluate against (default: random and the strongest baseline)")
    train.add_argument("--snapshot-every", type=int, help="ppo, and ppo on rllib: steps between self-play snapshots (default 10000)")
    train.add_argument("--algo", choices=registry.algos(), help=f"what to train: {registry.describe()}")
    train.add_argument("--backend", choices=registry.places(),
                       help="where it runs: local (this machine's processes: SB3 in this process, or the local workers of "
                       "alphazero and ntuple; default; 'sb3' in old runs), rllib (Ray RLlib: 'self' opponents are live learning "
                       "seats; settings in [rllib]) or ray (alphazero's self-play workers as Ray actors); rllib and ray need the "
                       "rllib extra")
    train.add_argument("--address", metavar="HOST:PORT",
                       help="with --backend rllib or ray: the Ray cluster to join (default: RAY_ADDRESS, else a local Ray on 127.0.0.1)")
    train.add_argument("--device", choices=["auto", "cpu", "cuda"],
                       help="where torch runs the network (auto: a GPU when torch sees one; default)")
    train.add_argument("--network", choices=NETWORKS,
                       help="ppo, alphazero and rllib: the network: mlp, cnn (a residual CNN over board planes), "
                            "or auto (default: cnn for Tribolo and Double Card)")
    train.add_argument("--teacher", metavar="SPEC",
                       help="ppo (ppo.teacher): a player the learner is distilled towards early on, e.g. "
                            "az:parlour/zoo/models/tides_of_time.zip,simulations=0 (kickstarting; weight and schedule: "
                            "ppo.teacher_weight, ppo.teacher_schedule, ppo.teacher_steps)")
    train.add_argument("--pretrain", metavar="SPEC",
                       help="ppo (ppo.pretrain): a player whose own games the network is fitted to before the first "
                            "rollout, e.g. a deep search: ntuple:parlour/zoo/models/tribolo.zip,depth=3,time_limit=none "
                            "(ppo.pretrain_games, ppo.pretrain_explore, ppo.pretrain_epochs, ppo.pretrain_workers, "
                            "ppo.pretrain_student_games, ppo.pretrain_start_share)")
    train.add_argument("--config", metavar="FILE.toml", help="settings file ([game_options] and [ppo] tables)")
    train.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a setting, e.g. --set ppo.learning_rate=1e-4")
    train.add_argument("--out", metavar="DIR", help="run directory (default runs/GAME-TIMESTAMP)")
    train.add_argument("--resume", action="store_true", help="continue the run in --out from its last intact checkpoint "
                       "(with its saved settings; --timesteps may extend it)")
    train.add_argument("--force", action="store_true", help="replace an existing run directory")
    train.add_argument("--final-games", type=int,
                       help="games per pairing in the final arena (0: none; default 100, fewer for the slow games)")
    train.add_argument("--workers", type=int, default=1, help="worker processes for the final arena (default 1)")
    train.add_argument("--quiet", action="store_true", help="no progress bars")
    train.set_defaults(run=run_train)


    ntuple = sub.add_parser(
        "train-ntuple",
        help="learn an n-tuple evaluation by TD(lambda) inside the game's alpha-beta search (Double Card, Tribolo)",
        description="Generations of self-play games of the game's alpha-beta search at a fixed depth, each fitting a "
        "logistic n-tuple evaluation to the games' lambda-returns; a generation becomes best.zip by beating the best "
        "in a gating match.  Play the result with ntuple:DIR/best.zip.  A shorthand of 'parlour train --algo ntuple' "
        "(--timesteps GENERATIONS*GAMES --eval-every GAMES --set ntuple.KEY=VALUE ...): the same run directory, "
        "evaluations, checkpoints and --resume.",
        parents=[common],
    )
    ntuple.add_argument("--game", **GAME_ARG, default="double_card", help="the game (default double_card)")
    ntuple.add_argument("--option", action="append", metavar="KEY=VALUE", help=OPTION_HELP)
    ntuple.add_argument("--out", metavar="DIR", required=True, help="the run directory (an existing one needs --resume or --force)")
    ntuple.add_argument("--resume", action="store_true", help="continue the run in --out (--generations may extend it)")
    ntuple.add_argument("--force", action="store_true", help="replace an existing run directory")
    ntuple.add_argument("--eval-games", type=int, default=100, help="games per evaluation opponent (default 100)")
    ntuple.add_argument("--eval-opponents", metavar="SPEC[,SPEC...]",
                        help="who to evaluate against (default: random and the strongest baseline)")
    ntuple.add_argument("--final-games", type=int, default=0, help="games per pairing in a final arena (default 0: none)")
    ntuple.add_argument("--quiet", action="store_true", help="no progress bar")
    ntuple.add_argument("--generations", type=int, default=4, help="generations of games and fits (default 4)")
    ntuple.add_argument("--games", type=int, default=1000, help="self-play games per generation (default 1000)")
    ntuple.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    add_settings_flags(ntuple, "ntuple")
    ntuple.set_defaults(run=run_train_ntuple)


SETTING_FLAG_PREFIX = "setting:"
"""The ``argparse`` destinations of the flags :func:`add_settings_flags` derives
(``setting:ntuple.depth``), apart from the command's own."""


def add_settings_flags(parser: argparse.ArgumentParser, table: str) -> None:
    """A flag for every setting of a backend's ``table`` (``--play-depth`` for
    ``ntuple.play_depth``), derived from its settings dataclass: the flag's type from the
    default's, ``--NAME``/``--no-NAME`` for a true-or-false one, its help from the field's,
    its default shown; a new field gets its flag.  Not given, a flag sets nothing (a new
    run takes the default, a resumed run its own); given, it is ``--set table.NAME=VALUE``,
    checked by the settings themselves (:func:`settings_flags_given`)."""
    from parlour.training import registry
    from parlour.training.backend_settings import field_default

    for field in dataclasses.fields(registry.tables()[table]):
        default, flag = field_default(field), "--" + field.name.replace("_", "-")
        shown = "empty" if default == "" else json.dumps(default)
        text = f"{field.metadata.get('help') or table + '.' + field.name} (default {shown})"
        dest = f"{SETTING_FLAG_PREFIX}{table}.{field.name}"
        if isinstance(default, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, dest=dest, help=text)
        else:
            parser.add_argument(flag, type=_flag_type(type(default)), default=None, dest=dest, help=text,
                                metavar=field.name.upper(), choices=field.metadata.get("choices"))


def _flag_type(kind: type) -> Any:
    """How a derived flag reads its text: as the setting's type (a list as TOML, ``[64, 64]``)."""
    if kind is list:
        from parlour.training.config import parse_override

        return lambda text: parse_override(f"v={text}")[1]
    return kind


def settings_flags_given(args: argparse.Namespace) -> list[Any]:
    """The derived flags given (:func:`add_settings_flags`), each as the ``Given`` of its
    setting with the words that gave it (``--depth 3``)."""
    from parlour.training.settings import Given

    given = []
    for dest, value in vars(args).items():
        if dest.startswith(SETTING_FLAG_PREFIX) and value is not None:
            key = dest.removeprefix(SETTING_FLAG_PREFIX)
            flag = "--" + ("" if value is not False else "no-") + key.partition(".")[2].replace("_", "-")
            given.append(Given(key, value, flag if isinstance(value, bool) else f"{flag} {value}"))
    return given


DEFAULT_TRAINING: dict[str, Any] = {
    "game": "goofspiel",
    "game_options": {"num_cards": 6},
    "opponents": ["random", "rudimentary", "self"],
    "timesteps": 1_500_000,
    "eval_every": 150_000,
}
"""What ``parlour train`` does without ``--game`` (the README's main job): about two minutes
of MaskablePPO on 256 batched games of Goofspiel with six cards against random,
``rudimentary`` (the rule-based bot of "Making the Tree Search") and itself."""


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
"""Training settings that have a flag of their own (``game_options``: ``--option``); those of
``config.MOVED_SETTINGS`` (``--n-envs``, ``--vec-env``, ``--snapshot-every``, ``--network``) set
the run's backend's table, and are an error for a backend without them."""


def settings_given(args: argparse.Namespace) -> Any:
    """What the command line gives (``SettingsGiven``, which applies it in precedence:
    defaults < --config FILE < flags < --address < --set).  ``UsageError`` on bad text."""
    from parlour.training.config import parse_override
    from parlour.training.opponents import split_specs
    from parlour.training.settings import Given, SettingsGiven

    try:
        flags = _option_flags(args.option)
        values = {
            "opponents": split_specs(args.opponents) if args.opponents else None,
            "opponent_weights": _weights(args.weights) if args.weights else None,
            "eval_opponents": split_specs(args.eval_opponents) if args.eval_opponents else None,
        }
        texts = {"opponents": args.opponents, "opponent_weights": args.weights, "eval_opponents": args.eval_opponents}
        for key, flag in TRAIN_FLAGS.items():
            value = values[key] if key in values else getattr(args, key)
            if value is not None:
                flags.append(Given(key, value, f"{flag} {texts.get(key, value)}"))
        if args.teacher is not None:
            flags.append(Given("ppo.teacher", args.teacher, f"--teacher {args.teacher}"))
        if args.pretrain is not None:
            flags.append(Given("ppo.pretrain", args.pretrain, f"--pretrain {args.pretrain}"))
        overrides = [Given(*parse_override(item), f"--set {item}") for item in args.set or ()]
        return SettingsGiven(args.config, tuple(flags), args.address, tuple(overrides))
    except ValueError as error:
        raise UsageError(str(error)) from None


def _option_flags(items: list[str] | None) -> list[Any]:
    """The ``--option KEY=VALUE`` flags as settings given (``game_options.KEY``)."""
    from parlour.training.settings import Given

    return [Given(f"game_options.{key}", value, f"--option {item}") for item in items or () for key, value in parse_options([item]).items()]


def _weights(text: str) -> list[float]:
    try:
        return [float(weight) for weight in text.split(",")]
    except ValueError:
        raise ValueError(f"--weights {text!r}: give numbers separated by commas, e.g. 1,1,2") from None


@dataclass(frozen=True)
class RunOptions:
    """How ``parlour train`` runs a configuration: where (``out``), whether it continues
    (``resume``) or replaces (``force``) a run there, and its final arena's size."""

    out: str | None
    resume: bool = False
    force: bool = False
    quiet: bool = False
    final_games: int | None = None
    workers: int = 1


def run_train(args: argparse.Namespace) -> int:
    options = RunOptions(args.out, args.resume, args.force, args.quiet, args.final_games, args.workers)
    _check_self_play(args.algo, bool(args.opponents or args.weights), args.resume)
    return _train_given(settings_given(args), options, default_run=args.game is None and args.config is None)


def _check_self_play(algo: str | None, opponents: bool, resume: bool) -> None:
    """``UsageError`` for ``--opponents`` or ``--weights`` with an algo that learns by self-play only."""
    from parlour.training import registry

    if algo and opponents and not resume and not any(cls.learns_against_opponents for cls in registry.backends() if cls.algo == algo):
        raise UsageError(f"--algo {algo} learns by self-play only: --opponents and --weights are for ppo")


def _train_given(given: Any, options: RunOptions, default_run: bool) -> int:
    """A run of the settings ``given`` (``SettingsGiven``): a new one (the default run's
    settings below them where ``default_run``), or with ``options.resume`` the run in
    ``options.out`` continued."""
    from parlour.training.config import make_config
    from parlour.training.settings import check_backend_settings

    if options.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {options.workers}")
    if options.final_games is not None and options.final_games < 0:
        raise UsageError(f"--final-games must be 0 or more, got {options.final_games}")
    if options.resume:
        if options.out is None:
            raise UsageError("--resume needs --out, the run directory to continue")
        if options.force:
            raise UsageError("--resume continues the run in --out and --force replaces it: give one or the other")
        return _run_training(None, options, given)
    settings: dict[str, Any] = {}
    if default_run:
        settings.update(json.loads(json.dumps(DEFAULT_TRAINING)))
        print(f"no --game given: the default run ({DEFAULT_TRAINING})", file=sys.stderr)
    try:
        sources = given.apply(settings)
        config = make_config(settings)
        check_backend_settings(config, sources)
        make_game(config.game, config.game_options)
    except ValueError as error:
        raise UsageError(str(error)) from None
    out = options.out or f"runs/{config.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    check_out(out)
    return _run_training(config, RunOptions(out, False, options.force, options.quiet, options.final_games, options.workers), None)


def _run_training(config: Any, options: RunOptions, given: Any) -> int:
    """Train (``config``, or for ``--resume`` the run's own, checked against what the
    command line ``given``) and play the final arena."""
    from parlour.locks import DirectoryLocked
    from parlour.training.run_files import DamagedRun
    from parlour.training.trainer import Trainer

    def warn(text: str) -> None:
        print(f"parlour train: warning: {text}", file=sys.stderr)

    assert options.out is not None  # --resume names the run; a new run gets its directory above
    try:
        trainer = Trainer(config, options.out, resume=options.resume, force=options.force, progress=not options.quiet, warn=warn,
                          given=given)
    except (DamagedRun, DirectoryLocked, ImportError) as error:
        raise Failure(str(error)) from None
    except (ValueError, FileExistsError) as error:
        raise UsageError(str(error)) from None
    try:
        result = trainer.run()
    except KeyboardInterrupt as interrupt:
        raise Interrupted(_where_the_run_stands(trainer)) from interrupt
    print(f"trained {counted(result.steps, 'step')} in {result.seconds:.0f} s; run directory {result.run_dir}")
    for warning in result.warnings:
        print(f"\nWARNING: {warning}\n")
    from parlour.baselines import references
    from parlour.evaluation.arena import GameFailed

    best = trainer.best_path
    refs = references(trainer.game)
    games = refs.final_games if options.final_games is None else options.final_games
    if games == 0 or not best.exists():
        return 0
    from parlour.evaluation.arena import play_match
    from parlour.evaluation.report import summarize, timing_text, to_markdown
    from parlour.training.run_files import write_atomic

    opponents = list(dict.fromkeys(refs.final().values()))
    agents = [trainer.learner_spec(str(best)), *opponents]
    print(f"\narena: the best model against {', '.join(opponents)} ({games} games per pairing)")
    try:
        match = play_match(trainer.game, agents, games, seed=trainer.config.seed, workers=options.workers, progress=not options.quiet)
    except KeyboardInterrupt as interrupt:
        game_options = [f"--option={key}={json.dumps(value)}" for key, value in trainer.config.game_options.items()]
        command = ["parlour", "arena", "--game", trainer.game.name, *game_options, "--agents", *agents,
                   "--games", str(games), "--seed", str(trainer.config.seed)]
        raise Interrupted(f"in the final arena; the training is complete (run directory {result.run_dir}); "
                          f"to play the arena: {shlex.join(command)}") from interrupt
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


def run_train_ntuple(args: argparse.Namespace) -> int:
    """``parlour train --algo ntuple`` with the n-tuple learner's own flags (each given as
    the ``parlour train`` flag or ``--set ntuple.KEY=VALUE`` it stands for)."""
    from parlour.training.config import saved_config

    given = ntuple_settings_given(args)
    options = RunOptions(args.out, args.resume, args.force, args.quiet, args.final_games, 1)
    code = _train_given(given, options, default_run=False)
    learner = saved_config(Path(args.out) / "config.toml").ntuple
    print(f"play the best with ntuple:{Path(args.out) / 'best.zip'},depth={learner['play_depth'] or learner['depth']},time_limit=none")
    return code


def ntuple_settings_given(args: argparse.Namespace) -> Any:
    """What a ``parlour train-ntuple`` command line gives, as ``parlour train``'s settings
    (``SettingsGiven``); ``UsageError`` on a bad generation count or text."""
    from parlour.training.opponents import split_specs
    from parlour.training.settings import Given, SettingsGiven

    if args.generations < 1 or args.games < 1:
        raise UsageError(f"--generations and --games must be at least 1, got {args.generations} and {args.games}")
    run = {"game": args.game, "timesteps": args.generations * args.games, "seed": args.seed, "eval_every": args.games,
           "eval_games": args.eval_games, "algo": "ntuple"}
    try:
        flags = [*_option_flags(args.option), *(Given(key, value, f"{TRAIN_FLAGS[key]} {value}") for key, value in run.items())]
        if args.eval_opponents:
            flags.append(Given("eval_opponents", split_specs(args.eval_opponents), f"--eval-opponents {args.eval_opponents}"))
    except ValueError as error:
        raise UsageError(str(error)) from None
    return SettingsGiven(None, tuple(flags), None, tuple(settings_flags_given(args)))
