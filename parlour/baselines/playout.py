"""Playing a game with policies: the one loop (``play_out``) that moves a game past the
seats that are not its caller's.  The arena, the single-agent and RLlib views, the
n-tuple learner's games, the web session (a person's table: ``parlour play`` and
``parlour serve``), the benchmarks and the tests play through it; self-play, whose
searches wait for the network in the middle of a step, chooses its steps itself but
counts them with the same ``playing``.

At every step each current seat chooses from its own information state before anything
is applied (so at a simultaneous step no seat sees another's choice); one mover's
choice is applied as an ``int``, several movers' as ``{seat: action}``.  A game still
going after its ``max_game_length`` steps raises ``parlour.errors.EndlessGame`` rather
than loop for ever.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

from parlour.baselines.policy import Policy
from parlour.errors import EndlessGame
from parlour.games.base import State

Policies = Mapping[int, Policy] | Sequence[Policy]
"""A policy per seat: a list indexed by seat, or a mapping for some of the seats."""


def joint_action(state: State, act: Callable[[int], int], fixed: Mapping[int, int] | None = None) -> int | dict[int, int]:
    """What to apply now: ``act(seat)`` for each current seat (``fixed`` gives some seats'
    actions instead, e.g. a learner's or a person's), every seat choosing first."""
    players = state.current_players()
    chosen = {seat: fixed[seat] if fixed and seat in fixed else act(seat) for seat in players}
    return chosen[players[0]] if len(players) == 1 else chosen


def policy_act(state: State, policies: Policies) -> Callable[[int], int]:
    """``act(seat)``: the seat's policy acting on the seat's information state."""
    return lambda seat: int(policies[seat].act(state.info_state(seat)))


def step(state: State, policies: Policies, fixed: Mapping[int, int] | None = None) -> int | dict[int, int]:
    """Play one step with ``policies`` (and ``fixed`` actions); returns what was applied."""
    action = joint_action(state, policy_act(state, policies), fixed)
    state.apply(action)
    return action


def playing(state: State, until: Callable[[State], bool] | None = None, max_steps: int | None = None) -> Iterator[int]:
    """The steps of ``state``'s game still to play: yields the number of steps played so
    far before each, until the game is over or ``until(state)`` holds.  Past ``max_steps``
    (default: the game's ``max_game_length``) it raises ``EndlessGame`` instead: a game
    whose rules (or players) do not end it stops with an error rather than loop for ever.
    ``play_out``'s loop; a loop that must choose and apply its steps itself (self-play,
    whose searches wait for the network within a step) iterates it to stop where
    ``play_out`` stops."""
    limit = state.game.info.max_game_length if max_steps is None else max_steps
    steps = 0
    while not state.is_terminal() and not (until is not None and until(state)):
        if steps >= limit:
            raise EndlessGame(state.game.name, limit, state.game.info.max_game_length)
        yield steps
        steps += 1


def play_out(
    state: State,
    policies: Policies | None = None,
    *,
    until: Callable[[State], bool] | None = None,
    max_steps: int | None = None,
    act: Callable[[int], int] | None = None,
    apply: Callable[[int | dict[int, int]], None] | None = None,
    record: list[int | dict[int, int]] | None = None,
) -> int:
    """Play ``state`` on until the game is over (or ``until(state)`` holds); returns the
    steps played.  Each step's seats choose with ``policies`` (each on its seat's
    information state) or ``act(seat)`` (a timed choice, a random opening, a person's
    choice or a policy thinking elsewhere); ``apply`` (default ``state.apply``) applies
    the step to ``state`` for a caller that keeps an account of each (the web session's
    log, the n-tuple learner's positions); ``record``, if given, collects what was
    applied.  An exception from ``act`` stops the loop with that step unapplied and goes
    to the caller (the web session's stalled policy).  ``max_steps`` (default: the
    game's ``max_game_length``) guards against a game that never ends: past it,
    ``EndlessGame`` (a ``RuntimeError``) says so (``playing``)."""
    if act is None:
        if policies is None:
            raise ValueError("play_out needs policies or act")
        act = policy_act(state, policies)
    apply = state.apply if apply is None else apply
    limit = state.game.info.max_game_length if max_steps is None else max_steps
    steps = 0
    # ``playing``'s loop written out: the learner views call this at every env step, where
    # a generator's creation and resumptions are a measurable share of a small game's step.
    while not state.is_terminal() and not (until is not None and until(state)):
        if steps >= limit:
            raise EndlessGame(state.game.name, limit, state.game.info.max_game_length)
        action = joint_action(state, act)
        apply(action)
        if record is not None:
            record.append(action)
        steps += 1
    return steps
