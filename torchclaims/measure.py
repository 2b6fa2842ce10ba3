"""Measurements shared by specs and benchmarks."""
from __future__ import annotations


def saved_tensor_bytes(fn):
    """(bytes autograd saves for backward while ``fn()`` runs, fn's result).

    Counted with ``saved_tensors_hooks``: the activation memory of a forward pass on any
    device, without reading allocator statistics.
    """
    import torch

    total = 0

    def pack(t):
        nonlocal total
        total += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn()
    return total, out


def machine_busy_s() -> float | None:
    """Seconds of CPU the whole machine spent busy since boot (Linux ``/proc/stat``), or None where
    it cannot be read. The difference over a run, less the run's own CPU, is what other processes took."""
    import os
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
