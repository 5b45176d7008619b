"""Tides of Time's text form: written from a state (the deal, the picks and keeps) and
read back by rebuilding the deal and replaying them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from parlour.errors import IllegalActionError
from parlour.games.base import (
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

if TYPE_CHECKING:
    from parlour.games.tides_of_time.rules import TidesOfTimeGame, TidesOfTimeState


def position_text(state: TidesOfTimeState) -> str:
    game = state.game
    h0, h1, pile = state.start
    if state.phase == OVER:
        head = "game over"
    else:
        step = f"pick {state.pick + 1}/5" if state.phase == DRAFT else PHASES[state.phase]
        head = f"round {state.round + 1}/{game.rounds}, {step}"
    lines = [f"tides_of_time: {head}", f"deal: {cards_text(h0)} | {cards_text(h1)} | {' '.join(map(str, pile))}"]
    for r, picks in enumerate(state.picks):
        if not picks and r == state.round and state.phase == DRAFT:
            continue
        lines.append(f"r{r + 1} picks: " + " ".join(f"{a + 1}-{b + 1}" for a, b in picks))
        if r < len(state.scores):
            pa, pb = state.breakdown(r)
            s0, s1 = state.scores[r]
            detail = " | ".join(
                f"player_{seat} " + (" ".join(f"{c}:{v}" for c, v in sorted(pts.items())) or "-")
                for seat, pts in ((0, pa), (1, pb))
            )
            lines.append(f"r{r + 1} score: {s0}-{s1} | {detail}")
        if r < len(state.keeps):
            r0, r1, d0, d1 = state.keeps[r]
            lines.append(f"r{r + 1} keep: relic {r0 + 1}-{r1 + 1}, discard {d0 + 1}-{d1 + 1}")
        elif r == state.round and state.phase == DISCARD:
            r0, r1 = state.pending
            lines.append(f"r{r + 1} keep: relic {r0 + 1}-{r1 + 1}")
    for seat in (0, 1):
        lines.append(f"player_{seat} hand: {named_cards(state.hands[seat])}")
        lines.append(f"player_{seat} kingdom: {named_cards(state.kingdom(seat), state.relics[seat])}")
    lines.append(f"discards: {named_cards(state.discards[0] | state.discards[1])}")
    t0, t1 = state.totals()
    lines.append(f"totals: {t0}-{t1}; pile {len(pile) - state.pile_pos} cards")
    return "\n".join(lines)


_HEAD = re.compile(r"tides_of_time: (game over|round (\d)/(\d), (pick (\d)/5|relic|discard))")
_DEAL = re.compile(r"deal: ([\d ]+) \| ([\d ]+) \| ([\d ]+)")
_PICKS = re.compile(r"r(\d) picks: ?((?:\d+-\d+ ?)*)")
_KEEP = re.compile(r"r(\d) keep: relic (\d+)-(\d+)(?:, discard (\d+)-(\d+))?")


def parse_position(game: TidesOfTimeGame, text: str) -> TidesOfTimeState:
    """Read ``to_text``: rebuild the deal, replay the picks and keeps, and check that
    every other line (hands, kingdoms, scores and their per-card breakdown, totals)
    is what the replay gives."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    example = game.new_initial_state(seed=0).to_text()
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
    state = game.new_initial_state(deck=parts[0] + parts[1] + parts[2])
    for line in lines[2:]:
        match = _PICKS.fullmatch(line)
        try:
            if match:
                for pair in match[2].split():
                    a, b = pair.split("-")
                    state.apply({0: int(a) - 1, 1: int(b) - 1})
                continue
            match = _KEEP.fullmatch(line)
            if match:
                state.apply({0: int(match[2]) - 1, 1: int(match[3]) - 1})
                if match[4] is not None:
                    state.apply({0: int(match[4]) - 1, 1: int(match[5]) - 1})
        except IllegalActionError as error:
            raise ValueError(f"inconsistent tides_of_time position: {line!r}: {error}") from None
    canonical = state.to_text()
    if canonical != "\n".join(lines):
        raise ValueError(f"inconsistent tides_of_time position {shown(text)}: replaying its deal and moves gives\n{canonical}")
    return state
