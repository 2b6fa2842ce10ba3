"""Tensors, max and argmax: what comes back with and without dim, and which index wins a tie.

What beginner tutorials say about torch.max and torch.argmax (issue #41).
"""
import pytest
import torch


@pytest.mark.claim("tensors.max-without-dim-no-indices")
def test_max_without_dim_is_a_plain_value_and_with_dim_a_values_indices_pair():
    """Tutorials: torch.max(t) returns the largest value and the index of its first occurrence.
    True: without dim it returns one 0-dim tensor (no indices, no .values); with dim it returns the
    named tuple (values, indices)."""
    t = torch.tensor([10, 5, 20, 15, 20])
    whole = torch.max(t)
    assert isinstance(whole, torch.Tensor) and whole.dim() == 0 and whole.item() == 20, f"torch.max(t) = {whole!r}"
    assert not isinstance(whole, tuple), "torch.max(t) without dim should not be a (values, indices) pair"
    along = torch.max(t, dim=0)
    assert isinstance(along, tuple) and along.values.item() == 20 and along.indices.item() == 2, f"{along}"
    rows = torch.tensor([[1, 2, 3, 4, 5], [6, 7, 3, 4, 5]]).max(dim=1)
    assert rows.values.tolist() == [5, 7] and rows.indices.tolist() == [4, 1], f"max(dim=1) = {rows}"


@pytest.mark.claim("tensors.max-without-dim-no-indices", as_written=True)
def test_as_written_max_without_dim_returns_value_and_index():
    """Tutorial: torch.max(t) gives the maximum and the index of its first occurrence.  True: one 0-dim tensor."""
    result = torch.max(torch.tensor([10, 5, 20, 15, 20]))
    assert isinstance(result, tuple), f"torch.max(t) returned {type(result).__name__} {result!r}, not (value, index)"


@pytest.mark.claim("tensors.argmax-flat-index-first-tie")
def test_argmax_without_dim_indexes_the_flattened_tensor_and_ties_go_to_the_first():
    """Tutorials: argmax without dim gives the index in the flattened tensor; with ties, the first one.
    True: argmax([[3, 1, 4], [2, 5, 1]]) is 4; on CPU argmax, max(dim).indices and argmin all pick the
    first of equal extremes ([10, 5, 20, 15, 20] -> 2, rows [1, 7, 7] and [7, 7, 1] -> 1 and 0)."""
    x = torch.tensor([[3, 1, 4], [2, 5, 1]])
    assert torch.argmax(x).item() == 4 and x.flatten()[4].item() == 5
    assert torch.argmax(x, dim=0).tolist() == [0, 1, 0] and tuple(torch.argmax(x, dim=1, keepdim=True).shape) == (2, 1)
    assert torch.argmax(torch.tensor([10, 5, 20, 15, 20])).item() == 2
    y = torch.tensor([[1.0, 7.0, 7.0], [7.0, 7.0, 1.0]])
    assert y.argmax(dim=1).tolist() == [1, 0] and y.max(dim=1).indices.tolist() == [1, 0], f"{y.argmax(dim=1)}"
    assert torch.tensor([[1, 9], [9, 1]]).argmax().item() == 1
    assert torch.tensor([2.0, 2.0, 2.0]).argmin().item() == 0
