"""A row's figure from its raw rounds: the median, a 95% interval, the relative IQR, the rounds.

Never a mean of ratios: a ratio is the ratio of the two sides' medians. The interval of one
quantity's median is distribution-free (two order statistics, from the binomial distribution);
that of a ratio of medians is a paired percentile bootstrap over the interleaved rounds.
"""
from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from statistics import median

from ..errors import UsageError

CONFIDENCE = 0.95
NOISY_REL_IQR = 0.10      # torch.utils.benchmark.Measurement warns above the same spread
BOOTSTRAP_RESAMPLES = 4000
STATS = ("speedup", "ratio", "saving", "overhead")
NO_EFFECT = {"speedup": 1.0, "ratio": 1.0, "saving": 0.0, "overhead": 0.0}


def number(value) -> float | None:
    """A finite number as a float; None for anything else (a bool, a string, NaN)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


def numbers(values) -> list[float]:
    return [float(v) for v in values if number(v) is not None]


def _quantile(ordered, q: float) -> float:
    """Linear interpolation between order statistics (numpy's default, 'linear')."""
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def median_ci_ranks(n: int, confidence: float = CONFIDENCE) -> tuple[int, int] | None:
    """1-based ranks (k, n + 1 - k) of the distribution-free confidence interval of a median.

    The interval between the k-th smallest and the k-th largest of n independent samples
    covers the true median with probability 1 - 2 P(B <= k - 1), B ~ Binomial(n, 1/2),
    whatever the distribution; k is the largest rank keeping that at least ``confidence``.
    None when n is too small for any such interval (n < 6 at 95%).
    """
    if n < 1:
        return None
    limit = Fraction(1 - confidence).limit_denominator(10**6) / 2 * 2 ** n   # exact: any n
    cumulative, k = 0, 0
    for j in range(n // 2 + 1):
        cumulative += math.comb(n, j)
        if cumulative > limit:
            break
        k = j + 1
    if k == 0:
        return None
    return k, n + 1 - k


def median_ci_coverage(n: int, k: int) -> float:
    """Exact coverage of the (k, n + 1 - k) order-statistic interval of a median."""
    return 1 - 2 * sum(math.comb(n, j) for j in range(k)) / 2 ** n


def median_ci(values, confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    ranks = median_ci_ranks(len(values), confidence)
    if ranks is None:
        return None
    ordered = sorted(values)
    return float(ordered[ranks[0] - 1]), float(ordered[ranks[1] - 1])


def relative_iqr(values) -> float:
    ordered = sorted(values)
    med = median(ordered)
    if not med:
        return 0.0 if ordered[0] == ordered[-1] else math.inf
    return abs(_quantile(ordered, 0.75) - _quantile(ordered, 0.25)) / abs(med)


def apply(stat: str, ratio: float) -> float:
    """From median(candidate) / median(baseline) to the row's figure."""
    if stat == "speedup":
        return 1.0 / ratio if ratio else math.inf
    if stat == "ratio":
        return ratio
    if stat == "saving":
        return 100.0 * (1.0 - ratio)
    return 100.0 * (ratio - 1.0)       # overhead


def pair_estimate(baseline, candidate, stat: str) -> float:
    base = median(baseline)
    return apply(stat, median(candidate) / base if base else math.inf)


def bootstrap_ci(baseline, candidate, stat: str, confidence: float = CONFIDENCE,
                 resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the row's figure computed from the two medians.

    Rounds are interleaved, so when both sides have the same number of rounds they are
    resampled together (round i of the baseline stays with round i of the candidate: a
    slow phase of the machine hits both); otherwise each side is resampled on its own.
    Deterministic for a given seed.  None below 6 rounds a side (no honest interval).
    """
    import numpy as np
    base, cand = np.asarray(baseline, dtype=float), np.asarray(candidate, dtype=float)
    if min(base.size, cand.size) < 6:
        return None
    rng = np.random.default_rng(seed)
    if base.size == cand.size:
        index = rng.integers(0, base.size, size=(resamples, base.size))
        base_medians = np.median(base[index], axis=1)
        cand_medians = np.median(cand[index], axis=1)
    else:
        base_medians = np.median(base[rng.integers(0, base.size, size=(resamples, base.size))], axis=1)
        cand_medians = np.median(cand[rng.integers(0, cand.size, size=(resamples, cand.size))], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        figures = np.array([apply(stat, r) for r in cand_medians / base_medians])
    alpha = 1 - confidence
    low, high = np.quantile(figures, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


@dataclasses.dataclass
class Figure:
    """One row's figure with its noise: what every table and the chart show."""
    value: float | None
    ci: tuple[float, float] | None = None
    rel_iqr: float | None = None
    rounds: int | None = None
    exact: bool = False
    how: str = ""                      # how the interval was obtained

    @property
    def noisy(self) -> bool:
        return self.rel_iqr is not None and self.rel_iqr > NOISY_REL_IQR


def figure_of(row: dict) -> Figure:
    """The median, interval, relative IQR and rounds of a row, from its raw measurements."""
    if isinstance(row.get("baseline"), list) and isinstance(row.get("candidate"), list):
        baseline, candidate = numbers(row["baseline"]), numbers(row["candidate"])
        stat = row.get("stat", "speedup")
        if stat not in STATS:
            raise UsageError(f"row {row.get('quantity')!r}: stat {stat!r} is not one of {', '.join(STATS)}")
        if not baseline or not candidate:
            return Figure(None)
        return Figure(pair_estimate(baseline, candidate, stat), bootstrap_ci(baseline, candidate, stat),
                      max(relative_iqr(baseline), relative_iqr(candidate)), min(len(baseline), len(candidate)),
                      how=f"paired bootstrap of the ratio of medians ({BOOTSTRAP_RESAMPLES} resamples)")
    if isinstance(row.get("samples"), list):
        samples = numbers(row["samples"])
        if not samples:
            return Figure(None)
        ranks = median_ci_ranks(len(samples))
        how = (f"order statistics {ranks[0]} and {ranks[1]} of {len(samples)} "
               f"({median_ci_coverage(len(samples), ranks[0]):.1%} coverage)") if ranks else ""
        spread = relative_iqr(samples) if len(samples) >= 4 else None   # no quartiles of 1-3 values
        return Figure(median(samples), median_ci(samples), spread, len(samples), how=how)
    value = number(row.get("measured"))
    if value is not None and row.get("exact"):
        return Figure(value, (value, value), 0.0, 1, exact=True, how="exact: a deterministic count")
    return Figure(value)
