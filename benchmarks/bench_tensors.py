"""Measurements of the tensors topic's quantitative claims (003 §3.1).

Run alone, never under xdist:  pytest benchmarks/bench_tensors.py --benchmark-only -p no:xdist
Each comparison runs its two sides in interleaved torch.utils.benchmark rounds (one
thread) and records the raw rounds; the report computes medians and intervals.  Nothing
is asserted about wall-clock time.
"""
import pytest
import torch

from benchkit import ROUNDS, SMOKE, exact_row, interleaved_timer_rounds, median, pair_row, record

N_LARGE = 2_000_000 if SMOKE else 10_000_000  # 40 MB of float32: filling dominates
N_SMALL = 1_000                                # dispatcher overhead dominates
SCALE = ("the material gives no size; 1e7 float32 (40 MB, fresh pages from the OS each call) "
         "and 1000 float32" if not SMOKE else "smoke: 2e6 float32 and 1000 float32")


@pytest.mark.benchmark
@pytest.mark.claim("tensors.empty-faster-than-zeros")
def test_empty_vs_zeros(benchmark):
    """003 §3.1 says torch.empty is 3x faster than torch.zeros.

    A program allocates a buffer to write into it, so both sides write every element
    (``fill_``) as a real use would: empty + fill vs zeros + fill.  Without the write,
    ``empty`` of 40 MB does not even touch its freshly mapped pages, and the ratio
    (recorded as a detail) measures only that artefact.
    """
    times = {}
    for label, n in (("large", N_LARGE), ("small", N_SMALL)):
        times[label] = interleaved_timer_rounds({
            "zeros+fill": lambda n=n: torch.zeros(n).fill_(1.5),
            "empty+fill": lambda n=n: torch.empty(n).fill_(1.5),
        })
    untouched = interleaved_timer_rounds({
        "zeros": lambda: torch.zeros(N_LARGE), "empty": lambda: torch.empty(N_LARGE)})
    benchmark(lambda: torch.empty(N_LARGE).fill_(1.5))
    method = "torch.utils.benchmark.Timer, 1 thread, {n} float32, {r} interleaved rounds; zeros+fill {z:.3g} ms, empty+fill {e:.3g} ms (medians)"
    rows = [pair_row(
        "tensors.empty-faster-than-zeros", f"{label} tensor: time of zeros+fill / empty+fill",
        baseline=times[label]["zeros+fill"], candidate=times[label]["empty+fill"], stat="speedup",
        material=3.0, unit="x", scale=SCALE,
        method=method.format(n=n, r=ROUNDS, z=median(times[label]["zeros+fill"]) * 1e3,
                             e=median(times[label]["empty+fill"]) * 1e3))
        for label, n in (("large", N_LARGE), ("small", N_SMALL))]
    record(benchmark, rows,
           untouched_ratio_zeros_over_empty=round(median(untouched["zeros"]) / median(untouched["empty"]), 1),
           note=("untouched_ratio_zeros_over_empty is zeros/empty of the large tensor without writing it: "
                 "empty returns pages never faulted in, so that ratio times an allocation, not a use"))


@pytest.mark.benchmark
@pytest.mark.claim("tensors.linspace-less-memory")
def test_linspace_vs_arange(benchmark):
    """003 §3.1 says linspace(0, 1, 100000) uses less memory than arange(0, 1, 0.00001)."""
    lin = torch.linspace(0, 1, 100000)
    ar = torch.arange(0, 1, 0.00001)
    ratio = lin.untyped_storage().nbytes() / ar.untyped_storage().nbytes()
    times = interleaved_timer_rounds({"arange": lambda: torch.arange(0, 1, 0.00001),
                                      "linspace": lambda: torch.linspace(0, 1, 100000)})
    benchmark(torch.linspace, 0, 1, 100000)
    record(benchmark, [
        exact_row("tensors.linspace-less-memory", "linspace/arange result bytes", measured=ratio,
                  material="< 1", unit="ratio", scale="the material's: 100000 elements",
                  method=(f"untyped_storage().nbytes(): linspace {lin.untyped_storage().nbytes()} B, "
                          f"arange {ar.untyped_storage().nbytes()} B ({ar.numel()} elements)")),
    ], time_ratio_linspace_over_arange=round(median(times["linspace"]) / median(times["arange"]), 2))
