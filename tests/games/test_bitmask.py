"""``popcount`` counts set bits as numpy 2's ``np.bitwise_count`` does, on every numpy
parlour supports: the ufunc where numpy has it, ``popcount_swar`` (tested here directly,
whatever numpy runs the test) where it does not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import parlour
from parlour.games.bitmask import popcount, popcount_swar

DTYPES = [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64]
COUNTERS = {"popcount": popcount, "popcount_swar": popcount_swar}


def bits(value: int) -> int:
    """Python's count of the set bits of an integer's absolute value (numpy's rule)."""
    return bin(abs(value)).count("1")


@pytest.mark.parametrize("name", COUNTERS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_counts_every_integer_dtype(name: str, dtype: type) -> None:
    info = np.iinfo(dtype)
    rng = np.random.default_rng(48)
    values = rng.integers(info.min, info.max, size=(40, 7), dtype=dtype, endpoint=True)
    values[0, :3] = [info.min, info.max, 0]  # the extremes (the lowest signed integer has one bit)
    counts = COUNTERS[name](values)
    assert counts.dtype == np.uint8 and counts.shape == values.shape  # call sites add uint8 counts
    assert counts.tolist() == [[bits(int(v)) for v in row] for row in values]


@pytest.mark.parametrize("name", COUNTERS)
def test_views_scalars_and_bools(name: str) -> None:
    count = COUNTERS[name]
    words = np.arange(24, dtype=np.uint32).reshape(4, 6)[:, ::2]  # a strided view
    assert count(words).tolist() == [[bits(int(v)) for v in row] for row in words]
    big_endian = np.array([3, 255, 2**40 + 1], dtype=">u8")
    assert count(big_endian).tolist() == [2, 8, 2]
    scalar = count(np.int64(7))
    assert np.ndim(scalar) == 0 and scalar == 3 and np.asarray(scalar).dtype == np.uint8
    assert count(np.array([True, False])).tolist() == [1, 0]


def test_popcount_is_numpys_ufunc_where_numpy_has_it() -> None:
    """On numpy 2 the engines call the ufunc itself (no wrapper on the hot path)."""
    assert popcount is getattr(np, "bitwise_count", popcount_swar)


def test_refuses_what_is_not_an_integer() -> None:
    with pytest.raises(TypeError, match="not of dtype float64"):
        popcount_swar(np.array([1.0]))


def test_no_module_counts_bits_with_numpy_2_only():
    """``np.bitwise_count`` is numpy 2.0's; every count goes through ``popcount``, which
    the declared numpy 1.24 runs too (one place chooses: parlour/games/bitmask.py)."""
    root = Path(parlour.__file__).parent
    users = [str(path.relative_to(root)) for path in sorted(root.rglob("*.py"))
             if path.name != "bitmask.py" and "bitwise_count" in path.read_text()]
    assert not users, f"{users} call np.bitwise_count (numpy >= 2 only): use parlour.games.bitmask.popcount"
