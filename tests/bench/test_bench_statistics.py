"""The report's statistics: distribution-free intervals of a median, the paired bootstrap, ratios of medians."""
import math

import numpy as np
import pytest

from torchclaims.bench import statistics as st


@pytest.mark.parametrize("n, ranks", [
    # The classic table of distribution-free 95% intervals for a median (e.g. Conover,
    # Practical Nonparametric Statistics, Table A3), each checked by hand below.
    (6, (1, 6)),     # P(B <= 0) = 1/64 = 0.016 <= 0.025
    (9, (2, 8)),     # P(B <= 1) = 10/512 = 0.020; P(B <= 2) = 46/512 = 0.090
    (10, (2, 9)),    # P(B <= 1) = 11/1024 = 0.011; P(B <= 2) = 56/1024 = 0.055
    (15, (4, 12)),   # P(B <= 3) = 576/32768 = 0.018; P(B <= 4) = 1941/32768 = 0.059
    (20, (6, 15)),   # P(B <= 5) = 0.021; P(B <= 6) = 0.058
    (21, (6, 16)),   # P(B <= 5) = 0.013; P(B <= 6) = 0.039
    (30, (10, 21)),  # P(B <= 9) = 0.021; P(B <= 10) = 0.049
])
def test_median_interval_ranks_match_the_binomial_table(n, ranks):
    assert st.median_ci_ranks(n) == ranks, f"median_ci_ranks({n}) = {st.median_ci_ranks(n)}, expected {ranks}"
    k = ranks[0]
    tail = sum(math.comb(n, j) for j in range(k)) / 2 ** n
    assert tail <= 0.025 < tail + math.comb(n, k) / 2 ** n, f"rank {k} is not the largest with tail <= 2.5% for n={n}"
    assert st.median_ci_coverage(n, k) == pytest.approx(1 - 2 * tail)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_too_few_rounds_give_no_interval(n):
    assert st.median_ci_ranks(n) is None
    assert st.median_ci(list(range(n))) is None


def test_median_interval_of_known_samples_is_the_right_order_statistics():
    samples = [7.0, 3.0, 9.0, 1.0, 5.0, 8.0, 2.0, 6.0, 4.0]          # 1..9 shuffled
    assert st.median_ci(samples) == (2.0, 8.0)
    assert st.figure_of({"samples": samples}).value == 5.0


def test_median_interval_covers_the_true_median_at_least_95_percent_of_the_time():
    """Distribution-free: checked on a skewed distribution whose median is known (log 2)."""
    rng = np.random.default_rng(0)
    trials, n = 4000, 21
    draws = rng.exponential(1.0, size=(trials, n))
    covered = sum(lo <= math.log(2) <= hi for lo, hi in (st.median_ci(list(row)) for row in draws))
    assert covered / trials >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / trials), (
        f"coverage {covered / trials:.3f} on {trials} trials, expected >= {st.median_ci_coverage(n, 6):.3f}")


def test_relative_iqr_uses_linear_quartiles_like_numpy():
    samples = [1.0, 2.0, 2.5, 3.0, 10.0, 4.0, 3.5]
    q1, med, q3 = np.percentile(samples, [25, 50, 75])
    assert st.relative_iqr(samples) == pytest.approx((q3 - q1) / med)


def test_bootstrap_is_deterministic_contains_the_estimate_and_collapses_on_constant_data():
    rng = np.random.default_rng(1)
    base, cand = list(2.0 + rng.normal(0, 0.05, 21)), list(1.0 + rng.normal(0, 0.05, 21))
    first = st.bootstrap_ci(base, cand, "speedup")
    assert first == st.bootstrap_ci(base, cand, "speedup"), "the bootstrap must be reproducible"
    estimate = st.pair_estimate(base, cand, "speedup")
    assert first[0] <= estimate <= first[1], f"interval {first} does not contain the estimate {estimate}"
    assert st.bootstrap_ci([2.0] * 10, [1.0] * 10, "speedup") == (2.0, 2.0)
    assert st.bootstrap_ci([2.0] * 5, [1.0] * 5, "speedup") is None, "5 rounds cannot give an honest interval"


def test_a_ratio_is_the_ratio_of_medians_never_the_mean_of_ratios():
    baseline = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    candidate = [7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]
    mean_of_ratios = float(np.mean(np.array(baseline) / np.array(candidate)))
    fig = st.figure_of({"baseline": baseline, "candidate": candidate, "stat": "speedup"})
    assert fig.value == pytest.approx(1.0), f"speed-up {fig.value}, expected median/median = 4/4 = 1"
    assert mean_of_ratios > 1.5, "the planted data must tell the two apart"


@pytest.mark.parametrize("stat, expected", [("speedup", 2.0), ("ratio", 0.5), ("saving", 50.0), ("overhead", -50.0)])
def test_pair_statistics(stat, expected):
    assert st.pair_estimate([2.0] * 7, [1.0] * 7, stat) == pytest.approx(expected)

