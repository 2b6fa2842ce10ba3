"""Tensors, broadcasting as a property: torch, NumPy and the reference helper agree on drawn shapes.

The material states the rule (align from the last dimension; equal sizes or a 1) and that
a broadcast dimension costs nothing because it has stride 0 (004 §2.2, §6).  Here the
rule is checked on shapes drawn by ``hypothesis.extra.numpy``, which derives them from
NumPy's own rule: the shape and the values of a broadcast operation agree across torch,
NumPy and ``reference_impl/broadcasting.py``; shapes that do not broadcast raise in all
three; ``expand`` of a tensor with any layout gives stride 0 exactly where it stretches.
"""
import functools
import operator

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

from hypothesis_helpers import (
    arrays,
    assert_close,
    assert_equal_tuple,
    assert_shares_storage,
    layouts,
    mutually_broadcastable,
    property_settings,
    reproduce,
    shapes,
)

pytestmark = pytest.mark.property


@pytest.fixture
def broadcasting(ref):
    """reference_impl/broadcasting.py (given to hypothesis as a module: an Impl answers
    hypothesis' attribute probes with ImplError instead of AttributeError)."""
    return ref.broadcasting


@pytest.mark.claim("tensors.broadcast-rule")
@property_settings()
@given(data=st.data())
def test_broadcast_shape_and_values_agree_with_numpy_and_the_reference(broadcasting, data):
    """Material: trailing alignment, sizes equal or 1, a size-1 dim acts repeated.
    True: for any mutually broadcastable shapes, torch, NumPy and the helper agree."""
    n = data.draw(st.integers(2, 3), label="number of operands")
    bs = data.draw(mutually_broadcastable(num_shapes=n, max_dims=4, min_side=0, max_numel=24),
                   label="shapes")
    operands = [data.draw(arrays(shape), label=f"operand {i}") for i, shape in enumerate(bs.input_shapes)]
    shapes_ = list(bs.input_shapes)
    code = "\n".join([*(f"x{i} = torch.from_numpy(np.array({a.tolist()!r}, dtype=np.float64).reshape({a.shape}))"
                        for i, a in enumerate(operands)),
                      f"torch.broadcast_shapes(*{shapes_}), (" + " + ".join(f"x{i}" for i in range(n)) + ").shape"])
    with reproduce(code):
        call = f"broadcast_shapes(*{shapes_})"
        assert_equal_tuple(torch.broadcast_shapes(*shapes_), bs.result_shape, "torch." + call, call)
        assert_equal_tuple(np.broadcast_shapes(*shapes_), bs.result_shape, "np." + call, call)
        assert_equal_tuple(broadcasting.broadcast_shapes(*shapes_), bs.result_shape, "ref." + call, call)

        total = functools.reduce(operator.add, [torch.from_numpy(a) for a in operands])
        expected = functools.reduce(operator.add, operands)
        assert_equal_tuple(total.shape, bs.result_shape, "(x0 + x1 + ...).shape", call)
        assert_close(total, torch.from_numpy(np.asarray(expected)), "x0 + x1 + ... against NumPy")
        for i, t in enumerate(torch.broadcast_tensors(*[torch.from_numpy(a) for a in operands])):
            assert_close(t, torch.from_numpy(np.broadcast_to(operands[i], bs.result_shape).copy()),
                         f"torch.broadcast_tensors(...)[{i}] against np.broadcast_to")


@st.composite
def clashing_shapes(draw):
    """Two shapes that broadcast except at one dimension, where both sizes differ and neither is 1."""
    a = list(draw(shapes(min_dims=1, max_dims=4, min_side=0, max_numel=10**6), label="first shape"))
    back = draw(st.integers(1, len(a)), label="clashing dimension, from the right")
    b = list(draw(hnp.broadcastable_shapes(tuple(a), min_dims=back, max_dims=4, min_side=0, max_side=3),
                  label="second shape"))
    p, q = draw(st.lists(st.sampled_from([0, 2, 3, 4]), min_size=2, max_size=2, unique=True),
                label="clashing sizes")
    a[-back], b[-back] = p, q
    if draw(st.booleans(), label="swap operands"):
        a, b = b, a
    return tuple(a), tuple(b)


@pytest.mark.claim("tensors.broadcast-rule")
@property_settings()
@given(data=st.data())
def test_shapes_that_clash_raise_in_torch_numpy_and_the_reference(broadcasting, data):
    """Material: other size pairs do not broadcast.
    True: torch raises RuntimeError, NumPy and the helper ValueError, for every clash."""
    a, b = data.draw(clashing_shapes(), label="shapes")
    with reproduce(f"torch.broadcast_shapes({a}, {b})  # should raise\n"
                   f"torch.empty({a}) + torch.empty({b})  # should raise"):
        with pytest.raises(RuntimeError):
            torch.broadcast_shapes(a, b)
        with pytest.raises(RuntimeError):
            torch.empty(a) + torch.empty(b)
        with pytest.raises(ValueError):
            np.broadcast_shapes(a, b)
        with pytest.raises(ValueError):
            broadcasting.broadcast_shapes(a, b)


@pytest.mark.claim("tensors.broadcast-stride-zero")
@pytest.mark.claim("tensors.broadcast-rule")
@property_settings()
@given(data=st.data())
def test_expand_has_stride_zero_where_it_stretches_and_copies_nothing(broadcasting, data):
    """Material: a broadcast dim has stride 0 and nothing is copied.
    True: expand of any layout gives the helper's strides, 0 on stretched dims, same storage."""
    layout = data.draw(layouts(shapes(max_dims=3, min_side=0, max_numel=12)), label="tensor")
    t = layout.tensor
    other = data.draw(hnp.broadcastable_shapes(layout.shape, max_dims=4, min_side=0, max_side=3),
                      label="other shape")
    target = np.broadcast_shapes(layout.shape, other)
    call = f"t.expand({target})"
    with reproduce(f"{layout.code}\ne = t.expand({target}); e.stride()"):
        e = t.expand(target)
        assert_equal_tuple(e.shape, target, f"{call}.shape", call)
        want = broadcasting.broadcast_strides(layout.shape, layout.strides, target)
        assert_equal_tuple(e.stride(), want, f"{call}.stride()",
                           f"ref.broadcasting.broadcast_strides({layout.shape}, {layout.strides}, {target})")
        padded = (1,) * (len(target) - t.dim()) + layout.shape
        for d, (was, now) in enumerate(zip(padded, target)):
            if was != now:
                assert e.stride(d) == 0, (
                    f"stride {e.stride(d)} on dim {d} stretched from {was} to {now}, but should be 0 [{call}]")
        assert_shares_storage(e, layout.base, call)
        assert e.storage_offset() == t.storage_offset(), (
            f"storage_offset {e.storage_offset()}, but should be t's {t.storage_offset()} [{call}]")
        assert_close(e, torch.from_numpy(np.broadcast_to(t.numpy(), target).copy()),
                     f"{call} against np.broadcast_to")
