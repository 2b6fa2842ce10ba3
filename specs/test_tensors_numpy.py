"""Tensors, chapter 3: NumPy ndarray basics, indexing, and interop with tensors.

The ndarray's anatomy (buffer, shape, byte strides, dtype), the shape/strides examples of
004 §2.1, how a tensor's layout maps onto an ndarray's, and where indexing differs.
Sources: 004 §2.1, §2.3.
"""
import sys

import numpy as np
import pytest
import torch

from aliasing import shares_storage


@pytest.mark.claim("tensors.ndarray-anatomy")
def test_ndarray_is_buffer_shape_byte_strides_and_one_dtype():
    """Material: an ndarray is a contiguous block + pointer, shape, strides, dtype.
    True: yes; strides let a view such as a[:, ::2] index that one block non-contiguously."""
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert (a.shape, a.strides, a.dtype.itemsize) == ((3, 4), (16, 4), 4), (
        f"(shape, strides, itemsize) = {(a.shape, a.strides, a.dtype.itemsize)}, but should be ((3, 4), (16, 4), 4)")
    wide = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert wide.strides == (32, 8), f"int64 arange(12).reshape(3, 4).strides = {wide.strides}, but should be (32, 8) bytes"
    every_other = a[:, ::2]
    assert np.shares_memory(every_other, a), "a[:, ::2] should be a view of a's buffer"
    assert every_other.strides == (16, 8), (
        f"a[:, ::2].strides = {every_other.strides}, but should be (16, 8): the column stride doubled")
    assert not (every_other.flags.c_contiguous or every_other.flags.f_contiguous), (
        f"a[:, ::2] with strides {every_other.strides} claims to be contiguous")


@pytest.mark.claim("tensors.ndarray-anatomy", as_written=True)
def test_as_written_ndarray_strides_count_elements():
    """Material: strides say how many elements one step along each axis skips.
    True: they count bytes: (32, 8) for 8-byte integers, (16, 4) for 4-byte ones."""
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert a.strides == (4, 1), f"np.arange(12).reshape(3, 4).strides = {a.strides}, in elements it would be (4, 1)"


@pytest.mark.claim("tensors.ndarray-vs-list-memory")
def test_ndarray_stores_raw_values_while_a_list_stores_references():
    """Material: [1, 2, 3] needs 3 pointers + 3 int objects; an ndarray stores 3 numbers.
    True: the array's buffer is 3 * itemsize bytes; list items are separate objects."""
    values = [1, 2, 3]
    arr = np.array(values, dtype=np.int64)
    assert arr.nbytes == 3 * 8, f"np.array([1, 2, 3]).nbytes={arr.nbytes}, but should be 24"
    raw = b"".join(v.to_bytes(8, sys.byteorder, signed=True) for v in values)
    assert (arr.dtype, arr.tobytes()) == (np.dtype(np.int64), raw), (
        f"np.array([1, 2, 3]) holds dtype {arr.dtype} bytes {arr.tobytes()!r}, but should hold the raw int64 "
        f"values {raw!r} (not references to int objects)")
    assert all(isinstance(v, int) for v in values)
    pointer_bytes = sys.getsizeof(values) - sys.getsizeof([])
    assert pointer_bytes >= 3 * 8, (
        f"a 3-element list holds {pointer_bytes} bytes of references, but should hold at least 24")


@pytest.mark.claim("tensors.ndarray-strides-example")
def test_arange_12_reshaped_3x4_has_strides_32_8_and_int64_items():
    """Material: np.arange(12).reshape(3, 4): shape (3, 4), strides (32, 8), float64 steps.
    True: shape and strides as stated, but the items are int64, not float64."""
    a = np.arange(12).reshape(3, 4)
    assert (a.shape, a.strides) == ((3, 4), (32, 8)), (
        f"np.arange(12).reshape(3, 4) has shape {a.shape} strides {a.strides}, but should be (3, 4) (32, 8)")
    assert a.flags.c_contiguous, "np.arange(12).reshape(3, 4) should be C-contiguous"
    assert a.dtype == np.int64, f"np.arange(12).dtype={a.dtype}, but should be int64"
    assert a.itemsize == np.dtype(np.float64).itemsize == 8, (
        f"int64 items are {a.itemsize} bytes; float64's are {np.dtype(np.float64).itemsize}: both should be 8")


@pytest.mark.claim("tensors.ndarray-strides-example", as_written=True)
def test_as_written_arange_12_holds_float64():
    """Material: the row stride spans 4 float64 values.
    True: np.arange(12) holds int64."""
    assert np.arange(12).reshape(3, 4).dtype == np.float64


@pytest.mark.claim("tensors.ndarray-transpose-no-copy")
def test_ndarray_T_swaps_shape_and_strides_without_copying():
    """Material: a.T copies nothing and swaps shape and strides: (4, 3), (8, 32).
    True: exactly so; a.T shares a's memory."""
    a = np.arange(12).reshape(3, 4)
    b = a.T
    assert (b.shape, b.strides) == ((4, 3), (8, 32)), (
        f"a.T has shape {b.shape} strides {b.strides}, but should be (4, 3) (8, 32)")
    assert np.shares_memory(a, b), "a.T should share a's buffer"
    b[3, 2] = -1
    assert a[2, 3] == -1, f"a[2, 3]={a[2, 3]} after a.T[3, 2] = -1, but should be -1"
    a[0, 1] = -7
    assert b[1, 0] == -7, f"a.T[1, 0]={b[1, 0]} after a[0, 1] = -7, but should be -7"


@pytest.mark.claim("tensors.tensor-ndarray-layout")
@pytest.mark.parametrize("make", [
    lambda: np.arange(24, dtype=np.float32).reshape(2, 3, 4),
    lambda: np.arange(24, dtype=np.float64).reshape(2, 3, 4).transpose(2, 0, 1),
    lambda: np.arange(24, dtype=np.int16).reshape(4, 6)[1:, ::2],
], ids=["contiguous-f32", "transposed-f64", "sliced-i16"])
def test_tensor_strides_are_ndarray_strides_in_elements(make):
    """Material: Tensor and ndarray share nearly the same memory layout.
    True: same buffer, shape and offset; strides in elements instead of bytes."""
    a = make()
    t = torch.from_numpy(a)
    assert tuple(t.shape) == a.shape
    assert t.stride() == tuple(s // a.itemsize for s in a.strides), (
        f"torch.from_numpy(a).stride()={t.stride()}, but should be a.strides/itemsize="
        f"{tuple(s // a.itemsize for s in a.strides)}")
    back = t.numpy()
    assert back.strides == a.strides and np.shares_memory(back, a), (
        "t.numpy() should give back a's strides over a's buffer")


@pytest.mark.claim("tensors.indexing-matches-numpy")
@pytest.mark.parametrize("index", [
    (1,), (slice(None), 2), (slice(1, None), slice(None, None, 2)), (Ellipsis, -1),
    ([0, 2],), (None, 1), (slice(None), [3, 0]),
], ids=str)
def test_basic_and_integer_indexing_match_numpy(index):
    """Material: indexing semantics line up with NumPy.
    True: for basic slices, integer lists and new axes they do."""
    a = np.arange(12).reshape(3, 4)
    t = torch.from_numpy(a.copy())
    got = t[index].numpy()
    np.testing.assert_array_equal(got, a[index], err_msg=f"t[{index!r}] differs from a[{index!r}]")


@pytest.mark.claim("tensors.indexing-matches-numpy")
def test_boolean_masks_match_numpy_and_basic_slices_are_views():
    """Material: indexing semantics line up with NumPy.
    True: masks copy, basic slices are views, in both libraries."""
    a = np.arange(12).reshape(3, 4)
    t = torch.from_numpy(a.copy())
    np.testing.assert_array_equal(t[t % 3 == 0].numpy(), a[a % 3 == 0])
    sliced = t[1:, ::2]
    assert shares_storage(sliced, t), "t[1:, ::2] should be a view"
    assert np.shares_memory(a[1:, ::2], a), "a[1:, ::2] should be a view in NumPy too"
    masked = t[t > 5]
    assert not shares_storage(masked, t), "t[t > 5] should be a copy"


@pytest.mark.claim("tensors.indexing-matches-numpy")
def test_negative_slice_steps_are_rejected_by_torch():
    """Material: indexing semantics line up with NumPy.
    True: t[::-1] raises ValueError; torch.flip (a copy) does what a[::-1] does."""
    a = np.arange(5)
    t = torch.from_numpy(a.copy())
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[::-1]
    flipped = torch.flip(t, dims=(0,))
    np.testing.assert_array_equal(flipped.numpy(), a[::-1])
    assert not shares_storage(flipped, t), "torch.flip shares t's storage, but should be a copy"


@pytest.mark.claim("tensors.indexing-matches-numpy")
def test_creation_and_elementwise_arithmetic_match_numpy_but_the_float_default_differs():
    """Material: creation and element-wise semantics line up with NumPy.
    True: same values (and broadcasting), but torch's floats default to float32, NumPy's to float64."""
    for name, args in (("zeros", ((2, 3),)), ("ones", ((2, 3),)), ("full", ((2, 2), 7.5)), ("eye", (3,)),
                       ("arange", (0, 1, 0.25)), ("linspace", (0, 1, 5))):
        made, reference = getattr(torch, name)(*args), getattr(np, name)(*args)
        np.testing.assert_allclose(made.numpy(), reference, rtol=1e-6, err_msg=f"torch.{name}{args} != np.{name}{args}")
        assert (made.dtype, reference.dtype) == (torch.float32, np.float64), (
            f"torch.{name} gives {made.dtype}, np.{name} {reference.dtype}: the float defaults should be float32 and float64")
    assert torch.arange(5).dtype == torch.int64 and np.arange(5).dtype == np.int64
    a, b = np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0, 3.0])
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    for op in ("add", "multiply", "subtract", "divide", "floor_divide", "remainder"):
        np.testing.assert_array_equal(getattr(torch, op)(ta - 3, tb).numpy(), getattr(np, op)(a - 3, b),
                                      err_msg=f"torch.{op} with broadcasting differs from np.{op}")
    np.testing.assert_allclose(torch.exp(ta).numpy(), np.exp(a), rtol=1e-12)


@pytest.mark.claim("tensors.tensor-adds-device-requires-grad")
def test_tensors_carry_device_and_requires_grad_which_ndarrays_lack():
    """Material: Tensor adds device and requires_grad to the ndarray model.
    True: both attributes exist (cpu / False by default); numpy() refuses grad tensors."""
    t = torch.zeros(3)
    assert (t.device.type, t.requires_grad) == ("cpu", False), (
        f"torch.zeros(3) has device {t.device} requires_grad {t.requires_grad}, but should be cpu and False")
    a = np.zeros(3)
    assert not hasattr(a, "requires_grad"), "ndarray unexpectedly has a requires_grad attribute"
    # NumPy >= 2.0 has ndarray.device for the array API, but it is always the CPU.
    assert getattr(a, "device", "cpu") == "cpu", f"ndarray.device={a.device!r}, but should be 'cpu'"
    w = torch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        w.numpy()
    assert w.detach().numpy().shape == (3,)
