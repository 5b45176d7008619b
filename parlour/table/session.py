"""One game at a table: who sits where (people and policies), the position, the move
log, undo, hints, and the game saved as a record and loaded back.

No web framework here (``parlour.web.app`` serves it over HTTP, ``parlour.terminal``
in a terminal), so the tests drive a session as they drive a game.  What a person sees is drawn for their seat: the picture
(``parlour.render.picture(state, seat, players=seats)``: hidden cards face down, each
seat named with who sits in it), the legal moves with
the picture's click targets, and a move log in the game's notation in which the moves of
other seats are written out only where the game shows them to everyone
(``Game.actions_public``); elsewhere the picture shows what is public.

Policies choose through a *thinker* (:mod:`parlour.table.thinking`): the server's worker
processes, or this process for a program that uses a session directly.  Each policy
move is a fresh choice from the seat's information state, seeded by the game's seed,
the seat and the step, so the same seed plays the same game whichever process thinks,
and a game restored after a restart goes on as it would have.  A policy that does not
choose within the server's per-move limit *stalls* the game: the view says so, nothing
is applied, and ``advance`` (the page's next step) asks it again.  The policies move
through ``parlour.baselines.playout.play_out``, the one loop that moves a game past the
seats that are not its caller's, with its step limit: a game still going after
``max_steps`` steps (the game's ``max_game_length``) is *cut off*: it says so, takes no
more moves or steps (a 400 on the server), and can only be undone.

Which players a request may name, and the time limit they get: :mod:`parlour.table.specs`.
``trusted=True`` is the session of a person at their own terminal (``parlour play``, the
text front end over this class): any spec plays, model files from anywhere, and with
``move_seconds=None`` no time limit.  So ``parlour play GAME --seed S`` and ``parlour
serve``'s game with seed S deal the same game and draw the policies' moves from the same
seeds.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from parlour.baselines import references
from parlour.baselines.explain import describe
from parlour.baselines.playout import play_out
from parlour.errors import EndlessGame
from parlour.games import GAMES, Game, load_game
from parlour.games.base import State, shown
from parlour.render import move_targets, picture
from parlour.table.errors import SessionError
from parlour.table.specs import find_models, vet_spec
from parlour.table.thinking import Job, LocalThinker, NoThinker, Overrun

__all__ = ["PERSON", "RECORD_FORMAT", "GameSession", "SessionError", "find_models", "from_arena"]

PERSON = "person"
RECORD_FORMAT = "parlour-game/1"
DEFAULT_MOVE_SECONDS = 3.0
"""How long a policy may think over one move, unless the server says otherwise."""
HINTS = 2**31
"""Seeds of hints are drawn apart from the seats' (``SeedSequence([seed, HINTS, n])``)."""


class GameSession:
    """A game with ``seats`` (``"person"`` or a policy spec, one per seat) from ``seed``.

    ``thinker``: where the policies choose (default: in this process); ``runs_dir``: where
    models may be loaded from; ``move_seconds``: how long a policy may think per move
    (``None``: no limit); ``play``: let the policies move at once until a person is to
    choose; ``trusted``: the specs come from the person at the machine, not from a request
    (any policy, files anywhere, no time limit imposed on the spec); ``max_steps``: the
    steps the game may take before it is cut off (default: its ``max_game_length``)."""

    def __init__(self, game: Game, seats: list[str], seed: int = 0, runs_dir: Path | None = None, start: State | None = None, *,
                 thinker: Any = None, move_seconds: float | None = DEFAULT_MOVE_SECONDS, play: bool = True,
                 trusted: bool = False, max_steps: int | None = None) -> None:
        if not isinstance(seats, list) or len(seats) != game.num_players:
            raise SessionError(f"{game.name} has {game.num_players} seats: give {game.num_players} players, got {shown(seats)}")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
            raise SessionError(f"seed must be an integer from 0 to 2**63 - 1, got {shown(seed)}")
        if not trusted and move_seconds is None:
            raise SessionError("a session that takes untrusted requests needs a time per move (move_seconds)")
        self.game, self.seed, self.runs_dir = game, int(seed), runs_dir
        self.seats = list(seats)
        self.thinker = thinker if thinker is not None else LocalThinker()
        self.move_seconds = move_seconds
        self.trusted = trusted
        self.max_steps = game.info.max_game_length if max_steps is None else max_steps
        self.specs: dict[int, str] = {}  # the seats played by policies: the spec each plays
        self.notes: dict[int, str] = {}  # what the server's time limit means for a seat
        for seat, spec in enumerate(seats):
            if spec == PERSON:
                continue
            played, note = self._played(spec)
            try:
                self.thinker.check(played, game)
            except (ValueError, ImportError, OSError, NoThinker) as error:
                raise SessionError(f"seat {seat} ({spec}): {error}") from None
            self.specs[seat] = played
            if note:
                self.notes[seat] = note
        self.start = (start if start is not None else game.new_initial_state(self.seed)).clone()
        self.start_text = self.start.to_text()
        self.state = self.start.clone()
        self.steps: list[int | dict[int, int]] = []  # what was applied, step by step (the record)
        self.log: list[dict[str, Any]] = []
        self.undo_stack: list[int] = []  # the number of steps before each of the people's moves
        self.pending: dict[int, int] = {}  # people's choices at a simultaneous step, waiting for the others
        self.last: Any = None
        self.stalled: str | None = None  # why the policies stopped short of their move, if they did (or the cut-off)
        self.hints = 0
        self.script: list[int | dict[int, int]] | None = None  # a replay's steps (from_arena)
        self.lock = threading.Lock()
        if play and self.people:  # the policies move until a person must choose; a game of policies
            self.advance(seconds=move_seconds)  # only (watch mode) goes a step at a time

    # ----- who acts ---------------------------------------------------------------------

    @property
    def people(self) -> list[int]:
        return [seat for seat, spec in enumerate(self.seats) if spec == PERSON]

    def to_act(self) -> list[int]:
        """The people who must choose now (not yet chosen at a simultaneous step)."""
        if self.script is not None:
            return []
        return [s for s in self.state.current_players() if s not in self.specs and s not in self.pending]

    def policies_to_move(self) -> bool:
        """True when the game waits for its policies (or a replay's next step), not for a person."""
        return not self.state.is_terminal() and not self.to_act()

    def cut_off(self) -> str | None:
        """Why the game cannot go on though it is not over: it has taken its ``max_steps``
        (rules or players that never end it would otherwise keep a server busy for ever)."""
        if self.state.is_terminal() or len(self.steps) < self.max_steps:
            return None
        return (f"the game was stopped: it did not end within {self.max_steps} steps ({self.game.name} "
                f"ends within {self.game.info.max_game_length}); its rules or its players do not end it")

    # ----- moves ------------------------------------------------------------------------

    def move(self, seat: int | None, action: Any) -> None:
        """The person at ``seat`` (``None``, a spectator, is refused) plays ``action``; then the policies play until a person
        must choose again (or the game ends, or they have thought ``move_seconds``)."""
        state = self.state
        if seat not in self.people:
            raise SessionError(f"seat {seat} is not played by a person here; people sit at {self.people}")
        if (stop := self.cut_off()) is not None:
            raise SessionError(stop)
        if seat not in self.to_act():
            if state.is_terminal():
                raise SessionError("the game is over")
            raise SessionError(f"it is not player_{seat}'s turn; to act: {', '.join(f'player_{s}' for s in state.current_players())}")
        if isinstance(action, bool) or not isinstance(action, int):
            raise SessionError(f"an action is an integer, got {shown(action)}")
        legal = state.legal_actions(seat)
        if action not in legal:
            texts = ", ".join(state.action_to_text(a) for a in legal[:12])
            raise SessionError(f"action {action} is not a legal move for player_{seat} now; legal moves: {texts}"
                               + (" ..." if len(legal) > 12 else ""))
        if not self.pending:
            self.undo_stack.append(len(self.steps))
        self.pending[seat] = action
        self.advance(seconds=self.move_seconds)

    def advance(self, limit: int | None = None, seconds: float | None = None) -> int:
        """Let the policies play while no person is to act: at most ``limit`` steps (the
        watch mode steps one at a time), and no new step after ``seconds``; returns the
        steps played.  A policy that cannot choose stalls the game, and a game at its
        ``max_steps`` is cut off (:attr:`stalled` says which)."""
        before, start = len(self.steps), time.monotonic()
        self.stalled = None

        def stop(state: State) -> bool:
            played = len(self.steps) - before
            return (not self.policies_to_move() or (limit is not None and played >= limit)
                    or (played > 0 and seconds is not None and time.monotonic() - start >= seconds)
                    or (self.script is not None and len(self.steps) >= len(self.script)))

        act = self._choice if self.script is None else self._scripted
        try:
            play_out(self.state, act=act, apply=self._apply, until=stop, max_steps=self.max_steps - len(self.steps))
        except _Stalled as stalled:
            self.stalled = str(stalled)
        except EndlessGame:
            pass  # cut off: said below
        except ValueError as error:  # IllegalActionError too
            if self.script is None:
                raise
            raise SessionError(f"step {len(self.steps)} of the arena game does not replay: {error}") from None
        if self.stalled is None:
            self.stalled = self.cut_off()
        return len(self.steps) - before

    def _choice(self, seat: int) -> int:
        """``seat``'s action at this step: a person's pending choice, or its policy's, a
        fresh choice from the seat's information state; raises ``_Stalled`` when the policy
        fails to choose, so that nothing of the step is applied."""
        if seat in self.pending:
            return self.pending[seat]
        state, spec = self.state, self.specs[seat]
        job = Job(spec, self.game, state.info_state(seat), self._seed(seat, len(self.steps)), self.move_seconds)
        try:
            action = self.thinker.think(job).action
        except Overrun:
            raise _Stalled(f"player_{seat} ({self.seats[seat]}) did not choose within this server's "
                           f"{self.move_seconds:g} s per move; step to ask it again, or undo") from None
        except NoThinker as error:
            raise _Stalled(f"player_{seat} ({self.seats[seat]}) could not think now ({error}); step to ask it again") from None
        except (ValueError, ImportError, OSError) as error:
            raise _Stalled(f"player_{seat} ({self.seats[seat]}) failed: {error}") from None
        if action not in state.legal_actions(seat):
            raise _Stalled(f"player_{seat} ({self.seats[seat]}) chose action {action}, which is not legal here")
        return action

    def _scripted(self, seat: int) -> int:
        """``seat``'s action in the replay's step (the rules check it when it is applied);
        a step that moves other seats than the rules' does not replay."""
        step, players = self.script[len(self.steps)], self.state.current_players()  # type: ignore[index]
        moves = step if isinstance(step, dict) else {players[0]: step}
        if set(moves) != set(players):
            raise ValueError(f"it moves seats {sorted(moves)}, and seats {list(players)} are to move")
        return moves[seat]

    def _played(self, spec: Any) -> tuple[str, str | None]:
        """The spec a seat (or a hint) plays for ``spec``, and a note on the server's limits."""
        if not self.trusted:
            assert self.move_seconds is not None  # checked in __init__
            return vet_spec(spec, self.game, self.runs_dir, self.move_seconds)
        if not isinstance(spec, str) or not spec.strip():
            raise SessionError(f"a player is a spec such as 'mcts:simulations=200', got {shown(spec)}")
        return spec, None

    def _seed(self, seat: int, step: int) -> int:
        return int(np.random.SeedSequence([self.seed, seat, step]).generate_state(1)[0])

    def _apply(self, action: int | dict[int, int]) -> None:
        state = self.state
        players = state.current_players()
        if isinstance(action, dict) and len(players) == 1 and set(action) == {players[0]}:
            action = action[players[0]]  # a step of one seat is its action (a saved game may spell it {seat: a})
        moves: dict[int, dict[str, Any]] = {}
        for seat, chosen in (action.items() if isinstance(action, dict) else [(players[0], action)]):
            moves[seat] = {"action": int(chosen), "text": state.action_to_text(chosen)}
        entry = {"step": len(self.steps), "moves": moves}
        state.apply(action)
        self.pending = {}  # the people's choices are in the step
        self.steps.append(action)
        self.log.append(entry)
        self.last = action if isinstance(action, dict) else (players[0], action)

    def undo(self) -> None:
        """Back to the position before the people's last move (replayed from the start)."""
        if not self.undo_stack:
            raise SessionError("nothing to undo yet")
        steps = self.undo_stack.pop()
        state = self.start.clone()
        for action in self.steps[:steps]:
            state.apply(action)
        self.state = state
        del self.steps[steps:]
        del self.log[steps:]
        self.pending, self.last, self.stalled = {}, None, None

    def hint(self, seat: int | None, spec: Any = None) -> dict[str, Any]:
        """What ``spec`` (default: the game's quick reference player) would play at ``seat``,
        chosen from the seat's information state within the server's per-move limit."""
        if seat not in self.to_act():
            raise SessionError(f"player_{seat} has no move to choose now")
        spec = spec or references(self.game).quick
        try:
            played, _ = self._played(spec)
        except SessionError as error:
            raise SessionError(f"no hint: {error}") from None
        seed = int(np.random.SeedSequence([self.seed, HINTS, self.hints + 1]).generate_state(1)[0])
        job = Job(played, self.game, self.state.info_state(seat), seed, self.move_seconds, explain=True)
        try:
            choice = self.thinker.think(job)
        except Overrun:
            raise SessionError(f"no hint from {spec!r} within this server's {self.move_seconds:g} s per move; "
                               "ask a quicker player") from None
        except NoThinker as error:
            raise SessionError(f"no hint now: {error}; ask again") from None
        except (ValueError, ImportError, OSError) as error:
            raise SessionError(f"no hint from {spec!r}: {error}") from None
        self.hints += 1
        return {"spec": spec, "action": choice.action, "text": self.state.action_to_text(choice.action),
                "evaluation": describe(choice.facts, self.state, choice.action)}

    # ----- what a person sees -------------------------------------------------------------

    def view(self, seat: int | None) -> dict[str, Any]:
        """Everything the page shows to ``seat`` (``None``: a spectator sees all)."""
        state, game = self.state, self.game
        if seat is not None and not 0 <= seat < game.num_players:
            raise SessionError(f"no seat {seat}; seats are 0..{game.num_players - 1}")
        drawing = picture(state, seat=seat, last=self.last, players=self.seats)
        choosing = seat is not None and seat in self.to_act()
        moves = []
        if choosing:
            assert seat is not None
            targets = move_targets(state, seat)
            moves = [{"action": a, "text": state.action_to_text(a), "targets": targets.get(a, [])} for a in state.legal_actions(seat)]
        returns = [float(r) for r in state.returns()] if state.is_terminal() else None
        return {
            "game": game.name, "options": _plain(game.config), "seats": self.seats, "you": seat,
            "status": self._status(seat), "over": state.is_terminal(), "returns": returns,
            "to_act": list(state.current_players()), "waiting_for": self.to_act(),
            "chosen": seat in self.pending if seat is not None else False,
            "picture": drawing.svg(), "moves": moves, "log": self._log_for(seat), "can_undo": bool(self.undo_stack),
            "text": state.view_text(seat) if seat is not None else state.to_text(),
            "policies_to_move": self.policies_to_move() and self.script is None and bool(self.people),
            "stalled": self.stalled,
            "limits": {"move_seconds": self.move_seconds, "notes": {f"player_{s}": n for s, n in self.notes.items()}},
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
        if self.stalled:
            return self.stalled
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

    def summary(self) -> dict[str, Any]:
        """A line of the list of games in play."""
        return {"game": self.game.name, "seats": self.seats, "steps": len(self.steps), "over": self.state.is_terminal(),
                "status": self._status(None)}

    # ----- the record ---------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The game as data (JSON): game, options, seats, seed, start position and every
        step applied; :meth:`load` plays it back."""
        return {"format": RECORD_FORMAT, "game": self.game.name, "options": _plain(self.game.config), "seats": self.seats,
                "seed": self.seed, "start": self.start_text,
                "steps": [{str(k): v for k, v in s.items()} if isinstance(s, dict) else s for s in self.steps]}

    def snapshot(self) -> dict[str, Any]:
        """:meth:`record` with what a restarted server needs to go on with the game as it
        was: the undo points, the people's pending choices, a replay's script, the hints."""
        data = self.record()
        data.update(undo=list(self.undo_stack), pending={str(k): v for k, v in self.pending.items()}, hints=self.hints,
                    script=None if self.script is None else [{str(k): v for k, v in s.items()} if isinstance(s, dict) else s
                                                             for s in self.script])
        return data

    @classmethod
    def load(cls, record: Any, runs_dir: Path | None = None, *, thinker: Any = None,
             move_seconds: float = DEFAULT_MOVE_SECONDS, people: bool = True) -> GameSession:
        """A session from :meth:`record`'s data, every step replayed and checked (a record
        that does not replay is an error naming the step).  With ``people`` (a saved game
        loaded by a person) all its seats are people, so the game can be looked at, undone
        and played on; without, the seats are as recorded (a server's restart)."""
        if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
            raise SessionError(f"not a saved parlour game (format {RECORD_FORMAT!r} expected)")
        try:
            name = record["game"]
            if name not in GAMES:
                raise SessionError(f"unknown game {shown(name)} in the record")
            options = record.get("options", {})
            if not isinstance(options, dict):
                raise SessionError(f"the record's options must be an object, got {shown(options)}")
            game = load_game(name, **options)
            if not isinstance(record["start"], str):
                raise SessionError(f"the record's start must be a position's text, got {shown(record['start'])}")
            start = game.state_from_text(record["start"])
            steps = record["steps"]
            if not isinstance(steps, list) or len(steps) > game.info.max_game_length:
                raise SessionError(f"the record's steps must be a list of at most {game.info.max_game_length} steps")
            seats = [PERSON] * game.num_players if people else record["seats"]
            session = cls(game, seats, seed=record.get("seed", 0), runs_dir=runs_dir, start=start, thinker=thinker,
                          move_seconds=move_seconds, play=False)
            if not people:
                session.seats = list(record["seats"])
            for index, step in enumerate(steps):
                try:
                    action = _step(step, game.num_players)
                    if people:
                        session.undo_stack.append(len(session.steps))
                    session._apply(action)
                except (ValueError, TypeError) as error:  # IllegalActionError too
                    raise SessionError(f"step {index} of the record does not replay: {error}") from None
        except SessionError:
            raise
        except (KeyError, TypeError, ValueError, OverflowError, RecursionError) as error:
            raise SessionError(f"the record is malformed: {shown(error, 200)}") from None
        return session

    @classmethod
    def restore(cls, data: dict[str, Any], runs_dir: Path | None = None, *, thinker: Any = None,
                move_seconds: float = DEFAULT_MOVE_SECONDS) -> GameSession:
        """The game of :meth:`snapshot`'s data, as it was (its seats' players too)."""
        script = data.get("script") if isinstance(data, dict) else None
        # A replay's seats are the arena's labels, not players: it is loaded as people's, then labelled.
        session = cls.load(data, runs_dir, thinker=thinker, move_seconds=move_seconds, people=script is not None)
        try:
            undo = [n for n in map(_integer, data.get("undo", [])) if 0 <= n <= len(session.steps)]
            session.undo_stack = [] if script is not None else undo
            session.pending = {int(k): _integer(v) for k, v in (data.get("pending") or {}).items()}
            session.hints = _integer(data.get("hints", 0))
            if script is not None:
                session.seats = [_label(seat) for seat in data["seats"]][: session.game.num_players]
                session.script = [_step(s, session.game.num_players) for s in script]
        except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as error:
            raise SessionError(f"the saved game is malformed: {shown(error, 200)}") from None
        return session


class _Stalled(Exception):
    """A policy did not choose (the message says why): raised through ``play_out``, which
    stops with the step unapplied, to the session, which shows it and waits."""


def from_arena(summary: Any, index: Any, runs_dir: Path | None = None, **session: Any) -> GameSession:
    """A replay of game ``index`` of an arena's ``arena.json`` (``parlour arena --out``):
    the game from its seed, its recorded moves played one at a time by :meth:`GameSession.advance`
    (the watch mode), each checked by the rules."""
    try:
        if not isinstance(summary, dict) or not isinstance(summary.get("options", {}), dict):
            raise TypeError("arena.json's data is an object with the game, its options and games_played")
        game = load_game(summary["game"], **summary.get("options", {}))
        rows = {_integer(row["game"]): row for row in summary["games_played"]}
        row = rows[_integer(index)]
        tokens = str(row.get("moves", "")).split()
        if len(tokens) > game.info.max_game_length:
            raise ValueError(f"{len(tokens)} moves, more than the game's {game.info.max_game_length}")
        steps: list[int | dict[int, int]] = []
        for token in tokens:
            if ":" in token:
                steps.append(_step({s: a for s, a in (pair.split(":") for pair in token.split("/"))}, game.num_players, text=True))
            else:
                steps.append(int(token))
        start = game.new_initial_state(_integer(row["game_seed"]))
        seats = [_label(row[f"seat_{s}"]) for s in range(game.num_players)]
    except KeyError as error:
        raise SessionError(f"not an arena game: {shown(error)} missing "
                           "(give arena.json of `parlour arena --out` and a game in it)") from None
    except (TypeError, ValueError, AttributeError, OverflowError) as error:
        raise SessionError(f"the arena file is malformed: {shown(error, 200)}") from None
    replay = GameSession(game, [PERSON] * game.num_players, runs_dir=runs_dir, start=start, **session)
    replay.seats, replay.script = seats, steps
    return replay


def _integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {shown(value)}")
    return value


def _step(step: Any, seats: int, text: bool = False) -> int | dict[int, int]:
    """A recorded step: an action, or ``{seat: action}`` (keys text, as JSON writes them;
    with ``text``, the actions too) for seats ``0..seats-1``."""
    if not isinstance(step, dict):
        return _integer(step)
    if not 0 < len(step) <= seats:
        raise ValueError(f"a step holds the actions of 1 to {seats} seats, got {len(step)}")
    moves = {}
    for key, value in step.items():
        if not isinstance(key, str) or not key.isdigit() or not 0 <= int(key) < seats:
            raise ValueError(f"a step's seats are 0..{seats - 1}, got {shown(key)}")
        moves[int(key)] = int(value) if text and isinstance(value, str) and value.lstrip("-").isdigit() else _integer(value)
    return moves


def _label(value: Any) -> str:
    """A seat's label in a replay (the arena's spec of the player), as shown on the page."""
    if not isinstance(value, str) or not value.isprintable() or len(value) > 300:
        raise ValueError(f"a seat is a player's spec (printable text, at most 300 characters), got {shown(value)}")
    return value


def _plain(config: dict[str, Any]) -> dict[str, Any]:
    """A game's options as JSON values (tuples become lists)."""
    return {k: [list(x) if isinstance(x, tuple) else x for x in v] if isinstance(v, tuple) else v for k, v in config.items()}
