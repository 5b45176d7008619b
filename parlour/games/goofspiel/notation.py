"""Goofspiel's text form read back (``GoofspielState.to_text`` writes it): the start
rebuilt, then the bids replayed and the result checked against the text."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from parlour.games.base import shown

if TYPE_CHECKING:
    from parlour.games.goofspiel.rules import GoofspielGame, GoofspielState


_HEADER = re.compile(r"round (\d+)/(\d+)|game over")
_PLAYER = re.compile(r"player_(\d+): hand ([\d ]+|-) \| bids ([\d ]+|-) \| points (\d+)")


def parse_position(game: GoofspielGame, text: str) -> GoofspielState:
    """Read ``GoofspielState.to_text``: rebuild the start and replay the bids."""
    lines = [line.strip() for line in text.strip().splitlines()]
    example = game.new_initial_state(seed=0).to_text()
    bad = f"malformed goofspiel position {shown(text)}; expected lines like:\n{example}"
    if len(lines) != 3 + game.num_players or not _HEADER.fullmatch(lines[0]):
        raise ValueError(bad)
    if not lines[1].startswith("prizes: ") or not lines[2].startswith("pot: "):
        raise ValueError(bad)
    tokens = lines[1][len("prizes: ") :].split()
    try:
        prizes = [int(t.strip("[]")) for t in tokens]
    except ValueError:
        raise ValueError(bad) from None
    hands, bids = [], []
    for seat, line in enumerate(lines[3:]):
        match = _PLAYER.fullmatch(line)
        if not match or int(match[1]) != seat:
            raise ValueError(bad)
        held = [] if match[2] == "-" else [int(c) for c in match[2].split()]
        played = [] if match[3] == "-" else [int(c) for c in match[3].split()]
        hands.append(held + played)
        bids.append(played)
    state = game.new_initial_state(prizes=prizes, hands=hands)
    if len({len(b) for b in bids}) != 1:
        raise ValueError(f"{bad}\n(every player must have made the same number of bids)")
    for r in range(len(bids[0])):
        state.apply({seat: bids[seat][r] - 1 for seat in range(game.num_players)})
    canonical = state.to_text()
    if canonical != "\n".join(lines):
        raise ValueError(
            f"inconsistent goofspiel position {shown(text)}: replaying its bids gives\n{canonical}"
        )
    return state
