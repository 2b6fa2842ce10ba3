"""Tensors, factory arguments and random draws: dtype= and device= on creation, randn's moments.

What beginner tutorials say about the creation functions' arguments and randn (issue #41).
"""
import pytest
import torch


@pytest.mark.claim("tensors.creation-dtype-device-args")
def test_every_creation_function_takes_dtype_and_device():
    """Tutorial: all the creation functions can be given a dtype and a device.
    True: zeros, ones, rand, empty and full honour dtype= and device= (the meta device stands in for an
    accelerator); randn, arange, linspace and eye honour dtype= and device="cpu" (their meta kernels
    cost a slow one-time import)."""
    made = {
        "zeros": torch.zeros(2, 3, dtype=torch.float64, device="meta"),
        "ones": torch.ones(2, 3, dtype=torch.float64, device="meta"),
        "rand": torch.rand(2, 3, dtype=torch.float64, device="meta"),
        "empty": torch.empty(2, 3, dtype=torch.float64, device="meta"),
        "full": torch.full((2, 3), 3.0, dtype=torch.float64, device="meta"),
    }
    wrong = {name: (t.dtype, t.device.type) for name, t in made.items() if (t.dtype, t.device.type) != (torch.float64, "meta")}
    assert not wrong, f"creation functions that ignored dtype= or device=: {wrong}"
    on_cpu = [torch.randn(2, 3, dtype=torch.float64, device="cpu"), torch.arange(6, dtype=torch.float64, device="cpu"),
              torch.linspace(0, 1, 6, dtype=torch.float64, device="cpu"), torch.eye(3, dtype=torch.float64, device="cpu")]
    assert all((t.dtype, t.device.type) == (torch.float64, "cpu") for t in on_cpu), [(t.dtype, t.device) for t in on_cpu]
    assert torch.eye(2, dtype=torch.int32).tolist() == [[1, 0], [0, 1]]


@pytest.mark.claim("tensors.randn-standard-normal")
def test_randn_draws_from_the_standard_normal():
    """Tutorials: randn samples the standard normal distribution (mean 0, variance 1).
    True: a million float32 draws have mean within 0.005 of 0 and std within 0.005 of 1, about
    68.3% fall within one standard deviation; randn_like keeps the shape and dtype."""
    torch.manual_seed(0)
    z = torch.randn(10**6)
    assert z.dtype == torch.float32
    assert abs(z.mean().item()) < 0.005 and abs(z.std().item() - 1.0) < 0.005, f"mean {z.mean().item()}, std {z.std().item()}"
    inside = (z.abs() < 1).float().mean().item()
    assert abs(inside - 0.6827) < 0.005, f"share within one std: {inside}"
    like = torch.randn_like(torch.zeros(2, 3, dtype=torch.float64))
    assert tuple(like.shape) == (2, 3) and like.dtype == torch.float64
