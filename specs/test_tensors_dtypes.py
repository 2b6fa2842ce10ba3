"""Tensors, dtypes and creation ranges: inferred dtypes, type promotion, arange's end, rand's interval.

What beginner tutorials say about the dtypes torch picks and the ranges of its creation
functions (issue #41), checked on small tensors.
"""
import numpy as np
import pytest
import torch

# ---------------------------------------------------------------- inferred dtypes

@pytest.mark.claim("tensors.default-dtypes-vs-numpy")
def test_torch_tensor_infers_int64_and_float32_while_numpy_picks_int64_and_float64():
    """Tutorial: tensors default to int64 and float32; NumPy arrays to int32 and float64.
    True: torch int64/float32; NumPy float64, and int64 here (int32 was Windows with NumPy 1);
    torch.tensor(ndarray) keeps the array's dtype."""
    assert torch.tensor([1, 2]).dtype == torch.int64, f"torch.tensor([1, 2]).dtype = {torch.tensor([1, 2]).dtype}"
    assert torch.tensor([1.0, 2]).dtype == torch.float32 == torch.get_default_dtype()
    assert torch.zeros(2).dtype == torch.float32, "zeros() should use the default float dtype"
    assert np.array([1.0, 2.0]).dtype == np.float64, f"np.array of floats: {np.array([1.0]).dtype}"
    assert np.array([1, 2]).dtype == np.int64, f"np.array of ints on this platform: {np.array([1, 2]).dtype}"
    assert torch.tensor(np.array([1.0, 2.0])).dtype == torch.float64, "torch.tensor(ndarray) should keep float64"
    assert torch.tensor(np.array([1, 2], dtype=np.int32)).dtype == torch.int32, "torch.tensor(ndarray) should keep int32"


@pytest.mark.claim("tensors.default-dtypes-vs-numpy", as_written=True)
def test_as_written_numpy_integer_arrays_default_to_int32():
    """Tutorial: an integer NumPy array defaults to int32.  True: int64 on Linux and on NumPy 2 everywhere."""
    assert np.array([1, 2]).dtype == np.int32, f"np.array([1, 2]).dtype = {np.array([1, 2]).dtype}"


@pytest.mark.claim("tensors.tensor-class-rejects-dtype")
def test_Tensor_class_refuses_a_dtype_keyword_that_torch_tensor_accepts():
    """Tutorial: torch.Tensor([1, 2, 3], dtype=torch.float16) raises TypeError; torch.tensor takes dtype.
    True: the class call has no dtype argument (TypeError); torch.tensor(..., dtype=float16) works."""
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        torch.Tensor([1, 2, 3], dtype=torch.float16)
    assert torch.tensor([1, 2, 3], dtype=torch.float16).dtype == torch.float16
    assert torch.Tensor([1, 2, 3]).dtype == torch.float32, "torch.Tensor([1, 2, 3]) should have the default dtype"


# ---------------------------------------------------------------- what arithmetic returns

@pytest.mark.claim("tensors.ops-keep-dtype")
def test_like_functions_keep_the_dtype_but_arithmetic_promotes():
    """Tutorial: new tensors from creation and arithmetic (zeros_like, add) keep the original's dtype.
    True: *_like and same-dtype arithmetic keep it; mixing an int tensor with floats or dividing
    promotes to float32; a same-kind Python scalar does not promote (int8 + 100 wraps)."""
    i = torch.tensor([1, 2])
    assert torch.zeros_like(i).dtype == torch.int64 and (i + i).dtype == torch.int64
    assert torch.zeros_like(torch.ones(2, dtype=torch.int32)).dtype == torch.int32
    assert (i + 2.5).dtype == torch.float32, f"int64 tensor + 2.5 -> {(i + 2.5).dtype}"
    assert (i / i).dtype == torch.float32, f"int64 / int64 -> {(i / i).dtype}"
    assert (i + torch.ones(2)).dtype == torch.float32, "int64 + float32 tensor should give float32"
    assert (torch.ones(2) + torch.ones(2, dtype=torch.float64)).dtype == torch.float64
    assert (torch.ones(2) + torch.tensor(1.0, dtype=torch.float64)).dtype == torch.float32, (
        "a 0-dim float64 tensor should not promote a float32 tensor")
    small = torch.tensor([100], dtype=torch.int8) + 100
    assert small.dtype == torch.int8 and small.tolist() == [-56], f"int8 [100] + 100 -> {small.tolist()} {small.dtype}"
    assert torch.result_type(i, 2.5) == torch.float32


@pytest.mark.claim("tensors.ops-keep-dtype", as_written=True)
def test_as_written_adding_a_float_keeps_the_int_dtype():
    """Tutorial: arithmetic results inherit the original tensor's dtype.  True: int64 + 2.5 is float32."""
    i = torch.tensor([1, 2])
    assert (i + 2.5).dtype == i.dtype, f"int64 tensor + 2.5 -> {(i + 2.5).dtype}"


# ---------------------------------------------------------------- creation ranges

@pytest.mark.claim("tensors.arange-excludes-end")
def test_arange_stops_before_end_like_range():
    """Tutorials: arange(start, end, step) returns [start, end), like Python's range.
    True: arange(1, 6, 2) = [1, 3, 5], arange(0, 10, 2) stops at 8, arange(5) starts at 0;
    integer arguments give int64, a float argument the default float dtype."""
    assert torch.arange(1, 6, 2).tolist() == [1, 3, 5] == list(range(1, 6, 2))
    assert torch.arange(0, 10, 2).tolist() == [0, 2, 4, 6, 8]
    assert torch.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert torch.arange(5).dtype == torch.int64 and torch.arange(0.0, 1.0, 0.25).dtype == torch.float32
    assert torch.arange(0.0, 1.0, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75], "1.0 should be left out"


@pytest.mark.claim("tensors.rand-unit-interval")
def test_rand_is_uniform_on_zero_to_one_with_one_excluded():
    """Tutorials: torch.rand is uniform on [0, 1] (or on (0, 1)).
    True: [0, 1): a million float32 or float64 draws never reach 1; the values sit on a grid of
    2**-24 (float32) or 2**-53 (float64) steps starting at 0, so 0 is a possible draw."""
    torch.manual_seed(0)
    for dtype, bits in ((torch.float32, 24), (torch.float64, 53)):
        x = torch.rand(10**6, dtype=dtype)
        assert x.min().item() >= 0.0 and x.max().item() < 1.0, f"{dtype}: range [{x.min().item()}, {x.max().item()}]"
        grid = x * 2.0**bits
        assert torch.equal(grid, grid.round()), f"{dtype}: draws are not multiples of 2**-{bits}"
        assert abs(x.mean().item() - 0.5) < 0.005, f"{dtype}: mean {x.mean().item()}"


@pytest.mark.claim("tensors.rand-unit-interval", as_written=True)
def test_as_written_rand_can_return_one():
    """Tutorial: rand's interval is [0, 1], 1 included.  True: the largest possible draw is 1 - 2**-24 (strict xfail)."""
    torch.manual_seed(0)
    x = torch.rand(10**6)
    assert x.max().item() == 1.0, f"largest of a million draws: {x.max().item()!r}, 1.0 never appears"
