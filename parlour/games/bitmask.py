"""Sets of small integers as int bitmasks: the card hands of Goofspiel and Tides of Time,
the boards of Tribolo and Double Card.

Bit ``i`` stands for card ``i + 1`` (hands) or cell ``i`` (boards).  ``set_bits`` is
memoised because hands are enumerated on every step of every search; ``bits_list`` and
``iter_bits`` are for wide masks (a 96- or 176-cell board) that are rarely seen twice.
``popcount`` counts the set bits of arrays of masks (the batched engines' hands and
boards) on every numpy parlour supports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

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


SWAR_CONSTANTS = {
    np.dtype(u): tuple(u(int(byte * np.dtype(u).itemsize, 16)) for byte in ("55", "33", "0f", "01"))
    + (u(1), u(2), u(4), u(8 * np.dtype(u).itemsize - 8))
    for u in (np.uint8, np.uint16, np.uint32, np.uint64)
}
"""Per unsigned dtype: the masks 0x55.., 0x33.., 0x0f.., the byte-summing multiplier
0x01.. and the shifts of ``popcount_swar``, made once rather than on every call."""


def popcount_swar(masks: npt.ArrayLike) -> Any:
    """The set bits of every integer of ``masks``, as ``uint8`` (a numpy scalar for a
    scalar), exactly as numpy 2's ``np.bitwise_count``: a signed integer counts the bits
    of its absolute value, a bool counts as 0 or 1.  Without the ufunc: the classic
    SWAR sum (pairs, nibbles, bytes, then one multiply adds the bytes into the top one),
    a dozen whole-array operations, about as fast as a byte table's gather on small
    arrays and several times faster on large ones.  ``popcount`` uses it on numpy 1.x."""
    a = np.asarray(masks)
    if a.dtype.kind == "b":
        a = a.astype(np.uint8)
    if a.dtype.kind not in "iu":
        raise TypeError(f"popcount counts the bits of integers, not of dtype {a.dtype}; give an integer or bool array")
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    if a.dtype.kind == "i":
        a = np.abs(a)  # (the absolute value of the lowest integer is itself: its one bit, as numpy 2 counts)
    a = a.view(np.dtype(f"u{a.dtype.itemsize}"))
    m1, m2, m4, bytes_sum, one, two, four, top = SWAR_CONSTANTS[a.dtype]
    x = a - ((a >> one) & m1)  # two-bit counts
    t = x >> two
    t &= m2
    x &= m2
    x += t  # four-bit counts
    t = x >> four
    x += t
    x &= m4  # byte counts
    if a.dtype.itemsize > 1:
        x *= bytes_sum  # (wraps modulo 2**bits, as the sum in the top byte needs)
        x >>= top
    return x.astype(np.uint8)


popcount: Callable[[npt.ArrayLike], Any] = getattr(np, "bitwise_count", popcount_swar)
"""The set bits of every integer of an array of masks, ``uint8`` (hands of cards, rows
of a board): numpy's own ufunc ``np.bitwise_count`` where numpy has it (2.0 and later;
this name is that ufunc, so an engine's step pays nothing for the choice), else
``popcount_swar``, which counts the same (numpy 1.24 to 1.26)."""
