"""Tensors, indexing: what an integer index and a slice leave of a dimension.

What beginner tutorials say about indexing shapes (issue #41).
"""
import pytest
import torch


@pytest.mark.claim("tensors.int-index-drops-dim")
def test_an_integer_index_drops_its_dim_and_a_slice_keeps_it():
    """Tutorials: indexing a dim with an integer removes it; a slice keeps it, even at size 1.
    True: b[1, :] is (4,) and b[1:2, :] is (1, 4); b[:, 2] is (3,) and b[:, 2:3] is (3, 1);
    f[:, 2, :] of a (9, 8, 10) tensor is (9, 10)."""
    b = torch.arange(1, 13).view(3, 4)
    shapes = [tuple(t.shape) for t in (b[1, :], b[1], b[1:2, :], b[:, 2], b[:, 2:3])]
    assert shapes == [(4,), (4,), (1, 4), (3,), (3, 1)], f"shapes {shapes}"
    f = torch.zeros(9, 8, 10)
    assert tuple(f[:, 2, :].shape) == (9, 10) and tuple(f[:, 3:5, :-1].shape) == (9, 2, 9)
    assert torch.equal(b[:, 2:3].squeeze(1), b[:, 2]), "the slice and the index hold the same values"
