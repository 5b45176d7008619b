"""``parlour play``: a person against baseline policies in the terminal.

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
randomness), ``undo`` (takes back the person's last move and the opponents' replies: a
stack of the positions where the person was to move), ``quit`` or the end of the input.
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

from parlour.baselines import Policy, make_from_spec, references
from parlour.baselines.explain import evaluation
from parlour.baselines.playout import joint_action, policy_act
from parlour.games.base import Game, State

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


class _Session:
    def __init__(self, game: Game, opponents: dict[int, Policy], seat: int, labels: dict[int, str], hint_seeds: np.random.SeedSequence, stdin: TextIO, stdout: TextIO) -> None:
        self.game, self.opponents, self.seat, self.labels = game, opponents, seat, labels
        self.hint_seeds = hint_seeds
        self.stdin, self.stdout = stdin, stdout
        self.echo = not (hasattr(stdin, "isatty") and stdin.isatty())
        try:
            self.hint_spec: str | None = references(game).quick
        except ValueError:
            self.hint_spec = None
        # Opponents' moves are shown where every seat sees them when they are played.
        self.public_moves = game.info.perfect_information and not game.info.simultaneous
        self.last: dict[int, str] = {}  # each opponent's last move (or skipped turn)

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

    def hint(self, state: State, spec: str) -> str:
        """What the policy ``spec`` (default: the game's quick reference) would play,
        chosen from the person's information state by a fresh policy with its own seed."""
        spec = spec or self.hint_spec
        if not spec:
            return f"no hint player is set for {self.game.name}: type 'hint SPEC', e.g. 'hint mcts'"
        try:
            policy = make_from_spec(spec, self.game)
        except (ValueError, ImportError, OSError) as error:  # a bad spec, a missing model or extra
            return f"no hint: {error}"
        policy.reset(int(self.hint_seeds.spawn(1)[0].generate_state(1, dtype=np.uint64)[0]))
        action = policy.act(state.info_state(self.seat))
        return f"hint from {spec}: {state.action_to_text(action)} ({evaluation(policy, state, action)})"

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
                self.say(self.hint(state, line[4:].strip()))
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

    def apply(self, state: State, action: int | dict[int, int]) -> None:
        """Apply a step; announce the turns it skipped (a turn-based step only)."""
        players = state.current_players()
        state.apply(action)
        if len(players) != 1:
            return
        for skipped in state.skipped_seats(players[0]):
            if skipped == self.seat:
                self.say(f"you (player_{skipped}) have no legal move: your turn is skipped")
            else:
                self.say(f"{self.labels[skipped]} has no legal move: its turn is skipped")
                self.last[skipped] = "had no legal move"

    def show_last_moves(self) -> None:
        """With several opponents, the last move of each (their announcements may have
        scrolled by)."""
        if self.public_moves and len(self.opponents) > 1 and self.last:
            self.say("last moves: " + " | ".join(f"{self.labels[s]} {self.last[s]}" for s in sorted(self.last)))

    def run(self, state: State) -> int:
        history: list[tuple[State, dict[int, str]]] = []  # positions where the person was to move
        if self.seat not in state.current_players():  # the start, before the opponents move
            self.say()
            self.say(view(state, self.seat))
        while not state.is_terminal():
            players = state.current_players()
            act = policy_act(state, self.opponents)
            if self.seat not in players:
                action = joint_action(state, act)
                for mover, chosen in (action.items() if isinstance(action, dict) else [(players[0], action)]):
                    shown = state.action_to_text(chosen) if self.public_moves else "(hidden)"
                    self.say(f"{self.labels[mover]} plays {shown}")
                    self.last[mover] = f"played {shown}"
                self.apply(state, action)
                continue
            self.say()
            self.say(view(state, self.seat))
            self.show_last_moves()
            choice = self.ask_move(state)
            if choice == "quit":
                self.say("you left the game")
                return 0
            if choice == "undo":
                if not history:
                    self.say("nothing to undo yet")
                else:
                    state, self.last = history.pop()
                    self.say("took back your last move")
                continue
            action, line = choice
            history.append((state.clone(), dict(self.last)))
            # every other seat chooses from its own information state
            self.apply(state, joint_action(state, act, fixed={self.seat: action}))
            if players == (self.seat,) and state.current_players() == (self.seat,):
                self.continue_move(state, line)
        self.say()
        self.say(view(state, self.seat))
        returns = state.returns()
        mine = returns[self.seat]
        others = np.delete(returns, self.seat)
        verdict = "you win" if mine > others.max() else "you lose" if mine < others.max() else "a draw"
        parts = " | ".join(f"{self.who(s)} {r:+g}" for s, r in enumerate(returns))
        self.say(f"result: {parts} -> {verdict}")
        return 0

    def continue_move(self, state: State, line: str) -> None:
        """Play the rest of a move typed at once that the game splits into steps of the
        same seat: the same text, if it is a legal move in the position it led to."""
        try:
            action = state.text_to_action(line)
        except ValueError:
            return
        if action in state.legal_actions(self.seat):
            self.apply(state, action)


def play(
    game: Game,
    opponent: str,
    seat: int = 0,
    seed: int | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Play one game in the terminal against ``opponent`` (a spec, for every other seat).

    ``seed`` fixes the deal, the opponents' randomness and the hints' (None: a fresh
    seed, printed so the game can be replayed).  Returns the exit code (0).
    """
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.num_players:
        raise ValueError(f"seat must be 0..{game.num_players - 1} for {game.name}, got {seat!r}")
    sequence = np.random.SeedSequence(seed)
    if seed is None:
        seed = int(sequence.entropy)
    # children 0..num_players as before hints existed (the deal, then a seed per seat), so
    # that a seed replays the same game; the last child seeds the hints
    children = sequence.spawn(game.num_players + 2)
    opponents, labels = {}, {}
    for other in range(game.num_players):
        if other != seat:
            policy = make_from_spec(opponent, game)
            policy.reset(int(children[other + 1].generate_state(1, dtype=np.uint64)[0]))
            opponents[other] = policy
            labels[other] = f"player_{other} ({opponent})"
    state = game.new_initial_state(int(children[0].generate_state(1, dtype=np.uint64)[0]))
    print(f"{game.name}: you are player_{seat}; opponents: {opponent}; seed {seed}; type help for the commands and how to write a move", file=stdout)
    return _Session(game, opponents, seat, labels, children[-1], stdin, stdout).run(state)
