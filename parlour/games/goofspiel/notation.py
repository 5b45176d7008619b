"""Goofspiel's text form read back (``GoofspielState.to_text`` writes it) into the
game's data: the prize order, the hands at the start and the bids, from which
``GoofspielGame.state_from_text`` rebuilds the start, replays the rounds and checks the
result against the text."""

from __future__ import annotations

import re

from parlour.games.base import shown

_HEADER = re.compile(r"round (\d+)/(\d+)|game over")
_PLAYER = re.compile(r"player_(\d+): hand ([\d ]+|-) \| bids ([\d ]+|-) \| points (\d+)")


def _malformed(text: str, example: str) -> str:
    return f"malformed goofspiel position {shown(text)}; expected lines like:\n{example}"


def parse_position(text: str, num_players: int, example: str) -> tuple[list[int], list[list[int]], list[list[int]]]:
    """Read ``GoofspielState.to_text`` as ``(prizes, hands, bids)``: the prize order, each
    seat's hand at the start (the cards it holds and those it bid) and each seat's bids,
    from which ``GoofspielGame.state_from_text`` rebuilds the start and replays the
    rounds (:func:`rounds_of`, then :func:`check_replay`).  ``example``: the text of a new
    game, shown when ``text`` is malformed."""
    lines = [line.strip() for line in text.strip().splitlines()]
    bad = _malformed(text, example)
    if len(lines) != 3 + num_players or not _HEADER.fullmatch(lines[0]):
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
    return prizes, hands, bids


def rounds_of(text: str, bids: list[list[int]], example: str) -> list[dict[int, int]]:
    """The joint action of each round played, from each seat's bids (card values) as
    :func:`parse_position` read them; ``ValueError`` unless every seat bid as often."""
    if len({len(b) for b in bids}) != 1:
        raise ValueError(f"{_malformed(text, example)}\n(every player must have made the same number of bids)")
    return [{seat: bids[seat][r] - 1 for seat in range(len(bids))} for r in range(len(bids[0]))]


def check_replay(text: str, canonical: str) -> None:
    """``ValueError`` unless ``text`` is, line for line, the text form ``canonical`` of
    the position its bids replay to."""
    if canonical != "\n".join(line.strip() for line in text.strip().splitlines()):
        raise ValueError(
            f"inconsistent goofspiel position {shown(text)}: replaying its bids gives\n{canonical}"
        )
