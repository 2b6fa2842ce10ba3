"""Tensors, reductions: what sum/mean over a dim return, and keepdim.

What beginner tutorials say about reduction shapes (issue #41).
"""
import pytest
import torch


@pytest.mark.claim("tensors.reduction-dim-keepdim")
def test_sum_over_a_dim_removes_it_unless_keepdim():
    """Tutorial: sum() without dim is a scalar tensor; sum(dim=d) drops d; keepdim=True keeps it as 1.
    True: for a (2, 3, 4) tensor: () / (3, 4) / (2, 4) / (2, 3), and (2, 1, 4) with keepdim; the same
    for mean on floats (mean of an integer tensor raises)."""
    a = torch.arange(1, 25).view(2, 3, 4)
    assert a.sum().shape == () and a.sum().item() == 300, f"sum() = {a.sum()}"
    shapes = [tuple(a.sum(dim=d).shape) for d in (0, 1, -1)]
    assert shapes == [(3, 4), (2, 4), (2, 3)], f"sum(dim) shapes {shapes}"
    assert tuple(a.sum(dim=1, keepdim=True).shape) == (2, 1, 4)
    assert a.sum(dim=-1).tolist() == [[10, 26, 42], [58, 74, 90]]
    f = a.float()
    assert tuple(f.mean(dim=1, keepdim=True).shape) == (2, 1, 4) and tuple(f.mean(dim=(0, 2)).shape) == (3,)
    assert tuple(a.argmax(dim=2, keepdim=True).shape) == (2, 3, 1)
    with pytest.raises(RuntimeError, match="could not infer output dtype"):
        a.mean()
