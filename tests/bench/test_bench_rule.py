"""The one verdict rule: a verdict says what the 95% interval rules out (one planted row per case)."""
import numpy as np
import pytest

from torchclaims.bench import rule, statistics as st

from .helpers import pair, verdict_of


def test_a_slowdown_against_a_claimed_speedup_contradicts_whatever_the_tolerance():
    """The planted opposite-direction row: measured 0.93x where the material says 1.22x."""
    row = pair(1.22, base=1.0, cand=1.0 / 0.93, tolerance=10.0)
    verdict = verdict_of(row)
    assert verdict.word == "contradicts", f"{verdict} for a measured slowdown against a claimed speed-up"
    assert "slowdown" in verdict.why


@pytest.mark.parametrize("stat, material, base, cand", [
    ("saving", 37.0, 1.0, 1.2),      # memory went up, the material claims a saving
    ("overhead", 20.0, 1.0, 0.8),    # time went down, the material claims an overhead
    ("speedup", 0.5, 1.0, 0.8),      # a claimed slowdown, measured a speed-up
])
def test_every_kind_of_figure_contradicts_in_the_opposite_direction(stat, material, base, cand):
    verdict = verdict_of(pair(material, base=base, cand=cand, stat=stat))
    assert verdict.word == "contradicts", f"{stat}: {verdict}"


def test_same_direction_within_tolerance_agrees_and_outside_it_does_not():
    assert verdict_of(pair(2.1)).word == "agrees"
    assert verdict_of(pair(5.0)).word == "weaker"
    assert verdict_of(pair(1.2)).word == "stronger"


def test_an_exact_no_effect_contradicts_a_claimed_effect():
    """0% measured exactly against a claimed 12% saving: a precise no-effect, not "inconclusive"."""
    exact = dict(claim="c.x", unit="%", stat="saving", material=12.0, measured=0.0, exact=True)
    verdict = verdict_of(exact)
    assert verdict.word == "contradicts" and "no effect" in verdict.why, verdict
    rounds = dict(claim="c.x", unit="%", stat="saving", material=12.0, baseline=[65544.0] * 21, candidate=[65544.0] * 21)
    assert st.figure_of(rounds).ci == (0.0, 0.0)
    verdict = verdict_of(rounds)
    assert verdict.word == "contradicts" and "exactly 0" in verdict.why, f"21 identical rounds a side: {verdict}"


def test_an_interval_containing_no_effect_and_the_materials_figure_is_inconclusive():
    row = pair(1.05, base=1.0, cand=1.0, noise=0.1)
    low, high = st.figure_of(row).ci
    assert low < 1.0 < 1.05 < high, (low, high)
    verdict = verdict_of(row)
    assert verdict.word == "inconclusive" and "contains both 1" in verdict.why, verdict
    bound = pair("> 1", base=1.0, cand=1.0, noise=0.03)
    assert verdict_of(bound).word == "inconclusive", "a bare direction cannot be ruled out by an interval across 1"


def test_an_interval_containing_no_effect_that_rules_out_the_materials_figure_contradicts():
    """The prefetch row: 0.96 [0.92, 1.06] against a claimed 1.18x, an 18% gain it rules out."""
    row = pair(1.18, base=1.0, cand=1.0, noise=0.03)
    low, high = st.figure_of(row).ci
    assert low < 1.0 < high < 1.18, (low, high)
    verdict = verdict_of(row)
    assert verdict.word == "contradicts" and "rules out the material's 1.18" in verdict.why, verdict


def test_a_noisy_row_is_flagged_but_judged_by_its_interval():
    """A relative IQR above 10% flags the row; it never overrules an interval that excludes no effect."""
    rng = np.random.default_rng(3)
    base = list(2.0 * rng.uniform(0.7, 1.3, 41))     # relative IQR about 30%
    row = dict(claim="c.x", unit="x", stat="speedup", material=2.0, baseline=base, candidate=[1.0] * 41)
    fig = st.figure_of(row)
    assert fig.ci[0] > 1.0 and fig.rel_iqr > st.NOISY_REL_IQR
    verdict = rule.judge(row, fig)
    assert verdict.word == "agrees" and "noisy" in verdict.why, verdict
    verdict = rule.judge({**row, "material": "> 1"}, fig)
    assert verdict.word == "holds" and "noisy" in verdict.why, verdict
    quiet = pair(2.0)
    assert "noisy" not in verdict_of(quiet).why


def test_magnitude_is_judged_by_where_the_whole_interval_lies_against_the_band():
    """Right direction: agrees while the interval reaches ±25% of the material's figure, weaker or
    stronger only when the whole interval lies outside it."""
    # 2.4x claims a 1.4 gain; the band's near edge is a gain of 0.75 x 1.4, i.e. 2.05x.
    reaching = pair(2.4, base=2.0, cand=1.0, noise=0.1)
    fig = st.figure_of(reaching)
    assert fig.value < 2.05 <= fig.ci[1], f"median {fig.value} outside the band, interval {fig.ci} reaching it"
    assert verdict_of(reaching).word == "agrees", verdict_of(reaching)
    tight = verdict_of(pair(2.4, base=2.0, cand=1.0, noise=0.005))
    assert tight.word == "weaker" and "whole interval" in tight.why, tight


def test_a_ratio_near_one_is_compared_by_its_effect_not_only_by_itself():
    """1.06x against 1.18x is within 25% as a figure (0.90) but a third of the claimed 18% gain."""
    row = dict(claim="c.x", unit="x", stat="speedup", material=1.18, measured=1.06, exact=True)
    verdict = verdict_of(row)
    assert verdict.word == "weaker" and "the effect is 0.33" in verdict.why, verdict


def test_too_few_rounds_are_inconclusive():
    verdict = verdict_of(pair(2.0, n=4))
    assert verdict.word == "inconclusive" and "rounds" in verdict.why, verdict


def test_a_saving_near_100_percent_is_compared_as_the_memory_it_leaves():
    """98.3% saving leaves 1/60 of the memory; 78.6% leaves 1/5: not within 25%."""
    row = dict(claim="c.x", unit="%", stat="saving", material=98.3, measured=78.6, exact=True)
    assert verdict_of(row).word == "weaker"
    row = dict(claim="c.x", unit="%", stat="overhead", material=20.0, measured=38.0, exact=True)
    assert verdict_of(row).word == "stronger", "38% overhead is about twice 20%"


def test_bounds():
    exact = dict(claim="c.x", unit="ratio", measured=1.0, exact=True)
    assert verdict_of({**exact, "material": "< 1"}).word == "contradicts", "equal is not less"
    assert verdict_of({**exact, "measured": 1.57, "material": "> 1"}).word == "holds"
    assert verdict_of({**exact, "measured": 0.7, "material": "> 1"}).word == "contradicts"
    assert verdict_of({**exact, "measured": 8.1, "unit": "MiB", "material": "< 10"}).word == "holds"


def test_a_plain_magnitude_is_judged_by_its_interval_inside_the_band():
    rng = np.random.default_rng(4)
    row = dict(claim="c.x", unit="MB", material=20.0, samples=list(1229 * (1 + rng.normal(0, 0.001, 9))))
    assert verdict_of(row).word == "higher"
    row["samples"] = list(21 * (1 + rng.normal(0, 0.001, 9)))
    assert verdict_of(row).word == "agrees"

