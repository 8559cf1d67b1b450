"""Statistics across repeats of one run (`--repeats N`): how much a score moves from run to
run, and which cases a model gets right only sometimes.

Why a module of its own: a BFCL score is one sample of a noisy process (upstream #1145 saw
multi-turn base move from 0.455 to 0.56 over repeated runs of one model), and the official
tool measures none of it. Everything here is a pure function of the per-repeat scores and
per-case verdicts, so it is tested on its own (tests/score/test_repeats.py, Hypothesis) and
the readers and writers (`report.repeats`) stay thin.

* Spread of a score over repeats: the mean, the sample standard deviation (n - 1) and a 95%
  Student t-interval over the repeat scores, `mean ± t(0.975, n - 1) · s / √n`, clipped to
  [0, 1] (scores are accuracies). The t-interval, not Wilson's (`score.intervals.wilson`):
  the unit here is a whole run, of which there are few, and their scores are averages of
  many cases, close to normal; Wilson's interval is about one run's cases.
* Per case: consistent-pass (right in every repeat that judged it), consistent-fail (wrong
  in every one), flaky (both).
* pass^k (tau-bench's "all k tries right") and pass@k ("at least one of k right") with the
  unbiased estimators over n repeats of which c were right: pass^k = C(c, k) / C(n, k) and
  pass@k = 1 - C(n - c, k) / C(n, k), averaged over cases. pass^1 = pass@1 = the mean
  accuracy; pass^k falls and pass@k rises with k.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from fcbench.score.intervals import Z_95, Interval

__all__ = [
    "CONSISTENCIES",
    "CategoryRepeats",
    "Consistency",
    "Spread",
    "category_repeats",
    "consistency",
    "mean_pass_at_k",
    "mean_pass_hat_k",
    "pass_at_k",
    "pass_hat_k",
    "sample_std",
    "spread",
    "t_interval",
    "t_quantile_95",
]

Consistency = Literal["consistent-pass", "consistent-fail", "flaky"]
CONSISTENCIES: tuple[Consistency, ...] = ("consistent-pass", "consistent-fail", "flaky")

_T_975 = (
    12.706204736174698, 4.302652729749464, 3.182446305284263, 2.7764451051977934,
    2.570581835636314, 2.4469118511449692, 2.3646242515927844, 2.306004135204166,
    2.2621571628540993, 2.2281388519649385, 2.200985160082949, 2.1788128296634177,
    2.1603686564610127, 2.1447866879169273, 2.131449545559323, 2.1199052992210112,
    2.1098155778331806, 2.10092204024096, 2.093024054408263, 2.0859634472658364,
    2.079613844727662, 2.0738730679040147, 2.068657610419041, 2.0638985616280205,
    2.059538552753294, 2.055529438642871, 2.0518305164802833, 2.0484071417952445,
    2.045229642132703, 2.0422724563012373,
)
"""The 0.975 quantile of Student's t with 1..30 degrees of freedom (the usual table, within
1e-10); beyond 30 `t_quantile_95` uses the Cornish-Fisher expansion around
the normal quantile, exact to better than 1e-6 there."""


def t_quantile_95(df: int) -> float:
    """The two-sided 95% quantile of Student's t with `df` degrees of freedom (df >= 1)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    if df <= len(_T_975):
        return _T_975[df - 1]
    z = Z_95
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def sample_std(values: Sequence[float]) -> float | None:
    """The sample standard deviation (n - 1); None below two values. Exactly 0 when every
    value is equal (no rounding residue from the mean)."""
    if len(values) < 2:
        return None
    if all(v == values[0] for v in values):
        return 0.0
    mean = math.fsum(values) / len(values)
    return math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))


def t_interval(values: Sequence[float]) -> Interval | None:
    """The 95% t-interval of the mean of `values` (accuracies), clipped to [0, 1]; None
    below two values (one run says nothing of the spread)."""
    std = sample_std(values)
    if std is None:
        return None
    mean = math.fsum(values) / len(values)
    half = t_quantile_95(len(values) - 1) * std / math.sqrt(len(values))
    return Interval(max(0.0, min(mean, mean - half)), min(1.0, max(mean, mean + half)))


@dataclass(frozen=True)
class Spread:
    """A score over repeats: one value per repeat, their mean, std and 95% t-interval."""

    values: tuple[float, ...]
    mean: float | None
    std: float | None
    interval: Interval | None


def spread(values: Sequence[float]) -> Spread:
    """The spread of one score over the repeats that produced it."""
    mean = math.fsum(values) / len(values) if values else None
    return Spread(tuple(values), mean, sample_std(values), t_interval(values))


def consistency(verdicts: Sequence[bool]) -> Consistency:
    """consistent-pass, consistent-fail or flaky, over the repeats that judged a case."""
    if not verdicts:
        raise ValueError("a case judged by no repeat has no consistency")
    if all(verdicts):
        return "consistent-pass"
    return "flaky" if any(verdicts) else "consistent-fail"


def _check(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")


def pass_hat_k(n: int, c: int, k: int) -> Fraction:
    """pass^k of one case right in c of n repeats: C(c, k) / C(n, k), the chance that k
    repeats drawn without replacement are all right."""
    _check(n, c, k)
    return Fraction(math.comb(c, k), math.comb(n, k))


def pass_at_k(n: int, c: int, k: int) -> Fraction:
    """pass@k of one case right in c of n repeats: 1 - C(n - c, k) / C(n, k), the chance
    that k repeats drawn without replacement hold at least one right."""
    _check(n, c, k)
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def mean_pass_hat_k(counts: Sequence[tuple[int, int]], k: int) -> float | None:
    """pass^k averaged over cases, each given as (n repeats, c right); None without cases."""
    if not counts:
        return None
    return float(sum((pass_hat_k(n, c, k) for n, c in counts), Fraction(0)) / len(counts))


def mean_pass_at_k(counts: Sequence[tuple[int, int]], k: int) -> float | None:
    """pass@k averaged over cases, each given as (n repeats, c right); None without cases."""
    if not counts:
        return None
    return float(sum((pass_at_k(n, c, k) for n, c in counts), Fraction(0)) / len(counts))


@dataclass(frozen=True)
class CategoryRepeats:
    """One category over the repeats: its score spread, each case's consistency, pass^k and
    pass@k for k = 1..(the repeats every counted case was judged in)."""

    category: str
    accuracy: Spread
    verdicts: dict[str, tuple[bool, ...]]
    """Case id -> its verdict in each repeat that judged it, in repeat order."""
    consistency: dict[str, Consistency]
    pass_hat: dict[int, float] = field(default_factory=dict)
    pass_at: dict[int, float] = field(default_factory=dict)
    unpaired: tuple[str, ...] = ()
    """Cases not judged in every repeat (skipped, or a repeat unfinished): in
    `consistency`, left out of pass^k / pass@k, which pair each case over all repeats."""

    def counts(self) -> dict[Consistency, int]:
        """How many cases are consistent-pass, consistent-fail, flaky."""
        found = dict.fromkeys(CONSISTENCIES, 0)
        for kind in self.consistency.values():
            found[kind] += 1
        return found

    def flaky(self) -> list[str]:
        return [case for case, kind in self.consistency.items() if kind == "flaky"]


def category_repeats(
    category: str, accuracies: Sequence[float], verdicts: Mapping[str, Sequence[bool | None]]
) -> CategoryRepeats:
    """A category's statistics from its official accuracy in each repeat and each case's
    verdict per repeat (None: not judged in that repeat)."""
    repeats = len(accuracies)
    judged = {case: tuple(v for v in seen if v is not None) for case, seen in verdicts.items()}
    judged = {case: seen for case, seen in judged.items() if seen}
    paired = [(len(seen), sum(seen)) for seen in judged.values() if len(seen) == repeats]
    ks = range(1, repeats + 1) if paired else range(0)
    return CategoryRepeats(
        category, spread(accuracies), judged,
        {case: consistency(seen) for case, seen in judged.items()},
        {k: v for k in ks if (v := mean_pass_hat_k(paired, k)) is not None},
        {k: v for k in ks if (v := mean_pass_at_k(paired, k)) is not None},
        tuple(case for case, seen in judged.items() if len(seen) != repeats),
    )
