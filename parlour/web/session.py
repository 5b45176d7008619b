"""One game played in the browser: who sits where (people and policies), the position,
the move log, undo, hints, and the game saved as a record and loaded back.

No web framework here (``parlour.web.app`` serves it), so the tests drive a session as
they drive a game.  What a person sees is drawn for their seat: the picture
(``parlour.render.picture(state, seat)``: hidden cards face down), the legal moves with
the picture's click targets, and a move log in the game's notation in which the moves of
other seats are written out only where the game shows them to everyone
(``Game.actions_public``); elsewhere the picture shows what is public.  Policies choose from their
own information states, at a simultaneous step before anyone's choice is applied.

Model files are pickles, so a seat played by a trained model (``ppo:``, ``az:``,
``rllib:``) names a path *inside the runs directory the server was started with*, never
anywhere else (:func:`resolve_spec`).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from parlour.baselines import Policy, make_from_spec, parse_spec, references
from parlour.baselines.learned.ppo import read_model_meta
from parlour.baselines.playout import joint_action, policy_act
from parlour.baselines.policy import POSITIONAL
from parlour.errors import IllegalActionError
from parlour.games import GAMES, Game, load_game
from parlour.games.base import State
from parlour.render import move_targets, picture

PERSON = "person"
RECORD_FORMAT = "parlour-game/1"
MODEL_POLICIES = ("ppo", "az", "rllib")
"""Policies that load a file given by their ``path`` parameter."""


class SessionError(ValueError):
    """A request the session refuses, with the reason (the web layer answers 4xx)."""


def resolve_spec(spec: str, runs_dir: Path | None) -> str:
    """``spec`` with a model's path resolved inside ``runs_dir``; an error for a path
    outside it, or for any model when the server has no runs directory."""
    name, params = parse_spec(spec)
    if name not in MODEL_POLICIES:
        return spec
    key = POSITIONAL if POSITIONAL in params else "path"
    if runs_dir is None:
        raise SessionError(f"{spec!r}: this server loads no models (start it with --runs DIR)")
    raw = params.get(key, "")
    root = runs_dir.resolve()
    target = (root / raw).resolve()
    if not raw or Path(raw).is_absolute() or (target != root and root not in target.parents):
        raise SessionError(f"{spec!r}: a model must be a path inside the runs directory {str(runs_dir)!r}, got {raw!r}")
    if not target.exists():
        raise SessionError(f"{spec!r}: no model at {raw!r} in the runs directory")
    params[key] = str(target)
    rest = ",".join(f"{k}={v}" if k != POSITIONAL else v for k, v in sorted(params.items(), key=lambda kv: kv[0] != POSITIONAL))
    return f"{name}:{rest}"


def find_models(runs_dir: Path | None) -> list[str]:
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
        found.append(f"{player}:{path.relative_to(runs_dir).as_posix()}")
    return found


class GameSession:
    """A game with ``seats`` (``"person"`` or a policy spec, one per seat) from ``seed``."""

    def __init__(self, game: Game, seats: list[str], seed: int = 0, runs_dir: Path | None = None, start: State | None = None) -> None:
        if len(seats) != game.num_players:
            raise SessionError(f"{game.name} has {game.num_players} seats: give {game.num_players} players, got {len(seats)}")
        self.game, self.seed, self.runs_dir = game, int(seed), runs_dir
        self.seats = list(seats)
        seeds = np.random.SeedSequence(self.seed).spawn(game.num_players + 1)
        self.policies: dict[int, Policy] = {}
        for seat, spec in enumerate(seats):
            if spec == PERSON:
                continue
            try:
                self.policies[seat] = make_from_spec(resolve_spec(spec, runs_dir), game, seed=int(seeds[seat].generate_state(1)[0]))
            except SessionError:
                raise
            except (ValueError, ImportError, OSError) as error:
                raise SessionError(f"seat {seat}: {error}") from None
        self.hint_seeds = seeds[-1]
        self.state = start if start is not None else game.new_initial_state(self.seed)
        self.start_text = self.state.to_text()
        self.steps: list[int | dict[int, int]] = []  # what was applied, step by step (the record)
        self.log: list[dict[str, Any]] = []
        self.undo_stack: list[tuple[State, int]] = []  # (position, steps so far) before each person's move
        self.pending: dict[int, int] = {}  # people's choices at a simultaneous step, waiting for the others
        self.last: Any = None
        self.script: list[int | dict[int, int]] | None = None  # a replay's steps (from_arena)
        self.lock = threading.Lock()
        if self.people:  # the policies move until a person must choose; a game of policies
            self.advance()  # only (watch mode) goes a step at a time

    # ----- who acts ---------------------------------------------------------------------

    @property
    def people(self) -> list[int]:
        return [seat for seat, spec in enumerate(self.seats) if spec == PERSON]

    def to_act(self) -> list[int]:
        """The people who must choose now (not yet chosen at a simultaneous step)."""
        if self.script is not None:
            return []
        return [s for s in self.state.current_players() if s not in self.policies and s not in self.pending]

    # ----- moves ------------------------------------------------------------------------

    def move(self, seat: int, action: int) -> None:
        """The person at ``seat`` plays ``action``; then the policies play until a person
        must choose again (or the game ends)."""
        state = self.state
        if seat not in self.people:
            raise SessionError(f"seat {seat} is not played by a person here; people sit at {self.people}")
        if seat not in self.to_act():
            if state.is_terminal():
                raise SessionError("the game is over")
            raise SessionError(f"it is not player_{seat}'s turn; to act: {', '.join(f'player_{s}' for s in state.current_players())}")
        if isinstance(action, bool) or not isinstance(action, int):
            raise SessionError(f"an action is an integer, got {action!r}")
        legal = state.legal_actions(seat)
        if action not in legal:
            texts = ", ".join(state.action_to_text(a) for a in legal[:12])
            raise SessionError(f"action {action} is not a legal move for player_{seat} now; legal moves: {texts}"
                               + (" ..." if len(legal) > 12 else ""))
        if not self.pending:
            self.undo_stack.append((state.clone(), len(self.steps)))
        self.pending[seat] = action
        if self.to_act():
            return  # other people still choose at this simultaneous step
        fixed, self.pending = self.pending, {}
        self._apply(joint_action(state, policy_act(state, self.policies), fixed=fixed))
        self.advance()

    def advance(self, limit: int | None = None) -> int:
        """Let the policies play while no person is to act (at most ``limit`` steps: the
        watch mode steps one at a time); returns the steps played."""
        played = 0
        act = policy_act(self.state, self.policies)
        while not self.state.is_terminal() and not self.to_act() and (limit is None or played < limit):
            if self.script is not None:  # a replay: the recorded step, checked by the rules
                if len(self.steps) >= len(self.script):
                    break
                try:
                    self._apply(self.script[len(self.steps)])
                except ValueError as error:
                    raise SessionError(f"step {len(self.steps)} of the arena game does not replay: {error}") from None
            else:
                self._apply(joint_action(self.state, act))
            played += 1
        return played

    def _apply(self, action: int | dict[int, int]) -> None:
        state = self.state
        players = state.current_players()
        entry = {"step": len(self.steps), "moves": {}}
        for seat, chosen in (action.items() if isinstance(action, dict) else [(players[0], action)]):
            entry["moves"][seat] = {"action": int(chosen), "text": state.action_to_text(chosen)}
        state.apply(action)
        self.steps.append(action)
        self.log.append(entry)
        self.last = action if isinstance(action, dict) else (players[0], action)

    def undo(self) -> None:
        """Back to the position before the people's last move."""
        if not self.undo_stack:
            raise SessionError("nothing to undo yet")
        self.state, steps = self.undo_stack.pop()
        del self.steps[steps:]
        del self.log[steps:]
        self.pending = {}
        self.last = None

    def hint(self, seat: int, spec: str | None = None) -> dict[str, Any]:
        """What ``spec`` (default: the game's quick reference player) would play at ``seat``,
        chosen by a fresh policy from the seat's information state."""
        from parlour.play import evaluation

        if seat not in self.to_act():
            raise SessionError(f"player_{seat} has no move to choose now")
        spec = spec or references(self.game).quick
        try:
            policy = make_from_spec(resolve_spec(spec, self.runs_dir), self.game)
        except SessionError:
            raise
        except (ValueError, ImportError, OSError) as error:
            raise SessionError(f"no hint from {spec!r}: {error}") from None
        policy.reset(int(self.hint_seeds.spawn(1)[0].generate_state(1)[0]))
        action = int(policy.act(self.state.info_state(seat)))
        return {"spec": spec, "action": action, "text": self.state.action_to_text(action),
                "evaluation": evaluation(policy, self.state, action)}

    # ----- what a person sees -------------------------------------------------------------

    def view(self, seat: int | None) -> dict[str, Any]:
        """Everything the page shows to ``seat`` (``None``: a spectator sees all)."""
        state, game = self.state, self.game
        if seat is not None and not 0 <= seat < game.num_players:
            raise SessionError(f"no seat {seat}; seats are 0..{game.num_players - 1}")
        drawing = picture(state, seat=seat, last=self.last)
        choosing = seat is not None and seat in self.to_act()
        moves = []
        if choosing:
            targets = move_targets(state, seat)
            moves = [{"action": a, "text": state.action_to_text(a), "targets": targets.get(a, [])} for a in state.legal_actions(seat)]
        returns = [float(r) for r in state.returns()] if state.is_terminal() else None
        return {
            "game": game.name, "options": _plain(game.config), "seats": self.seats, "you": seat,
            "status": self._status(seat), "over": state.is_terminal(), "returns": returns,
            "to_act": list(state.current_players()), "waiting_for": self.to_act(), "chosen": seat in self.pending if seat is not None else False,
            "picture": drawing.svg(), "moves": moves, "log": self._log_for(seat), "can_undo": bool(self.undo_stack),
            "text": state.view_text(seat) if seat is not None else state.to_text(),
        }

    def _status(self, seat: int | None) -> str:
        state = self.state
        if state.is_terminal():
            returns = state.returns()
            best = returns.max()
            winners = [s for s in range(len(returns)) if returns[s] == best]
            if len(winners) == len(returns):
                return "game over: a draw"
            names = " and ".join("you" if s == seat else f"player_{s}" for s in winners)
            return f"game over: {names} win{'s' if len(winners) == 1 and winners[0] != seat else ''}"
        if seat is not None and seat in self.pending:
            return "your choice is in; waiting for the others"
        if seat is not None and seat in self.to_act():
            return "your move"
        return "waiting for " + ", ".join(f"player_{s}" for s in state.current_players())

    def _log_for(self, seat: int | None) -> list[dict[str, Any]]:
        public = self.game.actions_public
        out = []
        for entry in self.log:
            moves = {s: (m["text"] if seat is None or s == seat or public else "(moved)") for s, m in entry["moves"].items()}
            out.append({"step": entry["step"], "moves": {f"player_{s}": text for s, text in moves.items()}})
        return out

    # ----- the record ---------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The game as data (JSON): game, options, seats, seed, start position and every
        step applied; :meth:`load` plays it back."""
        return {"format": RECORD_FORMAT, "game": self.game.name, "options": _plain(self.game.config), "seats": self.seats,
                "seed": self.seed, "start": self.start_text,
                "steps": [{str(k): v for k, v in s.items()} if isinstance(s, dict) else s for s in self.steps]}

    @classmethod
    def load(cls, record: Any, runs_dir: Path | None = None) -> GameSession:
        """A session from :meth:`record`'s data, every step replayed and checked (a record
        that does not replay is an error naming the step).  All its seats are people, so
        the game can be looked at, undone and played on."""
        if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
            raise SessionError(f"not a saved parlour game (format {RECORD_FORMAT!r} expected)")
        try:
            name = record["game"]
            if name not in GAMES:
                raise SessionError(f"unknown game {name!r} in the record")
            game = load_game(name, **record.get("options", {}))
            start = game.state_from_text(record["start"])
            session = cls(game, [PERSON] * game.num_players, seed=int(record.get("seed", 0)), runs_dir=runs_dir, start=start)
            for index, step in enumerate(record["steps"]):
                action = {int(k): int(v) for k, v in step.items()} if isinstance(step, dict) else int(step)
                try:
                    session.undo_stack.append((session.state.clone(), len(session.steps)))
                    session._apply(action)
                except ValueError as error:  # IllegalActionError too
                    raise SessionError(f"step {index} of the record does not replay: {error}") from None
        except SessionError:
            raise
        except (KeyError, TypeError, ValueError) as error:
            raise SessionError(f"the record is malformed: {error}") from None
        return session


def from_arena(summary: Any, index: int, runs_dir: Path | None = None) -> GameSession:
    """A replay of game ``index`` of an arena's ``arena.json`` (``parlour arena --out``):
    the game from its seed, its recorded moves played one at a time by :meth:`GameSession.advance`
    (the watch mode), each checked by the rules."""
    try:
        game = load_game(summary["game"], **summary.get("options", {}))
        rows = {int(row["game"]): row for row in summary["games_played"]}
        row = rows[int(index)]
        steps: list[int | dict[int, int]] = []
        for token in str(row.get("moves", "")).split():
            if ":" in token:
                steps.append({int(s): int(a) for s, a in (pair.split(":") for pair in token.split("/"))})
            else:
                steps.append(int(token))
        start = game.new_initial_state(int(row["game_seed"]))
        seats = [str(row[f"seat_{s}"]) for s in range(game.num_players)]
    except KeyError as error:
        raise SessionError(f"not an arena game: {error} missing (give arena.json of `parlour arena --out` and a game in it)") from None
    except (TypeError, ValueError) as error:
        raise SessionError(f"the arena file is malformed: {error}") from None
    session = GameSession(game, [PERSON] * game.num_players, runs_dir=runs_dir, start=start)
    session.seats, session.script = seats, steps
    return session


def _plain(config: dict[str, Any]) -> dict[str, Any]:
    """A game's options as JSON values (tuples become lists)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in config.items()}
