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
