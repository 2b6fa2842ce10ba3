"""``python -m torchclaims bench-report RESULTS.json [-o DIR]``: the benchmark report.

Reads the JSON that ``pytest benchmarks/ --benchmark-json RESULTS.json`` writes and renders

- ``DIR/report.md``: the machine, the load average before and after the run (with a warning
  when it was busy), the method, then one table per claim with a *verdict*, then a separate
  *context* section for figures the material gives for other hardware (an A100, an RTX 3090),
  then the claims whose benchmark did not run, then pytest-benchmark's own statistics;
- ``DIR/report.png``: one panel per kind of quantity (ratios, percentages, memory, latency),
  the measured median with its 95% interval as error bars next to the material's figure.

Benchmarks talk to the report only through ``benchmark.extra_info`` (see CONTRIBUTING.md).
A *row* is a dict with ``claim``, ``quantity``, ``unit``, ``material``, ``method``, ``scale``
and the raw measurements, in one of three shapes:

- ``baseline=[...]`` and ``candidate=[...]``: per-round values of two interleaved sides,
  with ``stat`` one of ``speedup`` (median(baseline) / median(candidate): > 1 means the
  candidate is faster), ``ratio`` (median(candidate) / median(baseline)), ``saving``
  (percent less: 100 * (1 - ratio)) or ``overhead`` (percent more: 100 * (ratio - 1));
- ``samples=[...]``: per-round values of one quantity (its median is the figure);
- ``measured=x`` with ``exact=True``: a deterministic count (bytes of a file, of saved
  tensors), for which the interval is the value itself.

The report computes every figure from these: the median (of each side), a 95% confidence
interval (distribution-free order statistics for a median, a paired percentile bootstrap
for a ratio of medians), the IQR relative to the median and the number of rounds.  It never
averages ratios.  ``material`` is a number or a bound such as ``"< 1"`` or ``"> 1"``;
``threshold`` overrides the no-effect value (1 for ratios, 0 for percentages);
``hardware`` names the hardware the material's figure is for ("A100"): such a row is
*context* unless this run had that device.  ``tolerance`` (default 0.25) is the relative
band within which a figure of the same direction *agrees*; ``more`` holds further rows;
any other key is shown as a detail.  A user error (missing or malformed JSON) is one line
on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import json
import math
import pathlib
import re
import sys
import textwrap
from fractions import Fraction

from packaging.version import InvalidVersion, Version

from . import catalog, files, links

DEFAULT_TOLERANCE = 0.25
CONFIDENCE = 0.95
NOISY_REL_IQR = 0.10      # torch.utils.benchmark.Measurement warns above the same spread
BUSY_LOAD = 0.5           # load average at or above which the report warns (at least; see busy_load)
BUSY_LOAD_PER_CORE = 0.25  # ... or a quarter of the logical cores, on a larger machine
BUSY_OTHERS = 0.25        # cores other processes kept busy on average, at or above which it warns
BOOTSTRAP_RESAMPLES = 4000
STATS = ("speedup", "ratio", "saving", "overhead")
NO_EFFECT = {"speedup": 1.0, "ratio": 1.0, "saving": 0.0, "overhead": 0.0}
ROW_KEYS = {"claim", "quantity", "measured", "material", "unit", "method", "tolerance", "note", "more",
            "baseline", "candidate", "samples", "stat", "exact", "scale", "threshold", "hardware", "table",
            "device", "same_hardware"}
_BOUND = re.compile(r"^\s*(<=|>=|<|>)\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*$")


class ReportError(Exception):
    """Bad input: printed as one line, exit status 2."""


# ------------------------------------------------------------------ statistics

def _median(values) -> float:
    ordered = sorted(values)
    n = len(ordered)
    mid = n // 2
    return float(ordered[mid]) if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2.0


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
    med = _median(ordered)
    if not med:
        return 0.0 if ordered[0] == ordered[-1] else math.inf
    return abs(_quantile(ordered, 0.75) - _quantile(ordered, 0.25)) / abs(med)


def _apply(stat: str, ratio: float) -> float:
    """From median(candidate) / median(baseline) to the row's figure."""
    if stat == "speedup":
        return 1.0 / ratio if ratio else math.inf
    if stat == "ratio":
        return ratio
    if stat == "saving":
        return 100.0 * (1.0 - ratio)
    return 100.0 * (ratio - 1.0)       # overhead


def pair_estimate(baseline, candidate, stat: str) -> float:
    base = _median(baseline)
    return _apply(stat, _median(candidate) / base if base else math.inf)


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
        figures = np.array([_apply(stat, r) for r in cand_medians / base_medians])
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


def figure_of(row: dict) -> Figure:
    """The median, interval, relative IQR and rounds of a row, from its raw measurements."""
    if isinstance(row.get("baseline"), list) and isinstance(row.get("candidate"), list):
        baseline, candidate = _numbers(row["baseline"]), _numbers(row["candidate"])
        stat = row.get("stat", "speedup")
        if stat not in STATS:
            raise ReportError(f"row {row.get('quantity')!r}: stat {stat!r} is not one of {', '.join(STATS)}")
        if not baseline or not candidate:
            return Figure(None)
        return Figure(pair_estimate(baseline, candidate, stat), bootstrap_ci(baseline, candidate, stat),
                      max(relative_iqr(baseline), relative_iqr(candidate)), min(len(baseline), len(candidate)),
                      how=f"paired bootstrap of the ratio of medians ({BOOTSTRAP_RESAMPLES} resamples)")
    if isinstance(row.get("samples"), list):
        samples = _numbers(row["samples"])
        if not samples:
            return Figure(None)
        ranks = median_ci_ranks(len(samples))
        how = (f"order statistics {ranks[0]} and {ranks[1]} of {len(samples)} "
               f"({median_ci_coverage(len(samples), ranks[0]):.1%} coverage)") if ranks else ""
        spread = relative_iqr(samples) if len(samples) >= 4 else None   # no quartiles of 1-3 values
        return Figure(_median(samples), median_ci(samples), spread, len(samples), how=how)
    value = _number(row.get("measured"))
    if value is not None and row.get("exact"):
        return Figure(value, (value, value), 0.0, 1, exact=True, how="exact: a deterministic count")
    return Figure(value)


def _numbers(values) -> list[float]:
    return [float(v) for v in values if _number(v) is not None]


def _number(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


# ------------------------------------------------------------------ verdicts

@dataclasses.dataclass
class Verdict:
    word: str        # agrees | weaker | stronger | holds | contradicts | inconclusive | higher | lower | ...
    why: str


def _claimed(row: dict) -> tuple[float | None, int, float | None]:
    """(threshold, claimed direction +1 above / -1 below / 0 none, the material's number or None)."""
    material = row.get("material")
    stat = row.get("stat") if row.get("stat") in STATS else None
    threshold = _number(row.get("threshold"))
    if threshold is None and stat is not None:
        threshold = NO_EFFECT[stat]
    target = _number(material)
    if target is not None:
        if threshold is None or target == threshold:
            return threshold, 0, target
        return threshold, 1 if target > threshold else -1, target
    match = _BOUND.match(str(material)) if isinstance(material, str) else None
    if match:
        return float(match.group(2)), 1 if match.group(1).startswith(">") else -1, None
    return threshold, 0, None


def _side(word: int, row: dict, threshold: float | None = None) -> str:
    stat = row.get("stat")
    if stat == "speedup":
        return "a speed-up" if word > 0 else "a slowdown"
    if stat == "saving":
        return "a saving" if word > 0 else "an increase"
    if stat == "overhead":
        return "an overhead" if word > 0 else "a gain"
    return f"a value {'above' if word > 0 else 'below'} {_fmt(threshold)}"


def _magnitude(stat: str | None, value: float, target: float, threshold: float | None = None) -> tuple[float, str]:
    """How far a same-direction figure is from the material's, as a multiplicative factor.

    A figure is compared as itself and as the effect it stands for, and the factor farther
    from 1 counts: a percentage also as the ratio it stands for (a 98% saving leaves 1/50 of
    the memory and an 80% saving 1/5, ten times more, though 80/98 is "within 25%"; a 38%
    overhead is twice a 20% one, though 1.38/1.20 is within 25%), and a ratio also as its
    distance from no effect (1.06x is a third of the 18% gain of 1.18x, though 1.06/1.18 is
    within 25%).
    """
    factors = [(value / target if target else math.inf, "the figure is")]
    if stat == "saving" and target != 100:
        factors.append(((1 - value / 100) / (1 - target / 100), "the fraction left is"))
    if stat == "overhead" and target != -100:
        factors.append(((1 + value / 100) / (1 + target / 100), "the time ratio is"))
    if stat in ("speedup", "ratio") and threshold is not None and target != threshold:
        factors.append(((value - threshold) / (target - threshold), "the effect is"))
    return max(factors, key=lambda f: abs(math.log(f[0])) if f[0] > 0 else math.inf)


def _band_side(row: dict, value: float, threshold: float, direction: int, target: float,
               tolerance: float) -> tuple[int, float, str]:
    """Where ``value`` (on the claimed side of no effect) lies against the material's ±tolerance
    band: -1 short of it (weaker), 0 inside, +1 beyond it (stronger); with the factor."""
    factor, what = _magnitude(row.get("stat"), value, target, threshold)
    if factor > 0 and abs(factor - 1) <= tolerance:
        return 0, factor, what
    return (-1 if (value - threshold) * direction < (target - threshold) * direction else 1), factor, what


def _noisy_note(fig: Figure) -> str:
    if fig.rel_iqr is not None and fig.rel_iqr > NOISY_REL_IQR:
        return (f"; noisy: relative IQR {fig.rel_iqr:.0%} > {NOISY_REL_IQR:.0%}, "
                "a flag only, the interval already carries the spread")
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
        return Verdict("not measured", "no numeric measurement in the results")
    material = row.get("material")
    if material is None or material == "":
        return Verdict("measured", "the material gives no figure")
    threshold, direction, target = _claimed(row)
    tolerance = _number(row.get("tolerance")) or DEFAULT_TOLERANCE
    if target is None and direction == 0:
        return Verdict("compare by hand", f"the material's figure {material!r} is neither a number nor a bound")
    if fig.ci is None:
        return Verdict("inconclusive", f"no interval: {fig.rounds or 'too few'} round{'s' if fig.rounds != 1 else ''} "
                                       "(at least 6 are needed)")
    low, high = fig.ci
    noisy = _noisy_note(fig)
    interval = f"[{_fmt(low)}, {_fmt(high)}]" if low != high else f"exactly {_fmt(low)}"
    whole = "the whole interval" if low != high else "the exact value"
    if direction != 0:
        near, far = (low, high) if direction > 0 else (high, low)
        claimed = _side(direction, row, threshold)
        if (far - threshold) * direction <= 0:
            if near == far == threshold:
                return Verdict("contradicts", f"{interval}: no effect, the material claims {claimed}{noisy}")
            if far == threshold:
                return Verdict("contradicts", f"the interval {interval} reaches {_fmt(threshold)} (no effect) only from "
                                              f"the other side: at best no effect, the material claims {claimed}{noisy}")
            here = _side(-direction, row, threshold)
            return Verdict("contradicts", f"measured {here} (interval {interval}), the material claims {claimed}{noisy}")
        if (near - threshold) * direction <= 0:
            if target is not None:
                side, factor, what = _band_side(row, far, threshold, direction, target, tolerance)
                if side < 0:
                    return Verdict("contradicts", f"the interval {interval} contains {_fmt(threshold)} (no effect) and "
                                                  f"rules out the material's {_fmt(target)}: at its far end {what} "
                                                  f"{factor:.2f} x the material's{noisy}")
                return Verdict("inconclusive", f"the interval {interval} contains both {_fmt(threshold)} (no effect) "
                                               f"and the material's {_fmt(target)} (within {tolerance:.0%}){noisy}")
            return Verdict("inconclusive", f"the interval {interval} contains {_fmt(threshold)}, where there is no "
                                           f"effect either way{noisy}")
        if target is None:
            return Verdict("holds", f"{whole} {interval if low != high else _fmt(low)} is {material}{noisy}")
        sides = [_band_side(row, v, threshold, direction, target, tolerance) for v in (near, far)]
        factor, what = _magnitude(row.get("stat"), fig.value, target, threshold)
        if sides[1][0] < 0:
            return Verdict("weaker", f"same direction, but short of the material's: {what} {factor:.2f} x the "
                                     f"material's ({whole} outside ±{tolerance:.0%}){noisy}")
        if sides[0][0] > 0:
            return Verdict("stronger", f"same direction, beyond the material's: {what} {factor:.2f} x the "
                                       f"material's ({whole} outside ±{tolerance:.0%}){noisy}")
        return Verdict("agrees", f"same direction, {what} {factor:.2f} x the material's (the interval reaches "
                                 f"±{tolerance:.0%} of it){noisy}")
    # No direction: a plain magnitude (bytes, MB), compared within the tolerance band.
    if target == 0:
        inside = low <= tolerance and high >= -tolerance
        return Verdict("agrees" if inside else "differs",
                       f"the material says 0; the interval {interval} {'reaches' if inside else 'stays outside'} "
                       f"±{_fmt(tolerance)}{noisy}")
    ratio = fig.value / target
    lo, hi = sorted((low / target, high / target))
    if hi < 1 - tolerance:
        return Verdict("lower", f"{ratio:.2f} x the material's figure ({whole} below ±{tolerance:.0%}){noisy}")
    if lo > 1 + tolerance:
        return Verdict("higher", f"{ratio:.2f} x the material's figure ({whole} above ±{tolerance:.0%}){noisy}")
    return Verdict("agrees", f"{ratio:.2f} x the material's figure (the interval reaches ±{tolerance:.0%} of it){noisy}")


# ------------------------------------------------------------------ reading

def load_results(path: pathlib.Path) -> dict:
    """The pytest-benchmark JSON, checked for the fields the report needs."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file (run pytest benchmarks/ --benchmark-json {path} first)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise ReportError(f"{path}: not a pytest-benchmark result (no 'benchmarks' list)")
    for index, bench in enumerate(data["benchmarks"]):
        if not isinstance(bench, dict) or not isinstance(bench.get("stats"), dict) or "name" not in bench:
            raise ReportError(f"{path}: benchmark #{index} lacks 'name' or 'stats'")
        if not isinstance(bench.get("extra_info", {}), dict):
            raise ReportError(f"{path}: benchmark {bench['name']!r}: extra_info is not a mapping")
    return data


def _torch_info(data: dict) -> dict:
    return ((data.get("machine_info") or {}).get("torch") or {})


# Which GPUs a figure for another one may be judged on: the same vendor and class (a data-centre
# training GPU for an A100's figure, a consumer GeForce for an RTX 3090's). A relative figure (a
# speed-up, a memory ratio, a saving, a compile latency) carries over within a class; an absolute
# one (images/s, GB at a batch the material does not give) only to the very hardware it names
# (``same_hardware`` on the row).
HARDWARE_CLASSES = (
    (r"\b(?:V100|A100|A800|H100|H800|H200|H20|GH200|B100|B200|GB200)\b", "NVIDIA", "data-centre training GPU"),
    (r"\bRTX\s*[2-5]0[5-9]0(?:\s*Ti)?\b", "NVIDIA", "consumer GeForce GPU"),
    (r"\bMI\s*[1-3]\d\d[A-Z]?\b", "AMD", "Instinct data-centre GPU"),
)


def hardware_class(name: str | None) -> tuple[str, str] | None:
    """(vendor, class) of a GPU name ("NVIDIA H200", "A100", "RTX 3090"), or None when unknown."""
    for pattern, vendor, kind in HARDWARE_CLASSES:
        if name and re.search(pattern, str(name), re.IGNORECASE):
            return vendor, kind
    return None


def _same_hardware(hardware: str, device: str) -> bool:
    squeeze = lambda text: re.sub(r"[\s_-]+", "", str(text).lower())
    return squeeze(hardware) in squeeze(device)


def _context_reason(row: dict, claim, cuda_device: str | None = None) -> str | None:
    """Why this row cannot be judged where it was measured, or None when it can.

    A row names the device it ran on (``device``, a GPU's name; absent: the CPU) and, when the
    material's figure is for other hardware, that hardware (``hardware``)."""
    hardware, device = row.get("hardware"), row.get("device")
    if hardware:
        if not device:
            return f"the figure is for {hardware}; measured on this CPU, which can neither confirm nor refute it"
        if _same_hardware(hardware, device):
            return None
        if row.get("same_hardware"):
            return (f"an absolute figure of the {hardware} (at a batch the material does not give); measured on "
                    f"{device}, which can neither confirm nor refute it")
        theirs, ours = hardware_class(hardware), hardware_class(device)
        if theirs is None or theirs != ours:
            name = lambda cls: f"{cls[0]} {cls[1]}" if cls else "a GPU of no known class"
            return (f"the figure is for {hardware} ({name(theirs)}); measured on {device} ({name(ours)}), "
                    "not comparable hardware")
        return None
    if claim is not None and claim.verdict == "gpu-only" and not device:
        return "the claim needs a GPU (catalog: gpu-only); this row was measured on the CPU"
    return None


def _hardware_note(row: dict) -> str:
    """How the hardware of a judged GPU row compares with the material's ("" on a CPU row)."""
    hardware, device = row.get("hardware"), row.get("device")
    if not device:
        return ""
    if not hardware:
        return f"on {device}: "
    if _same_hardware(hardware, device):
        return f"on {device}, the material's {hardware}: "
    vendor, kind = hardware_class(device)
    return f"on {device} against the material's {hardware} (both {vendor} {kind}s): "


@dataclasses.dataclass
class Row:
    claim_id: str
    bench: dict
    entry: dict
    figure: Figure
    verdict: Verdict | None          # None for context rows
    context: str | None              # why it is context
    primary: bool                    # the benchmark's own extra_info (details are shown once)
    busy: bool                       # other processes took >= BUSY_OTHERS cores during this benchmark


def build_rows(data: dict, claims: dict | None = None) -> list[Row]:
    """Every claim row of the results, with its figure and verdict (or context reason)."""
    claims = {} if claims is None else claims
    cuda_device = _torch_info(data).get("cuda_device")
    threshold = busy_load(data)
    rows = []
    for bench in data["benchmarks"]:
        extra = bench.get("extra_info") or {}
        more = extra.get("more") if isinstance(extra.get("more"), list) else []
        entries = ([extra] if "claim" in extra else []) + [m for m in more if isinstance(m, dict) and "claim" in m]
        others = _number(extra.get("others_cpu_cores"))
        if others is not None:  # measured directly: the CPU other processes took during this benchmark
            busy = others >= BUSY_OTHERS
        else:  # older results: the load average around it (which also counts the run itself)
            loads = [x for x in (_number(extra.get("load_before")), _number(extra.get("load_after"))) if x is not None]
            busy = any(x >= threshold for x in loads)
        for entry in entries:
            cid = str(entry["claim"])
            fig = figure_of(entry)
            reason = _context_reason(entry, claims.get(cid), cuda_device)
            verdict = None
            if reason is None:
                verdict = judge(entry, fig)
                verdict = Verdict(verdict.word, _hardware_note(entry) + verdict.why)
            rows.append(Row(cid, bench, entry, fig, verdict, reason, entry is extra, busy))
    return rows


# ------------------------------------------------------------------ formatting

def _fmt(value) -> str:
    if value is None:
        return "–"
    number = _number(value)
    if number is None:
        return str(value).replace("|", "\\|")
    if number == 0:
        return "0"
    if abs(number) >= 1000:
        return f"{number:,.0f}"
    if abs(number) >= 10:
        return f"{number:.1f}"
    if abs(number) >= 0.01:
        return f"{number:.3g}"
    return f"{number:.2e}"


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _seconds(value: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.3g} s"


def _ci_text(fig: Figure) -> str:
    if fig.exact:
        return "exact"
    if fig.ci is None:
        return "none (too few rounds)"
    return f"[{_fmt(fig.ci[0])}, {_fmt(fig.ci[1])}]"


def _iqr_text(fig: Figure) -> str:
    if fig.exact:
        return "0"
    if fig.rel_iqr is None:
        return "–"
    text = f"{fig.rel_iqr:.1%}"
    return f"**{text}** (noisy)" if fig.rel_iqr > NOISY_REL_IQR else text


def _short_name(bench: dict) -> str:
    return bench.get("fullname") or bench["name"]


def _catalog():
    try:
        return catalog.load()
    except Exception:  # the report must render even where the catalog is broken
        return {}


def _load_text(values) -> str:
    return ", ".join(f"{x:.2f}" for x in values)


def busy_load(data: dict) -> float:
    """The 1-minute load average at or above which the run counts as busy: 0.5 on this project's
    2-core machine, a quarter of the cores on a larger one (a 16-core GPU host idles above 0.5)."""
    cores = _number(_torch_info(data).get("cpu_count")) or 0
    return max(BUSY_LOAD, BUSY_LOAD_PER_CORE * cores)


def load_warnings(data: dict) -> list[str]:
    """Lines warning that the machine was busy (or that the load was not recorded)."""
    info = _torch_info(data)
    before, after = info.get("load_before"), info.get("load_after") or info.get("load_average")
    if not before and not after:
        return ["> **Warning:** the load average was not recorded; the noise of this run is unknown."]
    worst = max(x for pair in (before or [], after or []) for x in pair[:1]) if (before or after) else 0.0
    others = _number(info.get("others_cpu_cores"))
    out = []
    if worst >= busy_load(data):
        out.append(f"> **Warning: the machine was busy** (1-minute load average {worst:.2f} >= {busy_load(data):g} "
                   "before or after the run). Other processes share the CPU, so timings are slower and "
                   "noisier than on a quiet machine; rows that competed with other processes are marked †. Rerun on a quiet "
                   "machine before drawing conclusions.")
    if others is not None and others >= BUSY_OTHERS:
        out.append(f"> **Warning: other processes used the CPU during the run** ({others:.2f} cores on "
                   f"average, >= {BUSY_OTHERS}). They competed with the benchmarks even if the load was low "
                   "at both ends; rerun on a quiet machine before drawing conclusions.")
    if info.get("smoke"):
        out.append("> **Warning: smoke run** (TORCHCLAIMS_BENCH_SMOKE=1): few rounds and reduced sizes, to prove "
                   "the benchmarks work. Its verdicts are not results.")
    return out


def header_lines(data: dict, source: pathlib.Path) -> list[str]:
    info = data.get("machine_info", {}) or {}
    cpu = info.get("cpu", {}) or {}
    torch_info = _torch_info(data)
    cpu_name = cpu.get("brand_raw") or info.get("processor") or "unknown CPU"
    cores = cpu.get("count")
    lines = [
        "# Benchmark report",
        "",
        f"Results: `{source.name}`, run {data.get('datetime', 'at an unknown time')}.",
        "",
        *load_warnings(data),
        "",
        "| | |",
        "|---|---|",
        f"| machine | {_cell(info.get('node', 'unknown'))} ({_cell(info.get('system', '?'))} {_cell(info.get('release', ''))}, {_cell(info.get('machine', '?'))}) |",
        f"| CPU | {_cell(cpu_name)}{f', {cores} logical cores' if cores else ''} |",
        f"| Python | {_cell(info.get('python_implementation', ''))} {_cell(info.get('python_version', '?'))} |",
        f"| torch | {_cell(torch_info.get('version', 'unknown'))} |",
    ]
    if torch_info:
        lines += [
            f"| torchvision | {_cell(torch_info.get('torchvision', 'not installed'))} |",
            f"| CUDA | {_cell(torch_info.get('cuda_device') or 'absent')} |",
            f"| torch threads | {_cell(torch_info.get('num_threads', '?'))} |",
        ]
        if torch_info.get("suite_wall_s") is not None:
            lines.append(f"| suite wall time (collection to JSON) | {torch_info['suite_wall_s'] / 60:.1f} min |")
        if torch_info.get("load_before"):
            lines.append(f"| load average (1, 5, 15 min) before the run | {_load_text(torch_info['load_before'])} |")
        after = torch_info.get("load_after") or torch_info.get("load_average")
        if torch_info.get("load_at_end"):
            lines.append(f"| load average (1, 5, 15 min) at the end of the run (still holding the run's own process) "
                         f"| {_load_text(torch_info['load_at_end'])} |")
        if after:
            settled = (f" ({torch_info['settle_s']:.0f} s after the end, once the run's own load had decayed)"
                       if torch_info.get("settle_s") is not None else "")
            lines.append(f"| load average (1, 5, 15 min) after the run{settled} | {_load_text(after)} |")
        if _number(torch_info.get("others_cpu_cores")) is not None:
            lines.append(f"| CPU used by other processes during the run (/proc/stat minus this run's own) "
                         f"| {torch_info['others_cpu_cores']:.2f} cores on average |")
        if torch_info.get("rounds"):
            lines.append(f"| interleaved rounds per comparison (TORCHCLAIMS_BENCH_ROUNDS) | {_cell(torch_info['rounds'])} "
                         "(data loaders at most 15, resident memory at most 9) |")
        if torch_info.get("command"):
            lines.append(f"| command | `{_cell(torch_info['command'])}` |")
    lines.append(f"| pytest-benchmark | {_cell(data.get('version', '?'))} |")
    lines += [
        "",
        "## Method",
        "",
        "Each benchmark measures the quantity the material states, at the material's scale where it "
        "gives one (or the largest this machine allows; the *scale* of each row says which). The two "
        "sides of a comparison are measured in **interleaved rounds** (rotating order, so a slow "
        "phase of the machine hits both), each round a `torch.utils.benchmark.Timer` (or a fresh "
        "subprocess, for resident memory). A ratio is the **ratio of the two medians**, never a mean "
        "of ratios. torch.compile benchmarks check the compiled output against eager before timing, "
        "warm up explicitly, and report compile latency apart from steady state.",
        "",
        f"Per row: the **median**, its **{CONFIDENCE:.0%} confidence interval** (one quantity: the "
        "distribution-free interval between two order statistics of the rounds, from the binomial "
        "distribution; a ratio of medians: a paired percentile bootstrap over rounds), the **relative "
        f"IQR** (interquartile range / median of the rounds; the worse side of a pair) and the number of "
        "**rounds**. Byte counts are *exact* (deterministic), their interval is the value.",
        "",
        *method_rule_lines(),
    ]
    return lines


def method_rule_lines() -> list[str]:
    """The verdict rule as the report states it (judge() implements it; its tests plant each case)."""
    return [
        "**The verdict rule**: a verdict says what the 95% interval rules out; the relative IQR never "
        "decides one. For a figure with a direction (a speed-up, a saving, an overhead, a bound such as "
        "\"< 1\"), with *no effect* at 1x or 0%:",
        "",
        "- **contradicts**: the interval rules out any effect the way the material claims: it lies at no "
        "effect (exactly 0% measured against a claimed 12% saving: a precise no-effect) or beyond it the "
        "other way (a slowdown against a claimed speed-up), whatever the tolerance; or it contains no "
        f"effect and rules out the material's figure (the whole interval short of the ±{DEFAULT_TOLERANCE:.0%} "
        "band around it);",
        "- **inconclusive**: the interval contains no effect and does not rule out the material's figure "
        "(or the material gives only a direction), or there is no interval (fewer than 6 rounds, one cold "
        "compile);",
        "- the interval excludes no effect, the material's way: a bound **holds**; a figure **agrees** "
        f"when the interval reaches ±{DEFAULT_TOLERANCE:.0%} of the material's figure, and is **weaker** / "
        "**stronger** when the whole interval lies short of / beyond that band. A figure is compared "
        "both as itself and as the effect it stands for, and the farther of the two counts: a percentage "
        "also as the ratio it stands for (a 98% saving leaves 1/50 of the memory, an 80% one 1/5), a "
        "ratio also as its distance from 1 (1.06x is a third of the 18% gain of 1.18x).",
        "",
        "A plain magnitude (MB) **agrees** when its interval reaches the band, else it is **higher** / "
        f"**lower**. A relative IQR above {NOISY_REL_IQR:.0%} marks a row **noisy** (as "
        "`torch.utils.benchmark` warns), a flag beside the verdict, never a verdict: the interval already "
        "carries the spread.",
        "",
        "**Hardware**: a row records the device it ran on. A figure the material gives for other hardware "
        "is judged only on comparable hardware, named in the row: a relative figure (a speed-up, a memory "
        "ratio, a saving, a compile latency) on a GPU of the same vendor and class (an H200 or H100 for "
        "the material's A100: NVIDIA data-centre training GPUs; a GeForce RTX for its RTX 3090), an "
        "absolute one (images/s or GB at a batch the material does not give) only on the very hardware "
        "it names. Everything else, and every row measured on a CPU against a GPU's figure, is listed "
        "under *Context*, with the reason.",
    ]


def _claim_heading(cid: str, claim) -> list[str]:
    title = f"### `{cid}`"
    if claim is not None:
        title += f" (catalog: {claim.verdict}; {claim.source_text})"
    out = [title, ""]
    if claim is not None:
        out += [f"> Material: {claim.says}", ""]
    out += [f"Claim and specs: `python -m torchclaims show {cid}`", ""]
    return out


def _details(rows: list[Row]) -> list[str]:
    details = []
    for row in rows:
        extra = row.entry
        others = {k: v for k, v in extra.items()
                  if k not in ROW_KEYS and k not in ("load_before", "load_after", "others_cpu_cores")} if row.primary else {}
        if others or extra.get("note"):
            text = "; ".join(f"{k} = {_fmt(v) if not isinstance(v, (dict, list)) else json.dumps(v)}"
                             for k, v in others.items())
            if extra.get("note"):
                text = f"{extra['note']}" + (f"; {text}" if text else "")
            details.append(f"- `{row.bench['name']}`: {_cell(text)}")
    return details + ([""] if details else [])


def _verdict_table(rows: list[Row]) -> list[str]:
    out = ["| quantity | scale | median | 95% CI | rel. IQR | rounds | material | unit | verdict | why | method |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        e, fig = row.entry, row.figure
        out.append("| " + " | ".join([
            _cell(e.get("quantity", "")) + (" †" if row.busy else ""), _cell(e.get("scale", "not stated")),
            _fmt(fig.value), _ci_text(fig), _iqr_text(fig), "1 (exact)" if fig.exact else str(fig.rounds or "–"),
            _fmt(e.get("material")), _cell(e.get("unit", "")), f"**{row.verdict.word}**", _cell(row.verdict.why),
            _cell(e.get("method", "")) + f" (`{_cell(row.bench['name'])}`)",
        ]) + " |")
    return out + [""]


def _context_table(rows: list[Row]) -> list[str]:
    out = ["| quantity | measured here (median) | 95% CI | rel. IQR | rounds | material's figure | unit | why it cannot confirm the figure | scale and method |",
           "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        e, fig = row.entry, row.figure
        material = _fmt(e.get("material")) + (f" ({e['hardware']})" if e.get("hardware") else "")
        out.append("| " + " | ".join([
            _cell(e.get("quantity", "")) + (" †" if row.busy else ""), _fmt(fig.value), _ci_text(fig),
            _iqr_text(fig), "1 (exact)" if fig.exact else str(fig.rounds or "–"), material,
            _cell(e.get("unit", "")), _cell(row.context),
            _cell(e.get("scale", "")) + "; " + _cell(e.get("method", "")) + f" (`{_cell(row.bench['name'])}`)",
        ]) + " |")
    return out + [""]


def summary_table(table, name: str) -> list[str]:
    """A benchmark's own summary table (``extra_info["table"]``: title, columns, rows, note)."""
    if not isinstance(table, dict) or not isinstance(table.get("columns"), list) or not isinstance(table.get("rows"), list):
        return []
    out = [f"#### {_cell(table.get('title', name))}", "",
           "| " + " | ".join(_cell(c) for c in table["columns"]) + " |",
           "|" + "---|" * len(table["columns"])]
    out += ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in table["rows"] if isinstance(row, list)]
    out += [""] + ([_cell(table["note"]), ""] if table.get("note") else [])
    return out


GPU_COMMAND = (".venv/bin/python -m pytest benchmarks/ -m gpu --benchmark-only -p no:xdist "
               "--benchmark-json reports/bench/gpu.json && "
               ".venv/bin/python -m torchclaims bench-report reports/bench/gpu.json -o reports/bench/gpu")


def _where(data: dict) -> str:
    cuda = _torch_info(data).get("cuda_device")
    return f"this machine (its CPU and its {cuda})" if cuda else "this machine (its CPU; no CUDA device)"


def _figure_text(fig: Figure) -> str:
    if fig.value is None:
        return "not measured"
    noisy = " (noisy)" if fig.rel_iqr is not None and fig.rel_iqr > NOISY_REL_IQR else ""
    return f"{_fmt(fig.value)} {_ci_text(fig)}{noisy}"


def claim_by_claim(judged: list[Row], context: list[Row]) -> list[str]:
    """One line per judged row, claim by claim: what the material got right and wrong."""
    if not judged:
        return []
    out = ["### What the material got right and wrong about speed and memory, claim by claim", "",
           "| claim | quantity | material's figure | measured (95% CI) | unit | verdict |",
           "|---|---|---|---|---|---|"]
    for r in sorted(judged, key=lambda r: r.claim_id):
        device = f" ({_cell(r.entry['device'])})" if r.entry.get("device") else ""
        out.append("| " + " | ".join([
            f"`{r.claim_id}`", _cell(r.entry.get("quantity", "")) + device, _fmt(r.entry.get("material")),
            _figure_text(r.figure), _cell(r.entry.get("unit", "")), f"**{r.verdict.word}**"]) + " |")
    out += ["", f"The reason for each verdict is in the claim's table below; {len(context)} row"
            f"{'s' if len(context) != 1 else ''} for other hardware {'are' if len(context) != 1 else 'is'} "
            "context, without a verdict.", ""]
    return out


def skipped_lines(data: dict) -> list[str]:
    """The benchmarks of this run that skipped, with pytest's reason (recorded by benchmarks/conftest.py)."""
    skipped = [s for s in data.get("skipped") or [] if isinstance(s, dict)]
    if not skipped:
        return []
    out = [f"{len(skipped)} benchmark{'s' if len(skipped) != 1 else ''} skipped in this run:", ""]
    out += [f"- `{_cell(s.get('name', '?'))}`: {_cell(s.get('reason', 'no reason given'))}" for s in skipped]
    return out + [""]


def render_markdown(data: dict, source: pathlib.Path, chart: str | None, claims: dict | None = None,
                    benchmarks: dict[str, list[str]] | None = None) -> str:
    """``benchmarks``: claim id -> the benchmarks marked with it (default: read from benchmarks/)."""
    claims = _catalog() if claims is None else claims
    benchmarks = links.bench_links(catalog.ROOT / "benchmarks") if benchmarks is None else benchmarks
    rows = build_rows(data, claims)
    judged = [r for r in rows if r.verdict is not None]
    context = [r for r in rows if r.verdict is None]
    out = header_lines(data, source)
    counts: dict[str, int] = {}
    for r in judged:
        counts[r.verdict.word] = counts.get(r.verdict.word, 0) + 1
    noisy = sum(1 for r in rows if r.figure.rel_iqr is not None and r.figure.rel_iqr > NOISY_REL_IQR)
    where = _where(data)
    out += ["", "## Summary", "",
            f"{len(judged)} row{'s' if len(judged) != 1 else ''} judged on {where}"
            + (": " + ", ".join(f"{n} {w}" for w, n in sorted(counts.items())) if counts else "")
            + f"; {len(context)} context rows (figures for hardware not comparable with the one measured); "
            + f"{noisy} rows with a relative IQR above {NOISY_REL_IQR:.0%}.", ""]
    bare = sum(1 for r in judged if r.figure.value is not None and r.figure.ci is None and not r.figure.exact)
    if bare:
        out += [f"> **{bare} judged row{'s have' if bare != 1 else ' has'} no interval**: fewer than 6 rounds "
                "were recorded, or the results come from a benchmark version that recorded no raw rounds. "
                "Such a row is *inconclusive*, never a verdict.", ""]
    out += skipped_lines(data)
    out += claim_by_claim(judged, context)
    if chart:
        out += [f"![measured medians with 95% intervals next to the material's figures]({chart})", ""]
    by_claim: dict[str, list[Row]] = {}
    for r in judged:
        by_claim.setdefault(r.claim_id, []).append(r)
    out += [f"## Verdicts: {len(by_claim)} claim{'s' if len(by_claim) != 1 else ''}, measured on {where}", ""]
    if not by_claim:
        out += [f"No row could be judged on {where}.", ""]
    judged_benches = [b for b in data["benchmarks"] if any(r.bench is b for r in judged)]
    for bench in judged_benches:                # a benchmark's own table, where its rows are verdicts
        out += summary_table((bench.get("extra_info") or {}).get("table"), bench["name"])
    for cid in sorted(by_claim):
        out += _claim_heading(cid, claims.get(cid)) + _verdict_table(by_claim[cid]) + _details(by_claim[cid])
    ctx_by_claim: dict[str, list[Row]] = {}
    for r in context:
        ctx_by_claim.setdefault(r.claim_id, []).append(r)
    out += ["## Context: figures for other hardware", "",
            "These rows set a figure the material gives for other hardware next to what was measured "
            "here. They carry no verdict: a speed-up, a latency or a memory figure depends on the "
            "balance of compute, memory bandwidth and per-call overhead of the device it was measured "
            "on, so a measurement on hardware of another kind (a CPU, another class of GPU) can neither "
            "confirm nor refute an A100's or an RTX 3090's figure; each row says why it is here."
            + (" The ResNet-50 rows measured on the CPU are the **CPU counterpart of the material's A100 "
               "table** (000 §5.3): the same model and modes, on this CPU, at a small batch; the other compile "
               "rows time the material's small models the same way. A cold compile is measured once (one "
               "round: no interval); each costs tens of seconds on a small CPU."
               if any(not r.entry.get("device") for r in context) else ""),
            "",
            "To measure the GPU figures themselves on a machine with CUDA (the gpu-marked benchmarks "
            "skip with a reason elsewhere; rows measured on a comparable GPU become verdicts):", "",
            "```sh", GPU_COMMAND, "```", ""]
    for bench in data["benchmarks"]:
        if not any(bench is b for b in judged_benches):
            out += summary_table((bench.get("extra_info") or {}).get("table"), bench["name"])
    if not ctx_by_claim:
        out += ["No context rows in this run.", ""]
    for cid in sorted(ctx_by_claim):
        out += _claim_heading(cid, claims.get(cid)) + _context_table(ctx_by_claim[cid]) + _details(ctx_by_claim[cid])
    measured_ids = {r.claim_id for r in rows}
    missing = [c for c in claims.values() if c.id in benchmarks and c.id not in measured_ids]
    if missing:
        out += ["## Claims with a benchmark that did not run here", "",
                "| claim | catalog | benchmark | why |", "|---|---|---|---|"]
        for claim in sorted(missing, key=lambda c: c.id):
            reasons = [s.get("reason") for s in data.get("skipped") or []
                       if isinstance(s, dict) and claim.id in (s.get("claims") or [])]
            why = (reasons[0] if reasons else "needs CUDA" if claim.verdict == "gpu-only"
                   else "not in this results file")
            names = ", ".join(f"`{_cell(b)}`" for b in benchmarks[claim.id])
            out.append(f"| `{claim.id}` | {claim.verdict} | {names} | {why} |")
        out.append("")
    out += ["## All benchmarks (pytest-benchmark statistics of the timed step)", "",
            "| benchmark | median | IQR | min | rounds | load before, after | others' CPU (cores) | claims |",
            "|---|---|---|---|---|---|---|---|"]
    for bench in sorted(data["benchmarks"], key=_short_name):
        stats, extra = bench["stats"], bench.get("extra_info") or {}
        ids = list(dict.fromkeys(r.claim_id for r in rows if r.bench is bench))
        out.append("| " + " | ".join([
            f"`{_cell(_short_name(bench))}`",
            _seconds(stats["median"]) if _number(stats.get("median")) is not None else "–",
            _seconds(stats["iqr"]) if _number(stats.get("iqr")) is not None else "–",
            _seconds(stats["min"]) if _number(stats.get("min")) is not None else "–",
            str(stats.get("rounds", "–")),
            ", ".join(_fmt(extra.get(k)) for k in ("load_before", "load_after")),
            _fmt(extra.get("others_cpu_cores")) if extra.get("others_cpu_cores") is not None else "",
            ", ".join(f"`{i}`" for i in ids),
        ]) + " |")
    total = sum(_number(b["stats"].get("total")) or 0.0 for b in data["benchmarks"])
    out += ["", f"{len(data['benchmarks'])} benchmarks; † = other processes took at least {BUSY_OTHERS} cores "
            f"while it ran (in older results without that figure: the 1-minute load average was >= {BUSY_LOAD}); time inside pytest-benchmark's timed rounds: {total:.1f} s. "
            f"Rendered {_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC by "
            "`python -m torchclaims bench-report`.", ""]
    return "\n".join(out)


# ------------------------------------------------------------------ chart

_MEMORY = {"B": 1 / 2**20, "KiB": 1 / 1024, "MiB": 1.0, "GiB": 1024.0, "kB": 1e3 / 2**20, "MB": 1e6 / 2**20,
           "GB": 1e9 / 2**20}
_TIME = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6}
PANELS = (  # (key, title, axis label, log scale)
    ("ratio", "Ratios: speed-ups and size ratios", "x (1 = no difference)", True),
    ("percent", "Savings and overheads", "% (0 = no difference)", False),
    ("memory", "Memory", "MiB (log scale)", True),
    ("latency", "Latency", "seconds (log scale)", True),
)
COLOURS = {"agrees": "tab:green", "holds": "tab:green", "weaker": "tab:orange", "stronger": "tab:brown",
           "higher": "tab:orange", "lower": "tab:orange", "contradicts": "tab:red",
           "inconclusive": "tab:gray", "context": "tab:blue"}


def panel_of(unit: str) -> tuple[str, float] | None:
    """(panel key, factor to the panel's unit) for a row's unit, or None (not charted)."""
    if unit in ("x", "ratio"):
        return "ratio", 1.0
    if unit == "%":
        return "percent", 1.0
    if unit in _MEMORY:
        return "memory", _MEMORY[unit]
    if unit in _TIME:
        return "latency", _TIME[unit]
    return None


def chart_points(rows: list[Row]) -> dict[str, list[dict]]:
    """What the chart draws, panel by panel (tested without matplotlib)."""
    panels: dict[str, list[dict]] = {}
    for r in rows:
        where = panel_of(str(r.entry.get("unit", "")))
        if where is None or r.figure.value is None:
            continue
        key, factor = where
        log = next(p[3] for p in PANELS if p[0] == key)
        value = r.figure.value * factor
        if log and value <= 0:
            continue
        low, high = (r.figure.ci or (r.figure.value, r.figure.value))
        material = _number(r.entry.get("material"))
        bound = _BOUND.match(r.entry["material"]) if isinstance(r.entry.get("material"), str) else None
        word = "context" if r.verdict is None else r.verdict.word
        label = textwrap.fill(f"{r.entry.get('quantity') or r.bench['name']}", 58)
        panels.setdefault(key, []).append(dict(
            label=f"{label}\n[{r.claim_id}]", value=value, low=low * factor, high=high * factor,
            material=None if material is None else material * factor,
            bound=None if bound is None else float(bound.group(2)) * factor,
            verdict=word, colour=COLOURS.get(word.split()[0], "tab:purple")))
    return panels


def render_chart(data: dict, path: pathlib.Path, claims: dict | None = None) -> bool:
    """One panel per kind of quantity; False where nothing numeric can be drawn."""
    panels = chart_points(build_rows(data, _catalog() if claims is None else claims))
    if not panels:
        return False
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter

    order = [p for p in PANELS if p[0] in panels]
    heights = [max(1.6, 0.62 * len(panels[p[0]]) + 0.9) for p in order]
    fig, axes = plt.subplots(len(order), 1, figsize=(13, sum(heights) + 1.6),
                             gridspec_kw={"height_ratios": heights}, squeeze=False, layout="constrained")
    for ax, (key, title, xlabel, log) in zip(axes[:, 0], order):
        points = panels[key]
        ys = list(range(len(points)))
        for y, p in zip(ys, points):
            ax.errorbar(p["value"], y, xerr=[[max(p["value"] - p["low"], 0)], [max(p["high"] - p["value"], 0)]],
                        fmt="o", color=p["colour"], ecolor=p["colour"], capsize=4, markersize=6)
            if p["material"] is not None:
                ax.plot(p["material"], y, marker="D", color="black", markersize=6, fillstyle="none")
            if p["bound"] is not None:
                ax.plot(p["bound"], y, marker="|", color="black", markersize=14, markeredgewidth=2)
        ax.set_yticks(ys, [p["label"] for p in points], fontsize=8)
        ax.set_ylim(len(points) - 0.5, -0.5)
        if log:
            ax.set_xscale("log")
            low = min(min(p["low"], p["material"] or p["low"], p["bound"] or p["low"]) for p in points)
            high = max(max(p["high"], p["material"] or p["high"], p["bound"] or p["high"]) for p in points)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            narrow = low > 0 and high / low < 30      # few decades: label the minor ticks too
            ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if narrow else ""))
            ax.tick_params(axis="x", which="minor", labelsize=7)
        if key in ("ratio", "percent"):
            ax.axvline(1.0 if key == "ratio" else 0.0, color="gray", linewidth=1, linestyle="--")
        ax.set_title(title, fontsize=10, loc="left")
        ax.set_xlabel(xlabel, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    used = {p["verdict"].split()[0] for pts in panels.values() for p in pts}
    handles = [Line2D([], [], marker="o", linestyle="-", color=COLOURS[w], label=f"measured: {w} (95% CI)")
               for w in COLOURS if w in used]
    handles += [Line2D([], [], marker="D", linestyle="", color="black", fillstyle="none", label="material's figure"),
                Line2D([], [], marker="|", linestyle="", color="black", markersize=12, markeredgewidth=2,
                       label="material's bound (> or <)")]
    fig.legend(handles=handles, loc="outside lower center", ncol=4, fontsize=8, frameon=False)
    torch_version = _torch_info(data).get("version", "")
    fig.suptitle(f"Measured here (median, 95% CI) vs the material (torch {torch_version}; "
                 "blue = other hardware, context only)", fontsize=11)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ------------------------------------------------------------------ one benchmark across torch releases

def render_across(sources: list[tuple[pathlib.Path, dict]], claims: dict | None = None) -> str:
    """One table per quantity, one column per torch release: the same benchmarks rerun on
    several releases, to answer "does this get faster?". Each cell is the median with its 95%
    interval and rounds; a cell whose interval overlaps the neighbouring release's is not a
    change, and the report says so rather than ranking medians."""
    claims = _catalog() if claims is None else claims
    runs = []
    for path, data in sources:
        info = _torch_info(data)
        runs.append((str(info.get("version", path.stem)), path, data, build_rows(data, claims)))
    runs.sort(key=lambda r: _version_key(r[0]))
    versions = [v for v, *_ in runs]
    if len(set(versions)) != len(versions):
        raise ReportError(f"two results files are for the same torch release: {', '.join(versions)}")
    out = ["# Benchmarks across torch releases", "",
           "The same benchmark files run on each release below, on the same machine, with the same "
           "method as [the CPU report](report.md) (interleaved rounds, ratio of medians, 95% intervals). "
           "A difference between two releases counts only where their intervals do not overlap.", ""]
    header = "| | " + " | ".join(f"torch {v}" for v in versions) + " |"
    out += [header, "|---" * (len(versions) + 1) + "|"]
    for label, key in (("results file", None), ("load before, after", "load"), ("others' CPU (cores)", "others"),
                       ("suite wall time", "wall")):
        cells = []
        for _, path, data, _ in runs:
            info = _torch_info(data)
            if key is None:
                cells.append(f"`{_cell(path.name)}`")
            elif key == "load":
                before, after = info.get("load_before") or [None], info.get("load_after") or [None]
                cells.append(", ".join(_fmt(x[0]) for x in (before, after)))
            elif key == "others":
                cells.append(_fmt(info.get("others_cpu_cores")) if info.get("others_cpu_cores") is not None else "–")
            else:
                cells.append(f"{info['suite_wall_s'] / 60:.1f} min" if info.get("suite_wall_s") else "–")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out += ["", *[w for _, _, data, _ in runs for w in load_warnings(data)]]
    keys: list[tuple[str, str]] = []
    for *_, rows in runs:
        for row in rows:
            key = (_short_name(row.bench), str(row.entry.get("quantity", "")))
            if key not in keys:
                keys.append(key)
    out += ["", "| benchmark | quantity | " + " | ".join(f"torch {v}" for v in versions) + " | change |",
            "|---|---|" + "---|" * len(versions) + "---|"]
    for name, quantity in keys:
        figures = []
        for *_, rows in runs:
            row = next((r for r in rows if (_short_name(r.bench), str(r.entry.get("quantity", ""))) == (name, quantity)), None)
            figures.append(row.figure if row is not None else None)
        cells = []
        for fig in figures:
            if fig is None or fig.value is None:
                cells.append("not run")
            else:
                noisy = " (noisy)" if fig.rel_iqr is not None and fig.rel_iqr > NOISY_REL_IQR else ""
                cells.append(f"{_fmt(fig.value)} {_ci_text(fig)}, n={fig.rounds or 1}{noisy}")
        out.append(f"| `{_cell(name)}` | {_cell(quantity)} | " + " | ".join(cells) + f" | {_change(figures, versions)} |")
    out += ["", "Rendered by `python -m torchclaims bench-report --across FILE...`.", ""]
    return "\n".join(out)


def _version_key(version: str):
    try:
        return (0, Version(version))
    except InvalidVersion:
        return (1, version)


def _change(figures: list[Figure | None], versions: list[str]) -> str:
    """Where consecutive measured releases differ beyond both intervals, which way; else none."""
    if sum(1 for f in figures if f is not None and f.ci is not None) < 2:
        return "no intervals to compare (one round each)"
    steps, last = [], None
    for fig, version in zip(figures, versions):
        if fig is None or fig.value is None or fig.ci is None:
            continue
        if last is not None:
            (prev, prev_version) = last
            if fig.ci[0] > prev.ci[1]:
                steps.append(f"up from {prev_version} to {version}")
            elif fig.ci[1] < prev.ci[0]:
                steps.append(f"down from {prev_version} to {version}")
        last = (fig, version)
    return "; ".join(steps) if steps else "none beyond the intervals"


# ------------------------------------------------------------------ one source for every figure

COMMITTED_RESULTS = ("reports/bench/*.json", "reports/bench/gpu/*.json")   # the committed reports' sources
_QUOTED = re.compile(
    r"(?P<bound>over|more than|above|at least|under|below|less than|at most|超过|高于|不到|低于)?\s*[+]?"
    r"(?P<num>\d+(?:,\d{3})*(?:\.\d+)?)(?:(?P<pct>%)|(?P<x>x\b|×)|\s?(?P<bei>倍))")
_CLAUSE = re.compile(r"(?<=[.;])\s+|[。；]")
_MENTIONS_BENCH = re.compile(r"bench|report\.md|基准")
_ABOVE = ("over", "more than", "above", "at least", "超过", "高于")
_LOAD_KEYS = ("load_before", "load_after", "others_cpu_cores")   # how busy the machine was: no figure of a claim


def committed_results(root: pathlib.Path = catalog.ROOT) -> list[pathlib.Path]:
    return sorted(p for pattern in COMMITTED_RESULTS for p in pathlib.Path(root).glob(pattern))


def report_figures(rows: list[Row]) -> dict[str, list[float]]:
    """Claim id -> the figures the report prints for it that a truth may quote: medians, the
    material's figures and the numeric details of its benchmarks (an interval end is no figure to
    quote alone: "42% [28, 51]", not "51%")."""
    figures: dict[str, list[float]] = {}
    for r in rows:
        found = figures.setdefault(r.claim_id, [])
        if r.figure.value is not None:       # the median; an interval is quoted in brackets, unparsed
            found.append(r.figure.value)
        if _number(r.entry.get("material")) is not None:
            found.append(float(r.entry["material"]))
        for key, value in (r.bench.get("extra_info") or {}).items():
            if key not in ROW_KEYS and key not in _LOAD_KEYS and _number(value) is not None:
                found.append(float(value))
    return {cid: list(dict.fromkeys(found)) for cid, found in figures.items()}


def _matches(quoted: str, bound: str | None, figures: list[float]) -> bool:
    value = float(quoted.replace(",", ""))
    places = len(quoted.split(".")[1]) if "." in quoted else 0
    if bound:
        return any(f > value if bound in _ABOVE else f < value for f in figures)
    return any(abs(f - value) <= 0.5 * 10 ** -places + 1e-9 for f in figures)


def truth_figure_mismatches(claims: dict, rows: list[Row], benchmarked: set[str]) -> list[str]:
    """Percentages and ratios that the truth of a benchmarked claim attributes to a benchmark (a
    clause naming ``bench``, ``report.md`` or 基准) but that no figure of the committed report
    for that claim matches, to the quoted precision: one line each. A figure has one source."""
    figures = report_figures(rows)
    problems = []
    for cid in sorted(benchmarked):
        claim = claims.get(cid)
        if claim is None:
            continue
        for field in ("truth", "truth_zh"):
            for clause in _CLAUSE.split(getattr(claim, field, "") or ""):
                if not _MENTIONS_BENCH.search(clause):
                    continue
                for m in _QUOTED.finditer(clause):
                    if _matches(m.group("num"), m.group("bound"), figures.get(cid, [])):
                        continue
                    shown = ", ".join(_fmt(f) for f in figures.get(cid, [])[:8]) or "no row at all"
                    problems.append(f"{cid} {field}: quotes {m.group(0).strip()!r} as measured, but the committed "
                                    f"report has {shown}")
    return problems


# ------------------------------------------------------------------ command line

def write_whole(path: pathlib.Path, text: str) -> None:
    """Write a file whole or not at all (``files.write_whole``); a failure is one line."""
    try:
        files.write_whole(path, text)
    except OSError as exc:
        raise ReportError(f"{path}: cannot write: {exc.strerror}") from None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m torchclaims bench-report",
        description="Render a pytest-benchmark JSON file as a Markdown report and a PNG chart.")
    parser.add_argument("results", nargs="+", help="the file written by pytest benchmarks/ --benchmark-json FILE "
                        "(with --across: one such file per torch release)")
    parser.add_argument("-o", "--output", metavar="DIR",
                        help="folder for report.md and report.png (default: the results file's folder, "
                             "where an existing report.md is replaced only when -o names it)")
    parser.add_argument("--across", action="store_true",
                        help="compare results files of several torch releases: writes DIR/across.md")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed its one-line usage error
        return 2 if exc.code else 0
    if args.across:
        return _main_across(args)
    if len(args.results) > 1:
        print("bench-report: give one results file (or --across with one file per torch release)", file=sys.stderr)
        return 2
    source = pathlib.Path(args.results[0])
    try:
        data = load_results(source)
        out_dir = pathlib.Path(args.output) if args.output else source.resolve().parent
        if not args.output and (out_dir / "report.md").exists():
            raise ReportError(f"{out_dir / 'report.md'} exists: pass -o {out_dir} to replace it, or -o another folder")
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ReportError(f"{out_dir}: cannot create the output folder: {exc.strerror}") from None
        claims = _catalog()
        chart_name = "report.png"
        chart_tmp = out_dir / f".{chart_name}.tmp.png"
        try:
            has_chart = render_chart(data, chart_tmp, claims)
            text = render_markdown(data, source, chart_name if has_chart else None, claims)
            write_whole(out_dir / "report.md", text)
            if has_chart:
                files.replace_whole(chart_tmp, out_dir / chart_name)
        finally:
            chart_tmp.unlink(missing_ok=True)
    except ReportError as exc:
        print(f"bench-report: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {out_dir / 'report.md'}" + (f" and {out_dir / chart_name}" if has_chart else " (no chart: no numeric figure)"))
    return 0


def _main_across(args) -> int:
    try:
        sources = [(pathlib.Path(r), load_results(pathlib.Path(r))) for r in args.results]
        if len(sources) < 2:
            raise ReportError("--across needs the results files of at least two torch releases")
        out_dir = pathlib.Path(args.output) if args.output else pathlib.Path(args.results[0]).resolve().parent
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ReportError(f"{out_dir}: cannot create the output folder: {exc.strerror}") from None
        text = render_across(sources)
        write_whole(out_dir / "across.md", text)
    except ReportError as exc:
        print(f"bench-report: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {out_dir / 'across.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
