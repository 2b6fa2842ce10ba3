"""Tensors, chapter 4: broadcasting.

The trailing-alignment rule, stride-0 expansion, the (3, 1) + (4,) example, the silent
(N, N) trap of an (N,) label, its fix, and per-channel de-normalization.
Sources: 004 §2.2, §5.5, §6; 003 §5.3.
"""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from aliasing import shares_storage, storage_nbytes


@pytest.mark.claim("tensors.broadcast-rule")
@pytest.mark.parametrize("a, b, expected", [
    ((3, 1), (4,), (3, 4)), ((5, 1, 4), (3, 1), (5, 3, 4)), ((2, 1), (1, 0), (2, 0)),
    ((), (2, 3), (2, 3)), ((8, 1, 6, 1), (7, 1, 5), (8, 7, 6, 5)),
], ids=str)
def test_shapes_align_from_the_right_and_size_1_stretches(ref, a, b, expected):
    """Material: compare from the last dim; equal sizes or a 1 broadcast.
    True: so, with missing leading dims as 1; torch, NumPy and the helper agree."""
    got = (tuple(torch.broadcast_shapes(a, b)), np.broadcast_shapes(a, b),
           ref.broadcasting.broadcast_shapes(a, b))
    assert got == (expected,) * 3, (
        f"(torch, numpy, reference) broadcast {a} with {b} to {got}, but should give {expected}")
    assert (torch.zeros(a) + torch.zeros(b)).shape == expected


@pytest.mark.claim("tensors.broadcast-rule")
@pytest.mark.parametrize("a, b", [((3,), (4,)), ((2, 3), (3, 2)), ((0,), (2,))], ids=str)
def test_other_size_pairs_do_not_broadcast(a, b):
    """Material: only equal sizes or a 1 broadcast.
    True: anything else raises (RuntimeError in torch, ValueError in NumPy)."""
    with pytest.raises(RuntimeError, match="must match"):
        torch.zeros(a) + torch.zeros(b)
    with pytest.raises(ValueError):
        np.zeros(a) + np.zeros(b)


@pytest.mark.claim("tensors.broadcast-stride-zero")
def test_expand_and_broadcast_to_use_stride_zero_and_copy_nothing():
    """Material: a broadcast dimension gets stride 0 instead of copies.
    True: expand/broadcast_to are stride-0 views; the sum's result is a fresh full tensor."""
    x = torch.tensor([[1.0], [2.0], [3.0]])
    wide = x.expand(3, 4)
    assert wide.stride() == (1, 0), f"x.expand(3, 4).stride()={wide.stride()}, but should be (1, 0)"
    assert shares_storage(wide, x), "expand copied x"
    a = np.arange(4)
    assert np.broadcast_to(a, (3, 4)).strides == (0, 8), "np.broadcast_to(arange(4), (3, 4)) should have strides (0, 8)"
    assert np.shares_memory(np.broadcast_to(a, (3, 4)), a), "np.broadcast_to copied its input"
    z = x + torch.arange(4.0)
    assert z.is_contiguous() and storage_nbytes(z) == 12 * 4, (
        f"x + y should allocate a full (3, 4) result, got {storage_nbytes(z)} bytes")


@pytest.mark.claim("tensors.broadcast-example")
def test_3x1_plus_4_broadcasts_to_3x4():
    """Material: (3, 1) + (4,) broadcasts to (3, 4).
    True: z[i, j] = x[i, 0] + y[j], in NumPy and torch."""
    x = np.array([[1], [2], [3]])
    y = np.array([10, 20, 30, 40])
    z = x + y
    assert z.shape == (3, 4), f"(3, 1) + (4,) gave {z.shape}, but should be (3, 4)"
    zt = torch.from_numpy(x) + torch.from_numpy(y)
    assert tuple(zt.shape) == (3, 4), f"torch: (3, 1) + (4,) gave {tuple(zt.shape)}, but should be (3, 4)"
    for i in range(3):
        for j in range(4):
            assert z[i, j] == zt[i, j].item() == x[i, 0] + y[j], (
                f"z[{i}, {j}] = {z[i, j]} (numpy), {zt[i, j].item()} (torch), but should be x[{i}, 0] + y[{j}]")


@pytest.mark.claim("tensors.broadcast-n-vs-n1")
def test_an_n_label_against_an_n_by_1_output_silently_gives_n_by_n():
    """Material: an (N,) label against the output broadcasts to (N, N).
    True: against an (N, 1) output it does, silently; F.mse_loss only warns."""
    n = 5
    output = torch.randn(n, 1)
    label = torch.randn(n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # silently: no warning, no error
        diff = output - label
    assert diff.shape == (n, n), f"(N, 1) - (N,) gave {tuple(diff.shape)}, not (N, N)"
    with pytest.warns(UserWarning, match="different to the input size"):
        wrong = F.mse_loss(output, label)
    right = F.mse_loss(output.squeeze(1), label)
    assert not torch.isclose(wrong, right), "the broadcast (N, N) loss happens to equal the real loss"


@pytest.mark.claim("tensors.broadcast-n-vs-n1")
def test_an_n_label_against_an_n_by_c_output_raises():
    """Material: an (N,) label against an (N, C) output gives an (N, N) intermediate.
    True: the label aligns with C, so 1 < C != N raises a size mismatch."""
    n, c = 4, 3
    with pytest.raises(RuntimeError, match="must match"):
        torch.randn(n, c) - torch.randn(n)


@pytest.mark.claim("tensors.broadcast-n-vs-n1", as_written=True, raises=RuntimeError, match=r"must match the size of tensor")
def test_as_written_n_label_with_n_by_c_output_broadcasts_to_n_by_n():
    """Material: an (N,) label and an (N, C) output broadcast to (N, N).
    True: for C = 3, N = 4 this raises."""
    n, c = 4, 3
    assert (torch.randn(n, c) - torch.randn(n)).shape == (n, n)


@pytest.mark.claim("tensors.broadcast-fix-explicit-shape")
def test_squeezing_to_the_agreed_shape_removes_the_trap():
    """Material: print shapes and view/squeeze loss inputs to the agreed shape.
    True: after squeeze(1) or view(-1, 1) shapes match and mse_loss does not warn."""
    output = torch.randn(6, 1)
    label = torch.randn(6)
    assert output.squeeze(1).shape == label.shape and output.shape == label.view(-1, 1).shape, (
        f"squeeze(1) gave {tuple(output.squeeze(1).shape)}, view(-1, 1) gave {tuple(label.view(-1, 1).shape)}: "
        "each pair should have equal shapes")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = F.mse_loss(output.squeeze(1), label)
        b = F.mse_loss(output, label.view(-1, 1))
        terms = F.mse_loss(output.squeeze(1), label, reduction="none")
    assert terms.shape == (6,), f"the elementwise loss has shape {tuple(terms.shape)}, but should have N = 6 terms"
    torch.testing.assert_close(a, b)
    torch.testing.assert_close(a, ((output[:, 0] - label) ** 2).mean())


@pytest.mark.claim("data.denormalize-inverts")
def test_denormalize_with_3x1x1_statistics_then_permute_to_hwc():
    """Material: x * std.view(3, 1, 1) + mean.view(3, 1, 1), clamp, permute(1, 2, 0).
    True: per-channel broadcast restores the image; permute gives an (H, W, 3) view."""
    mean = torch.tensor([0.4914, 0.4822, 0.4465])
    std = torch.tensor([0.2023, 0.1994, 0.2010])
    image = torch.rand(3, 8, 5)
    normalized = (image - mean.view(3, 1, 1)) / std.view(3, 1, 1)
    restored = torch.clamp(normalized * std.view(3, 1, 1) + mean.view(3, 1, 1), 0, 1)
    torch.testing.assert_close(restored, image)
    torch.testing.assert_close(normalized[1], (image[1] - mean[1]) / std[1])
    hwc = restored.permute(1, 2, 0)
    assert tuple(hwc.shape) == (8, 5, 3), f"permute(1, 2, 0) gave {tuple(hwc.shape)}, but should be (8, 5, 3)"
    assert shares_storage(hwc, restored)
