"""Tensors, in-place methods: the trailing underscore.

What beginner tutorials say about add versus add_ (issue #41).
"""
import pytest
import torch


@pytest.mark.claim("tensors.underscore-methods-in-place")
def test_underscore_methods_change_the_tensor_and_the_plain_ones_return_a_new_one():
    """Tutorials: a.add(b) returns a new tensor and leaves a alone; a.add_(b) stores the sum in a.
    True: add_ writes into a's storage and returns a itself; add, +, torch.add return a new tensor;
    resize_ reshapes in place while reshape does not."""
    a, b = torch.ones(2, 3), torch.full((2, 3), 2.0)
    ptr = a.data_ptr()
    out = a.add(b)
    assert out is not a and a.eq(1).all() and out.eq(3).all(), f"a.add(b) changed a to {a.tolist()}"
    assert torch.equal(torch.add(a, b), a + b) and torch.equal(a + b, out)
    same = a.add_(b)
    assert same is a and a.data_ptr() == ptr and a.eq(3).all(), f"after add_ a = {a.tolist()}, returned a: {same is a}"
    m = torch.arange(6.0).view(2, 3)
    assert tuple(m.reshape(1, 6).shape) == (1, 6) and tuple(m.shape) == (2, 3), "reshape changed m"
    assert m.resize_(1, 6) is m and tuple(m.shape) == (1, 6), f"resize_ left m as {tuple(m.shape)}"
