"""Measurements of the devices topic's quantitative claims (000 §4.2, 002 §4.2, 003 §4.2).

Run alone, never under xdist:  pytest benchmarks/bench_devices.py -p no:xdist
The material says pinned (page-locked) host memory speeds up host-to-GPU copies but gives no
figure; the benchmark measures the ratio on this machine.  It needs CUDA and is skipped with
a reason elsewhere.  Nothing is asserted; the figures go to ``benchmark.extra_info``.
"""
import pytest
import torch
from torch.utils import benchmark as tbench

MiB = 2**20


def _copy_seconds(source: torch.Tensor, non_blocking: bool) -> float:
    """Median seconds of one host-to-device copy of ``source``, synchronised."""
    timer = tbench.Timer(
        stmt="source.to('cuda', non_blocking=non_blocking); torch.cuda.synchronize()",
        globals={"source": source, "non_blocking": non_blocking, "torch": torch})
    return timer.blocked_autorange(min_run_time=0.5).median


@pytest.mark.gpu
@pytest.mark.benchmark
def test_pinned_vs_pageable_host_to_device(benchmark):
    """000 §4.2 / 002 §4.2 / 003 §4.2: pin_memory=True speeds up the host-to-GPU copy."""
    pageable = torch.randn(64 * MiB // 4)               # 64 MiB of float32
    pinned = pageable.pin_memory()
    torch.ones(1, device="cuda")                        # create the context outside the timing
    pageable_s = _copy_seconds(pageable, non_blocking=False)
    pinned_s = _copy_seconds(pinned, non_blocking=True)
    benchmark.pedantic(lambda: (pinned.to("cuda", non_blocking=True), torch.cuda.synchronize()),
                       rounds=20, warmup_rounds=2)
    benchmark.extra_info.update(
        claim="devices.pin-memory-page-locked", quantity="pageable/pinned host-to-device copy time",
        measured=round(pageable_s / pinned_s, 2), material="> 1", unit="x",
        method=(f"torch.utils.benchmark median, 64 MiB float32, pageable .to('cuda') {pageable_s * 1e3:.2f} ms "
                f"vs pinned .to('cuda', non_blocking=True) {pinned_s * 1e3:.2f} ms, synchronised, "
                f"{torch.cuda.get_device_name(0)}"),
        note="the material gives no figure, only that pinning is faster")
