"""Tides of Time's text form: written from a position's data (the deal, the picks and
keeps, the scores and the cards where they are now) and read back into the deal and the
moves, which ``TidesOfTimeGame.state_from_text`` replays and checks against the text."""

from __future__ import annotations

import re
from collections.abc import Sequence

from parlour.games.base import (
    counted,
    shown,
)
from parlour.games.tides_of_time.cards import (
    DISCARD,
    DRAFT,
    OVER,
    PHASES,
    cards_text,
    named_cards,
)


def position_text(
    *,
    rounds: int,
    start: tuple[int, int, tuple[int, ...]],
    phase: int,
    round: int,
    pick: int,
    picks: Sequence[Sequence[tuple[int, int]]],
    scores: Sequence[tuple[int, int]],
    breakdowns: Sequence[tuple[dict[int, int], dict[int, int]]],
    keeps: Sequence[tuple[int, int, int, int]],
    pending: Sequence[int],
    hands: Sequence[int],
    kingdoms: tuple[int, int],
    relics: Sequence[int],
    discards: Sequence[int],
    totals: tuple[int, int],
    pile_pos: int,
) -> str:
    """The text form of a position (``TidesOfTimeState.to_text``) from its fields, as
    ``TidesOfTimeState`` names them, and the game's ``rounds``; ``breakdowns``: the
    per-card points of each round scored, ``kingdoms`` and ``totals`` each seat's now."""
    h0, h1, pile = start
    if phase == OVER:
        head = "game over"
    else:
        step = f"pick {pick + 1}/5" if phase == DRAFT else PHASES[phase]
        head = f"round {round + 1}/{rounds}, {step}"
    lines = [f"tides_of_time: {head}", f"deal: {cards_text(h0)} | {cards_text(h1)} | {' '.join(map(str, pile))}"]
    for r, round_picks in enumerate(picks):
        if not round_picks and r == round and phase == DRAFT:
            continue
        lines.append(f"r{r + 1} picks: " + " ".join(f"{a + 1}-{b + 1}" for a, b in round_picks))
        if r < len(scores):
            pa, pb = breakdowns[r]
            s0, s1 = scores[r]
            detail = " | ".join(
                f"player_{seat} " + (" ".join(f"{c}:{v}" for c, v in sorted(pts.items())) or "-")
                for seat, pts in ((0, pa), (1, pb))
            )
            lines.append(f"r{r + 1} score: {s0}-{s1} | {detail}")
        if r < len(keeps):
            r0, r1, d0, d1 = keeps[r]
            lines.append(f"r{r + 1} keep: relic {r0 + 1}-{r1 + 1}, discard {d0 + 1}-{d1 + 1}")
        elif r == round and phase == DISCARD:
            r0, r1 = pending
            lines.append(f"r{r + 1} keep: relic {r0 + 1}-{r1 + 1}")
    for seat in (0, 1):
        lines.append(f"player_{seat} hand: {named_cards(hands[seat])}")
        lines.append(f"player_{seat} kingdom: {named_cards(kingdoms[seat], relics[seat])}")
    lines.append(f"discards: {named_cards(discards[0] | discards[1])}")
    t0, t1 = totals
    lines.append(f"totals: {t0}-{t1}; pile {counted(len(pile) - pile_pos, 'card')}")
    return "\n".join(lines)


_HEAD = re.compile(r"tides_of_time: (game over|round (\d)/(\d), (pick (\d)/5|relic|discard))")
_DEAL = re.compile(r"deal: ([\d ]+) \| ([\d ]+) \| ([\d ]+)")
_PICKS = re.compile(r"r(\d) picks: ?((?:\d+-\d+ ?)*)")
_KEEP = re.compile(r"r(\d) keep: relic (\d+)-(\d+)(?:, discard (\d+)-(\d+))?")


def parse_position(text: str, example: str) -> tuple[list[int], list[tuple[str, list[dict[int, int]]]]]:
    """Read ``to_text`` as ``(deck, moves)``: the deal in dealing order, and per line of
    picks or keeps, that line and its joint actions in order, for
    ``TidesOfTimeGame.state_from_text`` to replay; every other line (hands, kingdoms,
    scores and their per-card breakdown, totals) is checked by :func:`check_replay`.
    ``example``: the text of a new game, shown when ``text`` is malformed."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    bad = f"malformed tides_of_time position {shown(text)}; expected lines like:\n{example}"
    if len(lines) < 2 or not _HEAD.fullmatch(lines[0]):
        raise ValueError(f"{bad}\n(the first line must be 'tides_of_time: round R/N, pick K/5' or similar)")
    deal = _DEAL.fullmatch(lines[1])
    if not deal:
        raise ValueError(f"{bad}\n(the second line must be 'deal: <5 cards> | <5 cards> | <8 cards>')")
    try:
        parts = [[int(c) for c in deal[k].split()] for k in (1, 2, 3)]
    except ValueError:
        raise ValueError(bad) from None
    if len(parts[0]) != 5 or len(parts[1]) != 5:
        raise ValueError(f"{bad}\n(each dealt hand has 5 cards)")
    moves = []
    for line in lines[2:]:
        match = _PICKS.fullmatch(line)
        if match:
            pairs = [pair.split("-") for pair in match[2].split()]
            moves.append((line, [{0: int(a) - 1, 1: int(b) - 1} for a, b in pairs]))
            continue
        match = _KEEP.fullmatch(line)
        if match:
            joints = [{0: int(match[2]) - 1, 1: int(match[3]) - 1}]
            if match[4] is not None:
                joints.append({0: int(match[4]) - 1, 1: int(match[5]) - 1})
            moves.append((line, joints))
    return parts[0] + parts[1] + parts[2], moves


def check_replay(text: str, canonical: str) -> None:
    """``ValueError`` unless ``text`` is, line for line, the text form ``canonical`` of
    the position its deal and moves replay to."""
    if canonical != "\n".join(line.strip() for line in text.strip().splitlines() if line.strip()):
        raise ValueError(f"inconsistent tides_of_time position {shown(text)}: replaying its deal and moves gives\n{canonical}")
