"""The one verdict rule of the benchmark report: what the 95% interval rules out.

``judge`` implements it; ``method_lines`` states it in the report's method, in the reader's
language. Each reason is a ``Phrase`` built from the measurement, rendered per language.
"""
from __future__ import annotations

import dataclasses
import math
import re

from .cells import fmt
from .phrases import Phrase, phrase, render, say
from .statistics import NO_EFFECT, NOISY_REL_IQR, STATS, Figure, number

DEFAULT_TOLERANCE = 0.25
BOUND = re.compile(r"^\s*(<=|>=|<|>)\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*$")
WORDS = ("agrees", "weaker", "stronger", "holds", "contradicts", "inconclusive", "higher", "lower", "differs",
         "measured", "not measured", "compare by hand")


@dataclasses.dataclass(frozen=True)
class Verdict:
    word: str                      # one of WORDS
    reason: Phrase
    where: Phrase | None = None    # the hardware a GPU row ran on, against the material's

    def why_in(self, lang: str = "en") -> str:
        return (render(self.where, lang) if self.where else "") + render(self.reason, lang)

    @property
    def why(self) -> str:
        return self.why_in("en")

    def word_in(self, lang: str = "en") -> str:
        return say(lang, "word_" + self.word.replace(" ", "_"))


def claimed(row: dict) -> tuple[float | None, int, float | None]:
    """(threshold, claimed direction +1 above / -1 below / 0 none, the material's number or None)."""
    material = row.get("material")
    stat = row.get("stat") if row.get("stat") in STATS else None
    threshold = number(row.get("threshold"))
    if threshold is None and stat is not None:
        threshold = NO_EFFECT[stat]
    target = number(material)
    if target is not None:
        if threshold is None or target == threshold:
            return threshold, 0, target
        return threshold, 1 if target > threshold else -1, target
    match = BOUND.match(str(material)) if isinstance(material, str) else None
    if match:
        return float(match.group(2)), 1 if match.group(1).startswith(">") else -1, None
    return threshold, 0, None


def side(direction: int, row: dict, threshold: float | None = None) -> Phrase:
    """What a figure on that side of no effect is: a speed-up, a saving, a value above 1..."""
    stat = row.get("stat")
    up = direction > 0
    if stat == "speedup":
        return phrase("side_speedup" if up else "side_slowdown")
    if stat == "saving":
        return phrase("side_saving" if up else "side_increase")
    if stat == "overhead":
        return phrase("side_overhead" if up else "side_gain")
    return phrase("side_above" if up else "side_below", threshold=fmt(threshold))


def magnitude(stat: str | None, value: float, target: float, threshold: float | None = None) -> tuple[float, Phrase]:
    """How far a same-direction figure is from the material's, as a multiplicative factor.

    A figure is compared as itself and as the effect it stands for, and the factor farther
    from 1 counts: a percentage also as the ratio it stands for (a 98% saving leaves 1/50 of
    the memory and an 80% saving 1/5, ten times more, though 80/98 is "within 25%"; a 38%
    overhead is twice a 20% one, though 1.38/1.20 is within 25%), and a ratio also as its
    distance from no effect (1.06x is a third of the 18% gain of 1.18x, though 1.06/1.18 is
    within 25%).
    """
    factors = [(value / target if target else math.inf, "what_figure")]
    if stat == "saving" and target != 100:
        factors.append(((1 - value / 100) / (1 - target / 100), "what_fraction_left"))
    if stat == "overhead" and target != -100:
        factors.append(((1 + value / 100) / (1 + target / 100), "what_time_ratio"))
    if stat in ("speedup", "ratio") and threshold is not None and target != threshold:
        factors.append(((value - threshold) / (target - threshold), "what_effect"))
    factor, what = max(factors, key=lambda f: abs(math.log(f[0])) if f[0] > 0 else math.inf)
    return factor, phrase(what)


def band_side(row: dict, value: float, threshold: float, direction: int, target: float,
              tolerance: float) -> tuple[int, float, Phrase]:
    """Where ``value`` (on the claimed side of no effect) lies against the material's ±tolerance
    band: -1 short of it (weaker), 0 inside, +1 beyond it (stronger); with the factor."""
    factor, what = magnitude(row.get("stat"), value, target, threshold)
    if factor > 0 and abs(factor - 1) <= tolerance:
        return 0, factor, what
    return (-1 if (value - threshold) * direction < (target - threshold) * direction else 1), factor, what


def noisy_note(fig: Figure) -> Phrase | str:
    if fig.noisy:
        return phrase("noisy_note", rel=f"{fig.rel_iqr:.0%}", limit=f"{NOISY_REL_IQR:.0%}")
    return ""


def judge(row: dict, fig: Figure) -> Verdict:
    """The verdict of one row measured on comparable hardware (context rows are never judged).

    One rule, written in the report's method: a verdict says what the 95% interval rules out.
    A figure with a direction (a speed-up, a saving, an overhead, a bound) is

    - *contradicts* when the interval rules out any effect the way the material claims (it
      lies at no effect, or beyond it the other way: exactly 0% against a claimed 12% saving, a
      slowdown against a claimed speed-up), or when it contains no effect and rules out the
      material's figure (the whole interval short of the ±tolerance band around it);
    - *inconclusive* when it contains no effect and does not rule out the material's figure
      (or the material gives only a direction), or when there is no interval;
    - with no effect ruled out the claimed way: *holds* for a bound; *agrees* when the
      interval reaches the band around the material's figure; *weaker* / *stronger* when the
      whole interval lies short of / beyond that band.

    A plain magnitude (MB) *agrees* when its interval reaches the band, else *higher* /
    *lower*.  A relative IQR above 10% is a flag (``noisy``), never a verdict: the interval
    already carries the spread.
    """
    if fig.value is None:
        return Verdict("not measured", phrase("why_not_measured"))
    material = row.get("material")
    if material is None or material == "":
        return Verdict("measured", phrase("why_no_figure"))
    threshold, direction, target = claimed(row)
    tolerance = number(row.get("tolerance")) or DEFAULT_TOLERANCE
    if target is None and direction == 0:
        return Verdict("compare by hand", phrase("why_by_hand", material=repr(material)))
    if fig.ci is None:
        rounds = fig.rounds or 0
        return Verdict("inconclusive", phrase("why_no_interval_n" if rounds else "why_no_interval", n=rounds))
    low, high = fig.ci
    noisy = noisy_note(fig)
    interval = phrase("interval", low=fmt(low), high=fmt(high)) if low != high else phrase("exactly", value=fmt(low))
    whole = phrase("whole_interval" if low != high else "whole_exact")
    tol = f"{tolerance:.0%}"
    common = dict(interval=interval, whole=whole, tolerance=tol, noisy=noisy)
    if direction != 0:
        near, far = (low, high) if direction > 0 else (high, low)
        claim = side(direction, row, threshold)
        if (far - threshold) * direction <= 0:
            if near == far == threshold:
                return Verdict("contradicts", phrase("why_no_effect", claimed=claim, **common))
            if far == threshold:
                return Verdict("contradicts", phrase("why_other_side_to_none", claimed=claim,
                                                     threshold=fmt(threshold), **common))
            return Verdict("contradicts", phrase("why_opposite", here=side(-direction, row, threshold),
                                                 claimed=claim, **common))
        if (near - threshold) * direction <= 0:
            if target is not None:
                where, factor, what = band_side(row, far, threshold, direction, target, tolerance)
                if where < 0:
                    return Verdict("contradicts", phrase("why_rules_out", threshold=fmt(threshold),
                                                         target=fmt(target), what=what, factor=f"{factor:.2f}",
                                                         **common))
                return Verdict("inconclusive", phrase("why_contains_both", threshold=fmt(threshold),
                                                      target=fmt(target), **common))
            return Verdict("inconclusive", phrase("why_contains_none", threshold=fmt(threshold), **common))
        if target is None:
            span = interval if low != high else fmt(low)
            return Verdict("holds", phrase("why_holds", span=span, material=str(material), **common))
        sides = [band_side(row, v, threshold, direction, target, tolerance) for v in (near, far)]
        factor, what = magnitude(row.get("stat"), fig.value, target, threshold)
        figure = dict(what=what, factor=f"{factor:.2f}", **common)
        if sides[1][0] < 0:
            return Verdict("weaker", phrase("why_weaker", **figure))
        if sides[0][0] > 0:
            return Verdict("stronger", phrase("why_stronger", **figure))
        return Verdict("agrees", phrase("why_agrees", **figure))
    # No direction: a plain magnitude (bytes, MB), compared within the tolerance band.
    if target == 0:
        inside = low <= tolerance and high >= -tolerance
        return Verdict("agrees" if inside else "differs",
                       phrase("why_zero_inside" if inside else "why_zero_outside", band=fmt(tolerance), **common))
    ratio = f"{fig.value / target:.2f}"
    lo, hi = sorted((low / target, high / target))
    if hi < 1 - tolerance:
        return Verdict("lower", phrase("why_lower", ratio=ratio, **common))
    if lo > 1 + tolerance:
        return Verdict("higher", phrase("why_higher", ratio=ratio, **common))
    return Verdict("agrees", phrase("why_magnitude_agrees", ratio=ratio, **common))


def method_lines(lang: str = "en") -> list[str]:
    """The verdict rule and the hardware rule as the report states them (``judge`` and
    ``hardware.context_reason`` implement them; their tests plant each case)."""
    fields = dict(tolerance=f"{DEFAULT_TOLERANCE:.0%}", noisy=f"{NOISY_REL_IQR:.0%}")
    return [say(lang, "rule_intro"), "", *(say(lang, k, **fields) for k in ("rule_contradicts", "rule_inconclusive",
                                                                            "rule_agrees")),
            "", say(lang, "rule_magnitude", **fields), "", say(lang, "rule_hardware")]
