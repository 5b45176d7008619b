"""``parlour play``: a person against baseline policies in the terminal.

A text front end over the session the browser uses (:class:`parlour.table.session.GameSession`,
in its trusted mode: any policy spec, no time limit), so that ``parlour play GAME --seed
S`` deals the game that ``parlour serve`` deals with seed S, and the policies draw their
moves from the same seeds.

The person sees only what their seat may know: every view is drawn from
``state.info_state(seat)``, never from the full state: the text of the information
state (for a perfect-information game the position as ``State.view_text`` draws it for
that seat, e.g. Tribolo's labelled board; Goofspiel's spells out the own hand, the
prizes seen, the bids as far as they are public, points and pot).  The legal moves are
listed as the game writes them for a person (``State.legal_moves_text``).  Moves are
typed in the game's notation (``state.text_to_action``); a bad or illegal move is
explained and asked for again.

Commands: ``help`` (the commands and the game's own notation, ``game.notation_help()``),
``hint`` (what the game's quick reference player would play, with its evaluation;
``hint SPEC`` asks any policy: a fresh policy with its own seed, acting on the person's
information state, so that a hint changes neither the game nor the opponents'
randomness), ``undo`` (takes back the person's last move and the opponents' replies),
``quit`` or the end of the input.
Input and output are streams, so a game can be scripted by piping lines into stdin.

Turn-based games: every opponent's move is announced as it is played, a turn the rules
skip is announced after the move that skipped it (``State.skipped_seats``), and with
several opponents the last move of each is repeated before the person's prompt.  A move
that the game splits into several steps of the same seat (Double Card's recycling move:
take a card, then place it) is typed once: when the person is to move again right after
a move, and the same text is a legal move once more, it is played as well.
"""

from __future__ import annotations

import sys
import textwrap
from typing import TextIO

import numpy as np

from parlour.baselines import references
from parlour.errors import Failure
from parlour.games.base import Game, State
from parlour.table.errors import SessionError
from parlour.table.session import PERSON, GameSession
from parlour.table.thinking import LocalThinker

COMMANDS = """commands:
  a move     typed in the game's notation (below); the legal moves are listed before each prompt
  hint       what {hint} would play here, and how it rates the position
  hint SPEC  the same from any policy spec, e.g. 'hint random' or 'hint mcts:simulations=500'
  undo       take back your last move (and the replies to it)
  quit       leave the game
  help       this text"""


def view(state: State, seat: int) -> str:
    """The text a person at ``seat`` may see: the information state's own text, which
    holds only what the seat knows (for a perfect-information game, the position)."""
    return str(state.info_state(seat))


class _Table:
    """The text front end of a :class:`~parlour.table.session.GameSession` for the person at
    ``seat``: it shows the seat's view, announces what the other seats did (as far as the
    game shows it), and reads the person's moves and commands."""

    def __init__(self, session: GameSession, seat: int, labels: dict[int, str], stdin: TextIO, stdout: TextIO) -> None:
        self.session, self.game, self.seat, self.labels = session, session.game, seat, labels
        self.stdin, self.stdout = stdin, stdout
        self.echo = not (hasattr(stdin, "isatty") and stdin.isatty())
        try:
            self.hint_spec: str | None = references(self.game).quick
        except ValueError:
            self.hint_spec = None
        # Opponents' moves are shown where every seat sees them when they are played.
        self.public_moves = self.game.info.perfect_information and not self.game.info.simultaneous
        self.last: dict[int, str] = {}  # each opponent's last move (or skipped turn)
        self.told = session.state.clone()  # the position as far as the steps were announced
        self.told_steps = len(session.steps)

    def say(self, text: str = "", end: str = "\n") -> None:
        print(text, end=end, file=self.stdout, flush=True)

    def read(self, prompt: str) -> str | None:
        """One line of input (stripped), or None at the end of the input."""
        self.say(prompt, end="")
        line = self.stdin.readline()
        if not line:
            self.say()
            return None
        if self.echo:
            self.say(line.rstrip("\n"))
        return line.strip()

    def who(self, seat: int) -> str:
        return "you" if seat == self.seat else self.labels[seat]

    def help(self) -> str:
        commands = COMMANDS.format(hint=self.hint_spec or "a policy (none is set for this game: give a SPEC)")
        notation = textwrap.fill(self.game.notation_help(), width=88, initial_indent="  ", subsequent_indent="  ")
        return f"{commands}\nhow to write a move in {self.game.name}:\n{notation}"

    def hint(self, spec: str | None) -> str:
        """What the policy ``spec`` (default: the game's quick reference) would play, chosen
        from the person's information state by a fresh policy with its own seed (so that a
        hint changes neither the game nor the opponents' randomness)."""
        spec = spec or self.hint_spec
        if not spec:
            return f"no hint player is set for {self.game.name}: type 'hint SPEC', e.g. 'hint mcts'"
        try:
            hint = self.session.hint(self.seat, spec)
        except SessionError as error:  # a bad spec, a missing model or extra
            return "no hint: " + str(error).removeprefix(f"no hint from {spec!r}: ").removeprefix("no hint: ")
        return f"hint from {spec}: {hint['text']} ({hint['evaluation']})"

    def ask_move(self, state: State) -> tuple[int, str] | str:
        """The person's legal action and the text they typed, or 'undo' / 'quit'."""
        legal = state.legal_actions(self.seat)
        moves = state.legal_moves_text(self.seat)
        self.say(f"legal moves: {moves}")
        while True:
            line = self.read("your move (or hint, undo, quit, help): ")
            if line is None:
                return "quit"
            command = line.lower()
            if command in ("quit", "q", "exit"):
                return "quit"
            if command in ("undo", "u"):
                return "undo"
            if command in ("help", "h", "?"):
                self.say(self.help())
                continue
            if command == "hint" or command.startswith("hint "):
                self.say(self.hint(line[4:].strip()))
                continue
            if not line:
                continue
            # a list of several lines goes below the message, a short one after it
            again = f"\nlegal moves: {moves}" if "\n" in moves else f" Legal moves: {moves}"
            try:
                action = state.text_to_action(line)
            except ValueError as error:
                self.say(f"not a move: {error}.{again}")
                continue
            if action not in legal:
                self.say(f"{line!r} is not a legal move now.{again}")
                continue
            return action, line

    def announce(self) -> None:
        """Tell the steps played since the last announcement: the other seats' moves where
        the person did not move in the same step (as far as the game shows them), and the
        turns the rules skipped."""
        told = self.told
        for action in self.session.steps[self.told_steps:]:
            players = told.current_players()
            if self.seat not in players:
                for mover, chosen in (action.items() if isinstance(action, dict) else [(players[0], action)]):
                    shown = told.action_to_text(chosen) if self.public_moves else "(hidden)"
                    self.say(f"{self.labels[mover]} plays {shown}")
                    self.last[mover] = f"played {shown}"
            told.apply(action)
            if len(players) == 1:
                for skipped in told.skipped_seats(players[0]):
                    if skipped == self.seat:
                        self.say(f"you (player_{skipped}) have no legal move: your turn is skipped")
                    else:
                        self.say(f"{self.labels[skipped]} has no legal move: its turn is skipped")
                        self.last[skipped] = "had no legal move"
        self.told_steps = len(self.session.steps)

    def show_last_moves(self) -> None:
        """With several opponents, the last move of each (their announcements may have
        scrolled by)."""
        if self.public_moves and len(self.labels) > 1 and self.last:
            self.say("last moves: " + " | ".join(f"{self.labels[s]} {self.last[s]}" for s in sorted(self.last)))

    def run(self) -> int:
        session = self.session
        if self.seat not in session.state.current_players():  # the start, before the opponents move
            self.say()
            self.say(view(session.state, self.seat))
        session.advance()
        while True:
            self.announce()
            state = session.state
            if session.stalled:  # a policy failed, or the game was cut off at its step limit
                raise Failure(session.stalled)
            if state.is_terminal():
                break
            self.say()
            self.say(view(state, self.seat))
            self.show_last_moves()
            choice = self.ask_move(state)
            if choice == "quit":
                self.say("you left the game")
                return 0
            if choice == "undo":
                try:
                    session.undo()
                except SessionError as error:
                    self.say(str(error))
                    continue
                self.told, self.told_steps = session.state.clone(), len(session.steps)
                self.last = {}
                self.say("took back your last move")
                continue
            assert not isinstance(choice, str), f"ask_move answers a move, 'quit' or 'undo', not {choice!r}"
            action, line = choice
            alone, before = state.current_players() == (self.seat,), len(session.steps)
            session.move(self.seat, action)  # the other seats choose, each from its own information state
            if alone and len(session.steps) == before + 1 and session.to_act() == [self.seat]:
                self.continue_move(line)  # the person is to move again at once: the same move's next step
        self.say()
        self.say(view(session.state, self.seat))
        returns = session.state.returns()
        mine = returns[self.seat]
        others = np.delete(returns, self.seat)
        verdict = "you win" if mine > others.max() else "you lose" if mine < others.max() else "a draw"
        parts = " | ".join(f"{self.who(s)} {r:+g}" for s, r in enumerate(returns))
        self.say(f"result: {parts} -> {verdict}")
        return 0

    def continue_move(self, line: str) -> None:
        """Play the rest of a move typed at once that the game splits into steps of the
        same seat: the same text, if it is a legal move in the position it led to."""
        state = self.session.state
        try:
            action = state.text_to_action(line)
        except ValueError:
            return
        if action in state.legal_actions(self.seat):
            self.session.move(self.seat, action)


def play(
    game: Game,
    opponent: str,
    seat: int = 0,
    seed: int | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Play one game in the terminal against ``opponent`` (a spec, for every other seat).

    ``seed`` fixes the deal, the opponents' randomness and the hints' exactly as the same
    seed does in ``parlour serve`` (None: a fresh seed, printed so the game can be
    replayed).  Returns the exit code (0).
    """
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.num_players:
        raise ValueError(f"seat must be 0..{game.num_players - 1} for {game.name}, got {seat!r}")
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0] >> 1)
    seats = [PERSON if other == seat else opponent for other in range(game.num_players)]
    try:
        session = GameSession(game, seats, seed=seed, thinker=LocalThinker(), move_seconds=None, play=False, trusted=True)
    except SessionError as error:
        raise ValueError(str(error)) from None
    labels = {other: f"player_{other} ({opponent})" for other in range(game.num_players) if other != seat}
    print(f"{game.name}: you are player_{seat}; opponents: {opponent}; seed {seed}; "
          "type help for the commands and how to write a move", file=stdout)
    return _Table(session, seat, labels, stdin, stdout).run()
