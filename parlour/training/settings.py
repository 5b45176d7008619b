"""The settings a run was given, in their precedence, and what a resume may change.

Precedence, lowest first: the defaults (``TrainConfig``'s, or a resumed run's saved
config.toml), a TOML file (``--config``), the flags (each a setting of its own, game
options included), a Ray address (``--address``, whose setting depends on the backend),
and ``--set KEY=VALUE`` overrides.  Every setting remembers the words that gave it, so
that a resume can name what it refuses to change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from parlour.games import load_game
from parlour.training import registry
from parlour.training.config import MOVED_SETTINGS, TrainConfig, load_config, merge


@dataclass(frozen=True)
class Given:
    """One setting given: a dotted ``key`` (``eval_every``, ``game_options.num_cards``,
    ``ppo.n_steps``), its ``value``, and the words that gave it (``--eval-every 5000``)."""

    key: str
    value: Any
    source: str


@dataclass(frozen=True)
class SettingsGiven:
    """Everything a command line gave for a run, applied in precedence by :meth:`apply`."""

    config_file: str | None = None
    flags: tuple[Given, ...] = ()
    address: str | None = None
    overrides: tuple[Given, ...] = ()

    @staticmethod
    def _address_setting(settings: dict[str, Any]) -> str:
        """The setting ``--address`` gives for the run's algo and backend (``rllib.address``,
        ``alphazero.address``); ``ValueError`` where the run does not use Ray."""
        algo, backend = settings.get("algo", TrainConfig.algo), settings.get("backend", TrainConfig.backend)
        key = registry.address_setting(algo, backend)
        if key is None:
            using = [f"{algo}/{place}" for algo, place in registry.pairs() if registry.address_setting(algo, place)]
            raise ValueError(f"--address names a Ray cluster, for {', '.join(using)}; algo {algo!r} runs on backend {backend!r}")
        return key

    def apply(self, settings: dict[str, Any]) -> dict[str, str]:
        """Apply the file, the flags, the address and the overrides to ``settings`` (in
        place); which words set each setting (``{"eval_every": "--eval-every 5000"}``).
        ``ValueError`` on an unknown setting or a bad file."""
        sources: dict[str, str] = {}
        if self.config_file is not None:
            for key, value in load_config(self.config_file).items():
                if key in ("game_options", *registry.tables()) and isinstance(value, dict) and isinstance(settings.get(key), dict):
                    settings[key] = {**settings[key], **value}
                    sources.update({f"{key}.{sub}": f"--config {self.config_file}" for sub in value})
                elif key in MOVED_SETTINGS:  # an old name: into the tables that have it
                    merge(settings, key, value)
                    sources[key] = f"--config {self.config_file}"
                else:
                    settings[key] = value
                    sources[key] = f"--config {self.config_file}"
        for given in self.flags:
            merge(settings, given.key, given.value)
            sources[given.key] = given.source
        if self.address is not None:
            key = self._address_setting(settings)
            merge(settings, key, self.address)
            sources[key] = f"--address {self.address}"
        for given in self.overrides:
            merge(settings, given.key, given.value)
            sources[given.key] = given.source
        return sources


def resume_changes(saved: TrainConfig, given: TrainConfig, sources: dict[str, str]) -> list[str]:
    """What ``given`` would change in a resumed run's ``saved`` configuration, besides
    its length and where it runs (timesteps, device, address), as
    ``"--eval-every 5000 changes eval_every (saved 10000, given 5000)"``."""
    if saved.game != given.game:  # (the saved game options may mean nothing to the other game)
        return [f"{sources['game']} changes game (saved {saved.game!r}, given {given.game!r})"]
    games = [load_game(config.game, **config.game_options).config for config in (saved, given)]
    changes = []
    for key, source in sources.items():
        head, _, sub = key.partition(".")
        if head in ("timesteps", "device") or key in registry.address_settings():  # how long, and where: not what the run is
            continue
        if head == "game_options":  # compare the games' resolved options: defaults given explicitly are no change
            old, new = (games[0], games[1]) if not sub else (games[0].get(sub), games[1].get(sub))
        else:
            old, new = saved.value(key), given.value(key)
        if old != new:
            changes.append(f"{source} changes {key} (saved {old!r}, given {new!r})")
    return changes


PPO_FLAGS = {"--teacher": "MaskablePPO's distillation", "--pretrain": "MaskablePPO's supervised start"}
"""The ``parlour train`` flags that set a ``[ppo]`` setting, and what it is."""


def check_backend_settings(config: TrainConfig, sources: dict[str, str]) -> None:
    """``ValueError`` naming the first setting given by its top-level name (``--n-envs 8``,
    ``--set network=cnn``: :data:`~parlour.training.config.MOVED_SETTINGS`) that the run's
    backend does not have, and the backends that have it."""
    backend = registry.backend_class(config.algo, config.backend)
    own = backend.Settings.defaults()
    for key, source in sources.items():
        flag = source.split(" ", 1)[0]
        if flag in PPO_FLAGS and backend.table_name() != "ppo":
            own_teacher = config.algo == "alphazero" and flag == "--teacher"
            raise ValueError(f"{source}: {flag} sets ppo.{flag[2:]} ({PPO_FLAGS[flag]}), not a setting of algo "
                             f"{config.algo!r} on backend {config.backend!r}"
                             + ("; AlphaZero's is --set alphazero.teacher=SPEC" if own_teacher else ""))
        if key in MOVED_SETTINGS and key not in own:
            users = [f"algo {cls.algo!r} on backend {'/'.join(cls.runs_on)}" for cls in registry.backends()
                     if key in cls.Settings.defaults()]
            raise ValueError(f"{source}: {key} is a setting of {' and of '.join(users)}, not of algo {config.algo!r} "
                             f"on backend {config.backend!r}")
