"""Measurements of the devices topic's quantitative claims (000 §4.2, 002 §4.2, 003 §4.2).

Run alone, never under xdist:  pytest benchmarks/bench_devices.py -p no:xdist
The material says pinned (page-locked) host memory speeds up host-to-GPU copies but gives no
figure; the benchmark measures the ratio on this machine.  It needs CUDA and is skipped with
a reason elsewhere.  Nothing is asserted; the interleaved rounds go to ``benchmark.extra_info``.
"""
import pytest
import torch

from benchkit import ROUNDS, interleaved_timer_rounds, median, pair_row, record

MiB = 2**20


@pytest.mark.gpu
@pytest.mark.benchmark
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: no GPU on this machine")
@pytest.mark.claim("devices.pin-memory-page-locked")
def test_pinned_vs_pageable_host_to_device(benchmark):
    """000 §4.2 / 002 §4.2 / 003 §4.2: pin_memory=True speeds up the host-to-GPU copy."""
    pageable = torch.randn(64 * MiB // 4)               # 64 MiB of float32
    pinned = pageable.pin_memory()
    torch.ones(1, device="cuda")                        # create the context outside the timing

    def copy(source, non_blocking):
        source.to("cuda", non_blocking=non_blocking)
        torch.cuda.synchronize()

    times = interleaved_timer_rounds({"pageable": lambda: copy(pageable, False), "pinned": lambda: copy(pinned, True)})
    benchmark.pedantic(copy, args=(pinned, True), rounds=20, warmup_rounds=2)
    record(benchmark, [pair_row(
        "devices.pin-memory-page-locked", "pageable/pinned host-to-device copy time",
        baseline=times["pageable"], candidate=times["pinned"], stat="speedup", material="> 1", unit="x",
        device=torch.cuda.get_device_name(0), scale="the material gives no size; 64 MiB of float32",
        method=(f"torch.utils.benchmark.Timer, {ROUNDS} interleaved rounds, synchronised; medians pageable "
                f".to('cuda') {median(times['pageable']) * 1e3:.2f} ms, pinned .to('cuda', non_blocking=True) "
                f"{median(times['pinned']) * 1e3:.2f} ms, {torch.cuda.get_device_name(0)}"),
        note="the material gives no figure, only that pinning is faster")])
