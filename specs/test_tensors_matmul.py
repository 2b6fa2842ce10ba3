"""Tensors, matrix products: what @ / torch.matmul does with 1-D and batched inputs.

What beginner tutorials say about @ (issue #41).
"""
import pytest
import torch


@pytest.mark.claim("tensors.matmul-broadcasts-batch")
def test_matmul_picks_the_product_from_the_dims_and_broadcasts_batches():
    """Tutorials: @ picks dot, matrix-vector or matrix product from the dims, and batches broadcast.
    True: (3,) @ (3,) is 0-dim, (3,) @ (3, 2) is (2,), (3, 2) @ (2,) is (3,), (3, 4, 5) @ (1, 5, 3)
    is (3, 4, 3) equal to a loop of 2-D products, (2, 1, 4, 5) @ (3, 5, 6) is (2, 3, 4, 6);
    batch sizes 3 and 2 do not broadcast."""
    a = torch.tensor([1.0, 2.0, 3.0])
    assert (a @ a).shape == () and (a @ a).item() == 14.0
    assert tuple((a @ torch.ones(3, 2)).shape) == (2,) and tuple((torch.ones(3, 2) @ torch.tensor([1.0, 4.0])).shape) == (3,)
    d, e = torch.randn(3, 4, 5), torch.randn(1, 5, 3)
    out = d @ e
    assert tuple(out.shape) == (3, 4, 3), f"(3, 4, 5) @ (1, 5, 3) gave {tuple(out.shape)}"
    assert torch.allclose(out, torch.stack([d[i] @ e[0] for i in range(3)]), atol=1e-6)
    assert tuple(torch.matmul(torch.randn(2, 1, 4, 5), torch.randn(3, 5, 6)).shape) == (2, 3, 4, 6)
    with pytest.raises(RuntimeError, match="must match"):
        torch.randn(3, 4, 5) @ torch.randn(2, 5, 3)
