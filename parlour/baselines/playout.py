"""Playing a game with policies: the one loop (``play_out``) the arena, the single-agent
and RLlib views, the benchmarks and the tests share (a person's table, ``parlour play``
and the web, steps through ``parlour.web.session.GameSession`` instead, one policy
move at a time).

At every step each current seat chooses from its own information state before anything
is applied (so at a simultaneous step no seat sees another's choice); one mover's
choice is applied as an ``int``, several movers' as ``{seat: action}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from parlour.baselines.policy import Policy
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


def play_out(
    state: State,
    policies: Policies | None = None,
    *,
    until: Callable[[State], bool] | None = None,
    max_steps: int | None = None,
    act: Callable[[int], int] | None = None,
    record: list[int | dict[int, int]] | None = None,
) -> int:
    """Play ``state`` on until the game is over (or ``until(state)`` holds); returns the
    steps played.  Each step's seats choose with ``policies`` (each on its seat's
    information state) or ``act(seat)`` (a timed choice, a random opening); ``record``,
    if given, collects what was applied.  ``max_steps`` (default: the game's
    ``max_game_length``) guards against a game that never ends: past it, a
    ``RuntimeError`` says so.  Every loop that moves a game past the seats that are not
    its caller's (the arena's games, the single-agent and RLlib views' opponents) is this
    one."""
    if act is None:
        if policies is None:
            raise ValueError("play_out needs policies or act")
        act = policy_act(state, policies)
    limit = state.game.info.max_game_length if max_steps is None else max_steps
    steps = 0
    while not state.is_terminal() and not (until is not None and until(state)):
        if steps >= limit:
            raise RuntimeError(f"{state.game.name}: the game did not end within {limit} steps (max_game_length "
                               f"{state.game.info.max_game_length}): its rules do not end it")
        action = joint_action(state, act)
        state.apply(action)
        if record is not None:
            record.append(action)
        steps += 1
    return steps
