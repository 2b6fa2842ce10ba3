"""Tensors, 0-dim tensors and Python scalars: item(), tolist() and 0-dim broadcasting.

What beginner tutorials say about single values taken out of tensors (issue #41).
"""
import pytest
import torch


@pytest.mark.claim("tensors.item-python-scalar")
def test_indexing_one_element_gives_a_0_dim_tensor_and_item_a_python_number():
    """Tutorials: a[0, 1] is still a tensor; .item() turns a one-element tensor into a Python number.
    True: a[0, 1] is 0-dim; item() gives int or float (also under requires_grad); it raises
    RuntimeError for more than one element; tolist() gives nested Python lists."""
    a = torch.tensor([[1, 2, 3], [4, 5, 6]])
    one = a[0, 1]
    assert isinstance(one, torch.Tensor) and one.dim() == 0, f"a[0, 1] is {type(one).__name__} of dim {one.dim()}"
    assert type(one.item()) is int and one.item() == 2, f"a[0, 1].item() = {one.item()!r}"
    assert type(torch.tensor([1.5]).item()) is float, "a float tensor's item() should be a Python float"
    leaf = torch.full((1,), 3.0, requires_grad=True)
    assert type(leaf.item()) is float and leaf.item() == 3.0, f"item() under requires_grad gave {leaf.item()!r}"
    with pytest.raises((RuntimeError, ValueError), match="converted to"):   # ValueError on older releases
        a.item()
    assert a.tolist() == [[1, 2, 3], [4, 5, 6]] and type(a.tolist()[0][0]) is int
    bare = torch.full((), 3.0).tolist()
    assert type(bare) is float and bare == 3.0, f"tolist() of a 0-dim tensor gave {bare!r}, not a bare number"


@pytest.mark.claim("tensors.broadcast-zero-dim-excluded")
def test_zero_dim_tensors_broadcast_against_any_shape():
    """Tutorial: two tensors can be broadcast only if neither is 0-dim.
    True: a 0-dim tensor broadcasts with every shape, like a Python number."""
    scalar = torch.tensor(2.0)
    assert scalar.dim() == 0
    out = torch.ones(2, 3) + scalar
    assert tuple(out.shape) == (2, 3) and out.eq(3.0).all(), f"(2, 3) + 0-dim gave {tuple(out.shape)}"
    assert tuple((scalar * torch.ones(4, 1, 5)).shape) == (4, 1, 5)
    expanded, _ = torch.broadcast_tensors(scalar, torch.ones(2, 3))
    assert tuple(expanded.shape) == (2, 3) and expanded.stride() == (0, 0), f"{tuple(expanded.shape)} {expanded.stride()}"
    assert (scalar + torch.tensor(1.0)).dim() == 0


@pytest.mark.claim("tensors.broadcast-zero-dim-excluded", as_written=True)
def test_as_written_a_zero_dim_tensor_cannot_be_broadcast():
    """Tutorial: a 0-dim tensor is excluded from broadcasting.  True: (2, 3) + 0-dim works (strict xfail)."""
    with pytest.raises(RuntimeError):
        torch.ones(2, 3) + torch.tensor(2.0)
