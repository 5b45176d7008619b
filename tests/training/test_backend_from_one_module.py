"""A training backend from one module: the backend below (a random search over a table
of moves for sticks) is a ``Backend`` subclass with its declaration and settings, added
by one ``register`` call, and ``parlour train`` trains it like any other: config.toml,
evaluations, checkpoints, best.zip, ``--set`` of its own settings, and ``--resume``."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from parlour.baselines.policy import Policy
from parlour.cli import main
from parlour.training import registry
from parlour.training.backend import LOCAL, Backend, RunContext
from parlour.training.backend_settings import BackendSettings, setting
from parlour.training.run_files import Checkpoint


@dataclass(frozen=True)
class TableSearchSettings(BackendSettings):
    """The ``[table_search]`` table: each step tries one change of the table, kept when it
    scores at least as well over ``games`` games against random moves."""

    games: int = setting(16, low=1)


class TablePolicy(Policy):
    """Plays the move the table gives for the sticks left (``table[sticks - 1]``)."""

    name = "table"
    summary = "a table of moves by sticks left"

    def __init__(self, game: Any, table: list[int]) -> None:
        super().__init__(game)
        self.table = table

    def act(self, info_state: Any) -> int:
        legal = info_state.legal_actions()
        move = self.table[info_state.state.sticks - 1]
        return move if move in legal else legal[-1]


class TableSearchBackend(Backend):
    """Random search over the table of moves of sticks (see the module docstring)."""

    algo = "table-search"
    runs_on = (LOCAL,)
    Settings = TableSearchSettings
    table = "table_search"
    summary = "random search over a table of moves (a test's backend)"

    def __init__(self, run: RunContext) -> None:
        super().__init__(run)
        self.settings = TableSearchSettings(**self.config.table_search)

    def start(self) -> None:
        self.rng = np.random.default_rng(self.config.seed)
        self.moves = [0] * self.game.num_sticks
        self.score = self._score(self.moves)

    def restore(self, checkpoint: Checkpoint) -> None:
        self.moves = json.loads(checkpoint.model.read_text())
        self.score = checkpoint.state["score"]
        self.rng = np.random.default_rng(self.config.seed)
        self.rng.bit_generator.state = checkpoint.state["rng"]

    def train(self, step: int, until: int, advance: Callable[[int], None]) -> int:
        while step < until:
            moves = list(self.moves)
            sticks = int(self.rng.integers(len(moves)))
            moves[sticks] = int(self.rng.integers(min(self.game.max_take, sticks + 1)))
            score = self._score(moves)
            if score >= self.score:
                self.moves, self.score = moves, score
            step += 1
            advance(1)
        return step

    def _score(self, moves: list[int]) -> float:
        """The table's mean result in ``games`` games against random moves, each seat in turn."""
        rng, total = np.random.default_rng(0), 0.0
        for index in range(self.settings.games):
            state, seat = self.game.new_initial_state(), index % 2
            while not state.is_terminal():
                player = state.current_players()[0]
                legal = state.legal_actions(player)
                move = moves[state.sticks - 1] if player == seat else int(rng.choice(legal))
                state.apply(move if move in legal else legal[-1])
            total += state.returns()[seat]
        return total / self.settings.games

    def save_candidate(self, path: Path, step: int) -> Path:
        candidate = path.with_suffix(".json")
        candidate.write_text(json.dumps(self.moves))
        return candidate

    def candidate_agent(self, candidate: Path) -> Any:
        return TablePolicy(self.game, json.loads(candidate.read_text()))

    def state(self) -> dict[str, Any]:
        return {"score": self.score, "rng": self.rng.bit_generator.state}


@pytest.fixture
def table_search():
    registry.register(TableSearchBackend)
    yield TableSearchBackend
    registry.unregister(TableSearchBackend)


def train(out: Path, *args: str) -> int:
    return main(["train", "--game", "sticks", "--algo", "table-search", "--eval-games", "20", "--final-games", "0", "--quiet",
                 "--out", str(out), *args])


def test_a_backend_registered_from_one_module_trains_through_parlour_train(table_search, tmp_path):
    assert ("table-search", "local") in registry.pairs() and "table_search.games" in registry.settings_names()
    run = tmp_path / "run"
    assert train(run, "--timesteps", "60", "--eval-every", "30", "--set", "table_search.games=8") == 0
    config = (run / "config.toml").read_text()
    assert 'algo = "table-search"' in config and 'backend = "local"' in config and "[table_search]\ngames = 8" in config
    with open(run / "evaluations.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted({int(row["step"]) for row in rows}) == [0, 30, 60]
    pointer = json.loads((run / "checkpoint.json").read_text())
    assert pointer["step"] == 60
    assert len(json.loads((run / "best.zip").read_text())) == 10  # the table: a move per number of sticks
    assert json.loads((run / "last.zip").read_text()) == json.loads((run / "checkpoints" / f"step_{60:09d}" / "model.zip").read_text())

    # a resume extends it from its checkpoint, as the same run uninterrupted
    assert train(run, "--resume", "--timesteps", "90") == 0
    whole = tmp_path / "whole"
    assert train(whole, "--timesteps", "90", "--eval-every", "30", "--set", "table_search.games=8") == 0
    assert (run / "last.zip").read_text() == (whole / "last.zip").read_text()
    assert (run / "evaluations.csv").read_text() == (whole / "evaluations.csv").read_text()


def test_its_settings_are_checked_by_their_bounds(table_search, tmp_path, capsys):
    assert train(tmp_path / "run", "--timesteps", "10", "--set", "table_search.games=0") == 2
    assert "table_search.games must be at least 1, got 0" in capsys.readouterr().err
