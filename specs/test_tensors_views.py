"""Tensors, chapter 1: storage, strides and views.

What a tensor is in memory, and which reshaping operations alias their input:
view, reshape, transpose/t(), permute, contiguous(), flatten, and what data_ptr()
does and does not prove.  Sources: 000 §2, §2.1; 002 §3.1; 003 §2.1, §3.1, §4.3.
"""
import warnings

import numpy as np
import pytest
import torch

from aliasing import shares_storage, storage_nbytes, storage_ptr


def assert_aliases(view: torch.Tensor, base: torch.Tensor, call: str) -> None:
    __tracebackhide__ = True
    assert storage_ptr(view) == storage_ptr(base), (
        f"{call} has storage {storage_ptr(view):#x}, but should share its base's "
        f"{storage_ptr(base):#x}")


def assert_owns_storage(result: torch.Tensor, base: torch.Tensor, call: str) -> None:
    __tracebackhide__ = True
    assert storage_ptr(result) != storage_ptr(base), (
        f"{call} shares its input's storage {storage_ptr(base):#x}, but should be a copy")


def test_the_aliasing_helpers_tell_a_view_from_a_copy_on_this_torch():
    """specs/aliasing.py (which every spec uses for aliasing) against torch itself: an offset
    view, a transpose and an expand share the base's buffer, a clone and a contiguous copy
    do not; nbytes is the whole buffer's size, whatever the view shows."""
    base = torch.arange(24, dtype=torch.float64)
    views = {"base[5:]": base[5:], "base.view(4, 6).t()": base.view(4, 6).t(),
             "base[:1].expand(3, 1)": base[:1].expand(3, 1), "base.view(2, 12)[1, ::3]": base.view(2, 12)[1, ::3]}
    for call, view in views.items():
        assert shares_storage(view, base) and storage_ptr(view) == storage_ptr(base), (
            f"aliasing says {call} does not share base's buffer, but it is a view")
        assert view.data_ptr() == storage_ptr(base) + view.storage_offset() * base.element_size(), (
            f"storage_ptr({call}) is not the start of the buffer its data_ptr() points into")
        assert storage_nbytes(view) == 24 * 8, (
            f"storage_nbytes({call}) = {storage_nbytes(view)}, but the buffer has 192 bytes")
    copies = {"base.clone()": base.clone(), "base.view(4, 6).t().contiguous()": base.view(4, 6).t().contiguous(),
              "base[5:].clone()": base[5:].clone()}
    for call, copy in copies.items():
        assert not shares_storage(copy, base) and storage_ptr(copy) != storage_ptr(base), (
            f"aliasing says {call} shares base's buffer, but it is a copy")
    assert storage_nbytes(copies["base[5:].clone()"]) == 19 * 8, "a clone of base[5:] owns exactly its 19 doubles"
    assert storage_nbytes(base.to(torch.int8)) == 24, "an int8 copy's buffer is 1 byte per element"


# --- what a tensor is --------------------------------------------------------------


@pytest.mark.claim("tensors.three-layer-structure")
def test_tensor_is_storage_plus_metadata_and_variable_is_a_plain_tensor():
    """Material: Storage + TensorImpl + Variable merged into Tensor.
    True: storage + (sizes, strides, offset); Variable(t) returns a plain Tensor."""
    base = torch.arange(12, dtype=torch.float32)
    part = base[2:].view(2, 5)
    assert storage_nbytes(part) == 12 * 4, (
        f"storage of base[2:].view(2, 5) has {storage_nbytes(part)} bytes, "
        "but should be the base's whole 48-byte buffer")
    assert shares_storage(part, base), "base[2:].view(2, 5) has its own storage, but should share base's"
    assert (part.storage_offset(), tuple(part.shape), part.stride()) == (2, (2, 5), (5, 1)), (
        f"metadata (offset, shape, stride) = {(part.storage_offset(), tuple(part.shape), part.stride())}"
        ", but should be (2, (2, 5), (5, 1)) [base[2:].view(2, 5)]")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped = torch.autograd.Variable(base, requires_grad=True)
    assert type(wrapped) is torch.Tensor, (
        f"torch.autograd.Variable(t) is a {type(wrapped).__name__}, but should be a plain torch.Tensor")
    assert wrapped.requires_grad, "Variable(t, requires_grad=True).requires_grad is False"
    assert (part.dtype, part.device) == (base.dtype, base.device) == (torch.float32, torch.device("cpu")), (
        f"a view's metadata carries dtype {part.dtype} and device {part.device}, but should be float32 on the cpu")
    doubled = wrapped * 2
    assert type(doubled) is torch.Tensor and doubled.grad_fn is not None, (
        f"the autograd state of Variable(t) * 2 should live on the plain tensor (grad_fn={doubled.grad_fn})")


# --- view ----------------------------------------------------------------------------


@pytest.mark.claim("tensors.view-changes-only-metadata")
def test_view_shares_storage_and_offset_with_its_base():
    """Material: view() only rewrites size and stride; the storage is untouched.
    True: same storage and storage offset, new sizes/strides, writes show through."""
    root = torch.arange(12.0)
    base = root[3:9]
    view = base.view(2, 3)
    assert view is not base, "base.view(2, 3) returned the base object itself, not a new tensor"
    assert (tuple(view.shape), view.stride()) == ((2, 3), (3, 1)), (
        f"base.view(2, 3) has shape {tuple(view.shape)} stride {view.stride()}, but should be (2, 3) and (3, 1)")
    assert_aliases(view, base, "base.view(2, 3)")
    assert view.storage_offset() == base.storage_offset() == 3, (
        f"offsets view={view.storage_offset()}, base={base.storage_offset()}, but both should be 3")
    assert view._is_view() and view._base is root, (
        "base.view(2, 3)._base should be root: base is itself a view of root, and _base names the root")
    plain = torch.arange(6.0)
    assert plain.view(2, 3)._base is plain, "torch.arange(6.0).view(2, 3)._base should be the tensor it was viewed from"
    view[1, 2] = -1.0
    assert base[5].item() == -1.0, (
        f"base[5]={base[5].item()} after view[1, 2] = -1, but should be -1 [base.view(2, 3)]")


@pytest.mark.claim("tensors.view-needs-contiguous")
def test_view_requires_the_same_number_of_elements():
    """Material: view needs an unchanged element count and contiguous memory.
    True: the count must match; a mismatch raises RuntimeError."""
    with pytest.raises(RuntimeError, match="invalid for input of size 12"):
        torch.arange(12).view(5, 2)


@pytest.mark.claim("tensors.view-needs-contiguous")
@pytest.mark.parametrize("make, new_shape", [
    (lambda: torch.arange(12).view(3, 4)[:, :2], (3, 2, 1)),
    (lambda: torch.arange(12).view(3, 4).t(), (4, 3, 1)),
    (lambda: torch.arange(24).view(2, 3, 4).permute(2, 0, 1), (4, 6)),
    (lambda: torch.arange(24).view(4, 6)[:, ::2], (2, 2, 3)),
], ids=["column-slice", "transpose-unsqueeze", "permute-merge-tail", "strided-split-rows"])
def test_view_works_on_non_contiguous_tensors_whose_dims_still_chain(make, new_shape):
    """Material: view requires contiguous memory.
    True: many non-contiguous tensors can be viewed without a copy."""
    base = make()
    assert not base.is_contiguous(), f"test setup: {tuple(base.shape)} input should be non-contiguous"
    view = base.view(new_shape)
    assert_aliases(view, base, f"non-contiguous.view{new_shape}")
    torch.testing.assert_close(view, base.reshape(new_shape))


@pytest.mark.claim("tensors.view-needs-contiguous", as_written=True)
def test_as_written_view_rejects_every_non_contiguous_tensor():
    """Material: view() requires contiguous memory, so a non-contiguous tensor raises.
    True: a column slice views fine as (3, 2, 1)."""
    columns = torch.arange(12).view(3, 4)[:, :2]
    with pytest.raises(RuntimeError):
        columns.view(3, 2, 1)


# --- the t() example of 000 §2.1 -----------------------------------------------------


@pytest.mark.claim("tensors.t-example-strides")
def test_t_of_a_3x4_view_swaps_shape_and_stride():
    """Material: arange(12).view(3, 4) has stride (4, 1); .t() has (4, 3), stride (1, 4).
    True: exactly so, on the same storage."""
    x = torch.arange(12).view(3, 4)
    y = x.t()
    assert x.stride() == (4, 1), f"x.stride()={x.stride()}, but should be (4, 1) [arange(12).view(3, 4)]"
    assert (tuple(y.shape), y.stride()) == ((4, 3), (1, 4)), (
        f"x.t() has shape {tuple(y.shape)} stride {y.stride()}, but should be (4, 3) and (1, 4)")
    assert_aliases(y, x, "x.t()")


@pytest.mark.claim("tensors.t-same-data-ptr")
def test_t_has_the_same_data_ptr_as_its_base():
    """Material: x.data_ptr() == x.t().data_ptr() prints True.
    True: True, because the transpose keeps storage offset 0."""
    x = torch.arange(12).view(3, 4)
    assert x.t().storage_offset() == x.storage_offset() == 0, (
        f"storage offsets x.t()={x.t().storage_offset()}, x={x.storage_offset()}, but both should be 0")
    assert x.data_ptr() == x.t().data_ptr() == storage_ptr(x), (
        f"x.t().data_ptr()={x.t().data_ptr():#x}, but should equal x.data_ptr()={x.data_ptr():#x}, "
        "the address of element 0 of the storage")
    shifted = torch.arange(13)[1:].view(3, 4)
    assert shifted.t().storage_offset() == shifted.storage_offset() == 1, (
        f"a transpose moved the storage offset from {shifted.storage_offset()} to {shifted.t().storage_offset()}")
    assert shifted.data_ptr() == storage_ptr(shifted) + shifted.element_size(), (
        "data_ptr() of a view at offset 1 should be one element past the storage's start")
    tail = x.view(-1)[1:]
    assert shares_storage(tail, x) and tail.data_ptr() != x.data_ptr(), (
        "x.view(-1)[1:] should share x's storage with a different data_ptr(): unequal pointers do not rule out sharing")


@pytest.mark.claim("tensors.t-write-aliases")
def test_writing_through_t_changes_the_base():
    """Material: y = x.t(); y[0, 0] = 999 also sets x[0, 0] to 999.
    True: it does; y[i, j] and x[j, i] are one storage element."""
    x = torch.arange(12).view(3, 4)
    y = x.t()
    assert y[0, 0].data_ptr() == x[0, 0].data_ptr(), "y[0, 0] and x[0, 0] are not the same storage element"
    y[0, 0] = 999
    y[3, 1] = -5
    assert x[0, 0].item() == 999, f"x[0, 0]={x[0, 0].item()} after y[0, 0] = 999, but should be 999"
    assert x[1, 3].item() == -5, f"x[1, 3]={x[1, 3].item()} after y[3, 1] = -5, but should be -5"
    for i in range(4):
        for j in range(3):
            y[i, j] = 100 + 10 * i + j
            assert x[j, i].item() == 100 + 10 * i + j, (
                f"x[{j}, {i}]={x[j, i].item()} after y[{i}, {j}] = {100 + 10 * i + j}, but should mirror it")


# --- data_ptr as evidence --------------------------------------------------------------


@pytest.mark.claim("tensors.data-ptr-proves-sharing")
def test_a_view_at_an_offset_shares_storage_but_not_data_ptr():
    """Material: compare data_ptr() to find out whether memory is shared.
    True: x[1:] shares x's storage but its data_ptr() is one element further."""
    x = torch.arange(6, dtype=torch.float32)
    tail = x[1:]
    assert tail.data_ptr() == x.data_ptr() + x.element_size(), (
        f"x[1:].data_ptr()={tail.data_ptr():#x}, but should be x.data_ptr()+4={x.data_ptr() + 4:#x}")
    assert_aliases(tail, x, "x[1:]")


@pytest.mark.claim("tensors.data-ptr-proves-sharing")
def test_tensors_from_overlapping_arrays_differ_in_data_ptr_and_storage():
    """Material: compare data_ptr() to find out whether memory is shared.
    True: from_numpy(a) and from_numpy(a[1:]) overlap, yet neither pointer matches; np.shares_memory tells."""
    a = np.arange(6.0)
    whole, tail = torch.from_numpy(a), torch.from_numpy(a[1:])
    assert tail.storage_offset() == 0, f"from_numpy(a[1:]).storage_offset()={tail.storage_offset()}, but should be 0"
    assert tail.data_ptr() == whole.data_ptr() + 8, (
        f"from_numpy(a[1:]).data_ptr()={tail.data_ptr():#x}, but should be 8 bytes past from_numpy(a)'s")
    assert storage_ptr(tail) != storage_ptr(whole), (
        "from_numpy(a[1:]) and from_numpy(a) report one storage address, but each wraps its own start")
    assert np.shares_memory(whole.numpy(), tail.numpy()), "np.shares_memory misses the overlap of a and a[1:]"
    tail[0] = -1.0
    assert whole[1].item() == -1.0, f"from_numpy(a)[1]={whole[1].item()} after from_numpy(a[1:])[0] = -1"


@pytest.mark.claim("tensors.data-ptr-proves-sharing", as_written=True)
def test_as_written_equal_data_ptr_detects_every_shared_view():
    """Material: data_ptr() comparison is the direct test of sharing.
    True: x[1:] shares memory yet its data_ptr() differs."""
    x = torch.arange(6, dtype=torch.float32)
    assert x[1:].data_ptr() == x.data_ptr(), "x[1:] shares x's memory, yet data_ptr() differs"


# --- reshape, transpose, permute, contiguous -------------------------------------------


@pytest.mark.claim("tensors.reshape-copies-when-needed")
def test_reshape_is_a_view_when_possible_and_a_copy_otherwise():
    """Material: reshape copies (makes contiguous) only when it has to.
    True: a view for a contiguous input, a contiguous copy for a transposed one."""
    x = torch.arange(12.0).view(3, 4)
    as_view = x.reshape(4, 3)
    assert_aliases(as_view, x, "contiguous.reshape(4, 3)")
    transposed = x.t()
    copied = transposed.reshape(12)
    assert_owns_storage(copied, x, "x.t().reshape(12)")
    assert copied.is_contiguous(), "x.t().reshape(12) is not contiguous"
    torch.testing.assert_close(copied, transposed.contiguous().view(12))
    with pytest.raises(RuntimeError):
        transposed.view(12)  # insisting on aliasing fails loudly where reshape would copy
    assert_owns_storage(x.clone(), x, "x.clone()")  # insisting on a copy works even where reshape aliases


@pytest.mark.claim("tensors.transpose-always-view")
@pytest.mark.parametrize("op", [
    lambda t: t.transpose(0, 2), lambda t: t.t() if t.dim() == 2 else t.mT,
    lambda t: torch.transpose(t, 1, 2), lambda t: t.swapaxes(0, 1),
], ids=["transpose", "t-or-mT", "torch.transpose", "swapaxes"])
def test_transpose_of_a_strided_tensor_is_a_view(op):
    """Material: transpose is always a view.
    True: for strided tensors, always: sizes and strides swapped, storage shared."""
    x = torch.arange(24.0).view(2, 3, 4)
    y = op(x)
    assert_aliases(y, x, "transpose of a strided tensor")
    before, after = list(zip(x.shape, x.stride())), list(zip(y.shape, y.stride()))
    moved = [d for d in range(3) if before[d] != after[d]]
    assert len(moved) == 2 and after[moved[0]] == before[moved[1]] and after[moved[1]] == before[moved[0]], (
        f"(size, stride) pairs went from {before} to {after}, but exactly two dims should swap theirs")


@pytest.mark.claim("tensors.transpose-always-view")
def test_transpose_of_a_sparse_tensor_does_not_share_storage():
    """Material: transpose is always a view.
    True: a sparse COO transpose gets its own indices and values."""
    dense = torch.tensor([[0.0, 1.0], [2.0, 0.0]])
    sparse = dense.to_sparse()
    flipped = sparse.t()
    assert flipped.is_sparse
    assert flipped._values().data_ptr() != sparse._values().data_ptr(), (
        "sparse.t()._values() shares the input's values, but the docs say it does not")
    assert flipped._indices().data_ptr() != sparse._indices().data_ptr(), (
        "sparse.t()._indices() shares the input's indices, but should be rewritten into a new tensor")
    torch.testing.assert_close(flipped.to_dense(), dense.t())


@pytest.mark.claim("tensors.permute-reorders-dims")
def test_permute_reorders_sizes_and_strides_without_copying():
    """Material: permute only reorders dimensions.
    True: a view whose sizes and strides are the input's, reordered."""
    x = torch.arange(24.0).view(2, 3, 4)
    y = x.permute(2, 0, 1)
    assert (tuple(y.shape), y.stride()) == ((4, 2, 3), (1, 12, 4)), (
        f"x.permute(2, 0, 1) has shape {tuple(y.shape)} stride {y.stride()}, "
        "but should be (4, 2, 3) and (1, 12, 4)")
    assert_aliases(y, x, "x.permute(2, 0, 1)")
    assert not y.is_contiguous(), "x.permute(2, 0, 1) claims to be contiguous"


@pytest.mark.claim("tensors.transposed-view-raises")
def test_view_of_a_transposed_2x3x4_raises_and_reshape_copies():
    """Material: (2, 3, 4).transpose(0, 1).view(-1, 4) must fail; reshape(-1, 4) works.
    True: view raises RuntimeError suggesting reshape; reshape returns a copy."""
    x = torch.arange(24.0).view(2, 3, 4)
    t = x.transpose(0, 1)
    assert (tuple(t.shape), t.stride(), t.is_contiguous()) == ((3, 2, 4), (4, 12, 1), False), (
        f"x.transpose(0, 1) is {tuple(t.shape)} stride {t.stride()}, but should be "
        "(3, 2, 4) stride (4, 12, 1), non-contiguous")
    with pytest.raises(RuntimeError, match="reshape"):
        t.view(-1, 4)
    r = t.reshape(-1, 4)
    assert_owns_storage(r, x, "x.transpose(0, 1).reshape(-1, 4)")
    assert r.is_contiguous(), f"x.transpose(0, 1).reshape(-1, 4) has strides {r.stride()}, but should be contiguous"
    torch.testing.assert_close(r, t.contiguous().view(-1, 4))


@pytest.mark.claim("tensors.contiguous-makes-copy")
def test_contiguous_copies_only_non_contiguous_tensors():
    """Material: contiguous() turns a tensor into contiguous memory so view works.
    True: a copy for a non-contiguous tensor, the tensor itself otherwise."""
    x = torch.arange(12.0).view(3, 4)
    assert x.contiguous() is x, "contiguous() on a contiguous tensor should return the tensor itself"
    c = x.t().contiguous()
    assert c.is_contiguous() and c.stride() == (3, 1), f"x.t().contiguous().stride()={c.stride()}, should be (3, 1)"
    assert_owns_storage(c, x, "x.t().contiguous()")
    assert c.view(12).shape == (12,)


@pytest.mark.claim("tensors.channel-shuffle-view-or-reshape")
def test_channel_shuffle_needs_reshape_after_the_transpose():
    """Material: view vs reshape matters for ChannelShuffle/PixelShuffle.
    True: the final flatten raises with view, works with reshape, equals nn.ChannelShuffle."""
    n, c, h, w, groups = 2, 6, 3, 3, 3
    x = torch.randn(n, c, h, w)
    mixed = x.view(n, groups, c // groups, h, w).transpose(1, 2)
    with pytest.raises(RuntimeError):
        mixed.view(n, c, h, w)
    expected = torch.nn.ChannelShuffle(groups)(x)
    torch.testing.assert_close(mixed.reshape(n, c, h, w), expected)
    torch.testing.assert_close(mixed.contiguous().view(n, c, h, w), expected)


@pytest.mark.claim("tensors.channel-shuffle-view-or-reshape")
def test_pixel_shuffle_by_hand_needs_reshape_for_the_final_merge():
    """Material: view vs reshape matters for ChannelShuffle/PixelShuffle.
    True: after the permute, merging to (N, C, H*r, W*r) raises with view; reshape equals nn.PixelShuffle."""
    n, c, r, h, w = 2, 3, 2, 4, 5
    x = torch.randn(n, c * r * r, h, w)
    moved = x.view(n, c, r, r, h, w).permute(0, 1, 4, 2, 5, 3)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        moved.view(n, c, h * r, w * r)
    torch.testing.assert_close(moved.reshape(n, c, h * r, w * r), torch.nn.PixelShuffle(r)(x))


@pytest.mark.claim("tensors.mha-needs-contiguous")
def test_multihead_attention_accepts_non_contiguous_seq_first_input():
    """Material: nn.MultiheadAttention requires contiguous (L, N, E) input.
    True: (L, N, E) is the default layout, but a permuted non-contiguous input works."""
    mha = torch.nn.MultiheadAttention(embed_dim=8, num_heads=2).eval()
    assert mha.batch_first is False, "nn.MultiheadAttention's default should be batch_first=False"
    batch_first = torch.randn(3, 5, 8)
    seq_first = batch_first.permute(1, 0, 2)
    assert not seq_first.is_contiguous()
    with torch.no_grad():
        out, _ = mha(seq_first, seq_first, seq_first)
        expected, _ = mha(*(seq_first.contiguous(),) * 3)
        alone, _ = mha(*(seq_first[:, 1:2],) * 3)
    assert out.shape == (5, 3, 8), f"output shape {tuple(out.shape)}, but should be (5, 3, 8) [(L, N, E)]"
    torch.testing.assert_close(out, expected)
    torch.testing.assert_close(out[:, 1:2], alone, msg=lambda m: (
        f"batch element 1 run alone differs from column 1 of the batch: dim 1 is not the batch [{m}]"))


@pytest.mark.claim("tensors.mha-needs-contiguous", as_written=True)
def test_as_written_multihead_attention_rejects_non_contiguous_input():
    """Material: MultiheadAttention explicitly requires contiguous memory.
    True: a non-contiguous (L, N, E) input is accepted."""
    mha = torch.nn.MultiheadAttention(embed_dim=8, num_heads=2)
    seq_first = torch.randn(3, 5, 8).permute(1, 0, 2)
    with pytest.raises(RuntimeError):
        mha(seq_first, seq_first, seq_first)


@pytest.mark.claim("tensors.layout-decides-zero-copy")
@pytest.mark.parametrize("make, new_shape, zero_copy", [
    (lambda: torch.arange(24.0).view(2, 3, 4), (6, 4), True),
    (lambda: torch.arange(24.0).view(2, 3, 4).transpose(1, 2), (2, 12), False),
    (lambda: torch.arange(24.0).view(2, 3, 4).transpose(0, 1), (3, 2, 2, 2), True),
    (lambda: torch.arange(24.0).view(4, 6)[:, 1:5], (4, 2, 2), True),
    (lambda: torch.arange(24.0).view(4, 6)[:, 1:5], (16,), False),
], ids=["contiguous-merge", "transposed-merge", "transposed-split-tail", "slice-split", "slice-merge"])
def test_zero_copy_reshape_is_exactly_when_strides_exist(ref, make, new_shape, zero_copy):
    """Material: zero copy depends on whether strides can describe the target layout.
    True: reshape aliases exactly when view_strides finds strides, and uses them."""
    x = make()
    strides = ref.strides.view_strides(tuple(x.shape), x.stride(), new_shape)
    assert (strides is not None) == zero_copy, (
        f"view_strides({tuple(x.shape)}, {x.stride()}, {new_shape})={strides}, "
        f"but a view {'exists' if zero_copy else 'does not exist'}")
    r = x.reshape(new_shape)
    shares = storage_ptr(r) == storage_ptr(x)
    assert shares == zero_copy, (
        f"x.reshape{new_shape} {'shares' if shares else 'copies'} storage, but should "
        f"{'share' if zero_copy else 'copy'} [x shape {tuple(x.shape)} stride {x.stride()}]")
    if zero_copy:
        assert r.stride() == strides, f"reshape stride {r.stride()}, but view_strides gave {strides}"


@pytest.mark.claim("tensors.flatten-keeps-batch")
def test_flatten_from_dim_1_keeps_the_batch_and_accepts_non_contiguous_input():
    """Material: torch.flatten(out, 1) keeps the batch dim and avoids view(-1) errors.
    True: (N, C*H*W), and it also works where view raises."""
    feats = torch.randn(4, 8, 2, 2)
    flat = torch.flatten(feats, 1)
    assert flat.shape == (4, 32), f"torch.flatten(x, 1).shape={tuple(flat.shape)}, but should be (4, 32)"
    assert_aliases(flat, feats, "torch.flatten(contiguous, 1)")
    channels_last = feats.permute(0, 2, 3, 1)
    with pytest.raises(RuntimeError):
        channels_last.view(4, -1)
    flat_copy = torch.flatten(channels_last, 1)
    torch.testing.assert_close(flat_copy, channels_last.reshape(4, -1))
    assert_owns_storage(flat_copy, feats, "torch.flatten(x.permute(0, 2, 3, 1), 1)")


@pytest.mark.claim("tensors.data-attr-contiguous")
def test_data_attribute_has_the_tensors_own_layout():
    """Material: .data is the contiguous memory block holding the values.
    True: .data shares storage, sizes and strides; x.t().data is non-contiguous."""
    x = torch.arange(7.0, requires_grad=True)
    y = x[1:].view(2, 3).t()
    data = y.data
    assert data is not y, "y.data is y itself, but should be another tensor"
    assert_aliases(data, x, "x[1:].view(2, 3).t().data")
    got = (tuple(data.shape), data.stride(), data.storage_offset(), data.requires_grad)
    want = (tuple(y.shape), y.stride(), y.storage_offset(), False)
    assert got == want, f".data (shape, stride, offset, requires_grad) = {got}, but should be {want}"
    assert not data.is_contiguous(), ".data of a transposed tensor claims to be contiguous"
    assert x.data.is_contiguous(), ".data of a contiguous tensor should be contiguous"


@pytest.mark.claim("tensors.data-attr-contiguous", as_written=True)
def test_as_written_data_attribute_is_contiguous():
    """Material: .data is contiguous memory.
    True: it is as (non-)contiguous as its tensor."""
    assert torch.arange(6.0).view(2, 3).t().data.is_contiguous()


@pytest.mark.claim("tensors.view-changes-only-metadata")
@pytest.mark.claim("tensors.t-write-aliases")
def test_view_and_t_alias_their_base_on_every_device(device):
    """Material: view/t() are zero-copy and writes show through.
    True: so on every device, not just the CPU."""
    x = torch.arange(12.0, device=device).view(3, 4)
    y = x.t()
    v = x.view(2, 6)
    assert_aliases(y, x, f"x.t() on {device}")
    assert_aliases(v, x, f"x.view(2, 6) on {device}")
    y[0, 0] = 999.0
    assert v[0, 0].item() == 999.0, f"x.view(2, 6)[0, 0]={v[0, 0].item()} after x.t()[0, 0] = 999 on {device}"
