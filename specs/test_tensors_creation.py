"""Tensors, chapter 2: creation functions and dtype conversion.

Which factory copies and which shares (torch.tensor, torch.Tensor, from_numpy,
as_tensor), what empty/zeros_like/arange/linspace return, and when .float() or
.to(dtype) copy.  Source: 003 §3.1.  Timings live in benchmarks/bench_tensors.py.
"""
import math

import numpy as np
import pytest
import torch

from aliasing import storage_nbytes, storage_ptr
from dispatch import RecordOps


def aten_ops(fn) -> list:
    with RecordOps() as recorder:
        fn()
    return recorder.ops


@pytest.mark.claim("tensors.tensor-always-copies")
def test_torch_tensor_copies_an_ndarray_and_a_tensor():
    """Material: torch.tensor always copies, even from an ndarray.
    True: neither an ndarray nor a tensor input is shared."""
    a = np.arange(4.0)
    t = torch.tensor(a)
    a[0] = 100.0
    assert t[0].item() == 0.0, f"torch.tensor(a)[0]={t[0].item()} after a[0] = 100, but should stay 0.0"
    assert not np.shares_memory(t.numpy(), a), "torch.tensor(ndarray) shares the array's memory"
    for array in (np.arange(4, dtype=np.float32), np.arange(4), np.arange(6.0).reshape(2, 3)[:, 1:]):
        for kwargs in ({}, {"dtype": torch.from_numpy(array).dtype}):
            made = torch.tensor(array, **kwargs)
            assert not np.shares_memory(made.numpy(), array), (
                f"torch.tensor({array.dtype} array, **{kwargs}) shares the array's memory, but should copy")
    for src in (torch.arange(4.0), torch.arange(4), torch.ones(3, requires_grad=True)):
        with pytest.warns(UserWarning, match=r"detach\(\)") as caught:
            copied = torch.tensor(src)
        assert "clone()" in str(caught[0].message), f"the warning {caught[0].message} does not suggest clone()"
        assert storage_ptr(copied) != storage_ptr(src), (
            f"torch.tensor({src.dtype} tensor) shares its input's storage, but should copy")


@pytest.mark.claim("tensors.tensor-vs-tensor-class")
def test_torch_tensor_infers_dtype_while_the_Tensor_class_uses_the_default():
    """Material: torch.tensor() and torch.Tensor() differ.
    True: Tensor([1, 2, 3]) is float32, Tensor(2, 3) is a 2x3 tensor; tensor([1, 2, 3]) is int64."""
    assert isinstance(torch.Tensor, type) and isinstance(torch.tensor([1]), torch.Tensor), (
        "torch.Tensor should be the class every tensor is an instance of")
    assert not isinstance(torch.tensor, type), "torch.tensor should be a factory function, not a class"
    assert torch.tensor([1, 2, 3]).dtype == torch.int64, "torch.tensor([1, 2, 3]) should infer int64"
    assert torch.Tensor([1, 2, 3]).dtype == torch.get_default_dtype() == torch.float32, (
        f"torch.Tensor([1, 2, 3]).dtype={torch.Tensor([1, 2, 3]).dtype}, but should be float32")
    for data in ([True, False], [1.5, 2], np.array([1, 2, 3])):
        assert torch.Tensor(data).dtype == torch.float32, (
            f"torch.Tensor({data!r}).dtype={torch.Tensor(data).dtype}, but should be the default float32")
    before = torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.float64)
        under_float64 = torch.Tensor([1, 2, 3]).dtype
    finally:
        torch.set_default_dtype(before)
    assert under_float64 == torch.float64, (
        f"torch.Tensor([1, 2, 3]).dtype={under_float64} with default dtype float64, but should follow the default")
    assert torch.Tensor(2, 3).shape == (2, 3), "torch.Tensor(2, 3) should be a 2x3 (uninitialized) tensor"
    assert torch.tensor(3).shape == (), "torch.tensor(3) should be a 0-dim tensor holding 3"


@pytest.mark.slow  # the first use_deterministic_algorithms(True) costs seconds
@pytest.mark.claim("tensors.tensor-vs-tensor-class")
def test_Tensor_class_given_sizes_is_uninitialized_like_empty():
    """Material: torch.tensor() and torch.Tensor() differ.
    True: torch.Tensor(2, 3) allocates without filling: deterministic mode fills it with NaN, as for empty."""
    before = torch.are_deterministic_algorithms_enabled()
    try:
        torch.use_deterministic_algorithms(True)
        poisoned = torch.Tensor(2, 3)
    finally:
        torch.use_deterministic_algorithms(before)
    if torch.utils.deterministic.fill_uninitialized_memory:
        assert torch.isnan(poisoned).all(), (
            f"torch.Tensor(2, 3) in deterministic mode gave {poisoned}, but should be all NaN (uninitialized)")


@pytest.mark.claim("tensors.from-numpy-shares")
def test_from_numpy_shares_memory_both_ways():
    """Material: from_numpy shares memory, zero copy.
    True: writes show on both sides; tensor strides are byte strides / itemsize."""
    a = np.arange(12, dtype=np.float32).reshape(3, 4)[:, 1:]
    t = torch.from_numpy(a)
    t[0, 0] = -1.0
    a[2, 2] = -2.0
    assert a[0, 0] == -1.0 and t[2, 2].item() == -2.0, (
        f"a[0, 0]={a[0, 0]}, t[2, 2]={t[2, 2].item()}, but writes should show on the other side")
    assert t.stride() == tuple(s // a.itemsize for s in a.strides), (
        f"t.stride()={t.stride()}, but should be {tuple(s // a.itemsize for s in a.strides)}")
    assert np.shares_memory(t.numpy(), a), "from_numpy(a).numpy() does not share a's buffer"


@pytest.mark.claim("tensors.from-numpy-float64-raises")
def test_from_numpy_accepts_float64_and_keeps_the_dtype():
    """Material: from_numpy raises for np.float64 input.
    True: it returns a shared torch.float64 tensor; unsupported dtypes raise TypeError."""
    a = np.linspace(0.0, 1.0, 5)
    t = torch.from_numpy(a)
    assert t.dtype == torch.float64, f"torch.from_numpy(float64).dtype={t.dtype}, but should be float64"
    assert np.shares_memory(t.numpy(), a)
    for name in ("float16", "float32", "int8", "int16", "int32", "int64", "uint8", "bool", "complex64", "complex128"):
        assert torch.from_numpy(np.zeros(2, dtype=name)).dtype == getattr(torch, name), (
            f"torch.from_numpy({name} array) should give torch.{name}")
    for unsupported in (np.array(["a", "b"]), np.array([None, 1], dtype=object)):
        with pytest.raises(TypeError):
            torch.from_numpy(unsupported)
    with pytest.raises(ValueError, match="negative"):
        torch.from_numpy(np.arange(4.0)[::-1])
    with pytest.raises(ValueError, match="byte order"):
        torch.from_numpy(np.zeros(2, dtype=">f8" if np.little_endian else "<f8"))
    with pytest.raises(RuntimeError):
        torch.nn.Linear(5, 2)(t.unsqueeze(0))  # float64 input, float32 weights: another error, later


@pytest.mark.claim("tensors.from-numpy-float64-raises", as_written=True)
def test_as_written_from_numpy_rejects_float64():
    """Material: from_numpy(float64 array) raises; astype(np.float32) first.
    True: it works and yields torch.float64."""
    with pytest.raises((TypeError, RuntimeError)):
        torch.from_numpy(np.zeros(3, dtype=np.float64))


@pytest.mark.claim("tensors.as-tensor-shares")
def test_as_tensor_shares_only_when_no_conversion_is_needed():
    """Material: as_tensor shares ndarrays and tensors, copies lists.
    True: shares when dtype and device already match; copies otherwise and for lists."""
    a = np.arange(3.0)
    assert np.shares_memory(torch.as_tensor(a).numpy(), a), "as_tensor(float64 array) should share"
    ints = np.arange(3, dtype=np.int32)
    shared = torch.as_tensor(ints)
    assert shared.dtype == torch.int32 and np.shares_memory(shared.numpy(), ints), (
        f"as_tensor(int32 array) gave {shared.dtype}, shared={np.shares_memory(shared.numpy(), ints)}, "
        "but should keep int32 and share")
    t = torch.arange(3.0)
    assert torch.as_tensor(t) is t, "as_tensor(tensor) should return the tensor itself"
    converted = torch.as_tensor(a, dtype=torch.float32)
    assert not np.shares_memory(converted.numpy(), a), (
        "as_tensor(float64 array, dtype=float32) shares memory, but a dtype change must copy")
    data = [1.0, 2.0]
    from_list = torch.as_tensor(data)
    data[0] = 9.0
    assert from_list[0].item() == 1.0, "as_tensor(list) should copy the list's values"


@pytest.mark.claim("tensors.empty-uninitialized")
def test_empty_is_treated_as_uninitialized_memory():
    """Material: empty allocates without initializing; fill it with copy_().
    True: contents unspecified (deterministic mode fills NaN); copy_ sets every element."""
    e = torch.empty(2, 3)
    assert (tuple(e.shape), e.dtype) == ((2, 3), torch.float32)
    e.copy_(torch.ones(2, 3))
    torch.testing.assert_close(e, torch.ones(2, 3))


@pytest.mark.slow  # the first use_deterministic_algorithms(True) costs seconds
@pytest.mark.claim("tensors.empty-uninitialized")
def test_deterministic_mode_fills_empty_with_nan():
    """Material: empty does not initialize its memory.
    True: torch treats it as uninitialized: deterministic mode fills it with NaN."""
    before = torch.are_deterministic_algorithms_enabled()
    try:
        torch.use_deterministic_algorithms(True)
        poisoned = torch.empty(4)
    finally:
        torch.use_deterministic_algorithms(before)
    if torch.utils.deterministic.fill_uninitialized_memory:
        assert torch.isnan(poisoned).all(), (
            f"torch.empty(4) in deterministic mode gave {poisoned}, but should be all NaN "
            "(torch marks empty's memory as uninitialized)")


@pytest.mark.claim("tensors.zeros-like-inherits")
def test_zeros_like_inherits_dtype_device_layout_but_not_requires_grad():
    """Material: zeros_like inherits device, dtype and requires_grad.
    True: shape, dtype, device, layout and memory format yes; requires_grad no."""
    x = torch.randn(2, 3, 4, 5, dtype=torch.float64, requires_grad=True)
    channels_last = x.detach().to(memory_format=torch.channels_last)
    z = torch.zeros_like(x)
    assert (z.shape, z.dtype, z.device, z.layout) == (x.shape, x.dtype, x.device, x.layout)
    assert bool((x != 0).all()) and int(z.count_nonzero()) == 0, (
        f"torch.zeros_like(x) has {int(z.count_nonzero())} non-zero values; x's values must not carry over")
    assert storage_ptr(z) != storage_ptr(x), "zeros_like(x) shares x's storage"
    assert not z.requires_grad, "torch.zeros_like(x requiring grad).requires_grad is True, but should be False"
    assert torch.zeros_like(x, requires_grad=True).requires_grad
    z_cl = torch.zeros_like(channels_last)
    assert z_cl.is_contiguous(memory_format=torch.channels_last), (
        "zeros_like should preserve the channels_last memory format")
    assert int(z_cl.count_nonzero()) == 0, "zeros_like(channels_last tensor) has non-zero values"


@pytest.mark.claim("tensors.zeros-like-inherits", as_written=True)
def test_as_written_zeros_like_inherits_requires_grad():
    """Material: zeros_like also inherits requires_grad.
    True: the result does not require grad."""
    x = torch.randn(3, requires_grad=True)
    assert torch.zeros_like(x).requires_grad


@pytest.mark.claim("tensors.arange-float-count")
@pytest.mark.parametrize("start, end, step, count", [
    (0, 10, 0.5, 20), (0, 1, 0.1, 10), (0, 1, 0.00001, 100000), (1, 2.5, 0.5, 3), (0, 10, 3, 4),
], ids=str)
def test_arange_has_ceil_of_range_over_step_elements(start, end, step, count):
    """Material: arange with a float step has floor((end-start)/step)+1 elements.
    True: ceil((end-start)/step) elements; the end is excluded."""
    t = torch.arange(start, end, step)
    assert t.numel() == count == math.ceil((end - start) / step), (
        f"torch.arange({start}, {end}, {step}).numel()={t.numel()}, but should be {count}")
    assert t[-1].item() < end, f"last element {t[-1].item()} should be below end={end}"


@pytest.mark.claim("tensors.arange-float-count")
def test_arange_rounding_can_let_the_end_in():
    """Material: with a float step the sequence is not exact.
    True: (1.3 - 1) / 0.1 rounds to just above 3, so arange(1, 1.3, 0.1) has 4 elements, 1.3 included."""
    t = torch.arange(1, 1.3, 0.1)
    assert t.numel() == 4 == math.ceil((1.3 - 1) / 0.1), (
        f"torch.arange(1, 1.3, 0.1) has {t.numel()} elements {t.tolist()}, but rounding should make it 4")
    assert t[-1].item() == pytest.approx(1.3), f"its last element {t[-1].item()} should be 1.3, the end itself"
    assert torch.arange(1, 1.3 - 1e-6, 0.1).numel() == 3, "subtracting an epsilon from end should give 3 elements"


@pytest.mark.claim("tensors.arange-float-count")
def test_arange_float_values_follow_start_plus_i_step():
    """Material: the float sequence is not an exact arithmetic progression.
    True: values are start + i*step rounded to float32 (exact for step 0.5)."""
    t = torch.arange(0, 10, 0.5)
    torch.testing.assert_close(t, torch.tensor([i * 0.5 for i in range(20)]), rtol=0, atol=0)


@pytest.mark.claim("tensors.arange-float-count", as_written=True)
def test_as_written_arange_has_floor_plus_one_elements():
    """Material: arange(0, 10, 0.5) has floor(10 / 0.5) + 1 = 21 elements.
    True: it has 20."""
    assert torch.arange(0, 10, 0.5).numel() == math.floor((10 - 0) / 0.5) + 1


@pytest.mark.claim("tensors.linspace-includes-endpoints")
def test_linspace_includes_both_endpoints_exactly():
    """Material: linspace(0, 1, 10) contains both end points exactly.
    True: first 0.0, last 1.0, 10 evenly spaced values."""
    t = torch.linspace(0, 1, 10)
    assert t.numel() == 10 and t[0].item() == 0.0 and t[-1].item() == 1.0, (
        f"torch.linspace(0, 1, 10) = {t}, but should start at 0.0 and end at 1.0 with 10 values")
    torch.testing.assert_close(t.diff(), torch.full((9,), 1 / 9))


@pytest.mark.claim("tensors.linspace-uses-arange")
def test_linspace_is_its_own_operator_not_arange():
    """Material: linspace is implemented with arange.
    True: it dispatches to aten.linspace alone, never to aten.arange."""
    ops = aten_ops(lambda: torch.linspace(0, 1, 10))
    assert ops == ["aten.linspace.default"], f"torch.linspace dispatched {ops}, but should be one aten.linspace"
    assert any("arange" in op for op in aten_ops(lambda: torch.arange(0, 1, 0.1))), (
        "the recorder should see aten.arange when arange itself is called")


@pytest.mark.claim("tensors.linspace-uses-arange", as_written=True)
def test_as_written_linspace_goes_through_arange():
    """Material: linspace internally uses arange.
    True: no arange appears when it is traced."""
    assert any("arange" in op for op in aten_ops(lambda: torch.linspace(0, 1, 10)))


@pytest.mark.claim("tensors.linspace-less-memory")
def test_linspace_and_arange_of_100000_points_use_the_same_memory():
    """Material: linspace(0, 1, 100000) saves memory over arange(0, 1, 0.00001).
    True: both are 100000 float32 values, 400000 bytes."""
    lin = torch.linspace(0, 1, 100000)
    ar = torch.arange(0, 1, 0.00001)
    sizes = {name: (t.numel(), t.dtype, storage_nbytes(t)) for name, t in
             (("linspace", lin), ("arange", ar))}
    assert sizes["linspace"] == sizes["arange"] == (100000, torch.float32, 400000), (
        f"(numel, dtype, storage bytes) = {sizes}, but both should be (100000, float32, 400000)")


@pytest.mark.claim("tensors.linspace-less-memory", as_written=True)
def test_as_written_linspace_needs_less_memory_than_arange():
    """Material: linspace(0, 1, 100000) uses less memory than arange(0, 1, 0.00001).
    True: equal storage sizes."""
    linspace_bytes = storage_nbytes(torch.linspace(0, 1, 100000))
    arange_bytes = storage_nbytes(torch.arange(0, 1, 0.00001))
    assert linspace_bytes < arange_bytes


@pytest.mark.claim("tensors.uint8-input-error")
def test_uint8_image_into_a_float_conv_raises_runtime_error():
    """Material: a uint8 image into a CNN raises 'expected scalar type Float but found Byte'.
    True: RuntimeError, today worded 'Input type (unsigned char) and bias type (float)...'."""
    image = np.zeros((8, 8, 3), dtype=np.uint8)  # HWC, as OpenCV returns it
    batch = torch.from_numpy(image).permute(2, 0, 1).unsqueeze(0)
    conv = torch.nn.Conv2d(3, 4, 3)
    with pytest.raises(RuntimeError, match=r"Input type \(unsigned char\) and bias type \(float\) should be the same"):
        conv(batch)
    assert conv(batch.float()).shape == (1, 4, 6, 6)
    with pytest.raises(RuntimeError, match="channels"):
        conv(torch.from_numpy(image).unsqueeze(0).float())  # HWC as it comes, without permute(2, 0, 1)


@pytest.mark.claim("tensors.uint8-input-error", as_written=True)
def test_as_written_uint8_error_message_is_expected_scalar_type():
    """Material: the error reads 'expected scalar type Float but found Byte'.
    True: current torch words it differently."""
    batch = torch.zeros(1, 3, 8, 8, dtype=torch.uint8)
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Byte"):
        torch.nn.Conv2d(3, 4, 3)(batch)


@pytest.mark.claim("tensors.float-copies-to-does-not")
@pytest.mark.parametrize("convert", [lambda t: t.float(), lambda t: t.to(torch.float32)],
                         ids=["float()", "to(float32)"])
def test_float_and_to_float32_copy_exactly_when_the_dtype_changes(convert):
    """Material: .float() copies while .to(torch.float32) is zero-copy.
    True: both copy from uint8 and both return self for a float32 tensor."""
    image = torch.from_numpy(np.full((2, 2, 3), 7, dtype=np.uint8))
    converted = convert(image)
    assert converted.dtype == torch.float32
    assert storage_ptr(converted) != storage_ptr(image), "a uint8 -> float32 conversion cannot share storage"
    already = torch.ones(3)
    assert convert(already) is already, "converting a float32 tensor to float32 should return it unchanged"


@pytest.mark.claim("tensors.float-copies-to-does-not")
def test_to_with_copy_true_copies_even_without_a_change():
    """Material: .to(torch.float32) is zero-copy on the same device.
    True: it returns self when nothing changes, unless copy=True asks for a new tensor."""
    already = torch.ones(3)
    forced = already.to(torch.float32, copy=True)
    assert forced is not already and storage_ptr(forced) != storage_ptr(already), (
        "to(torch.float32, copy=True) on a float32 tensor returned shared storage, but should copy")


@pytest.mark.claim("tensors.float-copies-to-does-not", as_written=True)
def test_as_written_to_float32_does_not_copy_a_uint8_image():
    """Material: .to(torch.float32) is zero-copy on the same device.
    True: it copies, just like .float()."""
    image = torch.from_numpy(np.full((2, 2, 3), 7, dtype=np.uint8))
    assert image.to(torch.float32).data_ptr() == image.data_ptr()


@pytest.mark.gpu
@pytest.mark.claim("tensors.as-tensor-shares")
@pytest.mark.claim("tensors.float-copies-to-does-not")
def test_as_tensor_and_to_copy_when_the_device_changes():
    """Material: as_tensor shares an ndarray; to() on the same device does not copy.
    True: moving to CUDA always copies; to() returns self only when nothing changes."""
    a = np.arange(3.0)
    on_gpu = torch.as_tensor(a, device="cuda")
    assert on_gpu.device.type == "cuda"
    a[0] = 42.0
    assert on_gpu[0].item() == 0.0, "as_tensor(ndarray, device='cuda') should hold a copy"
    assert on_gpu.to("cuda") is on_gpu and on_gpu.to(torch.float64) is on_gpu, (
        "to() with the tensor's own device and dtype should return the tensor itself")
    assert on_gpu.to(torch.float32).data_ptr() != on_gpu.data_ptr()
