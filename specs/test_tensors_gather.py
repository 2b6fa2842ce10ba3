"""Tensors, gather and scatter_: picking and placing values by an index tensor.

What beginner tutorials say about gather/scatter_ (issue #41).
"""
import pytest
import torch


@pytest.mark.claim("tensors.gather-index-shape")
def test_gather_returns_the_shape_of_its_index():
    """Tutorial: gather's output has the index's shape; input and index need the same number of dims.
    True: q.gather(1, [[1], [0]]) picks 0.5 and 0.8 as (2, 1); a (2, 3) index gives (2, 3);
    a 1-D index for a 2-D input raises RuntimeError."""
    q = torch.tensor([[0.1, 0.5, 0.2, 0.2], [0.8, 0.1, 0.05, 0.05]])
    picked = torch.gather(q, 1, torch.tensor([[1], [0]]))
    assert tuple(picked.shape) == (2, 1) and picked.flatten().tolist() == pytest.approx([0.5, 0.8]), f"{picked}"
    wide = q.gather(1, torch.tensor([[1, 1, 3], [0, 2, 2]]))
    assert tuple(wide.shape) == (2, 3) and wide[1].tolist() == pytest.approx([0.8, 0.05, 0.05]), f"{wide}"
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        torch.gather(q, 1, torch.tensor([1, 0]))


@pytest.mark.claim("tensors.scatter-one-hot")
def test_scatter__writes_a_value_at_the_indexed_positions_in_place():
    """Tutorial: zeros(4, 5).scatter_(1, labels.unsqueeze(1), 1.0) builds one-hot rows in place.
    True: the rows are one-hot for labels [1, 4, 2, 0] and scatter_ returns the same tensor;
    scatter (no underscore) leaves its input alone; a 1-D index raises RuntimeError."""
    labels = torch.tensor([1, 4, 2, 0])
    one_hot = torch.zeros(4, 5)
    same = one_hot.scatter_(1, labels.unsqueeze(1), 1.0)
    assert same is one_hot, "scatter_ should return the tensor it changed"
    assert torch.equal(one_hot, torch.eye(5)[labels]), f"one-hot rows {one_hot.tolist()}"
    base = torch.zeros(4, 5)
    fresh = base.scatter(1, labels.unsqueeze(1), 1.0)
    assert base.sum().item() == 0.0 and fresh.sum().item() == 4.0, "scatter (no underscore) changed its input"
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        torch.zeros(4, 5).scatter_(1, labels, 1.0)
