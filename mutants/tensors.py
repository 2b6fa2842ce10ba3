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
       "tensors.tensor-ndarray-layout", "tensors.data-ptr-proves-sharing")
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


@fault("tensors.zeros-like-inherits")
def zeros_like_channels_last_ones():
    """torch.zeros_like of a channels_last tensor returns ones: right shape, dtype and layout, wrong values."""
    original = torch.zeros_like

    def zeros_like(t, *args, **kwargs):
        out = original(t, *args, **kwargs)
        if t.dim() == 4 and t.is_contiguous(memory_format=torch.channels_last) and not t.is_contiguous():
            with torch.no_grad():
                out.fill_(1)
        return out
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


@fault("tensors.broadcast-stride-zero")
def expand_materializes():
    """Tensor.expand copies the data out instead of using stride 0."""
    original = torch.Tensor.expand
    torch.Tensor.expand = lambda self, *sizes, **k: original(self, *sizes, **k).contiguous()


@fault("tensors.broadcast-example")
def tensor_add_aligns_left():
    """Tensor + Tensor pads the shorter shape with 1s on the right: (3, 1) + (4,) becomes (3, 1) + (4, 1) and raises."""
    original = torch.Tensor.__add__

    def add(self, other):
        if isinstance(other, torch.Tensor) and other.dim() != self.dim():
            short, ndim = (other, self.dim()) if other.dim() < self.dim() else (self, other.dim())
            padded = short.reshape(*short.shape, *([1] * (ndim - short.dim())))
            return original(self, padded) if short is other else original(padded, other)
        return original(self, other)
    torch.Tensor.__add__ = add


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


# --- creation: values and defaults, not only types -------------------------------------


@fault("tensors.as-tensor-shares")
def as_tensor_always_copies():
    """torch.as_tensor copies every ndarray and tensor, as torch.tensor does."""
    tensor = torch.tensor

    def as_tensor(data, dtype=None, device=None):
        if isinstance(data, torch.Tensor):
            return data.detach().clone().to(dtype=dtype, device=device)
        return tensor(data, dtype=dtype, device=device)
    torch.as_tensor = as_tensor


@fault("tensors.empty-uninitialized", "tensors.empty-faster-than-zeros")
def empty_zero_fills():
    """torch.empty zero-fills like torch.zeros: memory that is never uninitialized, even in deterministic mode."""
    torch.empty = torch.zeros


@fault("tensors.linspace-includes-endpoints")
def linspace_excludes_end():
    """torch.linspace(start, end, n) stops one step short of end (NumPy's endpoint=False)."""
    original = torch.linspace

    def linspace(start, end, steps, **kwargs):
        step = (end - start) / steps
        return original(start, end - step, steps, **kwargs)
    torch.linspace = linspace


@fault("tensors.linspace-uses-arange")
def linspace_built_on_arange():
    """torch.linspace is arange(steps) * step + start (the material's picture): same values, other operators."""
    arange = torch.arange

    def linspace(start, end, steps, *, dtype=None, **kwargs):
        step = (end - start) / (steps - 1) if steps > 1 else 0.0
        return (arange(steps, **kwargs) * step + start).to(dtype or torch.get_default_dtype())
    torch.linspace = linspace


@fault("tensors.linspace-less-memory")
def arange_float_step_is_float64():
    """torch.arange with a float argument returns float64, as np.arange does (8 bytes an element)."""
    original = torch.arange

    def arange(*args, dtype=None, **kwargs):
        if dtype is None and any(isinstance(a, float) for a in args):
            dtype = torch.float64
        return original(*args, dtype=dtype, **kwargs)
    torch.arange = arange


@fault("tensors.tensor-vs-tensor-class")
def tensor_factory_uses_default_dtype():
    """torch.tensor turns integer data into the default float dtype, as the torch.Tensor class does."""
    original = torch.tensor

    def tensor(data, *args, dtype=None, **kwargs):
        out = original(data, *args, dtype=dtype, **kwargs)
        if dtype is None and not (out.is_floating_point() or out.is_complex() or out.dtype == torch.bool):
            out = out.to(torch.get_default_dtype())
        return out
    torch.tensor = tensor


@fault("tensors.uint8-input-error")
def conv_casts_input_to_weight_dtype():
    """nn.Conv2d silently casts its input to the weight's dtype: a uint8 image no longer raises."""
    original = torch.nn.Conv2d.forward

    def forward(self, input):
        return original(self, input.to(self.weight.dtype))
    torch.nn.Conv2d.forward = forward


@fault("tensors.tensor-adds-device-requires-grad")
def numpy_detaches_silently():
    """Tensor.numpy() detaches a tensor that requires grad instead of refusing it."""
    original = torch.Tensor.numpy
    torch.Tensor.numpy = lambda self, *a, **k: original(self.detach(), *a, **k)


# --- layout: .data, data_ptr, indexing, attention --------------------------------------


@fault("tensors.data-attr-contiguous")
def data_attr_is_contiguous_copy():
    """Tensor.data returns a contiguous copy of the values (the material's 'memory block') instead of an alias."""
    descriptor = torch._C.TensorBase.__dict__["data"]
    torch.Tensor.data = property(lambda self: descriptor.__get__(self).contiguous().clone(),
                                 lambda self, value: descriptor.__set__(self, value))


@fault("tensors.data-ptr-proves-sharing")
def data_ptr_ignores_offset():
    """Tensor.data_ptr returns the storage's base address, ignoring the view's storage offset."""
    torch.Tensor.data_ptr = lambda self: self.untyped_storage().data_ptr()


@fault("tensors.indexing-matches-numpy")
def negative_slice_step_flips():
    """Tensor indexing accepts a negative slice step and flips the tensor, as NumPy does."""
    original = torch.Tensor.__getitem__

    def getitem(self, index):
        if isinstance(index, slice) and index.step is not None and index.step < 0:
            return original(self.flip(0), slice(None, None, -index.step))
        return original(self, index)
    torch.Tensor.__getitem__ = getitem


@fault("tensors.mha-needs-contiguous")
def attention_reads_raw_storage():
    """nn.MultiheadAttention reads a non-contiguous input's memory as if it were row-major: same shape, wrong values."""
    original = torch.nn.MultiheadAttention.forward

    def as_row_major(t):
        if isinstance(t, torch.Tensor) and not t.is_contiguous():
            strides, step = [], 1
            for size in reversed(t.shape):
                strides.insert(0, step)
                step *= size
            return t.as_strided(t.shape, strides, t.storage_offset())
        return t

    def forward(self, query, key, value, *args, **kwargs):
        return original(self, as_row_major(query), as_row_major(key), as_row_major(value), *args, **kwargs)
    torch.nn.MultiheadAttention.forward = forward


# --- broadcasting traps ------------------------------------------------------------------


@fault("tensors.broadcast-n-vs-n1")
def mse_loss_silent_broadcast():
    """F.mse_loss no longer warns when the target's size differs from the input's: the (N, N) trap is silent."""
    import warnings

    import torch.nn.functional as F
    original = F.mse_loss

    def mse_loss(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*target size")
            return original(*args, **kwargs)
    F.mse_loss = mse_loss


@fault("tensors.broadcast-fix-explicit-shape")
def squeeze_dim_ignored():
    """Tensor.squeeze(dim) leaves a size-1 dim in place (only a bare squeeze() squeezes)."""
    original = torch.Tensor.squeeze
    torch.Tensor.squeeze = lambda self, *dims: self if dims else original(self)


# --- NumPy: ndarray is a C type, so these reach it through the arrays NumPy's factories return


def _ndarray_factory(factory, cls):
    def make(*args, **kwargs):
        return factory(*args, **kwargs).view(cls)
    return make


@fault("tensors.ndarray-strides-example")
def np_arange_defaults_to_float64():
    """np.arange of integers returns float64 (the material's belief): the 8-byte strides stay, the items change."""
    import numpy as np
    original = np.arange

    def arange(*args, dtype=None, **kwargs):
        return original(*args, dtype=dtype or np.float64, **kwargs)
    np.arange = arange


@fault("tensors.ndarray-transpose-no-copy")
def ndarray_transpose_copies():
    """ndarray.T (of arrays made by np.arange) returns a C-contiguous copy instead of swapping strides."""
    import numpy as np

    class CopyingT(np.ndarray):
        @property
        def T(self):
            return np.ascontiguousarray(np.asarray(self).T).view(CopyingT)
    np.arange = _ndarray_factory(np.arange, CopyingT)


@fault("tensors.ndarray-anatomy")
def ndarray_step_slices_copy():
    """Slicing an ndarray (made by np.arange) with a step copies into a contiguous array instead of a strided view."""
    import numpy as np

    class CopyingSlices(np.ndarray):
        def __getitem__(self, index):
            out = np.ndarray.__getitem__(self, index)
            steps = index if isinstance(index, tuple) else (index,)
            if any(isinstance(s, slice) and s.step not in (None, 1) for s in steps):
                return np.ascontiguousarray(out)
            return out
    np.arange = _ndarray_factory(np.arange, CopyingSlices)


@fault("tensors.ndarray-vs-list-memory")
def np_array_stores_references():
    """np.array of a list of Python ints stores references to the int objects (dtype=object), as the list does."""
    import numpy as np
    original = np.array

    def array(obj, *args, dtype=None, **kwargs):
        if (isinstance(obj, list) and obj and all(type(v) is int for v in obj)
                and dtype in (None, int, np.int64)):
            dtype = object
        return original(obj, *args, dtype=dtype, **kwargs)
    np.array = array


# --- audited clauses: the ways a generalising truth could fail -----------------------------


@fault("tensors.from-numpy-float64-raises")
def from_numpy_accepts_any_layout():
    """torch.from_numpy quietly copies arrays with negative strides or a foreign byte order instead of refusing them."""
    import numpy as np
    original = torch.from_numpy

    def from_numpy(a):
        if any(s < 0 for s in a.strides) or not a.dtype.isnative:
            a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))
        return original(a)
    torch.from_numpy = from_numpy


@fault("tensors.arange-float-count")
def arange_rounds_the_count():
    """torch.arange rounds (end - start) / step before taking the ceiling, so float error never lets end in."""
    original = torch.arange

    def arange(start, end=None, step=1, **kwargs):
        if end is None:
            return original(start, **kwargs)
        count = math.ceil(round((end - start) / step, 9))
        return original(start, start + (count - 0.5) * step, step, **kwargs)
    torch.arange = arange


@fault("tensors.float-copies-to-does-not")
def to_ignores_copy_true():
    """Tensor.to drops copy=True and returns the tensor itself when nothing changes."""
    original = torch.Tensor.to

    def to(self, *args, copy=False, **kwargs):
        return original(self, *args, **kwargs)
    torch.Tensor.to = to


@fault("tensors.mha-needs-contiguous")
def attention_defaults_to_batch_first():
    """nn.MultiheadAttention defaults to batch_first=True: dim 1 of its input is no longer the batch."""
    original = torch.nn.MultiheadAttention.__init__

    def __init__(self, *args, batch_first=True, **kwargs):
        original(self, *args, batch_first=batch_first, **kwargs)
    torch.nn.MultiheadAttention.__init__ = __init__


@fault("tensors.indexing-matches-numpy")
def creation_defaults_to_float64():
    """torch's creation functions follow NumPy's float64 default when no dtype is given."""
    for name in ("zeros", "ones", "full", "eye", "arange", "linspace"):
        original = getattr(torch, name)

        def made(*args, _original=original, **kwargs):
            out = _original(*args, **kwargs)
            return out.double() if out.is_floating_point() and "dtype" not in kwargs else out
        setattr(torch, name, made)


# --- found in tutorials (issue #41) ----------------------------------------------------------


@fault("tensors.underscore-methods-in-place")
def add_underscore_returns_a_new_tensor():
    """Tensor.add_ computes out of place: it returns a new tensor and leaves self unchanged."""
    torch.Tensor.add_ = lambda self, other, *, alpha=1: self.add(other, alpha=alpha)


@fault("tensors.unsqueeze-inserts-size-one-view")
def unsqueeze_copies():
    """Tensor.unsqueeze returns a copy with the new dimension instead of a view."""
    torch.Tensor.unsqueeze = _copying(torch.Tensor.unsqueeze)


@fault("tensors.squeeze-drops-size-one-dims", "tensors.squeeze-default-dim-zero")
def squeeze_defaults_to_dim_zero():
    """Tensor.squeeze() without a dim squeezes dim 0 only, as one tutorial says."""
    original = torch.Tensor.squeeze

    def squeeze(self, *args, **kwargs):
        if not args and not kwargs:
            return original(self, 0)
        return original(self, *args, **kwargs)
    torch.Tensor.squeeze = squeeze


@fault("tensors.cat-vs-stack")
def stack_is_cat():
    """torch.stack joins along an existing dimension like torch.cat instead of adding one."""
    original_cat = torch.cat
    torch.stack = lambda tensors, dim=0, **kwargs: original_cat(tensors, dim, **kwargs)


@fault("tensors.expand-is-a-view")
def expand_copies():
    """Tensor.expand materializes its result in new memory, like repeat."""
    original = torch.Tensor.expand
    torch.Tensor.expand = lambda self, *sizes, **kwargs: original(self, *sizes, **kwargs).clone()


@fault("tensors.repeat-copies")
def repeat_returns_expanded_view():
    """Tensor.repeat returns a stride-0 view when every repeated dim has size 1, instead of copying."""
    original = torch.Tensor.repeat

    def repeat(self, *counts):
        if len(counts) == 1 and isinstance(counts[0], (tuple, list, torch.Size)):
            counts = tuple(counts[0])
        lead = len(counts) - self.dim()
        base = self.reshape((1,) * lead + tuple(self.shape))
        if all(c == 1 or s == 1 for c, s in zip(counts, base.shape)):
            return base.expand(*[c * s for c, s in zip(counts, base.shape)])
        return original(self, *counts)
    torch.Tensor.repeat = repeat


@fault("tensors.numpy-requires-grad-needs-detach")
def numpy_ignores_requires_grad():
    """Tensor.numpy() converts a tensor that requires grad without complaint."""
    original = torch.Tensor.numpy
    torch.Tensor.numpy = lambda self, *, force=False: original(self.detach(), force=force)


@fault("tensors.rand-unit-interval")
def rand_reaches_one():
    """torch.rand rescales its draws so that the largest is exactly 1: a closed [0, 1]."""
    original = torch.rand

    def rand(*args, **kwargs):
        out = original(*args, **kwargs)
        return out / out.max()
    torch.rand = rand


@fault("tensors.arange-excludes-end")
def arange_includes_end():
    """torch.arange(start, end, step) goes one step further, so end itself is included."""
    original = torch.arange

    def arange(start, end=None, step=1, **kwargs):
        if end is None:
            return original(start + step, **kwargs)
        return original(start, end + step, step, **kwargs)
    torch.arange = arange


@fault("tensors.default-dtypes-vs-numpy")
def tensor_floats_default_to_float64():
    """torch.tensor infers float64 from Python floats, like NumPy."""
    original = torch.tensor

    def tensor(data, *args, **kwargs):
        out = original(data, *args, **kwargs)
        if out.is_floating_point() and "dtype" not in kwargs and isinstance(data, (list, tuple, float)):
            return out.double()
        return out
    torch.tensor = tensor


@fault("tensors.ops-keep-dtype")
def add_keeps_left_dtype():
    """Tensor + other casts the result back to the left operand's dtype: no type promotion."""
    original = torch.Tensor.__add__
    torch.Tensor.__add__ = lambda self, other: original(self, other).to(self.dtype)


@fault("tensors.item-python-scalar")
def item_returns_tensor():
    """Tensor.item() returns the one-element tensor itself, reshaped to 0-dim, instead of a Python number."""
    original = torch.Tensor.reshape

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return original(self, ())
    torch.Tensor.item = item


@fault("tensors.int-index-drops-dim")
def int_index_keeps_dim():
    """An integer index on the first dimension acts like the slice i:i+1 and keeps the dimension."""
    original = torch.Tensor.__getitem__

    def getitem(self, index):
        if isinstance(index, int):
            index = slice(index, index + 1 if index != -1 else None)
        elif isinstance(index, tuple) and index and isinstance(index[0], int):
            first = index[0]
            index = (slice(first, first + 1 if first != -1 else None),) + index[1:]
        return original(self, index)
    torch.Tensor.__getitem__ = getitem


@fault("tensors.reduction-dim-keepdim")
def sum_ignores_keepdim():
    """Tensor.sum drops the reduced dimension even when keepdim=True."""
    original = torch.Tensor.sum

    def sum_(self, *args, keepdim=False, **kwargs):
        return original(self, *args, **kwargs)
    torch.Tensor.sum = sum_


@fault("tensors.view-minus-one-infers")
def view_accepts_several_minus_ones():
    """Tensor.view quietly reads every -1 after the first as 1 instead of refusing two unknown sizes."""
    original = torch.Tensor.view

    def view(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list, torch.Size)):
            shape = tuple(shape[0])
        if all(isinstance(s, int) for s in shape) and shape.count(-1) > 1:
            first = shape.index(-1)
            shape = tuple(s if s != -1 or i == first else 1 for i, s in enumerate(shape))
        return original(self, *shape)
    torch.Tensor.view = view


@fault("tensors.broadcast-zero-dim-excluded")
def zero_dim_refuses_broadcast():
    """Tensor + a 0-dim tensor raises when the other operand has dimensions, as one tutorial says."""
    original = torch.Tensor.__add__

    def add(self, other):
        if isinstance(other, torch.Tensor) and (other.dim() == 0) != (self.dim() == 0):
            raise RuntimeError("0-dim tensors cannot be broadcast")
        return original(self, other)
    torch.Tensor.__add__ = add


@fault("tensors.size-varargs-or-tuple")
def ones_misreads_a_size_tuple():
    """torch.ones reads a size tuple as a 1-D length (its number of entries) instead of as the shape."""
    original = torch.ones

    def ones(*size, **kwargs):
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            return original(len(size[0]), **kwargs)
        return original(*size, **kwargs)
    torch.ones = ones


@fault("tensors.size-method-equals-shape")
def size_returns_a_list():
    """Tensor.size() returns a plain list of the sizes instead of the torch.Size that .shape holds."""
    original = torch.Tensor.size

    def size(self, dim=None):
        return list(original(self)) if dim is None else original(self, dim)
    torch.Tensor.size = size


@fault("tensors.chunk-split-sizes")
def chunk_balances_like_tensor_split():
    """torch.chunk spreads the elements evenly over exactly n pieces, as tensor_split does."""
    torch.chunk = torch.tensor_split
    torch.Tensor.chunk = torch.Tensor.tensor_split


@fault("tensors.from-numpy-rebinding")
def from_numpy_snapshots_the_array():
    """torch.from_numpy takes a snapshot of the array, so later in-place writes to it are lost."""
    original = torch.from_numpy
    torch.from_numpy = lambda a: original(a.copy())


@fault("tensors.tensor-class-rejects-dtype")
def tensor_factory_ignores_dtype():
    """torch.tensor ignores its dtype argument and always infers the dtype from the data."""
    original = torch.tensor

    def tensor(data, *args, dtype=None, **kwargs):
        return original(data, *args, **kwargs)
    torch.tensor = tensor


@fault("tensors.gather-index-shape")
def gather_squeezes_the_index_dim():
    """torch.gather drops a trailing size-1 dimension, so the result no longer has the index's shape."""
    original = torch.gather

    def gather(input, dim, index, **kwargs):
        return original(input, dim, index, **kwargs).squeeze(-1)
    torch.gather = gather
    torch.Tensor.gather = lambda self, dim, index, **kwargs: gather(self, dim, index, **kwargs)


@fault("tensors.scatter-one-hot")
def scatter_underscore_is_out_of_place():
    """Tensor.scatter_ returns a new tensor and leaves self unchanged."""
    original = torch.Tensor.scatter
    torch.Tensor.scatter_ = lambda self, *args, **kwargs: original(self, *args, **kwargs)


@fault("tensors.matmul-broadcasts-batch")
def matmul_refuses_batch_broadcast():
    """The @ operator insists on equal batch dimensions instead of broadcasting a batch of 1."""
    original = torch.Tensor.__matmul__

    def matmul(self, other):
        if self.dim() > 2 and other.dim() > 2 and self.shape[:-2] != other.shape[:-2]:
            raise RuntimeError("batch dimensions must match")
        return original(self, other)
    torch.Tensor.__matmul__ = matmul


@fault("tensors.creation-dtype-device-args")
def linspace_ignores_dtype():
    """torch.linspace drops its dtype argument and always returns the default float dtype."""
    original = torch.linspace

    def linspace(*args, dtype=None, **kwargs):
        return original(*args, **kwargs)
    torch.linspace = linspace


@fault("tensors.randn-standard-normal")
def randn_draws_uniform():
    """torch.randn draws uniformly on [-1, 1) instead of from the standard normal."""
    original_rand = torch.rand
    torch.randn = lambda *args, **kwargs: original_rand(*args, **kwargs) * 2 - 1


@fault("tensors.max-without-dim-no-indices")
def max_without_dim_returns_a_pair():
    """torch.max(t) without dim returns a (values, indices) pair over the flattened tensor, as one tutorial says."""
    original = torch.max

    def max_(input, *args, **kwargs):
        if not args and not kwargs:
            return original(input.flatten(), 0)
        return original(input, *args, **kwargs)
    torch.max = max_


@fault("tensors.argmax-flat-index-first-tie")
def argmax_picks_the_last_tie():
    """torch.argmax and Tensor.argmax return the last of equal maxima instead of the first."""
    original = torch.argmax

    def argmax(input, dim=None, keepdim=False):
        if dim is None:
            flat = input.flatten()
            return flat.numel() - 1 - original(flat.flip(0))
        return input.size(dim) - 1 - original(input.flip(dim), dim, keepdim)
    torch.argmax = argmax
    torch.Tensor.argmax = lambda self, dim=None, keepdim=False: argmax(self, dim, keepdim)
