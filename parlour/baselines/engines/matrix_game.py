"""Exact solution of two-player zero-sum matrix games, without scipy.

The row player maximises ``x^T A y``.  After shifting ``A`` so that every entry is
at least 1 (the value becomes positive), the column player's problem is the
classic linear program (von Neumann's reduction, as in e.g. Ferguson, *Game
Theory*, Part II, section 4.4):

    maximise 1^T w   subject to   A' w <= 1,  w >= 0,

whose optimum is ``1 / v'``; ``y = v' w`` and the row player's strategy is the
dual solution, read from the reduced costs of the slack columns of the final
tableau.  The slack basis is feasible, so a dense tableau simplex needs no phase 1.
Pivots use Dantzig's rule (most negative reduced cost) until a degenerate pivot
is seen, then Bland's rule (Bland 1977), which cannot cycle.

Saddle points (every 1 x n, m x 1 and pure game) and 2 x 2 games are answered in
closed form first; they are most of the calls a backward-induction solver makes.
"""

from __future__ import annotations

import numpy as np

_EPS = 1e-11


def solve_zero_sum(matrix: object) -> tuple[float, np.ndarray, np.ndarray]:
    """``(value, row_strategy, col_strategy)`` of the zero-sum game ``matrix``.

    The row player maximises.  Both strategies are probability vectors (float64)
    and each is a best response to the other: ``min(x @ A) == value == max(A @ y)``
    up to rounding.  ``ValueError`` for an empty, non-2-D or non-finite matrix.
    """
    a = np.asarray(matrix, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] == 0 or a.shape[1] == 0:
        raise ValueError(f"matrix must be a non-empty 2-D array, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError("matrix entries must be finite numbers")
    m, n = a.shape
    row_min = a.min(axis=1)
    col_max = a.max(axis=0)
    i = int(row_min.argmax())
    j = int(col_max.argmin())
    if row_min[i] >= col_max[j]:  # a saddle point: pure strategies are optimal
        x = np.zeros(m)
        y = np.zeros(n)
        x[i] = 1.0
        y[j] = 1.0
        return float(a[i, j]), x, y
    if m == 2 and n == 2:  # no saddle point: both players mix, closed form
        (p, q), (r, s) = a.tolist()
        d = p + s - q - r
        x0 = (s - r) / d
        y0 = (s - q) / d
        return (p * s - q * r) / d, np.array([x0, 1.0 - x0]), np.array([y0, 1.0 - y0])
    return _simplex(a)


_TEMPLATES: dict[tuple[int, int], np.ndarray] = {}


def _template(m: int, n: int) -> np.ndarray:
    """The starting tableau ``[A' | I | 1]`` over the objective row, without ``A'``."""
    t = _TEMPLATES.get((m, n))
    if t is None:
        t = np.zeros((m + 1, n + m + 1))
        t[:m, n : n + m] = np.eye(m)
        t[:m, -1] = 1.0
        t[m, :n] = -1.0
        t.flags.writeable = False
        _TEMPLATES[(m, n)] = t
    return t


def _simplex(a: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """The LP of the module docstring on a dense tableau."""
    m, n = a.shape
    shift = a.min() - 1.0
    t = _template(m, n).copy()
    np.subtract(a, shift, out=t[:m, :n])
    basis = list(range(n, n + m))
    costs = t[m, :-1]  # views: they follow the in-place pivots
    rhs = t[:m, -1]
    ratios = np.empty(m)
    bland = False
    for _ in range(50 * (m + n) + 100):
        if bland:
            negative = np.flatnonzero(costs < -_EPS)
            if negative.size == 0:
                break
            e = int(negative[0])
        else:
            e = int(costs.argmin())
            if costs[e] >= -_EPS:
                break
        column = t[:m, e]
        ratios.fill(np.inf)
        np.divide(rhs, column, out=ratios, where=column > _EPS)
        r = int(ratios.argmin())
        best = ratios[r]
        if best == np.inf:  # cannot happen: the LP is bounded since A' > 0
            raise RuntimeError("matrix game LP is unbounded; this is a bug")
        if bland:
            ties = np.flatnonzero(ratios <= best + _EPS * max(1.0, best))
            if ties.size > 1:
                r = int(min(ties, key=basis.__getitem__))
        elif best <= _EPS:
            bland = True  # a degenerate pivot: from now on Bland's rule, which cannot cycle
        pivot_row = t[r] / t[r, e]
        t -= t[:, e, None] * pivot_row
        t[r] = pivot_row
        basis[r] = e
    else:  # pragma: no cover - Bland's rule terminates
        raise RuntimeError("matrix game simplex did not converge; this is a bug")
    v = 1.0 / t[m, -1]  # the optimum 1^T w is 1 / v'
    y = np.zeros(n)
    for r, var in enumerate(basis):
        if var < n:
            y[var] = rhs[r]
    x = np.maximum(t[m, n : n + m], 0.0)
    np.maximum(y, 0.0, out=y)
    x /= x.sum()
    y /= y.sum()
    return v + shift, x, y
