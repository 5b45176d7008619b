"""Put a training run's best model into the model zoo (``parlour/zoo/models``).

    python -m scripts.zoo_add runs/tides_az --command "parlour train ..." \
        --play simulations=200 --bench bench/tides_of_time.json

Copies RUN/best.zip (or ``--model``, another model file of the run such as last.zip or
a snapshot) to GAME.zip and writes GAME.json (with ``--variant ppo``: the entry GAME-ppo, GAME-ppo.zip and
GAME-ppo.json, beside the game's default agent) (the card: how it plays, the
command and the resolved config.toml of the run, or an n-tuple run's settings from its
summary.json, the parlour and rules versions, the bench card).  An agent already in the zoo is replaced only with ``--force``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path, PurePosixPath

import parlour
from parlour import toml_read, zoo
from parlour.baselines.learned.ppo import read_model_meta
from parlour.baselines.policy import make_from_spec
from parlour.games import load_game
from parlour.zoo import KINDS, card


def run_config(run: Path) -> dict[str, object]:
    """The run's whole configuration: ``parlour train``'s resolved config.toml, or the
    game options and settings of an n-tuple run from before they were runs of ``parlour train`` (its summary.json)."""
    if (run / "config.toml").is_file():
        return toml_read.loads((run / "config.toml").read_text())
    summary = json.loads((run / "summary.json").read_text())
    return {"game": summary["game"], "game_options": summary["options"], "ntuple": summary["settings"]}


def copy_ppo_for_play(model: Path, target: Path) -> None:
    """A PPO model file as the zoo ships it: the same policy weights and parlour metadata,
    Adam's moments dropped (a fresh optimizer: they are two thirds of a training run's
    file and play no part in a move), a line convolution's weights off its lines zeroed
    (``LineConv.zero_off_lines``: they never count) and the entries deflated."""
    import tempfile
    import zipfile

    from sb3_contrib import MaskablePPO

    from parlour.baselines.learned.board_layers import LineConv

    loaded = MaskablePPO.load(model, device="cpu")
    policy = loaded.policy
    for module in policy.modules():  # weights that never count, zeroed so that they deflate
        if isinstance(module, LineConv):
            module.zero_off_lines()
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=loaded.lr_schedule(1), **policy.optimizer_kwargs)
    with zipfile.ZipFile(model) as original:
        meta = original.read("parlour.json")
    with tempfile.TemporaryDirectory() as tmp:
        saved = Path(tmp) / "model.zip"
        loaded.save(saved)
        packed = Path(tmp) / "packed.zip"
        with zipfile.ZipFile(saved) as plain, zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as out:
            for name in plain.namelist():
                out.writestr(name, plain.read(name))
            out.writestr("parlour.json", meta)
        shutil.copyfile(packed, target)


def add(run: Path, command: str, play: dict[str, object], bench: Path | None, notes: str = "", force: bool = False,
        models: Path | None = None, model_name: str = "best.zip", variant: str = "") -> Path:
    """Copy ``run``'s model ``model_name`` (its best by default) into ``models`` (the
    zoo's folder by default, read at the call) with its card (which names the file,
    ``"run_model"``), as the game's entry (``variant``: the entry ``GAME-VARIANT``); the card's path."""
    models = zoo.MODELS if models is None else models
    inside = PurePosixPath(model_name)
    if inside.is_absolute() or ".." in inside.parts or not model_name.endswith(".zip"):
        raise ValueError(f"--model {model_name!r}: a model file of the run, its path inside the run directory, such as "
                         "best.zip, last.zip or snapshots/step_000000000.zip")
    model = run / model_name
    if not model.is_file():
        raise FileNotFoundError(f"{model} does not exist")
    meta = read_model_meta(model)
    game = load_game(meta["game"], **meta.get("config", {}))
    kind = {"alphazero": "az"}.get(meta.get("kind", "ppo"), meta.get("kind", "ppo"))
    if kind not in KINDS:
        raise ValueError(f"{model}: a {kind!r} model; the zoo takes {list(KINDS)}")
    if variant and not zoo.VARIANT.fullmatch(variant):
        raise ValueError(f"--variant {variant!r}: lower-case letters, digits and '_' (ppo)")
    name = f"{game.name}-{variant}" if variant else game.name
    target = models / f"{name}.json"
    if target.exists() and not force:
        what = f"an entry {name}" if variant else f"an agent for {game.name}"
        raise FileExistsError(f"the zoo has {what} already ({target}); --force replaces it")
    make_from_spec(",".join([f"{kind}:{model}", *(f"{k}={v}" for k, v in play.items())]), game)  # it plays as stated
    entry = {
        "game": game.name,
        "kind": kind,
        "play": play,
        "command": command,
        "run_model": model_name,
        "config": run_config(run),
        "parlour_version": parlour.__version__,
        "rules_version": game.rules_version,
        "bench": json.loads(bench.read_text()) if bench else {},
        "notes": notes,
    }
    models.mkdir(parents=True, exist_ok=True)
    if kind == "ppo":
        copy_ppo_for_play(model, models / f"{name}.zip")
    else:
        shutil.copyfile(model, models / f"{name}.zip")
    target.write_text(json.dumps(entry, indent=1) + "\n")
    return target


def _value(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="the training run directory")
    parser.add_argument("--command", required=True, help="the command that trained it")
    parser.add_argument("--play", nargs="*", default=[], help="the player's parameters, key=value")
    parser.add_argument("--bench", type=Path, help="the model's parlour bench card (JSON)")
    parser.add_argument("--notes", default="", help="what a user should know about it")
    parser.add_argument("--force", action="store_true", help="replace the game's agent")
    parser.add_argument("--model", default="best.zip",
                        help="which model file of the run, its path inside the run directory (default best.zip; "
                             "last.zip: its last generation; snapshots/step_000000000.zip: a PPO run's step-0 network)")
    parser.add_argument("--variant", default="", help="add the entry GAME-VARIANT (e.g. ppo: GAME-ppo) instead of the game's default agent")
    parser.add_argument("--models", type=Path, default=None, help="the zoo folder to write to (default: parlour/zoo/models)")
    args = parser.parse_args(argv)
    play = {key: _value(value) for key, _, value in (item.partition("=") for item in args.play)}
    path = add(args.run, args.command, play, args.bench, args.notes, args.force, models=args.models, model_name=args.model,
               variant=args.variant)
    print(f"wrote {path}" + ("" if args.models else f"; zoo:{card(path.stem).name} plays it"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
