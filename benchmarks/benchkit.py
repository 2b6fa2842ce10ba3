"""The measuring kit every benchmark shares: interleaved rounds and the rows of the report.

Rounds follow torch.utils.benchmark and PyTorch's benchmarks/dynamo: each round is one
``torch.utils.benchmark.Timer.timeit(number)`` (per-call seconds), the sides of a
comparison alternate in rotating order, and the raw per-round values go to the report,
which computes medians, intervals and spreads from them (``torchclaims.bench``).

``TORCHCLAIMS_BENCH_ROUNDS`` sets the rounds (default 21: a 95% interval of the median
between the 6th and 16th values); ``TORCHCLAIMS_BENCH_SMOKE=1`` runs 6 rounds and reduced
sizes, to prove the benchmarks work (the report marks such a run as a smoke run).
"""
from __future__ import annotations

import math
import os
import statistics

from torch.utils import benchmark as tbench

SMOKE = os.environ.get("TORCHCLAIMS_BENCH_SMOKE", "") not in ("", "0")
ROUNDS = int(os.environ.get("TORCHCLAIMS_BENCH_ROUNDS") or (6 if SMOKE else 21))
ROUND_SECONDS = 0.02 if SMOKE else 0.05   # the target length of one timed round


def rotated(names: list, r: int) -> list:
    """Round ``r``'s order: each side goes first in turn."""
    shift = r % len(names)
    return names[shift:] + names[:shift]


def interleaved_timer_rounds(fns: dict, rounds: int = ROUNDS, num_threads: int = 1,
                             round_seconds: float = ROUND_SECONDS, number: int | None = None) -> dict[str, list[float]]:
    """Per-call seconds of each callable, one value a round, the callables interleaved.

    ``number`` calls per round; by default chosen per callable from one untimed-for-the-report
    call (which doubles as a warm-up) so a round lasts about ``round_seconds``.
    """
    timers = {name: tbench.Timer(stmt="fn()", globals={"fn": fn}, num_threads=num_threads)
              for name, fn in fns.items()}
    numbers = {}
    for name, timer in timers.items():
        once = timer.timeit(1).median
        numbers[name] = number or max(1, math.ceil(round_seconds / max(once, 1e-7)))
    names = list(fns)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in rotated(names, r):
            samples[name].append(timers[name].timeit(numbers[name]).median)
    return samples


def interleaved_calls(fns: dict, rounds: int = ROUNDS) -> dict[str, list]:
    """Each callable's return value (a measurement it makes itself), one a round, interleaved."""
    names = list(fns)
    samples: dict[str, list] = {name: [] for name in names}
    for r in range(rounds):
        for name in rotated(names, r):
            samples[name].append(fns[name]())
    return samples


def _row(claim, quantity, unit, material, method, scale, extra) -> dict:
    row = dict(claim=claim, quantity=quantity, unit=unit, material=material, method=method, scale=scale)
    row.update({k: v for k, v in extra.items() if v is not None})
    return row


def pair_row(claim: str, quantity: str, *, baseline, candidate, stat: str, material, unit: str,
             method: str, scale: str, **extra) -> dict:
    """A comparison of two interleaved sides (see torchclaims.bench for ``stat``)."""
    return _row(claim, quantity, unit, material, method, scale,
                dict(stat=stat, baseline=[float(v) for v in baseline], candidate=[float(v) for v in candidate],
                     **extra))


def samples_row(claim: str, quantity: str, *, samples, material, unit: str, method: str, scale: str,
                **extra) -> dict:
    """One quantity measured in rounds; its figure is the median."""
    return _row(claim, quantity, unit, material, method, scale, dict(samples=[float(v) for v in samples], **extra))


def exact_row(claim: str, quantity: str, *, measured, material, unit: str, method: str, scale: str,
              **extra) -> dict:
    """A deterministic count (bytes of a file, of saved tensors): no noise, one round."""
    return _row(claim, quantity, unit, material, method, scale, dict(measured=measured, exact=True, **extra))


median = statistics.median   # the benchmarks import it from here: one median for all of them


def record(benchmark, rows: list[dict], **details) -> None:
    """Put the rows into ``benchmark.extra_info``: the first at the top level, the rest in ``more``."""
    benchmark.extra_info.update(rows[0])
    if rows[1:]:
        benchmark.extra_info["more"] = rows[1:]
    benchmark.extra_info.update(details)
