"""Strides of a strided tensor, computed the way PyTorch does, in pure Python.

A strided tensor is a storage (a flat buffer), a storage offset, a shape and strides:
element ``[i0, i1, ...]`` lives at ``offset + i0*stride0 + i1*stride1 + ...`` of the
storage.  Strides count *elements* (NumPy's count bytes).  Reshaping without a copy is
possible exactly when the new shape can still be walked with strides over the same
buffer; ``view_strides`` decides that, following ATen's ``computeStride``
(aten/src/ATen/TensorUtils.cpp).
"""
from __future__ import annotations

import math
from collections.abc import Sequence


def _check_shape(shape: Sequence[int], what: str = "shape") -> tuple[int, ...]:
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"{what} {shape} has a negative size")
    return shape


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """Row-major (C order) strides, in elements, of a fresh tensor of ``shape``.

    The last dimension has stride 1 and each earlier one the product of the sizes after
    it; a size of 0 counts as 1 so strides stay positive, as ``torch.empty(shape).stride()``
    reports: ``contiguous_strides((2, 0, 3)) == (3, 3, 1)``.
    """
    shape = _check_shape(shape)
    strides = []
    step = 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def is_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """Whether ``shape``/``strides`` is C-contiguous by torch's rule (``Tensor.is_contiguous``).

    A tensor with no elements is contiguous; dimensions of size 1 are ignored whatever
    their stride; every other dimension must have the row-major stride.
    """
    shape = _check_shape(shape)
    strides = tuple(int(s) for s in strides)
    if len(shape) != len(strides):
        raise ValueError(f"shape {shape} and strides {strides} differ in length")
    if math.prod(shape) == 0:
        return True
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def view_strides(shape: Sequence[int], strides: Sequence[int],
                 new_shape: Sequence[int]) -> tuple[int, ...] | None:
    """The strides ``Tensor.view(new_shape)`` gives, or None when only a copy can reshape.

    ``new_shape`` is fully specified (no -1) and must hold as many elements as ``shape``
    (otherwise ValueError, its message containing the word "elements").  The old
    dimensions are split into chunks that are contiguous among themselves
    (``stride[d-1] == stride[d] * size[d]``, size-1 dimensions never break a chunk); a
    view exists when the new dimensions can be grouped, from the right, into runs whose
    element counts match those chunks one by one.  Zero-size tensors always have a view:
    the same strides if the shape is unchanged, else contiguous-like strides
    (NumPy's convention, which torch follows).
    """
    shape = _check_shape(shape)
    new_shape = _check_shape(new_shape, "new_shape")
    strides = tuple(int(s) for s in strides)
    if len(shape) != len(strides):
        raise ValueError(f"shape {shape} and strides {strides} differ in length")
    numel = math.prod(shape)
    if numel != math.prod(new_shape):
        raise ValueError(
            f"cannot view shape {shape} ({numel} elements) as {new_shape} "
            f"({math.prod(new_shape)} elements)")
    if not shape:  # a 0-dim tensor: every new dimension has size 1
        return (1,) * len(new_shape)
    if numel == 0:
        if shape == new_shape:
            return strides
        out = [0] * len(new_shape)
        for d in reversed(range(len(new_shape))):
            out[d] = 1 if d == len(new_shape) - 1 else max(new_shape[d + 1], 1) * out[d + 1]
        return tuple(out)

    out = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in reversed(range(len(shape))):
        tensor_numel *= shape[tensor_d]
        chunk_ends = tensor_d == 0 or (
            shape[tensor_d - 1] != 1
            and strides[tensor_d - 1] != tensor_numel * chunk_base_stride)
        if chunk_ends:
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                out[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(out)
