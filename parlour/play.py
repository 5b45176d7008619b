"""``parlour play``: a person against baseline policies in the terminal.

The person sees only what their seat may know: every view is drawn from
``state.info_state(seat)``, never from the full state: the text of the information
state (for a perfect-information game the position itself; Goofspiel's spells out the
own hand, the prizes seen, the bids as far as they are public, points and pot).  Moves are typed in the game's notation (``state.text_to_action``); a bad or
illegal move is explained and asked for again.  ``undo`` takes back the person's last
move and the opponents' replies (a stack of the positions where the person was to
move); ``quit`` or the end of the input leaves.  Input and output are streams, so a
game can be scripted by piping lines into stdin.
"""

from __future__ import annotations

import sys
from typing import TextIO

import numpy as np

from parlour.baselines import Policy, make_from_spec
from parlour.baselines.playout import joint_action, policy_act
from parlour.games.base import Game, State

HELP = "type a move in the game's notation (one of the legal moves shown), 'undo' to take back your last move, 'quit' to leave"


def view(state: State, seat: int) -> str:
    """The text a person at ``seat`` may see: the information state's own text, which
    holds only what the seat knows (for a perfect-information game, the position)."""
    return str(state.info_state(seat))


class _Session:
    def __init__(self, game: Game, opponents: dict[int, Policy], seat: int, labels: dict[int, str], stdin: TextIO, stdout: TextIO) -> None:
        self.game, self.opponents, self.seat, self.labels = game, opponents, seat, labels
        self.stdin, self.stdout = stdin, stdout
        self.echo = not (hasattr(stdin, "isatty") and stdin.isatty())

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

    def ask_move(self, state: State) -> int | str:
        """The person's legal action, or 'undo' / 'quit'."""
        legal = state.legal_actions(self.seat)
        texts = [state.action_to_text(a) for a in legal]
        self.say(f"legal moves: {' '.join(texts)}")
        while True:
            line = self.read("your move (or undo, quit, help): ")
            if line is None:
                return "quit"
            command = line.lower()
            if command in ("quit", "q", "exit"):
                return "quit"
            if command in ("undo", "u"):
                return "undo"
            if command in ("help", "h", "?"):
                self.say(HELP)
                continue
            if not line:
                continue
            try:
                action = state.text_to_action(line)
            except ValueError as error:
                self.say(f"not a move: {error}. Legal moves: {' '.join(texts)}")
                continue
            if action not in legal:
                self.say(f"{line!r} is not a legal move now. Legal moves: {' '.join(texts)}")
                continue
            return action

    def run(self, state: State) -> int:
        history: list[State] = []  # positions where the person was to move
        perfect = self.game.info.perfect_information and not self.game.info.simultaneous
        while not state.is_terminal():
            players = state.current_players()
            act = policy_act(state, self.opponents)
            if self.seat not in players:
                action = joint_action(state, act)
                for mover, chosen in (action.items() if isinstance(action, dict) else [(players[0], action)]):
                    shown = state.action_to_text(chosen) if perfect else "(hidden)"
                    self.say(f"{self.labels[mover]} plays {shown}")
                state.apply(action)
                continue
            self.say()
            self.say(view(state, self.seat))
            choice = self.ask_move(state)
            if choice == "quit":
                self.say("you left the game")
                return 0
            if choice == "undo":
                if not history:
                    self.say("nothing to undo yet")
                else:
                    state = history.pop()
                    self.say("took back your last move")
                continue
            history.append(state.clone())
            # every other seat chooses from its own information state
            state.apply(joint_action(state, act, fixed={self.seat: choice}))
        self.say()
        self.say(view(state, self.seat))
        returns = state.returns()
        mine = returns[self.seat]
        others = np.delete(returns, self.seat)
        verdict = "you win" if mine > others.max() else "you lose" if mine < others.max() else "a draw"
        parts = " | ".join(f"{'you' if s == self.seat else self.labels[s]} {r:+g}" for s, r in enumerate(returns))
        self.say(f"result: {parts} -> {verdict}")
        return 0


def play(
    game: Game,
    opponent: str,
    seat: int = 0,
    seed: int | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Play one game in the terminal against ``opponent`` (a spec, for every other seat).

    ``seed`` fixes the deal and the opponents' randomness (None: a fresh seed, printed
    so the game can be replayed).  Returns the exit code (0).
    """
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.num_players:
        raise ValueError(f"seat must be 0..{game.num_players - 1} for {game.name}, got {seat!r}")
    sequence = np.random.SeedSequence(seed)
    if seed is None:
        seed = int(sequence.entropy)
    children = sequence.spawn(game.num_players + 1)
    opponents, labels = {}, {}
    for other in range(game.num_players):
        if other != seat:
            policy = make_from_spec(opponent, game)
            policy.reset(int(children[other + 1].generate_state(1, dtype=np.uint64)[0]))
            opponents[other] = policy
            labels[other] = f"player_{other} ({opponent})"
    state = game.new_initial_state(int(children[0].generate_state(1, dtype=np.uint64)[0]))
    print(f"{game.name}: you are player_{seat}; opponents: {opponent}; seed {seed}", file=stdout)
    return _Session(game, opponents, seat, labels, stdin, stdout).run(state)
