"""Measurements of the tensors topic's quantitative claims (003 §3.1).

Run alone, never under xdist:  pytest benchmarks/bench_tensors.py -p no:xdist
Each benchmark times one side with pytest-benchmark and puts the comparison the
material makes (a ratio, a size) into ``benchmark.extra_info``; nothing is asserted
about wall-clock time.
"""
import pytest
import torch
from torch.utils import benchmark as tbench

N_LARGE = 10_000_000  # 40 MB of float32: large enough that filling dominates
N_SMALL = 1_000       # dispatcher overhead dominates


def median_seconds(stmt: str, n: int) -> float:
    timer = tbench.Timer(stmt=stmt, globals={"torch": torch, "n": n}, num_threads=1)
    return timer.blocked_autorange(min_run_time=0.3).median


@pytest.mark.benchmark
def test_empty_vs_zeros(benchmark):
    """003 §3.1 says torch.empty is 3x faster than torch.zeros; measure zeros/empty."""
    before = torch.get_num_threads()
    try:
        large = median_seconds("torch.zeros(n)", N_LARGE) / median_seconds("torch.empty(n)", N_LARGE)
        small = median_seconds("torch.zeros(n)", N_SMALL) / median_seconds("torch.empty(n)", N_SMALL)
    finally:
        torch.set_num_threads(before)
    benchmark(torch.zeros, N_LARGE)
    benchmark.extra_info.update(
        claim="tensors.empty-faster-than-zeros", quantity="zeros/empty time ratio",
        measured=round(large, 2), material=3.0, unit="x",
        method=(f"torch.utils.benchmark.Timer, 1 thread, median; {N_LARGE:.0e} float32 "
                f"(ratio {large:.2f}) and {N_SMALL} float32 (ratio {small:.2f})"),
        small_tensor_ratio=round(small, 2))


@pytest.mark.benchmark
def test_linspace_vs_arange(benchmark):
    """003 §3.1 says linspace(0, 1, 100000) uses less memory than arange(0, 1, 0.00001)."""
    lin = torch.linspace(0, 1, 100000)
    ar = torch.arange(0, 1, 0.00001)
    ratio = lin.untyped_storage().nbytes() / ar.untyped_storage().nbytes()
    before = torch.get_num_threads()
    try:
        time_ratio = (median_seconds("torch.linspace(0, 1, n)", 100000)
                      / median_seconds("torch.arange(0, 1, 1 / n)", 100000))
    finally:
        torch.set_num_threads(before)
    benchmark(torch.linspace, 0, 1, 100000)
    benchmark.extra_info.update(
        claim="tensors.linspace-less-memory", quantity="linspace/arange result bytes",
        measured=ratio, material="< 1", unit="ratio",
        method=(f"untyped_storage().nbytes(): linspace {lin.untyped_storage().nbytes()} B, "
                f"arange {ar.untyped_storage().nbytes()} B ({ar.numel()} elements); "
                f"time ratio linspace/arange {time_ratio:.2f} (Timer, 1 thread, median)"),
        time_ratio=round(time_ratio, 2))
