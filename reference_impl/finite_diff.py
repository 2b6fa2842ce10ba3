"""Central finite differences: the independent witness autograd is checked against.

``central_difference_jacobian(fn, inputs)`` returns ONE matrix of shape
``(out.numel(), sum(x.numel() for x in inputs))``: row ``i`` is output element ``i`` and the
columns are the inputs' elements one input after another, each flattened in row-major
(logical) order, exactly the order ``x.reshape(-1)`` gives, whatever the input's strides.
``per_input(J, inputs)`` splits it into one ``(out.numel(), x.numel())`` block per input,
the layout ``torch.autograd.functional.jacobian(...)[k].reshape(out.numel(), -1)`` has.

Use float64: with eps = 1e-6 the truncation error is O(eps**2) and the rounding error
about 1e-16 / eps, so entries agree with autograd to roughly 1e-8.
"""
from __future__ import annotations

from typing import Callable, Sequence

import torch


def _flat_output(out) -> torch.Tensor:
    """A tensor or a tuple/list of tensors, flattened and concatenated in order."""
    if isinstance(out, torch.Tensor):
        return out.detach().reshape(-1)
    return torch.cat([o.detach().reshape(-1) for o in out])


def central_difference_jacobian(fn: Callable[..., torch.Tensor], inputs: Sequence[torch.Tensor],
                                eps: float = 1e-6) -> torch.Tensor:
    """d fn(*inputs) / d inputs by central differences, as one (out.numel(), total_in) matrix.

    ``fn`` takes the inputs as positional arguments and returns a tensor (or a tuple of
    tensors, concatenated).  Inputs are never modified: each is copied into a contiguous
    float64 buffer that is perturbed one element at a time, ``(f(x + eps e_j) - f(x - eps e_j)) / 2eps``.
    Zero-size inputs contribute zero columns; a zero-size output gives zero rows.
    """
    inputs = tuple(inputs)
    base = [x.detach().to(torch.float64).clone().contiguous() for x in inputs]
    with torch.no_grad():
        out_numel = _flat_output(fn(*base)).numel()
        columns: list[torch.Tensor] = []
        for x in base:
            flat = x.view(-1)  # a view: writing into it perturbs this entry of base
            for j in range(flat.numel()):
                saved = flat[j].item()
                flat[j] = saved + eps
                plus = _flat_output(fn(*base)).to(torch.float64)
                flat[j] = saved - eps
                minus = _flat_output(fn(*base)).to(torch.float64)
                flat[j] = saved
                columns.append((plus - minus) / (2 * eps))
    if not columns:
        return torch.zeros(out_numel, 0, dtype=torch.float64)
    return torch.stack(columns, dim=1)


def per_input(jacobian: torch.Tensor, inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """Split a full Jacobian into one (out.numel(), x.numel()) block per input, in order."""
    sizes = [x.numel() for x in inputs]
    return list(torch.split(jacobian, sizes, dim=1)) if sizes else []


def vjp(jacobian: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """v^T J: what ``y.backward(v)`` accumulates, flattened over all inputs in order."""
    return v.reshape(-1).to(jacobian.dtype) @ jacobian
