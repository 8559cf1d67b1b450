"""Uncertainty of an accuracy, and a paired test for the difference between two runs.

Why these two: a category has a few hundred cases, so its accuracy moves by several points
between runs of the same model; a reader deciding between two checkpoints needs to see that.

* `wilson`: the Wilson score interval for a binomial proportion. Unlike the normal
  approximation it stays inside [0, 1] and behaves at 0% and 100%, which BFCL categories hit.
* `mcnemar_exact`: the exact (binomial) McNemar test on paired verdicts. Two runs answer the
  same cases, so only the cases that flipped carry information: under "no difference" a flip
  is equally likely in either direction, and the two-sided p-value is the binomial tail of
  the smaller flip count, doubled (capped at 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z_95 = 1.959963984540054
"""The standard normal quantile for a two-sided 95% interval."""


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


def wilson(correct: int, total: int, z: float = Z_95) -> Interval | None:
    """The Wilson score interval of correct/total; None when nothing was evaluated."""
    if total <= 0:
        return None
    if not 0 <= correct <= total:
        raise ValueError(f"correct ({correct}) must lie in 0..total ({total})")
    p = correct / total
    z2 = z * z
    centre = (p + z2 / (2 * total)) / (1 + z2 / total)
    half = z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total)) / (1 + z2 / total)
    # At 0% and 100% the bound is exactly the edge; rounding would leave a 1e-17 there.
    low = 0.0 if correct == 0 else max(0.0, centre - half)
    high = 1.0 if correct == total else min(1.0, centre + half)
    return Interval(low, high)


def mcnemar_exact(gained: int, lost: int) -> float:
    """Two-sided exact McNemar p-value for `gained` (fail -> pass) and `lost` (pass -> fail)
    discordant pairs; 1.0 when nothing flipped.

    Exact integer arithmetic: the tail sum of binomial coefficients is divided by 2**n only
    at the end, so large flip counts neither overflow nor lose the small p-values.
    """
    if gained < 0 or lost < 0:
        raise ValueError("flip counts cannot be negative")
    n = gained + lost
    if n == 0:
        return 1.0
    k = min(gained, lost)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, (2 * tail) / (1 << n))
