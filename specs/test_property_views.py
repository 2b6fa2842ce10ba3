"""Tensors, views as a property: view, reshape, permute and contiguous on drawn layouts.

The material says view needs contiguous memory, reshape copies only when it must, views
alias their base and permute only reorders dimensions (000 §2.1, 003 §2.1, 004 §2.1).
Here tensors with contiguous, permuted and sliced layouts (hypothesis_helpers.layouts)
meet random target shapes of the same element count, and torch is held to the rule
``reference_impl/strides.py`` states: a view exists exactly when ``view_strides`` finds
strides, with those strides; reshape aliases exactly then and copies otherwise.
"""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

from hypothesis_helpers import (
    assert_close,
    assert_equal_tuple,
    assert_shares_storage,
    layouts,
    property_settings,
    reproduce,
    same_numel_shapes,
    shapes,
    shares_storage,
)

pytestmark = pytest.mark.property

# Up to 4 dims of up to 3, zero sizes included: big enough for every kind of chunk.
LAYOUT_SHAPES = shapes(max_dims=4, min_side=0, max_side=3, max_numel=36)


@pytest.fixture
def strides(ref):
    """reference_impl/strides.py (given to hypothesis as a module: an Impl answers
    hypothesis' attribute probes with ImplError instead of AttributeError)."""
    return ref.strides


def _draw_case(data):
    layout = data.draw(layouts(LAYOUT_SHAPES), label="tensor")
    new_shape = data.draw(same_numel_shapes(math.prod(layout.shape)), label="new shape")
    return layout, new_shape


@pytest.mark.claim("tensors.layout-decides-zero-copy")
@pytest.mark.claim("tensors.view-needs-contiguous")
@pytest.mark.claim("tensors.view-changes-only-metadata")
@pytest.mark.claim("tensors.t-write-aliases")
@property_settings()
@given(data=st.data())
def test_view_succeeds_exactly_when_strides_exist_and_writes_reach_the_base(strides, data):
    """Material: view needs contiguous memory and aliases its base.
    True: view works exactly when view_strides finds strides (contiguous or not); writes alias."""
    layout, new_shape = _draw_case(data)
    t = layout.tensor
    helper = f"ref.strides.view_strides({layout.shape}, {layout.strides}, {new_shape})"
    call = f"t.view({new_shape})"
    with reproduce(f"{layout.code}\nv = t.view({new_shape})  # {helper}, ref = torchclaims.impl.Impl()"):
        expected = strides.view_strides(layout.shape, layout.strides, new_shape)
        try:
            v = t.view(new_shape)
        except RuntimeError as exc:
            assert expected is None, f"{call} raised {exc!r}, but {helper} = {expected}, so it should be a view"
            return
        assert expected is not None, (
            f"{call} succeeded with strides {v.stride()}, but {helper} = None says no view exists")
        assert_equal_tuple(v.stride(), expected, f"{call}.stride()", helper)
        assert_shares_storage(v, layout.base, call)
        assert v.storage_offset() == t.storage_offset(), (
            f"storage_offset {v.storage_offset()}, but should be t's {t.storage_offset()} [{call}]")
        assert_close(v.reshape(-1), t.reshape(-1), f"{call} read in row-major order against t")

        if v.numel():
            k = data.draw(st.integers(0, v.numel() - 1), label="flat index written through the view")
            vi = tuple(int(i) for i in np.unravel_index(k, new_shape))
            ti = tuple(int(i) for i in np.unravel_index(k, layout.shape))
            v[vi] = 1234.5
            assert t[ti].item() == 1234.5, (
                f"t[{ti}]={t[ti].item()}, but should be 1234.5 after v[{vi}] = 1234.5 [{call}]")
            offset = t.storage_offset() + sum(i * s for i, s in zip(ti, layout.strides))
            assert layout.base.view(-1)[offset].item() == 1234.5, (
                f"base storage element {offset} = {layout.base.view(-1)[offset].item()}, but should be "
                f"1234.5 after v[{vi}] = 1234.5 [{call}]")


@pytest.mark.claim("tensors.reshape-copies-when-needed")
@pytest.mark.claim("tensors.layout-decides-zero-copy")
@property_settings()
@given(data=st.data())
def test_reshape_aliases_exactly_when_a_view_exists_and_copies_otherwise(strides, data):
    """Material: reshape copies only when it has to.
    True: reshape shares storage exactly when view_strides finds strides; else a contiguous copy."""
    layout, new_shape = _draw_case(data)
    t = layout.tensor
    helper = f"ref.strides.view_strides({layout.shape}, {layout.strides}, {new_shape})"
    call = f"t.reshape({new_shape})"
    with reproduce(f"{layout.code}\nr = t.reshape({new_shape})\n"
                   f"shares_storage(r, t)  # specs/aliasing.py; {helper}"):
        expected = strides.view_strides(layout.shape, layout.strides, new_shape)
        r = t.reshape(new_shape)
        assert_equal_tuple(r.shape, new_shape, f"{call}.shape", call)
        assert_close(r.reshape(-1), t.reshape(-1), f"{call} read in row-major order against t")
        if expected is not None:
            assert_shares_storage(r, t, call)
            assert_equal_tuple(r.stride(), expected, f"{call}.stride()", helper)
        else:
            assert not shares_storage(r, t), (
                f"{call} shares t's storage, but {helper} = None, so it must copy")
            assert r.is_contiguous(), f"{call} copied into strides {r.stride()}, but the copy should be contiguous"


@pytest.mark.claim("tensors.contiguous-makes-copy")
@property_settings(0.4)
@given(data=st.data())
def test_contiguous_copies_exactly_when_the_layout_is_not_row_major(strides, data):
    """Material: contiguous() makes memory contiguous, after which view works.
    True: it returns t itself when is_contiguous, else a row-major copy; any view then succeeds."""
    layout, new_shape = _draw_case(data)
    t = layout.tensor
    call = "t.contiguous()"
    with reproduce(f"{layout.code}\nc = t.contiguous(); c is t, c.stride()"):
        c = t.contiguous()
        assert strides.is_contiguous(layout.shape, layout.strides) == t.is_contiguous(), (
            f"ref.strides.is_contiguous({layout.shape}, {layout.strides}) disagrees with "
            f"t.is_contiguous()={t.is_contiguous()}")
        if t.is_contiguous():
            assert c is t, f"{call} returned a new tensor, but t is already contiguous and should be returned itself"
        else:
            assert not shares_storage(c, t), f"{call} shares t's storage, but t is not contiguous, so it must copy"
            assert_equal_tuple(c.stride(), strides.contiguous_strides(layout.shape), f"{call}.stride()",
                               f"ref.strides.contiguous_strides({layout.shape})")
        assert_close(c, t, call)
        c.view(new_shape)  # never raises on a contiguous tensor


@pytest.mark.claim("tensors.permute-reorders-dims")
@pytest.mark.claim("tensors.transpose-always-view")
@property_settings(0.4)
@given(data=st.data())
def test_permute_and_transpose_only_reorder_sizes_and_strides(data):
    """Material: permute only reorders dimensions; transpose is a view.
    True: on strided tensors both return views with sizes and strides reordered, values as NumPy."""
    layout = data.draw(layouts(LAYOUT_SHAPES), label="tensor")
    t = layout.tensor
    order = tuple(data.draw(st.permutations(range(t.dim())), label="permutation"))
    call = f"t.permute({order})"
    with reproduce(f"{layout.code}\np = t.permute({order}); p.shape, p.stride()"):
        p = t.permute(order)
        assert_equal_tuple(p.shape, [layout.shape[d] for d in order], f"{call}.shape", call)
        assert_equal_tuple(p.stride(), [layout.strides[d] for d in order], f"{call}.stride()", call)
        assert_shares_storage(p, layout.base, call)
        assert_close(p, torch.from_numpy(np.transpose(t.numpy(), order).copy()), f"{call} against np.transpose")
        if t.dim() >= 2:
            d0, d1 = data.draw(st.lists(st.integers(0, t.dim() - 1), min_size=2, max_size=2, unique=True),
                               label="transposed dims")
            tt = t.transpose(d0, d1)
            swapped = list(range(t.dim()))
            swapped[d0], swapped[d1] = d1, d0
            assert_equal_tuple(tt.stride(), [layout.strides[d] for d in swapped],
                               f"t.transpose({d0}, {d1}).stride()", f"t.transpose({d0}, {d1})")
            assert_shares_storage(tt, layout.base, f"t.transpose({d0}, {d1})")
