"""Sets of small integers as int bitmasks: the card hands of Goofspiel and Tides of Time,
the boards of Tribolo and Double Card.

Bit ``i`` stands for card ``i + 1`` (hands) or cell ``i`` (boards).  ``set_bits`` is
memoised because hands are enumerated on every step of every search; ``bits_list`` and
``iter_bits`` are for wide masks (a 96- or 176-cell board) that are rarely seen twice.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

SET_BITS_MEMO: dict[int, tuple[int, ...]] = {}
"""``set_bits``'s memo (masks below 2**18), which Goofspiel's hot path reads directly."""


def set_bits(mask: int) -> tuple[int, ...]:
    """Indices of the set bits of ``mask``, ascending (memoised for masks below 2**18)."""
    out = SET_BITS_MEMO.get(mask)
    if out is None:
        out = tuple(bits_list(mask))
        if mask < 1 << 18:
            SET_BITS_MEMO[mask] = out
    return out


def bits_list(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, ascending, as a new list (not memoised)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def iter_bits(mask: int) -> Iterator[int]:
    """Indices of the set bits of ``mask``, ascending, one at a time, not memoised: for
    masks of any width (bitboards) that rarely repeat, where a memo would only grow."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def mask_of(cards: Sequence[int]) -> int:
    """Bitmask of card numbers (1-based)."""
    mask = 0
    for card in cards:
        mask |= 1 << (card - 1)
    return mask


def cards_of(mask: int) -> list[int]:
    """Card numbers (1-based) of a bitmask, ascending."""
    return [i + 1 for i in set_bits(mask)]
