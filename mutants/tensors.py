"""Planted faults for the tensors topic: each must turn the specs of its claims red.

Torch faults patch the Python-visible Tensor/torch API (C++ callers are unaffected, which
is fine: the specs call through Python).  Reference faults patch reference_impl modules
the way a learner's wrong workbook would look.
"""
import math

import torch

from torchclaims.impl import Impl
from torchclaims.mutants import fault


def _copying(method):
    """Wrap a Tensor method so it runs on a private clone: same values, no aliasing."""
    def wrapper(self, *args, **kwargs):
        return method(self.clone(), *args, **kwargs)
    wrapper.__name__ = method.__name__
    return wrapper


@fault("tensors.view-changes-only-metadata", "tensors.view-needs-contiguous",
       "tensors.three-layer-structure", "tensors.layout-decides-zero-copy")
def view_copies():
    """Tensor.view returns a copy instead of a view over the same storage."""
    torch.Tensor.view = _copying(torch.Tensor.view)


@fault("tensors.transposed-view-raises", "tensors.channel-shuffle-view-or-reshape",
       "tensors.flatten-keeps-batch")
def view_never_raises():
    """Tensor.view silently falls back to reshape when strides do not allow a view."""
    original = torch.Tensor.view

    def view(self, *shape):
        try:
            return original(self, *shape)
        except RuntimeError:
            return self.reshape(*shape)
    torch.Tensor.view = view


@fault("tensors.t-example-strides", "tensors.t-same-data-ptr", "tensors.t-write-aliases",
       "tensors.transpose-always-view")
def transpose_copies():
    """t()/transpose()/torch.transpose return contiguous copies instead of views."""
    for name in ("t", "transpose"):
        original = getattr(torch.Tensor, name)
        setattr(torch.Tensor, name, lambda self, *a, _o=original: _o(self, *a).contiguous())
    original_fn = torch.transpose
    torch.transpose = lambda t, d0, d1: original_fn(t, d0, d1).contiguous()


@fault("tensors.permute-reorders-dims", "data.denormalize-inverts")
def permute_copies():
    """Tensor.permute materializes the permuted layout instead of reordering strides."""
    original = torch.Tensor.permute
    torch.Tensor.permute = lambda self, *dims: original(self, *dims).contiguous()


@fault("tensors.reshape-copies-when-needed", "tensors.layout-decides-zero-copy")
def reshape_always_copies():
    """Tensor.reshape copies even when a view would do."""
    torch.Tensor.reshape = _copying(torch.Tensor.reshape)


@fault("tensors.contiguous-makes-copy")
def contiguous_always_copies():
    """Tensor.contiguous copies even an already contiguous tensor."""
    original = torch.Tensor.contiguous
    torch.Tensor.contiguous = lambda self, *a, **k: original(self, *a, **k).clone()


@fault("tensors.from-numpy-shares", "tensors.from-numpy-float64-raises",
       "tensors.tensor-ndarray-layout")
def from_numpy_copies():
    """torch.from_numpy copies the array instead of wrapping its buffer."""
    original = torch.from_numpy
    torch.from_numpy = lambda a: original(a.copy())


@fault("tensors.tensor-always-copies")
def tensor_shares_arrays():
    """torch.tensor shares an ndarray's memory like as_tensor does."""
    original = torch.tensor

    def tensor(data, *args, **kwargs):
        if hasattr(data, "__array_interface__") and not args and not kwargs:
            return torch.as_tensor(data)
        return original(data, *args, **kwargs)
    torch.tensor = tensor


@fault("tensors.zeros-like-inherits")
def zeros_like_copies_requires_grad():
    """torch.zeros_like inherits requires_grad from its template, as the material believes."""
    original = torch.zeros_like

    def zeros_like(t, *args, **kwargs):
        kwargs.setdefault("requires_grad", t.requires_grad)
        return original(t, *args, **kwargs)
    torch.zeros_like = zeros_like


@fault("tensors.arange-float-count")
def arange_floor_plus_one():
    """torch.arange returns floor((end - start) / step) + 1 elements (the material's formula)."""
    original = torch.arange

    def arange(start, end=None, step=1, **kwargs):
        if end is None:
            return original(start, **kwargs)
        count = math.floor((end - start) / step) + 1
        return original(start, start + count * step - step / 2, step, **kwargs)
    torch.arange = arange


@fault("tensors.float-copies-to-does-not")
def float_conversion_returns_copy_always():
    """Tensor.float copies even a tensor that already is float32."""
    original = torch.Tensor.float
    torch.Tensor.float = lambda self, *a, **k: original(self, *a, **k).clone()


@fault("tensors.broadcast-stride-zero", "tensors.broadcast-example")
def expand_materializes():
    """Tensor.expand copies the data out instead of using stride 0."""
    original = torch.Tensor.expand
    torch.Tensor.expand = lambda self, *sizes, **k: original(self, *sizes, **k).contiguous()


# --- faults in the reference helpers ----------------------------------------------------


@fault("tensors.broadcast-rule")
def broadcast_aligns_left():
    """broadcast_shapes aligns shapes at their first dimension instead of their last."""
    mod = Impl().broadcasting
    right_aligned = mod.broadcast_shapes

    def broadcast_shapes(*shapes):
        shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
        ndim = max((len(s) for s in shapes), default=0)
        return right_aligned(*[s + (1,) * (ndim - len(s)) for s in shapes])
    mod.broadcast_shapes = broadcast_shapes


@fault("tensors.broadcast-stride-zero")
def broadcast_keeps_strides():
    """broadcast_strides keeps a stretched dimension's own stride instead of 0."""
    mod = Impl().broadcasting
    original = mod.broadcast_strides

    def broadcast_strides(shape, strides, target_shape):
        out = list(original(shape, strides, target_shape))
        lead = len(target_shape) - len(shape)
        for d, stride in enumerate(strides):
            out[lead + d] = stride
        return tuple(out)
    mod.broadcast_strides = broadcast_strides


@fault("tensors.layout-decides-zero-copy", "tensors.view-needs-contiguous")
def view_strides_needs_contiguous():
    """view_strides refuses every non-contiguous layout (the material's rule for view)."""
    mod = Impl().strides
    original = mod.view_strides

    def view_strides(shape, strides, new_shape):
        if not mod.is_contiguous(shape, strides):
            if math.prod(shape) != math.prod(new_shape):
                raise ValueError("element counts differ")
            return None
        return original(shape, strides, new_shape)
    mod.view_strides = view_strides


@fault("tensors.contiguous-makes-copy")
def contiguous_strides_ignore_zero_sizes():
    """contiguous_strides multiplies by a zero size, giving stride 0 before an empty dim."""
    mod = Impl().strides

    def contiguous_strides(shape):
        out, step = [], 1
        for size in reversed(tuple(shape)):
            out.append(step)
            step *= size
        return tuple(reversed(out))
    mod.contiguous_strides = contiguous_strides
